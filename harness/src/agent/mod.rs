//! Agents: given an instruction and an observation, choose the next action.
//!
//! One [`Agent`] trait; the runner builds a [`Request`] per step and judges the
//! [`Response`]. Implementations: [`baseline::Baseline`] (embedded,
//! deterministic, no network, reads the meta's ref list), [`reader::Reader`]
//! (the same, reading only the observation's text) and [`llm::LlmAgent`] (`openai:MODEL`,
//! `anthropic:MODEL`, optionally through a cassette). Agents are picked by
//! name with [`by_name`]; the LLM judge gets its model with
//! [`backend_from_spec`].

mod anthropic;
pub mod backend;
pub mod baseline;
pub mod cassette;
mod dialog;
pub mod http;
mod instruction;
pub mod llm;
mod openai;
mod parse;
pub mod price;
mod prompt;
pub mod provider;
pub mod reader;

pub use llm::{AgentOptions, backend_from_spec};
pub use provider::Provider;

use anyhow::{Result, bail};
use pagesnap_engine::observation::{Item, Observation};
use serde::{Deserialize, Serialize};

/// The action vocabulary, the browser crate's one op enum (agents offer all
/// of it, `done` included).
pub use pagesnap_browser::Op;

/// Whether the op acts on an element (click, type, select), which a replay
/// step then names as its target and an action by its ref (the Mind2Web
/// operations; live runs' other ops name no target).
pub fn targets_element(op: Op) -> bool {
    matches!(op, Op::Click | Op::Type | Op::Select)
}

/// What an agent is asked at one step; it borrows the observation it shows.
#[derive(Clone, Copy, Debug)]
pub struct Request<'a> {
    /// The task's instruction.
    pub instruction: &'a str,
    /// The strategy that produced the observation.
    pub strategy: &'a str,
    /// The observation text.
    pub observation: &'a str,
    /// The observation's refs in order, with their meta (role, name, states,
    /// zone, nearby text), as the engine describes them.
    pub refs: &'a [Item],
    /// Actions already taken in this task, oldest first.
    pub history: &'a [Action],
    /// The `som` screenshot with its marks (PNG), sent as an image part.
    pub image_png: Option<&'a [u8]>,
    /// Live runs: what became of the previous action when it could not run
    /// as asked (a covered element, a stale ref) or ran with a caveat, as a
    /// sentence shown to the agent.
    pub feedback: Option<&'a str>,
    /// A live run: the page is real, so the agent may also press keys and
    /// scroll containers (`prompts/live.md`).
    pub live: bool,
    /// The JavaScript dialog the page waits on (the observation is that dialog alone).
    pub dialog: Option<&'a pagesnap_engine::dialog::Dialog>,
}

impl<'a> Request<'a> {
    /// The request to act on `observation` (rendered by `strategy`) after `history`.
    pub fn new(
        instruction: &'a str,
        strategy: &'a str,
        observation: &'a Observation,
        history: &'a [Action],
    ) -> Request<'a> {
        Request {
            instruction,
            strategy,
            observation: &observation.text,
            refs: &observation.meta.items,
            history,
            image_png: observation.image.as_ref().map(|i| i.png.as_slice()),
            feedback: None,
            live: false,
            dialog: observation.meta.dialog.as_ref(),
        }
    }
}

/// An action.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Action {
    /// Operation.
    pub op: Op,
    /// The ref acted on (click / type / select).
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    /// Typed or selected value.
    pub value: Option<String>,
}

/// An agent's answer.
///
/// A step whose call failed (after retries) or whose output could not be read
/// as an action still gets a `Response`: `action` is `None` and `fault` or
/// `invalid` says why, so the runner records it as that step's outcome.
#[derive(Clone, Debug, Default)]
pub struct Response {
    /// The parsed action; `None` when the call failed or the output was invalid.
    pub action: Option<Action>,
    /// The raw answer text.
    pub raw: String,
    /// Input tokens (o200k_base for local agents; the provider's count for remote ones).
    pub input_tokens: usize,
    /// Output tokens.
    pub output_tokens: usize,
    /// Wall time of the call in µs (retries included).
    pub latency_us: u64,
    /// Attempts beyond the first.
    pub retries: u32,
    /// The call failed after its retries.
    pub fault: Option<backend::CallError>,
    /// The answer was not a valid action (why).
    pub invalid: Option<String>,
    /// Estimated cost in US dollars (price table); 0 for local agents.
    pub cost_usd: f64,
}

/// Something that chooses actions.
pub trait Agent: Sync {
    /// Name in reports.
    fn name(&self) -> String;
    /// Chooses the next action. `Err` is reserved for faults that must stop
    /// the run (a cassette replay miss); provider faults are `Response::fault`.
    fn act(&self, request: &Request<'_>) -> Result<Response>;
    /// The request a model would be sent for `request` (none: this agent
    /// sends no prompt), for the step pages of `steps/`.
    fn prompt(&self, _request: &Request<'_>) -> Option<backend::ChatRequest> {
        None
    }
}

/// The agents embedded in pagesnap, which ask no model.
pub const EMBEDDED: &[&str] = &["baseline", "reader"];

/// Refuses `--cassette` when neither the agent nor the judge asks a model:
/// the cassette would stay empty.
pub fn check_cassette(agent: &str, judge: &str, options: &AgentOptions) -> Result<()> {
    if options.cassette.is_some() && EMBEDDED.contains(&agent) && !judge.starts_with("llm:") {
        bail!(
            "--cassette needs a model agent (openai:MODEL or anthropic:MODEL) or an LLM judge (--judge llm:…), not {agent} with the rule judge"
        );
    }
    Ok(())
}

/// Looks an agent up by its command-line name: `baseline`, `openai:MODEL`, `anthropic:MODEL`.
/// (A cassette with the baseline agent records the LLM judge's exchanges only;
/// [`check_cassette`] refuses one that would record nothing.)
pub fn by_name(name: &str, options: &AgentOptions) -> Result<Box<dyn Agent>> {
    match name.split_once(':') {
        None if name == "baseline" => Ok(Box::new(baseline::Baseline)),
        None if name == "reader" => Ok(Box::new(reader::Reader)),
        Some((provider, _)) if Provider::by_name(provider).is_some() => {
            Ok(Box::new(llm::LlmAgent::from_spec(name, options)?))
        }
        _ => bail!(
            "unknown agent {name:?} (known: baseline, reader, {})",
            Provider::spellings("")
        ),
    }
}
