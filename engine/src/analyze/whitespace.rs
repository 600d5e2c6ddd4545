//! Whitespace collapsing, the inner loop of every accessible name and every printed text: one pass that copies runs of plain bytes whole.

use crate::bytes;

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
/// character that is none of them.
pub(crate) fn may_start_space(b: u8) -> bool {
    CLASS[usize::from(b)] == 2
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
            // Eight bytes at once while none is whitespace, a control or
            // outside ASCII; the byte found is then read as below.
            if let Some(word) = bytes::word(bytes, at) {
                let stop = bytes::below(word, b'!') | bytes::non_ascii(word);
                if stop == 0 {
                    at += 8;
                    continue;
                }
                at += bytes::first(stop);
            }
            if CLASS[usize::from(bytes[at])] == 0 {
                at += 1;
                // Outside ASCII eight bytes at once would stop at every
                // byte: one by one to the next ASCII byte.
                while bytes
                    .get(at)
                    .is_some_and(|&b| b >= 0x80 && CLASS[usize::from(b)] == 0)
                {
                    at += 1;
                }
            } else if bytes[at] == b' '
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
        fn matches_the_reference(text in "[a \\t\\n\u{a0}\u{85}\u{ad}\u{200b}\u{2003}\u{feff}é日\u{1680}\u{180e}\u{2028}]{0,40}") {
            prop_assert_eq!(collapse(&text, rust_space), reference(&text, rust_space));
            prop_assert_eq!(collapse(&text, js_space), reference(&text, js_space));
        }
    }
}
