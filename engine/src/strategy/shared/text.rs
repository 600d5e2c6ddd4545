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
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    // Start of the run of kept characters not yet copied.
    let mut run: Option<usize> = None;
    let mut at = 0;
    while at < bytes.len() {
        let b = bytes[at];
        let (len, dropped, space) = if b.is_ascii() {
            // `js_space` on ASCII: tab, line feed, vertical tab, form feed, carriage return, space.
            (
                1,
                false,
                matches!(b, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' '),
            )
        } else {
            let c = text[at..]
                .chars()
                .next()
                .unwrap_or(char::REPLACEMENT_CHARACTER);
            let dropped = c == '\u{200b}' || c == '\u{ad}';
            (c.len_utf8(), dropped, !dropped && js_space(c))
        };
        if dropped || space {
            if let Some(start) = run.take() {
                out.push_str(&text[start..at]);
            }
            pending_space |= space;
        } else if run.is_none() {
            if pending_space && !out.is_empty() {
                out.push(' ');
            }
            pending_space = false;
            run = Some(at);
        }
        at += len;
    }
    if let Some(start) = run {
        out.push_str(&text[start..]);
    }
    out
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
