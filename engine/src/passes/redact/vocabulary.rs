//! The one secret vocabulary: words that say a value is secret, read the same way from a field's name or label, a URL query key, a key in code and a `<meta>` name.
//!
//! Text is read as ASCII words: runs of letters and digits, split where a
//! lowercase letter or digit meets an uppercase one (`dbPassword` is `db
//! password`, `api_key`, `api-key` and `apiKey` are all `api key`), compared
//! without case. A phrase matches consecutive words.

/// Words and phrases that name a secret value wherever they appear: a
/// form field, a key, a meta name.
const SECRET: &[&str] = &[
    "password",
    "passwd",
    "pwd",
    "passphrase",
    "passcode",
    "pin",
    "secret",
    "token",
    "api key",
    "apikey",
    "access key",
    "private key",
    "card number",
    "cardnumber",
    "cc number",
    "ccnumber",
    "cc csc",
    "cvv",
    "cvc",
    "csc",
    "security code",
    "ssn",
    "social security",
    "one time code",
    "otp",
    "iban",
    "csrf",
    "xsrf",
];

/// Words that name a secret only as a key (`?key=…`, `sig=…`, `session=…`,
/// a meta name): as a field's label they mean other things (a boarding
/// pass, a forum signature, a session to book).
const KEY_ONLY: &[&str] = &[
    "key",
    "pass",
    "sig",
    "signature",
    "auth",
    "session",
    "sessionid",
    "sid",
    "session id",
    "nonce",
    "credential",
    "credentials",
];

/// Words that make a key name what is public by design
/// (`sentryPublicApiKey`, `publishableKey`).
const PUBLIC: &[&str] = &["public", "publishable"];

/// Words of [`SECRET`] whose values are short by nature (a PIN, a card's
/// security code, a one-time code, a password): any value they are given
/// is one, however short.
const SHORT: &[&str] = &[
    "password",
    "passwd",
    "pwd",
    "passphrase",
    "passcode",
    "pin",
    "cvv",
    "cvc",
    "csc",
    "security code",
    "one time code",
    "otp",
];

/// How surely a key names a secret.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum KeyWord {
    /// A word that names a short secret (`password`, `pin`): any value it
    /// is given is one.
    Short,
    /// A word that names a secret anywhere (`token`, `secret`): a value
    /// long enough to be a credential is one.
    Secret,
    /// A word that names a secret as a key only (`key`, `sid`, `session`):
    /// its value is one when it looks like a credential.
    KeyOnly,
}

/// Whether a field's name, id, autocomplete, label or placeholder (any of
/// them in `text`) names a secret.
pub(super) fn names_secret_field(text: &str) -> bool {
    let mut found = false;
    scan_words(text, &mut |window| {
        found |= matches_any(window, SECRET);
        found
    });
    found
}

/// Whether a key (a URL query key, a JSON key, an attribute or meta name)
/// names a secret value: its last words are a secret word (`access_token`,
/// `csrf-token`, `X-Api-Key`, `sessionid` yes; `csrf-param`, `token_type`,
/// `authName` no).
pub(super) fn key_names_secret(key: &str) -> Option<KeyWord> {
    let mut window = ["", "", ""];
    let mut public = false;
    scan_words(key, &mut |w| {
        window = w;
        public |= is_public(w[2]);
        false
    });
    if window[2].is_empty() || public {
        None
    } else if matches_any(window, SHORT) {
        Some(KeyWord::Short)
    } else if matches_any(window, SECRET) {
        Some(KeyWord::Secret)
    } else if matches_any(window, KEY_ONLY) {
        Some(KeyWord::KeyOnly)
    } else {
        None
    }
}

/// Whether a key in code ends with a secret word (`dbPassword`,
/// `stripe_secret`, `disqus_api_key`), as what it names: `passwordHint`
/// and `tokenizer` do not.
pub(super) fn key_ends_secret(key: &str) -> Option<KeyWord> {
    let mut window = ["", "", ""];
    let mut public = false;
    scan_words(key, &mut |w| {
        window = w;
        public |= is_public(w[2]);
        false
    });
    if window[2].is_empty() || public {
        None
    } else if matches_any(window, SHORT) {
        Some(KeyWord::Short)
    } else if matches_any(window, SECRET) {
        Some(KeyWord::Secret)
    } else {
        None
    }
}

/// Whether a word says what follows is public by design.
fn is_public(word: &str) -> bool {
    PUBLIC.iter().any(|p| p.eq_ignore_ascii_case(word))
}

/// Calls `visit` with each word of `text` and the two before it
/// (`["", "", first]` at the start) until it returns true.
fn scan_words<'t>(text: &'t str, visit: &mut dyn FnMut([&'t str; 3]) -> bool) {
    let bytes = text.as_bytes();
    let mut window = ["", "", ""];
    let mut at = 0;
    while at < bytes.len() {
        if !bytes[at].is_ascii_alphanumeric() {
            at += 1;
            continue;
        }
        let start = at;
        at += 1;
        while at < bytes.len()
            && bytes[at].is_ascii_alphanumeric()
            && !(bytes[at].is_ascii_uppercase()
                && (bytes[at - 1].is_ascii_lowercase() || bytes[at - 1].is_ascii_digit()))
        {
            at += 1;
        }
        window = [window[1], window[2], &text[start..at]];
        if visit(window) {
            return;
        }
    }
}

/// Whether a phrase of `list` ends at the last word of `window`.
fn matches_any(window: [&str; 3], list: &[&str]) -> bool {
    list.iter().any(|phrase| {
        let n = phrase.split(' ').count();
        n <= window.len()
            && phrase
                .split(' ')
                .zip(&window[window.len() - n..])
                .all(|(word, seen)| word.eq_ignore_ascii_case(seen))
    })
}

/// The last letters of the words of `lists`, as a byte table (both cases).
const fn last_letters(lists: &[&[&str]]) -> [bool; 256] {
    let mut ends = [false; 256];
    let mut l = 0;
    while l < lists.len() {
        let mut k = 0;
        while k < lists[l].len() {
            let word = lists[l][k].as_bytes();
            let b = word[word.len() - 1];
            ends[b as usize] = true;
            ends[b.to_ascii_uppercase() as usize] = true;
            k += 1;
        }
        l += 1;
    }
    ends
}

/// Whether a key in code whose last byte is `last` can end with a secret
/// word (a cheap test before the key is split into words).
pub(super) fn may_end_secret(last: u8) -> bool {
    const ENDS: [bool; 256] = last_letters(&[SECRET]);
    ENDS[usize::from(last)]
}

/// [`may_end_secret`] for keys that name a secret as keys do.
pub(super) fn may_end_secret_key(last: u8) -> bool {
    const ENDS: [bool; 256] = last_letters(&[SECRET, KEY_ONLY]);
    ENDS[usize::from(last)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_at_case_and_punctuation_and_match_whole() {
        for key in [
            "password",
            "user-password",
            "api_key",
            "apiKey",
            "APIKey",
            "cardNumber",
            "one-time-code",
            "csrf-token",
        ] {
            assert!(names_secret_field(key), "{key}");
        }
        for key in [
            "passwordless",
            "hotpink",
            "tokens",
            "tokenizer",
            "keyword",
            "boarding pass",
        ] {
            assert!(!names_secret_field(key), "{key}");
        }
    }

    #[test]
    fn keys_name_secrets_by_their_last_words() {
        for key in ["password", "user_pin", "cvv"] {
            assert_eq!(key_names_secret(key), Some(KeyWord::Short), "{key}");
        }
        for key in ["access_token", "csrf-token", "data-api-key", "X-Api-Key"] {
            assert_eq!(key_names_secret(key), Some(KeyWord::Secret), "{key}");
        }
        for key in ["key", "sig", "sessionid", "session_id", "auth", "nonce"] {
            assert_eq!(key_names_secret(key), Some(KeyWord::KeyOnly), "{key}");
        }
        for key in [
            "csrf-param",
            "token_type",
            "keyword",
            "utm_content",
            "kw",
            "authName",
        ] {
            assert_eq!(key_names_secret(key), None, "{key}");
        }
    }

    #[test]
    fn code_keys_end_with_the_secret_word() {
        for key in [
            "dbPassword",
            "stripe_secret",
            "disqus_api_key",
            "token",
            "apiKey",
        ] {
            assert!(key_ends_secret(key).is_some(), "{key}");
        }
        for key in [
            "passwordHint",
            "tokenizer",
            "key",
            "secretSauceRecipeUrl",
            "",
        ] {
            assert_eq!(key_ends_secret(key), None, "{key}");
        }
    }
}
