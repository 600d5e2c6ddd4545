//! Eight bytes at a time: finding the first byte of a class in a text without looking at every byte, for the loops that read every character of a page.
//!
//! Each test takes eight bytes as a little-endian `u64` and returns a mask
//! with the high bit of a byte set where that byte belongs to the class.
//! Only the *lowest* flagged byte is exact (a borrow from a matching byte
//! may flag bytes above it, never below), which is all [`first`] reads; a
//! word with no byte of the class gives 0. Masks may be or-ed: the lowest
//! flag of the union is the first byte of any of the classes.

/// One in every byte.
const ONES: u64 = 0x0101_0101_0101_0101;
/// The high bit of every byte.
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The eight bytes of `bytes` from `at`, when there are eight.
#[inline]
pub(crate) fn word(bytes: &[u8], at: usize) -> Option<u64> {
    let chunk: [u8; 8] = bytes.get(at..at.checked_add(8)?)?.try_into().ok()?;
    Some(u64::from_le_bytes(chunk))
}

/// Bytes below `n` (`n` ≤ 0x80).
#[inline]
pub(crate) fn below(word: u64, n: u8) -> u64 {
    word.wrapping_sub(ONES * u64::from(n)) & !word & HIGHS
}

/// Bytes equal to `b`.
#[inline]
pub(crate) fn equal(word: u64, b: u8) -> u64 {
    below(word ^ (ONES * u64::from(b)), 1)
}

/// Bytes from `lo` to `hi`, both included (`hi` < 0x80). Exact in every
/// byte: the low seven bits are compared apart, so nothing carries.
#[inline]
pub(crate) fn within(word: u64, lo: u8, hi: u8) -> u64 {
    let low = word & !HIGHS;
    let under_top = (ONES * (127 + u64::from(hi) + 1)).wrapping_sub(low);
    let above_floor = low + ONES * (127 - u64::from(lo) + 1);
    under_top & above_floor & !word & HIGHS
}

/// Bytes outside ASCII.
#[inline]
pub(crate) fn non_ascii(word: u64) -> u64 {
    word & HIGHS
}

/// How many bytes precede the first flagged byte of `mask` (8 when none).
#[inline]
pub(crate) fn first(mask: u64) -> usize {
    (mask.trailing_zeros() / 8) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The first byte of `bytes` (eight of them) for which `class` holds.
    fn reference(bytes: &[u8], class: impl Fn(u8) -> bool) -> usize {
        bytes.iter().position(|&b| class(b)).unwrap_or(8)
    }

    proptest! {
        #[test]
        fn each_test_finds_the_first_byte_of_its_class(
            bytes in proptest::collection::vec(any::<u8>(), 8),
            n in 1u8..=0x80,
            b in any::<u8>(),
            lo in 0u8..0x80,
            span in 0u8..0x80,
        ) {
            let hi = lo.saturating_add(span).min(0x7f);
            let w = word(&bytes, 0).unwrap_or_default();
            prop_assert_eq!(first(below(w, n)), reference(&bytes, |x| x < n));
            prop_assert_eq!(first(equal(w, b)), reference(&bytes, |x| x == b));
            prop_assert_eq!(first(non_ascii(w)), reference(&bytes, |x| x >= 0x80));
            prop_assert_eq!(
                first(within(w, lo, hi)),
                reference(&bytes, |x| (lo..=hi).contains(&x))
            );
            prop_assert_eq!(
                first(below(w, n) | equal(w, b) | non_ascii(w)),
                reference(&bytes, |x| x < n || x == b || x >= 0x80)
            );
        }
    }

    #[test]
    fn within_is_exact_in_every_byte() {
        let bytes = *b"a0b9/:5z";
        let w = u64::from_le_bytes(bytes);
        let mask = within(w, b'0', b'9');
        let flagged: Vec<bool> = (0..8).map(|i| mask >> (i * 8 + 7) & 1 == 1).collect();
        assert_eq!(
            flagged,
            [false, true, false, true, false, false, true, false]
        );
    }

    #[test]
    fn a_short_tail_is_no_word() {
        assert_eq!(word(b"abcdefg", 0), None);
        assert_eq!(word(b"abcdefgh", 1), None);
        assert!(word(b"abcdefgh", 0).is_some());
    }
}
