//! YAML as Playwright's `yaml.ts` writes it: when keys and values need quotes, and how they are escaped.

use std::borrow::Cow;

use crate::analyze::whitespace;
use crate::bytes;
use crate::chunk::{self, Chunk};
use crate::class::YAML_STOP;
use crate::strategy::shared::text::js_space;

/// `JSON.stringify` of a string.
pub(super) fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    // Runs of bytes that need no escape are copied whole: only `"`, `\\`
    // and ASCII controls do.
    let mut copied = 0;
    for (at, b) in text.bytes().enumerate() {
        let escape = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            0x08 => "\\b",
            0x0c => "\\f",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0..0x20 => "",
            _ => continue,
        };
        out.push_str(&text[copied..at]);
        copied = at + 1;
        if escape.is_empty() {
            out.push_str(&format!("\\u{b:04x}"));
        } else {
            out.push_str(escape);
        }
    }
    out.push_str(&text[copied..]);
    out.push('"');
    out
}

/// Playwright's `yamlEscapeKeyIfNeeded`: single quotes, `'` doubled.
pub(super) fn yaml_escape_key(text: &str) -> Cow<'_, str> {
    if !yaml_needs_quotes(text) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(format!("'{}'", text.replace('\'', "''")))
}

/// Playwright's `yamlEscapeValueIfNeeded`: double quotes with C-style escapes.
pub(super) fn yaml_escape_value(text: &str) -> Cow<'_, str> {
    if !yaml_needs_quotes(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    // Runs of bytes that need no escape are copied whole: only `\\`, `"`
    // and controls do (those past ASCII, U+0080–U+009F, start with `C2`).
    let bytes = text.as_bytes();
    let mut copied = 0;
    let mut at = 0;
    while at < bytes.len() {
        if !ESCAPE_START[usize::from(bytes[at])] {
            at += 1;
            continue;
        }
        out.push_str(&text[copied..at]);
        let c = text[at..]
            .chars()
            .next()
            .unwrap_or(char::REPLACEMENT_CHARACTER);
        at += c.len_utf8();
        copied = at;
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if is_control(c) => out.push_str(&format!("\\x{:02x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push_str(&text[copied..]);
    out.push('"');
    Cow::Owned(out)
}

/// The bytes that may start a character [`yaml_escape_value`] escapes.
const ESCAPE_START: [bool; 256] = {
    let mut starts = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        starts[b] = true;
        b += 1;
    }
    starts[b'\\' as usize] = true;
    starts[b'"' as usize] = true;
    starts[0x7f] = true;
    starts[0xc2] = true;
    starts
};

/// `[\x00-\x1f\x7f-\x9f]`.
fn is_control(c: char) -> bool {
    let c = u32::from(c);
    c <= 0x1f || (0x7f..=0x9f).contains(&c)
}

/// Playwright's `yamlStringNeedsQuotes`, in one pass without copies.
fn yaml_needs_quotes(text: &str) -> bool {
    let Some(first) = text.chars().next() else {
        return true;
    };
    let last = text.chars().next_back().unwrap_or(first);
    if js_space(first) || js_space(last) {
        return true;
    }
    if matches!(
        first,
        '-' | '[' | '&' | '*' | ']' | ',' | '?' | '!' | '>' | '|' | '@' | '"' | '\'' | '#' | '%'
    ) {
        return true;
    }
    let bytes = text.as_bytes();
    let char_at = |at: usize| match bytes.get(at) {
        Some(&b) if b.is_ascii() => Some(char::from(b)),
        _ => text.get(at..).and_then(|rest| rest.chars().next()),
    };
    let mut at = 0;
    while at < bytes.len() {
        // Sixteen bytes at once (eight near the end) while none is a
        // control, `#`, `:`, `` ` ``, `{`–DEL or outside ASCII: no rule
        // below looks at the others but a space before `#`, which is caught
        // at the `#`.
        if let Some(chunk) = Chunk::load(bytes, at) {
            let stop = YAML_STOP.chunk(chunk);
            if stop == 0 {
                at += chunk::LEN;
                continue;
            }
            at += stop.trailing_zeros() as usize;
            if at > 0 && bytes[at] == b'#' && bytes[at - 1] == b' ' {
                return true;
            }
        } else if let Some(word) = bytes::word(bytes, at) {
            let stop = YAML_STOP.word(word);
            if stop == 0 {
                at += 8;
                continue;
            }
            at += bytes::first(stop);
            if at > 0 && bytes[at] == b'#' && bytes[at - 1] == b' ' {
                return true;
            }
        }
        // Most bytes are plain ASCII that no rule below looks at.
        if matches!(bytes[at], b'#'..=b'9' | b';'..=b'_' | b'a'..=b'z' | b'!' | b'"' | b'|' | b'~')
        {
            at += 1;
            continue;
        }
        // Outside ASCII only spaces and controls matter, and few bytes may
        // start one: the others are stepped one by one, to the next ASCII.
        // (The C1 controls, U+0080–U+009F, start with `C2` as some spaces do.)
        let plain = |at: usize| {
            !bytes[at].is_ascii() && bytes[at] != 0xc2 && !whitespace::may_be_space(bytes, at)
        };
        if plain(at) {
            at += 1;
            while at < bytes.len() && plain(at) {
                at += 1;
            }
            continue;
        }
        // A space matters only before `#`.
        if bytes[at] == b' ' {
            if bytes.get(at + 1) == Some(&b'#') {
                return true;
            }
            at += 1;
            continue;
        }
        let Some(c) = char_at(at) else {
            break;
        };
        at += c.len_utf8();
        if matches!(c, '\n' | '\r' | '{' | '}' | '`') {
            return true;
        }
        if is_control(c) && c != '\t' {
            return true;
        }
        if c == ':' && char_at(at).is_none_or(js_space) {
            return true;
        }
        if js_space(c) && char_at(at) == Some('#') {
            return true;
        }
    }
    // The YAML 1.1 words; no non-ASCII character lowercases into them.
    const WORDS: [&str; 9] = ["y", "n", "yes", "no", "true", "false", "on", "off", "null"];
    js_number_like(text) || WORDS.iter().any(|w| text.eq_ignore_ascii_case(w))
}

/// `!isNaN(Number(text))` for a non-empty string.
fn js_number_like(text: &str) -> bool {
    let s = text.trim_matches(js_space);
    if s.is_empty() {
        return true;
    }
    // Every number starts with a digit, a sign, a point or `Infinity`.
    if !matches!(s.as_bytes()[0], b'0'..=b'9' | b'+' | b'-' | b'.' | b'I') {
        return false;
    }
    let radix = |prefix: [&str; 2], radix: u32| {
        prefix
            .iter()
            .find_map(|p| s.strip_prefix(p))
            .is_some_and(|rest| !rest.is_empty() && rest.chars().all(|c| c.is_digit(radix)))
    };
    if radix(["0x", "0X"], 16) || radix(["0o", "0O"], 8) || radix(["0b", "0B"], 2) {
        return true;
    }
    let unsigned = s.strip_prefix(['+', '-']).unwrap_or(s);
    if unsigned == "Infinity" {
        return true;
    }
    // StrUnsignedDecimalLiteral: digits [. digits] [e[+-]digits] | . digits [exponent].
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], Some(&unsigned[at + 1..])),
        None => (unsigned, None),
    };
    let (int, frac) = match mantissa.split_once('.') {
        Some((int, frac)) => (int, frac),
        None => (mantissa, ""),
    };
    let digits = |d: &str| d.chars().all(|c| c.is_ascii_digit());
    let mantissa_ok = digits(int) && digits(frac) && !(int.is_empty() && frac.is_empty());
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    mantissa_ok && exponent_ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Playwright's `yamlStringNeedsQuotes`, regex by regex, character by
    /// character.
    fn reference(text: &str) -> bool {
        let chars: Vec<char> = text.chars().collect();
        let (Some(&first), Some(&last)) = (chars.first(), chars.last()) else {
            return true;
        };
        let control =
            |c: char| matches!(u32::from(c), 0..=8 | 0x0b | 0x0c | 0x0e..=0x1f | 0x7f..=0x9f);
        let after = |i: usize| chars.get(i + 1).copied();
        js_space(first)
            || js_space(last)
            || chars.iter().any(|&c| control(c))
            || first == '-'
            || (0..chars.len())
                .any(|i| matches!(chars[i], '\n' | ':') && after(i).is_none_or(js_space))
            || (0..chars.len()).any(|i| js_space(chars[i]) && after(i) == Some('#'))
            || chars
                .iter()
                .any(|&c| matches!(c, '\n' | '\r' | '{' | '}' | '`'))
            || matches!(
                first,
                '&' | '*' | ']' | ',' | '?' | '!' | '>' | '|' | '@' | '"' | '\'' | '#' | '%' | '['
            )
            || js_number_like(text)
            || ["y", "n", "yes", "no", "true", "false", "on", "off", "null"]
                .contains(&text.to_lowercase().as_str())
    }

    proptest! {
        #[test]
        fn json_strings_are_json(text in "[a-z \\\\\"\u{8}\u{c}\n\r\t\x01\u{1f}\u{7f}\u{85}éあ]{0,30}") {
            let want = serde_json::to_string(&text).unwrap_or_default();
            prop_assert_eq!(json_string(&text), want);
        }
    }

    /// Playwright's escape, character by character.
    fn reference_escape(text: &str) -> String {
        let mut out = String::from('"');
        for c in text.chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '"' => out.push_str("\\\""),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                c if is_control(c) => out.push_str(&format!("\\x{:02x}", u32::from(c))),
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }

    proptest! {
        #[test]
        fn escapes_as_playwright_does(
            text in "[a-z \\\\\"\u{8}\u{c}\n\r\t\x01\u{7f}\u{85}\u{9f}\u{a0}éあ:-]{0,30}"
        ) {
            let escaped = yaml_escape_value(&text);
            if yaml_needs_quotes(&text) {
                prop_assert_eq!(escaped.as_ref(), reference_escape(&text));
            } else {
                prop_assert_eq!(escaped.as_ref(), text.as_str());
            }
        }

        #[test]
        fn needs_quotes_as_playwright_decides(
            text in "[a-z #:{}`\t\n\r\x0b\u{7f}\u{80}\u{85}\u{9f}\u{a0}¢\u{2028}\u{2060}—\u{3000}、\u{feff}\u{fefe}éあ|~1.-]{0,40}"
        ) {
            prop_assert_eq!(yaml_needs_quotes(&text), reference(&text), "{:?}", text);
        }
    }

    #[test]
    fn yaml_quoting_follows_playwright() {
        assert_eq!(yaml_escape_value("Submit"), "Submit");
        assert_eq!(yaml_escape_value("42"), "\"42\"");
        assert_eq!(yaml_escape_value("1e3"), "\"1e3\"");
        assert_eq!(yaml_escape_value("0x1F"), "\"0x1F\"");
        assert_eq!(yaml_escape_value("12 items"), "12 items");
        assert_eq!(yaml_escape_value("yes"), "\"yes\"");
        assert_eq!(yaml_escape_value("Note: read"), "\"Note: read\"");
        assert_eq!(yaml_escape_value("a:b"), "a:b");
        assert_eq!(yaml_escape_value("- item"), "\"- item\"");
        assert_eq!(yaml_escape_value("#1"), "\"#1\"");
        assert_eq!(yaml_escape_value("a #1"), "\"a #1\"");
        assert_eq!(
            yaml_escape_value("say \"hi\" {x}"),
            "\"say \\\"hi\\\" {x}\""
        );
        assert_eq!(yaml_escape_value(","), "\",\"");
        assert_eq!(yaml_escape_value("."), ".");
        assert_eq!(
            yaml_escape_key("link \"Docs: intro\""),
            "'link \"Docs: intro\"'"
        );
        assert_eq!(yaml_escape_key("button \"It's\""), "button \"It's\"");
    }
}
