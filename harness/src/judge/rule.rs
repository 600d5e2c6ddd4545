//! The rule judge: the agent's action against the suite's expected step, on the page the observation was rendered from.
//!
//! The op must match; for click/type/select the ref must resolve to the
//! expected target, a node inside it, or an alternative; for type/select the
//! value must match case-insensitively after trimming; scroll and done are
//! judged on the op. Target recall (did the expected element get a ref at
//! all) is judged on the observation alone, before the agent answers.

use pagesnap_engine::observation::Observation;
use pagesnap_engine::page::Page;

use crate::agent::{Action, Op};
use crate::suite::Step;

/// The rule judge's verdict on one step.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Verdict {
    /// Document-order index of the node the action's ref resolved to.
    pub node: Option<usize>,
    /// The action named a ref the observation does not have.
    pub hallucinated: bool,
    /// Op right.
    pub op_ok: bool,
    /// Element right (none for scroll/done).
    pub element_ok: Option<bool>,
    /// Value right (none unless type/select).
    pub value_ok: Option<bool>,
    /// Op, element and value right.
    pub success: bool,
    /// Mind2Web operation F1.
    pub op_f1: f64,
}

/// Whether the expected element had a ref in the observation (none for
/// scroll/done, which name no element).
pub fn target_recall(step: &Step, page: &Page, observation: &Observation) -> Option<bool> {
    crate::agent::targets_element(step.op).then(|| {
        observation
            .refs
            .iter()
            .any(|(_, id)| step.accepts(page, *id))
    })
}

/// Judges `action` (none: the agent gave no action — a fault or an invalid
/// answer — which fails the step).
pub fn judge(
    step: &Step,
    page: &Page,
    observation: &Observation,
    action: Option<&Action>,
) -> Verdict {
    let needs_target = crate::agent::targets_element(step.op);
    let Some(action) = action else {
        return Verdict {
            element_ok: needs_target.then_some(false),
            ..Verdict::default()
        };
    };
    let resolved = action
        .reference
        .as_deref()
        .and_then(|r| observation.resolve(r));
    let op_ok = action.op == step.op;
    let element_ok = needs_target.then(|| resolved.is_some_and(|id| step.accepts(page, id)));
    let value_ok = step.value.as_ref().map(|expected| {
        action
            .value
            .as_deref()
            .is_some_and(|v| v.trim().to_lowercase() == expected.trim().to_lowercase())
    });
    let operation = |op: Op, value: Option<&str>| match value {
        Some(v) if op.keeps_value() => format!("{} {v}", op.name()),
        _ => op.name().to_owned(),
    };
    Verdict {
        node: resolved.map(|id| id.index()),
        hallucinated: action.reference.is_some() && resolved.is_none(),
        op_ok,
        element_ok,
        value_ok,
        success: op_ok && element_ok.unwrap_or(true) && value_ok.unwrap_or(true),
        op_f1: token_f1(
            &operation(action.op, action.value.as_deref()),
            &operation(step.op, step.value.as_deref()),
        ),
    }
}

/// Token-level F1 between two operation strings (Mind2Web's operation F1).
pub fn token_f1(predicted: &str, expected: &str) -> f64 {
    let tokens = |s: &str| -> Vec<String> { s.split_whitespace().map(str::to_lowercase).collect() };
    let p = tokens(predicted);
    let mut e = tokens(expected);
    if p.is_empty() || e.is_empty() {
        return f64::from(u8::from(p.is_empty() && e.is_empty()));
    }
    let mut common = 0usize;
    for token in &p {
        if let Some(i) = e.iter().position(|t| t == token) {
            e.swap_remove(i);
            common += 1;
        }
    }
    if common == 0 {
        return 0.0;
    }
    let precision = common as f64 / p.len() as f64;
    let recall = common as f64 / tokens(expected).len() as f64;
    2.0 * precision * recall / (precision + recall)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_f1_matches_mind2web_examples() {
        assert_eq!(token_f1("click", "click"), 1.0);
        assert_eq!(token_f1("type new york", "type new york"), 1.0);
        let f = token_f1("type new", "type new york");
        assert!((f - 0.8).abs() < 1e-9, "{f}");
        assert_eq!(token_f1("click", "type x"), 0.0);
    }
}
