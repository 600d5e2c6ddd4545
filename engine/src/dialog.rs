//! JavaScript dialogs as an agent reads them: the line and the observation of the one a page waits on.
//!
//! While a dialog is open the page's script, layout and input are stopped
//! (a browser answers no query of it), so the observation of a page with a
//! pending dialog is the dialog alone: [`Dialog::observation`]. The dialog
//! record itself is plain data below the recording, which a recording's
//! notes hold ([`crate::recording::CaptureNotes::dialogs`]); it is
//! re-exported here under the names it has always had.

use crate::observation::{Meta, Observation};
pub use crate::recording::{Answered, Dialog, DialogKind};

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
}
