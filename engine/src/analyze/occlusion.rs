//! Occlusion by paint order: is a node covered by later-painted opaque boxes at every point that matters?
//!
//! The idea is browser-use's paint-order filter: Chromium reports a global
//! paint order (`DOMSnapshot.captureSnapshot` with `includePaintOrder`), so a
//! box painted later that is opaque enough hides what lies under it. We test
//! five points of each visible element — its centre and its four corners,
//! inset by 10% of the size, at most 2px, so boxes that merely touch do not
//! count — and call the element occluded when every point lies inside some
//! occluder painted later. Different points may be covered by different
//! occluders (a union, as browser-use's `RectUnion`).
//!
//! An occluder is a visible element with a box that
//! - has effective opacity ≥ 0.8 (product over its ancestors),
//! - has a background alpha ≥ 0.8, or is replaced content (`img`, `video`,
//!   `canvas`, `svg`, `iframe`, `embed`, `object`, `input`), which paints
//!   its own pixels,
//! - does not have `pointer-events: none`: such overlays (gradients, glare
//!   effects) let clicks through, and clicks are what the agent does.
//!
//! An element's ancestors never occlude it (a parent's background is behind
//! its content, even when stacking contexts give it a higher paint order),
//! nor do its descendants (they are part of it) — with one exception: a box
//! with a negative `z-index` paints below the opaque backgrounds of its
//! ancestors inside its stacking context, and is covered by them.
//!
//! Cost: occluders go into a [`Grid`] over their bounding box, whose cells
//! list them by descending paint order, so a point query stops at the first
//! occluder painted before the element.

use super::Visibility;
use super::grid::{Grid, Placed, test_points};
use super::visibility::Clips;
use crate::geom::Rect;
use crate::page::{Element, Namespace, Node, NodeId, Page};

/// Effective opacity and background alpha an occluder needs.
const OPAQUE: f64 = 0.8;

/// Per element: whether it is occluded for clicks, and whether its text is
/// covered from sight.
pub(crate) struct Occlusion {
    /// Covered at every point tested by occluders that take clicks (any
    /// opaque box or replaced content without `pointer-events: none`).
    pub occluded: Vec<bool>,
    /// Covered at every point tested by boxes that paint an opaque
    /// background (`pointer-events` aside) — hidden from sight. Replaced
    /// content does not count here: an image that did not load, or an SVG
    /// icon, paints little or nothing, and nothing must be withheld on a guess.
    pub covered: Vec<bool>,
    /// Per node: the product of its own and its ancestors' opacities.
    pub opacity: Vec<f64>,
}

/// Occlusion per node.
pub(crate) fn compute(page: &Page, visibility: &[Visibility], clips: &Clips) -> Occlusion {
    let mut occluded = vec![false; page.len()];
    let mut covered = vec![false; page.len()];
    if !page.has_layout {
        let opacity = vec![1.0; page.len()];
        return Occlusion {
            occluded,
            covered,
            opacity,
        };
    }
    let opacity = effective_opacity(page);
    let occluders: Vec<Occluder> = page
        .ids()
        .filter_map(|id| {
            let element = page.element(id)?;
            let rect = tested_box(page, visibility, clips, id)?;
            let paint = page.layout(id).paint_order?;
            let style = page.layout(id).style.as_ref()?;
            if opacity[id.index()] < OPAQUE {
                return None;
            }
            let solid = crate::color::alpha(&style.background_color) >= OPAQUE;
            let clicks = style.pointer_events != "none" && (solid || is_replaced(element));
            (solid || clicks).then_some(Occluder {
                id,
                rect,
                paint,
                clicks,
                solid,
            })
        })
        .collect();
    let grid = Grid::new(&occluders);
    for id in page.ids() {
        if page.element(id).is_none() {
            continue;
        }
        let (Some(rect), Some(paint)) = (
            tested_box(page, visibility, clips, id),
            page.layout(id).paint_order,
        ) else {
            continue;
        };
        // The kinds of cover that hold at every point so far.
        let mut under = match &grid {
            Some(grid) => {
                let mut under = CLICKS | SOLID;
                for (x, y) in test_points(&rect) {
                    under &= covers(grid, page, &occluders, id, paint, x, y, under);
                    if under == 0 {
                        break;
                    }
                }
                under
            }
            None => 0,
        };
        if sunk_below_an_ancestor(page, &opacity, id, &rect) {
            under = CLICKS | SOLID;
        }
        occluded[id.index()] = under & CLICKS != 0;
        covered[id.index()] = under & SOLID != 0;
    }
    Occlusion {
        occluded,
        covered,
        opacity,
    }
}

/// Cover by an occluder that takes clicks ([`Occluder::clicks`]).
const CLICKS: u8 = 1;
/// Cover by an opaque background ([`Occluder::solid`]).
const SOLID: u8 = 2;

/// A box with a negative `z-index` paints below the backgrounds of its
/// ancestors up to its stacking context (CSS 2.2 Appendix E): an opaque one
/// among them that holds its centre covers it. `<html>` and `<body>` are
/// not counted: their backgrounds paint the canvas, below everything.
fn sunk_below_an_ancestor(page: &Page, opacity: &[f64], id: NodeId, rect: &Rect) -> bool {
    let Some(style) = page.layout(id).style.as_deref() else {
        return false;
    };
    let negative = style.z_index.parse::<i32>().is_ok_and(|z| z < 0);
    if !negative || style.position == "static" {
        return false;
    }
    let (x, y) = (rect.x + rect.width / 2.0, rect.y + rect.height / 2.0);
    let mut ancestor = page.parent(id);
    while let Some(a) = ancestor {
        ancestor = page.parent(a);
        let Some(element) = page.element(a) else {
            continue;
        };
        if element.is("html") || element.is("body") {
            return false;
        }
        let layout = page.layout(a);
        let Some(style) = layout.style.as_deref() else {
            continue;
        };
        let opaque =
            opacity[a.index()] >= OPAQUE && crate::color::alpha(&style.background_color) >= OPAQUE;
        if opaque && layout.bounds.is_some_and(|b| b.contains(x, y)) {
            return true;
        }
        // Its stacking context: the boxes above paint after the sunk one.
        let stacking =
            (style.position != "static" && style.z_index != "auto") || style.opacity < 1.0;
        if stacking {
            return false;
        }
    }
    false
}

/// The part of a visible element's box its ancestors' clips let show
/// (a list item scrolled out of its list covers nothing), when finite and
/// not empty.
fn tested_box(page: &Page, visibility: &[Visibility], clips: &Clips, id: NodeId) -> Option<Rect> {
    if !visibility[id.index()].is_visible() {
        return None;
    }
    let bounds = page.layout(id).bounds.filter(|b| {
        b.x.is_finite() && b.y.is_finite() && b.width.is_finite() && b.height.is_finite()
    })?;
    clips
        .visible_part(id, bounds)
        .filter(|b| b.width > 0.0 && b.height > 0.0)
}

/// Elements that paint their own content over their background (HTML §15.4).
fn is_replaced(element: &Element) -> bool {
    match element.ns {
        Namespace::Svg => element.name == "svg",
        Namespace::Html => matches!(
            element.name.as_str(),
            "img" | "video" | "canvas" | "iframe" | "embed" | "object" | "input"
        ),
        Namespace::MathMl => false,
    }
}

/// Product of each element's own opacity and its ancestors'.
fn effective_opacity(page: &Page) -> Vec<f64> {
    let mut out = vec![1.0; page.len()];
    for id in page.ids() {
        let inherited = page.parent(id).map_or(1.0, |p| out[p.index()]);
        let own = match (page.node(id), page.layout(id).style.as_ref()) {
            (Node::Element(_), Some(style)) if style.opacity.is_finite() => {
                style.opacity.clamp(0.0, 1.0)
            }
            _ => 1.0,
        };
        out[id.index()] = inherited * own;
    }
    out
}

#[derive(Clone, Copy, Debug)]
struct Occluder {
    id: NodeId,
    rect: Rect,
    paint: u32,
    /// It takes clicks meant for what is under it.
    clicks: bool,
    /// It paints an opaque background over what is under it.
    solid: bool,
}

impl Occluder {
    /// The kinds of cover it gives ([`CLICKS`], [`SOLID`]).
    fn kinds(&self) -> u8 {
        (u8::from(self.clicks) * CLICKS) | (u8::from(self.solid) * SOLID)
    }
}

impl Placed for Occluder {
    fn rect(&self) -> &Rect {
        &self.rect
    }
    fn paint(&self) -> u32 {
        self.paint
    }
    fn id(&self) -> NodeId {
        self.id
    }
}

/// The kinds of cover among `wanted` ([`CLICKS`], [`SOLID`]) that some
/// occluder painted after `paint`, neither an ancestor nor a descendant of
/// `element`, gives the point.
#[allow(clippy::too_many_arguments)]
fn covers(
    grid: &Grid,
    page: &Page,
    occluders: &[Occluder],
    element: NodeId,
    paint: u32,
    x: f64,
    y: f64,
    wanted: u8,
) -> u8 {
    if !(x.is_finite() && y.is_finite()) {
        return 0;
    }
    let mut found = 0;
    for list in grid.lists(x, y) {
        for &index in list {
            let o = &occluders[index as usize];
            if o.paint <= paint {
                break;
            }
            let kinds = wanted & !found & o.kinds();
            if kinds != 0
                && o.rect.contains(x, y)
                && !page.contains(o.id, element)
                && !page.contains(element, o.id)
            {
                found |= kinds;
                if found == wanted {
                    return found;
                }
            }
        }
    }
    found
}
