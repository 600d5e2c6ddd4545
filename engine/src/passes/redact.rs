//! Redaction: secret fields (passwords, card numbers, tokens, SSNs) and secret-looking values never reach the model.

use crate::analyze::Analysis;
use crate::page::{Namespace, Page};

/// What replaces a secret.
pub const REDACTED: &str = "[redacted]";

/// Words in a field's name, id, autocomplete, label or placeholder that mark it secret.
const SECRET_WORDS: &[&str] = &[
    "password",
    "passwd",
    "passcode",
    "secret",
    "token",
    "api key",
    "apikey",
    "api_key",
    "api-key",
    "access key",
    "private key",
    "card number",
    "cardnumber",
    "card_number",
    "cc-number",
    "ccnumber",
    "cc-csc",
    "cvv",
    "cvc",
    "csc",
    "security code",
    "ssn",
    "social security",
    "one-time-code",
    "otp",
    "iban",
    "pin code",
];

/// Per node: an input/textarea whose value is secret by what the field is.
pub fn secret_fields(page: &Page, analysis: &Analysis) -> Vec<bool> {
    let mut out = vec![false; page.len()];
    for element in page.elements() {
        let e = element.value();
        if e.ns != Namespace::Html || !(e.name == "input" || e.name == "textarea") {
            continue;
        }
        let ty = e.attr("type").unwrap_or("").to_ascii_lowercase();
        if ty == "password" {
            out[element.id().index()] = true;
            continue;
        }
        let mut haystack = String::new();
        for key in [
            "name",
            "id",
            "autocomplete",
            "aria-label",
            "placeholder",
            "title",
        ] {
            if let Some(v) = e.attr(key) {
                haystack.push_str(&v.to_ascii_lowercase());
                haystack.push(' ');
            }
        }
        if let Some(name) = analysis.name(element.id()) {
            haystack.push_str(&name.text.to_ascii_lowercase());
        }
        let normalized = haystack.replace(['_', '-'], " ");
        let hit = SECRET_WORDS.iter().any(|w| {
            let w_norm = w.replace(['_', '-'], " ");
            contains_word(&normalized, &w_norm) || contains_word(&haystack, w)
        });
        let value_secret = element
            .layout()
            .value
            .as_deref()
            .or_else(|| e.attr("value"))
            .is_some_and(|v| !redact_text(v).1.eq(&0));
        out[element.id().index()] = hit || value_secret;
    }
    out
}

fn contains_word(haystack: &str, word: &str) -> bool {
    let mut start = 0;
    while let Some(pos) = haystack[start..].find(word) {
        let at = start + pos;
        let before = haystack[..at].chars().next_back();
        let after = haystack[at + word.len()..].chars().next();
        let boundary = |c: Option<char>| c.is_none_or(|c| !c.is_ascii_alphanumeric());
        if boundary(before) && boundary(after) {
            return true;
        }
        start = at + word.len().max(1);
        if start >= haystack.len() {
            break;
        }
    }
    false
}

/// Replaces secret-looking tokens (JWTs, API keys, long high-entropy
/// strings, Luhn-valid card numbers, US SSNs) in free text. Returns the text
/// and the number of replacements.
pub fn redact_text(text: &str) -> (String, usize) {
    // Card numbers and SSNs span spaces/dashes, so check them over digit runs first.
    let mut out = String::with_capacity(text.len());
    let mut count = 0;
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_ascii_digit() && (i == 0 || !chars[i - 1].is_ascii_alphanumeric()) {
            // Longest run of digits with single spaces/dashes between groups.
            let mut j = i;
            let mut digits = String::new();
            let mut end = i;
            while j < chars.len() {
                let c = chars[j];
                if c.is_ascii_digit() {
                    digits.push(c);
                    end = j + 1;
                } else if (c == ' ' || c == '-')
                    && j + 1 < chars.len()
                    && chars[j + 1].is_ascii_digit()
                    && !digits.is_empty()
                {
                } else {
                    break;
                }
                j += 1;
            }
            let run: String = chars[i..end].iter().collect();
            let boundary_after = chars.get(end).is_none_or(|c| !c.is_ascii_alphanumeric());
            if boundary_after && (is_card(&digits) || is_ssn(&run)) {
                out.push_str(REDACTED);
                count += 1;
                i = end;
                continue;
            }
        }
        // Whitespace-delimited tokens.
        if !chars[i].is_whitespace() && (i == 0 || chars[i - 1].is_whitespace()) {
            let mut j = i;
            while j < chars.len() && !chars[j].is_whitespace() {
                j += 1;
            }
            let token: String = chars[i..j].iter().collect();
            let trimmed = token.trim_matches(|c: char| "\"'()[]{}<>,;.!?".contains(c));
            if looks_secret(trimmed) {
                let start = token.find(trimmed).unwrap_or(0);
                out.push_str(&token[..start]);
                out.push_str(REDACTED);
                out.push_str(&token[start + trimmed.len()..]);
                count += 1;
                i = j;
                continue;
            }
            // Secrets inside URLs and key=value pairs (`/t?token=eyJ…&a=1`).
            let (pieces, n) = redact_pieces(&token);
            if n > 0 {
                out.push_str(&pieces);
                count += n;
                i = j;
                continue;
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    (out, count)
}

/// Redacts the secret-looking pieces of a token split at URL and
/// key-value delimiters.
fn redact_pieces(token: &str) -> (String, usize) {
    let mut out = String::with_capacity(token.len());
    let mut count = 0;
    let mut piece = String::new();
    let flush = |piece: &mut String, out: &mut String, count: &mut usize| {
        if looks_secret(piece) {
            out.push_str(REDACTED);
            *count += 1;
        } else {
            out.push_str(piece);
        }
        piece.clear();
    };
    for c in token.chars() {
        if "/?&=#:;,'\"()<>[]{}".contains(c) {
            flush(&mut piece, &mut out, &mut count);
            out.push(c);
        } else {
            piece.push(c);
        }
    }
    flush(&mut piece, &mut out, &mut count);
    (out, count)
}

/// A single token that looks like a credential.
pub fn looks_secret(token: &str) -> bool {
    if token.len() < 12 {
        return false;
    }
    // JWT: three base64url segments, header starting with `eyJ`.
    let parts: Vec<&str> = token.split('.').collect();
    if parts.len() == 3
        && parts[0].starts_with("eyJ")
        && parts
            .iter()
            .all(|p| p.len() >= 4 && p.chars().all(is_b64url))
    {
        return true;
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
    if PREFIXES.iter().any(|p| token.starts_with(p))
        && token.len() >= 16
        && token.chars().all(|c| is_b64url(c) || c == '-')
    {
        return true;
    }
    // Long high-entropy strings mixing letters and digits (not URLs, paths or words).
    if token.len() >= 24
        && token
            .chars()
            .all(|c| is_b64url(c) || c == '+' || c == '/' || c == '=')
        && !token.contains("//")
        && token.chars().any(|c| c.is_ascii_digit())
        && token.chars().any(|c| c.is_ascii_alphabetic())
        && entropy(token) >= 3.5
    {
        return true;
    }
    false
}

fn is_b64url(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

fn entropy(token: &str) -> f64 {
    let mut counts = [0u32; 256];
    for b in token.bytes() {
        counts[b as usize] += 1;
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
}

/// 13–19 digits passing the Luhn check.
fn is_card(digits: &str) -> bool {
    if !(13..=19).contains(&digits.len()) {
        return false;
    }
    let mut sum = 0;
    for (i, c) in digits.chars().rev().enumerate() {
        let mut d = c.to_digit(10).unwrap_or(0);
        if i % 2 == 1 {
            d *= 2;
            if d > 9 {
                d -= 9;
            }
        }
        sum += d;
    }
    sum % 10 == 0
}

/// `ddd-dd-dddd`.
fn is_ssn(run: &str) -> bool {
    let parts: Vec<&str> = run.split('-').collect();
    parts.len() == 3
        && parts[0].len() == 3
        && parts[1].len() == 2
        && parts[2].len() == 4
        && parts.iter().all(|p| p.chars().all(|c| c.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_each_kind_of_secret() {
        let cases = [
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c",
            "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
            "4242 4242 4242 4242",
            "4242-4242-4242-4242",
            "078-05-1120",
        ];
        for secret in cases {
            let (out, n) = redact_text(&format!("token: {secret}."));
            assert_eq!(n, 1, "{secret}");
            assert!(!out.contains(secret) && out.contains(REDACTED), "{out}");
        }
    }

    #[test]
    fn redacts_secrets_inside_urls() {
        let (out, n) = redact_text(
            "/callback?token=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcDEF123_-x&next=/home",
        );
        assert_eq!(n, 1);
        assert_eq!(out, "/callback?token=[redacted]&next=/home");
    }

    #[test]
    fn leaves_ordinary_text_alone() {
        for text in [
            "Call 555-1234 or 2024-11-22",
            "Order #123456 total 42.50",
            "https://example.com/a/very/long/path/that-is-not-a-secret",
            "internationalization",
            "4242 4242 4242 4241",
        ] {
            assert_eq!(redact_text(text), (text.to_owned(), 0), "{text}");
        }
    }
}
