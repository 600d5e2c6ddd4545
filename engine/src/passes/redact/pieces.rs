//! One token read piece by piece between URL and key-value delimiters: a URL's userinfo password, values of secret keys, secret-shaped pieces.

use std::ops::Range;

use super::keys::secret_kind;
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
        replace(start + password.start..start + password.end, Kind::UrlPassword);
        found += 1;
        piece_start = password.end;
    }
    // The last piece was a secret key, perhaps with its closing quote.
    let mut key_before = false;
    // ... and then `=` or `:` (`?password=…`, `"token":"…"`): the next
    // piece is its value.
    let mut value_of_secret_key = false;
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
                let kind = if value_of_secret_key && piece.len() >= 4 {
                    Some(Kind::KeyValue)
                } else if tested {
                    None
                } else {
                    secret_kind(piece)
                };
                if let Some(kind) = kind {
                    replace(start + piece_start..start + i, kind);
                    found += 1;
                }
                key_before = (quote || assigns) && is_secret_key(piece);
                value_of_secret_key = key_before && assigns;
            } else if key_before && assigns {
                value_of_secret_key = true;
            } else if !quote {
                key_before = false;
                value_of_secret_key = false;
            }
            piece_start = i + 1;
        }
    }
    found
}

/// Keys whose value is a secret whatever it looks like.
pub(super) fn is_secret_key(key: &str) -> bool {
    const KEYS: &[&str] = &[
        "password",
        "passwd",
        "pwd",
        "pass",
        "passphrase",
        "secret",
        "client_secret",
        "token",
        "access_token",
        "refresh_token",
        "id_token",
        "auth_token",
        "api_key",
        "apikey",
        "api-key",
        "private_key",
        "session",
        "sessionid",
        "session_id",
    ];
    (3..=13).contains(&key.len()) && KEYS.iter().any(|k| k.eq_ignore_ascii_case(key))
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
