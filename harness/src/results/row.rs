//! The result row: one judged step, a line of `results.jsonl` and a row of `results.csv`, the same for every runner.

use serde::{Deserialize, Serialize};

use crate::agent::{Action, Op};
use crate::suite::Step;

/// One judged step: a line of `results.jsonl`, a row of `results.csv`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Row {
    /// Task id.
    pub task: String,
    /// Strategy name.
    pub strategy: String,
    /// Step number, from 1.
    pub step: usize,
    /// Recording key.
    pub recording: String,
    /// Expected op.
    pub expected_op: Op,
    /// Expected target as written in the suite.
    pub expected_target: String,
    /// Expected value.
    pub expected_value: Option<String>,
    /// The agent's op (none on error).
    pub op: Option<Op>,
    /// The agent's ref.
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    /// The agent's value.
    pub value: Option<String>,
    /// Document-order index of the node the ref resolved to.
    pub node: Option<usize>,
    /// That node as the observation describes it: role and name
    /// (`button "Buy now"`).
    #[serde(default)]
    pub element: Option<String>,
    /// The answer named a ref the observation does not have.
    pub hallucinated: bool,
    /// The expected element had a ref (none for scroll/done).
    pub target_recall: Option<bool>,
    /// Op right.
    pub op_ok: bool,
    /// Element right (none for scroll/done).
    pub element_ok: Option<bool>,
    /// Value right (none unless type/select).
    pub value_ok: Option<bool>,
    /// Op, element and value right.
    pub success: bool,
    /// Mind2Web operation F1 of this step.
    pub op_f1: f64,
    /// Refs in the observation.
    pub refs: usize,
    /// Input text tokens (the agent's count: o200k_base of the prompt for
    /// local agents, the provider's `usage` for remote ones).
    pub input_tokens: usize,
    /// Observation text tokens under o200k_base (GPT-4o and later).
    #[serde(default)]
    pub obs_tokens_o200k: usize,
    /// Observation text tokens under cl100k_base (GPT-4, GPT-3.5).
    #[serde(default)]
    pub obs_tokens_cl100k: usize,
    /// Image tokens (OpenAI formula).
    pub image_tokens: u32,
    /// Output tokens.
    pub output_tokens: usize,
    /// Page build + analysis time of the step's recording in µs (analysed
    /// once per run and shared by every strategy; 0 in rows written before
    /// analysis was timed apart).
    #[serde(default)]
    pub analysis_us: u64,
    /// Engine time in µs: the strategy's rendering of the analysed page.
    pub engine_us: u64,
    /// Agent time in µs.
    pub agent_us: u64,
    /// Model-call retries (attempts beyond the first).
    #[serde(default)]
    pub retries: u32,
    /// The call failed after its retries: the fault kind (`rate_limited`, `timeout`, …).
    #[serde(default)]
    pub fault: Option<String>,
    /// The answer could not be read as an action.
    #[serde(default)]
    pub invalid: bool,
    /// Estimated cost of the agent call in US dollars.
    #[serde(default)]
    pub cost_usd: f64,
    /// The LLM judge's verdict on this step (when `--judge llm:…` ran).
    #[serde(default)]
    pub judge: Option<bool>,
    /// The LLM judge's reason.
    #[serde(default)]
    pub judge_reason: Option<String>,
    /// The LLM judge's verdict on the whole task (on the task's last step only).
    #[serde(default)]
    pub task_judge: Option<bool>,
    /// What went wrong, if the step failed.
    pub error: Option<String>,
    /// The agent's raw answer.
    pub raw: String,
}

impl Row {
    /// The row of step `step_number` of `task` under `strategy` before anything
    /// ran: the expected columns filled from `step`, the rest empty.
    pub fn expecting(task: &str, strategy: &str, step_number: usize, step: &Step) -> Row {
        Row {
            task: task.to_owned(),
            strategy: strategy.to_owned(),
            step: step_number,
            recording: step.recording.clone(),
            expected_op: step.op,
            expected_target: step.target.clone(),
            expected_value: step.value.clone(),
            op: None,
            reference: None,
            value: None,
            node: None,
            element: None,
            hallucinated: false,
            target_recall: None,
            op_ok: false,
            element_ok: None,
            value_ok: None,
            success: false,
            op_f1: 0.0,
            refs: 0,
            input_tokens: 0,
            obs_tokens_o200k: 0,
            obs_tokens_cl100k: 0,
            image_tokens: 0,
            output_tokens: 0,
            analysis_us: 0,
            engine_us: 0,
            agent_us: 0,
            retries: 0,
            fault: None,
            invalid: false,
            cost_usd: 0.0,
            judge: None,
            judge_reason: None,
            task_judge: None,
            error: None,
            raw: String::new(),
        }
    }

    /// The action the agent took (none when it gave none: a fault, an invalid
    /// answer, a failed observation).
    pub fn action(&self) -> Option<Action> {
        self.op.map(|op| Action {
            op,
            reference: self.reference.clone(),
            value: self.value.clone(),
        })
    }

    /// The row's place in a run: (task, strategy, step).
    pub fn key(&self) -> Key {
        (self.task.clone(), self.strategy.clone(), self.step)
    }
}

/// (task, strategy, step): what identifies a row in a run.
pub type Key = (String, String, usize);

/// A row for the report's unit tests: a click on `#x`, judged `success`,
/// every other field empty.
#[cfg(test)]
pub(crate) fn test_row(task: &str, strategy: &str, step: usize, success: bool) -> Row {
    let mut row: Row = serde_json::from_value(serde_json::json!({
        "task": task, "strategy": strategy, "step": step, "recording": "r",
        "expected_op": "click", "expected_target": "#x", "expected_value": null,
        "op": null, "ref": null, "value": null, "node": null, "hallucinated": false,
        "target_recall": null, "op_ok": false, "element_ok": null, "value_ok": null,
        "success": false, "op_f1": 0.0, "refs": 0, "input_tokens": 0, "image_tokens": 0,
        "output_tokens": 0, "engine_us": 0, "agent_us": 0, "error": null, "raw": ""
    }))
    .expect("the template is a row");
    row.success = success;
    row
}
