//! The PEM recogniser: private key blocks (RFC 7468), whole or cut, never certificates or public keys.

/// The end of a PEM private key block (RFC 7468: `-----BEGIN … PRIVATE
/// KEY-----` … `-----END … PRIVATE KEY-----`, RSA, EC, OpenSSH and
/// encrypted keys alike) starting at `start`; a block cut off before its end
/// line runs to the end of the text. Certificates and public keys are not
/// secrets and stay. Linear: a block is searched for its end once, and the
/// scan resumes past it.
pub(super) fn pem_private_key_end(text: &str, start: usize) -> Option<usize> {
    let body = private_key_line(text, start, "-----BEGIN ")?;
    let Some(end_line) = text[body..].find("-----END ") else {
        return Some(text.len());
    };
    let after_end = body + end_line + "-----END ".len();
    Some(
        text[after_end..]
            .find(DASHES)
            .map_or(text.len(), |k| after_end + k + DASHES.len()),
    )
}

/// The dashes that open a PEM line.
const DASHES: &str = "-----";

/// The end of a private key's PEM line at `at` opening with `opener`
/// (`-----BEGIN `, `-----END `): its label ends at the next dashes, on the
/// same line, in `PRIVATE KEY`.
fn private_key_line(text: &str, at: usize, opener: &str) -> Option<usize> {
    let rest = text.get(at..)?.strip_prefix(opener)?;
    let label_len = rest.find(DASHES)?;
    let label = &rest[..label_len];
    if label.contains('\n') || !label.ends_with("PRIVATE KEY") {
        return None;
    }
    Some(at + opener.len() + label_len + DASHES.len())
}

/// A PEM private key's end line at `at` (`-----END … PRIVATE KEY-----`)
/// whose begin line is not in the text: the range from the first of the
/// base64 lines just before it (not before `floor`, where the previous
/// secret found ends) to the end of the end line.
pub(super) fn pem_tail(text: &str, at: usize, floor: usize) -> Option<(usize, usize)> {
    let end = private_key_line(text, at, "-----END ")?;
    let base64 = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=');
    let bytes = text.as_bytes();
    let mut start = at;
    // Back over whitespace and base64 words, never past `floor`.
    let mut k = at;
    while k > floor {
        let b = bytes[k - 1];
        if b.is_ascii_whitespace() {
            k -= 1;
        } else if base64(b) {
            while k > floor && base64(bytes[k - 1]) {
                k -= 1;
            }
            start = k;
        } else {
            break;
        }
    }
    Some((start, end))
}

#[cfg(test)]
mod tests {
    use super::super::redact_text;

    #[test]
    fn redacts_pem_private_key_blocks_whole_and_leaves_certificates() {
        let key = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi\nPkPBzGSZP7YinomS\n-----END RSA PRIVATE KEY-----";
        let (out, n) = redact_text(&format!("key:\n{key}\nrotate it"));
        assert_eq!((out.as_str(), n), ("key:\n[redacted]\nrotate it", 1));
        // Flattened into one line (an accessible name), or cut off.
        let flat = key.replace('\n', " ");
        assert_eq!(redact_text(&flat), ("[redacted]".to_owned(), 1));
        let cut = &key[..60];
        assert_eq!(redact_text(cut), ("[redacted]".to_owned(), 1));
        // The last words of a page, its begin line cut off.
        let tail =
            "Signing key | 9yIJX6uF/AAbc+ PkPBzGSZP7YinomS -----END PRIVATE KEY----- Rotate it";
        assert_eq!(
            redact_text(tail),
            ("Signing key | [redacted] Rotate it".to_owned(), 1)
        );
        for text in [
            "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
            "-----BEGIN PUBLIC KEY----- MIIB -----END PUBLIC KEY-----",
            "----- a rule of dashes -----",
        ] {
            assert_eq!(redact_text(text), (text.to_owned(), 0), "{text}");
        }
    }
}
