//! The Chromium backend: launches Debian's `/usr/bin/chromium` headless and captures pages over CDP (chromiumoxide).
//!
//! chromiumoxide costs 0.5–1 ms per CDP call here, where headless_chrome costs
//! ~100 ms and cannot deserialize `DOMSnapshot.captureSnapshot`; see the README.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use chromiumoxide::Page as CdpPage;
use chromiumoxide::browser::{Browser, BrowserConfig};
use chromiumoxide::cdp::browser_protocol::accessibility::GetFullAxTreeParams;
use chromiumoxide::cdp::browser_protocol::dom::DescribeNodeParams;
use chromiumoxide::cdp::browser_protocol::dom_snapshot::CaptureSnapshotParams;
use chromiumoxide::cdp::browser_protocol::emulation::SetDeviceMetricsOverrideParams;
use chromiumoxide::cdp::browser_protocol::page::{
    CaptureScreenshotFormat, CaptureScreenshotParams, EventJavascriptDialogOpening,
    HandleJavaScriptDialogParams, NavigateParams,
};
use chromiumoxide::cdp::js_protocol::runtime::{EvaluateParams, GetPropertiesParams};
use futures::StreamExt;
use pagesnap_engine::recording::{AxNode, DomCounts, Point, Recording, SCHEMA, Size, Viewport};

use super::snapshot::{self, COMPUTED_STYLES, Extras};
use super::{Action, Capture, Captured, WaitFor};

/// The flags every launch uses (DEVELOPERS.md): no sandbox (we run as root in
/// CI), no GPU, and no background networking — this machine's closed network
/// refuses those connections.
pub const CHROMIUM_FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--mute-audio",
    "--allow-file-access-from-files",
    "--font-render-hinting=none",
    "--force-color-profile=srgb",
];

/// Offline recording (the default): every host name but the loopback fails to
/// resolve at once, so missing third-party resources cannot stall the load
/// event for seconds, and a recording never depends on the network.
const OFFLINE_FLAG: &str =
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1";

const DEFAULT_CHROMIUM: &str = "/usr/bin/chromium";

/// A running headless Chromium.
pub struct Chromium {
    browser: Browser,
    handler: tokio::task::JoinHandle<()>,
    version: String,
    _profile: tempfile::TempDir,
}

impl Chromium {
    /// Launches Chromium (`$PAGESNAP_CHROMIUM` or `/usr/bin/chromium`) with a
    /// fresh profile; without `network`, only loopback hosts resolve.
    pub async fn launch(network: bool) -> Result<Chromium> {
        let executable = std::env::var_os("PAGESNAP_CHROMIUM")
            .map_or_else(|| PathBuf::from(DEFAULT_CHROMIUM), PathBuf::from);
        if !executable.exists() {
            bail!(
                "Chromium not found at {}: install it with `sudo apt-get install -y chromium chromium-driver` \
                 (or set PAGESNAP_CHROMIUM to a Chromium binary)",
                executable.display()
            );
        }
        let profile = tempfile::Builder::new()
            .prefix("pagesnap-chromium-")
            .tempdir()
            .context("could not create a Chromium profile directory")?;
        let config = BrowserConfig::builder()
            .chrome_executable(&executable)
            .user_data_dir(profile.path())
            .disable_default_args()
            .args(
                CHROMIUM_FLAGS
                    .iter()
                    .copied()
                    .chain((!network).then_some(OFFLINE_FLAG))
                    .map(|flag| flag.trim_start_matches("--")),
            )
            .viewport(None)
            .launch_timeout(Duration::from_secs(30))
            .request_timeout(Duration::from_secs(60))
            .build()
            .map_err(|err| anyhow!("invalid Chromium configuration: {err}"))?;
        let (browser, mut handler) = Browser::launch(config)
            .await
            .with_context(|| format!("could not launch {}", executable.display()))?;
        // The handler drives the websocket; it must be polled for the whole
        // session. Errors on single messages (events newer than the protocol
        // crate knows) are not fatal.
        let handler = tokio::spawn(async move { while handler.next().await.is_some() {} });
        let version = browser
            .version()
            .await
            .map(|v| v.product)
            .unwrap_or_else(|_| "Chromium (unknown version)".to_owned());
        Ok(Chromium {
            browser,
            handler,
            version,
            _profile: profile,
        })
    }

    /// Opens `target` (a URL or a local file path) in a new tab with the given
    /// viewport, waits for load (bounded by `timeout`), then for `wait_for`,
    /// and scrolls to `scroll_y`.
    pub async fn open(&self, target: &str, options: &OpenOptions) -> Result<ChromiumSession> {
        let (url, display_url) = resolve_target(target)?;
        let page = self
            .browser
            .new_page("about:blank")
            .await
            .context("could not open a new tab")?;
        page.execute(SetDeviceMetricsOverrideParams::new(
            i64::from(options.width),
            i64::from(options.height),
            1.0,
            false,
        ))
        .await
        .context("could not set the viewport")?;
        // alert()/confirm()/prompt() would block the page (and its load
        // event) forever; accept each dialog as a user clicking OK would.
        let mut dialogs = page
            .event_listener::<EventJavascriptDialogOpening>()
            .await
            .context("could not listen for JavaScript dialogs")?;
        let dialog_page = page.clone();
        tokio::spawn(async move {
            while dialogs.next().await.is_some() {
                let _ = dialog_page
                    .execute(HandleJavaScriptDialogParams::new(true))
                    .await;
            }
        });
        let started = Instant::now();
        // `Page.navigate` runs in the background while we poll
        // `readyState` ourselves: chromiumoxide resolves the command only
        // after lifecycle events that never come for some pages (scripts
        // that re-navigate during load), which would stall the recorder.
        let navigate_page = page.clone();
        let navigate_url = url.clone();
        let navigation = tokio::spawn(async move {
            navigate_page
                .execute(NavigateParams::new(navigate_url))
                .await
        });
        let session = ChromiumSession {
            page,
            version: self.version.clone(),
            display_url,
            url: url.clone(),
        };
        let loaded = session
            .wait_loaded(options.timeout.saturating_sub(started.elapsed()))
            .await;
        if navigation.is_finished() {
            if let Ok(Ok(response)) = navigation.await {
                if let Some(error) = &response.result.error_text {
                    bail!("loading {url} failed: {error}");
                }
            }
        } else {
            navigation.abort();
        }
        loaded?;
        session.check_loaded().await?;
        if let Some(wait) = &options.wait_for {
            let remaining = options.timeout.saturating_sub(started.elapsed());
            session.wait_for(wait, remaining, options.timeout).await?;
        }
        if let Some(y) = options.scroll_y {
            session.eval(&format!("window.scrollTo(0, {y})")).await?;
        }
        session.settle().await?;
        Ok(session)
    }

    /// Closes the browser and waits for the process to exit.
    pub async fn close(mut self) -> Result<()> {
        let _ = self.browser.close().await;
        let _ = tokio::time::timeout(Duration::from_secs(5), self.browser.wait()).await;
        self.handler.abort();
        Ok(())
    }
}

/// How to open a page.
#[derive(Clone, Debug)]
pub struct OpenOptions {
    /// Viewport width in CSS pixels.
    pub width: u32,
    /// Viewport height in CSS pixels.
    pub height: u32,
    /// Scroll the window to this y before capture.
    pub scroll_y: Option<f64>,
    /// What to wait for after load.
    pub wait_for: Option<WaitFor>,
    /// Load (and wait-for) limit.
    pub timeout: Duration,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            width: 1280,
            height: 720,
            scroll_y: None,
            wait_for: None,
            timeout: Duration::from_secs(30),
        }
    }
}

/// Turns a CLI target into the URL to load and the URL to store. Local files
/// are stored relative to the working directory (`file:fixtures/sites/…`) so
/// recordings do not depend on where the repository was cloned.
fn resolve_target(target: &str) -> Result<(String, String)> {
    if target.contains("://") || target.starts_with("about:") || target.starts_with("data:") {
        return Ok((target.to_owned(), target.to_owned()));
    }
    let path = Path::new(target);
    let absolute = path.canonicalize().with_context(|| {
        format!("{target}: no such file (expected a URL or a local .html file)")
    })?;
    let url = format!("file://{}", absolute.display());
    let display = std::env::current_dir()
        .ok()
        .and_then(|cwd| cwd.canonicalize().ok())
        .and_then(|cwd| absolute.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .map_or_else(|| url.clone(), |rel| format!("file:{}", rel.display()));
    Ok((url, display))
}

/// One open tab.
pub struct ChromiumSession {
    page: CdpPage,
    version: String,
    url: String,
    display_url: String,
}

const COUNTS_JS: &str = r#"(() => {
  const acc = { document: 0, shadow: 0, iframe: 0 };
  const walk = (root, where) => {
    for (const el of root.querySelectorAll('*')) {
      acc[where]++;
      if (el.shadowRoot) walk(el.shadowRoot, where === 'iframe' ? 'iframe' : 'shadow');
      if (el.tagName === 'IFRAME' || el.tagName === 'FRAME') {
        let doc = null;
        try { doc = el.contentDocument; } catch (e) {}
        if (doc) walk(doc, 'iframe');
      }
    }
  };
  walk(document, 'document');
  return JSON.stringify(acc);
})()"#;

const HOSTS_JS: &str = r#"(() => {
  const hosts = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) { hosts.push(el); walk(el.shadowRoot); }
      if (el.tagName === 'IFRAME' || el.tagName === 'FRAME') {
        let doc = null;
        try { doc = el.contentDocument; } catch (e) {}
        if (doc) walk(doc);
      }
    }
  };
  walk(document);
  return hosts;
})()"#;

const ACTIVE_JS: &str = r#"(() => {
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
  return (el && el !== document.body && el !== document.documentElement) ? el : null;
})()"#;

impl ChromiumSession {
    async fn eval(&self, expression: &str) -> Result<serde_json::Value> {
        let params = EvaluateParams::builder()
            .expression(expression)
            .return_by_value(true)
            .await_promise(true)
            .build()
            .map_err(|err| anyhow!("{err}"))?;
        let result = self
            .page
            .execute(params)
            .await
            .with_context(|| format!("evaluating script in {}", self.url))?;
        if let Some(exception) = &result.result.exception_details {
            bail!("script failed in {}: {}", self.url, exception.text);
        }
        Ok(result
            .result
            .result
            .value
            .clone()
            .unwrap_or(serde_json::Value::Null))
    }

    async fn wait_loaded(&self, limit: Duration) -> Result<()> {
        let started = Instant::now();
        loop {
            // A page that navigates away mid-poll destroys the context; retry.
            // `about:blank` is the tab before our navigation committed.
            if let Ok(state) = self
                .eval("location.href === 'about:blank' ? 'blank' : document.readyState")
                .await
            {
                if state.as_str() == Some("complete") {
                    return Ok(());
                }
            }
            if started.elapsed() >= limit {
                bail!(
                    "loading {} timed out after {:.1} s (the --timeout limit): the load event never fired",
                    self.url,
                    limit.as_secs_f64()
                );
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    async fn check_loaded(&self) -> Result<()> {
        // Chromium shows its own error page for unreachable URLs and missing
        // files instead of failing navigation.
        let href = self.eval("location.href").await?;
        if href
            .as_str()
            .is_some_and(|h| h.starts_with("chrome-error://"))
        {
            bail!(
                "loading {} failed: the browser showed its error page (the page or a redirect it made could not load)",
                self.url
            );
        }
        Ok(())
    }

    async fn wait_for(&self, wait: &WaitFor, limit: Duration, configured: Duration) -> Result<()> {
        match wait {
            WaitFor::Delay(delay) => tokio::time::sleep(*delay).await,
            WaitFor::Selector(selector) => {
                let probe = format!(
                    "!!document.querySelector({})",
                    serde_json::to_string(selector).unwrap_or_default()
                );
                let started = Instant::now();
                loop {
                    if self.eval(&probe).await?.as_bool() == Some(true) {
                        break;
                    }
                    if started.elapsed() >= limit {
                        bail!(
                            "{}: no element matched --wait-for {selector:?} within the --timeout limit of {:.1} s",
                            self.url,
                            configured.as_secs_f64()
                        );
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
        Ok(())
    }

    /// Waits for fonts and two animation frames so layout reflects the last change.
    async fn settle(&self) -> Result<()> {
        self.eval(
            "(async () => { try { await document.fonts.ready; } catch (e) {} \
             await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))); return true; })()",
        )
        .await?;
        Ok(())
    }

    async fn backend_id_of_js(&self, expression: &str) -> Result<Option<i64>> {
        let params = EvaluateParams::builder()
            .expression(expression)
            .return_by_value(false)
            .build()
            .map_err(|err| anyhow!("{err}"))?;
        let result = self.page.execute(params).await?;
        let Some(object_id) = result.result.result.object_id.clone() else {
            return Ok(None);
        };
        let described = self
            .page
            .execute(DescribeNodeParams::builder().object_id(object_id).build())
            .await?;
        Ok(Some(*described.result.node.backend_node_id.inner()))
    }

    /// Backend ids of the elements an expression returns as an array.
    async fn backend_ids_of_js(&self, expression: &str) -> Result<HashSet<i64>> {
        let params = EvaluateParams::builder()
            .expression(expression)
            .return_by_value(false)
            .build()
            .map_err(|err| anyhow!("{err}"))?;
        let result = self.page.execute(params).await?;
        let Some(array) = result.result.result.object_id.clone() else {
            return Ok(HashSet::new());
        };
        let properties = self
            .page
            .execute(
                GetPropertiesParams::builder()
                    .object_id(array)
                    .own_properties(true)
                    .build()
                    .map_err(|err| anyhow!("{err}"))?,
            )
            .await?;
        let mut ids = HashSet::new();
        for property in &properties.result.result {
            if property.name.parse::<usize>().is_err() {
                continue;
            }
            let Some(object_id) = property.value.as_ref().and_then(|v| v.object_id.clone()) else {
                continue;
            };
            let described = self
                .page
                .execute(DescribeNodeParams::builder().object_id(object_id).build())
                .await?;
            ids.insert(*described.result.node.backend_node_id.inner());
        }
        Ok(ids)
    }

    /// Element counts as page scripts see them (main document, open shadow trees, iframes).
    async fn counts(&self) -> Option<DomCounts> {
        self.eval(COUNTS_JS)
            .await
            .ok()
            .and_then(|v| v.as_str().and_then(|s| serde_json::from_str(s).ok()))
    }

    async fn accessibility(&self) -> Result<Vec<AxNode>> {
        let mut out = Vec::new();
        let mut frames = vec![None];
        if let Ok(all) = self.page.frames().await {
            let main = self.page.mainframe().await.ok().flatten();
            frames.extend(
                all.into_iter()
                    .filter(|f| Some(f) != main.as_ref())
                    .map(Some),
            );
        }
        for frame in frames {
            let mut params = GetFullAxTreeParams::builder();
            if let Some(frame) = frame.clone() {
                params = params.frame_id(frame);
            }
            let Ok(tree) = self.page.execute(params.build()).await else {
                // Out-of-process frames have no tree in this session; skip them.
                continue;
            };
            for node in &tree.result.nodes {
                let text = |value: &Option<
                    chromiumoxide::cdp::browser_protocol::accessibility::AxValue,
                >| {
                    value
                        .as_ref()
                        .and_then(|v| v.value.as_ref())
                        .map(|v| match v {
                            serde_json::Value::String(s) => s.clone(),
                            other => other.to_string(),
                        })
                        .unwrap_or_default()
                };
                out.push(AxNode {
                    backend_id: node
                        .backend_dom_node_id
                        .as_ref()
                        .and_then(|b| u64::try_from(*b.inner()).ok()),
                    role: text(&node.role),
                    name: text(&node.name),
                    ignored: node.ignored,
                });
            }
        }
        Ok(out)
    }
}

impl Capture for ChromiumSession {
    async fn apply(&mut self, action: &Action) -> Result<()> {
        let find = |selector: &str| {
            let selector = selector.to_owned();
            let page = &self.page;
            let url = self.url.clone();
            async move {
                page.find_element(selector.as_str())
                    .await
                    .with_context(|| format!("{url}: no element matches {selector:?}"))
            }
        };
        match action {
            Action::Click(selector) => {
                find(selector)
                    .await?
                    .click()
                    .await
                    .with_context(|| format!("clicking {selector:?}"))?;
            }
            Action::Type(selector, text) => {
                let element = find(selector).await?;
                element
                    .click()
                    .await
                    .with_context(|| format!("focusing {selector:?}"))?;
                element
                    .type_str(text)
                    .await
                    .with_context(|| format!("typing into {selector:?}"))?;
            }
            Action::Select(selector, value) => {
                let script = format!(
                    r#"(() => {{
                        const el = document.querySelector({sel});
                        if (!el || el.tagName !== 'SELECT') return 'not a <select>';
                        const want = {val};
                        const opt = [...el.options].find(o => o.value === want || o.label === want || o.text.trim() === want);
                        if (!opt) return 'no option ' + JSON.stringify(want);
                        el.value = opt.value;
                        el.dispatchEvent(new Event('input', {{ bubbles: true }}));
                        el.dispatchEvent(new Event('change', {{ bubbles: true }}));
                        return 'ok';
                    }})()"#,
                    sel = serde_json::to_string(selector)?,
                    val = serde_json::to_string(value)?,
                );
                let outcome = self.eval(&script).await?;
                if outcome.as_str() != Some("ok") {
                    bail!("{}: select {selector:?} {value:?}: {}", self.url, outcome);
                }
            }
            Action::Scroll(px) => {
                self.eval(&format!("window.scrollBy(0, {px})")).await?;
            }
            Action::Wait(delay) => tokio::time::sleep(*delay).await,
        }
        self.settle().await
    }

    async fn capture(&mut self) -> Result<Captured> {
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
            ax: pagesnap_engine::recording::AxOracle::from_nodes(ax),
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
