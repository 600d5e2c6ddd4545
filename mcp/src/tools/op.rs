//! `page_action`'s ops: the names an agent gives, each mapped to the browser's op and to the readiness it waits for.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::readiness::Readiness;

#[derive(Clone, Copy, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    Click,
    Dblclick,
    Type,
    Clear,
    Select,
    Press,
    Hover,
    Focus,
    Drag,
    Upload,
    SelectText,
}

impl Op {
    pub(super) fn page_op(self) -> pagesnap_browser::Op {
        match self {
            Op::Click => pagesnap_browser::Op::Click,
            Op::Dblclick => pagesnap_browser::Op::Dblclick,
            Op::Type => pagesnap_browser::Op::Type,
            Op::Clear => pagesnap_browser::Op::Clear,
            Op::Select => pagesnap_browser::Op::Select,
            Op::Press => pagesnap_browser::Op::Press,
            Op::Hover => pagesnap_browser::Op::Hover,
            Op::Focus => pagesnap_browser::Op::Focus,
            Op::Drag => pagesnap_browser::Op::Drag,
            Op::Upload => pagesnap_browser::Op::Upload,
            Op::SelectText => pagesnap_browser::Op::SelectText,
        }
    }

    pub(super) fn name(self) -> &'static str {
        self.page_op().name()
    }

    pub(super) fn readiness(self) -> Readiness {
        match self {
            Op::Click | Op::Dblclick | Op::Press | Op::Drag => Readiness::CLICK,
            Op::Type | Op::Clear | Op::Focus | Op::SelectText => Readiness::NONE,
            Op::Select | Op::Upload => Readiness::SELECT,
            Op::Hover => Readiness::HOVER,
        }
    }
}

#[cfg(test)]
mod dump_schema_tmp {
    #[test]
    fn dump() {
        let schema = super::super::input_schema::<super::super::action::ActionArgs>();
        std::fs::write(
            "/tmp/schema_before.json",
            serde_json::to_string_pretty(&*schema).unwrap(),
        )
        .unwrap();
        let err = serde_json::from_value::<super::super::action::ActionArgs>(
            serde_json::json!({"op": "scroll"}),
        )
        .unwrap_err();
        std::fs::write("/tmp/err_before.txt", err.to_string()).unwrap();
    }
}
