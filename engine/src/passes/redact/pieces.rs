//! One token read piece by piece between URL and key-value delimiters: a URL's userinfo password, values of secret keys, secret-shaped pieces.

use std::ops::Range;

use super::keys::secret_kind;
use super::vocabulary::{KeyWord, key_names_secret};
use super::{Kind, REDACTED};

/// Redacts a whitespace-delimited token of `text`: the whole token (less
/// surrounding punctuation) when it looks secret, else its secret-looking
/// pieces between URL and key-value delimiters (`/t?token=eyJ…&a=1`). Calls
/// `replace` with each range to redact; returns how many there were.
pub(super) fn redact_token(
    text: &str,
    token: Range<usize>,
    replace: &mut dyn FnMut(Range<usize>, Kind),
) -> usize {
    let start = token.start;
    let token = &text[token];
    // Quotes and punctuation around a secret, ASCII or not (`“sk-…”`, `«eyJ…»`).
    let around = |c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '+' | '/' | '='));
    let lead = token.len() - token.trim_start_matches(around).len();
    let trimmed = token[lead..].trim_end_matches(around);
    if let Some(kind) = secret_kind(trimmed) {
        replace(start + lead..start + lead + trimmed.len(), kind);
        return 1;
    }
    let mut found = 0;
    let mut piece_start = 0;
    // `https://user:password@host`: the password, whatever it looks like.
    if let Some(password) = url_password(token) {
        replace(
            start + password.start..start + password.end,
            Kind::UrlPassword,
        );
        found += 1;
        piece_start = password.end;
    }
    // The last piece was a secret key, perhaps with its closing quote.
    let mut key_before: Option<KeyWord> = None;
    // ... and then `=` or `:` (`?password=…`, `"token":"…"`): the next
    // piece is its value.
    let mut value_of_secret_key: Option<KeyWord> = None;
    // Every delimiter is ASCII: bytes are read, and a piece still starts and
    // ends on a character boundary.
    let bytes = token.as_bytes();
    let from = piece_start;
    for (i, b) in (from..token.len())
        .map(|i| (i, bytes[i]))
        .chain([(token.len(), b'/')])
    {
        if PIECE_DELIMITER[usize::from(b)] {
            let piece = &token[piece_start..i];
            let quote = matches!(b, b'"' | b'\'');
            let assigns = matches!(b, b'=' | b':');
            if !piece.is_empty() {
                // The whole token less its punctuation was tested above.
                let tested = piece_start == lead && i == lead + trimmed.len();
                let kind = if value_of_secret_key.is_some_and(|word| holds_secret(piece, word)) {
                    Some(Kind::KeyValue)
                } else if tested {
                    None
                } else {
                    // A piece of a URL or a key-value pair: random-looking
                    // ones are ids and data there (see `hides`), and are not
                    // even reported (a data URL has thousands).
                    secret_kind(piece).filter(|&kind| kind != Kind::Random)
                };
                if let Some(kind) = kind {
                    replace(start + piece_start..start + i, kind);
                    found += 1;
                }
                // A key is followed by `=` or `:`, or by its closing quote
                // and then one (`"token":`): a JSON value is not asked.
                // (A URL's scheme before `://` is not a key.)
                let closes_key = (assigns && bytes.get(i + 1) != Some(&b'/'))
                    || (quote && matches!(bytes.get(i + 1), Some(b':' | b'=')));
                key_before = if closes_key { secret_key(piece) } else { None };
                value_of_secret_key = key_before.filter(|_| assigns);
            } else if key_before.is_some() && assigns {
                value_of_secret_key = key_before;
            } else if !quote {
                key_before = None;
                value_of_secret_key = None;
            }
            piece_start = i + 1;
        }
    }
    found
}

/// Whether a key names a secret value (see [`key_names_secret`]); a key
/// longer than 40 bytes is a sentence, not a key.
pub(super) fn secret_key(key: &str) -> Option<KeyWord> {
    if key.len() > 40 {
        return None;
    }
    key_names_secret(key)
}

/// Whether `value`, given to a key that names a secret, is one: not a
/// placeholder (`null`, `true`, shorter than four characters), code
/// (`function`, `e.userData.idToken`) or an RSA public key; eight
/// characters at least unless the key names a short secret (a password, a
/// PIN); and for a key that names a secret only as a key (`key`, `sid`,
/// `session`), letters and digits (a timestamp or a word is not a
/// session id).
pub(super) fn holds_secret(value: &str, word: KeyWord) -> bool {
    const PLACEHOLDERS: &[&str] = &[
        "true",
        "false",
        "null",
        "undefined",
        "none",
        "nil",
        "function",
    ];
    if value.len() < 4
        || PLACEHOLDERS.iter().any(|p| p.eq_ignore_ascii_case(value))
        || is_member_path(value)
        || value.contains("||")
        || value.contains("&&")
    {
        return false;
    }
    // An RSA public key (SubjectPublicKeyInfo, base64: `MIIBIjANBgkqhkiG9w0BAQEFAAOC…`)
    // is public whatever the key calls it; a private one reads `…AASC…`.
    if value.starts_with("MII") && value.contains("BAQEFAAOC") {
        return false;
    }
    match word {
        KeyWord::Short => true,
        KeyWord::Secret => value.len() >= 8,
        KeyWord::KeyOnly => {
            value.len() >= 8
                && value.bytes().any(|b| b.is_ascii_digit())
                && value.bytes().any(|b| b.is_ascii_alphabetic())
        }
    }
}

/// The password of a URL's userinfo (`scheme://user:password@host`), as a
/// byte range of `token`.
pub(super) fn url_password(token: &str) -> Option<Range<usize>> {
    // `://`, found from its colons (a substring searcher costs more to set
    // up than a URL takes to read).
    let bytes = token.as_bytes();
    let authority_start =
        memchr::memchr_iter(b':', bytes).find(|&i| bytes.get(i + 1..i + 3) == Some(b"//"))? + 3;
    let authority_len = token[authority_start..]
        .find(['/', '?', '#'])
        .unwrap_or(token.len() - authority_start);
    let authority = &token[authority_start..authority_start + authority_len];
    let userinfo = &authority[..authority.rfind('@')?];
    // RFC 3986 userinfo after a scheme: what a URL can hold there, not
    // JSON that happens to hold `://` and an `@` (`"@type"`).
    let scheme = authority_start > 3 && bytes[authority_start - 4].is_ascii_alphanumeric();
    let userinfo_bytes = |b: u8| b.is_ascii_alphanumeric() || b"-._~%!$&'()*+,;=:".contains(&b);
    if !scheme || !userinfo.bytes().all(userinfo_bytes) {
        return None;
    }
    let colon = userinfo.find(':')?;
    let password = authority_start + colon + 1..authority_start + userinfo.len();
    // Already redacted: redacting again finds nothing new.
    (!password.is_empty() && &token[password.clone()] != REDACTED).then_some(password)
}

/// Where a token splits into pieces, each checked with [`secret_kind`]
/// (URL and key-value delimiters), by byte: it is read for every byte of
/// every token long enough to hide a secret.
pub(super) const PIECE_DELIMITER: [bool; 256] = {
    let mut delimiter = [false; 256];
    let all = b"/?&=#:;,'\"()<>[]{}";
    let mut k = 0;
    while k < all.len() {
        delimiter[all[k] as usize] = true;
        k += 1;
    }
    delimiter
};

/// Whether `value` is code naming where a secret is kept, not the secret
/// (`e.userData.idToken`, `t.raw`): identifiers joined by dots.
fn is_member_path(value: &str) -> bool {
    let identifier = |part: &str| {
        part.bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_' || b == b'$')
            && part
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
    };
    value.contains('.') && value.split('.').all(identifier)
}

/// Whether an attribute named for a secret (`data-api-key`, `nonce`,
/// `data-session-token`) holds one in `value` (see [`holds_secret`]).
pub fn attribute_holds_secret(name: &str, value: &str) -> bool {
    // Every attribute of every element is asked: HTML's own attributes,
    // which name no secret, are turned away by one match.
    !is_html_attribute(name) && secret_key(name).is_some_and(|word| holds_secret(value, word))
}

/// The most common attributes of HTML, none of which names a secret.
fn is_html_attribute(name: &str) -> bool {
    matches!(
        name,
        "class"
            | "id"
            | "href"
            | "src"
            | "style"
            | "type"
            | "name"
            | "title"
            | "alt"
            | "rel"
            | "width"
            | "height"
            | "content"
            | "lang"
            | "for"
            | "value"
            | "action"
            | "method"
            | "target"
            | "role"
            | "tabindex"
            | "srcset"
            | "sizes"
            | "loading"
            | "async"
            | "defer"
            | "charset"
            | "property"
            | "itemprop"
            | "placeholder"
            | "autocomplete"
            | "data-ref"
    )
}
