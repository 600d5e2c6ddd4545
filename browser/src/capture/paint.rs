//! The pixel oracle (issue 56 item 4): whether a text node paints anything, asked of Chromium itself — a screenshot of the run's boxes as the page paints them, and again with the run's glyphs, shadow, stroke and decorations made transparent, compared.

use chromiumoxide::cdp::browser_protocol::page::{
    CaptureScreenshotFormat, CaptureScreenshotParams, Viewport,
};

use super::Capture;
use crate::error::Result;

/// What hiding a text run changes on screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Paints {
    /// A pixel changed: a person sees the run (or some of it).
    Yes,
    /// Not one pixel changed: nothing of the run is painted where it lies.
    No,
    /// Its region differed between two screenshots before anything was
    /// hidden (an animation, a video, a caret): not judged.
    Unstable,
    /// The run has no box with area, or lies in a frame of another site
    /// whose place in the page its script cannot read: nothing to judge.
    NoBox,
    /// The node left the document.
    Gone,
}

/// Extra pixels around the run's boxes: a shadow or stroke paints past them.
const MARGIN: f64 = 6.0;

/// The run's boxes (`this` is a text node) as one rectangle in the top
/// document's coordinates — `[x, y, width, height, beyond]`, `beyond` when it
/// is not wholly inside the viewport — or null when it has no box with area
/// or sits in a frame of another site.
pub(crate) const RECT_JS: &str = r"function () {
  const range = this.ownerDocument.createRange();
  range.selectNodeContents(this);
  const rects = [...range.getClientRects()].filter(r => r.width > 0 && r.height > 0);
  if (!rects.length) return null;
  let x0 = Math.min(...rects.map(r => r.left)), y0 = Math.min(...rects.map(r => r.top));
  let x1 = Math.max(...rects.map(r => r.right)), y1 = Math.max(...rects.map(r => r.bottom));
  let win = this.ownerDocument.defaultView;
  while (win && win !== win.parent) {
    let frame = null;
    try { frame = win.frameElement; } catch (e) {}
    if (!frame) return null;
    const box = frame.getBoundingClientRect();
    const style = frame.ownerDocument.defaultView.getComputedStyle(frame);
    const dx = box.left + frame.clientLeft + parseFloat(style.paddingLeft);
    const dy = box.top + frame.clientTop + parseFloat(style.paddingTop);
    x0 += dx; x1 += dx; y0 += dy; y1 += dy;
    win = win.parent;
  }
  const inside = x0 >= 0 && y0 >= 0 && x1 <= win.innerWidth && y1 <= win.innerHeight;
  return [x0 + win.scrollX, y0 + win.scrollY, x1 - x0, y1 - y0, !inside];
}";

/// Wraps the text node (`this`) in a span that paints its glyphs, shadow,
/// stroke and decorations transparent and changes nothing else (inline,
/// inheriting everything else); true when done.
pub(crate) const HIDE_JS: &str = r"function () {
  if (!this.parentNode) return false;
  const span = this.ownerDocument.createElement('span');
  span.setAttribute('style', 'color: transparent !important; ' +
    '-webkit-text-fill-color: transparent !important; text-shadow: none !important; ' +
    '-webkit-text-stroke-color: transparent !important; ' +
    'text-decoration-color: transparent !important; text-emphasis-color: transparent !important');
  span.__pagesnapUnpaint = true;
  this.parentNode.insertBefore(span, this);
  span.appendChild(this);
  return true;
}";

/// Undoes [`HIDE_JS`] on the text node (`this`).
pub(crate) const RESTORE_JS: &str = r"function () {
  const span = this.parentNode;
  if (span && span.__pagesnapUnpaint) span.replaceWith(this);
  return true;
}";

/// A rectangle of the top document to screenshot.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Region {
    x: f64,
    y: f64,
    width: f64,
    height: f64,
    /// Not wholly in the viewport: captured beyond it.
    beyond: bool,
}

impl Region {
    /// [`RECT_JS`]'s answer, widened by [`MARGIN`] and to whole pixels;
    /// `None` for null or a malformed answer.
    pub(crate) fn of(answer: &serde_json::Value) -> Option<Region> {
        let parts = answer.as_array()?;
        let number = |i: usize| parts.get(i).and_then(serde_json::Value::as_f64);
        let (x, y, width, height) = (number(0)?, number(1)?, number(2)?, number(3)?);
        let beyond = parts.get(4).and_then(serde_json::Value::as_bool)?;
        let left = (x - MARGIN).floor().max(0.0);
        let top = (y - MARGIN).floor().max(0.0);
        let right = (x + width + MARGIN).ceil();
        let bottom = (y + height + MARGIN).ceil();
        (right > left && bottom > top).then_some(Region {
            x: left,
            y: top,
            width: right - left,
            height: bottom - top,
            beyond,
        })
    }
}

impl Capture<'_> {
    /// A PNG of `region` of the tab as Chromium paints it now.
    pub(crate) async fn region(&self, region: &Region) -> Result<Vec<u8>> {
        let clip = Viewport {
            x: region.x,
            y: region.y,
            width: region.width,
            height: region.height,
            scale: 1.0,
        };
        self.screenshot_with(
            CaptureScreenshotParams::builder()
                .format(CaptureScreenshotFormat::Png)
                .clip(clip)
                .capture_beyond_viewport(region.beyond)
                .build(),
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_region_is_widened_to_whole_pixels_and_kept_in_the_document() {
        let region = Region::of(&serde_json::json!([3.5, 10.2, 20.0, 8.0, false])).unwrap();
        assert_eq!(
            region,
            Region {
                x: 0.0,
                y: 4.0,
                width: 30.0,
                height: 21.0,
                beyond: false
            }
        );
        assert_eq!(Region::of(&serde_json::Value::Null), None);
        assert_eq!(Region::of(&serde_json::json!([1.0, 2.0])), None);
    }
}
