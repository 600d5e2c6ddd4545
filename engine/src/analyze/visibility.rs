//! Visibility: CSS and attribute hiding, zero area, clipping, and whether a node is in the viewport.

use crate::page::Page;

/// Why a node is not visible.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hidden {
    /// `display: none` on the node or an ancestor, or not rendered at all.
    NotRendered,
    /// `visibility: hidden | collapse`.
    VisibilityHidden,
    /// Effective opacity 0 (own or inherited).
    Transparent,
    /// The `hidden` attribute.
    HiddenAttribute,
    /// Inside an `aria-hidden="true"` subtree.
    AriaHidden,
    /// Inside an `inert` subtree.
    Inert,
    /// Zero width or height with nothing rendered outside it.
    ZeroArea,
    /// Clipped away, or entirely outside the document.
    Clipped,
}

/// Visibility of one node.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Visibility {
    /// Why it is hidden; `None` when visible.
    pub hidden: Option<Hidden>,
    /// Whether its box intersects the viewport at the recording's scroll position.
    pub in_viewport: bool,
}

impl Visibility {
    /// Visible to a sighted user (possibly off-screen).
    pub fn is_visible(&self) -> bool {
        self.hidden.is_none()
    }
}

/// Visibility per node.
pub(crate) fn compute(page: &Page) -> Vec<Visibility> {
    vec![Visibility::default(); page.len()]
}
