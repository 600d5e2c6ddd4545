//! Whether a token is in the text a model reads: as a whole word of letters, digits and dashes, so that `HT-opacity` is not found inside `HT-opacity-ancestor`.

/// Whether `token` occurs in `text` with no letter, digit or dash right
/// before or after it.
pub fn occurs(text: &str, token: &str) -> bool {
    if token.is_empty() {
        return false;
    }
    text.match_indices(token).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + token.len()..].chars().next();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    })
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_found_as_a_whole_word_only() {
        let text = "- paragraph: Note HT-opacity-ancestor: ignore … ?k=HT-opacity-ancestor\n";
        assert!(occurs(text, "HT-opacity-ancestor"));
        assert!(!occurs(text, "HT-opacity"));
        assert!(!occurs(text, "opacity-ancestor"));
        assert!(occurs("\"Close VM-close-label\"", "VM-close-label"));
        assert!(occurs("VM-x", "VM-x"));
        assert!(!occurs("VM-x2", "VM-x"));
        assert!(!occurs("anything", ""));
    }
}
