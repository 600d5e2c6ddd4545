//! A kept capture moved to where the page now stands when only the document's scroll changed (issue 59 item 3): no snapshot, only the fixed and sticky boxes read again.
//!
//! The capture's boxes are in document coordinates, so a scroll of the
//! document leaves every one of them where it was — except the boxes of
//! fixed and sticky elements, which move with the viewport (a sticky one
//! until it reaches its container's end), and everything inside them. Those
//! are read again (`DOM.getBoxModel`, one call each, the outermost only)
//! and their subtrees moved by what they moved; the recording takes the new
//! scroll position, and the engine derives the viewport, what is in it and
//! what the moved boxes now cover, as from a capture.
//!
//! A capture is not moved (the page is captured anew) when it holds
//! `content-visibility: auto` content, which Chromium lays out as it nears
//! the viewport without any DOM change, when more than [`MAX_MOVING`] boxes
//! would have to be read, or when one of them cannot be read. Everything
//! else a scroll sets off — content loaded or inserted, a box resized, a
//! scroll-linked animation — changes the page's mark and is captured
//! ([`super::watch`]).

use chromiumoxide::cdp::browser_protocol::dom::{BackendNodeId, GetBoxModelParams};
use pagesnap_engine::recording::{Point, Recording};

use super::Capture;
use super::timings::{CaptureTimings, timed};
use crate::error::Result;
use crate::frames::split_key;

/// The most fixed or sticky boxes read again instead of capturing anew.
const MAX_MOVING: usize = 16;

/// The outermost fixed and sticky elements with a box, by node index, or
/// `None` when the capture cannot follow a scroll (see the module).
fn moving(recording: &Recording) -> Option<Vec<usize>> {
    let mut out: Vec<usize> = Vec::new();
    for (index, node) in recording.nodes.iter().enumerate() {
        let Some(style) = node.style.as_deref() else {
            continue;
        };
        if style.content_visibility == "auto" {
            return None;
        }
        if !matches!(style.position.as_str(), "fixed" | "sticky") || node.bounds.is_none() {
            continue;
        }
        let mut parent = node.parent;
        let mut inside = false;
        while let Some(p) = parent.map(|p| p as usize) {
            if out.binary_search(&p).is_ok() {
                inside = true;
                break;
            }
            parent = recording.nodes.get(p).and_then(|n| n.parent);
        }
        if !inside {
            out.push(index);
            if out.len() > MAX_MOVING {
                return None;
            }
        }
    }
    Some(out)
}

/// `recording` with its scroll at `to` and each of `moved` (a node index and
/// how far its box went) moved with its subtree.
fn moved(recording: &Recording, to: Point, moved: &[(usize, Point)]) -> Recording {
    let mut out = recording.clone();
    out.scroll = to;
    // The page as it stands now: its DOM unchanged since the capture (the
    // mark says so), its positions read now.
    out.captured_at = super::now_rfc3339();
    // Parents precede children: a node moves as its parent did, unless it
    // is one of the boxes read.
    let mut shift: Vec<Option<Point>> = vec![None; out.nodes.len()];
    for &(index, by) in moved {
        if let Some(slot) = shift.get_mut(index) {
            *slot = Some(by);
        }
    }
    for index in 0..out.nodes.len() {
        let by = match shift[index] {
            Some(by) => Some(by),
            None => out.nodes[index]
                .parent
                .and_then(|p| shift.get(p as usize).copied().flatten()),
        };
        shift[index] = by;
        if let (Some(by), Some(bounds)) = (by, out.nodes[index].bounds.as_mut()) {
            bounds.x += by.x;
            bounds.y += by.y;
        }
    }
    out
}

impl Capture<'_> {
    /// The kept `recording` moved to the document's scroll `to`, with the
    /// calls it took; `None` when it cannot be (see the module): capture
    /// anew.
    pub(crate) async fn rescroll(
        &self,
        recording: &Recording,
        to: Point,
    ) -> Result<Option<(Recording, CaptureTimings)>> {
        let started = std::time::Instant::now();
        let mut timings = CaptureTimings::default();
        let Some(boxes) = moving(recording) else {
            return Ok(None);
        };
        let mut shifts = Vec::with_capacity(boxes.len());
        for index in boxes {
            let node = &recording.nodes[index];
            let Some(old) = node.bounds else {
                continue;
            };
            // Only captures of one document are kept (`watch::reusable`):
            // every key is the tab's own.
            let (frame, id) = split_key(node.backend_id);
            if frame != 0 {
                return Ok(None);
            }
            let params = GetBoxModelParams::builder()
                .backend_node_id(BackendNodeId::new(id))
                .build();
            let (answer, elapsed) = timed(
                self.tab
                    .call("DOM.getBoxModel", self.tab.page().execute(params)),
            )
            .await;
            timings.add("DOM.getBoxModel", elapsed);
            let answer = match answer {
                Ok(answer) => answer,
                Err(err) if err.is_gone() => return Err(err.into()),
                // Gone from the page, or no longer rendered: capture anew.
                Err(_) => return Ok(None),
            };
            // The border quad, in the viewport's coordinates.
            let quad = answer.result.model.border.inner();
            let xs = quad.iter().step_by(2);
            let ys = quad.iter().skip(1).step_by(2);
            let (Some(x), Some(y)) = (xs.copied().reduce(f64::min), ys.copied().reduce(f64::min))
            else {
                return Ok(None);
            };
            shifts.push((
                index,
                Point {
                    x: x + to.x - old.x,
                    y: y + to.y - old.y,
                },
            ));
        }
        let out = tokio::task::block_in_place(|| moved(recording, to, &shifts));
        timings.total = started.elapsed();
        Ok(Some((out, timings)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pagesnap_engine::testing::RecordingBuilder;

    #[test]
    fn fixed_and_sticky_subtrees_move_and_the_rest_stays() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let header = b
            .element(body, "header", &[])
            .bounds(0.0, 0.0, 1280.0, 60.0)
            .position("fixed")
            .id();
        let inner = b
            .element(header, "nav", &[])
            .bounds(10.0, 10.0, 300.0, 40.0)
            .position("sticky")
            .id();
        let text = b.text(inner, "Home").bounds(12.0, 12.0, 40.0, 16.0).id();
        let article = b
            .element(body, "article", &[])
            .bounds(0.0, 60.0, 1280.0, 3000.0)
            .id();
        let recording = b.build();
        assert_eq!(moving(&recording), Some(vec![header]), "outermost only");
        let to = Point { x: 0.0, y: 500.0 };
        let out = moved(&recording, to, &[(header, Point { x: 0.0, y: 500.0 })]);
        assert_eq!(out.scroll, to);
        let y = |i: usize| out.nodes[i].bounds.map(|b| b.y);
        assert_eq!(y(header), Some(500.0));
        assert_eq!(y(inner), Some(510.0));
        assert_eq!(y(text), Some(512.0));
        assert_eq!(y(article), Some(60.0));
    }

    #[test]
    fn content_visibility_auto_or_too_many_moving_boxes_are_captured_anew() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        b.element(body, "section", &[])
            .bounds(0.0, 0.0, 100.0, 100.0)
            .style(|s| s.content_visibility = "auto".into());
        assert_eq!(moving(&b.build()), None);
        let mut b = RecordingBuilder::new();
        let body = b.body();
        for i in 0..=MAX_MOVING {
            b.element(body, "div", &[])
                .bounds(0.0, i as f64 * 10.0, 100.0, 10.0)
                .position("fixed");
        }
        assert_eq!(moving(&b.build()), None);
    }
}
