//! The actions a tool server's mapping file names (`[actions.click]`, `[actions.scroll_down]`, …): an op of the one vocabulary and, where its value picks the call, a variant — and the key a page op takes.

use pagesnap_browser::{Axis, Op, Unrunnable, UserAction, Wait};

/// Which of an op's calls a mapping names, where one op takes different
/// calls by its value: a scroll's direction, a dialog's answer, what a wait
/// waits for. A key is written `<op>_<variant>` (`scroll_down`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Variant {
    /// A scroll down.
    Down,
    /// A scroll up.
    Up,
    /// A dialog accepted (a prompt with `{value}`).
    Accept,
    /// A dialog dismissed.
    Dismiss,
    /// A wait until `{value}` shows on the page.
    Text,
    /// A wait of `{ms}` milliseconds (`{secs}`: in seconds).
    Time,
    /// A wait until the element `{ref}` leaves the page.
    Gone,
    /// A click with another button or keys held: `{button}` (left, right,
    /// middle) and `{modifiers}` (a list: Control, Shift, Alt, Meta).
    With,
}

impl Variant {
    /// The variant as a key writes it after its op.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Down => "down",
            Variant::Up => "up",
            Variant::Accept => "accept",
            Variant::Dismiss => "dismiss",
            Variant::Text => "text",
            Variant::Time => "time",
            Variant::Gone => "gone",
            Variant::With => "with",
        }
    }
}

/// The actions a mapping file's `[actions.*]` tables name: an op of the one
/// vocabulary ([`Op`]), with a [`Variant`] where its value picks the call.
/// `[actions.drag]` runs `{ref}` onto `{to}` (`{to_element}`: its snapshot
/// line); `[actions.upload]` gives the file input `{ref}` the files
/// `{paths}` (absolute, inside the upload folder; a list); `[actions.dialog]`
/// answers the pending dialog, `{accept}` (true or false) with `{text}` (a
/// prompt's text), for both answers when the mapping names no
/// `dialog_accept` or `dialog_dismiss`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ActionKey {
    /// The op.
    pub op: Op,
    /// Which of its calls, where its value picks one.
    pub variant: Option<Variant>,
}

impl ActionKey {
    const fn plain(op: Op) -> ActionKey {
        ActionKey { op, variant: None }
    }

    const fn of_variant(op: Op, variant: Variant) -> ActionKey {
        ActionKey {
            op,
            variant: Some(variant),
        }
    }

    /// `[actions.click]`.
    pub const CLICK: ActionKey = ActionKey::plain(Op::Click);
    /// `[actions.click_with]`: a click with another button or keys held.
    pub const CLICK_WITH: ActionKey = ActionKey::of_variant(Op::Click, Variant::With);
    /// `[actions.type]`.
    pub const TYPE: ActionKey = ActionKey::plain(Op::Type);
    /// `[actions.select]`.
    pub const SELECT: ActionKey = ActionKey::plain(Op::Select);
    /// `[actions.press]`.
    pub const PRESS: ActionKey = ActionKey::plain(Op::Press);
    /// `[actions.scroll_down]`.
    pub const SCROLL_DOWN: ActionKey = ActionKey::of_variant(Op::Scroll, Variant::Down);
    /// `[actions.scroll_up]`.
    pub const SCROLL_UP: ActionKey = ActionKey::of_variant(Op::Scroll, Variant::Up);
    /// `[actions.dblclick]`.
    pub const DBLCLICK: ActionKey = ActionKey::plain(Op::Dblclick);
    /// `[actions.hover]`.
    pub const HOVER: ActionKey = ActionKey::plain(Op::Hover);
    /// `[actions.drag]`.
    pub const DRAG: ActionKey = ActionKey::plain(Op::Drag);
    /// `[actions.dialog_accept]`.
    pub const DIALOG_ACCEPT: ActionKey = ActionKey::of_variant(Op::Dialog, Variant::Accept);
    /// `[actions.dialog_dismiss]`.
    pub const DIALOG_DISMISS: ActionKey = ActionKey::of_variant(Op::Dialog, Variant::Dismiss);
    /// `[actions.dialog]`: both answers, `{accept}` saying which.
    pub const DIALOG: ActionKey = ActionKey::plain(Op::Dialog);
    /// `[actions.focus]`.
    pub const FOCUS: ActionKey = ActionKey::plain(Op::Focus);
    /// `[actions.clear]`: empty a text field.
    pub const CLEAR: ActionKey = ActionKey::plain(Op::Clear);
    /// `[actions.wait_text]`.
    pub const WAIT_TEXT: ActionKey = ActionKey::of_variant(Op::Wait, Variant::Text);
    /// `[actions.wait_time]`.
    pub const WAIT_TIME: ActionKey = ActionKey::of_variant(Op::Wait, Variant::Time);
    /// `[actions.wait_gone]`.
    pub const WAIT_GONE: ActionKey = ActionKey::of_variant(Op::Wait, Variant::Gone);
    /// `[actions.upload]`.
    pub const UPLOAD: ActionKey = ActionKey::plain(Op::Upload);

    /// Every key a mapping may name, in the order errors list them.
    pub const ALL: [ActionKey; 19] = [
        ActionKey::CLICK,
        ActionKey::CLICK_WITH,
        ActionKey::TYPE,
        ActionKey::SELECT,
        ActionKey::PRESS,
        ActionKey::SCROLL_DOWN,
        ActionKey::SCROLL_UP,
        ActionKey::DBLCLICK,
        ActionKey::HOVER,
        ActionKey::DRAG,
        ActionKey::DIALOG_ACCEPT,
        ActionKey::DIALOG_DISMISS,
        ActionKey::DIALOG,
        ActionKey::FOCUS,
        ActionKey::CLEAR,
        ActionKey::WAIT_TEXT,
        ActionKey::WAIT_TIME,
        ActionKey::WAIT_GONE,
        ActionKey::UPLOAD,
    ];

    /// The key as the mapping file writes it: the op's name, then its
    /// variant's (`scroll_down`, `dialog_accept`, `wait_gone`).
    pub fn name(self) -> String {
        match self.variant {
            None => self.op.name().to_owned(),
            Some(variant) => format!("{}_{}", self.op.name(), variant.name()),
        }
    }

    /// The call a page op takes on a tool server (a scroll's direction from
    /// its value, as [`pagesnap_browser::scroll_of`] reads it; a wait's kind
    /// from its ref and value, as [`pagesnap_browser::resolve`] reads them);
    /// the ops no mapping names are unrunnable by name.
    pub fn of(op: Op, reference: Option<&str>, value: &str) -> Result<ActionKey, Unrunnable> {
        Ok(match op {
            Op::Click if pagesnap_browser::click_of(value)?.is_plain() => ActionKey::CLICK,
            Op::Click => ActionKey::CLICK_WITH,
            Op::Type => ActionKey::TYPE,
            Op::Select => ActionKey::SELECT,
            Op::Press => ActionKey::PRESS,
            Op::Scroll => match pagesnap_browser::scroll_of(value)? {
                (Axis::Horizontal, _) => {
                    return Err(Unrunnable::Incomplete(
                        "a tool server's mapping scrolls up and down only, not left or right"
                            .to_owned(),
                    ));
                }
                (Axis::Vertical, by) if by.is_back() => ActionKey::SCROLL_UP,
                (Axis::Vertical, _) => ActionKey::SCROLL_DOWN,
            },
            Op::Dialog => match pagesnap_browser::dialog_of(value) {
                UserAction::Dialog { accept: false, .. } => ActionKey::DIALOG_DISMISS,
                _ => ActionKey::DIALOG_ACCEPT,
            },
            Op::Hover => ActionKey::HOVER,
            Op::Dblclick => ActionKey::DBLCLICK,
            Op::Drag => ActionKey::DRAG,
            Op::Focus => ActionKey::FOCUS,
            Op::Clear => ActionKey::CLEAR,
            // A wait with a ref is for the element to leave.
            Op::Wait if reference.is_some() => ActionKey::WAIT_GONE,
            Op::Wait => match pagesnap_browser::wait_of(value) {
                Wait::Text(text) if text.is_empty() => {
                    return Err(Unrunnable::Incomplete(
                        "wait needs a ref (to leave), a delay (1500ms, 2s) or a text (to appear)"
                            .to_owned(),
                    ));
                }
                Wait::Text(_) => ActionKey::WAIT_TEXT,
                Wait::Delay(_) => ActionKey::WAIT_TIME,
                Wait::Gone(_) => ActionKey::WAIT_GONE,
            },
            Op::Upload => ActionKey::UPLOAD,
            Op::SelectText | Op::ClickAt => {
                return Err(Unrunnable::Incomplete(format!(
                    "a tool server mapping has no call for {}",
                    op.name()
                )));
            }
            Op::Done => {
                return Err(Unrunnable::Incomplete("done is no tool call".to_owned()));
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key is named `<op>` or `<op>_<variant>`, and the names are unique.
    #[test]
    fn every_key_is_named_by_its_op_and_variant_once() {
        let names: Vec<String> = ActionKey::ALL.iter().map(|k| k.name()).collect();
        let mut unique = names.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "{names:?}");
        for key in ActionKey::ALL {
            assert!(key.name().starts_with(key.op.name()), "{key:?}");
        }
        assert_eq!(ActionKey::SCROLL_DOWN.name(), "scroll_down");
        assert_eq!(ActionKey::DIALOG_ACCEPT.name(), "dialog_accept");
        assert_eq!(ActionKey::CLICK.name(), "click");
    }

    #[test]
    fn a_wait_is_keyed_by_what_it_waits_for() {
        let key = |reference: Option<&str>, value: &str| ActionKey::of(Op::Wait, reference, value);
        assert_eq!(key(Some("e3"), ""), Ok(ActionKey::WAIT_GONE));
        assert_eq!(key(None, "1500ms"), Ok(ActionKey::WAIT_TIME));
        assert_eq!(key(None, "2s"), Ok(ActionKey::WAIT_TIME));
        assert_eq!(key(None, "Saved"), Ok(ActionKey::WAIT_TEXT));
        assert!(matches!(key(None, " "), Err(Unrunnable::Incomplete(_))));
        assert_eq!(
            ActionKey::of(Op::Upload, Some("e1"), "a.pdf"),
            Ok(ActionKey::UPLOAD)
        );
    }

    /// A scroll's key is its direction; a peer's mapping has no left or
    /// right, so those are refused by name, not run as a scroll down.
    #[test]
    fn a_scroll_is_keyed_by_its_direction() {
        let key = |value: &str| ActionKey::of(Op::Scroll, None, value);
        assert_eq!(key(""), Ok(ActionKey::SCROLL_DOWN));
        assert_eq!(key("up"), Ok(ActionKey::SCROLL_UP));
        assert_eq!(key("-300px"), Ok(ActionKey::SCROLL_UP));
        for across in ["left", "Right"] {
            let refused = key(across).unwrap_err().to_string();
            assert!(refused.contains("not left or right"), "{refused}");
        }
    }
}
