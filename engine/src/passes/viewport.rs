//! Viewport context: position lines (seed 003, part B/C) and 3×3 zones (aimount).

use crate::analyze::Analysis;
use crate::geom::Rect;
use crate::page::Page;
use serde::{Deserialize, Serialize};

/// `# Page position: A viewport(s) above, B below.` and the at-top/at-bottom lines, without the `# `.
pub fn position_lines(analysis: &Analysis) -> Vec<String> {
    let p = analysis.position;
    let plural = |n: u32| if n == 1 { "viewport" } else { "viewports" };
    // Written piece by piece: the formatting machinery costs more than the
    // rest of a small page's header.
    let mut position = String::with_capacity(48);
    position.push_str("Page position: ");
    crate::digits::push_decimal(&mut position, p.pages_above);
    position.push(' ');
    position.push_str(plural(p.pages_above));
    position.push_str(" above, ");
    crate::digits::push_decimal(&mut position, p.pages_below);
    position.push_str(" below.");
    let mut lines = vec![position];
    if p.at_top {
        lines.push("You are at the top of the page.".to_owned());
    }
    if p.at_bottom {
        lines.push("You are at the bottom of the page.".to_owned());
    }
    lines
}

/// Interactive elements below the viewport that a viewport-only observation does not show (seed 003, part C).
pub fn interactive_below(page: &Page, analysis: &Analysis) -> usize {
    let bottom = page.scroll.y + page.viewport.height;
    page.ids()
        .filter(|&id| {
            let i = id.index();
            analysis.is_actionable(id)
                && !analysis.visibility[i].in_viewport
                && page.layout(id).bounds.is_some_and(|b| b.y >= bottom)
        })
        .count()
}

/// The 3×3 zone of the viewport holding the centre of the box's visible
/// part (its intersection with the viewport), or `offscreen` when the box
/// does not reach into the viewport. A tall box cut by the viewport's edge
/// is placed where the user sees it, not where its hidden centre lies.
pub fn zone(page: &Page, bounds: Option<Rect>) -> Zone {
    let Some(b) = bounds else {
        return Zone::Unknown;
    };
    if !page.has_layout {
        return Zone::Unknown;
    }
    let vw = page.viewport.width.max(1.0);
    let vh = page.viewport.height.max(1.0);
    let x0 = (b.x - page.scroll.x).max(0.0);
    let y0 = (b.y - page.scroll.y).max(0.0);
    let x1 = (b.right() - page.scroll.x).min(vw);
    let y1 = (b.bottom() - page.scroll.y).min(vh);
    // Empty boxes count as a point; one outside the viewport is offscreen.
    if x0 > x1 || y0 > y1 || x0 >= vw || y0 >= vh || x1 < 0.0 || y1 < 0.0 {
        return Zone::Offscreen;
    }
    let cx = (x0 + x1) / 2.0;
    let cy = (y0 + y1) / 2.0;
    let col = ((cx / vw) * 3.0).floor().clamp(0.0, 2.0) as usize;
    let row = ((cy / vh) * 3.0).floor().clamp(0.0, 2.0) as usize;
    Zone::GRID[row * 3 + col]
}

/// Where an element sits in the viewport: one of its 3×3 zones, offscreen,
/// or unknown (no box, or a page without layout). Serialised, and printed,
/// as the kebab-case word (`top-left`, `center`, `offscreen`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Zone {
    /// Top third, left third.
    TopLeft,
    /// Top third, middle third.
    TopCenter,
    /// Top third, right third.
    TopRight,
    /// Middle third, left third.
    MiddleLeft,
    /// The middle of the viewport.
    Center,
    /// Middle third, right third.
    MiddleRight,
    /// Bottom third, left third.
    BottomLeft,
    /// Bottom third, middle third.
    BottomCenter,
    /// Bottom third, right third.
    BottomRight,
    /// Outside the viewport.
    Offscreen,
    /// No box, or no layout.
    #[default]
    Unknown,
}

impl Zone {
    /// The nine zones of the viewport, row by row from the top left.
    pub const GRID: [Zone; 9] = [
        Zone::TopLeft,
        Zone::TopCenter,
        Zone::TopRight,
        Zone::MiddleLeft,
        Zone::Center,
        Zone::MiddleRight,
        Zone::BottomLeft,
        Zone::BottomCenter,
        Zone::BottomRight,
    ];

    /// The word for the zone.
    pub fn as_str(self) -> &'static str {
        match self {
            Zone::TopLeft => "top-left",
            Zone::TopCenter => "top-center",
            Zone::TopRight => "top-right",
            Zone::MiddleLeft => "middle-left",
            Zone::Center => "center",
            Zone::MiddleRight => "middle-right",
            Zone::BottomLeft => "bottom-left",
            Zone::BottomCenter => "bottom-center",
            Zone::BottomRight => "bottom-right",
            Zone::Offscreen => "offscreen",
            Zone::Unknown => "unknown",
        }
    }
}

impl std::fmt::Display for Zone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
