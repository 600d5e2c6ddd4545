//! The scroll and client boxes of the few elements that need them (those a person can scroll, and frames), named by the DOM snapshot: read after it, or before it through the handles kept from the last capture of the same document.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::dom_snapshot::CaptureSnapshotReturns;
use chromiumoxide::cdp::js_protocol::runtime::{
    CallArgument, CallFunctionOnParams, RemoteObjectId,
};

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

/// The scroll boxes' calls, as timings name them: resolving the elements
/// the snapshot names and reading them, after the snapshot; or reading them
/// through the handles kept from the last capture, before it.
const SCROLL_BOXES_CALL: &str = "scroll boxes (DOM.resolveNode, Runtime.callFunctionOn)";
const KEPT_BOXES_CALL: &str = "scroll boxes, kept handles (Runtime.callFunctionOn)";

/// Handles on the elements whose boxes a capture of the tab's own document
/// read, kept (in an object group of their own) for the next capture of that
/// document: one list per snapshot document, each element with its handle.
/// Kept only when every element resolved.
pub(crate) struct KeptBoxes {
    group: String,
    lists: Vec<Vec<(i64, RemoteObjectId)>>,
}

impl KeptBoxes {
    /// Whether these are the handles of exactly `candidates`.
    fn holds(&self, candidates: &[Vec<i64>]) -> bool {
        self.lists.len() == candidates.len()
            && self.lists.iter().zip(candidates).all(|(list, ids)| {
                list.len() == ids.len() && list.iter().zip(ids).all(|((kept, _), id)| kept == id)
            })
    }
}

/// A capture's scroll boxes as read before its snapshot (the tab's own
/// document only): the handles kept for the document, and what reading
/// them answered.
pub(super) struct Early {
    documents: u64,
    kept: Option<Arc<KeptBoxes>>,
    read: Option<(Result<HashMap<i64, Boxes>>, Duration)>,
}

impl Capture<'_> {
    /// Reads the scroll boxes through the handles kept from the last capture
    /// of the tab's document, to be sent before the snapshot: the elements a
    /// person can scroll seldom change between two captures, and read after
    /// the snapshot they cost two round trips more (on youth 7 of a 38 ms
    /// capture). `None` for a frame of another site (its capture resolves its
    /// own).
    pub(super) async fn early_boxes(&self, route: &Route) -> Option<Early> {
        if *route != Route::TAB {
            return None;
        }
        let (documents, kept, stale) = self.tab.kept_boxes();
        if let Some(stale) = stale {
            self.tab.release_group(route, stale.group.clone());
        }
        let read = match &kept {
            Some(kept) => Some(timed(self.read_lists(route, &kept.lists, &kept.group)).await),
            None => None,
        };
        Some(Early {
            documents,
            kept,
            read,
        })
    }

    /// The boxes of every list of handles (one list per document, each
    /// read by one call, all at once).
    async fn read_lists(
        &self,
        route: &Route,
        lists: &[Vec<(i64, RemoteObjectId)>],
        group: &str,
    ) -> Result<HashMap<i64, Boxes>> {
        let read =
            futures::future::join_all(lists.iter().map(|list| self.read(route, list, group))).await;
        let mut boxes = HashMap::new();
        for read in read {
            boxes.extend(read?);
        }
        Ok(boxes)
    }

    /// The scroll and client boxes of `snap`'s [`snapshot::scroll_candidates`]
    /// (in `route`'s session), by backend node id, and the call that read them
    /// (none when there are none). Those read `early` are taken when they are
    /// of the same elements; otherwise the elements are resolved (into
    /// `group`, or for the tab's own document into a group kept for the
    /// next capture, the one kept before released) and read.
    pub(super) async fn scroll_boxes(
        &self,
        route: &Route,
        snap: &CaptureSnapshotReturns,
        group: &str,
        early: Option<Early>,
    ) -> (Result<HashMap<i64, Boxes>>, Option<Call>) {
        let candidates = snapshot::scroll_candidates(snap);
        let mut documents = None;
        if let Some(early) = early {
            documents = Some(early.documents);
            if let Some(kept) = early.kept {
                match early.read {
                    Some((Ok(boxes), elapsed)) if kept.holds(&candidates) => {
                        let call = Call {
                            name: KEPT_BOXES_CALL,
                            elapsed,
                        };
                        return (Ok(boxes), Some(call));
                    }
                    Some((Err(err), _)) if err.is_gone() => return (Err(err), None),
                    // Other elements now, or handles that no longer answer
                    // (the document replaced before the tab heard of it).
                    _ => {
                        self.tab.forget_boxes();
                        self.tab.release_group(route, kept.group.clone());
                    }
                }
            }
        }
        if candidates.is_empty() {
            return (Ok(HashMap::new()), None);
        }
        let keep = documents.map(|documents| (documents, self.tab.object_group("boxes")));
        let into = keep.as_ref().map_or(group, |(_, kept)| kept.as_str());
        let (resolved, elapsed) = timed(async {
            let resolved = futures::future::join_all(
                candidates.iter().map(|ids| self.resolve(route, ids, into)),
            )
            .await;
            let mut lists = Vec::new();
            for list in resolved {
                lists.push(list?);
            }
            let boxes = self.read_lists(route, &lists, into).await?;
            Ok((lists, boxes))
        })
        .await;
        let call = Some(Call {
            name: SCROLL_BOXES_CALL,
            elapsed,
        });
        let (lists, boxes) = match resolved {
            Ok(resolved) => resolved,
            Err(err) => {
                if let Some((_, kept)) = keep {
                    self.tab.release_group(route, kept);
                }
                return (Err(err), call);
            }
        };
        if let Some((documents, kept)) = keep {
            let all = lists
                .iter()
                .zip(&candidates)
                .all(|(list, ids)| list.len() == ids.len());
            if all {
                let kept = KeptBoxes { group: kept, lists };
                self.tab.keep_boxes(documents, Arc::new(kept));
            } else {
                self.tab.release_group(route, kept);
            }
        }
        (Ok(boxes), call)
    }

    /// Handles (in `group`) on `elements` (backend node ids of one document),
    /// all asked at once; an element gone since the snapshot is left out.
    async fn resolve(
        &self,
        route: &Route,
        elements: &[i64],
        group: &str,
    ) -> Result<Vec<(i64, RemoteObjectId)>> {
        let resolved = futures::future::join_all(
            elements
                .iter()
                .map(|&id| self.tab.resolve_node(route, id, group)),
        )
        .await;
        let mut handles = Vec::new();
        for (&id, resolved) in elements.iter().zip(resolved) {
            match resolved {
                Ok(Some(object)) => handles.push((id, object)),
                Ok(None) => {}
                Err(err) if err.is_gone() => return Err(err.into()),
                Err(_) => {}
            }
        }
        Ok(handles)
    }

    /// The boxes of `elements` (handles on elements of one document), read by
    /// one function, by backend node id.
    async fn read(
        &self,
        route: &Route,
        elements: &[(i64, RemoteObjectId)],
        group: &str,
    ) -> Result<HashMap<i64, Boxes>> {
        let Some((_, this)) = elements.first() else {
            return Ok(HashMap::new());
        };
        let arguments = elements
            .iter()
            .map(|(_, object)| CallArgument::builder().object_id(object.clone()).build())
            .collect::<Vec<_>>();
        let params = CallFunctionOnParams::builder()
            .function_declaration(BOXES_JS)
            .object_id(this.clone())
            .arguments(arguments)
            .return_by_value(true)
            .object_group(group)
            .build()
            .map_err(|err| self.tab.unbuilt("Runtime.callFunctionOn", err))?;
        let value = self
            .tab
            .call_function(route, params, "reading scroll boxes")
            .await?;
        let values: Vec<Option<Boxes>> =
            serde_json::from_value(value).map_err(|err| Error::Answer {
                url: self.tab.url().to_owned(),
                message: format!("the scroll boxes script returned no list of boxes: {err}"),
            })?;
        Ok(elements
            .iter()
            .zip(values)
            .filter_map(|((id, _), boxes)| Some((*id, boxes?)))
            .collect())
    }
}
