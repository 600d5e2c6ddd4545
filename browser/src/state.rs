//! Capturing one page state of an open tab into a Recording: only the CDP calls a use needs, issued together, each timed.
//!
//! The DOM snapshot is always taken. Layout metrics and the page facts
//! (title, focus, modal dialogs, shadow hosts) are asked for at the same
//! time; the viewport screenshot, Chromium's accessibility tree (the
//! validation oracle) and the element-count stability check only when
//! [`Needs`] says so. Recording for the archive needs everything; a live
//! observation needs the screenshot only for a strategy that reads it.

use std::collections::HashMap;
use std::future::Future;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow};
use chromiumoxide::cdp::browser_protocol::dom::{
    BackendNodeId, DescribeNodeParams, ResolveNodeParams,
};
use chromiumoxide::cdp::browser_protocol::dom_snapshot::{
    CaptureSnapshotParams, CaptureSnapshotReturns,
};
use chromiumoxide::cdp::browser_protocol::page::{
    CaptureScreenshotFormat, CaptureScreenshotParams, GetLayoutMetricsParams,
};
use chromiumoxide::cdp::js_protocol::runtime::{
    CallArgument, CallFunctionOnParams, EvaluateParams, GetPropertiesParams,
};
use chromiumoxide::surrogates;
use pagesnap_engine::recording::{
    CaptureNotes, DomCounts, Point, Recording, SCHEMA, Size, Viewport,
};
use pagesnap_engine::strategy::Strategy;

use crate::Captured;
use crate::failure::Phase;
use crate::session::ChromiumSession;
use crate::snapshot::{self, Boxes, COMPUTED_STYLES, Extras};

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

/// One CDP call (or script) of a capture and how long it took, from the
/// moment the capture issued it until its answer was decoded.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// CDP method or script, e.g. `DOMSnapshot.captureSnapshot`.
    pub name: &'static str,
    /// Its latency.
    pub elapsed: Duration,
}

/// Where the time of one capture went.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CaptureTimings {
    /// Every call, in the order they were issued; concurrent calls overlap.
    pub calls: Vec<Call>,
    /// Joining CDP's tables into the recording's nodes.
    pub join: Duration,
    /// Wall time of the whole capture.
    pub total: Duration,
}

impl CaptureTimings {
    fn add(&mut self, name: &'static str, elapsed: Duration) {
        self.calls.push(Call { name, elapsed });
    }
}

/// Builds the page facts: `[title, focused, modal count, …modal dialogs,
/// …shadow hosts]`. The focused element follows focus into open shadow roots
/// and same-origin frames; dialogs and hosts are found in the document, its
/// open shadow trees and its same-origin frames.
const FACTS_JS: &str = r#"(() => {
  const hosts = [], modals = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) { hosts.push(el); walk(el.shadowRoot); }
      if (el.tagName === 'DIALOG' && el.matches(':modal')) modals.push(el);
      if (el.tagName === 'IFRAME' || el.tagName === 'FRAME') {
        let doc = null;
        try { doc = el.contentDocument; } catch (e) {}
        if (doc) walk(doc);
      }
    }
  };
  walk(document);
  let el = document.activeElement;
  for (;;) {
    if (el && el.shadowRoot && el.shadowRoot.activeElement) { el = el.shadowRoot.activeElement; continue; }
    if (el && (el.tagName === 'IFRAME' || el.tagName === 'FRAME')) {
      let doc = null;
      try { doc = el.contentDocument; } catch (e) {}
      if (doc && doc.activeElement && doc.activeElement !== doc.body) { el = doc.activeElement; continue; }
    }
    break;
  }
  const focused = (el && el !== document.body && el !== document.documentElement) ? el : null;
  return [String(document.title), focused, modals.length, ...modals, ...hosts];
})()"#;

/// Reads `[scrollLeft, scrollTop, scrollWidth, scrollHeight, clientLeft,
/// clientTop, clientWidth, clientHeight]` of each element argument.
const BOXES_JS: &str = "function (...elements) { return elements.map((e) => e instanceof Element \
    ? [e.scrollLeft, e.scrollTop, e.scrollWidth, e.scrollHeight, \
       e.clientLeft, e.clientTop, e.clientWidth, e.clientHeight] : null); }";

/// Title, focus, modal dialogs and shadow hosts, by backend node id.
#[derive(Default)]
struct Facts {
    title: String,
    focused: Option<i64>,
    extras: Extras,
}

async fn timed<T>(future: impl Future<Output = T>) -> (T, Duration) {
    let started = Instant::now();
    let value = future.await;
    (value, started.elapsed())
}

impl ChromiumSession {
    /// Captures the current state with what `needs` asks for.
    pub async fn capture_with(&self, needs: Needs) -> Result<(Captured, CaptureTimings)> {
        let started = Instant::now();
        self.enter(Phase::Snapshot);
        // Lone surrogates the transport repaired in this page's messages
        // during this capture (counted per CDP session, so other pages
        // captured meanwhile — `--jobs N` — do not count).
        let session = self.page.session_id().as_ref().to_owned();
        let surrogates_before = surrogates::replaced_in(&session);
        let mut timings = CaptureTimings::default();
        let captured_at = now_rfc3339();
        let group = self.object_group("capture");
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
        let metrics = timed(self.call(
            "Page.getLayoutMetrics",
            self.page.execute(GetLayoutMetricsParams::default()),
        ));
        let (
            (snap, counts, snapshot_calls),
            (metrics, metrics_ms),
            (facts, facts_calls),
            screenshot,
            oracle,
        ) = tokio::join!(
            self.dom_snapshot(needs.stable_counts),
            metrics,
            self.facts(&group),
            screenshot,
            oracle,
        );
        let (snap, counts) = (snap?, counts);
        timings.calls.extend(snapshot_calls);
        timings.add("Page.getLayoutMetrics", metrics_ms);
        timings.calls.extend(facts_calls);
        let metrics = metrics?.result;
        let mut facts = facts?;
        // The recording names the document it holds, not the one asked for.
        let url = snapshot::document_url(&snap)
            .map_or_else(|| self.display_url.clone(), |url| self.stored_url(&url));
        let candidates = snapshot::scroll_candidates(&snap);
        if !candidates.is_empty() {
            let (boxes, elapsed) = timed(futures::future::join_all(
                candidates.iter().map(|ids| self.boxes(ids, &group)),
            ))
            .await;
            timings.add(
                "scroll boxes (DOM.resolveNode, Runtime.callFunctionOn)",
                elapsed,
            );
            for boxes in boxes {
                facts.extras.boxes.extend(boxes?);
            }
        }
        // Handles would otherwise live as long as the page.
        self.release_group(group);
        let screenshot = match screenshot {
            Some((png, elapsed)) => {
                timings.add("Page.captureScreenshot", elapsed);
                Some(png?)
            }
            None => None,
        };
        let ax = match oracle {
            Some((ax, elapsed)) => {
                timings.add("Accessibility.getFullAXTree", elapsed);
                ax?
            }
            None => Vec::new(),
        };

        let (joined, join_elapsed) = {
            let started = Instant::now();
            let joined = snapshot::join(&snap, &facts.extras);
            (joined, started.elapsed())
        };
        timings.join = join_elapsed;
        let focused = facts
            .focused
            .and_then(|b| u64::try_from(b).ok())
            .and_then(|b| joined.by_backend.get(&b).copied());
        let viewport = &metrics.css_layout_viewport;
        let recording = Recording {
            schema: SCHEMA.to_owned(),
            url,
            title: facts.title,
            captured_at,
            browser: self.version.clone(),
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

    /// `DOMSnapshot.captureSnapshot`. With `stable`, element counts are
    /// taken before and after and the snapshot retried (three times at most)
    /// while they differ: a page whose scripts still add or remove elements
    /// can change between the snapshot and the other calls, and a recording
    /// keeps no counts rather than counts of another moment.
    async fn dom_snapshot(
        &self,
        stable: bool,
    ) -> (Result<CaptureSnapshotReturns>, Option<DomCounts>, Vec<Call>) {
        let mut calls = Vec::new();
        // No `includeDOMRects`: scroll and client boxes of every element cost
        // as much as the rest of the snapshot; `boxes` asks for the few needed.
        let mut params = CaptureSnapshotParams::builder().include_paint_order(true);
        for style in COMPUTED_STYLES {
            params = params.computed_style(*style);
        }
        let params = match params.build() {
            Ok(params) => params,
            Err(err) => return (Err(anyhow!("{err}")), None, calls),
        };
        let snapshot = |params: CaptureSnapshotParams| async {
            let page = self.page.clone();
            let (result, elapsed) =
                timed(self.call_large("DOMSnapshot.captureSnapshot", async move {
                    page.execute(params).await
                }))
                .await;
            (
                result.map(|r| r.result).map_err(anyhow::Error::from),
                elapsed,
            )
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
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Runs the facts script, then reads its array and resolves its elements
    /// to backend node ids (all at once).
    async fn facts(&self, group: &str) -> (Result<Facts>, Vec<Call>) {
        let mut calls = Vec::new();
        let result = self.facts_inner(group, &mut calls).await;
        (result, calls)
    }

    /// Scroll and client boxes of `elements` (backend node ids of one
    /// document): each is resolved to a handle (all at once), then one
    /// function reads them all.
    /// An element gone since the snapshot is left out.
    async fn boxes(&self, elements: &[i64], group: &str) -> Result<HashMap<i64, Boxes>> {
        let resolved = futures::future::join_all(elements.iter().map(|&id| {
            self.call(
                "DOM.resolveNode",
                self.page.execute(
                    ResolveNodeParams::builder()
                        .backend_node_id(BackendNodeId::new(id))
                        .object_group(group)
                        .build(),
                ),
            )
        }))
        .await;
        let mut kept = Vec::new();
        let mut arguments = Vec::new();
        for (&id, resolved) in elements.iter().zip(resolved) {
            match resolved {
                Ok(resolved) => {
                    if let Some(object) = resolved.result.object.object_id {
                        kept.push(id);
                        arguments.push(CallArgument::builder().object_id(object).build());
                    }
                }
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
            .map_err(|err| anyhow!("{err}"))?;
        let result = self
            .call("Runtime.callFunctionOn", self.page.execute(params))
            .await?
            .result;
        if let Some(exception) = &result.exception_details {
            return Err(anyhow!(
                "{}: reading scroll boxes failed: {}",
                self.url,
                exception.text
            ));
        }
        let values: Vec<Option<Boxes>> =
            serde_json::from_value(result.result.value.unwrap_or_default()).with_context(|| {
                format!(
                    "{}: the scroll boxes script returned no list of boxes",
                    self.url
                )
            })?;
        Ok(kept
            .into_iter()
            .zip(values)
            .filter_map(|(id, boxes)| Some((id, boxes?)))
            .collect())
    }

    async fn facts_inner(&self, group: &str, calls: &mut Vec<Call>) -> Result<Facts> {
        let params = EvaluateParams::builder()
            .expression(FACTS_JS)
            .object_group(group)
            .return_by_value(false)
            .build()
            .map_err(|err| anyhow!("{err}"))?;
        let (evaluated, elapsed) =
            timed(self.call("page facts (Runtime.evaluate)", self.page.execute(params))).await;
        calls.push(Call {
            name: "page facts (Runtime.evaluate)",
            elapsed,
        });
        let evaluated = evaluated?.result;
        if let Some(exception) = &evaluated.exception_details {
            return Err(anyhow!(
                "{}: the page facts script failed: {}",
                self.url,
                exception.text
            ));
        }
        let array =
            evaluated.result.object_id.clone().with_context(|| {
                format!("{}: the page facts script returned no array", self.url)
            })?;
        let params = GetPropertiesParams::builder()
            .object_id(array)
            .own_properties(true)
            .build()
            .map_err(|err| anyhow!("{err}"))?;
        let (properties, elapsed) =
            timed(self.call("Runtime.getProperties", self.page.execute(params))).await;
        calls.push(Call {
            name: "Runtime.getProperties",
            elapsed,
        });
        let properties = properties?.result.result;
        let mut items: Vec<(
            usize,
            &chromiumoxide::cdp::js_protocol::runtime::RemoteObject,
        )> = properties
            .iter()
            .filter_map(|p| Some((p.name.parse::<usize>().ok()?, p.value.as_ref()?)))
            .collect();
        items.sort_by_key(|(index, _)| *index);
        let value = |k: usize| items.get(k).and_then(|(_, v)| v.value.as_ref());
        let mut facts = Facts {
            title: value(0)
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_owned(),
            ..Facts::default()
        };
        let modals = value(2).and_then(serde_json::Value::as_u64).unwrap_or(0) as usize;
        // Elements to resolve: index 1 is the focused element (or null),
        // then the modal dialogs, then the hosts.
        let elements: Vec<(usize, String)> = items
            .iter()
            .filter(|(index, _)| *index == 1 || *index >= 3)
            .filter_map(|(index, v)| Some((*index, v.object_id.clone()?.inner().clone())))
            .collect();
        let (described, elapsed) = timed(futures::future::join_all(elements.iter().map(
            |(_, object)| {
                self.call(
                    "DOM.describeNode",
                    self.page.execute(
                        DescribeNodeParams::builder()
                            .object_id(
                                chromiumoxide::cdp::js_protocol::runtime::RemoteObjectId::new(
                                    object.clone(),
                                ),
                            )
                            .build(),
                    ),
                )
            },
        )))
        .await;
        if !elements.is_empty() {
            calls.push(Call {
                name: "DOM.describeNode",
                elapsed,
            });
        }
        for ((index, _), node) in elements.iter().zip(described) {
            let backend = *node?.result.node.backend_node_id.inner();
            match *index {
                1 => facts.focused = Some(backend),
                k if k < 3 + modals => {
                    facts.extras.modal.insert(backend);
                }
                _ => {
                    facts.extras.hosts.insert(backend);
                }
            }
        }
        Ok(facts)
    }

    async fn screenshot(&self, png: Png) -> Result<Vec<u8>> {
        let shot = self
            .call(
                "Page.captureScreenshot",
                self.page.execute(
                    CaptureScreenshotParams::builder()
                        .format(CaptureScreenshotFormat::Png)
                        .optimize_for_speed(png == Png::Fast)
                        .build(),
                ),
            )
            .await?;
        base64::Engine::decode(
            &base64::engine::general_purpose::STANDARD,
            AsRef::<str>::as_ref(&shot.result.data),
        )
        .with_context(|| format!("{}: the screenshot was not valid base64", self.url))
    }
}

/// Current UTC time as RFC 3339 (seconds), without a date-time dependency.
fn now_rfc3339() -> String {
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
