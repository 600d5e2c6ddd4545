//! Capturing one page state of an open tab into a Recording: only the CDP calls a use needs, issued together, each timed.
//!
//! The DOM snapshot is always taken. Layout metrics and the page facts
//! (title, focus, modal dialogs, shadow hosts) are asked for at the same
//! time; the viewport screenshot, Chromium's accessibility tree (the
//! validation oracle) and the element-count stability check only when
//! [`Needs`] says so. Recording for the archive needs everything; a live
//! observation needs the screenshot only for a strategy that reads it.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use chromiumoxide::cdp::browser_protocol::dom_snapshot::{
    CaptureSnapshotParams, CaptureSnapshotReturns,
};
use chromiumoxide::cdp::browser_protocol::page::{
    CaptureScreenshotFormat, CaptureScreenshotParams, GetLayoutMetricsParams,
};
use chromiumoxide::surrogates;
use pagesnap_engine::recording::{
    AxNode, CaptureNotes, DomCounts, Point, Recording, SCHEMA, Size, Viewport,
};
use pagesnap_engine::strategy::Strategy;

use super::Capture;
use super::facts::Facts;
use super::snapshot::{self, COMPUTED_STYLES};
use super::timings::{Call, CaptureTimings, timed};
use crate::failure::Phase;
use crate::frames::{self, Link, Route};

/// A captured page state: the recording and, when asked for, its viewport screenshot (PNG).
pub struct Captured {
    /// The recording.
    pub recording: Recording,
    /// PNG bytes of the viewport ([`Needs::screenshot`]).
    pub screenshot: Option<Vec<u8>>,
}

/// What one capture gathers besides the DOM snapshot and the page facts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Needs {
    /// A PNG of the viewport, and how to encode it.
    pub screenshot: Option<Png>,
    /// Chromium's accessibility tree of every frame: the validation oracle.
    pub oracle: bool,
    /// Element counts before and after the snapshot, retried while the page
    /// still changes, so an archived recording can be checked for consistency.
    pub stable_counts: bool,
}

/// How a screenshot is encoded: both decode to the same pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Png {
    /// Small files for the archive (Chromium's default compression).
    Compact,
    /// Encoded for speed (`optimizeForSpeed`): a third larger, ~15 ms sooner.
    Fast,
}

impl Needs {
    /// Everything: a recording for the archive.
    pub const RECORD: Needs = Needs {
        screenshot: Some(Png::Compact),
        oracle: true,
        stable_counts: true,
    };

    /// What rendering `strategy` live needs: a screenshot only if it reads one.
    pub fn observe(strategy: &dyn Strategy) -> Needs {
        Needs {
            screenshot: strategy.needs_screenshot().then_some(Png::Fast),
            oracle: false,
            stable_counts: false,
        }
    }
}

/// One process's share of a capture: its snapshot and facts.
pub(crate) struct Shot {
    pub(crate) snap: CaptureSnapshotReturns,
    pub(super) counts: Option<DomCounts>,
    facts: Facts,
    /// Chromium's accessibility tree (out-of-process frames only: the tab's
    /// is asked for beside the screenshot).
    ax: Vec<AxNode>,
}

impl Capture<'_> {
    /// [`crate::ChromiumSession::capture_with`]'s work.
    pub(crate) async fn capture_with(&self, needs: Needs) -> Result<(Captured, CaptureTimings)> {
        let started = Instant::now();
        self.tab.enter(Phase::Snapshot);
        // Lone surrogates the transport repaired in this page's messages
        // during this capture (counted per CDP session, so other pages
        // captured meanwhile — `--jobs N` — do not count).
        let session = self.tab.page().session_id().as_ref().to_owned();
        let surrogates_before = surrogates::replaced_in(&session);
        let mut timings = CaptureTimings::default();
        let captured_at = now_rfc3339();
        let group = self.tab.object_group("capture");
        let screenshot = async {
            if let Some(png) = needs.screenshot {
                Some(timed(self.screenshot(png)).await)
            } else {
                None
            }
        };
        let oracle = async {
            if needs.oracle {
                Some(timed(self.accessibility()).await)
            } else {
                None
            }
        };
        let metrics = timed(self.tab.call(
            "Page.getLayoutMetrics",
            self.tab.page().execute(GetLayoutMetricsParams::default()),
        ));
        // The frames of other processes now (one call the browser answers
        // itself, beside the tab's calls): those the tab had are captured
        // together with it, bar those gone or showing Chromium's error page.
        let frames = self.known_frames(needs, &group);
        // Issued in this order: the layout metrics before the snapshot and
        // the facts script, which would hold them up behind it.
        let ((metrics, metrics_ms), (top, top_calls), screenshot, oracle, frames) = tokio::join!(
            metrics,
            self.shot(None, needs, &group),
            screenshot,
            oracle,
            frames,
        );
        timings.calls.extend(top_calls);
        timings.add("Page.getLayoutMetrics", metrics_ms);
        let top = top?;
        let metrics = metrics?.result;
        let (targets, known, frames) = frames;
        let targets = targets?;
        let ready = self.ready_frames(known, frames, &mut timings)?;
        let (parts, missing) = self
            .frame_shots(top, ready, &targets, needs, &group, &mut timings)
            .await?;
        // Handles would otherwise live as long as the page.
        self.tab.release_group(&Route::TAB, group);
        let screenshot = match screenshot {
            Some((png, elapsed)) => {
                timings.add("Page.captureScreenshot", elapsed);
                Some(png?)
            }
            None => None,
        };
        let mut ax = match oracle {
            Some((ax, elapsed)) => {
                timings.add("Accessibility.getFullAXTree", elapsed);
                ax?
            }
            None => Vec::new(),
        };
        let top = &parts[0].1;
        // The recording names the document it holds, not the one asked for.
        let url = snapshot::document_url(&top.snap).map_or_else(
            || self.tab.display_url().to_owned(),
            |url| self.tab.stored_url(&url),
        );
        let title = top.facts.title.clone();
        let counts = self.frame_counts(&parts, &targets);

        let (joined, join_elapsed) = timed_join(&parts);
        timings.join = join_elapsed;
        let focused = focused_key(&parts).and_then(|key| joined.by_backend.get(&key).copied());
        for (_, shot) in parts.into_iter().skip(1) {
            ax.extend(shot.ax);
        }
        let viewport = &metrics.css_layout_viewport;
        let recording = Recording {
            schema: SCHEMA.to_owned(),
            url,
            title,
            captured_at,
            browser: self.version.to_owned(),
            viewport: Viewport {
                width: viewport.client_width as f64,
                height: viewport.client_height as f64,
                device_scale_factor: 1.0,
            },
            scroll: Point {
                x: viewport.page_x as f64,
                y: viewport.page_y as f64,
            },
            document_size: Size {
                width: metrics.css_content_size.width,
                height: metrics.css_content_size.height,
            },
            focused,
            nodes: joined.nodes,
            ax: ax.into(),
            counts,
            capture: CaptureNotes {
                replaced_surrogates: surrogates::replaced_in(&session)
                    .saturating_sub(surrogates_before),
                missing_frames: missing,
                dialogs: self.tab.dialogs().take_answered(),
                ..CaptureNotes::default()
            },
        };
        timings.total = started.elapsed();
        Ok((
            Captured {
                recording,
                screenshot,
            },
            timings,
        ))
    }

    /// The snapshot and facts of one process: the tab's own (`None`, with
    /// element counts when `needs` asks for them) or a frame's (with its
    /// accessibility tree when `needs` asks for the oracle).
    pub(crate) async fn shot(
        &self,
        link: Option<&Link>,
        needs: Needs,
        group: &str,
    ) -> (Result<Shot>, Vec<Call>) {
        let route = link.map_or(Route::TAB, Link::route);
        let stable = needs.stable_counts && link.is_none();
        let oracle = async {
            match link {
                Some(link) if needs.oracle => Some(timed(self.accessibility_of(link)).await),
                _ => None,
            }
        };
        // A frame's elements as its own scripts count them, all under `iframe`.
        let frame_counts = async {
            match link {
                Some(_) if needs.stable_counts => Some(timed(self.counts_in(&route)).await),
                _ => None,
            }
        };
        // The document's handle first, then the facts (listeners and script)
        // and the scroll boxes through kept handles polled before the
        // snapshot: all are sent ahead of it.
        let (document, document_call) = self.document_handle(&route).await;
        let mut calls: Vec<Call> = document_call.into_iter().collect();
        let document = match document {
            Ok(document) => document,
            Err(err) => return (Err(err), calls),
        };
        let ((facts, facts_calls), early, (snap, mut counts, snap_calls), oracle, frame_counts) = tokio::join!(
            // Boxed: with the snapshot's future beside it, the capture's future
            // outgrew a worker's stack in the debug build.
            Box::pin(self.facts(&route, group, document.as_ref())),
            self.early_boxes(&route),
            self.dom_snapshot(&route, stable),
            oracle,
            frame_counts,
        );
        self.release_frame_document(&route, document);
        calls.extend(snap_calls);
        calls.extend(facts_calls);
        if let Some((frame_counts, elapsed)) = frame_counts {
            calls.push(Call {
                name: "element counts",
                elapsed,
            });
            counts = frame_counts.map(|c| DomCounts {
                document: 0,
                shadow: 0,
                iframe: c.document + c.shadow + c.iframe,
            });
        }
        let result = async {
            let snap = snap?;
            let mut facts = facts?;
            let (boxes, call) = self.scroll_boxes(&route, &snap, group, early).await;
            calls.extend(call);
            facts.extras.boxes.extend(boxes?);
            let ax = match oracle {
                Some((ax, elapsed)) => {
                    calls.push(Call {
                        name: "Accessibility.getFullAXTree",
                        elapsed,
                    });
                    ax?
                }
                None => Vec::new(),
            };
            if link.is_some() {
                self.tab.release_group(&route, group.to_owned());
            }
            Ok(Shot {
                snap,
                counts,
                facts,
                ax,
            })
        }
        .await;
        (result, calls)
    }

    /// `DOMSnapshot.captureSnapshot`. With `stable`, element counts are
    /// taken before and after and the snapshot retried (three times at most)
    /// while they differ: a page whose scripts still add or remove elements
    /// can change between the snapshot and the other calls, and a recording
    /// keeps no counts rather than counts of another moment.
    async fn dom_snapshot(
        &self,
        route: &Route,
        stable: bool,
    ) -> (Result<CaptureSnapshotReturns>, Option<DomCounts>, Vec<Call>) {
        let mut calls = Vec::new();
        // No `includeDOMRects`: scroll and client boxes of every element cost
        // as much as the rest of the snapshot; `boxes` asks for the few needed.
        // No `includeBlendedBackgroundColors` (a fifth to a third of the
        // snapshot): the engine blends the backgrounds it has.
        let mut params = CaptureSnapshotParams::builder().include_paint_order(true);
        for style in COMPUTED_STYLES {
            params = params.computed_style(*style);
        }
        let params = match params.build() {
            Ok(params) => params,
            Err(err) => {
                return (
                    Err(self.tab.unbuilt("DOMSnapshot.captureSnapshot", err)),
                    None,
                    calls,
                );
            }
        };
        let snapshot = |params: CaptureSnapshotParams| async {
            let (result, elapsed) = timed(self.tab.call_large(
                "DOMSnapshot.captureSnapshot",
                route.execute(self.tab.page(), params),
            ))
            .await;
            (result.map(|r| r.result).map_err(Error::from), elapsed)
        };
        if !stable {
            let (snap, elapsed) = snapshot(params).await;
            calls.push(Call {
                name: "DOMSnapshot.captureSnapshot",
                elapsed,
            });
            return (snap, None, calls);
        }
        let mut attempt = 0;
        loop {
            attempt += 1;
            let (before, before_ms) = timed(self.counts()).await;
            let (snap, elapsed) = snapshot(params.clone()).await;
            let (after, after_ms) = timed(self.counts()).await;
            calls.push(Call {
                name: "element counts",
                elapsed: before_ms + after_ms,
            });
            calls.push(Call {
                name: "DOMSnapshot.captureSnapshot",
                elapsed,
            });
            let snap = match snap {
                Ok(snap) => snap,
                Err(err) => return (Err(err), None, calls),
            };
            if before.is_some() && before == after {
                return (Ok(snap), after, calls);
            }
            if attempt >= 3 {
                return (Ok(snap), None, calls);
            }
            tokio::time::sleep(crate::waits::RESNAPSHOT).await;
        }
    }

    async fn screenshot(&self, png: Png) -> Result<Vec<u8>> {
        self.screenshot_with(
            CaptureScreenshotParams::builder()
                .format(CaptureScreenshotFormat::Png)
                .optimize_for_speed(png == Png::Fast)
                .build(),
        )
        .await
    }

    /// The screenshot Chromium takes with `params`, decoded from base64.
    pub(super) async fn screenshot_with(&self, params: CaptureScreenshotParams) -> Result<Vec<u8>> {
        let shot = self
            .tab
            .call("Page.captureScreenshot", self.tab.page().execute(params))
            .await?;
        base64::Engine::decode(
            &base64::engine::general_purpose::STANDARD,
            AsRef::<str>::as_ref(&shot.result.data),
        )
        .map_err(|err| Error::Answer {
            url: self.tab.url().to_owned(),
            message: format!("the screenshot was not valid base64: {err}"),
        })
    }
}

/// Joins the parts of a capture (the tab's first, then each frame under
/// its `<iframe>`) into one node list, and how long that took.
fn timed_join(parts: &[(Option<Link>, Shot)]) -> (snapshot::Joined, Duration) {
    let started = Instant::now();
    let owners: HashMap<(u32, i64), usize> = parts
        .iter()
        .enumerate()
        .filter_map(|(i, (link, _))| Some(((link.as_ref()?.parent, link.as_ref()?.owner), i)))
        .collect();
    let joined_parts: Vec<snapshot::Part<'_>> = parts
        .iter()
        .map(|(link, shot)| snapshot::Part {
            snap: &shot.snap,
            extras: &shot.facts.extras,
            key: link.as_ref().map_or(0, |l| l.key),
        })
        .collect();
    let joined = snapshot::join(&joined_parts, &owners);
    (joined, started.elapsed())
}

/// The key of the focused element: the tab's, or, when that is the
/// `<iframe>` of an out-of-process frame, the element focused inside it.
fn focused_key(parts: &[(Option<Link>, Shot)]) -> Option<u64> {
    let mut frame = 0;
    let mut focused = parts.first()?.1.facts.focused?;
    loop {
        let inner = parts.iter().find_map(|(link, shot)| {
            let link = link.as_ref()?;
            (link.parent == frame && link.owner == focused).then_some((link.key, shot))
        });
        match inner {
            Some((key, shot)) if shot.facts.focused.is_some() => {
                frame = key;
                focused = shot.facts.focused?;
            }
            _ => return Some(frames::node_key(frame, focused)),
        }
    }
}

/// Current UTC time as RFC 3339 (seconds), without a date-time dependency.
pub fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = secs / 86_400;
    let rem = secs % 86_400;
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use chromiumoxide::cdp::browser_protocol::target::SessionId;

    use super::*;
    use crate::capture::snapshot::Extras;

    fn shot(focused: Option<i64>) -> Shot {
        Shot {
            snap: serde_json::from_value(serde_json::json!({"documents": [], "strings": []}))
                .unwrap(),
            counts: None,
            facts: Facts {
                title: String::new(),
                focused,
                extras: Extras::default(),
            },
            ax: Vec::new(),
        }
    }

    fn link(key: u32, parent: u32, owner: i64) -> Option<Link> {
        Some(Link {
            key,
            session: SessionId::new(format!("s{key}")),
            parent,
            owner,
            frame_id: format!("F{key}"),
            failed: None,
        })
    }

    /// The focus is followed through each out-of-process `<iframe>` that
    /// holds it, down to the element focused inside the innermost frame.
    #[test]
    fn the_focused_key_follows_the_focus_into_frames() {
        // The tab focuses its own element 5: that is the key.
        assert_eq!(focused_key(&[(None, shot(Some(5)))]), Some(5));
        assert_eq!(focused_key(&[(None, shot(None))]), None);
        // The tab focuses iframe 10, whose frame (1) focuses iframe 20, whose
        // frame (2) focuses element 7.
        let parts = [
            (None, shot(Some(10))),
            (link(1, 0, 10), shot(Some(20))),
            (link(2, 1, 20), shot(Some(7))),
            (link(3, 0, 30), shot(Some(9))),
        ];
        assert_eq!(focused_key(&parts), Some(frames::node_key(2, 7)));
        // A frame that focuses nothing: the focus stays on its `<iframe>`.
        let parts = [(None, shot(Some(10))), (link(1, 0, 10), shot(None))];
        assert_eq!(focused_key(&parts), Some(10));
    }
}
