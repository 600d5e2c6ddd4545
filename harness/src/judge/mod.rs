//! Judges: decide whether an agent's step (and task) succeeded — `rule` against the suite's ground truth, `llm` by asking a model.
//!
//! - **rule** (always on): the op must match; for click/type/select the ref
//!   must resolve to the expected element, a node inside it or an
//!   alternative; a value must match case-insensitively after trimming. A task
//!   succeeds when every step does. It judges on the page the observation was
//!   rendered from, so refs resolve to its nodes.
//! - **llm** (`--judge llm:openai:MODEL` or `llm:anthropic:MODEL`): any model
//!   backend answers `{"success": bool, "reason": "…"}` per step (instruction,
//!   earlier actions, the observation the agent saw, its action and the element
//!   it named) and once per task (instruction and the whole action sequence).
//!   It never sees the expected answer. When both judges ran, the report gives
//!   the LLM judge's agreement with the rule judge (accuracy and Cohen's kappa).
//!
//! Offline replay has no real page *after* a deviating action (the next
//! recording shows the outcome of the expected action), so the step judge sees
//! the page before the action only; a live episode can add the page after.

pub mod llm;
pub mod rule;
