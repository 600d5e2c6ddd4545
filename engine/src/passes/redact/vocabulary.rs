//! The one secret vocabulary: words that say a value is secret, read the same way from a field's name or label, a URL query key, a key in code and a `<meta>` name.
//!
//! Text is read as ASCII words: runs of letters and digits, split where a
//! lowercase letter or digit meets an uppercase one (`dbPassword` is `db
//! password`, `api_key`, `api-key` and `apiKey` are all `api key`), compared
//! without case. A phrase matches consecutive words.

/// Words and phrases that name a secret value wherever they appear: a
/// form field, a key, a meta name. The first [`SHORT`] name secrets short
/// by nature (a password, a PIN, a card's security code, a one-time code):
/// any value they are given is one, however short.
const SECRET: &[&[&str]] = &[
    &["password"],
    &["passwd"],
    &["pwd"],
    &["passphrase"],
    &["passcode"],
    &["pin"],
    &["cvv"],
    &["cvc"],
    &["csc"],
    &["security", "code"],
    &["one", "time", "code"],
    &["otp"],
    &["secret"],
    &["token"],
    &["api", "key"],
    &["apikey"],
    &["access", "key"],
    &["private", "key"],
    &["card", "number"],
    &["cardnumber"],
    &["cc", "number"],
    &["ccnumber"],
    &["cc", "csc"],
    &["ssn"],
    &["social", "security"],
    &["iban"],
    &["csrf"],
    &["xsrf"],
];

/// How many of [`SECRET`]'s phrases, from the first, name short secrets.
const SHORT: usize = 12;

/// Words that name a secret only as a key (`?key=…`, `sig=…`, `session=…`,
/// a meta name): as a field's label they mean other things (a boarding
/// pass, a forum signature, a session to book).
const KEY_ONLY: &[&[&str]] = &[
    &["key"],
    &["pass"],
    &["sig"],
    &["signature"],
    &["auth"],
    &["session"],
    &["sessionid"],
    &["sid"],
    &["session", "id"],
    &["nonce"],
    &["credential"],
    &["credentials"],
];

/// Words that make a key name what is public by design
/// (`sentryPublicApiKey`, `publishableKey`).
const PUBLIC: &[&[&str]] = &[&["public"], &["publishable"]];

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

/// Per lowercase first and last letter of a last word of any phrase, the
/// lengths it comes in (bit `n` for `n` bytes): a word that is none is
/// turned away by one load. `[0]` for phrases of one word, `[1]` for the
/// last words of longer ones (`id` in `session id`), which need a word
/// before them.
const ENDS: [[u32; 26 * 26]; 2] = {
    let lists: [&[&[&str]]; 3] = [SECRET, KEY_ONLY, PUBLIC];
    let mut ends = [[0u32; 26 * 26]; 2];
    let mut l = 0;
    while l < lists.len() {
        let mut k = 0;
        while k < lists[l].len() {
            let phrase = lists[l][k];
            // Every word of the lists is ASCII lowercase letters, shorter
            // than 32.
            let last = phrase[phrase.len() - 1].as_bytes();
            let index = (last[0] - b'a') as usize * 26 + (last[last.len() - 1] - b'a') as usize;
            let longer = (phrase.len() > 1) as usize;
            ends[longer][index] |= 1 << last.len();
            k += 1;
        }
        l += 1;
    }
    ends
};

/// One more than the bytes of the longest last word of a phrase
/// (`credentials`, `publishable`).
const LONGEST: usize = 12;

/// Whether a field's name, id, autocomplete, label or placeholder (any of
/// them in `text`) names a secret.
pub(super) fn names_secret_field(text: &str) -> bool {
    let mut found = false;
    scan_words(text, &mut |window| {
        found |= may_end_phrase(window) && matches_any(window, SECRET);
        found
    });
    found
}

/// Whether a key (a URL query key, a JSON key, an attribute or meta name)
/// names a secret value: its last words are a secret word (`access_token`,
/// `csrf-token`, `X-Api-Key`, `sessionid` yes; `csrf-param`, `token_type`,
/// `authName` no), and no word says it is public.
pub(super) fn key_names_secret(key: &str) -> Option<KeyWord> {
    // Most keys are turned away by their last word alone (its letters and
    // length, and whether anything comes before it), before the words
    // before it are read.
    let bytes = key.as_bytes();
    // Every phrase ends in a letter, and its last word is shorter than
    // [`LONGEST`]: a key ending otherwise is read no further.
    let mut start = bytes.len();
    while start > 0
        && bytes.len() - start < LONGEST
        && bytes[start - 1].is_ascii_alphabetic()
        && !(start < bytes.len() && word_starts(bytes, start))
    {
        start -= 1;
    }
    let last = &key[start..];
    if last.is_empty()
        || last.len() >= LONGEST
        || !may_end_phrase([&key[..start], &key[..start], last])
    {
        return None;
    }
    let window = last_words(key);
    let word = if matches_any(window, &SECRET[..SHORT]) {
        KeyWord::Short
    } else if matches_any(window, SECRET) {
        KeyWord::Secret
    } else if matches_any(window, KEY_ONLY) {
        KeyWord::KeyOnly
    } else {
        return None;
    };
    (!says_public(key)).then_some(word)
}

/// Whether a key in code ends with a secret word (`dbPassword`,
/// `stripe_secret`, `disqus_api_key`), as what it names: `passwordHint`
/// and `tokenizer` do not.
pub(super) fn key_ends_secret(key: &str) -> Option<KeyWord> {
    match key_names_secret(key)? {
        KeyWord::KeyOnly => None,
        word => Some(word),
    }
}

/// Whether a word of `key` says it is public by design.
fn says_public(key: &str) -> bool {
    let mut found = false;
    scan_words(key, &mut |window| {
        found |= may_end_phrase(window) && matches_any(window, PUBLIC);
        found
    });
    found
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
        while at < bytes.len() && bytes[at].is_ascii_alphanumeric() && !word_starts(bytes, at) {
            at += 1;
        }
        window = [window[1], window[2], &text[start..at]];
        if visit(window) {
            return;
        }
    }
}

/// The last three words of `text` (`""` for those it lacks), as
/// [`scan_words`] reads them, read from the end: a key is asked about its
/// last words only.
fn last_words(text: &str) -> [&str; 3] {
    let bytes = text.as_bytes();
    let mut out = ["", "", ""];
    let mut end = bytes.len();
    for slot in (0..out.len()).rev() {
        let (word_end, start) = last_word(bytes, end);
        if word_end == start {
            break;
        }
        // Both ends are next to ASCII letters or digits: character boundaries.
        out[slot] = &text[start..word_end];
        end = start;
    }
    out
}

/// The last word of `bytes[..end]`, as its end and start (equal when there
/// is none; then both are 0).
fn last_word(bytes: &[u8], mut end: usize) -> (usize, usize) {
    while end > 0 && !bytes[end - 1].is_ascii_alphanumeric() {
        end -= 1;
    }
    if end == 0 {
        return (0, 0);
    }
    let mut start = end - 1;
    while start > 0 && bytes[start - 1].is_ascii_alphanumeric() && !word_starts(bytes, start) {
        start -= 1;
    }
    (end, start)
}

/// Whether a new word starts at `at` inside a run of letters and digits:
/// an uppercase letter after a lowercase one or a digit (`dbPassword`).
fn word_starts(bytes: &[u8], at: usize) -> bool {
    bytes[at].is_ascii_uppercase()
        && (bytes[at - 1].is_ascii_lowercase() || bytes[at - 1].is_ascii_digit())
}

/// Whether the last word of `window` can end a phrase of any list, by its
/// first and last letters and its length (and, for the last word of a
/// longer phrase, a word before it).
fn may_end_phrase(window: [&str; 3]) -> bool {
    let bytes = window[2].as_bytes();
    let (Some(first), Some(last)) = (bytes.first(), bytes.last()) else {
        return false;
    };
    let (first, last) = (first.to_ascii_lowercase(), last.to_ascii_lowercase());
    if !(first.is_ascii_lowercase() && last.is_ascii_lowercase() && bytes.len() < 32) {
        return false;
    }
    let index = usize::from(first - b'a') * 26 + usize::from(last - b'a');
    let bit = 1 << bytes.len();
    ENDS[0][index] & bit != 0 || (!window[1].is_empty() && ENDS[1][index] & bit != 0)
}

/// Whether a phrase of `list` ends at the last word of `window` (callers
/// ask [`may_end_phrase`] first; lengths are compared before letters).
fn matches_any(window: [&str; 3], list: &[&[&str]]) -> bool {
    let last = window[2];
    list.iter().any(|phrase| {
        let n = phrase.len();
        phrase[n - 1].len() == last.len()
            && n <= window.len()
            && phrase
                .iter()
                .zip(&window[window.len() - n..])
                .all(|(word, seen)| word.eq_ignore_ascii_case(seen))
    })
}

/// Whether a key in code whose last byte is `last` can end with a secret
/// word of [`SECRET`] (a cheap test before the key is split into words).
pub(super) fn may_end_secret(last: u8) -> bool {
    const ENDS: [bool; 256] = {
        let mut ends = [false; 256];
        let mut k = 0;
        while k < SECRET.len() {
            let phrase = SECRET[k];
            let word = phrase[phrase.len() - 1].as_bytes();
            let b = word[word.len() - 1];
            ends[b as usize] = true;
            ends[b.to_ascii_uppercase() as usize] = true;
            k += 1;
        }
        ends
    };
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
    fn the_short_secrets_open_the_list() {
        // `otp` is the last short one, `secret` the first that is not.
        assert_eq!(
            (SECRET[SHORT - 1], SECRET[SHORT]),
            (&["otp"][..], &["secret"][..])
        );
        assert_eq!(key_names_secret("user_otp"), Some(KeyWord::Short));
        assert_eq!(key_names_secret("user_secret"), Some(KeyWord::Secret));
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
