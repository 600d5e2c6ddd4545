//! The live runner's row: one episode (a task performed on a real page under one strategy), a line of `results.jsonl`, with its steps inside.

use pagesnap_browser::Failure;
use serde::{Deserialize, Serialize};

use super::jsonl::Keyed;
use crate::agent::Action;

/// One episode: a line of a live run's `results.jsonl`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Episode {
    /// Task id.
    pub task: String,
    /// Strategy name.
    pub strategy: String,
    /// Episode number within the task, from 1.
    pub episode: usize,
    /// The seed the page was started with (MiniWoB's `Math.seedrandom`).
    pub seed: u64,
    /// The task's tier.
    pub tier: String,
    /// The task's tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// The instruction the agent was given.
    pub instruction: String,
    /// The page's reward (MiniWoB: `WOB_REWARD_GLOBAL`, time-scaled; a
    /// predicate: 1 or 0); 0 when the episode never ended on the page.
    pub reward: f64,
    /// The unscaled reward (MiniWoB: `WOB_RAW_REWARD_GLOBAL`; a predicate: 1 or 0).
    pub raw_reward: f64,
    /// The page's reason (MiniWoB: `WOB_REWARD_REASON`), or the predicate's value.
    pub reason: Option<String>,
    /// Raw reward > 0.
    pub success: bool,
    /// What ended the episode.
    pub ended_by: EndedBy,
    /// Steps taken (each an observation and an answer).
    pub steps: usize,
    /// Observation tokens over the episode (o200k).
    pub obs_tokens: usize,
    /// Image tokens over the episode (OpenAI formula).
    pub image_tokens: u64,
    /// Input tokens over the episode (the agent's count).
    pub input_tokens: usize,
    /// Output tokens over the episode.
    pub output_tokens: usize,
    /// Estimated cost of the agent calls in US dollars.
    pub cost_usd: f64,
    /// Actions that could not run as asked (covered, stale, hidden, …).
    pub action_errors: usize,
    /// Of those, clicks whose centre was covered.
    pub covered: usize,
    /// Of those, refs whose node was gone.
    pub stale: usize,
    /// Answers naming a ref the observation did not have.
    pub hallucinated: usize,
    /// Answers that were not an action.
    pub invalid: usize,
    /// Model calls that failed after their retries.
    pub faults: usize,
    /// The LLM judge's verdict on the episode (trace + final page).
    #[serde(default)]
    pub judge: Option<bool>,
    /// Its reason.
    #[serde(default)]
    pub judge_reason: Option<String>,
    /// What stopped the episode early, if anything (a page that never
    /// loaded, a crashed tab, a predicate that threw).
    pub error: Option<String>,
    /// Set when the browser died under the episode (its process ended, as
    /// when the OOM killer takes it): the episode was run once more on a
    /// browser started in its place, and this row is that second run.
    /// Absent from rows where it did not, and from files written before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browser_died: Option<BrowserDied>,
    /// Wall-clock: the whole episode, open to close, ms.
    pub wall_ms: f64,
    /// Trace folder relative to the run folder (`traces/<task>/<strategy>/<episode>`).
    pub trace: String,
    /// The steps, in order.
    pub step_log: Vec<StepLog>,
}

/// One step of an episode.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct StepLog {
    /// Step number, from 1.
    pub step: usize,
    /// Refs in the observation.
    pub refs: usize,
    /// Refs marked new since the previous observation.
    pub new_refs: usize,
    /// Observation tokens (o200k).
    pub obs_tokens: usize,
    /// Image tokens.
    pub image_tokens: u32,
    /// Input tokens of the agent call.
    pub input_tokens: usize,
    /// Output tokens of the agent call.
    pub output_tokens: usize,
    /// The action (none: a fault or an invalid answer).
    pub action: Option<Action>,
    /// The element the action's ref named, as the observation described it (`button "Submit"`).
    pub element: Option<String>,
    /// Backend node id the ref resolved to.
    pub backend_id: Option<u64>,
    /// What became of the step.
    pub outcome: StepOutcome,
    /// The message the agent was shown about the outcome, or a note.
    pub message: Option<String>,
    /// The LLM step judge's verdict (before/after).
    #[serde(default)]
    pub judge: Option<bool>,
    /// Its reason.
    #[serde(default)]
    pub judge_reason: Option<String>,
    /// The agent's raw answer.
    pub raw: String,
    /// Wall-clock: capture ms.
    pub capture_ms: f64,
    /// Wall-clock: engine (analysis + render) ms.
    pub engine_ms: f64,
    /// Wall-clock: agent ms.
    pub agent_ms: f64,
    /// Wall-clock: performing the action (and letting the page settle), ms.
    pub act_ms: f64,
    /// An external strategy's step: its round trip and how its refs resolved
    /// (`capture_ms` is then the program's own observation time, `engine_ms` 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external: Option<ExternalStep>,
    /// A tool server's step (`mcp:NAME`): what the model would read and pay
    /// (`obs_tokens` is then every tool result of the step: the snapshot
    /// and the action's answer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peer: Option<PeerStep>,
}

/// What a tool server's step cost the model and the clock.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct PeerStep {
    /// Tool calls the agent made (the snapshot, the action).
    pub tool_calls: usize,
    /// Their round trips, ms.
    pub round_trip_ms: f64,
    /// o200k tokens of every tool result read.
    pub result_tokens: usize,
    /// Characters of every tool result read (absent from files written before).
    #[serde(default)]
    pub result_chars: usize,
    /// The server's tool definitions in o200k tokens, on an episode's first
    /// step (a model is shown them once per episode); 0 after.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub definition_tokens: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// What an external strategy's step cost and how its refs resolved.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct ExternalStep {
    /// From sending the request to reading the answer, ms.
    pub round_trip_ms: f64,
    /// pagesnap's own capture, analysis and ref resolution for the step, ms.
    pub resolve_ms: f64,
    /// Refs resolved to a node.
    pub refs: usize,
    /// Refs naming no node of pagesnap's capture.
    pub unresolved: usize,
    /// ARIA lines whose role and name several lines or nodes share.
    pub ambiguous: usize,
    /// ARIA lines of an interactive role left without a ref.
    pub unassigned: usize,
}

/// (task, strategy, episode): what identifies an episode in a run.
pub type EpisodeKey = (String, String, usize);

impl Episode {
    /// Sets the counters (`action_errors`, `covered`, `stale`,
    /// `hallucinated`, `invalid`, `faults`) from the step log, their one
    /// source: the row carries them so `results.csv` and readers of the
    /// JSON need not recount.
    pub fn tally(&mut self) {
        let count = |which: fn(StepOutcome) -> bool| {
            self.step_log.iter().filter(|s| which(s.outcome)).count()
        };
        self.action_errors = count(StepOutcome::is_action_error);
        self.covered = count(|o| o == StepOutcome::Refused(Failure::Covered));
        self.stale = count(|o| o == StepOutcome::Refused(Failure::Stale));
        self.hallucinated = count(|o| o == StepOutcome::Hallucinated);
        self.invalid = count(|o| o == StepOutcome::Invalid);
        self.faults = count(|o| o == StepOutcome::Fault);
    }
}

/// An episode for the reports' unit tests: task `task` under `strategy`,
/// episode 1 of an easy tier, ended by the page, nothing taken or counted.
#[cfg(test)]
pub(crate) fn test_episode(task: &str, strategy: &str) -> Episode {
    Episode {
        task: task.to_owned(),
        strategy: strategy.to_owned(),
        episode: 1,
        seed: 0,
        tier: "easy".to_owned(),
        tags: Vec::new(),
        instruction: String::new(),
        reward: 0.0,
        raw_reward: 0.0,
        reason: None,
        success: false,
        ended_by: EndedBy::Page,
        steps: 0,
        obs_tokens: 0,
        image_tokens: 0,
        input_tokens: 0,
        output_tokens: 0,
        cost_usd: 0.0,
        action_errors: 0,
        covered: 0,
        stale: 0,
        hallucinated: 0,
        invalid: 0,
        faults: 0,
        judge: None,
        judge_reason: None,
        error: None,
        browser_died: None,
        wall_ms: 0.0,
        trace: String::new(),
        step_log: Vec::new(),
    }
}

impl Keyed for Episode {
    type Key = EpisodeKey;
    fn key(&self) -> EpisodeKey {
        (self.task.clone(), self.strategy.clone(), self.episode)
    }
}

/// What ended an episode (serialised kebab-case: `page`, `agent`, `steps`, `error`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EndedBy {
    /// The page said the episode ended (MiniWoB's reward, a predicate).
    Page,
    /// The agent said done.
    Agent,
    /// The step limit.
    Steps,
    /// An error stopped it (a page that never loaded, a crashed tab, …).
    Error,
}

impl EndedBy {
    /// The word reports and files use.
    pub fn name(self) -> &'static str {
        match self {
            EndedBy::Page => "page",
            EndedBy::Agent => "agent",
            EndedBy::Steps => "steps",
            EndedBy::Error => "error",
        }
    }
}

impl std::fmt::Display for EndedBy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What became of an episode the browser died under (serialised
/// kebab-case: `retried`, `twice`, `not-restarted`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BrowserDied {
    /// It was run again on a browser started in the dead one's place; the
    /// row is that run's, whatever its end.
    Retried,
    /// The browser died under the second run too: not run a third time
    /// (the row is an error; the next episode gets a browser of its own).
    Twice,
    /// No browser could be started in the dead one's place (or, attached,
    /// its endpoint reached again): the row is an error naming why.
    NotRestarted,
}

impl BrowserDied {
    /// Every value, in order.
    pub const ALL: [BrowserDied; 3] = [
        BrowserDied::Retried,
        BrowserDied::Twice,
        BrowserDied::NotRestarted,
    ];

    /// The word reports and files use.
    pub fn name(self) -> &'static str {
        match self {
            BrowserDied::Retried => "retried",
            BrowserDied::Twice => "twice",
            BrowserDied::NotRestarted => "not-restarted",
        }
    }
}

impl std::fmt::Display for BrowserDied {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What became of one live step (serialised as the words `steps.csv` and
/// the reports have always used: `ok`, `done`, a [`Failure`]'s name,
/// `hallucinated`, `invalid`, `fault`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum StepOutcome {
    /// The action ran.
    Ok,
    /// The agent said done.
    Done,
    /// The browser refused the action as a user would meet it (stale,
    /// covered, hidden, not-editable, …).
    Refused(Failure),
    /// The answer named a ref the observation did not have.
    Hallucinated,
    /// The answer was not a runnable action.
    Invalid,
    /// The model call failed after its retries.
    Fault,
}

impl StepOutcome {
    /// Every outcome, in order.
    pub fn all() -> impl Iterator<Item = StepOutcome> {
        [StepOutcome::Ok, StepOutcome::Done]
            .into_iter()
            .chain(Failure::ALL.map(StepOutcome::Refused))
            .chain([
                StepOutcome::Hallucinated,
                StepOutcome::Invalid,
                StepOutcome::Fault,
            ])
    }

    /// The word reports and files use.
    pub fn name(self) -> &'static str {
        match self {
            StepOutcome::Ok => "ok",
            StepOutcome::Done => "done",
            StepOutcome::Refused(failure) => failure.name(),
            StepOutcome::Hallucinated => "hallucinated",
            StepOutcome::Invalid => "invalid",
            StepOutcome::Fault => "fault",
        }
    }

    /// Whether the browser refused the action (a [`Failure`]).
    pub fn is_action_error(self) -> bool {
        matches!(self, StepOutcome::Refused(_))
    }

    /// Whether the step ran as asked (`ok`, `done`).
    pub fn ran(self) -> bool {
        matches!(self, StepOutcome::Ok | StepOutcome::Done)
    }
}

impl From<Failure> for StepOutcome {
    fn from(failure: Failure) -> StepOutcome {
        StepOutcome::Refused(failure)
    }
}

impl Serialize for StepOutcome {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for StepOutcome {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<StepOutcome, D::Error> {
        let word = String::deserialize(deserializer)?;
        StepOutcome::all()
            .find(|outcome| outcome.name() == word)
            .ok_or_else(|| {
                let known: Vec<&str> = StepOutcome::all().map(StepOutcome::name).collect();
                serde::de::Error::custom(format!(
                    "unknown step outcome {word:?} (known: {})",
                    known.join(", ")
                ))
            })
    }
}

impl std::fmt::Display for StepOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod outcome_tests {
    use super::*;

    /// Rows written before `browser_died` existed read back, and rows whose
    /// browser lived are written as before: the field is left out.
    #[test]
    fn browser_died_is_absent_unless_the_browser_died() {
        let mut episode = test_episode("t", "aria");
        let json = serde_json::to_string(&episode).unwrap();
        assert!(!json.contains("browser_died"), "{json}");
        assert_eq!(serde_json::from_str::<Episode>(&json).unwrap(), episode);
        episode.browser_died = Some(BrowserDied::Twice);
        let json = serde_json::to_string(&episode).unwrap();
        assert!(json.contains(r#""browser_died":"twice""#), "{json}");
        assert_eq!(serde_json::from_str::<Episode>(&json).unwrap(), episode);
    }

    #[test]
    fn outcomes_serialise_to_the_words_files_use() {
        let words: Vec<&str> = StepOutcome::all().map(StepOutcome::name).collect();
        assert_eq!(
            words,
            [
                "ok",
                "done",
                "stale",
                "covered",
                "hidden",
                "not-editable",
                "not-select",
                "no-option",
                "unknown-key",
                "dialog-pending",
                "wait-timeout",
                "upload-refused",
                "not-file-input",
                "no-text",
                "no-dialog",
                "bad-value",
                "value-mismatch",
                "failed",
                "hallucinated",
                "invalid",
                "fault"
            ]
        );
        for outcome in StepOutcome::all() {
            let json = serde_json::to_string(&outcome).unwrap();
            assert_eq!(json, format!("\"{}\"", outcome.name()));
            assert_eq!(serde_json::from_str::<StepOutcome>(&json).unwrap(), outcome);
        }
        let err = serde_json::from_str::<StepOutcome>("\"exploded\"").unwrap_err();
        assert!(
            err.to_string()
                .contains("unknown step outcome \"exploded\""),
            "{err}"
        );
        assert_eq!(serde_json::to_string(&EndedBy::Steps).unwrap(), "\"steps\"");
        for died in BrowserDied::ALL {
            let json = serde_json::to_string(&died).unwrap();
            assert_eq!(json, format!("\"{}\"", died.name()));
            assert_eq!(serde_json::from_str::<BrowserDied>(&json).unwrap(), died);
        }
        // The order reports sort by: as declared, a refusal's kinds in theirs.
        let mut sorted: Vec<StepOutcome> = StepOutcome::all().collect();
        sorted.sort();
        assert!(sorted.into_iter().eq(StepOutcome::all()));
        for failure in Failure::ALL {
            assert!(StepOutcome::from(failure).is_action_error(), "{failure:?}");
        }
        for outcome in [
            StepOutcome::Ok,
            StepOutcome::Done,
            StepOutcome::Hallucinated,
            StepOutcome::Invalid,
            StepOutcome::Fault,
        ] {
            assert!(!outcome.is_action_error(), "{outcome:?}");
        }
    }
}
