//! Code and metadata: quoted values assigned to secret keys in inline scripts, and `<meta>` elements whose content is a credential.

use std::borrow::Cow;

use super::REDACTED;
use super::pieces::holds_secret;
use super::vocabulary::{key_ends_secret, key_names_secret, may_end_secret};

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
pub fn redact_assignments_each<'t>(text: &'t str, replaced: &mut dyn FnMut(&str)) -> Cow<'t, str> {
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
        // A quoted value first (CSS's `color: red` and most code have none),
        // then a secret word ending the key (`dbPassword`, `stripe_secret`):
        // most keys are ruled out by their last byte.
        let mut j = op + 1;
        while j < bytes.len() && blank(bytes[j]) {
            j += 1;
        }
        let Some(&open) = bytes.get(j).filter(|&&b| quote(b)) else {
            continue;
        };
        let word = key
            .last()
            .filter(|&&b| may_end_secret(b))
            .and_then(|_| std::str::from_utf8(key).ok())
            .and_then(key_ends_secret);
        let Some(word) = word else {
            continue;
        };
        let value_start = j + 1;
        let Some(len) = text[value_start..].find(char::from(open)) else {
            continue;
        };
        let value_end = value_start + len;
        let value = &text[value_start..value_end];
        // A string literal on one line that holds a secret (see
        // `holds_secret`: not a config path like `"app.oauth.secret"`) and
        // is not a link (`forgotPassword: "https://…"`), markup, nor already
        // hidden; a quote matched across lines is string concatenation
        // (`"…" + apiKey + "…"`), not a value.
        let literal = holds_secret(value, word)
            && !value.contains(['\n', '<', '>'])
            && !value.contains(REDACTED)
            && !value.contains("://")
            && !value.starts_with('/');
        if literal && value_start >= copied {
            replaced(value);
            let out = out.get_or_insert_with(|| String::with_capacity(text.len()));
            out.push_str(&text[copied..value_start]);
            out.push_str(REDACTED);
            copied = value_end;
        }
        from = if literal { value_end + 1 } else { value_start };
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
/// nonces, API keys, secrets (see [`key_names_secret`]; `csrf-param` names
/// the parameter, not its value).
pub fn is_secret_meta_name(name: &str) -> bool {
    key_names_secret(name).is_some()
}
