//! `anthropic:MODEL`: the Anthropic Messages API wire format.
//!
//! POST `{base}/v1/messages` with `x-api-key` and `anthropic-version:
//! 2023-06-01`; the system prompt is the top-level `system`, a [`Part::Png`]
//! becomes an `{type: "image", source: {type: "base64", media_type:
//! "image/png", data}}` block. The Messages API has no JSON-schema response
//! format at this version, so the schema is left to the prompt and the
//! agent's tolerant parser. The answer is the concatenated `text` blocks of
//! `content`; tokens come from `usage.input_tokens` and `usage.output_tokens`.

use serde_json::{Value, json};

use super::backend::{Backend, CallError, ChatReply, ChatRequest, FaultKind, Part};
use super::http::Http;
use super::openai::{endpoint, snippet};

/// The API version header sent with every request.
pub const VERSION: &str = "2023-06-01";

/// An Anthropic Messages API server.
pub struct Anthropic {
    model: String,
    url: String,
    key: Option<String>,
    http: Http,
}

impl Anthropic {
    /// A backend for `model` at `base` (`https://api.anthropic.com`).
    pub fn new(model: &str, base: &str, key: Option<String>, http: Http) -> Anthropic {
        Anthropic {
            model: model.to_owned(),
            url: endpoint(base, "messages"),
            key,
            http,
        }
    }

    fn body(&self, request: &ChatRequest) -> Value {
        let content: Vec<Value> = request
            .user
            .iter()
            .map(|part| match part {
                Part::Text { text } => json!({"type": "text", "text": text}),
                Part::Png { base64 } => json!({
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": base64},
                }),
            })
            .collect();
        json!({
            "model": self.model,
            "system": request.system,
            "messages": [{"role": "user", "content": content}],
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
        })
    }
}

impl Backend for Anthropic {
    fn label(&self) -> String {
        format!("anthropic:{}", self.model)
    }

    fn complete(&self, request: &ChatRequest) -> Result<ChatReply, CallError> {
        let mut headers = vec![("anthropic-version", VERSION.to_owned())];
        if let Some(key) = &self.key {
            headers.push(("x-api-key", key.clone()));
        }
        let success = self
            .http
            .post_json(&self.url, &headers, &self.body(request))
            .map_err(|failure| failure.error)?;
        match read_reply(&success.body) {
            Ok((text, input_tokens, output_tokens)) => Ok(ChatReply {
                text,
                input_tokens,
                output_tokens,
                latency_us: success.latency_us,
                retries: success.retries,
            }),
            Err(why) => Err(CallError {
                kind: FaultKind::Malformed,
                message: self.http.redact(&format!("POST {}: {why}", self.url)),
                retries: success.retries,
                latency_us: success.latency_us,
            }),
        }
    }
}

/// The answer text and usage of a Messages API body.
fn read_reply(body: &str) -> Result<(String, usize, usize), String> {
    let value: Value = serde_json::from_str(body)
        .map_err(|err| format!("the reply is not JSON ({err}): {}", snippet(body)))?;
    let Some(blocks) = value["content"].as_array() else {
        return Err(format!("no content array in the reply: {}", snippet(body)));
    };
    let text = blocks
        .iter()
        .filter(|b| b["type"] == "text")
        .filter_map(|b| b["text"].as_str())
        .collect::<Vec<_>>()
        .join("");
    let count = |field: &str| {
        value["usage"][field]
            .as_u64()
            .map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX))
    };
    Ok((text, count("input_tokens"), count("output_tokens")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_text_blocks_and_usage() {
        let body = r#"{"id":"msg_1","type":"message","role":"assistant",
            "content":[{"type":"text","text":"{\"op\":"},{"type":"text","text":"\"done\"}"}],
            "stop_reason":"end_turn","usage":{"input_tokens":40,"output_tokens":7}}"#;
        assert_eq!(read_reply(body), Ok(("{\"op\":\"done\"}".into(), 40, 7)));
        assert!(
            read_reply(r#"{"type":"error"}"#)
                .unwrap_err()
                .contains("no content")
        );
        assert!(read_reply("<html>").unwrap_err().contains("not JSON"));
    }
}
