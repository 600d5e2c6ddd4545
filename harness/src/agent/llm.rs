//! LLM agents: a model [`Backend`] plus the prompt templates and the tolerant parser, as an [`Agent`]; and the backend factory `openai:MODEL` / `anthropic:MODEL` shared with the LLM judge.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Result, bail};

use super::backend::{Backend, FaultKind};
use super::cassette::{self, Cassette};
use super::http::{Http, HttpOptions};
use super::price::{Price, Prices};
use super::provider::Provider;
use super::{Agent, Request, Response, parse, prompt};

/// How model agents (and the LLM judge) reach their provider.
#[derive(Clone, Debug)]
pub struct AgentOptions {
    /// Base URL; default: `OPENAI_BASE_URL` / `ANTHROPIC_BASE_URL`, else the provider's.
    pub base_url: Option<String>,
    /// Name of the environment variable holding the API key (default `OPENAI_API_KEY` / `ANTHROPIC_API_KEY`).
    pub api_key_env: Option<String>,
    /// Timeouts, retries, backoff and concurrency.
    pub http: HttpOptions,
    /// Price table overriding `harness/prices.toml`.
    pub prices: Option<PathBuf>,
    /// Record or replay a cassette.
    pub cassette: Option<cassette::Mode>,
    /// The cassette file.
    pub cassette_file: PathBuf,
}

impl Default for AgentOptions {
    fn default() -> Self {
        AgentOptions {
            base_url: None,
            api_key_env: None,
            http: HttpOptions::default(),
            prices: None,
            cassette: None,
            cassette_file: PathBuf::from("cassette.jsonl"),
        }
    }
}

/// A model backend for `openai:MODEL` or `anthropic:MODEL`, wrapped in a
/// cassette when `options.cassette` is set.
pub fn backend_from_spec(spec: &str, options: &AgentOptions) -> Result<Box<dyn Backend>> {
    let Some((name, model)) = spec.split_once(':') else {
        bail!(
            "unknown model {spec:?} (known: {})",
            Provider::spellings("")
        );
    };
    if model.trim().is_empty() {
        bail!("{spec:?} names no model (write {name}:MODEL)");
    }
    let Some(provider) = Provider::by_name(name) else {
        bail!(
            "unknown provider {name:?} in {spec:?} (known: {})",
            Provider::spellings("")
        );
    };
    let profile = provider.profile();
    if options.cassette == Some(cassette::Mode::Replay) {
        return Ok(Box::new(Cassette::replay(spec, &options.cassette_file)?));
    }
    let base = options
        .base_url
        .clone()
        .or_else(|| {
            std::env::var(profile.base_url_env)
                .ok()
                .filter(|b| !b.is_empty())
        })
        .unwrap_or_else(|| profile.default_base_url.to_owned());
    let key_env = options
        .api_key_env
        .as_deref()
        .unwrap_or(profile.api_key_env);
    let key = std::env::var(key_env).ok().filter(|k| !k.is_empty());
    if key.is_none() {
        eprintln!("note: {key_env} is not set; calling {base} without an API key");
    }
    let http = Http::new(&base, options.http.clone(), key.iter().cloned().collect());
    let backend = (profile.connect)(model, &base, key, http);
    match options.cassette {
        Some(cassette::Mode::Record) => {
            Ok(Box::new(Cassette::record(backend, &options.cassette_file)?))
        }
        _ => Ok(backend),
    }
}

/// An agent that asks a language model.
pub struct LlmAgent {
    backend: Box<dyn Backend>,
    price: Option<Price>,
}

impl LlmAgent {
    /// The agent for `spec` (`openai:gpt-4o-mini`).
    pub fn from_spec(spec: &str, options: &AgentOptions) -> Result<LlmAgent> {
        let backend = backend_from_spec(spec, options)?;
        let price = Prices::load(options.prices.as_deref())?.get(&backend.label());
        if price.is_none() {
            eprintln!(
                "note: no price for {} in the price table; its cost_usd is 0",
                backend.label()
            );
        }
        Ok(LlmAgent { backend, price })
    }
}

impl Agent for LlmAgent {
    fn name(&self) -> String {
        self.backend.label()
    }

    fn prompt(&self, request: &Request<'_>) -> Option<crate::agent::backend::ChatRequest> {
        Some(prompt::chat_request(request))
    }

    fn act(&self, request: &Request<'_>) -> Result<Response> {
        let chat = prompt::chat_request(request);
        let reply = match self.backend.complete(&chat) {
            Ok(reply) => reply,
            Err(err) if err.kind == FaultKind::CassetteMiss => bail!("{}", err.message),
            Err(err) => {
                return Ok(Response {
                    latency_us: err.latency_us,
                    retries: err.retries,
                    fault: Some(err),
                    ..Response::default()
                });
            }
        };
        let refs: Vec<&str> = request.refs.iter().map(|r| r.reference.as_str()).collect();
        let (action, invalid) = match parse::parse(&reply.text, &refs) {
            Ok(action) => (Some(action), None),
            Err(why) => (None, Some(why)),
        };
        Ok(Response {
            action,
            invalid,
            cost_usd: self
                .price
                .map_or(0.0, |p| p.cost(reply.input_tokens, reply.output_tokens)),
            raw: reply.text,
            input_tokens: reply.input_tokens,
            output_tokens: reply.output_tokens,
            latency_us: reply.latency_us,
            retries: reply.retries,
            fault: None,
        })
    }
}

/// `--timeout` seconds as a duration (rejects negative and non-finite values).
pub fn timeout(seconds: f64) -> Result<Duration> {
    if !(seconds.is_finite() && seconds > 0.0) {
        bail!("--timeout must be a positive number of seconds, not {seconds}");
    }
    Ok(Duration::from_secs_f64(seconds))
}
