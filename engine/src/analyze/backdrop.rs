//! The colour painted behind a text run, blended from the backgrounds under it in paint order, for captures that did not ask Chromium for it.
//!
//! Chromium can report this colour itself (`DOMSnapshot.captureSnapshot`
//! with `includeBlendedBackgroundColors`, what DevTools' contrast check
//! reads), but asking costs a fifth to a third of the snapshot on large
//! pages. Everything it needs is in the capture already: each box's bounds
//! (cut to what its ancestors' clips let show), background colour and image,
//! effective opacity and paint order. As Chromium does, the answer is one
//! colour or none:
//!
//! - At five points of the run's box (its centre and inset corners), the
//!   boxes painted under it are stacked — its element's ancestors and own
//!   box whatever their paint order, any other box of a layer painted
//!   before its element's or of the same layer (Chromium numbers paint by
//!   layer, and a layer paints every background before its text),
//!   descendants never; in a layer, by document order — and blended from
//!   the topmost down to the first opaque one; the root element's and the
//!   body's backgrounds paint the whole canvas under them all.
//! - A background image, gradient or replaced content (an image, video,
//!   canvas, SVG, embedded object) met before an opaque colour makes the
//!   colour unknown, as do points that see different colours: the text is
//!   then not judged faint.
//!
//! A frame's document is transparent where it paints nothing, so the frame
//! element and the page under it show through, as in the browser.

use super::Visibility;
use super::grid::{Grid, Placed, test_points};
use super::visibility::Clips;
use crate::color::Rgba;
use crate::geom::Rect;
use crate::page::{Element, Namespace, NodeId, Page};

/// Alpha at or above which a blended colour hides what is under it.
const SOLID: f32 = 0.999;
/// A transparent background as Chromium computes it.
const TRANSPARENT: &str = "rgba(0, 0, 0, 0)";

/// What a box paints behind what lies over it.
#[derive(Clone, Copy, Debug)]
enum Fill {
    /// A colour, its alpha already multiplied by the box's effective opacity.
    Color(Rgba),
    /// Pixels the capture does not know: an image, a gradient, a video.
    Unknown,
}

#[derive(Clone, Copy, Debug)]
struct Painter {
    id: NodeId,
    rect: Rect,
    paint: u32,
    fill: Fill,
}

impl Placed for Painter {
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

/// The painted boxes of a page, placed for backdrop queries.
pub(super) struct Backdrops {
    painters: Vec<Painter>,
    grid: Option<Grid>,
    /// The top document's root and body backgrounds, which paint the whole
    /// canvas: below every other box, the body's above the root's.
    canvas: Vec<Fill>,
}

impl Backdrops {
    /// Places every visible box that paints a background, given each node's
    /// effective `opacity`.
    pub(super) fn new(
        page: &Page,
        visibility: &[Visibility],
        clips: &Clips,
        opacity: &[f64],
    ) -> Backdrops {
        let mut painters = Vec::new();
        let mut canvas = Vec::new();
        for id in page.ids() {
            let Some(element) = page.element(id) else {
                continue;
            };
            if !visibility[id.index()].is_visible() {
                continue;
            }
            let layout = page.layout(id);
            let Some(style) = layout.style.as_deref() else {
                continue;
            };
            let faded = opacity[id.index()] as f32;
            // Most boxes paint no background: told without parsing a colour.
            if style.background_image.is_empty()
                && style.background_color == TRANSPARENT
                && !paints_pixels(element)
            {
                continue;
            }
            let fill = if !style.background_image.is_empty() || paints_pixels(element) {
                Fill::Unknown
            } else {
                match Rgba::parse(&style.background_color) {
                    Some(color) if color.a * faded > 0.0 => Fill::Color(color.faded(faded)),
                    // Transparent: it paints nothing.
                    Some(_) => continue,
                    // A colour spelled in a way not read here: unknown.
                    None => Fill::Unknown,
                }
            };
            if is_canvas(page, id) {
                canvas.push(fill);
                continue;
            }
            let (Some(bounds), Some(paint)) = (layout.bounds, layout.paint_order) else {
                continue;
            };
            let finite = [bounds.x, bounds.y, bounds.width, bounds.height]
                .iter()
                .all(|v| v.is_finite());
            let Some(rect) = clips
                .visible_part(id, bounds)
                .filter(|r| finite && r.width > 0.0 && r.height > 0.0)
            else {
                continue;
            };
            painters.push(Painter {
                id,
                rect,
                paint,
                fill,
            });
        }
        // Root first, body above it: walk them from the top down.
        canvas.reverse();
        let grid = Grid::new(&painters);
        Backdrops {
            painters,
            grid,
            canvas,
        }
    }

    /// Whether text node `text`, set in `element`, is `faint` over what is
    /// painted behind it: one colour at every point tested. The centre is
    /// blended first; most text is not faint there, and the other points
    /// are blended only to confirm it.
    pub(super) fn faint_behind(
        &self,
        page: &Page,
        clips: &Clips,
        text: NodeId,
        element: NodeId,
        faint: impl Fn(Rgba) -> bool,
    ) -> bool {
        let Some(paint) = page.layout(element).paint_order else {
            return false;
        };
        let Some(rect) = page
            .layout(text)
            .bounds
            .or(page.layout(element).bounds)
            .filter(|b| [b.x, b.y, b.width, b.height].iter().all(|v| v.is_finite()))
            .and_then(|bounds| clips.visible_part(element, bounds))
            .filter(|r| r.width > 0.0 && r.height > 0.0)
        else {
            return false;
        };
        let mut stack = Vec::new();
        let [centre, corners @ ..] = test_points(&rect);
        let Some(behind) = self.at(page, element, paint, centre, &mut stack) else {
            return false;
        };
        if !faint(behind) {
            return false;
        }
        let packed = behind.pack();
        corners.into_iter().all(|point| {
            self.at(page, element, paint, point, &mut stack)
                .is_some_and(|c| c.pack() == packed)
        })
    }

    /// The colour under point `(x, y)` of `element`'s text (painted at
    /// `paint`); `stack` is scratch space.
    fn at(
        &self,
        page: &Page,
        element: NodeId,
        paint: u32,
        (x, y): (f64, f64),
        stack: &mut Vec<(u32, NodeId, Fill)>,
    ) -> Option<Rgba> {
        stack.clear();
        if let Some(grid) = &self.grid {
            for list in grid.lists(x, y) {
                for &index in list {
                    let p = &self.painters[index as usize];
                    if !p.rect.contains(x, y) {
                        continue;
                    }
                    // Its own box and its ancestors' lie under the text
                    // whatever their paint order; its descendants' never.
                    if p.id == element || page.contains(p.id, element) {
                        stack.push((p.paint.min(paint), p.id, p.fill));
                    } else if p.paint <= paint && !page.contains(element, p.id) {
                        stack.push((p.paint, p.id, p.fill));
                    }
                }
            }
        }
        // Chromium numbers paint by layer: boxes of one layer share a number
        // and paint their backgrounds in document order, all before the
        // layer's text.
        stack.sort_unstable_by_key(|&(paint, id, _)| std::cmp::Reverse((paint, id)));
        // Top down to the first opaque colour, then blended bottom up.
        let fill_at = |i: usize| match stack.get(i) {
            Some(&(_, _, fill)) => Some(fill),
            None => self.canvas.get(i - stack.len()).copied(),
        };
        let mut depth = 0;
        while let Some(fill) = fill_at(depth) {
            depth += 1;
            match fill {
                Fill::Unknown => return None,
                Fill::Color(color) if color.a >= SOLID => break,
                Fill::Color(_) => {}
            }
        }
        let transparent = Rgba {
            a: 0.0,
            ..Rgba::WHITE
        };
        Some(
            (0..depth)
                .rev()
                .fold(transparent, |below, i| match fill_at(i) {
                    Some(Fill::Color(above)) => above.over(below),
                    _ => below,
                }),
        )
    }
}

/// Whether `id` is the top document's root element or its body, whose
/// backgrounds paint the canvas.
fn is_canvas(page: &Page, id: NodeId) -> bool {
    let Some(element) = page.element(id) else {
        return false;
    };
    let top_root = |root: NodeId| root.index() == 0 && page.parent(root).is_none();
    if element.is("html") {
        return page.parent(id).is_some_and(top_root);
    }
    element.is("body")
        && page.parent(id).is_some_and(|html| {
            page.element(html).is_some_and(|e| e.is("html"))
                && page.parent(html).is_some_and(top_root)
        })
}

/// Elements whose own pixels the capture does not know.
/// Unlike occlusion's replaced content, a frame is not among them: its
/// document is transparent where it paints nothing.
fn paints_pixels(element: &Element) -> bool {
    match element.ns {
        Namespace::Svg => element.name == "svg",
        Namespace::Html => matches!(
            element.name.as_str(),
            "img" | "video" | "canvas" | "embed" | "object"
        ),
        Namespace::MathMl => false,
    }
}
