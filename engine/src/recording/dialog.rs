//! The dialog record: a JavaScript dialog (`alert`, `confirm`, `prompt`, `beforeunload`) as plain data, which a recording may hold.
//!
//! A recording lists the dialogs its recorder's policy answered
//! ([`super::CaptureNotes::dialogs`]); how an agent reads a dialog is
//! rendered above the recording, in [`crate::dialog`].

use serde::{Deserialize, Serialize};

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
