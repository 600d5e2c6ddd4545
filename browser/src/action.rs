//! The action vocabulary: what an agent, the tool server or `record --then` asks of a live tab ([`UserAction`]), and what became of it ([`Outcome`], [`Failure`]).

/// One action on the live page.
#[derive(Clone, Debug, PartialEq)]
pub enum UserAction {
    /// A left click at the element's visible centre.
    Click {
        /// The element.
        backend_id: u64,
    },
    /// Click the field (focus), select its content, type `text` key by key.
    Type {
        /// The field.
        backend_id: u64,
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
    /// Scroll the page (no element) or a scroll container by `dy` CSS pixels.
    Scroll {
        /// The container; none: the page.
        backend_id: Option<u64>,
        /// Pixels, positive down; `None`: 80% of the viewport (container) height.
        dy: Option<f64>,
        /// Scroll up rather than down (when `dy` is none).
        up: bool,
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
    /// It could not run as a user would; the page is unchanged.
    Failed {
        /// Why, for counting.
        kind: Failure,
        /// What to tell the agent.
        message: String,
    },
}

/// Why an action could not run as a user would.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
    /// The page's script answered an error of its own.
    Failed,
}

impl Failure {
    /// Every kind, in declaration order.
    pub const ALL: [Failure; 8] = [
        Failure::Stale,
        Failure::Covered,
        Failure::Hidden,
        Failure::NotEditable,
        Failure::NotSelect,
        Failure::NoOption,
        Failure::UnknownKey,
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
            Failure::Failed => "failed",
        }
    }
}

impl Outcome {
    pub(crate) fn failed(kind: Failure, message: impl Into<String>) -> Outcome {
        Outcome::Failed {
            kind,
            message: message.into(),
        }
    }

    pub(crate) fn ok() -> Outcome {
        Outcome::Done { note: None }
    }
}
