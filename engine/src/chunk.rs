//! Sixteen bytes at a time with exact masks: the scans that stop at few bytes (whitespace collapsing, YAML quoting, plain words) compare a whole chunk at once and read the answer as bits.
//!
//! Each test returns a mask with bit `i` set where byte `i` of the chunk
//! belongs to the class, exact in every byte (unlike [`crate::bytes`], where
//! only the lowest flag is), so masks may be shifted, negated and combined:
//! "a space whose next byte is plain" is `spaces & !(stop >> 1)`.
//!
//! On x86_64 SSE2 (part of the architecture) compares the sixteen bytes in
//! one instruction per test, through `safe_arch`'s safe wrappers (the
//! workspace forbids `unsafe`); elsewhere two eight-byte words do the same.

/// How many bytes a chunk holds.
pub(crate) const LEN: usize = 16;

/// Sixteen bytes of a text, ready to be tested.
#[derive(Clone, Copy)]
pub(crate) struct Chunk(imp::Repr);

impl Chunk {
    /// The sixteen bytes of `bytes` from `at`, when there are sixteen.
    #[inline]
    pub(crate) fn load(bytes: &[u8], at: usize) -> Option<Chunk> {
        let chunk: &[u8; LEN] = bytes.get(at..at.checked_add(LEN)?)?.try_into().ok()?;
        Some(Chunk(imp::load(chunk)))
    }

    /// Bytes below `n` (`1 ≤ n ≤ 0x7f`), and every byte outside ASCII.
    #[inline]
    pub(crate) fn below_or_wide(self, n: u8) -> u32 {
        imp::below_or_wide(self.0, n)
    }

    /// Bytes equal to `b` (`b` < 0x80).
    #[inline]
    pub(crate) fn equal(self, b: u8) -> u32 {
        imp::equal(self.0, b)
    }

    /// ASCII bytes from `lo` to `hi`, both included (`1 ≤ lo ≤ hi ≤ 0x7f`).
    #[inline]
    pub(crate) fn within(self, lo: u8, hi: u8) -> u32 {
        imp::within(self.0, lo, hi)
    }
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod imp {
    use safe_arch::{
        bitand_m128i, cmp_eq_mask_i8_m128i, cmp_gt_mask_i8_m128i, cmp_lt_mask_i8_m128i,
        load_unaligned_m128i, m128i, move_mask_i8_m128i, set_splat_i8_m128i,
    };

    pub(super) type Repr = m128i;

    // Bytes compare as signed: those outside ASCII are negative.

    #[inline]
    pub(super) fn load(chunk: &[u8; super::LEN]) -> Repr {
        load_unaligned_m128i(chunk)
    }

    #[inline]
    fn mask(v: Repr) -> u32 {
        move_mask_i8_m128i(v) as u32
    }

    #[inline]
    fn splat(b: u8) -> Repr {
        set_splat_i8_m128i(b as i8)
    }

    #[inline]
    pub(super) fn below_or_wide(v: Repr, n: u8) -> u32 {
        mask(cmp_lt_mask_i8_m128i(v, splat(n)))
    }

    #[inline]
    pub(super) fn equal(v: Repr, b: u8) -> u32 {
        mask(cmp_eq_mask_i8_m128i(v, splat(b)))
    }

    #[inline]
    pub(super) fn within(v: Repr, lo: u8, hi: u8) -> u32 {
        let above = cmp_gt_mask_i8_m128i(v, splat(lo - 1));
        if hi == 0x7f {
            return mask(above);
        }
        mask(bitand_m128i(above, cmp_lt_mask_i8_m128i(v, splat(hi + 1))))
    }
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
mod imp {
    pub(super) use super::portable::*;
}

/// The same tests on two eight-byte words: used where SSE2 is not, and
/// compared with it in the tests.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
mod portable {
    /// One in every byte.
    const ONES: u64 = 0x0101_0101_0101_0101;
    /// The high bit of every byte.
    const HIGHS: u64 = 0x8080_8080_8080_8080;

    pub(super) type Repr = [u64; 2];

    pub(super) fn load(chunk: &[u8; super::LEN]) -> Repr {
        let chunk = u128::from_le_bytes(*chunk);
        [chunk as u64, (chunk >> 64) as u64]
    }

    /// ASCII bytes below `n` (`n` ≤ 0x80), as high bits: the low seven bits
    /// are compared apart, so nothing carries into the next byte.
    fn below(word: u64, n: u8) -> u64 {
        !(((word & !HIGHS) + ONES * u64::from(0x80 - n)) | word) & HIGHS
    }

    /// The high bits of a word's bytes gathered into its low eight bits.
    fn gather(highs: u64) -> u32 {
        ((highs >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32
    }

    fn both(v: Repr, test: impl Fn(u64) -> u64) -> u32 {
        gather(test(v[0])) | gather(test(v[1])) << 8
    }

    pub(super) fn below_or_wide(v: Repr, n: u8) -> u32 {
        both(v, |w| below(w, n) | (w & HIGHS))
    }

    pub(super) fn equal(v: Repr, b: u8) -> u32 {
        both(v, |w| below(w ^ (ONES * u64::from(b)), 1))
    }

    pub(super) fn within(v: Repr, lo: u8, hi: u8) -> u32 {
        both(v, |w| below(w, hi + 1) & !below(w, lo))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The mask a test should give: bit `i` where `class` holds for byte `i`.
    fn reference(bytes: &[u8], class: impl Fn(u8) -> bool) -> u32 {
        bytes
            .iter()
            .enumerate()
            .filter(|&(_, &b)| class(b))
            .fold(0, |mask, (i, _)| mask | 1 << i)
    }

    proptest! {
        #[test]
        fn every_test_flags_exactly_its_class(
            bytes in proptest::collection::vec(any::<u8>(), LEN),
            n in 1u8..=0x7f,
            b in 0u8..0x80,
            lo in 1u8..=0x7f,
            span in 0u8..0x7f,
        ) {
            let hi = lo.saturating_add(span).min(0x7f);
            let chunk = Chunk::load(&bytes, 0).unwrap_or_else(|| unreachable!());
            let wide = |x: u8| x >= 0x80;
            prop_assert_eq!(chunk.below_or_wide(n), reference(&bytes, |x| x < n || wide(x)));
            prop_assert_eq!(chunk.equal(b), reference(&bytes, |x| x == b));
            prop_assert_eq!(chunk.within(lo, hi), reference(&bytes, |x| (lo..=hi).contains(&x)));

            let v = portable::load(&bytes.clone().try_into().unwrap_or_default());
            prop_assert_eq!(portable::below_or_wide(v, n), reference(&bytes, |x| x < n || wide(x)));
            prop_assert_eq!(portable::equal(v, b), reference(&bytes, |x| x == b));
            prop_assert_eq!(portable::within(v, lo, hi), reference(&bytes, |x| (lo..=hi).contains(&x)));
        }
    }

    #[test]
    fn a_short_tail_is_no_chunk() {
        let text = [b'a'; LEN + 1];
        assert!(Chunk::load(&text[..LEN - 1], 0).is_none());
        assert!(Chunk::load(&text, 1).is_some());
        assert!(Chunk::load(&text, 2).is_none());
        assert!(Chunk::load(&text, usize::MAX).is_none());
    }
}
