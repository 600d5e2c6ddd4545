//! `page_action`'s ops: the element ops of the one vocabulary ([`pagesnap_browser::Op`]) that the tool offers — scroll, wait, click_at and dialog are tools of their own (the readiness each waits for is the browser's, `Readiness::of`).

use std::borrow::Cow;

use pagesnap_browser::Op;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer};

/// The ops `page_action` takes, in the order its schema lists them.
pub(super) const OFFERED: [Op; 11] = [
    Op::Click,
    Op::Dblclick,
    Op::Type,
    Op::Clear,
    Op::Select,
    Op::Press,
    Op::Hover,
    Op::Focus,
    Op::Drag,
    Op::Upload,
    Op::SelectText,
];

/// Their names, as serde's errors list the expected ones.
const NAMES: [&str; OFFERED.len()] = {
    let mut names = [""; OFFERED.len()];
    let mut i = 0;
    while i < OFFERED.len() {
        names[i] = OFFERED[i].name();
        i += 1;
    }
    names
};

/// An offered op by its name (`#[serde(deserialize_with)]`); another op, or
/// an unknown word, is refused listing the offered ones.
pub(super) fn offered<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Op, D::Error> {
    let word = Cow::<str>::deserialize(deserializer)?;
    OFFERED
        .into_iter()
        .find(|op| op.name() == word)
        .ok_or_else(|| serde::de::Error::unknown_variant(&word, &NAMES))
}

/// The schema of `page_action`'s `op` (`#[schemars(with)]`): a string, one of
/// the offered names, kept in the schema's `$defs` as `Op`.
pub(super) struct Offered;

impl JsonSchema for Offered {
    fn schema_name() -> Cow<'static, str> {
        "Op".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "enum": NAMES })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The offered ops are the one vocabulary's ops that name an element
    /// (plus press, which may name one): nothing page_action cannot run.
    #[test]
    fn the_offered_ops_are_the_element_ops_spelled_by_their_one_name() {
        for op in Op::ALL {
            assert_eq!(
                OFFERED.contains(&op),
                op.needs_ref() || op == Op::Press,
                "{op}"
            );
        }
        for (op, name) in OFFERED.into_iter().zip(NAMES) {
            assert_eq!(name, op.name());
            assert_eq!(offered(serde_json::Value::from(name)).ok(), Some(op));
        }
        let refused = offered(serde_json::Value::from("scroll")).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "unknown variant `scroll`, expected one of `click`, `dblclick`, `type`, `clear`, \
             `select`, `press`, `hover`, `focus`, `drag`, `upload`, `select_text`"
        );
    }
}
