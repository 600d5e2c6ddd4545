//! The op vocabulary: the ops agents, suites and the tool server name ([`Op`]).

/// A page op as agents, suites and the tool server name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Op {
    /// [`UserAction::Click`] on the ref's element.
    Click,
    /// [`UserAction::Hover`] over the ref's element.
    Hover,
    /// [`UserAction::Type`] the value into the ref's field (no ref: at the focus).
    Type,
    /// [`UserAction::Select`] the value's option of the ref's `<select>`.
    Select,
    /// [`UserAction::Scroll`] the page, or the ref's container; the value
    /// says `up`, `down` (or nothing) or a number of pixels (negative: up).
    Scroll,
    /// [`UserAction::Press`] the value's key, focusing the ref's element first if one is named.
    Press,
    /// [`UserAction::Dialog`]: answer the pending dialog; the value is
    /// `accept`, `dismiss`, or the text to accept a prompt with.
    Dialog,
    /// [`UserAction::DoubleClick`] on the ref's element.
    Dblclick,
    /// [`UserAction::Focus`] the ref's element.
    Focus,
    /// [`UserAction::Clear`] the ref's field.
    Clear,
    /// [`UserAction::Drag`] the ref's element onto the element whose ref is
    /// the value, or to the value's point `X,Y` (viewport CSS pixels).
    Drag,
    /// [`UserAction::Upload`] the value's files (comma-separated paths) into the ref's file input.
    Upload,
    /// [`UserAction::SelectText`] in the ref's element: the value, or all of
    /// it; without a ref, the value where the page shows it.
    SelectText,
    /// [`UserAction::ClickAt`] the value's point, `X,Y` in viewport CSS pixels.
    ClickAt,
    /// [`UserAction::Wait`]: for the ref's element to leave; else for the
    /// value: a delay (`1500`, `1500ms`, `2s`) or a text to appear.
    Wait,
}

impl Op {
    /// The op as agents and tools spell it.
    pub fn name(self) -> &'static str {
        match self {
            Op::Click => "click",
            Op::Hover => "hover",
            Op::Type => "type",
            Op::Select => "select",
            Op::Scroll => "scroll",
            Op::Press => "press",
            Op::Dialog => "dialog",
            Op::Dblclick => "dblclick",
            Op::Focus => "focus",
            Op::Clear => "clear",
            Op::Drag => "drag",
            Op::Upload => "upload",
            Op::SelectText => "select_text",
            Op::ClickAt => "click_at",
            Op::Wait => "wait",
        }
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
}
