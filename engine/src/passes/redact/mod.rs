//! Redaction: secret fields (passwords, card numbers, tokens, SSNs) and secret-looking values never reach the model.

use std::borrow::Cow;
use std::ops::Range;

mod audit;
mod code;
mod digits;
mod fields;
mod iban;
mod joined;
mod keys;
mod pem;
mod pieces;
mod scan;
mod vocabulary;

pub(crate) use audit::note;
pub use audit::{Hidden, Place, audit};
pub use code::{
    RAW_TEXT, is_secret_meta, is_secret_meta_name, redact_assignments, redact_assignments_each,
};
pub use fields::secret_fields;
pub use joined::joined_secrets;
pub use keys::secret_kind;
pub use pieces::attribute_holds_secret;
pub use scan::keeps_more_than;
use scan::scan_with;

pub use crate::observation::Redacted;
pub use crate::observation::redacted::Kind;

/// What replaces a secret.
pub const REDACTED: &str = "[redacted]";

/// Replaces secret-looking tokens (JWTs, API keys, long high-entropy
/// strings, Luhn-valid card numbers, US SSNs) in free text. Returns the text
/// and the number of replacements.
pub fn redact_text(text: &str) -> (String, usize) {
    let (out, count) = redact(text);
    (out.into_owned(), count)
}

/// [`redact_text`] without a copy when nothing is secret, which is nearly
/// always: one pass over the text, allocating only when it replaces. Words
/// shorter than the shortest secret are stepped over byte by byte.
pub fn redact(text: &str) -> (Cow<'_, str>, usize) {
    let mut count = 0;
    let out = redact_each(text, Place::Text, &mut |_, _, _| count += 1);
    (out, count)
}

/// [`redact`] of a text that is `plain` (text, a name, an attribute's
/// value), calling `found` with each secret's original text, its kind and
/// where it sat, in order.
///
/// Where a value sits decides what hides it: a random-looking token
/// without a credential's shape ([`Kind::Random`]) is hidden only as a
/// whole word of text or of a name, never inside a URL, as a key's value
/// (the key decides), in code or as an attribute's value (ids, hashes,
/// data); see [`hides`].
pub fn redact_each<'t>(
    text: &'t str,
    plain: Place,
    found: &mut dyn FnMut(&str, Kind, Place),
) -> Cow<'t, str> {
    let mut out: Option<String> = None;
    // `text[copied..]` is still to be copied into `out` once it exists.
    let mut copied = 0;
    scan(text, &mut |range, kind| {
        let place = match Place::of(text, range.clone()) {
            Place::Text => plain,
            place => place,
        };
        if !hides(kind, place, &text[range.clone()]) {
            return;
        }
        found(&text[range.clone()], kind, place);
        let out = out.get_or_insert_with(|| String::with_capacity(text.len()));
        out.push_str(&text[copied..range.start]);
        out.push_str(REDACTED);
        copied = range.end;
    });
    match out {
        Some(mut out) => {
            out.push_str(&text[copied..]);
            Cow::Owned(out)
        }
        None => Cow::Borrowed(text),
    }
}

/// Whether a secret of `kind` found at `place` as `original` is hidden: a
/// random-looking token only as a whole word of text or of a name; an
/// unbroken card-like number not in an attribute, code or a key's value,
/// where such numbers are ids (see [`redact_each`]).
fn hides(kind: Kind, place: Place, original: &str) -> bool {
    match kind {
        Kind::Random => matches!(place, Place::Text | Place::Name),
        Kind::Card => {
            !matches!(place, Place::Attribute | Place::Code | Place::Value)
                || !original.bytes().all(|b| b.is_ascii_digit())
        }
        _ => true,
    }
}

/// The byte ranges of `text` that [`redact`] replaces, in order.
pub fn secret_ranges(text: &str) -> Vec<Range<usize>> {
    let mut ranges = Vec::new();
    scan(text, &mut |range, kind| {
        if hides(kind, Place::of(text, range.clone()), &text[range.clone()]) {
            ranges.push(range);
        }
    });
    ranges
}

/// The one pass behind [`redact`]: calls `found` with each secret's range,
/// in order and disjoint; returns how many there were.
pub(super) fn scan(text: &str, report: &mut dyn FnMut(Range<usize>, Kind)) -> usize {
    scan_with(text, report, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_each_kind_of_secret() {
        let cases = [
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c",
            "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
            "4242 4242 4242 4242",
            "4242-4242-4242-4242",
            "078-05-1120",
        ];
        for secret in cases {
            let (out, n) = redact_text(&format!("token: {secret}."));
            assert_eq!(n, 1, "{secret}");
            assert!(!out.contains(secret) && out.contains(REDACTED), "{out}");
        }
    }

    #[test]
    fn redacts_secrets_inside_urls() {
        let (out, n) = redact_text(
            "/callback?token=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcDEF123_-x&next=/home",
        );
        assert_eq!(n, 1);
        assert_eq!(out, "/callback?token=[redacted]&next=/home");
    }

    #[test]
    fn redacts_ibans_url_passwords_secret_values_and_dotted_cards() {
        let cases = [
            (
                "IBAN DE89 3704 0044 0532 0130 00 is mine",
                "DE89 3704 0044 0532 0130 00",
            ),
            ("iban: GB82WEST12345698765432.", "GB82WEST12345698765432"),
            (
                "see https://admin:hunter2pass@db.example.com/x",
                "hunter2pass",
            ),
            (
                "/login?user=bob&password=a1b2c3d4e5f6a7b8c9d0&next=/",
                "a1b2c3d4e5f6a7b8c9d0",
            ),
            (
                "const config = {\"pwd\":\"correct-horse\"};",
                "correct-horse",
            ),
            ("card 4111.1111.1111.1111 expires", "4111.1111.1111.1111"),
        ];
        for (text, secret) in cases {
            let (out, n) = redact_text(text);
            assert!(n >= 1 && !out.contains(secret), "{text:?} -> {out:?}");
            assert!(out.contains(REDACTED), "{out}");
        }
        // Lookalikes stay: a wrong IBAN check, decimals, a URL without a
        // password, a harmless key.
        for text in [
            "DE89 3704 0044 0532 0130 02",
            "pi is 3.14159265358979",
            "https://user@example.com/path",
            "/search?q=password&page=2",
            "AB12 is a plain code",
        ] {
            assert_eq!(redact_text(text), (text.to_owned(), 0), "{text:?}");
        }
    }

    #[test]
    fn finds_secrets_at_every_kind_of_boundary() {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcDEF123_-x";
        let key = "sk-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c";
        let cases = [
            ("x/4242-4242-4242-4242 y".to_owned(), "x/[redacted] y", 1),
            ("é078-05-1120".to_owned(), "é[redacted]", 1),
            ("1 078-05-1120".to_owned(), "1 [redacted]", 1),
            (format!("«{jwt}»"), "«[redacted]»", 1),
            (format!("key “{key}”."), "key “[redacted]”.", 1),
            (format!("({key})."), "([redacted]).", 1),
            (
                format!("x\u{3000}{key}\u{3000}y"),
                "x\u{3000}[redacted]\u{3000}y",
                1,
            ),
            (
                format!("/cb?token={jwt}&next=/home?k={key}#x"),
                "/cb?token=[redacted]&next=/home?k=[redacted]#x",
                2,
            ),
        ];
        for (text, want, n) in cases {
            assert_eq!(redact_text(&text), (want.to_owned(), n), "{text}");
        }
    }

    #[test]
    fn leaves_ordinary_text_alone() {
        for text in [
            "Call 555-1234 or 2024-11-22",
            "Order #123456 total 42.50",
            "https://example.com/a/very/long/path/that-is-not-a-secret",
            "internationalization",
            "4242 4242 4242 4241",
            "a 4242 4242 4242 4242x",
            "078-05-1120-1",
            "«internationalization» — “Straßenbahnhaltestelle”",
        ] {
            assert_eq!(redact_text(text), (text.to_owned(), 0), "{text}");
        }
    }
}
