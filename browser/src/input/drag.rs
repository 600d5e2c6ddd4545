//! Dragging as a user does: the mouse pressed on one element, moved onto another and released there — which drives mouse-driven widgets (sliders, sortables) and, through Chromium's drag interception, native HTML5 drag-and-drop.
//!
//! A headless browser starts no native drag session of its own; with drags
//! intercepted (`Input.setInterceptDrags`), the drag a page starts on the
//! mouse's move is announced (`Input.dragIntercepted`, with its data) and
//! is carried on with `Input.dispatchDragEvent` (enter, over, drop) at the
//! target, as Playwright does.

use std::time::Duration;

use crate::error::Result;
use chromiumoxide::cdp::browser_protocol::input::{
    DispatchDragEventParams, DispatchDragEventType, DispatchMouseEventType, EventDragIntercepted,
    SetInterceptDragsParams,
};
use futures::StreamExt;

use super::Input;
use crate::action::{Drop, Outcome};

/// Mouse moves between the press and the target: enough for a page that
/// starts its drag after a few pixels and follows the pointer.
const STEPS: u32 = 8;

/// How far past the target's centre the pointer comes to rest, CSS pixels
/// along the drag (small enough to stay inside any target a user can aim at).
const OVERSHOOT: f64 = 3.0;

/// How long, after the moves, a drag the page started may take to be announced.
const ANNOUNCED: Duration = Duration::from_millis(250);

impl Input<'_> {
    /// Drags `from` onto `to` (see the module docs). Either end hidden or
    /// covered fails as a click on it would, before the mouse is pressed.
    pub(crate) async fn drag(&self, from: u64, to: Drop) -> Result<Outcome> {
        let start = match self.point_of(from).await? {
            Ok(point) => point,
            Err(failed) => return Ok(failed),
        };
        let end = match to {
            Drop::Element(to) => match self.point_of(to).await? {
                Ok(point) => point,
                Err(failed) => return Ok(failed),
            },
            Drop::Point(x, y) => match self.viewport_point(x, y).await? {
                Ok(point) => point,
                Err(failed) => return Ok(failed),
            },
        };
        // Bringing the target into view may have moved the source.
        let start = match self.point_of(from).await? {
            Ok(point) if point == start => point,
            Ok(moved) => moved,
            Err(failed) => return Ok(failed),
        };
        let mut announced = self
            .tab
            .page()
            .event_listener::<EventDragIntercepted>()
            .await
            .map_err(|err| self.tab.unheard("Input.dragIntercepted", err))?;
        self.tab
            .call(
                "Input.setInterceptDrags",
                self.tab.page().execute(SetInterceptDragsParams::new(true)),
            )
            .await?;
        let dragged = async {
            self.mouse()
                .event(DispatchMouseEventType::MouseMoved, start, 0)
                .await?;
            self.mouse()
                .event(DispatchMouseEventType::MousePressed, start, 1)
                .await?;
            for step in 1..=STEPS {
                let t = f64::from(step) / f64::from(STEPS);
                let point = (
                    start.0 + (end.0 - start.0) * t,
                    start.1 + (end.1 - start.1) * t,
                );
                self.mouse()
                    .event(DispatchMouseEventType::MouseMoved, point, 1)
                    .await?;
            }
            // A hand comes to rest just past the middle of where it drops:
            // sortable lists swap an item once the pointer crosses the
            // middle of its neighbour, in the direction of travel.
            let length = (end.0 - start.0).hypot(end.1 - start.1);
            let end = if length > 0.0 {
                (
                    end.0 + (end.0 - start.0) / length * OVERSHOOT,
                    end.1 + (end.1 - start.1) / length * OVERSHOOT,
                )
            } else {
                end
            };
            self.mouse()
                .event(DispatchMouseEventType::MouseMoved, end, 1)
                .await?;
            let native = tokio::time::timeout(ANNOUNCED, announced.next()).await;
            if let Ok(Some(event)) = native {
                let data = event.data.clone();
                for kind in [
                    DispatchDragEventType::DragEnter,
                    DispatchDragEventType::DragOver,
                    DispatchDragEventType::Drop,
                ] {
                    let params = DispatchDragEventParams::new(kind, end.0, end.1, data.clone());
                    self.tab
                        .call("Input.dispatchDragEvent", self.tab.page().execute(params))
                        .await?;
                }
            }
            self.mouse()
                .event(DispatchMouseEventType::MouseReleased, end, 1)
                .await
        }
        .await;
        // Whatever happened, the next drag of the page is its own again.
        let _ = self
            .tab
            .call(
                "Input.setInterceptDrags",
                self.tab.page().execute(SetInterceptDragsParams::new(false)),
            )
            .await;
        dragged?;
        Ok(Outcome::ok())
    }
}
