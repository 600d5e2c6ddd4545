//! Capturing the out-of-process frames of a tab: finding them under their `<iframe>`s, attaching to each the first time (`Target.attachToTarget` with `flatten`), and capturing them level by level ([`crate::frames`] has the sessions and node keys).

use std::collections::HashMap;

use chromiumoxide::cdp::browser_protocol::dom::{BackendNodeId, DescribeNodeParams};
use chromiumoxide::cdp::browser_protocol::target::{
    AttachToTargetParams, GetTargetsParams, TargetId,
};

use super::Capture;
use super::snapshot;
use super::state::{Needs, Shot};
use super::timings::{Call, CaptureTimings, timed};
use crate::documents::is_error_page;
use crate::error::Result;
use crate::frames::Link;
use pagesnap_engine::recording::DomCounts;

/// Out-of-process frames are looked for this many levels deep.
const MAX_FRAME_DEPTH: usize = 8;

impl Capture<'_> {
    /// The frames rendered in a process of their own, browser-wide: CDP
    /// frame id (= target id) → URL.
    pub(crate) async fn frame_targets(&self) -> Result<HashMap<String, String>> {
        let targets = self
            .tab
            .call(
                "Target.getTargets",
                self.tab.page().execute(GetTargetsParams::default()),
            )
            .await?;
        Ok(targets
            .result
            .target_infos
            .iter()
            .filter(|t| t.r#type == "iframe")
            .map(|t| (t.target_id.inner().clone(), t.url.clone()))
            .collect())
    }

    /// Places the out-of-process frames under their `<iframe>`s, level by
    /// level: a frame captured with the tab (`ready`) is used as it is; one
    /// met for the first time is attached and captured, all of a level at
    /// once. Returns the shots (the tab's first) and the frames left out,
    /// each named by its `src` and why.
    pub(crate) async fn frame_shots(
        &self,
        top: Shot,
        mut ready: HashMap<(u32, i64), (Link, Shot)>,
        targets: &HashMap<String, String>,
        needs: Needs,
        group: &str,
        timings: &mut CaptureTimings,
    ) -> Result<(Vec<(Option<Link>, Shot)>, Vec<String>)> {
        let mut parts: Vec<(Option<Link>, Shot)> = vec![(None, top)];
        let mut missing = Vec::new();
        let mut level = vec![0usize];
        for depth in 0..=MAX_FRAME_DEPTH {
            let mut new = Vec::new();
            let mut next = Vec::new();
            for &p in &level {
                let parent = parts[p].0.as_ref().map_or(0, |l| l.key);
                for (owner, src) in snapshot::frame_owners(&parts[p].1.snap) {
                    if let Some((link, shot)) = ready.remove(&(parent, owner)) {
                        next.push(parts.len());
                        parts.push((Some(link), shot));
                    } else if !self.frames.failed_at(parent, owner) {
                        new.push((parent, owner, src));
                    }
                }
            }
            if depth == MAX_FRAME_DEPTH {
                missing.extend(new.into_iter().map(|(_, _, src)| {
                    format!("{src}: nested more than {MAX_FRAME_DEPTH} frames deep")
                }));
                break;
            }
            let (found, elapsed) = timed(futures::future::join_all(new.iter().map(
                |&(parent, owner, _)| self.attach_frame(parent, owner, targets, needs, group),
            )))
            .await;
            if !new.is_empty() {
                timings.add("out-of-process frames (attach and capture)", elapsed);
            }
            for ((_, _, src), found) in new.into_iter().zip(found) {
                match found {
                    Ok(Some((link, shot, calls))) => {
                        timings.calls.extend(calls);
                        next.push(parts.len());
                        parts.push((Some(link), shot));
                    }
                    // An `<iframe>` without a document of its own (not loaded,
                    // or in the tab's process after all).
                    Ok(None) => {}
                    Err(err) if err.is_gone() => return Err(err),
                    Err(err) => missing.push(format!("{src}: {err:#}")),
                }
            }
            if next.is_empty() {
                break;
            }
            level = next;
        }
        // Frames whose `<iframe>` left the page.
        self.frames
            .forget(&ready.values().map(|(link, _)| link.key).collect::<Vec<_>>());
        Ok((parts, missing))
    }

    /// Attaches to the frame `<iframe>` `owner` of frame `parent` shows, if it
    /// is out of process, and captures it. `Ok(None)`: the element shows no
    /// frame of another process.
    async fn attach_frame(
        &self,
        parent: u32,
        owner: i64,
        targets: &HashMap<String, String>,
        needs: Needs,
        group: &str,
    ) -> Result<Option<(Link, Shot, Vec<Call>)>> {
        let frame = match self.frames.owner_frame(parent, owner) {
            Some(frame) => frame,
            None => {
                let Some(route) = self.frames.route(parent) else {
                    return Ok(None);
                };
                let described = self
                    .tab
                    .call(
                        "DOM.describeNode",
                        route.execute(
                            self.tab.page(),
                            DescribeNodeParams::builder()
                                .backend_node_id(BackendNodeId::new(owner))
                                .build(),
                        ),
                    )
                    .await?;
                let frame = described.result.node.frame_id.map(|f| f.inner().clone());
                self.frames.set_owner_frame(parent, owner, frame.clone());
                frame
            }
        };
        // A frame of this process (no document yet), or one showing
        // Chromium's error page (not page content), is not attached.
        let Some(frame) = frame.filter(|f| targets.get(f).is_some_and(|url| !is_error_page(url)))
        else {
            return Ok(None);
        };
        let attach = AttachToTargetParams::builder()
            .target_id(TargetId::new(frame.clone()))
            .flatten(true)
            .build()
            .map_err(|err| self.tab.unbuilt("Target.attachToTarget", err))?;
        let attached = match self
            .tab
            .call("Target.attachToTarget", self.tab.page().execute(attach))
            .await
        {
            Ok(attached) => attached,
            Err(err) if err.is_gone() => return Err(err.into()),
            // No target of its own: the frame is in this process.
            Err(_) => return Ok(None),
        };
        let link = self
            .frames
            .add(attached.result.session_id.clone(), parent, owner, frame);
        let (shot, calls) = self.shot(Some(&link), needs, group).await;
        match shot {
            Ok(shot) => Ok(Some((link, shot, calls))),
            Err(err) => {
                self.frames.forget(&[link.key]);
                Err(err)
            }
        }
    }

    /// The frames of other processes now (one call the browser answers
    /// itself), and the captures of those the tab had, issued together with
    /// the tab's own: all of them bar those gone or showing Chromium's error
    /// page (still showing it since the last capture).
    pub(super) async fn known_frames(
        &self,
        needs: Needs,
        group: &str,
    ) -> (
        Result<HashMap<String, String>>,
        Vec<Link>,
        Vec<(Result<Shot>, Vec<Call>)>,
    ) {
        let targets = match self.frame_targets().await {
            Ok(targets) => targets,
            Err(err) => return (Err(err), Vec::new(), Vec::new()),
        };
        let (known, stale): (Vec<Link>, Vec<Link>) = self
            .frames
            .links()
            .into_iter()
            .filter(|link| {
                link.failed.is_none() || link.failed.as_ref() != targets.get(&link.frame_id)
            })
            .partition(|link| {
                targets
                    .get(&link.frame_id)
                    .is_some_and(|url| !is_error_page(url))
            });
        self.frames
            .forget(&stale.iter().map(|l| l.key).collect::<Vec<_>>());
        let shots =
            futures::future::join_all(known.iter().map(|link| self.shot(Some(link), needs, group)))
                .await;
        (Ok(targets), known, shots)
    }

    /// The captures of the frames the tab had ([`Self::known_frames`]) by
    /// their `<iframe>` (parent frame number, owner backend id); the frames
    /// whose capture failed are forgotten.
    pub(super) fn ready_frames(
        &self,
        known: Vec<Link>,
        shots: Vec<(Result<Shot>, Vec<Call>)>,
        timings: &mut CaptureTimings,
    ) -> Result<HashMap<(u32, i64), (Link, Shot)>> {
        let mut ready: HashMap<(u32, i64), (Link, Shot)> = HashMap::new();
        let mut gone = Vec::new();
        for (link, (shot, calls)) in known.into_iter().zip(shots) {
            timings.calls.extend(calls);
            match shot {
                Ok(shot) => {
                    ready.insert((link.parent, link.owner), (link, shot));
                }
                Err(err) if err.is_gone() => return Err(err),
                // The frame navigated to another process or left the page:
                // found again below if its `<iframe>` is still there.
                Err(_) => gone.push(link.key),
            }
        }
        self.frames.forget(&gone);
        Ok(ready)
    }

    /// The element counts of the tab and its frames (`parts`, the tab's
    /// first), which hold only when every frame's could be taken. A frame
    /// showing Chromium's error page (it failed to load) is not page content:
    /// it is left out of the nodes, so out of the counts, and marked so as
    /// not to be asked for again until its target (`targets`) navigates.
    pub(super) fn frame_counts(
        &self,
        parts: &[(Option<Link>, Shot)],
        targets: &HashMap<String, String>,
    ) -> Option<DomCounts> {
        let mut counts = parts.first()?.1.counts;
        for (link, shot) in parts.iter().skip(1) {
            if snapshot::document_url(&shot.snap).is_some_and(|url| is_error_page(&url)) {
                if let Some(link) = link {
                    self.frames
                        .set_failed(link.key, targets.get(&link.frame_id).cloned());
                }
                continue;
            }
            counts = match (counts, shot.counts) {
                (Some(mut total), Some(frame)) => {
                    total.iframe += frame.iframe;
                    Some(total)
                }
                _ => None,
            };
        }
        counts
    }
}
