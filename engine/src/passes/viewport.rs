//! Viewport context: position lines (seed 003, part B/C) and 3×3 zones (aimount).

use crate::analyze::Analysis;
use crate::geom::Rect;
use crate::observation::Zone;
use crate::page::Page;

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
