//! Escaping of page- and suite-derived strings for each report format: CSV cells, Markdown text, HTML text and attributes.

/// A CSV cell: formula prefixes (`= + - @`, tab, CR) neutralised with a
/// leading `'` (OWASP CSV injection), then RFC 4180 quoting.
pub fn cell(text: &str) -> String {
    let mut value = String::new();
    if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        value.push('\'');
    }
    value.push_str(text);
    if value.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", value.replace('"', "\"\""))
    } else {
        value
    }
}

/// Markdown-safe text: HTML metacharacters as entities (a page label like
/// `<img onerror=…>` must not render), Markdown punctuation backslash-escaped,
/// line breaks flattened.
pub fn md(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\n' | '\r' => out.push(' '),
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '#' | '!' | '(' | ')' | '{' | '}' | '~' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// HTML-escapes text for element content and double- or single-quoted attribute values.
pub fn html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_cells_neutralise_formulas_and_quote() {
        assert_eq!(cell("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        assert_eq!(cell("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(cell("-1"), "'-1");
        assert_eq!(cell("+cmd"), "'+cmd");
        assert_eq!(cell("a,b"), "\"a,b\"");
        assert_eq!(cell("plain"), "plain");
    }

    #[test]
    fn markdown_escapes_html_and_table_syntax() {
        let escaped = md("<img src=x onerror=alert(1)> | *x*");
        assert!(!escaped.contains('<'));
        assert_eq!(
            escaped,
            "&lt;img src=x onerror=alert\\(1\\)&gt; \\| \\*x\\*"
        );
    }

    #[test]
    fn escape_turns_markup_into_text() {
        assert_eq!(
            html("<img src=x onerror=alert(1)>"),
            "&lt;img src=x onerror=alert(1)&gt;"
        );
        assert_eq!(
            html(r#"a & "b" 'c' </script>"#),
            "a &amp; &quot;b&quot; &#39;c&#39; &lt;/script&gt;"
        );
        assert_eq!(html("plain µs ★"), "plain µs ★");
        let attack = "\" onmouseover=\"alert(1)";
        assert!(!html(attack).contains('"'));
    }
}
