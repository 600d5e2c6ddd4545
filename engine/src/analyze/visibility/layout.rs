//! Visibility on a recorded page (`Page::has_layout`): computed style, boxes and clips, one pass in document order.

use crate::analyze::dom::Dom;
use crate::geom::Rect;
use crate::page::{Element, Node, NodeId, Page, ShadowMode};
use crate::recording::Style;

use super::clip::{Clip, Clips, Cut};
use super::{
    Hidden, Inherited, MIN_FRAME_SIDE, SUBTREE_REASONS, Visibility, first_reason, is_true,
};

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

/// Visibility per node of a recorded page, and the clips ancestors put on each element's box.
pub(super) fn compute_layout(page: &Page, dom: &Dom) -> (Vec<Visibility>, Clips) {
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
                    Some(bounds) if from.focus_revealed => (in_rows(&bounds, &viewport), None),
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
                    // A `<slot>`'s assigned nodes are its host's children;
                    // content Chromium skipped off screen has no box of its
                    // own either, and shows where its section is.
                    None if layout.bounds.is_none()
                        && (boxed[i] || element.is("slot") || dom.is_skipped(id)) =>
                    {
                        Some(&contents)
                    }
                    style => style,
                };
                let (visibility, inherited, needs_children) = element_visibility(
                    element,
                    layout.bounds,
                    style,
                    from,
                    (content[i], layout.focus_reveal),
                    &viewport,
                );
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

/// Whether `bounds` shares rows with the viewport, whatever its columns.
fn in_rows(bounds: &Rect, viewport: &Rect) -> bool {
    bounds.y < viewport.bottom() && bounds.bottom() > viewport.y
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
/// whether its children decide `in_viewport`. `has_content`: a descendant
/// has a box with area; `focus_reveal`: focusing the element shows it.
fn element_visibility(
    element: &Element,
    bounds: Option<Rect>,
    style: Option<&Style>,
    from: Inherited,
    (has_content, focus_reveal): (bool, bool),
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
    // Inside a clip of no area (an ancestor of zero width or height that
    // clips), or in a frame too small to read: nothing of it shows.
    let enclosed = own_clip.hard.is_empty() || from.frame_too_small;
    // Hidden by where its own box lies or what its own style clips: of no
    // area, clipped to nothing by its own `clip` or `clip-path`, left of or
    // above the document (unless scrolled there inside a scroll container,
    // which a person scrolls back), or the "visually hidden" pattern
    // (`width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0)`).
    let zero_area = empty && !overflows_visibly;
    let self_clipped = crate::analyze::clipping::clips_everything(style, &bounds)
        || (!empty
            && (((bounds.right() <= 0.0 || bounds.bottom() <= 0.0)
                && own_clip.all.shows(&bounds))
                || (bounds.width <= 1.0 && bounds.height <= 1.0 && (clips_x || clips_y))));
    let outside = !empty && !own_clip.hard.shows(&bounds);
    if from.focus_revealed || (focus_reveal && (zero_area || self_clipped) && !enclosed && !outside)
    {
        // Shown where focus puts it: only a clip of no area around it (or a
        // frame too small to read) still hides it or its content.
        if enclosed {
            flags |= Hidden::Clipped.bit();
        }
        let visibility = Visibility {
            hidden: first_reason(flags),
            in_viewport: in_rows(&bounds, viewport),
        };
        let inherited = Inherited {
            flags: flags & SUBTREE_REASONS,
            opacity,
            clip: own_clip,
            abs_clip: own_clip,
            focus_revealed: true,
            ..from
        };
        return (visibility, inherited, false);
    }
    if zero_area {
        flags |= Hidden::ZeroArea.bit();
    }
    if enclosed || self_clipped || outside {
        flags |= Hidden::Clipped.bit();
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
