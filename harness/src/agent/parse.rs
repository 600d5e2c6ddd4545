//! Tolerant reading of a model's answer into an [`Action`]: a JSON object anywhere in the text, key aliases, op synonyms, ref normalisation.
//!
//! Models wrap JSON in code fences and prose, rename keys (`action` for `op`,
//! `element`/`id`/`index` for `ref`, `text` for `value`), use page-agent's
//! nested shape (`{"click_element_by_index": {"index": 33}}`) and print refs
//! as `[e12]`, `ref=e12` or `12`. [`parse`] accepts all of these. A ref is
//! mapped to the observation's spelling when only the `e` prefix differs
//! (`12` ↔ `e12`); a ref the observation does not have is returned as given —
//! the runner counts it as hallucinated.

use serde_json::{Map, Value};

use super::{Action, Op};

const OP_KEYS: &[&str] = &["op", "action", "operation", "action_type", "command"];
const REF_KEYS: &[&str] = &[
    "ref",
    "element",
    "id",
    "index",
    "element_id",
    "element_ref",
    "ref_id",
    "target",
];
const VALUE_KEYS: &[&str] = &["value", "text", "input", "option", "content"];

/// Reads an action from `text`; `refs` are the observation's refs. `Err` says
/// why the answer is not an action.
pub fn parse(text: &str, refs: &[&str]) -> Result<Action, String> {
    let mut saw_json = false;
    for (start, _) in text.match_indices('{') {
        let mut values = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
        let Some(Ok(Value::Object(object))) = values.next() else {
            continue;
        };
        saw_json = true;
        if let Some(action) = from_object(&object, refs)? {
            return Ok(action);
        }
    }
    if saw_json {
        Err(format!("no op in the JSON answer: {}", short(text)))
    } else {
        Err(format!("no JSON object in the answer: {}", short(text)))
    }
}

/// `Ok(None)` when the object names no op (look further); `Err` when it names
/// one that is wrong.
fn from_object(object: &Map<String, Value>, refs: &[&str]) -> Result<Option<Action>, String> {
    let mut op_word = OP_KEYS
        .iter()
        .find_map(|k| object.get(*k).and_then(Value::as_str));
    // {"type": "click", …}: `type` is the op only when it holds an op word.
    if op_word.is_none() {
        op_word = object
            .get("type")
            .and_then(Value::as_str)
            .filter(|w| op_of(w).is_some());
    }
    let mut fields = object;
    if op_word.is_none() {
        // page-agent's shape: {"click_element_by_index": {"index": 33}}.
        if let Some((key, Value::Object(inner))) = object.iter().find(|(k, _)| op_of(k).is_some()) {
            op_word = Some(key.as_str());
            fields = inner;
        } else if let Some(Value::Object(inner)) = object.get("action") {
            return from_object(inner, refs);
        }
    }
    let Some(word) = op_word else {
        return Ok(None);
    };
    let mut op = op_of(word).ok_or_else(|| format!("unknown op {word:?}"))?;
    let reference = REF_KEYS
        .iter()
        .find_map(|k| fields.get(*k).and_then(scalar))
        .and_then(|r| normalise_ref(&r, refs));
    let value = VALUE_KEYS
        .iter()
        .find_map(|k| fields.get(*k).and_then(scalar))
        .filter(|v| !v.is_empty());
    let mut value = value;
    // "press" with a ref and no key is a click on that element ("press the OK button").
    if op == Op::Press && value.is_none() && reference.is_some() {
        op = Op::Click;
    }
    if op == Op::Scroll && value.is_none() && word.to_lowercase().contains("up") {
        value = Some("up".to_owned());
    }
    if op.needs_ref() && reference.is_none() {
        return Err(format!("op {} needs a ref", op.name()));
    }
    if op.takes_value() && value.is_none() && !(op == Op::Wait && reference.is_some()) {
        return Err(format!("op {} needs a value", op.name()));
    }
    let (reference, value) = match op {
        // A click keeps a value that names a button or keys held (right,
        // Control+click); any other value (an element's name) is dropped.
        Op::Click => (
            reference,
            value.filter(|v| pagesnap_browser::click_of(v).is_ok_and(|with| !with.is_plain())),
        ),
        Op::Dblclick | Op::Hover | Op::Focus | Op::Clear => (reference, None),
        // A scroll may name a container and a direction or distance; a key
        // press the element to focus first; a wait the element to leave.
        Op::Type
        | Op::Select
        | Op::Scroll
        | Op::Press
        | Op::Drag
        | Op::Upload
        | Op::SelectText
        | Op::Wait => (reference, value),
        Op::Dialog | Op::ClickAt => (None, value),
        Op::Done => (None, None),
    };
    Ok(Some(Action {
        op,
        reference,
        value,
    }))
}

/// A string or number as text; `null` and other shapes are absent.
fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.trim().to_owned()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The op a word names (`click`, `tap`, `input_text`, `select_option`, `finish`, …).
pub fn op_of(word: &str) -> Option<Op> {
    let word = word.trim().to_lowercase().replace(['-', ' '], "_");
    if let Some(op) = Op::from_name(&word) {
        return Some(op);
    }
    let op = match word.as_str() {
        "tap" | "check" | "click_element" | "click_element_by_index" | "left_click" => Op::Click,
        "input" | "fill" | "enter" | "type_text" | "input_text" | "fill_in" | "write" => Op::Type,
        "select_option" | "select_dropdown_option" | "choose" | "choose_option" => Op::Select,
        "scroll_down" | "scroll_up" | "scroll_page" => Op::Scroll,
        "press_key" | "key" | "keypress" | "send_keys" => Op::Press,
        "handle_dialog" | "answer_dialog" | "accept_dialog" => Op::Dialog,
        "double_click" | "doubleclick" => Op::Dblclick,
        "mouse_over" | "hover_element" => Op::Hover,
        "drag_and_drop" | "drag_to" => Op::Drag,
        "upload_file" | "file_upload" | "set_input_files" => Op::Upload,
        "select_text_in" | "highlight" | "highlight_text" => Op::SelectText,
        "mouse_click" | "click_xy" | "click_coordinates" | "click_point" => Op::ClickAt,
        "noop" | "sleep" | "wait_for" | "pause" => Op::Wait,
        "finish" | "finished" | "stop" | "complete" | "answer" | "task_complete" => Op::Done,
        _ => return None,
    };
    Some(op)
}

/// `[e12]`, `ref=e12`, `"e12"`, `#12` → `e12` / `12`, spelled as the observation spells it when only the prefix differs.
pub fn normalise_ref(raw: &str, refs: &[&str]) -> Option<String> {
    let mut r = raw.trim();
    for prefix in ["ref=", "ref:", "ref ", "[ref="] {
        if let Some(rest) = r.strip_prefix(prefix) {
            r = rest;
        }
    }
    let r = r
        .trim_matches(|c: char| matches!(c, '[' | ']' | '"' | '\'' | '#' | '(' | ')' | '<' | '>'))
        .trim();
    if r.is_empty() {
        return None;
    }
    if refs.contains(&r) {
        return Some(r.to_owned());
    }
    let digits = r.strip_prefix(['e', 'E']).unwrap_or(r);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        let prefixed = format!("e{digits}");
        if refs.contains(&prefixed.as_str()) {
            return Some(prefixed);
        }
        if refs.contains(&digits) {
            return Some(digits.to_owned());
        }
    }
    Some(r.to_owned())
}

fn short(text: &str) -> String {
    let cut: String = text.chars().take(120).collect();
    let cut = cut.replace('\n', " ");
    if text.chars().count() > 120 {
        format!("{}…", cut.trim())
    } else {
        cut.trim().to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ARIA: &[&str] = &["e1", "e6", "e10"];
    const FLAT: &[&str] = &["1", "6", "10"];

    fn action(op: Op, reference: Option<&str>, value: Option<&str>) -> Action {
        Action {
            op,
            reference: reference.map(str::to_owned),
            value: value.map(str::to_owned),
        }
    }

    #[test]
    fn plain_and_fenced_json() {
        assert_eq!(
            parse(r#"{"op": "click", "ref": "e10", "value": null}"#, ARIA),
            Ok(action(Op::Click, Some("e10"), None))
        );
        let fenced = "I'll sign in now.\n```json\n{\n  \"op\": \"click\",\n  \"ref\": \"e10\"\n}\n```\nThis submits the form.";
        assert_eq!(
            parse(fenced, ARIA),
            Ok(action(Op::Click, Some("e10"), None))
        );
    }

    #[test]
    fn key_aliases_and_op_synonyms() {
        // Llama-style answer with other key names and a numeric id.
        let text = r#"{"action": "input_text", "element": 6, "text": "ada@example.com"}"#;
        assert_eq!(
            parse(text, FLAT),
            Ok(action(Op::Type, Some("6"), Some("ada@example.com")))
        );
        let text = r#"{"type": "type", "id": "[e6]", "value": "ada@example.com"}"#;
        assert_eq!(
            parse(text, ARIA),
            Ok(action(Op::Type, Some("e6"), Some("ada@example.com")))
        );
        assert_eq!(
            parse(r#"{"action":"finish","reason":"the form is sent"}"#, ARIA),
            Ok(action(Op::Done, None, None))
        );
        assert_eq!(
            parse(r#"{"op":"scroll_down","ref":null,"value":null}"#, ARIA),
            Ok(action(Op::Scroll, None, None))
        );
    }

    #[test]
    fn page_agent_nested_shape() {
        let text =
            r#"{"evaluation_previous_goal":"ok","action":{"click_element_by_index":{"index":10}}}"#;
        assert_eq!(parse(text, ARIA), Ok(action(Op::Click, Some("e10"), None)));
    }

    #[test]
    fn refs_are_normalised_to_the_observation() {
        assert_eq!(normalise_ref("ref=e10", ARIA).as_deref(), Some("e10"));
        assert_eq!(normalise_ref("10", ARIA).as_deref(), Some("e10"));
        assert_eq!(normalise_ref("[e10]", FLAT).as_deref(), Some("10"));
        assert_eq!(normalise_ref(" #6 ", FLAT).as_deref(), Some("6"));
        // Not in the observation: returned for the runner to count as hallucinated.
        assert_eq!(normalise_ref("e99", ARIA).as_deref(), Some("e99"));
        assert_eq!(normalise_ref("[]", ARIA), None);
    }

    #[test]
    fn a_ref_not_in_the_observation_is_returned() {
        assert_eq!(
            parse(r#"{"op":"click","ref":"e42"}"#, ARIA),
            Ok(action(Op::Click, Some("e42"), None))
        );
    }

    /// A click keeps a value naming a button or keys held, and drops any
    /// other (an element's name the model repeated).
    #[test]
    fn a_click_keeps_its_button_and_drops_other_values() {
        assert_eq!(
            parse(r#"{"op":"click","ref":"e1","value":"right"}"#, ARIA),
            Ok(action(Op::Click, Some("e1"), Some("right")))
        );
        assert_eq!(
            parse(r#"{"op":"click","ref":"e1","value":"Control+left"}"#, ARIA),
            Ok(action(Op::Click, Some("e1"), Some("Control+left")))
        );
        for other in ["Submit", "left", ""] {
            let text = format!(r#"{{"op":"click","ref":"e1","value":"{other}"}}"#);
            assert_eq!(
                parse(&text, ARIA),
                Ok(action(Op::Click, Some("e1"), None)),
                "{other}"
            );
        }
    }

    #[test]
    fn skips_objects_without_an_op() {
        let text = r#"The page shows {"modal": true}. Answer: {"op":"click","ref":"e1"}"#;
        assert_eq!(parse(text, ARIA), Ok(action(Op::Click, Some("e1"), None)));
    }

    #[test]
    fn unreadable_answers_say_why() {
        let err = parse("I would click the Sign in button.", ARIA).unwrap_err();
        assert!(err.starts_with("no JSON object"), "{err}");
        let err = parse(r#"{"op":"teleport","ref":"e1"}"#, ARIA).unwrap_err();
        assert_eq!(err, "unknown op \"teleport\"");
        let err = parse(r#"{"op":"drag","ref":"e1"}"#, ARIA).unwrap_err();
        assert_eq!(err, "op drag needs a value");
        let err = parse(r#"{"op":"dblclick"}"#, ARIA).unwrap_err();
        assert_eq!(err, "op dblclick needs a ref");
        assert_eq!(
            parse(r#"{"op":"drag_and_drop","ref":"e1","value":"e2"}"#, ARIA),
            Ok(action(Op::Drag, Some("e1"), Some("e2")))
        );
        let err = parse(r#"{"op":"click"}"#, ARIA).unwrap_err();
        assert_eq!(err, "op click needs a ref");
        let err = parse(r#"{"op":"type","ref":"e6"}"#, ARIA).unwrap_err();
        assert_eq!(err, "op type needs a value");
        let err = parse(r#"{"thought":"hmm"}"#, ARIA).unwrap_err();
        assert!(err.starts_with("no op in the JSON answer"), "{err}");
        // Truncated at max_tokens.
        let err = parse(r#"{"op": "click", "ref": "e1"#, ARIA).unwrap_err();
        assert!(err.starts_with("no JSON object"), "{err}");
    }
}
