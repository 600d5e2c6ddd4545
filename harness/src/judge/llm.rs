//! The LLM judge: asks a model backend whether a step (or a whole task) succeeded and reads `{success, reason}` from its answer.

use crate::agent::backend::{Backend, ChatRequest, FaultKind, Part};
use crate::agent::{Action, Op};

/// System prompt of the per-step judgement.
const STEP_PROMPT: &str = include_str!("../../prompts/judge_step.txt");
/// System prompt of the per-task judgement.
const TASK_PROMPT: &str = include_str!("../../prompts/judge_task.txt");
/// Observations longer than this (characters) are cut for the judge, with a note.
pub const MAX_OBSERVATION_CHARS: usize = 60_000;

/// What the step judge is shown.
pub struct StepInput<'a> {
    /// The task's instruction.
    pub instruction: &'a str,
    /// Strategy that produced the observation.
    pub strategy: &'a str,
    /// The observation the agent saw.
    pub observation: &'a str,
    /// Actions taken before this step.
    pub history: &'a [Action],
    /// The action taken.
    pub action: &'a Action,
    /// The element the action's ref names (`button "Submit"`), when it has one.
    pub element: Option<String>,
}

/// What the task judge is shown.
pub struct TaskInput<'a> {
    /// The task's instruction.
    pub instruction: &'a str,
    /// Every action, each with the element it named.
    pub actions: &'a [(Action, Option<String>)],
}

/// What the step judge of a live episode is shown: the page before and after the action.
pub struct LiveStepInput<'a> {
    /// The task's instruction.
    pub instruction: &'a str,
    /// Strategy that produced the observations.
    pub strategy: &'a str,
    /// Actions taken before this step.
    pub history: &'a [Action],
    /// The observation the agent acted on.
    pub before: &'a str,
    /// The action taken.
    pub action: &'a Action,
    /// The element the action's ref names, when it has one.
    pub element: Option<String>,
    /// What became of the action: `ran`, or why it could not run.
    pub outcome: &'a str,
    /// The observation after the action.
    pub after: &'a str,
}

/// What the task judge of a live episode is shown: the trace and the final page.
pub struct LiveTaskInput<'a> {
    /// The task's instruction.
    pub instruction: &'a str,
    /// Strategy that produced the observations.
    pub strategy: &'a str,
    /// Every action with the element it named and what became of it.
    pub actions: &'a [(Action, Option<String>, crate::results::StepOutcome)],
    /// The observation of the page at the end.
    pub last: &'a str,
}

/// A judgement.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Verdict {
    /// The verdict; `None` when the call failed or the answer had none.
    pub success: Option<bool>,
    /// The model's reason, or what went wrong.
    pub reason: String,
    /// Input tokens of the call.
    pub input_tokens: usize,
    /// Output tokens of the call.
    pub output_tokens: usize,
}

/// A judge call that must stop the run rather than become a missing
/// verdict: a cassette replay with no exchange for the request. (A provider
/// fault after its retries is a verdict of `None` with the reason, as for
/// the agent: a row, not a crash.) A swallowed miss would shrink the judged
/// count while the run reported success.
#[derive(Debug, thiserror::Error)]
#[error("the LLM judge failed: {0}")]
pub struct JudgeStop(String);

/// A model asked to judge.
pub struct LlmJudge {
    backend: Box<dyn Backend>,
}

impl LlmJudge {
    /// A judge over `backend`.
    pub fn new(backend: Box<dyn Backend>) -> LlmJudge {
        LlmJudge { backend }
    }

    /// Judges one step.
    /// Fails only when a cassette replay has no answer ([`JudgeStop`]).
    pub fn step(&self, input: &StepInput<'_>) -> Result<Verdict, JudgeStop> {
        let mut text = format!(
            "Task: {}\n\nEarlier actions:\n{}\nObservation ({}):\n{}\n\nThe agent's action: {}\n",
            input.instruction,
            history_lines(input.history),
            input.strategy,
            cut(input.observation),
            describe(input.action, input.element.as_deref()),
        );
        text.push_str("\nIs this action a correct next step? Answer with the JSON object.");
        self.ask(STEP_PROMPT, text)
    }

    /// Judges a whole task.
    /// Fails only when a cassette replay has no answer ([`JudgeStop`]).
    pub fn task(&self, input: &TaskInput<'_>) -> Result<Verdict, JudgeStop> {
        let mut text = format!("Task: {}\n\nActions, in order:\n", input.instruction);
        for (i, (action, element)) in input.actions.iter().enumerate() {
            text.push_str(&format!(
                "{}. {}\n",
                i + 1,
                describe(action, element.as_deref())
            ));
        }
        if input.actions.is_empty() {
            text.push_str("(none)\n");
        }
        text.push_str("\nDo these actions complete the task? Answer with the JSON object.");
        self.ask(TASK_PROMPT, text)
    }

    /// Judges one step of a live episode, seeing the page before and after it.
    /// Fails only when a cassette replay has no answer ([`JudgeStop`]).
    pub fn live_step(&self, input: &LiveStepInput<'_>) -> Result<Verdict, JudgeStop> {
        let text = format!(
            "Task: {}\n\nEarlier actions:\n{}\nObservation before the action ({}):\n{}\n\n\
             The agent's action: {} ({})\n\nObservation after the action:\n{}\n\n\
             Is this action a correct next step, and did it have the intended effect? Answer with the JSON object.",
            input.instruction,
            history_lines(input.history),
            input.strategy,
            cut(input.before),
            describe(input.action, input.element.as_deref()),
            input.outcome,
            cut(input.after),
        );
        self.ask(STEP_PROMPT, text)
    }

    /// Judges a whole live episode from its trace and the final page.
    /// Fails only when a cassette replay has no answer ([`JudgeStop`]).
    pub fn live_task(&self, input: &LiveTaskInput<'_>) -> Result<Verdict, JudgeStop> {
        let mut text = format!("Task: {}\n\nActions, in order:\n", input.instruction);
        for (i, (action, element, outcome)) in input.actions.iter().enumerate() {
            text.push_str(&format!(
                "{}. {} ({outcome})\n",
                i + 1,
                describe(action, element.as_deref())
            ));
        }
        if input.actions.is_empty() {
            text.push_str("(none)\n");
        }
        text.push_str(&format!(
            "\nThe page at the end ({}):\n{}\n\nIs the task complete on this page? Answer with the JSON object.",
            input.strategy,
            cut(input.last)
        ));
        self.ask(TASK_PROMPT, text)
    }

    fn ask(&self, system: &str, user: String) -> Result<Verdict, JudgeStop> {
        let request = ChatRequest {
            system: system.to_owned(),
            user: vec![Part::Text { text: user }],
            max_tokens: 128,
            temperature: 0.0,
            schema: Some(schema()),
        };
        match self.backend.complete(&request) {
            Ok(reply) => {
                let (success, reason) = parse(&reply.text);
                Ok(Verdict {
                    success,
                    reason,
                    input_tokens: reply.input_tokens,
                    output_tokens: reply.output_tokens,
                })
            }
            Err(err) if err.kind == FaultKind::CassetteMiss => Err(JudgeStop(err.message)),
            Err(err) => Ok(Verdict {
                success: None,
                reason: format!("judge call failed: {err}"),
                ..Verdict::default()
            }),
        }
    }
}

/// The answer's JSON schema.
fn schema() -> serde_json::Value {
    serde_json::json!({
        "type": "object",
        "properties": {
            "success": { "type": "boolean" },
            "reason": { "type": "string" }
        },
        "required": ["success", "reason"],
        "additionalProperties": false
    })
}

fn history_lines(history: &[Action]) -> String {
    if history.is_empty() {
        return "(none)\n".to_owned();
    }
    history
        .iter()
        .enumerate()
        .map(|(i, a)| format!("{}. {}\n", i + 1, describe(a, None)))
        .collect()
}

/// An action as a judge (and a report) reads it: `click [e12] button "Submit"`,
/// `type "ada" into [e3] textbox "Email"`, `scroll the page down`, `done`.
pub fn describe(action: &Action, element: Option<&str>) -> String {
    let target = match (&action.reference, element) {
        (Some(r), Some(e)) => format!("[{r}] {e}"),
        (Some(r), None) => format!("[{r}]"),
        (None, _) => String::new(),
    };
    let value = action.value.as_deref().unwrap_or("");
    match action.op {
        Op::Type => format!("type {value:?} into {target}"),
        Op::Select => format!("select {value:?} in {target}"),
        Op::Click => format!("click {target}"),
        Op::Press if target.is_empty() => format!("press {value}"),
        Op::Press => format!("press {value} on {target}"),
        Op::Scroll => {
            let how = if value.is_empty() { "down" } else { value };
            if target.is_empty() {
                format!("scroll the page {how}")
            } else {
                format!("scroll {target} {how}")
            }
        }
        other => other.name().to_owned(),
    }
}

fn cut(observation: &str) -> String {
    if observation.len() <= MAX_OBSERVATION_CHARS {
        return observation.to_owned();
    }
    let mut end = MAX_OBSERVATION_CHARS;
    while !observation.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}\n[… observation cut at {MAX_OBSERVATION_CHARS} characters of {}]",
        &observation[..end],
        observation.len()
    )
}

/// Reads a verdict from a model's answer: the first JSON object with a
/// boolean-like `success` (also `"yes"`, `"true"`, `1`), else a leading
/// yes/no/true/false word when the answer holds no JSON object. The reason is the object's `reason` or the text.
pub fn parse(text: &str) -> (Option<bool>, String) {
    let mut saw_object = false;
    for (start, _) in text.match_indices('{') {
        let mut stream =
            serde_json::Deserializer::from_str(&text[start..]).into_iter::<serde_json::Value>();
        let Some(Ok(serde_json::Value::Object(map))) = stream.next() else {
            continue;
        };
        saw_object = true;
        let success = map
            .get("success")
            .or_else(|| map.get("ok"))
            .or_else(|| map.get("verdict"))
            .and_then(truthy);
        if success.is_some() {
            let reason = map
                .get("reason")
                .and_then(|r| r.as_str())
                .unwrap_or("")
                .trim()
                .to_owned();
            return (success, reason);
        }
    }
    if saw_object {
        // JSON without a readable verdict: the words inside it are keys, not an answer.
        return (None, text.trim().to_owned());
    }
    let first = text
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .split(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or("")
        .to_lowercase();
    let success = match first.as_str() {
        "yes" | "true" | "success" | "successful" | "correct" => Some(true),
        "no" | "false" | "failure" | "failed" | "incorrect" | "wrong" => Some(false),
        _ => None,
    };
    (success, text.trim().to_owned())
}

fn truthy(value: &serde_json::Value) -> Option<bool> {
    match value {
        serde_json::Value::Bool(b) => Some(*b),
        serde_json::Value::Number(n) => n.as_i64().map(|n| n != 0),
        serde_json::Value::String(s) => match s.trim().to_lowercase().as_str() {
            "true" | "yes" | "success" | "1" => Some(true),
            "false" | "no" | "failure" | "0" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::Op;

    #[test]
    fn reads_json_verdicts_in_the_shapes_models_write() {
        assert_eq!(
            parse(r#"{"success": true, "reason": "Clicked Sign in."}"#),
            (Some(true), "Clicked Sign in.".to_owned())
        );
        assert_eq!(
            parse("```json\n{\"success\": false, \"reason\": \"wrong button\"}\n```"),
            (Some(false), "wrong button".to_owned())
        );
        assert_eq!(
            parse("Sure! {\"note\": 1} then {\"success\": \"yes\"}").0,
            Some(true)
        );
        assert_eq!(parse(r#"{"verdict": 0}"#).0, Some(false));
    }

    #[test]
    fn falls_back_to_a_leading_word_and_admits_no_verdict() {
        assert_eq!(parse("Yes, the action is right.").0, Some(true));
        assert_eq!(parse("No. It typed into the search box.").0, Some(false));
        assert_eq!(parse("The page shows a login form.").0, None);
        assert_eq!(parse("").0, None);
        assert_eq!(parse(r#"{"success": "maybe"}"#).0, None);
    }

    #[test]
    fn describes_actions_with_their_element() {
        let click = Action {
            op: Op::Click,
            reference: Some("e12".to_owned()),
            value: None,
        };
        assert_eq!(
            describe(&click, Some("button \"Submit\"")),
            "click [e12] button \"Submit\""
        );
        let typed = Action {
            op: Op::Type,
            reference: Some("3".to_owned()),
            value: Some("ada".to_owned()),
        };
        assert_eq!(describe(&typed, None), "type \"ada\" into [3]");
        let done = Action {
            op: Op::Done,
            reference: None,
            value: None,
        };
        assert_eq!(describe(&done, None), "done");
    }

    #[test]
    fn long_observations_are_cut_on_a_char_boundary() {
        let long = "é".repeat(MAX_OBSERVATION_CHARS);
        let cut = cut(&long);
        assert!(cut.len() < long.len());
        assert!(cut.ends_with(&format!("of {}]", long.len())));
        assert_eq!(super::cut("short"), "short");
    }
}
