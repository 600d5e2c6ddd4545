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

use crate::geom::Rect;
use crate::page::{Element, Namespace, Node, NodeId, Page, ShadowMode};
use crate::recording::Style;

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

/// An axis-aligned clip region; infinite edges where nothing clips.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Clip {
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
}

impl Clip {
    const NONE: Clip = Clip {
        x0: f64::NEG_INFINITY,
        y0: f64::NEG_INFINITY,
        x1: f64::INFINITY,
        y1: f64::INFINITY,
    };
    const EMPTY: Clip = Clip {
        x0: 0.0,
        y0: 0.0,
        x1: 0.0,
        y1: 0.0,
    };

    /// Whether nothing shows through: an axis that clips has no extent.
    fn is_empty(&self) -> bool {
        self.x1 <= self.x0 || self.y1 <= self.y0
    }

    /// Whether some of `rect` shows through (non-empty intersection).
    fn shows(&self, rect: &Rect) -> bool {
        rect.x < self.x1 && self.x0 < rect.right() && rect.y < self.y1 && self.y0 < rect.bottom()
    }

    /// Narrows the clip to `rect` on the axes that clip.
    fn narrow(self, rect: &Rect, x: bool, y: bool) -> Clip {
        let mut clip = self;
        if x {
            clip.x0 = clip.x0.max(rect.x);
            clip.x1 = clip.x1.min(rect.right()).max(clip.x0);
        }
        if y {
            clip.y0 = clip.y0.max(rect.y);
            clip.y1 = clip.y1.min(rect.bottom()).max(clip.y0);
        }
        clip
    }
}

/// The clips on a box: `all` of them, and the `hard` ones a person cannot
/// scroll (`overflow: hidden | clip`). A box outside `all` but inside `hard`
/// is scrolled out of a scroll container: there, reached by scrolling it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Cut {
    all: Clip,
    hard: Clip,
}

impl Cut {
    const NONE: Cut = Cut {
        all: Clip::NONE,
        hard: Clip::NONE,
    };
    const EMPTY: Cut = Cut {
        all: Clip::EMPTY,
        hard: Clip::EMPTY,
    };

    /// Narrows to `rect` on the axes that clip (`x`, `y`), the hard clip on
    /// those a person cannot scroll (`hard_x`, `hard_y`).
    fn narrow(self, rect: &Rect, (x, y): (bool, bool), (hard_x, hard_y): (bool, bool)) -> Cut {
        Cut {
            all: self.all.narrow(rect, x, y),
            hard: self.hard.narrow(rect, hard_x, hard_y),
        }
    }
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
    };
}

/// An iframe narrower or lower than this many CSS pixels shows nothing a
/// person can read (a 1×1 tracking frame); its whole document is [`Hidden::Clipped`].
pub(crate) const MIN_FRAME_SIDE: f64 = 4.0;

/// What ancestors' overflow clips leave of each element's box: the region
/// its box is cut to (empty for pages without layout: nothing is cut).
#[derive(Debug, Default)]
pub(crate) struct Clips(Vec<Clip>);

impl Clips {
    /// The part of `rect` (a box of element `id`) its ancestors let show;
    /// `None` when nothing shows.
    pub(crate) fn visible_part(&self, id: NodeId, rect: Rect) -> Option<Rect> {
        let Some(clip) = self.0.get(id.index()) else {
            return Some(rect);
        };
        if *clip == Clip::NONE {
            return Some(rect);
        }
        if !clip.shows(&rect) {
            return None;
        }
        let x0 = rect.x.max(clip.x0);
        let y0 = rect.y.max(clip.y0);
        let x1 = rect.right().min(clip.x1);
        let y1 = rect.bottom().min(clip.y1);
        Some(Rect {
            x: x0,
            y: y0,
            width: x1 - x0,
            height: y1 - y0,
        })
    }
}

/// Visibility per node, and the clips ancestors put on each element's box.
pub(crate) fn compute(page: &Page) -> (Vec<Visibility>, Clips) {
    if page.has_layout {
        compute_layout(page)
    } else {
        (compute_static(page), Clips::default())
    }
}

fn overflow_clips(value: &str) -> bool {
    matches!(value, "hidden" | "clip" | "auto" | "scroll" | "overlay")
}

fn is_positioned(style: &Style) -> bool {
    matches!(
        style.position.as_str(),
        "relative" | "absolute" | "fixed" | "sticky"
    )
}

fn own_opacity(style: Option<&Style>) -> f64 {
    match style {
        Some(style) if style.opacity.is_finite() => style.opacity.clamp(0.0, 1.0),
        _ => 1.0,
    }
}

fn is_true(value: Option<&str>) -> bool {
    value.is_some_and(|value| value.trim().eq_ignore_ascii_case("true"))
}

/// `<html>` and `<body>` of any document: their overflow belongs to the viewport.
fn is_root_element(element: &Element) -> bool {
    element.is("html") || element.is("body")
}

/// Whether the element is an `<option>`/`<optgroup>` shown through its `<select>`.
fn follows_select(page: &Page, id: NodeId, element: &Element) -> Option<NodeId> {
    if !(element.is("option") || element.is("optgroup")) {
        return None;
    }
    let parent = page.parent(id)?;
    let parent_element = page.element(parent)?;
    (parent_element.is("select") || parent_element.is("optgroup")).then_some(parent)
}

/// Per node (reverse document order): whether descendant boxes with area
/// exist, and whether any descendant has a box at all.
fn descendant_boxes(page: &Page) -> (Vec<bool>, Vec<bool>) {
    let mut content = vec![false; page.len()];
    let mut boxed = vec![false; page.len()];
    for id in page.ids().rev() {
        let layout = page.layout(id);
        let own = layout
            .bounds
            .is_some_and(|b| b.width > 0.0 && b.height > 0.0)
            && layout.style.as_ref().is_none_or(|s| s.display != "none");
        if let Some(parent) = page.parent(id) {
            if own || content[id.index()] {
                content[parent.index()] = true;
            }
            if layout.bounds.is_some() || boxed[id.index()] {
                boxed[parent.index()] = true;
            }
        }
    }
    (content, boxed)
}

/// The style of an element Chromium rendered without a box of its own:
/// DOMSnapshot has no layout entry (hence no computed style) for
/// `display: contents` elements — every `<slot>`, and author wrappers — yet
/// their descendants have boxes, which a `display: none` element's never do.
fn contents_style() -> Style {
    Style {
        display: "contents".to_owned(),
        visibility: "visible".to_owned(),
        opacity: 1.0,
        ..Style::default()
    }
}

fn compute_layout(page: &Page) -> (Vec<Visibility>, Clips) {
    let len = page.len();
    let mut clips = vec![Clip::NONE; len];
    let viewport = page.viewport_rect();
    let (content, boxed) = descendant_boxes(page);
    let contents = contents_style();
    let mut out = vec![Visibility::default(); len];
    let mut passed = vec![Inherited::ROOT; len];
    // Visible nodes whose own box cannot say whether they show in the
    // viewport; their children decide (in the reverse pass below).
    let mut by_children = vec![false; len];
    for id in page.ids() {
        let i = id.index();
        let parent = page.parent(id);
        let from = parent.map_or(Inherited::ROOT, |p| passed[p.index()]);
        let parent_out = parent.map_or(
            Visibility {
                hidden: None,
                in_viewport: true,
            },
            |p| out[p.index()],
        );
        let layout = page.layout(id);
        match page.node(id) {
            Node::Document { iframe: false } => {
                out[i] = parent_out;
                passed[i] = Inherited::ROOT;
            }
            Node::Document { iframe: true } => {
                out[i] = parent_out;
                let frame = parent.and_then(|p| page.layout(p).bounds);
                let too_small =
                    frame.is_some_and(|b| b.width < MIN_FRAME_SIDE || b.height < MIN_FRAME_SIDE);
                passed[i] = Inherited {
                    clip: Cut::NONE,
                    abs_clip: Cut::NONE,
                    frame_in_viewport: from.frame_in_viewport && parent_out.in_viewport,
                    frame_too_small: from.frame_too_small || too_small,
                    ..from
                };
            }
            Node::ShadowRoot(ShadowMode::UserAgent) => {
                out[i] = Visibility {
                    hidden: Some(Hidden::NotRendered),
                    in_viewport: parent_out.in_viewport,
                };
                passed[i] = Inherited {
                    flags: from.flags | Hidden::NotRendered.bit(),
                    ..from
                };
            }
            Node::ShadowRoot(_) => {
                out[i] = parent_out;
                passed[i] = from;
            }
            Node::Text(_) => {
                // A text node shows when its parent element does, unless its
                // own box lies wholly outside what the parent's clips let
                // through (scrolled out of a scroll container: not in view).
                let (in_viewport, clipped) = match layout.bounds {
                    Some(bounds) if bounds.area() > 0.0 => (
                        bounds.intersects(&viewport),
                        if !from.clip.hard.shows(&bounds) {
                            Some(Hidden::Clipped)
                        } else if !from.clip.all.shows(&bounds) {
                            Some(Hidden::ScrolledOut)
                        } else {
                            None
                        },
                    ),
                    _ => (parent_out.in_viewport, None),
                };
                out[i] = Visibility {
                    hidden: parent_out.hidden.or(clipped),
                    in_viewport,
                };
                passed[i] = from;
            }
            Node::Element(element) => {
                if let Some(select) = follows_select(page, id, element).filter(|_| {
                    layout.bounds.is_none()
                        && layout.style.as_ref().is_none_or(|s| s.display != "none")
                }) {
                    out[i] = out[select.index()];
                    passed[i] = passed[select.index()];
                    continue;
                }
                let style = match layout.style.as_deref() {
                    // A `<slot>`'s assigned nodes are its host's children.
                    None if layout.bounds.is_none() && (boxed[i] || element.is("slot")) => {
                        Some(&contents)
                    }
                    style => style,
                };
                let (visibility, inherited, needs_children) =
                    element_visibility(element, layout.bounds, style, from, content[i], &viewport);
                clips[i] = style.map_or(from.clip, |style| own_clip(style, from)).all;
                out[i] = visibility;
                passed[i] = inherited;
                by_children[i] = needs_children && visibility.is_visible();
            }
        }
        // Content of an iframe shows in the viewport only if the iframe does.
        out[i].in_viewport &= from.frame_in_viewport;
    }
    for id in page.ids().rev() {
        let Some(parent) = page.parent(id) else {
            continue;
        };
        let visible_here = out[id.index()].is_visible() && out[id.index()].in_viewport;
        if by_children[parent.index()] && visible_here {
            out[parent.index()].in_viewport = true;
        }
    }
    (out, Clips(clips))
}

/// The clips that apply to an element's own box: its containing block's.
fn own_clip(style: &Style, from: Inherited) -> Cut {
    match style.position.as_str() {
        "fixed" => Cut::NONE,
        "absolute" => from.abs_clip,
        _ => from.clip,
    }
}

/// One element of a recorded page: its visibility, what it passes down, and
/// whether its children decide `in_viewport`.
fn element_visibility(
    element: &Element,
    bounds: Option<Rect>,
    style: Option<&Style>,
    from: Inherited,
    has_content: bool,
    viewport: &Rect,
) -> (Visibility, Inherited, bool) {
    let mut flags = from.flags;
    let opacity = from.opacity * own_opacity(style);
    if opacity <= 0.0 {
        flags |= Hidden::Transparent.bit();
    }
    if is_true(element.attr("aria-hidden")) {
        flags |= Hidden::AriaHidden.bit();
    }
    if element.has_attr("inert") {
        flags |= Hidden::Inert.bit();
    }
    let Some(style) = style.filter(|s| s.display != "none") else {
        flags |= Hidden::NotRendered.bit();
        let visibility = Visibility {
            hidden: first_reason(flags),
            in_viewport: false,
        };
        let inherited = Inherited {
            flags: flags & SUBTREE_REASONS,
            opacity,
            ..from
        };
        return (visibility, inherited, false);
    };
    if matches!(style.visibility.as_str(), "hidden" | "collapse") {
        flags |= Hidden::VisibilityHidden.bit();
    }
    let own_clip = own_clip(style, from);
    let Some(bounds) = bounds.filter(|b| {
        b.x.is_finite() && b.y.is_finite() && b.width.is_finite() && b.height.is_finite()
    }) else {
        if style.display != "contents" {
            flags |= Hidden::NotRendered.bit();
        }
        // A `display: contents` element has no box; its children are laid
        // out as if they were the element's parent's.
        let visibility = Visibility {
            hidden: first_reason(flags),
            in_viewport: false,
        };
        let inherited = Inherited {
            flags: flags & SUBTREE_REASONS,
            opacity,
            clip: own_clip,
            abs_clip: from.abs_clip,
            ..from
        };
        return (visibility, inherited, true);
    };
    let clips_x = overflow_clips(&style.overflow_x) && !is_root_element(element);
    let clips_y = overflow_clips(&style.overflow_y) && !is_root_element(element);
    let empty = bounds.width <= 0.0 || bounds.height <= 0.0;
    let overflows_visibly = empty && !clips_x && !clips_y && has_content;
    if empty && !overflows_visibly {
        flags |= Hidden::ZeroArea.bit();
    }
    // Inside a clip of no area (an ancestor of zero width or height that
    // clips), in a frame too small to read, or clipped to nothing by its own
    // `clip` or `clip-path`: nothing of it, or of its content, shows.
    if own_clip.hard.is_empty()
        || from.frame_too_small
        || super::clipping::clips_everything(style, &bounds)
    {
        flags |= Hidden::Clipped.bit();
    }
    if !empty {
        // Left of or above the document — unless scrolled there inside a
        // scroll container, which a person scrolls back.
        let off_document =
            (bounds.right() <= 0.0 || bounds.bottom() <= 0.0) && own_clip.all.shows(&bounds);
        // The "visually hidden" pattern: `width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0)`.
        let screen_reader_only =
            bounds.width <= 1.0 && bounds.height <= 1.0 && (clips_x || clips_y);
        if off_document || screen_reader_only || !own_clip.hard.shows(&bounds) {
            flags |= Hidden::Clipped.bit();
        }
    }
    if !empty && !own_clip.all.shows(&bounds) {
        flags |= Hidden::ScrolledOut.bit();
    }
    let inner_clip = if flags & Hidden::Clipped.bit() != 0 {
        Cut::EMPTY
    } else {
        let hard = |value: &str| matches!(value, "hidden" | "clip");
        own_clip.narrow(
            &bounds,
            (clips_x, clips_y),
            (
                clips_x && hard(&style.overflow_x),
                clips_y && hard(&style.overflow_y),
            ),
        )
    };
    let inherited = Inherited {
        flags: flags & SUBTREE_REASONS,
        opacity,
        clip: inner_clip,
        abs_clip: if is_positioned(style) {
            inner_clip
        } else {
            from.abs_clip
        },
        ..from
    };
    let visibility = Visibility {
        hidden: first_reason(flags),
        in_viewport: bounds.intersects(viewport),
    };
    (visibility, inherited, overflows_visibly)
}

/// Elements that never render, whatever their styles (HTML §15.3.1).
fn never_rendered(element: &Element) -> bool {
    (element.ns == Namespace::Html
        && matches!(
            element.name.as_str(),
            "head"
                | "script"
                | "style"
                | "template"
                | "noscript"
                | "title"
                | "meta"
                | "link"
                | "base"
        ))
        || (element.is("input") && super::dom::has_input_type(element, "hidden"))
        || (element.is("dialog") && !element.has_attr("open"))
}

/// Content of a closed `<details>` other than its first `<summary>` is not rendered.
fn in_closed_details(page: &Page, id: NodeId) -> bool {
    let Some(parent) = page.parent(id) else {
        return false;
    };
    if !page
        .element(parent)
        .is_some_and(|e| e.is("details") && !e.has_attr("open"))
    {
        return false;
    }
    let first_summary = page
        .children(parent)
        .find(|&child| page.element(child).is_some_and(|e| e.is("summary")));
    first_summary != Some(id)
}

/// The inline declarations the static rules read.
#[derive(Default)]
struct InlineStyle {
    display_none: bool,
    visibility: Option<bool>,
    opacity: Option<f64>,
}

/// Reads `display`, `visibility` and `opacity` from a `style` attribute; the
/// last declaration wins, as in CSS.
fn inline_style(style: &str) -> InlineStyle {
    let mut out = InlineStyle::default();
    for declaration in style.split(';') {
        let Some((property, value)) = declaration.split_once(':') else {
            continue;
        };
        let value = value.trim();
        let value = value
            .strip_suffix("!important")
            .unwrap_or(value)
            .trim()
            .to_ascii_lowercase();
        match property.trim().to_ascii_lowercase().as_str() {
            "display" => out.display_none = value == "none",
            "visibility" => {
                out.visibility = match value.as_str() {
                    "hidden" | "collapse" => Some(true),
                    "visible" => Some(false),
                    _ => out.visibility,
                };
            }
            "opacity" => {
                let parsed = match value.strip_suffix('%') {
                    Some(percent) => percent.trim().parse::<f64>().ok().map(|p| p / 100.0),
                    None => value.parse::<f64>().ok(),
                };
                if let Some(opacity) = parsed.filter(|o| o.is_finite()) {
                    out.opacity = Some(opacity.clamp(0.0, 1.0));
                }
            }
            _ => {}
        }
    }
    out
}

fn compute_static(page: &Page) -> Vec<Visibility> {
    let len = page.len();
    let mut out = vec![
        Visibility {
            hidden: None,
            in_viewport: true,
        };
        len
    ];
    let mut passed = vec![Inherited::ROOT; len];
    for id in page.ids() {
        let i = id.index();
        let from = page
            .parent(id)
            .map_or(Inherited::ROOT, |p| passed[p.index()]);
        let mut flags = from.flags;
        let mut visibility_hidden = from.visibility_hidden;
        let mut opacity = from.opacity;
        if in_closed_details(page, id) {
            flags |= Hidden::NotRendered.bit();
        }
        match page.node(id) {
            Node::ShadowRoot(ShadowMode::UserAgent) => flags |= Hidden::NotRendered.bit(),
            Node::Element(element) => {
                if never_rendered(element) {
                    flags |= Hidden::NotRendered.bit();
                }
                if element.has_attr("hidden") {
                    flags |= Hidden::HiddenAttribute.bit();
                }
                if is_true(element.attr("aria-hidden")) {
                    flags |= Hidden::AriaHidden.bit();
                }
                if element.has_attr("inert") {
                    flags |= Hidden::Inert.bit();
                }
                if let Some(style) = element.attr("style") {
                    let inline = inline_style(style);
                    if inline.display_none {
                        flags |= Hidden::NotRendered.bit();
                    }
                    visibility_hidden = inline.visibility.unwrap_or(visibility_hidden);
                    opacity *= inline.opacity.unwrap_or(1.0);
                }
            }
            _ => {}
        }
        let mut own = flags;
        if visibility_hidden {
            own |= Hidden::VisibilityHidden.bit();
        }
        if opacity <= 0.0 {
            own |= Hidden::Transparent.bit();
        }
        out[i].hidden = first_reason(own);
        passed[i] = Inherited {
            flags: flags & SUBTREE_REASONS,
            opacity,
            visibility_hidden,
            ..Inherited::ROOT
        };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hidden_of(html: &str, selector: &str) -> Option<Hidden> {
        let page = Page::from_html(html);
        let (visibility, _) = compute(&page);
        let selector = crate::page::Selector::parse(selector).unwrap();
        let element = page.select(&selector).next().unwrap();
        visibility[element.id().index()].hidden
    }

    #[test]
    fn static_rules() {
        assert_eq!(
            hidden_of("<div hidden><p>x</p></div>", "p"),
            Some(Hidden::HiddenAttribute)
        );
        assert_eq!(
            hidden_of("<div aria-hidden=TRUE><p>x</p></div>", "p"),
            Some(Hidden::AriaHidden)
        );
        assert_eq!(
            hidden_of("<div inert><p>x</p></div>", "p"),
            Some(Hidden::Inert)
        );
        assert_eq!(
            hidden_of("<div style='display: none !important'><p>x</p></div>", "p"),
            Some(Hidden::NotRendered)
        );
        assert_eq!(
            hidden_of("<div style='visibility:hidden'><p>x</p></div>", "p"),
            Some(Hidden::VisibilityHidden)
        );
        assert_eq!(
            hidden_of(
                "<div style='visibility:hidden'><p style='visibility:visible'>x</p></div>",
                "p"
            ),
            None
        );
        assert_eq!(
            hidden_of("<div style='opacity:0'><p>x</p></div>", "p"),
            Some(Hidden::Transparent)
        );
        assert_eq!(
            hidden_of("<details><summary>s</summary><p>x</p></details>", "p"),
            Some(Hidden::NotRendered)
        );
        assert_eq!(
            hidden_of("<details><summary>s</summary><p>x</p></details>", "summary"),
            None
        );
        assert_eq!(
            hidden_of("<details open><summary>s</summary><p>x</p></details>", "p"),
            None
        );
        assert_eq!(
            hidden_of("<dialog><p>x</p></dialog>", "p"),
            Some(Hidden::NotRendered)
        );
        assert_eq!(
            hidden_of("<input type=hidden name=t>", "input"),
            Some(Hidden::NotRendered)
        );
        assert_eq!(hidden_of("<main><p>x</p></main>", "p"), None);
    }

    #[test]
    fn inline_style_last_declaration_wins() {
        let style = inline_style("display:none; DISPLAY: block; opacity: 50%");
        assert!(!style.display_none);
        assert_eq!(style.opacity, Some(0.5));
    }
}
