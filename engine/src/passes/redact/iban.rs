//! The IBAN recogniser: ISO 13616 account numbers, plain or grouped, that pass the mod-97 check.

/// The end of an IBAN starting at `start` (two letters, two check digits,
/// then up to 30 letters or digits, plain or in groups of four separated by
/// single spaces), when its ISO 13616 check (mod 97 = 1) holds.
pub(super) fn iban_end(bytes: &[u8], start: usize) -> Option<usize> {
    let head = bytes.get(start..start + 4)?;
    if !(head[0].is_ascii_uppercase()
        && head[1].is_ascii_uppercase()
        && head[2].is_ascii_digit()
        && head[3].is_ascii_digit())
    {
        return None;
    }
    let alnum = |b: u8| b.is_ascii_digit() || b.is_ascii_uppercase();
    let mut end = start;
    let mut at = start;
    let mut chars = 0;
    let spaced = bytes.get(start + 4) == Some(&b' ');
    // Candidate ends: after each group (spaced) or the whole run (plain).
    let mut ends = Vec::new();
    loop {
        let group_start = at;
        while at < bytes.len() && alnum(bytes[at]) && chars < 34 {
            at += 1;
            chars += 1;
        }
        let group = at - group_start;
        if group == 0 || (spaced && group > 4) {
            break;
        }
        end = at;
        ends.push((end, chars));
        if !spaced || group < 4 || bytes.get(at) != Some(&b' ') {
            break;
        }
        at += 1;
    }
    if bytes.get(end).is_some_and(|b| b.is_ascii_alphanumeric()) {
        return None;
    }
    ends.into_iter()
        .rev()
        .find(|&(end, chars)| (15..=34).contains(&chars) && iban_checks(&bytes[start..end]))
        .map(|(end, _)| end)
}

/// ISO 13616: the country code and check digits moved to the end, letters
/// as 10–35, the number mod 97 is 1.
pub(super) fn iban_checks(iban: &[u8]) -> bool {
    let digits = iban.iter().copied().filter(|&b| b != b' ');
    let rotated = digits.clone().skip(4).chain(digits.take(4));
    let mut rest = 0u32;
    for b in rotated {
        let value = if b.is_ascii_digit() {
            u32::from(b - b'0')
        } else {
            u32::from(b - b'A') + 10
        };
        rest = if value >= 10 {
            (rest * 100 + value) % 97
        } else {
            (rest * 10 + value) % 97
        };
    }
    rest == 1
}
