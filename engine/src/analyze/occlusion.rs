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
//! nor do its descendants (they are part of it).
//!
//! Cost: occluders go into a uniform grid over their bounding box (about
//! one cell per occluder, at most 65,536); each cell lists its occluders by descending paint order,
//! so a point query stops at the first occluder painted before the element.
//! Occluders spanning many cells (page-wide sections) sit in one extra list
//! every query reads, so the grid stays small however many there are.

use super::Visibility;
use crate::geom::Rect;
use crate::page::{Element, Namespace, Node, NodeId, Page};

/// Effective opacity and background alpha an occluder needs.
const OPAQUE: f64 = 0.8;
/// Most cells of the grid.
const MAX_CELLS: usize = 1 << 16;
/// Most cells of the grid on one axis.
const MAX_AXIS_CELLS: usize = 4096;
/// Smallest cell side in CSS pixels.
const MIN_CELL: f64 = 32.0;
/// Occluders spanning more cells than this are kept out of the cells.
const BIG_CELLS: usize = 256;

/// Occlusion per node.
pub(crate) fn compute(page: &Page, visibility: &[Visibility]) -> Vec<bool> {
    let mut occluded = vec![false; page.len()];
    if !page.has_layout {
        return occluded;
    }
    let opacity = effective_opacity(page);
    let occluders: Vec<Occluder> = page
        .ids()
        .filter_map(|id| {
            let element = page.element(id)?;
            let rect = tested_box(page, visibility, id)?;
            let paint = page.layout(id).paint_order?;
            let style = page.layout(id).style.as_ref()?;
            let opaque = opacity[id.index()] >= OPAQUE
                && style.pointer_events != "none"
                && (is_replaced(element) || background_alpha(&style.background_color) >= OPAQUE);
            opaque.then_some(Occluder { id, rect, paint })
        })
        .collect();
    let Some(grid) = Grid::new(&occluders) else {
        return occluded;
    };
    for id in page.ids() {
        if page.element(id).is_none() {
            continue;
        }
        let (Some(rect), Some(paint)) = (
            tested_box(page, visibility, id),
            page.layout(id).paint_order,
        ) else {
            continue;
        };
        occluded[id.index()] = test_points(&rect)
            .iter()
            .all(|&(x, y)| grid.covered(page, &occluders, id, paint, x, y));
    }
    occluded
}

/// The box of a visible element with finite, non-empty bounds.
fn tested_box(page: &Page, visibility: &[Visibility], id: NodeId) -> Option<Rect> {
    if !visibility[id.index()].is_visible() {
        return None;
    }
    page.layout(id).bounds.filter(|b| {
        b.x.is_finite()
            && b.y.is_finite()
            && b.width.is_finite()
            && b.height.is_finite()
            && b.width > 0.0
            && b.height > 0.0
    })
}

/// Centre and corners, inset by 10% of the size (at most 2px).
fn test_points(rect: &Rect) -> [(f64, f64); 5] {
    let dx = (rect.width * 0.1).min(2.0);
    let dy = (rect.height * 0.1).min(2.0);
    let (left, top) = (rect.x + dx, rect.y + dy);
    let (right, bottom) = (rect.right() - dx, rect.bottom() - dy);
    [
        (rect.x + rect.width / 2.0, rect.y + rect.height / 2.0),
        (left, top),
        (right, top),
        (left, bottom),
        (right, bottom),
    ]
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

/// Alpha of a computed `background-color`: `rgba(r, g, b, a)`, `rgb(r g b / a)`,
/// `transparent`, or any other function/keyword (opaque unless a `/ alpha` is given).
/// Allocation-free: it runs once per rendered element.
pub(crate) fn background_alpha(color: &str) -> f64 {
    // What Chromium reports for nearly every element, answered first.
    match color {
        "rgba(0, 0, 0, 0)" => return 0.0,
        "rgb(255, 255, 255)" | "rgb(0, 0, 0)" => return 1.0,
        _ => {}
    }
    let color = color.trim();
    if color.is_empty()
        || color.eq_ignore_ascii_case("transparent")
        || color.eq_ignore_ascii_case("none")
    {
        return 0.0;
    }
    let Some((function, args)) = color.split_once('(') else {
        // A named colour or a hex value.
        return 1.0;
    };
    let args = args.trim_end_matches(')');
    let alpha = match args.rsplit_once('/') {
        Some((_, alpha)) => Some(alpha),
        // Legacy comma syntax: `rgba(r, g, b, a)`, `hsla(h, s, l, a)`.
        None if ["rgb", "rgba", "hsl", "hsla"]
            .iter()
            .any(|name| function.trim().eq_ignore_ascii_case(name)) =>
        {
            let mut parts = args.split(',');
            match (parts.nth(3), parts.next()) {
                (Some(alpha), None) => Some(alpha),
                _ => None,
            }
        }
        None => None,
    };
    let Some(alpha) = alpha.map(str::trim) else {
        return 1.0;
    };
    let parsed = match alpha.strip_suffix('%') {
        Some(percent) => percent.trim().parse::<f64>().map(|p| p / 100.0),
        None => alpha.parse::<f64>(),
    };
    parsed
        .ok()
        .filter(|a| a.is_finite())
        .map_or(1.0, |a| a.clamp(0.0, 1.0))
}

#[derive(Clone, Copy, Debug)]
struct Occluder {
    id: NodeId,
    rect: Rect,
    paint: u32,
}

/// A uniform grid over the occluders' bounding box; each cell holds the
/// indices of the occluders overlapping it, by descending paint order.
struct Grid {
    x0: f64,
    y0: f64,
    cell_w: f64,
    cell_h: f64,
    cols: usize,
    rows: usize,
    /// Cell `c` holds `entries[starts[c]..starts[c + 1]]`.
    starts: Vec<usize>,
    entries: Vec<u32>,
    /// Occluders spanning more than [`BIG_CELLS`] cells, by descending paint
    /// order, checked by every query: this bounds the grid's size when many
    /// page-sized boxes are stacked.
    big: Vec<u32>,
}

impl Grid {
    fn new(occluders: &[Occluder]) -> Option<Grid> {
        let first = occluders.first()?;
        let (mut x0, mut y0, mut x1, mut y1) = (
            first.rect.x,
            first.rect.y,
            first.rect.right(),
            first.rect.bottom(),
        );
        for o in occluders {
            x0 = x0.min(o.rect.x);
            y0 = y0.min(o.rect.y);
            x1 = x1.max(o.rect.right());
            y1 = y1.max(o.rect.bottom());
        }
        // About one cell per occluder, square-ish, so a cell holds a few
        // boxes whatever the page's aspect ratio (long feeds are 1280×500000).
        let (width, height) = ((x1 - x0).max(1.0), (y1 - y0).max(1.0));
        let target = occluders.len().clamp(1, MAX_CELLS) as f64;
        let side = (width * height / target).sqrt().max(MIN_CELL);
        let cols = ((width / side).ceil() as usize).clamp(1, MAX_AXIS_CELLS);
        let rows = ((height / side).ceil() as usize).clamp(1, MAX_AXIS_CELLS);
        let (cell_w, cell_h) = (width / cols as f64, height / rows as f64);
        let mut grid = Grid {
            x0,
            y0,
            cell_w,
            cell_h,
            cols,
            rows,
            starts: vec![0; cols * rows + 1],
            entries: Vec::new(),
            big: Vec::new(),
        };
        // Counting sort into cells (compressed rows), then order each cell.
        let mut counts = vec![0usize; cols * rows];
        for (index, o) in occluders.iter().enumerate() {
            let (c0, c1, r0, r1) = grid.cell_span(&o.rect);
            if (c1 - c0 + 1) * (r1 - r0 + 1) > BIG_CELLS {
                grid.big.push(index as u32);
                continue;
            }
            for row in r0..=r1 {
                for col in c0..=c1 {
                    counts[row * cols + col] += 1;
                }
            }
        }
        let mut total = 0;
        for (cell, count) in counts.iter().enumerate() {
            grid.starts[cell] = total;
            total += count;
        }
        grid.starts[cols * rows] = total;
        grid.entries = vec![0; total];
        let mut fill = grid.starts.clone();
        for (index, o) in occluders.iter().enumerate() {
            let (c0, c1, r0, r1) = grid.cell_span(&o.rect);
            if (c1 - c0 + 1) * (r1 - r0 + 1) > BIG_CELLS {
                continue;
            }
            for row in r0..=r1 {
                for col in c0..=c1 {
                    let cell = row * cols + col;
                    grid.entries[fill[cell]] = index as u32;
                    fill[cell] += 1;
                }
            }
        }
        let by_paint = |&index: &u32| {
            let o = &occluders[index as usize];
            (std::cmp::Reverse(o.paint), o.id)
        };
        for cell in 0..cols * rows {
            let (start, end) = (grid.starts[cell], grid.starts[cell + 1]);
            grid.entries[start..end].sort_unstable_by_key(by_paint);
        }
        grid.big.sort_unstable_by_key(by_paint);
        Some(grid)
    }

    fn col_of(&self, x: f64) -> usize {
        (((x - self.x0) / self.cell_w).floor().max(0.0) as usize).min(self.cols - 1)
    }

    fn row_of(&self, y: f64) -> usize {
        (((y - self.y0) / self.cell_h).floor().max(0.0) as usize).min(self.rows - 1)
    }

    /// Columns and rows (inclusive) a rectangle overlaps.
    fn cell_span(&self, rect: &Rect) -> (usize, usize, usize, usize) {
        (
            self.col_of(rect.x),
            self.col_of(rect.right()),
            self.row_of(rect.y),
            self.row_of(rect.bottom()),
        )
    }

    /// Whether some occluder painted after `paint`, neither an ancestor nor a
    /// descendant of `element`, contains the point.
    fn covered(
        &self,
        page: &Page,
        occluders: &[Occluder],
        element: NodeId,
        paint: u32,
        x: f64,
        y: f64,
    ) -> bool {
        if !(x.is_finite() && y.is_finite()) {
            return false;
        }
        let cell = self.row_of(y) * self.cols + self.col_of(x);
        let covers = |list: &[u32]| {
            for &index in list {
                let o = &occluders[index as usize];
                if o.paint <= paint {
                    return false;
                }
                if o.rect.contains(x, y)
                    && !page.contains(o.id, element)
                    && !page.contains(element, o.id)
                {
                    return true;
                }
            }
            false
        };
        covers(&self.entries[self.starts[cell]..self.starts[cell + 1]]) || covers(&self.big)
    }
}

#[cfg(test)]
mod tests {
    use super::background_alpha;

    #[test]
    fn background_alphas() {
        assert_eq!(background_alpha("rgba(0, 0, 0, 0)"), 0.0);
        assert_eq!(background_alpha("rgba(0, 0, 0, 0.5)"), 0.5);
        assert_eq!(background_alpha("rgb(255, 255, 255)"), 1.0);
        assert_eq!(background_alpha("rgb(255 255 255 / 40%)"), 0.4);
        assert_eq!(background_alpha("transparent"), 0.0);
        assert_eq!(background_alpha(""), 0.0);
        assert_eq!(background_alpha("oklch(0.5 0.1 200)"), 1.0);
        assert_eq!(background_alpha("color(srgb 1 1 1 / 0.25)"), 0.25);
        assert_eq!(background_alpha("white"), 1.0);
        assert_eq!(background_alpha("RGBA(1, 2, 3, 0.9)"), 0.9);
        assert_eq!(background_alpha("rgba(1, 2, 3)"), 1.0);
        assert_eq!(background_alpha("rgba(1, 2, 3, x)"), 1.0);
    }
}
