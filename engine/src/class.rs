//! Byte classes declared once: each scan that stops at a few kinds of byte names its class here and gets all three tests from it — sixteen bytes at a time ([`Chunk`]), eight at a time ([`bytes`]) and one at a time — so they cannot drift apart.

use crate::bytes;
use crate::chunk::Chunk;

/// A class of bytes: every byte outside ASCII, the bytes below
/// [`Class::below`], and those equal to one of [`Class::equal`] or within one
/// of the ranges of [`Class::within`] (all ASCII).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Class {
    /// Bytes below this one belong (`1 ≤ below ≤ 0x7f`).
    pub below: u8,
    /// These bytes belong (each < 0x80).
    pub equal: &'static [u8],
    /// Bytes from `lo` to `hi`, both included, belong (`1 ≤ lo ≤ hi ≤ 0x7f`).
    pub within: &'static [(u8, u8)],
}

/// What stops the scans for plain words (secret words, tokens): whitespace,
/// controls, digits, DEL and bytes outside ASCII.
pub(crate) const WORD_STOP: Class = Class {
    below: b'!',
    equal: &[0x7f],
    within: &[(b'0', b'9')],
};

/// What stops a run of text whitespace collapsing copies whole: whitespace,
/// controls and bytes outside ASCII.
pub(crate) const SPACE_STOP: Class = Class {
    below: b'!',
    equal: &[],
    within: &[],
};

/// What a YAML string's quoting rules look at: controls, `#`, `:`, `` ` ``,
/// `{` to DEL and bytes outside ASCII.
pub(crate) const YAML_STOP: Class = Class {
    below: b' ',
    equal: b"#:`",
    within: &[(b'{', 0x7f)],
};

impl Class {
    /// The chunk's bytes of the class, bit `i` for byte `i` (exact in every byte).
    #[inline(always)]
    pub(crate) fn chunk(&self, chunk: Chunk) -> u32 {
        let mut mask = chunk.below_or_wide(self.below);
        for &b in self.equal {
            mask |= chunk.equal(b);
        }
        for &(lo, hi) in self.within {
            mask |= chunk.within(lo, hi);
        }
        mask
    }

    /// The word's bytes of the class as high bits, of which only the lowest
    /// is exact ([`bytes::first`] reads it).
    #[inline(always)]
    pub(crate) fn word(&self, word: u64) -> u64 {
        let mut mask = bytes::below(word, self.below) | bytes::non_ascii(word);
        for &b in self.equal {
            mask |= bytes::equal(word, b);
        }
        for &(lo, hi) in self.within {
            mask |= bytes::within(word, lo, hi);
        }
        mask
    }

    /// Whether `b` belongs to the class.
    #[inline(always)]
    pub(crate) fn has(&self, b: u8) -> bool {
        if b >= 0x80 || b < self.below {
            return true;
        }
        let mut i = 0;
        while i < self.equal.len() {
            if self.equal[i] == b {
                return true;
            }
            i += 1;
        }
        let mut i = 0;
        while i < self.within.len() {
            let (lo, hi) = self.within[i];
            if lo <= b && b <= hi {
                return true;
            }
            i += 1;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::LEN;
    use proptest::prelude::*;

    const CLASSES: [Class; 3] = [WORD_STOP, SPACE_STOP, YAML_STOP];

    proptest! {
        /// The three forms of each class agree on every byte.
        #[test]
        fn chunk_word_and_byte_tests_agree(bytes in proptest::collection::vec(any::<u8>(), LEN)) {
            for class in CLASSES {
                let chunk = Chunk::load(&bytes, 0).unwrap_or_else(|| unreachable!());
                let expected = bytes
                    .iter()
                    .enumerate()
                    .filter(|&(_, &b)| class.has(b))
                    .fold(0u32, |mask, (i, _)| mask | 1 << i);
                prop_assert_eq!(class.chunk(chunk), expected, "{:?}", class);
                for at in [0, 8] {
                    let word = bytes::word(&bytes, at).unwrap_or_default();
                    let first = bytes[at..at + 8].iter().position(|&b| class.has(b)).unwrap_or(8);
                    prop_assert_eq!(bytes::first(class.word(word)), first, "{:?}", class);
                }
            }
        }
    }

    #[test]
    fn every_byte_is_classed_as_declared() {
        for b in 0..=255u8 {
            assert_eq!(
                WORD_STOP.has(b),
                b <= b' ' || b.is_ascii_digit() || b >= 0x7f,
                "{b:#x}"
            );
            assert_eq!(SPACE_STOP.has(b), b <= b' ' || b >= 0x80, "{b:#x}");
            assert_eq!(
                YAML_STOP.has(b),
                b < b' ' || matches!(b, b'#' | b':' | b'`') || b >= b'{',
                "{b:#x}"
            );
        }
    }
}
