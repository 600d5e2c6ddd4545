//! JavaScript dialogs (`alert`, `confirm`, `prompt`, `beforeunload`): the one a page waits on, as an agent reads it, and those a policy answered, as a recording lists them.
//!
//! While a dialog is open the page's script, layout and input are stopped
//! (a browser answers no query of it), so the observation of a page with a
//! pending dialog is the dialog alone: [`Dialog::observation`].

use serde::{Deserialize, Serialize};

use crate::observation::{Meta, Observation};

/// Which dialog the page opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DialogKind {
    /// `alert()`: a message and OK.
    Alert,
    /// `confirm()`: OK (true) or Cancel (false).
    Confirm,
    /// `prompt()`: a line of text, or Cancel (null).
    Prompt,
    /// The page asks whether to leave it (`beforeunload`).
    Beforeunload,
}

impl DialogKind {
    /// The kind as the page's API names it.
    pub fn name(self) -> &'static str {
        match self {
            DialogKind::Alert => "alert",
            DialogKind::Confirm => "confirm",
            DialogKind::Prompt => "prompt",
            DialogKind::Beforeunload => "beforeunload",
        }
    }
}

/// A dialog a page opened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Dialog {
    /// Which.
    pub kind: DialogKind,
    /// Its message, as the page gave it.
    pub message: String,
    /// A prompt's default text, if the page gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_prompt: Option<String>,
}

impl Dialog {
    /// The line an agent reads while the dialog waits for an answer: its
    /// kind, message and a prompt's default, and what answers it.
    pub fn line(&self) -> String {
        let default = match &self.default_prompt {
            Some(text) if !text.is_empty() => format!(" (default text {text:?})"),
            _ => String::new(),
        };
        let answers = match self.kind {
            DialogKind::Alert => "accept it",
            DialogKind::Confirm => "accept (OK) or dismiss (Cancel) it",
            DialogKind::Prompt => "accept it with a text, or dismiss it",
            DialogKind::Beforeunload => "accept (leave the page) or dismiss (stay) it",
        };
        let article = match self.kind {
            DialogKind::Alert => "An",
            _ => "A",
        };
        format!(
            "{article} {} dialog is open: {:?}{default}. The page is stopped until it is answered: {answers} with the dialog action; no other action runs until then.",
            self.kind.name(),
            self.message
        )
    }

    /// What an agent observes while the dialog is pending, in any strategy:
    /// the dialog's line and no refs (nothing else on the page can be acted
    /// on); `meta.dialog` holds the dialog.
    pub fn observation(&self, strategy: &str) -> Observation {
        Observation {
            text: format!("{}\n", self.line()),
            image: None,
            refs: Vec::new(),
            meta: Meta {
                strategy: strategy.to_owned(),
                dialog: Some(self.clone()),
                ..Meta::default()
            },
        }
    }
}

/// A dialog answered without an agent (by the browser's dialog policy), as
/// a recording's notes list it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answered {
    /// The dialog.
    #[serde(flatten)]
    pub dialog: Dialog,
    /// OK (true) or Cancel (false).
    pub accepted: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_names_the_kind_the_message_and_the_answers() {
        let prompt = Dialog {
            kind: DialogKind::Prompt,
            message: "Your name?".to_owned(),
            default_prompt: Some("Ada".to_owned()),
        };
        let line = prompt.line();
        assert!(
            line.starts_with("A prompt dialog is open: \"Your name?\" (default text \"Ada\").")
        );
        assert!(line.contains("accept it with a text, or dismiss it"));
        let seen = prompt.observation("aria");
        assert!(seen.refs.is_empty());
        assert_eq!(seen.meta.dialog.as_ref(), Some(&prompt));
        assert_eq!(seen.text, format!("{line}\n"));
    }

    #[test]
    fn kinds_are_spelled_as_serde_spells_them() {
        for kind in [
            DialogKind::Alert,
            DialogKind::Confirm,
            DialogKind::Prompt,
            DialogKind::Beforeunload,
        ] {
            assert_eq!(
                serde_json::to_value(kind).ok(),
                Some(serde_json::Value::String(kind.name().to_owned()))
            );
        }
    }
}
