//! `openai:MODEL`: the OpenAI-compatible chat completions wire format (OpenAI, vLLM, Ollama, llama.cpp's llama-server, OpenRouter).
//!
//! POST `{base}/v1/chat/completions` with a system and a user message; a
//! [`Part::Png`] becomes an `image_url` part holding a `data:image/png;base64,…`
//! URL. With a schema the request asks for structured output
//! (`response_format: {type: "json_schema", json_schema: {name, schema,
//! strict: true}}`); a server that rejects it with a 400 mentioning
//! `response_format` or `json_schema` gets the request again without it, and
//! is not asked again for the rest of the run (the agent's tolerant parser
//! reads free text). Likewise a 400 asking for `max_completion_tokens`
//! instead of `max_tokens`, or rejecting `temperature` (OpenAI's reasoning
//! models), switches that parameter for the rest of the run; each switch
//! happens once, and its extra request counts as a retry. Tokens come from
//! `usage.prompt_tokens` and `usage.completion_tokens`.

use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Value, json};

use super::backend::{Backend, CallError, ChatReply, ChatRequest, FaultKind, Part};
use super::http::{Failure, Http};

/// An OpenAI-compatible server.
pub struct OpenAi {
    model: String,
    url: String,
    key: Option<String>,
    http: Http,
    /// Cleared when the server rejected `response_format`.
    structured: AtomicBool,
    /// Set when the server wants `max_completion_tokens` instead of `max_tokens`.
    completion_tokens: AtomicBool,
    /// Cleared when the server rejected `temperature`.
    temperature: AtomicBool,
}

/// The request parameters a server accepts, as learnt during the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Compat {
    structured: bool,
    completion_tokens: bool,
    temperature: bool,
}

impl OpenAi {
    /// A backend for `model` at `base` (`https://api.openai.com`; a trailing `/v1` is accepted).
    pub fn new(model: &str, base: &str, key: Option<String>, http: Http) -> OpenAi {
        OpenAi {
            model: model.to_owned(),
            url: endpoint(base, "chat/completions"),
            key,
            http,
            structured: AtomicBool::new(true),
            completion_tokens: AtomicBool::new(false),
            temperature: AtomicBool::new(true),
        }
    }

    fn compat(&self) -> Compat {
        Compat {
            structured: self.structured.load(Ordering::Relaxed),
            completion_tokens: self.completion_tokens.load(Ordering::Relaxed),
            temperature: self.temperature.load(Ordering::Relaxed),
        }
    }

    /// Learns from a 400 what the server does not accept; `false` when the
    /// error is about something else (or was learnt already).
    fn adapt(&self, failure: &Failure, request: &ChatRequest, compat: Compat) -> bool {
        if failure.status != Some(400) {
            return false;
        }
        let body = &failure.body;
        let (flag, value, what) = if compat.structured
            && request.schema.is_some()
            && (body.contains("response_format") || body.contains("json_schema"))
        {
            (&self.structured, false, "response_format")
        } else if !compat.completion_tokens && body.contains("max_completion_tokens") {
            (&self.completion_tokens, true, "max_tokens")
        } else if compat.temperature && body.contains("temperature") {
            (&self.temperature, false, "temperature")
        } else {
            return false;
        };
        flag.store(value, Ordering::Relaxed);
        eprintln!(
            "note: {} rejected {what} (HTTP 400); adapting the request for the rest of the run",
            self.label()
        );
        true
    }

    fn body(&self, request: &ChatRequest, compat: Compat) -> Value {
        let content: Vec<Value> = request
            .user
            .iter()
            .map(|part| match part {
                Part::Text { text } => json!({"type": "text", "text": text}),
                Part::Png { base64 } => json!({
                    "type": "image_url",
                    "image_url": {"url": format!("data:image/png;base64,{base64}")},
                }),
            })
            .collect();
        let mut body = json!({
            "model": self.model,
            "messages": [
                {"role": "system", "content": request.system},
                {"role": "user", "content": content},
            ],
        });
        let tokens = if compat.completion_tokens {
            "max_completion_tokens"
        } else {
            "max_tokens"
        };
        body[tokens] = json!(request.max_tokens);
        if compat.temperature {
            body["temperature"] = json!(request.temperature);
        }
        if let (true, Some(schema)) = (compat.structured, &request.schema) {
            body["response_format"] = json!({
                "type": "json_schema",
                "json_schema": {"name": "action", "schema": schema, "strict": true},
            });
        }
        body
    }

    fn post(&self, request: &ChatRequest, compat: Compat) -> Result<ChatReply, Failure> {
        let mut headers = Vec::new();
        if let Some(key) = &self.key {
            headers.push(("authorization", format!("Bearer {key}")));
        }
        let success = self
            .http
            .post_json(&self.url, &headers, &self.body(request, compat))?;
        read_reply(&success.body)
            .map(|(text, input_tokens, output_tokens)| ChatReply {
                text,
                input_tokens,
                output_tokens,
                latency_us: success.latency_us,
                retries: success.retries,
            })
            .map_err(|why| Failure {
                status: Some(200),
                body: String::new(),
                error: CallError {
                    kind: FaultKind::Malformed,
                    message: self.http.redact(&format!("POST {}: {why}", self.url)),
                    retries: success.retries,
                    latency_us: success.latency_us,
                },
            })
    }
}

impl Backend for OpenAi {
    fn label(&self) -> String {
        format!("openai:{}", self.model)
    }

    fn complete(&self, request: &ChatRequest) -> Result<ChatReply, CallError> {
        // Requests already spent on adapting to the server: (retries, µs).
        let mut spent = (0, 0);
        loop {
            let compat = self.compat();
            let result = self.post(request, compat);
            match result {
                Err(failure) if self.adapt(&failure, request, compat) => {
                    spent.0 += failure.error.retries + 1;
                    spent.1 += failure.error.latency_us;
                }
                Ok(mut reply) => {
                    reply.retries += spent.0;
                    reply.latency_us += spent.1;
                    return Ok(reply);
                }
                Err(failure) => {
                    let mut error = failure.error;
                    error.retries += spent.0;
                    error.latency_us += spent.1;
                    return Err(error);
                }
            }
        }
    }
}

/// `{base}/v1/{path}`, without doubling a `/v1` the base already ends with.
pub fn endpoint(base: &str, path: &str) -> String {
    let base = base.trim_end_matches('/');
    if base.ends_with("/v1") {
        format!("{base}/{path}")
    } else {
        format!("{base}/v1/{path}")
    }
}

/// The answer text and usage of a chat completion body.
fn read_reply(body: &str) -> Result<(String, usize, usize), String> {
    let value: Value = serde_json::from_str(body)
        .map_err(|err| format!("the reply is not JSON ({err}): {}", snippet(body)))?;
    let message = &value["choices"][0]["message"];
    let text = match &message["content"] {
        Value::String(text) => text.clone(),
        // Some servers answer with content parts.
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join(""),
        _ => {
            let refusal = message["refusal"].as_str().unwrap_or("");
            return Err(format!(
                "no choices[0].message.content in the reply{}: {}",
                if refusal.is_empty() { "" } else { " (refused)" },
                snippet(body)
            ));
        }
    };
    let count = |field: &str| {
        value["usage"][field]
            .as_u64()
            .map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX))
    };
    Ok((text, count("prompt_tokens"), count("completion_tokens")))
}

/// The start of a body, for messages.
pub fn snippet(body: &str) -> String {
    let cut: String = body.chars().take(200).collect();
    cut.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints() {
        assert_eq!(
            endpoint("https://api.openai.com", "chat/completions"),
            "https://api.openai.com/v1/chat/completions"
        );
        assert_eq!(
            endpoint("http://127.0.0.1:8080/v1/", "chat/completions"),
            "http://127.0.0.1:8080/v1/chat/completions"
        );
        assert_eq!(
            endpoint("https://openrouter.ai/api", "chat/completions"),
            "https://openrouter.ai/api/v1/chat/completions"
        );
    }

    #[test]
    fn reads_string_and_part_content() {
        let body = r#"{"choices":[{"message":{"role":"assistant","content":"{\"op\":\"done\"}"}}],
            "usage":{"prompt_tokens":12,"completion_tokens":3}}"#;
        assert_eq!(read_reply(body), Ok(("{\"op\":\"done\"}".into(), 12, 3)));
        let body = r#"{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}]}"#;
        assert_eq!(read_reply(body), Ok(("ab".into(), 0, 0)));
        assert!(read_reply("{oops").unwrap_err().contains("not JSON"));
        assert!(
            read_reply(r#"{"choices":[]}"#)
                .unwrap_err()
                .contains("no choices[0].message.content")
        );
    }
}
