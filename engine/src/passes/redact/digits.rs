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

/// 13–19 digits (separators skipped) opening with a card network's
/// prefix at a length it issues and passing the Luhn check; with dots,
/// only in groups of four (`4111.1111.1111.1111`, not a decimal number).
pub(super) fn is_card(run: &str) -> bool {
    if run.contains('.') && !run.split(['.', ' ', '-']).all(|g| g.len() == 4) {
        return false;
    }
    let digits = run.bytes().filter(u8::is_ascii_digit);
    let mut all = [0u8; 19];
    let mut n = 0;
    for d in digits.clone() {
        if n == all.len() {
            return false;
        }
        all[n] = d;
        n += 1;
    }
    if n < 13 || !issued(&all[..n]) {
        return false;
    }
    let mut sum = 0;
    for (i, d) in digits.rev().map(|b| u32::from(b - b'0')).enumerate() {
        let d = if i % 2 == 1 { d * 2 } else { d };
        sum += if d > 9 { d - 9 } else { d };
    }
    sum % 10 == 0
}

/// Whether `digits` open with a card network's issuer prefix (ISO/IEC 7812
/// ranges of the networks in use) at a length that network issues: a
/// Luhn-valid number that fails this is an id or a timestamp (1 in 10 of
/// any digit run passes Luhn; millisecond timestamps open with 1).
fn issued(digits: &[u8]) -> bool {
    let n = digits.len();
    let prefix = |k: usize| {
        digits[..k]
            .iter()
            .fold(0u32, |acc, &d| acc * 10 + u32::from(d - b'0'))
    };
    match digits[0] {
        // Visa.
        b'4' => matches!(n, 13 | 16 | 19),
        // Mastercard; Maestro.
        b'5' => (51..=55).contains(&prefix(2)) && n == 16 || matches!(prefix(2), 50 | 56..=59),
        // Mastercard's 2-series; Mir.
        b'2' => (2221..=2720).contains(&prefix(4)) && n == 16 || (2200..=2204).contains(&prefix(4)),
        // American Express; JCB; Diners Club.
        b'3' => {
            matches!(prefix(2), 34 | 37) && n == 15
                || (3528..=3589).contains(&prefix(4)) && n >= 16
                || ((300..=305).contains(&prefix(3)) || matches!(prefix(2), 36 | 38 | 39))
                    && n >= 14
        }
        // Discover, UnionPay, Maestro, RuPay.
        b'6' => n >= 16 || prefix(2) == 63 || prefix(2) == 67,
        _ => false,
    }
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
