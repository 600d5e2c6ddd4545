//! Model backends: one chat call to a language model (OpenAI-compatible, Anthropic, or a cassette of either).
//!
//! LLM agents (`agent/llm.rs`) and the LLM judge (`judge/llm.rs`) both speak to
//! a model through [`Backend`]: a provider-neutral [`ChatRequest`] in, a
//! [`ChatReply`] out. A backend owns the wire format, timeouts, retries with
//! backoff, `Retry-After` and its provider's concurrency limit; a call that
//! still fails returns a [`CallError`] naming the fault, which the runner
//! records on that step's row — never a crash of the run.

use serde::{Deserialize, Serialize};

/// One part of the user message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Part {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// A PNG image (the `som` screenshot), sent as an image part.
    Png {
        /// Base64 of the PNG bytes.
        base64: String,
    },
}

/// A provider-neutral chat request: a system prompt and one user turn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// System prompt.
    pub system: String,
    /// The user turn's parts, in order.
    pub user: Vec<Part>,
    /// Output token limit.
    pub max_tokens: u32,
    /// Sampling temperature (0 for evaluation).
    pub temperature: f32,
    /// JSON schema the answer must follow, when the server supports structured output.
    pub schema: Option<serde_json::Value>,
}

/// A model's answer.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatReply {
    /// The answer text.
    pub text: String,
    /// Input tokens as the provider counted them (`usage`).
    pub input_tokens: usize,
    /// Output tokens as the provider counted them.
    pub output_tokens: usize,
    /// Wall time of the call, retries included, in µs.
    pub latency_us: u64,
    /// Attempts beyond the first.
    pub retries: u32,
}

/// Why a call failed after its retries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// HTTP 429 until the retries ran out.
    RateLimited,
    /// HTTP 5xx until the retries ran out.
    Server,
    /// Another HTTP status (400, 401, 404, …): not retried.
    Http,
    /// No answer within the timeout.
    Timeout,
    /// Connection refused or reset.
    Connection,
    /// The body was not the provider's JSON shape.
    Malformed,
    /// A cassette in replay mode has no exchange for the request.
    CassetteMiss,
}

impl FaultKind {
    /// The word used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            FaultKind::RateLimited => "rate_limited",
            FaultKind::Server => "server",
            FaultKind::Http => "http",
            FaultKind::Timeout => "timeout",
            FaultKind::Connection => "connection",
            FaultKind::Malformed => "malformed",
            FaultKind::CassetteMiss => "cassette_miss",
        }
    }
}

/// A failed call.
#[derive(Clone, Debug, PartialEq)]
pub struct CallError {
    /// What kind of fault.
    pub kind: FaultKind,
    /// A message for the row's `error` column (never an API key or auth header).
    pub message: String,
    /// Attempts beyond the first.
    pub retries: u32,
    /// Wall time spent, retries included, in µs.
    pub latency_us: u64,
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {} (after {} retries)",
            self.kind.as_str(),
            self.message,
            self.retries
        )
    }
}

impl std::error::Error for CallError {}

/// A language model behind some wire format.
pub trait Backend: Send + Sync {
    /// `provider:model` as shown in reports (`openai:gpt-4o-mini`).
    fn label(&self) -> String;
    /// One chat call, with the backend's retries.
    fn complete(&self, request: &ChatRequest) -> Result<ChatReply, CallError>;
}
