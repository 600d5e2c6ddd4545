//! Scroll containers and the page's viewport position (pages above/below, at top/bottom).

use super::Visibility;
use crate::page::{NodeId, Page};

/// A scroll container whose content overflows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScrollContainer {
    /// The element.
    pub node: NodeId,
    /// Pixels of content above the visible area.
    pub above: f64,
    /// Pixels below.
    pub below: f64,
    /// Pixels to the left.
    pub left: f64,
    /// Pixels to the right.
    pub right: f64,
}

/// Where the viewport is on the page (seed 003, part B).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PagePosition {
    /// Vertical scroll offset.
    pub scroll_y: f64,
    /// Document height.
    pub doc_height: f64,
    /// Viewport height.
    pub viewport_height: f64,
    /// Whole viewports above: `floor(scrollY / viewportHeight)`.
    pub pages_above: u32,
    /// Whole viewports below: `floor((docHeight - scrollY - viewportHeight) / viewportHeight)`.
    pub pages_below: u32,
    /// Pixels above the viewport.
    pub pixels_above: f64,
    /// Pixels below the viewport.
    pub pixels_below: f64,
    /// At the top.
    pub at_top: bool,
    /// At the bottom.
    pub at_bottom: bool,
}

/// Scroll containers and page position.
pub(crate) fn compute(page: &Page, visibility: &[Visibility]) -> (Vec<ScrollContainer>, PagePosition) {
    let _ = visibility;
    (Vec::new(), PagePosition::default())
}
