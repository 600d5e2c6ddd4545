//! A uniform grid over painted boxes, for "which boxes hold this point, by descending paint order" queries.
//!
//! Occlusion asks it for the boxes painted above an element; the backdrop
//! for those painted below a text run. About one cell per box, at most
//! 65,536; each cell lists its boxes by descending paint order, so a query
//! for what is above a paint order stops at the first box painted before
//! it. Boxes spanning many cells (page-wide sections) sit in one extra list
//! every query reads, so the grid stays small however many there are.

use crate::geom::Rect;
use crate::page::NodeId;

/// Most cells of the grid.
const MAX_CELLS: usize = 1 << 16;
/// Most cells of the grid on one axis.
const MAX_AXIS_CELLS: usize = 4096;
/// Smallest cell side in CSS pixels.
const MIN_CELL: f64 = 32.0;
/// Boxes spanning more cells than this are kept out of the cells.
const BIG_CELLS: usize = 256;

/// A box the grid places: where it is, when it paints, whose it is.
pub(super) trait Placed {
    fn rect(&self) -> &Rect;
    fn paint(&self) -> u32;
    fn id(&self) -> NodeId;
}

/// A uniform grid over the boxes' bounding box; each cell holds the
/// indices of the boxes overlapping it, by descending paint order.
pub(super) struct Grid {
    x0: f64,
    y0: f64,
    cell_w: f64,
    cell_h: f64,
    cols: usize,
    rows: usize,
    /// Cell `c` holds `entries[starts[c]..starts[c + 1]]`.
    starts: Vec<usize>,
    entries: Vec<u32>,
    /// Boxes spanning more than [`BIG_CELLS`] cells, by descending paint
    /// order, read by every query: this bounds the grid's size when many
    /// page-sized boxes are stacked.
    big: Vec<u32>,
}

impl Grid {
    /// The grid over `boxes`; `None` when there are none.
    pub(super) fn new<T: Placed>(boxes: &[T]) -> Option<Grid> {
        let first = boxes.first()?;
        let (mut x0, mut y0, mut x1, mut y1) = (
            first.rect().x,
            first.rect().y,
            first.rect().right(),
            first.rect().bottom(),
        );
        for b in boxes {
            x0 = x0.min(b.rect().x);
            y0 = y0.min(b.rect().y);
            x1 = x1.max(b.rect().right());
            y1 = y1.max(b.rect().bottom());
        }
        // About one cell per box, square-ish, so a cell holds a few boxes
        // whatever the page's aspect ratio (long feeds are 1280×500000).
        let (width, height) = ((x1 - x0).max(1.0), (y1 - y0).max(1.0));
        let target = boxes.len().clamp(1, MAX_CELLS) as f64;
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
        for (index, b) in boxes.iter().enumerate() {
            let (c0, c1, r0, r1) = grid.cell_span(b.rect());
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
        for (index, b) in boxes.iter().enumerate() {
            let (c0, c1, r0, r1) = grid.cell_span(b.rect());
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
            let b = &boxes[index as usize];
            (std::cmp::Reverse(b.paint()), b.id())
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

    /// The two lists that may hold boxes containing the point `(x, y)`,
    /// each by descending paint order: the point's cell and the big boxes.
    /// A box in them need not contain the point; the caller tests it.
    pub(super) fn lists(&self, x: f64, y: f64) -> [&[u32]; 2] {
        let cell = self.row_of(y) * self.cols + self.col_of(x);
        [
            &self.entries[self.starts[cell]..self.starts[cell + 1]],
            &self.big[..],
        ]
    }
}

/// The points of a box a query tests: its centre and its four corners,
/// inset by 10% of the size (at most 2px), so boxes that merely touch it do
/// not count.
pub(super) fn test_points(rect: &Rect) -> [(f64, f64); 5] {
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
