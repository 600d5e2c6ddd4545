//! The key recogniser: single tokens shaped like credentials (JWTs, vendor-prefixed keys, long high-entropy strings).

use super::Kind;
use super::scan::MIN_SECRET;

/// A single token that looks like a credential.
pub fn looks_secret(token: &str) -> bool {
    secret_kind(token).is_some()
}

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
    // Well-known key prefixes.
    const PREFIXES: &[&str] = &[
        "sk-",
        "sk_live_",
        "sk_test_",
        "pk_live_",
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
    if matches!(token.as_bytes()[0], b's' | b'p' | b'r' | b'g' | b'x' | b'A')
        && PREFIXES.iter().any(|p| token.starts_with(p))
        && token.len() >= 16
        && token.chars().all(|c| is_b64url(c) || c == '-')
    {
        return Some(Kind::VendorKey);
    }
    // Long high-entropy strings mixing letters and digits (not URLs, paths or words).
    (token.len() >= 24 && key_shaped(token.as_bytes()) && entropy(token) >= 3.5)
        .then_some(Kind::Random)
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
