//! The read-back after a field is set: what the field holds, compared with what was asked — the same letters and digits in the same order is done (a mask that spaced or punctuated it is told in a note), anything else is a `value-mismatch` naming both (a `maxlength` cut, a script's rewrite, keys that landed elsewhere); a secret field's values are never echoed.

use crate::action::{Failure, Outcome};

/// What a field holds against what was typed into it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Held {
    /// Exactly what was typed.
    Same,
    /// The same letters and digits in the same order, spaced or punctuated
    /// otherwise (a phone or card mask), or in another case.
    Reformatted,
    /// Anything else.
    Mismatch,
}

/// The field a read-back reads, as its script reports it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Field {
    /// A password field: its values are never echoed.
    pub(crate) secret: bool,
    /// A number field: punctuation is meaning (`1,5` is not `15`).
    pub(crate) numeric: bool,
    /// Its `maxlength`, if it has one.
    pub(crate) max_length: Option<u32>,
}

/// How `held` compares with `typed` in `field`; `within`: the text was
/// typed at the focus into what the field already held, so holding it
/// anywhere is enough.
pub(crate) fn compare(typed: &str, held: &str, field: Field, within: bool) -> Held {
    if held == typed || (within && held.contains(typed)) {
        return Held::Same;
    }
    if field.numeric {
        let number = |s: &str| s.trim().parse::<f64>().ok();
        return match (number(typed), number(held)) {
            (Some(a), Some(b)) if a == b && !within => Held::Reformatted,
            _ => Held::Mismatch,
        };
    }
    let (typed, held) = (essence(typed), essence(held));
    let same = if within {
        held.contains(&typed)
    } else {
        held == typed
    };
    if same {
        Held::Reformatted
    } else {
        Held::Mismatch
    }
}

/// The letters and digits of `text`, in order, in lower case.
fn essence(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The outcome of typing `typed` into a field that now holds `held`.
pub(crate) fn outcome(typed: &str, held: &str, field: Field, within: bool) -> Outcome {
    match compare(typed, held, field, within) {
        Held::Same => Outcome::ok(),
        Held::Reformatted if field.secret => Outcome::Done {
            note: Some("the field reformatted what was typed".to_owned()),
        },
        Held::Reformatted => Outcome::Done {
            note: Some(format!("the field now holds {held:?}")),
        },
        Held::Mismatch => Outcome::failed(Failure::ValueMismatch, mismatch(typed, held, field)),
    }
}

/// The message of a mismatch: both values (a secret field's lengths only),
/// and the field's length limit where it cut the text short.
fn mismatch(typed: &str, held: &str, field: Field) -> String {
    let cut = field
        .max_length
        .filter(|&max| typed.chars().count() > max as usize && typed.starts_with(held))
        .map(|max| format!(" (it takes at most {max} characters)"))
        .unwrap_or_default();
    if field.secret {
        return format!(
            "the field does not hold what was typed: {} characters typed, {} held{cut}",
            typed.chars().count(),
            held.chars().count()
        );
    }
    format!("the field holds {held:?}, not {typed:?} as typed{cut}")
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: Field = Field {
        secret: false,
        numeric: false,
        max_length: None,
    };

    #[test]
    fn a_mask_that_spaces_the_digits_is_the_same_value() {
        assert_eq!(compare("Ada", "Ada", TEXT, false), Held::Same);
        assert_eq!(
            compare("+33123456789", "+33 1 23 45 67 89", TEXT, false),
            Held::Reformatted
        );
        assert_eq!(compare("1227", "12/27", TEXT, false), Held::Reformatted);
        assert_eq!(
            compare("sw1a 1aa", "SW1A 1AA", TEXT, false),
            Held::Reformatted
        );
        let note = outcome("5551234567", "(555) 123-4567", TEXT, false);
        assert_eq!(
            note,
            Outcome::Done {
                note: Some("the field now holds \"(555) 123-4567\"".to_owned())
            }
        );
    }

    #[test]
    fn a_cut_a_rewrite_or_keys_elsewhere_are_mismatches_naming_both() {
        let limited = Field {
            max_length: Some(5),
            ..TEXT
        };
        let Outcome::Failed { kind, message } = outcome("12345678", "12345", limited, false) else {
            panic!("a cut value is no success");
        };
        assert_eq!(kind, Failure::ValueMismatch);
        assert!(message.contains("\"12345\", not \"12345678\""), "{message}");
        assert!(message.contains("at most 5 characters"), "{message}");
        assert_eq!(
            compare("2026-12-24", "61224-02-02", TEXT, false),
            Held::Mismatch
        );
        assert_eq!(compare("Ada", "", TEXT, false), Held::Mismatch);
        assert_eq!(compare("Ada Lovelace", "ADA", TEXT, false), Held::Mismatch);
    }

    #[test]
    fn numbers_compare_as_numbers_and_secrets_are_never_echoed() {
        let number = Field {
            numeric: true,
            ..TEXT
        };
        assert_eq!(compare("1.50", "1.5", number, false), Held::Reformatted);
        assert_eq!(compare("1,5", "15", number, false), Held::Mismatch);
        let secret = Field {
            secret: true,
            ..TEXT
        };
        let Outcome::Failed { message, .. } = outcome("hunter22", "hunter", secret, false) else {
            panic!("a mismatch");
        };
        assert!(!message.contains("hunter"), "{message}");
        assert!(message.contains("8 characters typed, 6 held"), "{message}");
    }

    #[test]
    fn text_typed_at_the_focus_need_only_be_within_the_field() {
        assert_eq!(compare("world", "hello world", TEXT, true), Held::Same);
        assert_eq!(
            compare("world", "hello World!", TEXT, true),
            Held::Reformatted
        );
        assert_eq!(compare("world", "hello", TEXT, true), Held::Mismatch);
    }
}
