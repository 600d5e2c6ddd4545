//! Text as strategies print it: Playwright's whitespace normalisation, truncation, quoting.

/// JavaScript's `\s` (which, unlike Rust's `is_whitespace`, excludes U+0085
/// and includes U+FEFF).
pub(crate) fn js_space(c: char) -> bool {
    (c.is_whitespace() && c != '\u{85}') || c == '\u{feff}'
}

/// Playwright's `normalizeWhiteSpace` (`text.replace(/[\u200b\u00ad]/g, '')
/// .trim().replace(/\s+/g, ' ')`): zero-width spaces and soft hyphens
/// removed, runs of whitespace — non-breaking spaces included, as JavaScript's
/// `\s` matches them — become one space, ends trimmed.
pub(crate) fn normalize_whitespace(text: &str) -> String {
    crate::analyze::whitespace::collapse(text, js_space)
}

/// At most `max` characters, with `…` when cut.
pub(crate) fn truncate(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", text[..at].trim_end()),
        None => text.to_owned(),
    }
}

/// A double-quoted string with inner quotes and backslashes escaped.
pub(crate) fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' | '\r' | '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_normalisation_follows_playwright() {
        assert_eq!(normalize_whitespace("  a \n\t b  "), "a b");
        assert_eq!(normalize_whitespace("a\u{a0} b"), "a b");
        assert_eq!(
            normalize_whitespace("SMITH \u{a0}|\u{a0} Log"),
            "SMITH | Log"
        );
        assert_eq!(
            normalize_whitespace("soft\u{ad}hy\u{200b}phen"),
            "softhyphen"
        );
        assert_eq!(normalize_whitespace("\u{a0}x\u{a0}"), "x");
    }
}
