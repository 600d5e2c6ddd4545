//! How the embedded agents answer a JavaScript dialog: as the instruction says (cancel, keep, stay… dismiss it; otherwise accept it, a prompt with the instruction's last quoted text).

use pagesnap_engine::dialog::{Dialog, DialogKind};

use super::instruction::Clause;
use super::{Action, Op};

/// Words of an instruction that ask to turn a dialog down.
const DISMISS: &[&str] = &[
    "cancel", "dismiss", "decline", "reject", "keep", "stay", "don't", "do not", "never",
];

/// Words of a clause that is about a dialog ("confirm the dialog", "cancel the
/// prompt"): answering the dialog carries it out.
const ABOUT_DIALOG: &[&str] = &[
    "dialog",
    "confirm",
    "confirmation",
    "prompt",
    "alert",
    "popup",
    "ok",
    "cancel",
    "dismiss",
];

/// The answer to `dialog` that `instruction` asks for.
pub fn answer(instruction: &str, dialog: &Dialog) -> Action {
    let lower = instruction.to_lowercase();
    let dismiss = DISMISS.iter().any(|word| contains_word(&lower, word));
    let value = if dismiss {
        "dismiss".to_owned()
    } else {
        match dialog.kind {
            DialogKind::Prompt => last_quoted(instruction).unwrap_or_else(|| "accept".to_owned()),
            _ => "accept".to_owned(),
        }
    };
    Action {
        op: Op::Dialog,
        reference: None,
        value: Some(value),
    }
}

/// Whether the clause is carried out by answering a dialog.
pub fn is_about_dialog(clause: &Clause) -> bool {
    clause
        .query
        .iter()
        .any(|term| ABOUT_DIALOG.contains(&term.as_str()))
}

fn contains_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// The last text between straight or curly double quotes.
fn last_quoted(text: &str) -> Option<String> {
    let mut quoted = None;
    let mut open: Option<usize> = None;
    for (at, c) in text.char_indices() {
        match (c, open) {
            ('"' | '“', None) => open = Some(at + c.len_utf8()),
            ('"' | '”', Some(start)) => {
                quoted = Some(text[start..at].to_owned());
                open = None;
            }
            _ => {}
        }
    }
    quoted.filter(|q| !q.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dialog(kind: DialogKind) -> Dialog {
        Dialog {
            kind,
            message: "?".to_owned(),
            default_prompt: None,
        }
    }

    #[test]
    fn the_instruction_decides_the_answer() {
        let value = |instruction, kind| answer(instruction, &dialog(kind)).value.unwrap();
        assert_eq!(
            value("Click \"Close editor\" and confirm", DialogKind::Confirm),
            "accept"
        );
        assert_eq!(
            value(
                "Click \"Close editor\" but keep the changes",
                DialogKind::Confirm
            ),
            "dismiss"
        );
        assert_eq!(
            value("Rename the document to \"Q3 report\"", DialogKind::Prompt),
            "Q3 report"
        );
        assert_eq!(
            value("Click \"Rename\", then cancel", DialogKind::Prompt),
            "dismiss"
        );
        // "keeper" is not "keep".
        assert_eq!(
            value("Click \"Save the goalkeeper\"", DialogKind::Alert),
            "accept"
        );
    }
}
