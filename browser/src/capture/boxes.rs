//! The scroll and client boxes of the few elements that need them (those a person can scroll, and frames), read after the DOM snapshot names them.

use std::collections::HashMap;

use chromiumoxide::cdp::browser_protocol::dom_snapshot::CaptureSnapshotReturns;
use chromiumoxide::cdp::js_protocol::runtime::{CallArgument, CallFunctionOnParams};

use super::Capture;
use super::snapshot::{self, Boxes};
use super::timings::{Call, timed};
use crate::error::{Error, Result};
use crate::frames::Route;

/// Reads `[scrollLeft, scrollTop, scrollWidth, scrollHeight, clientLeft,
/// clientTop, clientWidth, clientHeight]` of each element argument.
const BOXES_JS: &str = "function (...elements) { return elements.map((e) => e instanceof Element \
    ? [e.scrollLeft, e.scrollTop, e.scrollWidth, e.scrollHeight, \
       e.clientLeft, e.clientTop, e.clientWidth, e.clientHeight] : null); }";

/// The scroll boxes' calls, as timings name them.
const SCROLL_BOXES_CALL: &str = "scroll boxes (DOM.resolveNode, Runtime.callFunctionOn)";

impl Capture<'_> {
    /// The scroll and client boxes of `snap`'s [`snapshot::scroll_candidates`]
    /// (in `route`'s session, handles in `group`), by backend node id, and
    /// the call that read them (none when there are none).
    pub(super) async fn scroll_boxes(
        &self,
        route: &Route,
        snap: &CaptureSnapshotReturns,
        group: &str,
    ) -> (Result<HashMap<i64, Boxes>>, Option<Call>) {
        let candidates = snapshot::scroll_candidates(snap);
        if candidates.is_empty() {
            return (Ok(HashMap::new()), None);
        }
        let (read, elapsed) = timed(futures::future::join_all(
            candidates.iter().map(|ids| self.boxes(route, ids, group)),
        ))
        .await;
        let call = Call {
            name: SCROLL_BOXES_CALL,
            elapsed,
        };
        let mut boxes = HashMap::new();
        for read in read {
            match read {
                Ok(read) => boxes.extend(read),
                Err(err) => return (Err(err), Some(call)),
            }
        }
        (Ok(boxes), Some(call))
    }

    /// Scroll and client boxes of `elements` (backend node ids of one
    /// document): each is resolved to a handle (all at once), then one
    /// function reads them all.
    /// An element gone since the snapshot is left out.
    async fn boxes(
        &self,
        route: &Route,
        elements: &[i64],
        group: &str,
    ) -> Result<HashMap<i64, Boxes>> {
        let resolved = futures::future::join_all(
            elements
                .iter()
                .map(|&id| self.tab.resolve_node(route, id, group)),
        )
        .await;
        let mut kept = Vec::new();
        let mut arguments = Vec::new();
        for (&id, resolved) in elements.iter().zip(resolved) {
            match resolved {
                Ok(Some(object)) => {
                    kept.push(id);
                    arguments.push(CallArgument::builder().object_id(object).build());
                }
                Ok(None) => {}
                Err(err) if err.is_gone() => return Err(err.into()),
                Err(_) => {}
            }
        }
        let Some(this) = arguments.first().and_then(|a| a.object_id.clone()) else {
            return Ok(HashMap::new());
        };
        let params = CallFunctionOnParams::builder()
            .function_declaration(BOXES_JS)
            .object_id(this)
            .arguments(arguments)
            .return_by_value(true)
            .object_group(group)
            .build()
            .map_err(|err| self.tab.unbuilt("Runtime.callFunctionOn", err))?;
        let result = self
            .tab
            .call(
                "Runtime.callFunctionOn",
                route.execute(self.tab.page(), params),
            )
            .await?
            .result;
        if let Some(exception) = &result.exception_details {
            return Err(Error::Script {
                url: self.tab.url().to_owned(),
                message: format!("reading scroll boxes: {}", exception.text),
            });
        }
        let values: Vec<Option<Boxes>> =
            serde_json::from_value(result.result.value.unwrap_or_default()).map_err(|err| {
                Error::Answer {
                    url: self.tab.url().to_owned(),
                    message: format!("the scroll boxes script returned no list of boxes: {err}"),
                }
            })?;
        Ok(kept
            .into_iter()
            .zip(values)
            .filter_map(|(id, boxes)| Some((id, boxes?)))
            .collect())
    }
}
