//! Scroll containers and the page's viewport position (pages above/below, at top/bottom).
//!
//! A scroll container is a visible element (not `<html>`/`<body>`, whose
//! scrolling is the page's own, reported by [`PagePosition`]) with recorded
//! scroll state whose content overflows on an axis that the user can scroll:
//! `overflow-*: auto | scroll` (CSS Overflow 3 §3.1; `overlay` is a legacy
//! alias of `auto`). `hidden` and `clip` can only be scrolled by script, so
//! they do not count, and their axis reports 0 pixels.
//!
//! The page position follows seed 003 (Pilo's viewport context): whole
//! viewports above and below, and whether the viewport is at the top or the
//! bottom, with a 1px tolerance for fractional scroll offsets.

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

fn user_scrollable(overflow: &str) -> bool {
    matches!(overflow, "auto" | "scroll" | "overlay")
}

/// Whether a box's content overflows where the user can scroll it:
/// (vertically, horizontally).
pub(crate) fn overflows(layout: &crate::page::Layout) -> (bool, bool) {
    let (Some(scroll), Some(style)) = (layout.scroll, layout.style.as_ref()) else {
        return (false, false);
    };
    (
        user_scrollable(&style.overflow_y) && scroll.height > scroll.client_height,
        user_scrollable(&style.overflow_x) && scroll.width > scroll.client_width,
    )
}

/// A non-negative, finite number of pixels.
fn pixels(value: f64) -> f64 {
    if value.is_finite() {
        value.max(0.0)
    } else {
        0.0
    }
}

/// Scroll containers and page position.
pub(crate) fn compute(
    page: &Page,
    visibility: &[Visibility],
) -> (Vec<ScrollContainer>, PagePosition) {
    let mut containers = Vec::new();
    for element in page.elements() {
        let id = element.id();
        if element.value().is("html")
            || element.value().is("body")
            || !visibility[id.index()].is_visible()
        {
            continue;
        }
        let layout = element.layout();
        let Some(scroll) = layout.scroll else {
            continue;
        };
        let (vertical, horizontal) = overflows(layout);
        if !vertical && !horizontal {
            continue;
        }
        let (mut above, mut below, mut left, mut right) = (0.0, 0.0, 0.0, 0.0);
        if vertical {
            above = pixels(scroll.y);
            below = pixels(scroll.height - scroll.client_height - scroll.y);
        }
        if horizontal {
            left = pixels(scroll.x);
            right = pixels(scroll.width - scroll.client_width - scroll.x);
        }
        containers.push(ScrollContainer {
            node: id,
            above,
            below,
            left,
            right,
        });
    }
    (containers, page_position(page))
}

fn page_position(page: &Page) -> PagePosition {
    let scroll_y = pixels(page.scroll.y);
    let doc_height = pixels(page.document_size.height);
    let viewport_height = pixels(page.viewport.height);
    let pixels_below = pixels(doc_height - scroll_y - viewport_height);
    let (pages_above, pages_below) = if viewport_height > 0.0 {
        // `as` saturates: a absurd document height cannot wrap around.
        (
            (scroll_y / viewport_height).floor() as u32,
            (pixels_below / viewport_height).floor() as u32,
        )
    } else {
        (0, 0)
    };
    PagePosition {
        scroll_y,
        doc_height,
        viewport_height,
        pages_above,
        pages_below,
        pixels_above: scroll_y,
        pixels_below,
        at_top: scroll_y <= 1.0,
        at_bottom: scroll_y + viewport_height >= doc_height - 1.0,
    }
}
