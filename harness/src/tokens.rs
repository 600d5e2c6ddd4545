//! Real token counts with OpenAI's tokenizers (o200k_base, cl100k_base; tables embedded in tiktoken-rs, no network), and the size of an observation in them.

use pagesnap_engine::observation::Observation;

/// What an observation costs the model: its refs, its text under both
/// tokenizers and its image (OpenAI's formula).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ObservationSize {
    /// Refs in the observation.
    pub refs: usize,
    /// Text tokens, o200k_base.
    pub o200k: usize,
    /// Text tokens, cl100k_base.
    pub cl100k: usize,
    /// Image tokens (OpenAI formula); 0 without an image.
    pub image: u32,
}

impl ObservationSize {
    /// Counts `observation`.
    pub fn of(observation: &Observation) -> ObservationSize {
        ObservationSize {
            refs: observation.refs.len(),
            o200k: o200k(&observation.text),
            cl100k: cl100k(&observation.text),
            image: observation
                .meta
                .image
                .as_ref()
                .map_or(0, |i| i.openai_tokens),
        }
    }
}

// One tokenizer per thread, built on first use. The shared singletons'
// regexes keep one scratch pool that every thread but its first user reaches
// through a lock: with `--jobs 2` two workers spent their time queueing
// there (a run took 2.9 s of wall time against 3.2 s on one thread, at twice
// the CPU). A worker builds its own tables once (tens of ms).
thread_local! {
    static O200K: Option<tiktoken_rs::CoreBPE> = tiktoken_rs::o200k_base().ok();
    static CL100K: Option<tiktoken_rs::CoreBPE> = tiktoken_rs::cl100k_base().ok();
}

/// Tokens of `text` under o200k_base (GPT-4o and later).
pub fn o200k(text: &str) -> usize {
    O200K.with(|bpe| match bpe {
        Some(bpe) => bpe.encode_with_special_tokens(text).len(),
        // The tables are embedded: building them cannot fail short of a
        // broken build; the shared tokenizer still counts.
        None => tiktoken_rs::o200k_base_singleton()
            .encode_with_special_tokens(text)
            .len(),
    })
}

/// Tokens of `text` under cl100k_base (GPT-4, GPT-3.5).
pub fn cl100k(text: &str) -> usize {
    CL100K.with(|bpe| match bpe {
        Some(bpe) => bpe.encode_with_special_tokens(text).len(),
        None => tiktoken_rs::cl100k_base_singleton()
            .encode_with_special_tokens(text)
            .len(),
    })
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
