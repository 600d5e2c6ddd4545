//! The key recogniser: single tokens shaped like credentials (JWTs, vendor-prefixed keys, long high-entropy strings).

use super::Kind;
use super::scan::MIN_SECRET;

/// Which credential a single token is shaped like, if any.
pub fn secret_kind(token: &str) -> Option<Kind> {
    if token.len() < MIN_SECRET {
        return None;
    }
    // JWT: three base64url segments, header starting with `eyJ`.
    if token.starts_with("eyJ")
        && token.split('.').count() == 3
        && token
            .split('.')
            .all(|p| p.len() >= 4 && p.chars().all(is_b64url))
    {
        return Some(Kind::Jwt);
    }
    // Well-known key prefixes (Stripe's publishable `pk_live_` keys are
    // public by design: pages embed them).
    const PREFIXES: &[&str] = &[
        "sk-",
        "sk_live_",
        "sk_test_",
        "rk_live_",
        "ghp_",
        "gho_",
        "ghs_",
        "github_pat_",
        "xoxb-",
        "xoxp-",
        "AKIA",
        "AIza",
        "glpat-",
    ];
    // Every prefix starts with one of these: most tokens are turned away
    // by their first byte.
    if matches!(token.as_bytes()[0], b's' | b'r' | b'g' | b'x' | b'A')
        && PREFIXES.iter().any(|p| token.starts_with(p))
        && token.len() >= 16
        && token.chars().all(|c| is_b64url(c) || c == '-')
    {
        return Some(Kind::VendorKey);
    }
    // Long high-entropy strings mixing letters and digits (not URLs, paths
    // or words), that read as random: no slug, identifier, date or data.
    (token.len() >= 24
        && key_shaped(token.as_bytes())
        && entropy(token) >= 3.5
        && reads_random(token.as_bytes()))
    .then_some(Kind::Random)
}

/// Characters of the longest token the random rule takes: longer runs of
/// base64 are data (an inline image, a font), not a credential; keys that
/// long carry a vendor's prefix.
const MAX_RANDOM: usize = 100;

/// Whether a key-shaped token reads as random rather than as words: at
/// most [`MAX_RANDOM`] bytes, `=` only as padding at its end, at most two
/// `-`/`_` (a slug or an identifier has more), two uppercase letters, two
/// lowercase and two digits at least, digits in two places at least, no
/// byte four times in a row (data), and letters and digits switching
/// class often: in a random base62 string about 6 in 10 neighbours differ
/// in class (upper, lower, digit); words, camel case and numbered names
/// switch far less (`The_Dark_Side_Of_The_Moon74`, `cite_ref-Smith2013_27-0`).
pub(super) fn reads_random(token: &[u8]) -> bool {
    if token.len() > MAX_RANDOM {
        return false;
    }
    let body = token
        .strip_suffix(b"==")
        .or_else(|| token.strip_suffix(b"="))
        .unwrap_or(token);
    let (mut upper, mut lower, mut digit, mut digit_runs) = (0, 0, 0, 0);
    let (mut separators, mut alnum, mut switches, mut repeat) = (0, 0, 0, 1);
    let class = |b: u8| match b {
        b'A'..=b'Z' => 1,
        b'a'..=b'z' => 2,
        b'0'..=b'9' => 3,
        _ => 0,
    };
    let mut previous: Option<u8> = None;
    let mut last_class = 0;
    for &b in body {
        match b {
            b'=' => return false,
            b'-' | b'_' => separators += 1,
            _ => {}
        }
        repeat = if previous == Some(b) { repeat + 1 } else { 1 };
        if repeat >= 4 {
            return false;
        }
        previous = Some(b);
        let c = class(b);
        if c == 0 {
            continue;
        }
        match c {
            1 => upper += 1,
            2 => lower += 1,
            _ => {
                digit += 1;
                if last_class != 3 {
                    digit_runs += 1;
                }
            }
        }
        if last_class != 0 && c != last_class {
            switches += 1;
        }
        alnum += 1;
        last_class = c;
    }
    separators <= 2
        && upper >= 2
        && lower >= 2
        && digit >= 2
        && digit_runs >= 2
        && alnum > 0
        && switches * 20 >= alnum * 9
}

/// Whether `token` is made of base64 (standard or URL-safe) and `=` only,
/// holds no `//` (a URL), and mixes ASCII letters and digits: one pass over
/// the bytes (a character outside ASCII is none of these, nor are its bytes).
pub(super) fn key_shaped(token: &[u8]) -> bool {
    let (mut digit, mut letter, mut slash) = (false, false, false);
    for &b in token {
        match b {
            b'0'..=b'9' => digit = true,
            b'a'..=b'z' | b'A'..=b'Z' => letter = true,
            b'/' if slash => return false,
            b'-' | b'_' | b'+' | b'=' | b'/' => {}
            _ => return false,
        }
        slash = b == b'/';
    }
    digit && letter
}

pub(super) fn is_b64url(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

/// Shannon entropy of the token's bytes, in bits per byte. The bytes that
/// occur are summed in byte order (a bit set of them is walked, not all 256
/// counts), so the float result does not depend on how they are found.
pub(super) fn entropy(token: &str) -> f64 {
    let mut counts = [0u32; 256];
    let mut seen = [0u64; 4];
    for b in token.bytes() {
        counts[usize::from(b)] += 1;
        seen[usize::from(b >> 6)] |= 1 << (b & 63);
    }
    let n = token.len() as f64;
    // As `Iterator::sum` of floats starts.
    let mut sum = -0.0;
    for (k, mut bits) in seen.into_iter().enumerate() {
        while bits != 0 {
            let b = k * 64 + bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let p = f64::from(counts[b]) / n;
            sum += -p * p.log2();
        }
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The high-entropy rule read byte by byte, with its entropy summed
        /// over the bytes that occur, decides as the rule written with
        /// `char` iterators and a sum over all 256 counts does.
        #[test]
        fn key_shape_and_entropy_match_the_rule_written_plainly(
            token in "[a-zA-Z0-9_/+=\\-.:é]{0,40}",
        ) {
            let plain_entropy = |token: &str| -> f64 {
                let mut counts = [0u32; 256];
                for b in token.bytes() {
                    counts[usize::from(b)] += 1;
                }
                let n = token.len() as f64;
                counts
                    .iter()
                    .filter(|&&c| c > 0)
                    .map(|&c| {
                        let p = f64::from(c) / n;
                        -p * p.log2()
                    })
                    .sum()
            };
            let plain_shape = token
                .chars()
                .all(|c| is_b64url(c) || c == '+' || c == '/' || c == '=')
                && !token.contains("//")
                && token.chars().any(|c| c.is_ascii_digit())
                && token.chars().any(|c| c.is_ascii_alphabetic());
            proptest::prop_assert_eq!(key_shaped(token.as_bytes()), plain_shape);
            if !token.is_empty() {
                proptest::prop_assert_eq!(entropy(&token).to_bits(), plain_entropy(&token).to_bits());
            }
        }
    }
}
