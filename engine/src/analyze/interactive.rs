//! Interactivity: which nodes an agent can act on, and why.

use super::{Role, States, Visibility};
use crate::page::Page;

/// Why a node was judged interactive (the first reason that applies, in this order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum InteractiveReason {
    /// A native control: `a[href]`, `button`, `input`, `select`, `textarea`, …
    NativeControl,
    /// An ARIA widget role (`button`, `checkbox`, `option`, `tab`, …).
    AriaWidget,
    /// `contenteditable`.
    ContentEditable,
    /// `<summary>` of a `<details>`.
    Summary,
    /// A `<label>` wrapping or pointing at a control.
    Label,
    /// `tabindex >= 0`.
    Tabindex,
    /// A click listener reported by the browser.
    ClickListener,
    /// `cursor: pointer` at the top of a pointer subtree.
    CursorPointer,
}

/// Interactivity per node.
pub(crate) fn compute(
    page: &Page,
    roles: &[Option<Role>],
    visibility: &[Visibility],
    states: &[States],
) -> Vec<Option<InteractiveReason>> {
    let _ = (roles, visibility, states);
    vec![None; page.len()]
}
