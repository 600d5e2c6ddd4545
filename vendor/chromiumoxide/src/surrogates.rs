//! pagesnap patch: repairs lone UTF-16 surrogate escapes in CDP messages before they are parsed.
//!
//! A DOM string may hold a lone surrogate (`el.textContent = "bad\uD800pair"`).
//! Chromium's JSON writer escapes it as `\ud800`, which is valid JSON text
//! but decodes to no Unicode scalar value, so `serde_json` refuses the whole
//! message and the call it answers is never resolved: the snapshot of such a
//! page hung until its timeout. Each lone surrogate escape is replaced by
//! `\ufffd` (U+FFFD REPLACEMENT CHARACTER, as a lossy UTF-16 decoder does) and
//! counted per CDP session ([`replaced_in`]), so a capture can say how many
//! of its own strings were repaired whatever else the process captures.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Mutex;

/// Lone surrogate escapes replaced, by the `sessionId` of the message that
/// held them (`""`: a browser-level message).
static BY_SESSION: Mutex<BTreeMap<String, u64>> = Mutex::new(BTreeMap::new());

/// Lone surrogate escapes replaced so far in messages of CDP session
/// `session` (a page's session id); a capture reads it before and after.
pub fn replaced_in(session: &str) -> u64 {
    BY_SESSION
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get(session)
        .copied()
        .unwrap_or(0)
}

/// The `sessionId` a CDP message names (top-level; the value is an opaque
/// hexadecimal id, never escaped).
fn session_of(text: &str) -> &str {
    const KEY: &str = "\"sessionId\":\"";
    let Some(at) = text.rfind(KEY) else {
        return "";
    };
    let rest = &text[at + KEY.len()..];
    rest.find('"').map_or("", |end| &rest[..end])
}

/// `text` with every lone surrogate escape replaced by `\ufffd`; borrowed
/// (no copy) when there is none, which is every message of most pages.
pub fn repair(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    // Fast path: no `\u` followed by `d`/`D` at all.
    if !bytes
        .windows(3)
        .any(|w| w[0] == b'\\' && w[1] == b'u' && (w[2] | 0x20) == b'd')
    {
        return Cow::Borrowed(text);
    }
    let mut out: Option<String> = None;
    let mut replaced = 0u64;
    let mut copied = 0usize;
    let mut i = 0usize;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        // An escape: `\uXXXX` or a two-byte one (`\\`, `\"`, `\n`, …).
        if bytes.get(i + 1) != Some(&b'u') {
            i += 2;
            continue;
        }
        let Some(unit) = hex4(bytes, i + 2) else {
            i += 2;
            continue;
        };
        match unit {
            0xD800..=0xDBFF => {
                // A high surrogate must be followed by a low one.
                let low = (bytes.get(i + 6) == Some(&b'\\') && bytes.get(i + 7) == Some(&b'u'))
                    .then(|| hex4(bytes, i + 8))
                    .flatten();
                if matches!(low, Some(0xDC00..=0xDFFF)) {
                    i += 12;
                    continue;
                }
            }
            0xDC00..=0xDFFF => {}
            _ => {
                i += 6;
                continue;
            }
        }
        let buffer = out.get_or_insert_with(|| String::with_capacity(text.len()));
        buffer.push_str(&text[copied..i]);
        buffer.push_str("\\ufffd");
        replaced += 1;
        i += 6;
        copied = i;
    }
    match out {
        Some(mut buffer) => {
            buffer.push_str(&text[copied..]);
            *BY_SESSION
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .entry(session_of(text).to_owned())
                .or_default() += replaced;
            Cow::Owned(buffer)
        }
        None => Cow::Borrowed(text),
    }
}

fn hex4(bytes: &[u8], at: usize) -> Option<u16> {
    let digits = bytes.get(at..at + 4)?;
    let digits = std::str::from_utf8(digits).ok()?;
    u16::from_str_radix(digits, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::{repair, replaced_in, session_of};

    #[test]
    fn repairs_are_counted_per_session() {
        assert_eq!(
            session_of(r#"{"method":"x","params":{"sessionId":"IN"},"sessionId":"AB12"}"#),
            "AB12"
        );
        assert_eq!(session_of(r#"{"id":1,"result":{}}"#), "");
        // A string that spells the key holds it escaped: not a session.
        assert_eq!(session_of(r#"{"id":1,"result":"\"sessionId\":\"X"}"#), "");
        let before = replaced_in("S1");
        let _ = repair(r#"{"id":2,"result":{"v":"\ud800\udfff\udfff"},"sessionId":"S1"}"#);
        let _ = repair(r#"{"id":3,"result":{"v":"\ud800"},"sessionId":"S2"}"#);
        assert_eq!(replaced_in("S1") - before, 1);
        assert!(replaced_in("S2") >= 1);
    }

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        assert_eq!(repair(r#"{"a":"bad\ud800pair"}"#), r#"{"a":"bad\ufffdpair"}"#);
        assert_eq!(repair(r#""\uDC00x\uD83D""#), r#""\ufffdx\ufffd""#);
        // A valid pair, an escaped backslash before `ud800`, plain text: unchanged.
        assert_eq!(repair(r#""\ud83d\ude00""#), r#""\ud83d\ude00""#);
        assert_eq!(repair(r#""\\ud800""#), r#""\\ud800""#);
        assert_eq!(repair("plain"), "plain");
        let text = repair(r#"["\ud800", "\ud800\ud800\udc00"]"#);
        let parsed: Vec<String> = serde_json::from_str(&text).unwrap();
        assert_eq!(parsed, ["\u{fffd}", "\u{fffd}\u{10000}"]);
    }
}
