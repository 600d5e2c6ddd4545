//! The op vocabulary, declared once: every op an agent chooses, a suite names, the tool server offers, a peer's mapping keys and every output file writes ([`Op`], serde's snake_case names, [`Op::ALL`]).
//!
//! Each surface offers its subset: the agents all of [`Op::ALL`] (`done`
//! included), the browser every op but `done` ([`crate::resolve`] refuses it), the tool
//! server's `page_action` its element ops (scroll, wait, click_at and dialog
//! are tools of their own). Runs written before the names were one
//! (`selecttext`, `clickat` in a `results.jsonl`) still read back: serde
//! accepts the old spellings ([`Op::from_name`] too).

use serde::{Deserialize, Serialize};

/// A page op as agents, suites, the tool server, the peers' mappings and every
/// output file name it. The declaration order is the report order (`Ord`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    /// [`UserAction::Click`](crate::UserAction::Click) on the ref's element; the value, if any,
    /// names the button and the keys held (`right`, `Control+left`: [`crate::click_of`]).
    Click,
    /// [`UserAction::Type`](crate::UserAction::Type) the value into the ref's field (no ref: at the focus).
    Type,
    /// [`UserAction::Select`](crate::UserAction::Select) the value's option of the ref's `<select>`.
    Select,
    /// [`UserAction::Scroll`](crate::UserAction::Scroll) the page, or the ref's container; the value
    /// says `up`, `down` (or nothing), `left`, `right` or a number of pixels (negative: up).
    Scroll,
    /// [`UserAction::Press`](crate::UserAction::Press) the value's key (`Enter`, `Tab`, `Escape`, …),
    /// focusing the ref's element first if one is named.
    Press,
    /// [`UserAction::Dialog`](crate::UserAction::Dialog): answer the pending dialog; the value is
    /// `accept`, `dismiss`, or the text to accept a prompt with.
    Dialog,
    /// [`UserAction::DoubleClick`](crate::UserAction::DoubleClick) on the ref's element.
    Dblclick,
    /// [`UserAction::Hover`](crate::UserAction::Hover) over the ref's element.
    Hover,
    /// [`UserAction::Focus`](crate::UserAction::Focus) the ref's element.
    Focus,
    /// [`UserAction::Clear`](crate::UserAction::Clear) the ref's field.
    Clear,
    /// [`UserAction::Drag`](crate::UserAction::Drag) the ref's element onto the element whose ref is
    /// the value, or to the value's point `X,Y` (viewport CSS pixels).
    Drag,
    /// [`UserAction::Upload`](crate::UserAction::Upload) the value's files (comma-separated paths)
    /// into the ref's file input.
    Upload,
    /// [`UserAction::SelectText`](crate::UserAction::SelectText) in the ref's element: the value, or
    /// all of it; without a ref, the value where the page shows it.
    #[serde(alias = "selecttext")]
    SelectText,
    /// [`UserAction::ClickAt`](crate::UserAction::ClickAt) the value's point, `X,Y` in viewport CSS
    /// pixels (screenshot agents).
    #[serde(alias = "clickat")]
    ClickAt,
    /// [`UserAction::Wait`](crate::UserAction::Wait): for the ref's element to leave; else for the
    /// value: a delay (`1500`, `1500ms`, `2s`) or a text to appear.
    Wait,
    /// The task is complete (an agent's last answer; nothing runs on the page).
    Done,
}

impl Op {
    /// Every op, in declaration (report) order.
    pub const ALL: [Op; 16] = [
        Op::Click,
        Op::Type,
        Op::Select,
        Op::Scroll,
        Op::Press,
        Op::Dialog,
        Op::Dblclick,
        Op::Hover,
        Op::Focus,
        Op::Clear,
        Op::Drag,
        Op::Upload,
        Op::SelectText,
        Op::ClickAt,
        Op::Wait,
        Op::Done,
    ];

    /// The op as every surface spells it: serde's name (`select_text`); a
    /// test holds the two equal.
    pub const fn name(self) -> &'static str {
        match self {
            Op::Click => "click",
            Op::Type => "type",
            Op::Select => "select",
            Op::Scroll => "scroll",
            Op::Press => "press",
            Op::Dialog => "dialog",
            Op::Dblclick => "dblclick",
            Op::Hover => "hover",
            Op::Focus => "focus",
            Op::Clear => "clear",
            Op::Drag => "drag",
            Op::Upload => "upload",
            Op::SelectText => "select_text",
            Op::ClickAt => "click_at",
            Op::Wait => "wait",
            Op::Done => "done",
        }
    }

    /// The op a word names: its [`name`](Op::name), or an older run's
    /// spelling of it (serde's aliases: the one list of them).
    pub fn from_name(word: &str) -> Option<Op> {
        use serde::de::IntoDeserializer;
        let word: serde::de::value::StrDeserializer<'_, serde::de::value::Error> =
            word.into_deserializer();
        Op::deserialize(word).ok()
    }

    /// Whether the op acts on one element, named by a ref.
    pub fn needs_ref(self) -> bool {
        matches!(
            self,
            Op::Click
                | Op::Hover
                | Op::Type
                | Op::Select
                | Op::Dblclick
                | Op::Focus
                | Op::Clear
                | Op::Drag
                | Op::Upload
                | Op::SelectText
        )
    }

    /// Whether a suite step, a converted live run and a judge keep the
    /// value given with the op: the ops that need one, and a click (its
    /// button and the keys held: `right`, `Control`).
    pub fn keeps_value(self) -> bool {
        self.takes_value() || self == Op::Click
    }

    /// Whether the op carries a value (type, select, press, and the ops whose
    /// value says what: a drop target, files, a point, a wait).
    pub fn takes_value(self) -> bool {
        matches!(
            self,
            Op::Type | Op::Select | Op::Press | Op::Drag | Op::Upload | Op::ClickAt | Op::Wait
        )
    }
}

impl std::fmt::Display for Op {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ALL` holds every op once, in declaration order, and `name()` is
    /// serde's spelling both ways, so every writer and reader agree.
    #[test]
    fn every_op_is_listed_once_and_named_as_serde_spells_it() {
        assert!(Op::ALL.windows(2).all(|pair| pair[0] < pair[1]));
        for op in Op::ALL {
            let json = serde_json::to_string(&op).unwrap();
            assert_eq!(json, format!("\"{}\"", op.name()));
            assert_eq!(serde_json::from_str::<Op>(&json).unwrap(), op);
            assert_eq!(Op::from_name(op.name()), Some(op));
            assert_eq!(op.to_string(), op.name());
        }
        // Exhaustive: a variant added without a place in ALL fails to compile here.
        let declared = |op: Op| match op {
            Op::Click => 0,
            Op::Type => 1,
            Op::Select => 2,
            Op::Scroll => 3,
            Op::Press => 4,
            Op::Dialog => 5,
            Op::Dblclick => 6,
            Op::Hover => 7,
            Op::Focus => 8,
            Op::Clear => 9,
            Op::Drag => 10,
            Op::Upload => 11,
            Op::SelectText => 12,
            Op::ClickAt => 13,
            Op::Wait => 14,
            Op::Done => 15,
        };
        for (index, op) in Op::ALL.into_iter().enumerate() {
            assert_eq!(declared(op), index, "{op:?}");
        }
    }

    /// A run written with the harness's old lowercase names reads back.
    #[test]
    fn the_old_spellings_read_back_as_the_ops_they_meant() {
        for (old, op) in [("selecttext", Op::SelectText), ("clickat", Op::ClickAt)] {
            assert_eq!(
                serde_json::from_str::<Op>(&format!("\"{old}\"")).unwrap(),
                op
            );
            assert_eq!(Op::from_name(old), Some(op));
            assert_ne!(op.name(), old, "the old spelling is not written");
        }
        assert_eq!(Op::from_name("selectText"), None);
    }
}
