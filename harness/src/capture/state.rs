//! Capturing one page state of an open tab into a Recording and its screenshot.

use std::collections::HashSet;
use std::time::Duration;

use anyhow::{Context, Result, anyhow};
use chromiumoxide::cdp::browser_protocol::dom_snapshot::CaptureSnapshotParams;
use chromiumoxide::cdp::browser_protocol::page::{
    CaptureScreenshotFormat, CaptureScreenshotParams,
};
use pagesnap_engine::recording::{Point, Recording, SCHEMA, Size, Viewport};

use super::Captured;
use super::session::{ACTIVE_JS, ChromiumSession, HOSTS_JS};
use super::snapshot::{self, COMPUTED_STYLES, Extras};

impl ChromiumSession {
    /// Captures the current state: DOM snapshot, layout metrics, shadow
    /// hosts, modal dialogs, focus, title, the accessibility oracle and a
    /// viewport screenshot.
    pub(super) async fn capture_state(&self) -> Result<Captured> {
        let mut params = CaptureSnapshotParams::builder()
            .include_paint_order(true)
            .include_dom_rects(true);
        for style in COMPUTED_STYLES {
            params = params.computed_style(*style);
        }
        let params = params.build().map_err(|err| anyhow!("{err}"))?;
        let captured_at = now_rfc3339();
        // A page whose scripts still add or remove elements can change
        // between the snapshot and the other calls. Count elements before
        // and after the snapshot and retry a few times; if the page never
        // holds still, record no counts rather than counts of another moment.
        let mut attempt = 0;
        let (snap, counts) = loop {
            attempt += 1;
            let before = self.counts().await;
            let snap = self
                .page
                .execute(params.clone())
                .await
                .with_context(|| format!("DOMSnapshot.captureSnapshot failed for {}", self.url))?
                .result;
            let after = self.counts().await;
            if before.is_some() && before == after {
                break (snap, after);
            }
            if attempt >= 3 {
                break (snap, None);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        let metrics = self
            .page
            .layout_metrics()
            .await
            .with_context(|| format!("Page.getLayoutMetrics failed for {}", self.url))?;

        let mut extras = Extras {
            hosts: self.backend_ids_of_js(HOSTS_JS).await.unwrap_or_default(),
            ..Extras::default()
        };
        if let Ok(dialogs) = self.page.find_elements("dialog:modal").await {
            extras.modal = dialogs
                .iter()
                .map(|d| *d.backend_node_id.inner())
                .collect::<HashSet<_>>();
        }
        let joined = snapshot::join(&snap, &extras);
        let focused_backend = self.backend_id_of_js(ACTIVE_JS).await.ok().flatten();
        let focused = focused_backend
            .and_then(|b| u64::try_from(b).ok())
            .and_then(|b| joined.by_backend.get(&b).copied());
        let title = self
            .eval("document.title")
            .await?
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let ax = self.accessibility().await?;

        let viewport = &metrics.css_layout_viewport;
        let recording = Recording {
            schema: SCHEMA.to_owned(),
            url: self.display_url.clone(),
            title,
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
            ax,
            counts,
        };
        let screenshot = self
            .page
            .execute(
                CaptureScreenshotParams::builder()
                    .format(CaptureScreenshotFormat::Png)
                    .build(),
            )
            .await
            .with_context(|| format!("Page.captureScreenshot failed for {}", self.url))?;
        let screenshot = base64::Engine::decode(
            &base64::engine::general_purpose::STANDARD,
            AsRef::<str>::as_ref(&screenshot.result.data),
        )
        .context("the screenshot was not valid base64")?;
        Ok(Captured {
            recording,
            screenshot,
        })
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
