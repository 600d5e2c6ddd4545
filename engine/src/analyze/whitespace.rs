//! Whitespace collapsing, the inner loop of every accessible name and every printed text: one pass that copies runs of plain bytes whole.

use crate::bytes;
use crate::chunk::{self, Chunk};
use crate::class::SPACE_STOP;

/// What a byte starts: 0 nothing to decide (copied with its run), 1 an ASCII
/// whitespace character, 2 a character that may be whitespace or dropped.
///
/// Every whitespace or dropped character outside ASCII starts with one of
/// the lead bytes marked 2: `C2` (U+0085, U+00A0, U+00AD), `E1` (U+1680),
/// `E2` (U+2000–U+200B, U+2028, U+2029, U+202F, U+205F), `E3` (U+3000),
/// `EF` (U+FEFF). Continuation bytes (`80`–`BF`) never start a character,
/// so a run of class-0 bytes always ends on a character boundary.
const CLASS: [u8; 256] = {
    let mut class = [0u8; 256];
    class[b'\t' as usize] = 1;
    class[b'\n' as usize] = 1;
    class[0x0b] = 1;
    class[0x0c] = 1;
    class[b'\r' as usize] = 1;
    class[b' ' as usize] = 1;
    class[0xc2] = 2;
    class[0xe1] = 2;
    class[0xe2] = 2;
    class[0xe3] = 2;
    class[0xef] = 2;
    class
};

/// Whether a byte outside ASCII may start a whitespace character (or a
/// zero-width space, soft hyphen or BOM): any other such byte is part of a
/// character that is none of them. [`may_be_space`] looks at one byte more.
pub(crate) fn may_start_space(b: u8) -> bool {
    CLASS[usize::from(b)] == 2
}

/// Whether the character starting at `at` may be whitespace (or a
/// zero-width space, soft hyphen or BOM), judged from its first two bytes:
/// `C2 85`, `C2 A0`, `C2 AD`, `E1 9A`, `E2 80`, `E2 81`, `E3 80`, `EF BB`
/// start every such character, and few others (CJK text, whose characters
/// start `E3 81`–`E3 83` or `E4`–`E9`, never needs decoding). False for a
/// continuation byte and for ASCII, which callers test themselves.
#[inline]
pub(crate) fn may_be_space(bytes: &[u8], at: usize) -> bool {
    bytes.get(at).is_some_and(|&first| {
        CLASS[usize::from(first)] == 2 && second_may_be_space(first, bytes.get(at + 1).copied())
    })
}

/// [`may_be_space`] for a first byte [`CLASS`] marks 2, given the byte
/// after it.
#[inline]
fn second_may_be_space(first: u8, second: Option<u8>) -> bool {
    match first {
        0xc2 => matches!(second, Some(0x85 | 0xa0 | 0xad)),
        0xe1 => second == Some(0x9a),
        0xe2 => matches!(second, Some(0x80 | 0x81)),
        0xe3 => second == Some(0x80),
        _ => second == Some(0xbb),
    }
}

/// From `at`, past the bytes outside ASCII that belong to characters which
/// cannot be whitespace (nor zero-width spaces, soft hyphens, BOMs): where
/// the next ASCII byte, possible space or the end is.
#[inline]
pub(crate) fn past_plain_wide(bytes: &[u8], mut at: usize) -> usize {
    while let Some(&b) = bytes.get(at) {
        if b < 0x80
            || (CLASS[usize::from(b)] == 2 && second_may_be_space(b, bytes.get(at + 1).copied()))
        {
            break;
        }
        at += 1;
    }
    at
}

/// The length in bytes of the UTF-8 character whose first byte is `lead`
/// (1 for ASCII, and for a continuation byte, which starts none).
#[inline]
pub(crate) fn char_width(lead: u8) -> usize {
    match lead {
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xff => 4,
        _ => 1,
    }
}

/// Whether `text` is whitespace only (`char::is_whitespace`), as
/// `text.trim().is_empty()` says, decoding only the characters outside ASCII
/// that may be whitespace.
pub(crate) fn is_blank(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        match CLASS[usize::from(bytes[at])] {
            1 => at += 1,
            2 if may_be_space(bytes, at) => match text[at..].chars().next() {
                Some(c) if c.is_whitespace() => at += c.len_utf8(),
                _ => return false,
            },
            _ => return false,
        }
    }
    true
}

/// Removes zero-width spaces and soft hyphens, turns each run of characters
/// for which `space` holds (ASCII whitespace always does) into one space,
/// and trims both ends.
///
/// `space` is asked only about characters outside ASCII that may be
/// whitespace (see [`CLASS`]); it must hold for no character that `char::
/// is_whitespace` rejects other than U+FEFF.
pub(crate) fn collapse(text: &str, space: fn(char) -> bool) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut pending = false;
    let mut at = 0;
    while at < bytes.len() {
        let start = at;
        while at < bytes.len() {
            // Sixteen bytes at once while none is whitespace, a control or
            // outside ASCII but single spaces between such bytes (already
            // collapsed); the byte found is then read as below. A space in
            // the last byte, whose neighbour is in the next chunk, stops, as
            // does one that would start the run (the text's first byte).
            if let Some(chunk) = Chunk::load(bytes, at) {
                let stop = SPACE_STOP.chunk(chunk);
                let mut lone = chunk.equal(b' ') & !((stop >> 1) | 1 << (chunk::LEN - 1));
                if at == start {
                    lone &= !1;
                }
                let hard = stop & !lone;
                if hard == 0 {
                    at += chunk::LEN;
                    continue;
                }
                at += hard.trailing_zeros() as usize;
            } else if let Some(word) = bytes::word(bytes, at) {
                // Eight bytes at once near the end.
                let stop = SPACE_STOP.word(word);
                if stop == 0 {
                    at += 8;
                    continue;
                }
                at += bytes::first(stop);
            }
            let b = bytes[at];
            if b >= 0x80 {
                // Outside ASCII eight bytes at once would stop at every
                // byte: one by one to the next ASCII byte or possible space.
                let next = past_plain_wide(bytes, at);
                if next == at {
                    break;
                }
                at = next;
            } else if CLASS[usize::from(b)] == 0 {
                at += 1;
            } else if b == b' '
                && at > start
                && bytes
                    .get(at + 1)
                    .is_some_and(|&b| CLASS[usize::from(b)] == 0)
            {
                // One space between words is already collapsed: the run
                // goes on, copied whole.
                at += 2;
            } else {
                break;
            }
        }
        let end = if at > start {
            at
        } else if CLASS[usize::from(bytes[at])] == 1 {
            // Indentation is long: sixteen bytes at once.
            while let Some(chunk) = Chunk::load(bytes, at) {
                let blank = chunk.equal(b' ') | chunk.within(b'\t', b'\r');
                let run = blank.trailing_ones() as usize;
                at += run;
                if run < chunk::LEN {
                    break;
                }
            }
            while at < bytes.len() && CLASS[usize::from(bytes[at])] == 1 {
                at += 1;
            }
            pending = true;
            continue;
        } else {
            let c = text[at..]
                .chars()
                .next()
                .unwrap_or(char::REPLACEMENT_CHARACTER);
            at += c.len_utf8();
            if c == '\u{200b}' || c == '\u{ad}' {
                continue;
            }
            if space(c) {
                pending = true;
                continue;
            }
            at
        };
        if pending && !out.is_empty() {
            out.push(' ');
        }
        pending = false;
        out.push_str(&text[start..end]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The obvious character-by-character reading of [`collapse`].
    fn reference(text: &str, space: fn(char) -> bool) -> String {
        let mut out = String::new();
        let mut pending = false;
        for c in text.chars() {
            if c == '\u{200b}' || c == '\u{ad}' {
                continue;
            }
            if c.is_ascii_whitespace() || c == '\u{0b}' || space(c) {
                pending = !out.is_empty();
                continue;
            }
            if pending {
                out.push(' ');
                pending = false;
            }
            out.push(c);
        }
        out
    }

    fn rust_space(c: char) -> bool {
        c.is_whitespace() && c != '\u{a0}'
    }

    fn js_space(c: char) -> bool {
        (c.is_whitespace() && c != '\u{85}') || c == '\u{feff}'
    }

    #[test]
    fn every_whitespace_character_starts_with_a_marked_byte() {
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            if c.is_whitespace() || c == '\u{feff}' || c == '\u{200b}' || c == '\u{ad}' {
                let mut buf = [0; 4];
                let first = c.encode_utf8(&mut buf).as_bytes()[0];
                assert_ne!(CLASS[usize::from(first)], 0, "{c:?}");
                let bytes = c.encode_utf8(&mut buf).as_bytes();
                assert!(first.is_ascii() || may_be_space(bytes, 0), "{c:?}");
            }
        }
    }

    #[test]
    fn collapses_and_trims() {
        assert_eq!(collapse("  a \n\t b  ", rust_space), "a b");
        assert_eq!(collapse("a\u{a0} b", rust_space), "a\u{a0} b");
        assert_eq!(collapse("a\u{a0} b", js_space), "a b");
        assert_eq!(collapse("soft\u{ad}hy\u{200b}phen", js_space), "softhyphen");
        assert_eq!(
            collapse("\u{3000}日本\u{2003}語\u{feff}", js_space),
            "日本 語"
        );
        assert_eq!(collapse("x\u{85}y", rust_space), "x y");
        assert_eq!(collapse("x\u{85}y", js_space), "x\u{85}y");
    }

    proptest! {
        #[test]
        fn matches_the_reference(text in "[a \\t\\n\u{a0}\u{85}\u{ad}\u{200b}\u{2003}\u{feff}é日\u{1680}\u{180e}\u{2028}\u{3000}、あ—\u{205f}\u{2060}\u{fefe}\u{1681}¢]{0,40}") {
            prop_assert_eq!(collapse(&text, rust_space), reference(&text, rust_space));
            prop_assert_eq!(collapse(&text, js_space), reference(&text, js_space));
            prop_assert_eq!(is_blank(&text), text.trim().is_empty());
        }

        #[test]
        fn blank_is_what_trims_to_nothing(
            text in "[ \t\n\x0b\x0c\r\x1c\u{a0}\u{85}\u{ad}\u{1680}\u{2003}\u{2028}\u{205f}\u{3000}\u{feff}\u{200b}、]{0,12}"
        ) {
            prop_assert_eq!(is_blank(&text), text.trim().is_empty(), "{:?}", text);
        }
    }
}
