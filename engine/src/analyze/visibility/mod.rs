//! Visibility: CSS and attribute hiding, zero area, clipping, and whether a node is in the viewport.
//!
//! One pass in document order; each node reads what its parent passes down
//! ([`Inherited`]) plus its own attributes, computed style and box.
//!
//! Rules for a recorded page (`Page::has_layout`):
//! - An element without computed style or without a box was not rendered
//!   (`display: none` on it or an ancestor, `<head>` content, closed
//!   `<details>` content): [`Hidden::NotRendered`], inherited. Two exceptions
//!   have no box but do show: `display: contents` (its children carry the
//!   geometry) and `<option>`/`<optgroup>` of a `<select>`, which Chromium
//!   renders in the select's popup and which follow the select.
//! - `visibility: hidden | collapse` is read from each node's own computed
//!   style: CSS inheritance already applied it, and a descendant with
//!   `visibility: visible` shows again (CSS 2.2 §11.2).
//! - Effective opacity is the product of the ancestors' own opacities (each
//!   `opacity` creates a group composited as a whole, CSS Color 4 §14); 0
//!   hides the subtree.
//! - `aria-hidden="true"` and `inert` hide whole subtrees, descendants
//!   cannot undo them (WAI-ARIA 1.2 §6.7, HTML §6.3).
//! - The `hidden` attribute only counts for pages without layout; in a
//!   recording the UA's `display: none` already shows in the style, and an
//!   author rule overriding it wins, as in the browser.
//! - Zero width or height hides the element unless `overflow` is visible on
//!   both axes and some descendant has a box with area (its content paints
//!   outside the empty box, e.g. a zero-height float container).
//! - Clipping: an ancestor whose `overflow-x`/`overflow-y` is not `visible`
//!   clips its descendants to its box on that axis (CSS Overflow 3 §3); the
//!   innermost clip rectangle is carried down the tree. `position: absolute`
//!   escapes clips of ancestors below its containing block (the nearest
//!   positioned ancestor) and `position: fixed` escapes them all (transforms
//!   are not recorded, so their containing blocks are not modelled). `<html>`
//!   and `<body>` never clip: their `overflow` propagates to the viewport.
//!   Two clips are carried: every ancestor's, and only those a person cannot
//!   scroll (`overflow: hidden | clip`). Outside the second: [`Hidden::Clipped`];
//!   inside it but outside the first — scrolled out of an `auto`/`scroll`
//!   container — [`Hidden::ScrolledOut`], there for whoever scrolls it.
//!   Boxes entirely left of or above the document (`left: -9999px`, unless
//!   scrolled there inside a scroll container), the screen-reader-only
//!   pattern (a box of at most 1×1 with clipped overflow), a box inside a
//!   clip of no area (a `height: 0; overflow: hidden` parent), a box whose own
//!   `clip` or `clip-path` leaves nothing ([`super::clipping`]) and the
//!   documents of frames under [`MIN_FRAME_SIDE`] pixels are clipped too;
//!   so is a text node whose own box lies outside its clips. Everything
//!   inside a clipped element is clipped.
//! - A focusable element that focusing shows (a skip link off the document
//!   or clipped to 1×1 until a keyboard user tabs to it:
//!   [`crate::page::Layout::focus_reveal`]) and its content are not hidden
//!   by where their boxes lie now (off the document, clipped, of no area),
//!   only by clips of no area around them; they are in the viewport when
//!   their boxes' rows are, whatever their columns (`left: -9999px` keeps
//!   its `top`).
//! - Text a box shows can still be unreadable: [`super::legibility`] marks
//!   those runs afterwards ([`Hidden::Unpainted`], [`Hidden::Tiny`],
//!   [`Hidden::Faint`], [`Hidden::Covered`]).
//! - `in_viewport`: the border box intersects the viewport rectangle in
//!   document coordinates. Fixed elements are captured in document
//!   coordinates as well, so a plain intersection is right. Boxless visible
//!   elements (and empty boxes whose content overflows) are in the viewport
//!   when one of their visible children is.
//!
//! Rules for a page parsed from HTML (no layout): `hidden`, `aria-hidden`,
//! `inert`, elements that never render (`<head>`, `<script>`, `<style>`,
//! `<template>`, `<noscript>`, `<input type=hidden>`, `<dialog>` without
//! `open`, closed `<details>` content) and inline `style` declarations of
//! `display: none`, `visibility: hidden|collapse|visible` and `opacity`;
//! every node counts as in the viewport.
//!
//! Shadow roots and iframe documents inherit from their host / `<iframe>`
//! element. User-agent shadow roots (the internals of `<input>`, `<video>`)
//! are the browser's, not the page's: [`Hidden::NotRendered`]. Clips do not
//! cross into iframe documents, whose coordinates may be their own.

mod clip;
mod layout;
mod static_rules;

use crate::analyze::dom::Dom;
use crate::page::Page;

use clip::Cut;
use layout::compute_layout;
use static_rules::compute_static;

pub(crate) use clip::Clips;

/// Why a node is not visible.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
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
    /// Outside what its scroll container shows: reached by scrolling it.
    ScrolledOut,
    /// Text runs only ([`super::legibility`]): glyphs drawn in a transparent colour.
    Unpainted,
    /// Text runs only: set too small to read.
    Tiny,
    /// Text runs only: too close in colour to what is painted behind it.
    Faint,
    /// Text runs only: an opaque box is painted over the text's element.
    Covered,
}

/// Every element reason, in the order of precedence used when several apply.
const PRECEDENCE: [Hidden; 9] = [
    Hidden::NotRendered,
    Hidden::VisibilityHidden,
    Hidden::Transparent,
    Hidden::HiddenAttribute,
    Hidden::AriaHidden,
    Hidden::Inert,
    Hidden::ZeroArea,
    Hidden::Clipped,
    Hidden::ScrolledOut,
];

impl Hidden {
    /// How many reasons there are.
    pub const COUNT: usize = 13;

    /// The reasons a page hides text that the DOM and the accessibility tree
    /// still hold: what an observation withholds and counts
    /// ([`crate::observation::Withheld`]), in the order meta lists them.
    pub const WITHHELD: [Hidden; 7] = [
        Hidden::Transparent,
        Hidden::ZeroArea,
        Hidden::Clipped,
        Hidden::Unpainted,
        Hidden::Tiny,
        Hidden::Faint,
        Hidden::Covered,
    ];

    /// The reason as meta and marks write it (`zero_area`).
    pub fn name(self) -> &'static str {
        match self {
            Hidden::NotRendered => "not_rendered",
            Hidden::VisibilityHidden => "visibility_hidden",
            Hidden::Transparent => "transparent",
            Hidden::HiddenAttribute => "hidden_attribute",
            Hidden::AriaHidden => "aria_hidden",
            Hidden::Inert => "inert",
            Hidden::ZeroArea => "zero_area",
            Hidden::Clipped => "clipped",
            Hidden::ScrolledOut => "scrolled_out",
            Hidden::Unpainted => "unpainted",
            Hidden::Tiny => "tiny",
            Hidden::Faint => "faint",
            Hidden::Covered => "covered",
        }
    }

    fn bit(self) -> u16 {
        1 << (self as u16)
    }
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

/// The reasons that hold for a whole subtree once they hold for a node.
const SUBTREE_REASONS: u16 = (1 << Hidden::NotRendered as u16)
    | (1 << Hidden::HiddenAttribute as u16)
    | (1 << Hidden::AriaHidden as u16)
    | (1 << Hidden::Inert as u16);

fn first_reason(flags: u16) -> Option<Hidden> {
    PRECEDENCE
        .into_iter()
        .find(|reason| flags & reason.bit() != 0)
}

/// What a node passes to its children.
#[derive(Clone, Copy, Debug)]
struct Inherited {
    /// Subtree-wide reasons (see [`SUBTREE_REASONS`]).
    flags: u16,
    /// Product of the opacities of the ancestors and the node.
    opacity: f64,
    /// Clips for in-flow and relatively positioned descendants.
    clip: Cut,
    /// Clip for absolutely positioned descendants: the clip inside the
    /// nearest positioned ancestor (their containing block).
    abs_clip: Cut,
    /// Pages without layout only: inherited `visibility: hidden` from inline styles.
    visibility_hidden: bool,
    /// Whether the enclosing iframe (if any) intersects the viewport.
    frame_in_viewport: bool,
    /// Whether an enclosing iframe is too small to show anything readable.
    frame_too_small: bool,
    /// Inside (or at) an element that focusing shows
    /// ([`crate::page::Layout::focus_reveal`]): where its box lies now
    /// (off the document, clipped to 1×1) is not where a person sees it.
    focus_revealed: bool,
}

impl Inherited {
    const ROOT: Inherited = Inherited {
        flags: 0,
        opacity: 1.0,
        clip: Cut::NONE,
        abs_clip: Cut::NONE,
        visibility_hidden: false,
        frame_in_viewport: true,
        frame_too_small: false,
        focus_revealed: false,
    };
}

/// An iframe narrower or lower than this many CSS pixels shows nothing a
/// person can read (a 1×1 tracking frame); its whole document is [`Hidden::Clipped`].
pub(crate) const MIN_FRAME_SIDE: f64 = 4.0;

/// Visibility per node, and the clips ancestors put on each element's box.
pub(crate) fn compute(page: &Page, dom: &Dom) -> (Vec<Visibility>, Clips) {
    if page.has_layout {
        compute_layout(page, dom)
    } else {
        (compute_static(page), Clips::default())
    }
}

fn is_true(value: Option<&str>) -> bool {
    value.is_some_and(|value| value.trim().eq_ignore_ascii_case("true"))
}
