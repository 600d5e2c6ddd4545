//! The action vocabulary: what an agent, the tool server or `record --then` asks of a live tab ([`UserAction`], resolved from an [`Op`](crate::op::Op) on an observation's ref by [`resolve()`]), and what became of it ([`Outcome`], [`Failure`]).

mod resolve;

use std::time::Duration;

pub use resolve::{Resolved, click_of, dialog_of, label, paths_of, resolve, scroll_of, wait_of};

/// The longest wait an agent may ask for ([`UserAction::Wait`]).
pub const MAX_WAIT: Duration = Duration::from_secs(10);

/// What a [`UserAction::Wait`] waits for.
#[derive(Clone, Debug, PartialEq)]
pub enum Wait {
    /// Until the page's visible text contains it.
    Text(String),
    /// Until the element leaves the page or has no size on screen.
    Gone(u64),
    /// A fixed delay (at most [`MAX_WAIT`]).
    Delay(Duration),
}

/// One action on the live page.
#[derive(Clone, Debug, PartialEq)]
pub enum UserAction {
    /// A click at the element's visible centre: the left button, or the one
    /// `with` names, with the keys it holds (a right-click menu, a
    /// Control-click that adds to a selection).
    Click {
        /// The element.
        backend_id: u64,
        /// The button and the keys held.
        with: ClickWith,
    },
    /// Click the field (focus), select its content, type `text` key by key;
    /// without a field, type at the focus as it is (BrowserGym's
    /// `keyboard_type`: after a key that moved the focus, into a widget
    /// that keeps its own caret).
    Type {
        /// The field; none: whatever has the focus.
        backend_id: Option<u64>,
        /// What to type (replaces the field's content).
        text: String,
    },
    /// Choose the option of a native `<select>` whose value, label or text is `value`.
    Select {
        /// The `<select>` (or one of its options).
        backend_id: u64,
        /// The option.
        value: String,
    },
    /// Scroll the page (no element) or a scroll container, with the wheel
    /// where a point of it takes the wheel, as a person's hand does.
    Scroll {
        /// The container; none: the page.
        backend_id: Option<u64>,
        /// Down and up, or right and left.
        axis: Axis,
        /// How far.
        by: ScrollBy,
        /// As a wheel turns, or at once.
        motion: Motion,
    },
    /// Move the mouse over the element's visible centre (menus that open on hover).
    Hover {
        /// The element.
        backend_id: u64,
    },
    /// Press one key (focusing `backend_id` first, if given).
    Press {
        /// The element to focus first.
        backend_id: Option<u64>,
        /// A key name: `Enter`, `Tab`, `Escape`, `Backspace`, `ArrowDown`, … or one character.
        key: String,
    },
    /// A double click at the element's visible centre.
    DoubleClick {
        /// The element.
        backend_id: u64,
    },
    /// Focus the element (as a Tab key would reach it).
    Focus {
        /// The element.
        backend_id: u64,
    },
    /// Empty a text field (click it, select its content, delete it).
    Clear {
        /// The field.
        backend_id: u64,
    },
    /// Press the mouse on the element, move it onto `to`, release it there:
    /// drives HTML5 drag-and-drop (Chromium's drag interception) and
    /// mouse-driven widgets alike.
    Drag {
        /// What is dragged.
        backend_id: u64,
        /// Where it is dropped.
        to: Drop,
    },
    /// Give a file input (or the control that opens its chooser) files, by
    /// path; only files inside the browser's upload folder are given.
    Upload {
        /// The file input or the control.
        backend_id: u64,
        /// Paths as asked for (relative ones from the upload folder).
        paths: Vec<String>,
    },
    /// Select the element's text (`text`: that part of it), as a user's drag
    /// over it would; without an element, the first place the page shows
    /// `text` (text a snapshot shows outside any ref: a paragraph). Runs of
    /// white space match any white space.
    SelectText {
        /// The element; none: the page.
        backend_id: Option<u64>,
        /// The text to select inside it; none: all of it (an element is then needed).
        text: Option<String>,
    },
    /// A left click at a point of the viewport, in CSS pixels.
    ClickAt {
        /// From the viewport's left.
        x: f64,
        /// From the viewport's top.
        y: f64,
    },
    /// Wait for text, for an element to leave, or for a while.
    Wait(Wait),
    /// Several fields at once: text typed, a select's option chosen, a
    /// checkbox or radio set to `true`/`false`; stops at the first failure.
    Fill {
        /// Each field and its value.
        fields: Vec<(u64, String)>,
    },
    /// Answer the JavaScript dialog the page waits on.
    Dialog {
        /// OK (true) or Cancel (false).
        accept: bool,
        /// A prompt's text when accepting (none: its default text).
        text: Option<String>,
    },
}

impl UserAction {
    /// A plain left click on the element.
    pub fn click(backend_id: u64) -> UserAction {
        UserAction::Click {
            backend_id,
            with: ClickWith::default(),
        }
    }

    /// A vertical scroll as the wheel scrolls, of the page (no element) or
    /// a container.
    pub fn scroll(backend_id: Option<u64>, by: ScrollBy) -> UserAction {
        UserAction::Scroll {
            backend_id,
            axis: Axis::Vertical,
            by,
            motion: Motion::Wheel,
        }
    }
}

/// Which way a scroll moves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Axis {
    /// Down (positive) and up.
    #[default]
    Vertical,
    /// Right (positive) and left: carousels, wide tables, timelines.
    Horizontal,
}

/// How a scroll moves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Motion {
    /// Wheel notches a frame apart, as a person's hand sends them: the
    /// page's `wheel`, `scroll` and IntersectionObservers see every position
    /// on the way.
    #[default]
    Wheel,
    /// One jump (`scrollBy`), for speed: the page sees the end position only.
    Instant,
}

/// How far a scroll goes; negative: up (or left).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ScrollBy {
    /// CSS pixels.
    Pixels(f64),
    /// Heights (widths, across) of what scrolls: the page's own viewport,
    /// or the container's client box.
    Screens(f64),
}

impl ScrollBy {
    /// The step of a scroll that names no distance: 0.75 screens (seed
    /// 001's page_scroll contract), for the tool server, live episodes and
    /// every agent alike.
    pub const STEP: f64 = 0.75;

    /// Whether it goes back: up, or left.
    pub fn is_back(self) -> bool {
        match self {
            ScrollBy::Pixels(v) | ScrollBy::Screens(v) => v < 0.0,
        }
    }
}

/// A mouse button, as Playwright and BrowserGym name it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Button {
    /// The main button.
    #[default]
    Left,
    /// The context-menu button.
    Right,
    /// The wheel button.
    Middle,
}

impl Button {
    /// Every button.
    pub const ALL: [Button; 3] = [Button::Left, Button::Right, Button::Middle];

    /// The button as a click's value names it.
    pub fn name(self) -> &'static str {
        match self {
            Button::Left => "left",
            Button::Right => "right",
            Button::Middle => "middle",
        }
    }
}

/// How a click is made: which button, with which modifier keys held
/// (CDP's bits: Alt 1, Control 2, Meta 4, Shift 8).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClickWith {
    /// The button.
    pub button: Button,
    /// The modifier keys held, CDP's bits.
    pub modifiers: i64,
}

impl ClickWith {
    /// A plain left click.
    pub fn is_plain(self) -> bool {
        self == ClickWith::default()
    }

    /// The modifier keys held, by name (`Control`, `Shift`), in the order
    /// they are pressed.
    pub fn modifier_names(self) -> Vec<String> {
        crate::input::MODIFIERS
            .iter()
            .filter(|(bit, _)| self.modifiers & bit != 0)
            .map(|(_, name)| (*name).to_owned())
            .collect()
    }
}

/// Where a drag ends: on an element's visible centre, or at a point of the
/// viewport (a resize handle pulled, a shape moved aside).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Drop {
    /// The element.
    Element(u64),
    /// A point, viewport CSS pixels.
    Point(f64, f64),
}

/// What an action did.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// It ran; `note` says something worth telling the agent (e.g. a scroll
    /// that could not move), if anything.
    Done {
        /// Extra information for the agent.
        note: Option<String>,
    },
    /// It could not run as a user would; the page is unchanged (but for a
    /// [`Failure::ValueMismatch`], whose keys were sent).
    Failed {
        /// Why, for counting.
        kind: Failure,
        /// What to tell the agent.
        message: String,
    },
}

/// Why an action could not run as a user would. The one home of the kinds:
/// the actuator's scripts answer `{error: "<name>"}`, which deserializes
/// straight into it; step rows, logs and the tool server's errors spell it
/// by [`Failure::name`] (serde's name) and tell the agent
/// [`Failure::message`] unless the actuator knows more.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Failure {
    /// The node left the document.
    Stale,
    /// Another element is at the click point.
    Covered,
    /// The node has no size on screen.
    Hidden,
    /// Not a field that can be typed into (or disabled, read-only).
    NotEditable,
    /// Not a native `<select>`.
    NotSelect,
    /// The select has no enabled option of that value.
    NoOption,
    /// A key `press` does not know.
    UnknownKey,
    /// A JavaScript dialog waits for an answer; nothing else runs until then.
    DialogPending,
    /// What a wait waited for did not come within its limit.
    WaitTimeout,
    /// A file to upload is outside the upload folder (or does not exist).
    UploadRefused,
    /// The element is no file input and opened no file chooser.
    NotFileInput,
    /// The element does not hold the text to select.
    NoText,
    /// A dialog answer, but no dialog is open.
    NoDialog,
    /// A value the control cannot hold (a date not in `YYYY-MM-DD`, a
    /// slider value outside its range); nothing was set.
    BadValue,
    /// The field does not hold what was typed, selected or checked (a
    /// length limit, a script's rewrite, keys that landed elsewhere); the
    /// keys were sent.
    ValueMismatch,
    /// The action failed otherwise (a tool server's error result).
    Failed,
}

impl Failure {
    /// Every kind, in declaration order.
    pub const ALL: [Failure; 16] = [
        Failure::Stale,
        Failure::Covered,
        Failure::Hidden,
        Failure::NotEditable,
        Failure::NotSelect,
        Failure::NoOption,
        Failure::UnknownKey,
        Failure::DialogPending,
        Failure::WaitTimeout,
        Failure::UploadRefused,
        Failure::NotFileInput,
        Failure::NoText,
        Failure::NoDialog,
        Failure::BadValue,
        Failure::ValueMismatch,
        Failure::Failed,
    ];

    /// The kind as logs and tool results spell it (`not-editable`).
    pub fn name(self) -> &'static str {
        match self {
            Failure::Stale => "stale",
            Failure::Covered => "covered",
            Failure::Hidden => "hidden",
            Failure::NotEditable => "not-editable",
            Failure::NotSelect => "not-select",
            Failure::NoOption => "no-option",
            Failure::UnknownKey => "unknown-key",
            Failure::DialogPending => "dialog-pending",
            Failure::WaitTimeout => "wait-timeout",
            Failure::UploadRefused => "upload-refused",
            Failure::NotFileInput => "not-file-input",
            Failure::NoText => "no-text",
            Failure::NoDialog => "no-dialog",
            Failure::BadValue => "bad-value",
            Failure::ValueMismatch => "value-mismatch",
            Failure::Failed => "failed",
        }
    }

    /// What the agent is told when nothing more is known than the kind.
    pub fn message(self) -> &'static str {
        match self {
            Failure::Stale => {
                "the element no longer exists on the page (it was removed or replaced); use a ref from the current observation"
            }
            Failure::Covered => {
                "the element is covered: a click at its centre would land on another element; close or move what covers it first"
            }
            Failure::Hidden => {
                "the element is not visible (no size on screen), so it cannot be clicked"
            }
            Failure::NotEditable => {
                "the element is not a text field that can be typed into (or it is disabled or read-only)"
            }
            Failure::NotSelect => {
                "the element is not a native <select>; click it to open it, then click the option"
            }
            Failure::NoOption => "the select has no enabled option of that value",
            Failure::UnknownKey => "unknown key",
            Failure::DialogPending => {
                "a JavaScript dialog is open and the page is stopped until it is answered: answer it with the dialog action first"
            }
            Failure::NoDialog => "no JavaScript dialog is open, so there is nothing to answer",
            Failure::BadValue => "the control cannot hold that value; nothing was set",
            Failure::ValueMismatch => "the field does not hold what was asked",
            Failure::WaitTimeout => "what the wait waited for did not come within its limit",
            Failure::UploadRefused => {
                "the file is outside the upload folder, or does not exist there"
            }
            Failure::NotFileInput => {
                "the element is not a file input and clicking it opened no file chooser"
            }
            Failure::NoText => "the element does not hold that text",
            Failure::Failed => "the action failed",
        }
    }
}

impl Failure {
    /// What an agent is told when `dialog` is pending and it asked for
    /// anything else: the kind's message and the dialog's line.
    pub fn dialog_pending(dialog: &pagesnap_engine::dialog::Dialog) -> String {
        format!("{} ({})", Failure::DialogPending.message(), dialog.line())
    }
}

impl Outcome {
    /// A failure of `kind` told to the agent as `message`.
    pub fn failed(kind: Failure, message: impl Into<String>) -> Outcome {
        Outcome::Failed {
            kind,
            message: message.into(),
        }
    }

    pub(crate) fn ok() -> Outcome {
        Outcome::Done { note: None }
    }
}

/// Why an asked-for action cannot be run at all (nothing was tried).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unrunnable {
    /// The ref was not in the observation.
    Hallucinated(String),
    /// A ref or value the op needs is missing or wrong.
    Incomplete(String),
}

impl std::fmt::Display for Unrunnable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unrunnable::Hallucinated(reference) => {
                write!(f, "ref {reference:?} is not in the observation")
            }
            Unrunnable::Incomplete(message) => f.write_str(message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ALL` holds every kind once, in declaration order, and `name()` is
    /// serde's spelling, so a script's `{error}` and a row read back agree.
    #[test]
    fn every_kind_is_listed_once_and_named_as_serde_spells_it() {
        let declared = |kind: Failure| match kind {
            Failure::Stale => 0,
            Failure::Covered => 1,
            Failure::Hidden => 2,
            Failure::NotEditable => 3,
            Failure::NotSelect => 4,
            Failure::NoOption => 5,
            Failure::UnknownKey => 6,
            Failure::DialogPending => 7,
            Failure::WaitTimeout => 8,
            Failure::UploadRefused => 9,
            Failure::NotFileInput => 10,
            Failure::NoText => 11,
            Failure::NoDialog => 12,
            Failure::BadValue => 13,
            Failure::ValueMismatch => 14,
            Failure::Failed => 15,
        };
        for (index, kind) in Failure::ALL.into_iter().enumerate() {
            assert_eq!(declared(kind), index, "{kind:?}");
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, format!("\"{}\"", kind.name()));
            assert_eq!(serde_json::from_str::<Failure>(&json).unwrap(), kind);
            assert!(!kind.message().is_empty());
        }
        assert!(Failure::ALL.windows(2).all(|pair| pair[0] < pair[1]));
    }
}
