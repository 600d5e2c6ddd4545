//! Code and metadata: quoted values assigned to secret keys in inline scripts, and `<meta>` elements whose content is a credential.

use std::borrow::Cow;

use super::REDACTED;

/// Quoted values assigned to secret keys in code (`password = "…"`,
/// `"apiKey": '…'`, `token:\`…\``): what an inline `<script>` holds. The
/// key is a whole word (any case, `_`/`-` kept), then optional closing
/// quote, `=` or `:`, and a quoted value, which is replaced. Returns the
/// text and how many values were.
pub fn redact_assignments(text: &str) -> (Cow<'_, str>, usize) {
    let mut count = 0;
    let out = redact_assignments_each(text, &mut |_| count += 1);
    (out, count)
}

/// [`redact_assignments`], calling `replaced` with each value replaced.
pub fn redact_assignments_each<'t>(
    text: &'t str,
    replaced: &mut dyn FnMut(&str),
) -> Cow<'t, str> {
    let bytes = text.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
    let quote = |b: u8| matches!(b, b'"' | b'\'' | b'`');
    let blank = |b: u8| b == b' ' || b == b'\t';
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut from = 0;
    // From each `=` or `:`, back to the key and on to the quoted value.
    while let Some(found) = bytes[from..].iter().position(|&b| b == b'=' || b == b':') {
        let op = from + found;
        from = op + 1;
        let mut k = op;
        while k > 0 && blank(bytes[k - 1]) {
            k -= 1;
        }
        if k > 0 && quote(bytes[k - 1]) {
            k -= 1;
        }
        let key_end = k;
        while k > 0 && word(bytes[k - 1]) {
            k -= 1;
        }
        let key = &bytes[k..key_end];
        // Secret words end the key (`dbPassword`, `stripe_secret`); they end
        // in d, t, y or n, which rules out most keys at once.
        let last = key.last().map(u8::to_ascii_lowercase);
        let secret = matches!(last, Some(b'd' | b't' | b'y' | b'n'))
            && [
                "password", "passwd", "pwd", "secret", "apikey", "api_key", "api-key", "token",
            ]
            .iter()
            .any(|w| {
                key.len() >= w.len()
                    && key[key.len() - w.len()..].eq_ignore_ascii_case(w.as_bytes())
            });
        if !secret {
            continue;
        }
        let mut j = op + 1;
        while j < bytes.len() && blank(bytes[j]) {
            j += 1;
        }
        let Some(&open) = bytes.get(j).filter(|&&b| quote(b)) else {
            continue;
        };
        let value_start = j + 1;
        let Some(len) = text[value_start..].find(char::from(open)) else {
            continue;
        };
        let value_end = value_start + len;
        if len > 0 && value_start >= copied {
            replaced(&text[value_start..value_end]);
            let out = out.get_or_insert_with(|| String::with_capacity(text.len()));
            out.push_str(&text[copied..value_start]);
            out.push_str(REDACTED);
            copied = value_end;
        }
        from = value_end + 1;
    }
    match out {
        Some(mut out) => {
            out.push_str(&text[copied..]);
            Cow::Owned(out)
        }
        None => Cow::Borrowed(text),
    }
}

/// Elements whose text children are raw text, serialized without escaping
/// (HTML §13.3, serializing fragments): code, where secrets are assigned
/// (`password = "…"`, see [`redact_assignments`]).
pub const RAW_TEXT: &[&str] = &[
    "script",
    "style",
    "xmp",
    "noembed",
    "noframes",
    "plaintext",
    "noscript",
];

/// Attributes that name what a `<meta>` element's `content` is.
pub(super) const META_NAMES: &[&str] = &["name", "property", "http-equiv", "itemprop"];

/// Whether a `<meta>` element with these attributes holds a credential in
/// its `content` (its name, property, … says so, see [`is_secret_meta_name`]).
pub fn is_secret_meta<'a>(mut attr: impl FnMut(&str) -> Option<&'a str>) -> bool {
    META_NAMES
        .iter()
        .filter_map(|key| attr(key))
        .any(is_secret_meta_name)
}

/// A `<meta>` name whose content is a credential: CSRF/XSRF tokens,
/// nonces, API keys, secrets.
pub fn is_secret_meta_name(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    [
        "csrf", "xsrf", "token", "nonce", "secret", "api-key", "api_key", "apikey",
    ]
    .iter()
    .any(|word| name.contains(word))
}
