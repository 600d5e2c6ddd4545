//! The digit-run recognisers: card numbers that pass the Luhn check, and US social security numbers.

/// End of the longest run of ASCII digits from `start`, groups joined by
/// single spaces or dashes (`4242 4242-4242`).
pub(super) fn digit_run_end(bytes: &[u8], start: usize) -> usize {
    let mut end = start;
    let mut j = start;
    while j < bytes.len() {
        if bytes[j].is_ascii_digit() {
            end = j + 1;
        } else if !(matches!(bytes[j], b' ' | b'-' | b'.')
            && bytes.get(j + 1).is_some_and(u8::is_ascii_digit))
        {
            break;
        }
        j += 1;
    }
    end
}

/// 13–19 digits (separators skipped) passing the Luhn check; with dots,
/// only in groups of four (`4111.1111.1111.1111`, not a decimal number).
pub(super) fn is_card(run: &str) -> bool {
    if run.contains('.') && !run.split(['.', ' ', '-']).all(|g| g.len() == 4) {
        return false;
    }
    let digits = run.bytes().filter(u8::is_ascii_digit);
    if !(13..=19).contains(&digits.clone().count()) {
        return false;
    }
    let mut sum = 0;
    for (i, d) in digits.rev().map(|b| u32::from(b - b'0')).enumerate() {
        let d = if i % 2 == 1 { d * 2 } else { d };
        sum += if d > 9 { d - 9 } else { d };
    }
    sum % 10 == 0
}

/// `ddd-dd-dddd`.
pub(super) fn is_ssn(run: &str) -> bool {
    let mut lens = run.split('-').map(str::len);
    run.bytes().all(|b| b.is_ascii_digit() || b == b'-')
        && lens.next() == Some(3)
        && lens.next() == Some(2)
        && lens.next() == Some(4)
        && lens.next().is_none()
}
