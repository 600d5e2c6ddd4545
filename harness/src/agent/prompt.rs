//! Prompts of the LLM agents: the templates under `harness/prompts/` (embedded at build time) and the chat request built from a step's [`Request`].
//!
//! The system prompt is `prompts/system.md` (action vocabulary, answer shape,
//! the rule to use only refs present in the observation — as page-agent's
//! prompt does) followed by the strategy's note `prompts/strategy/NAME.md`
//! (how to read that observation and what a ref looks like in it). The user
//! turn holds the instruction, the actions taken so far and the observation;
//! for `som` the marked screenshot follows as an image part.

use base64::Engine as _;
use serde_json::{Value, json};

use super::backend::{ChatRequest, Part};
use super::{Action, Request};

/// The system prompt's common part.
pub const SYSTEM: &str = include_str!("../../prompts/system.md");

/// The common part for live runs: the page is real, so keys and container scrolls are offered too.
pub const SYSTEM_LIVE: &str = include_str!("../../prompts/live.md");

/// Per-strategy notes: (strategy name, note), every `prompts/strategy/NAME.md`
/// (embedded by `build.rs`; the names are the engine's `STRATEGIES`, a test checks).
pub const STRATEGY_NOTES: &[(&str, &str)] =
    include!(concat!(env!("OUT_DIR"), "/strategy_notes.rs"));

/// Output token limit of an action.
pub const MAX_TOKENS: u32 = 256;

/// The system prompt for a strategy, offline or live (a strategy without a
/// note gets the common part only).
pub fn system_for(strategy: &str, live: bool) -> String {
    let note = STRATEGY_NOTES
        .iter()
        .find(|(name, _)| *name == strategy)
        .map_or("", |(_, note)| note);
    let common = if live { SYSTEM_LIVE } else { SYSTEM };
    format!("{}\n{}", common.trim_end(), note)
        .trim_end()
        .to_owned()
        + "\n"
}

/// The JSON schema of an answer (OpenAI strict mode: every key required, nulls spelled out).
pub fn action_schema() -> Value {
    schema_with(&["click", "type", "select", "scroll", "done"])
}

/// The answer's schema in live runs, where keys can be pressed and dialogs answered.
pub fn live_action_schema() -> Value {
    schema_with(&[
        "click", "type", "select", "scroll", "press", "dialog", "done",
    ])
}

fn schema_with(ops: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": {
            "op": {"type": "string", "enum": ops},
            "ref": {"type": ["string", "null"]},
            "value": {"type": ["string", "null"]},
        },
        "required": ["op", "ref", "value"],
        "additionalProperties": false,
    })
}

/// The chat request for one step.
pub fn chat_request(request: &Request<'_>) -> ChatRequest {
    let mut user = vec![Part::Text {
        text: user_text(request),
    }];
    if let Some(png) = request.image_png {
        user.push(Part::Png {
            base64: base64::engine::general_purpose::STANDARD.encode(png),
        });
    }
    ChatRequest {
        system: system_for(request.strategy, request.live),
        user,
        max_tokens: MAX_TOKENS,
        temperature: 0.0,
        schema: Some(if request.live {
            live_action_schema()
        } else {
            action_schema()
        }),
    }
}

fn user_text(request: &Request<'_>) -> String {
    let history = if request.history.is_empty() {
        "none".to_owned()
    } else {
        request
            .history
            .iter()
            .enumerate()
            .map(|(i, a)| format!("{}. {}", i + 1, describe(a)))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let feedback = request
        .feedback
        .map(|f| format!("{f}\n\n"))
        .unwrap_or_default();
    format!(
        "Instruction: {}\n\nActions taken so far:\n{}\n\n{feedback}Observation ({}):\n{}\n\nAnswer with the JSON object of the next action.",
        request.instruction,
        history,
        request.strategy,
        request.observation.trim_end()
    )
}

/// An action as one JSON line, the shape the model answers in.
fn describe(action: &Action) -> String {
    json!({"op": action.op, "ref": action.reference, "value": action.value}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::Op;
    use pagesnap_engine::strategy::STRATEGIES;

    #[test]
    fn the_notes_are_the_strategies() {
        let notes: Vec<&str> = STRATEGY_NOTES.iter().map(|(name, _)| *name).collect();
        let mut strategies: Vec<&str> = STRATEGIES.iter().map(|s| s.name()).collect();
        strategies.sort_unstable();
        assert_eq!(
            notes, strategies,
            "prompts/strategy/NAME.md: one note per strategy, no other"
        );
    }

    #[test]
    fn every_strategy_has_a_note_naming_its_refs() {
        for strategy in STRATEGIES {
            let name = strategy.name();
            for live in [false, true] {
                let system = system_for(name, live);
                assert!(
                    system.contains(&format!("Observation format ({name})")),
                    "{name}"
                );
                assert!(system.contains("Use only refs that appear in the"));
                assert_eq!(system.contains("- press:"), live, "{name}");
            }
        }
    }

    #[test]
    fn user_turn_has_instruction_history_observation_and_image() {
        let history = [Action {
            op: Op::Type,
            reference: Some("6".into()),
            value: Some("ada".into()),
        }];
        let request = Request {
            instruction: "Click Sign in",
            strategy: "som",
            observation: "[10] button \"Sign in\"\n",
            refs: &[],
            history: &history,
            image_png: Some(&[0x89, b'P', b'N', b'G']),
            feedback: None,
            live: false,
            dialog: None,
        };
        let chat = chat_request(&request);
        let Part::Text { text } = &chat.user[0] else {
            panic!("text first")
        };
        assert!(text.starts_with("Instruction: Click Sign in\n"), "{text}");
        assert!(text.contains("1. {\"op\":\"type\",\"ref\":\"6\",\"value\":\"ada\"}"));
        assert!(text.contains("Observation (som):\n[10] button \"Sign in\"\n"));
        assert_eq!(
            chat.user[1],
            Part::Png {
                base64: "iVBORw==".into()
            }
        );
        assert_eq!(chat.temperature, 0.0);
        assert_eq!(chat.schema, Some(action_schema()));
    }
}
