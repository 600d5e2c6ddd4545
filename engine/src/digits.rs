//! Numbers written into text without the formatting machinery, which costs more than the rest of a small page's header and is paid on every ref.

/// Appends `number` in decimal.
#[inline]
pub(crate) fn push_decimal(out: &mut String, number: u32) {
    let mut digits = [0u8; 10];
    let mut at = digits.len();
    let mut rest = number;
    loop {
        at -= 1;
        // `rest % 10` is a digit.
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    for &d in &digits[at..] {
        out.push(char::from(d));
    }
}

/// Appends `number` as 16 lowercase hex digits (`{:016x}`).
pub(crate) fn push_hex16(out: &mut String, number: u64) {
    for shift in (0..16).rev() {
        let digit = (number >> (shift * 4)) & 0xf;
        out.push(char::from(b"0123456789abcdef"[digit as usize]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn digits_are_what_format_writes(n in any::<u32>(), h in any::<u64>()) {
            let mut out = String::from("x");
            push_decimal(&mut out, n);
            prop_assert_eq!(out, format!("x{n}"));
            let mut out = String::new();
            push_hex16(&mut out, h);
            prop_assert_eq!(out, format!("{h:016x}"));
        }
    }

    #[test]
    fn edges() {
        let mut out = String::new();
        push_decimal(&mut out, 0);
        push_decimal(&mut out, u32::MAX);
        assert_eq!(out, "04294967295");
        let mut out = String::new();
        push_hex16(&mut out, 0);
        assert_eq!(out, "0000000000000000");
    }
}
