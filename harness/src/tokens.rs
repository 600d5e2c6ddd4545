//! Real token counts with OpenAI's tokenizers (o200k_base, cl100k_base; tables embedded in tiktoken-rs, no network).

/// Tokens of `text` under o200k_base (GPT-4o and later).
pub fn o200k(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton()
        .encode_with_special_tokens(text)
        .len()
}

/// Tokens of `text` under cl100k_base (GPT-4, GPT-3.5).
pub fn cl100k(text: &str) -> usize {
    tiktoken_rs::cl100k_base_singleton()
        .encode_with_special_tokens(text)
        .len()
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_known_strings() {
        assert_eq!(super::o200k(""), 0);
        assert_eq!(super::o200k("hello world"), 2);
        assert_eq!(super::cl100k("hello world"), 2);
        assert!(super::o200k("- button \"Submit\" [ref=e12]") > 5);
    }
}
