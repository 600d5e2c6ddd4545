//! The Chromium browser: launches Debian's `/usr/bin/chromium` headless (chromiumoxide) and opens pages in tabs.
//!
//! chromiumoxide costs 0.5–1 ms per CDP call here, where headless_chrome costs
//! ~100 ms and cannot deserialize `DOMSnapshot.captureSnapshot`; see docs/commands.md.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use chromiumoxide::Page as CdpPage;
use chromiumoxide::browser::{Browser, BrowserConfig};
use chromiumoxide::cdp::browser_protocol::emulation::SetDeviceMetricsOverrideParams;
use chromiumoxide::cdp::browser_protocol::page::{
    EventJavascriptDialogOpening, HandleJavaScriptDialogParams, NavigateParams,
};
use futures::StreamExt;

use crate::WaitFor;
use crate::failure::{Phase, TabError, Watch, is_gone, navigated};
use crate::session::ChromiumSession;

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

/// A Chromium that pagesnap drives: one it launched (headless, with a fresh
/// profile, dying with pagesnap) or one someone else runs that it attached to
/// over CDP (`--cdp-endpoint`), whose life is not pagesnap's to end.
pub struct Chromium {
    browser: Browser,
    handler: HandlerThread,
    version: String,
    watch: Watch,
    /// What pagesnap owns of a browser it launched; none when attached.
    owned: Option<Owned>,
    /// Whether hosts other than loopback resolve (`--network`).
    network: bool,
    /// The tabs this process opened, closed on [`Chromium::close`] when attached.
    opened: std::sync::Mutex<Vec<chromiumoxide::cdp::browser_protocol::target::TargetId>>,
}

/// A launched browser's profile and the watchdog that kills it if pagesnap dies.
struct Owned {
    profile: tempfile::TempDir,
    watchdog: Option<std::process::Child>,
}

impl Chromium {
    /// The Chromium binary pagesnap launches: `$PAGESNAP_CHROMIUM` or
    /// `/usr/bin/chromium` (a peer benchmarked beside pagesnap is pointed at
    /// the same one).
    pub fn executable() -> Result<PathBuf> {
        let executable = std::env::var_os("PAGESNAP_CHROMIUM")
            .map_or_else(|| PathBuf::from(DEFAULT_CHROMIUM), PathBuf::from);
        if !executable.exists() {
            bail!(
                "Chromium not found at {}: install it with `sudo apt-get install -y chromium chromium-driver` \
                 (or set PAGESNAP_CHROMIUM to a Chromium binary)",
                executable.display()
            );
        }
        Ok(executable)
    }

    /// Launches Chromium (`$PAGESNAP_CHROMIUM` or `/usr/bin/chromium`) with a
    /// fresh profile; without `network`, only loopback hosts resolve.
    pub async fn launch(network: bool) -> Result<Chromium> {
        let executable = Chromium::executable()?;
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
        let (mut browser, handler) = Browser::launch(config)
            .await
            .with_context(|| format!("could not launch {}", executable.display()))?;
        // The handler drives the websocket; it must be polled for the whole
        // session. Errors on single messages (events newer than the protocol
        // crate knows) are not fatal.
        let (handler, version, watch) = connected(&browser, handler).await?;
        let watchdog = browser
            .get_mut_child()
            .and_then(|child| child.as_mut_inner().id())
            .and_then(|pid| watchdog(pid, profile.path()));
        Ok(Chromium {
            browser,
            handler,
            version,
            watch,
            owned: Some(Owned { profile, watchdog }),
            network,
            opened: std::sync::Mutex::new(Vec::new()),
        })
    }

    /// Attaches to a browser someone else runs, by its CDP endpoint:
    /// `http://host:port` (its `/json/version` names the websocket) or the
    /// websocket itself (`ws://host:port/devtools/browser/…`). pagesnap opens
    /// and closes only its own tabs there and never closes the browser.
    pub async fn attach(endpoint: &str) -> Result<Chromium> {
        let ws = if endpoint.starts_with("ws://") || endpoint.starts_with("wss://") {
            endpoint.to_owned()
        } else if endpoint.starts_with("http://") {
            crate::endpoint::websocket_of(endpoint).await?
        } else {
            bail!(
                "--cdp-endpoint {endpoint:?}: expected http://HOST:PORT or ws://HOST:PORT/devtools/browser/ID"
            );
        };
        let (browser, handler) = tokio::time::timeout(
            Duration::from_secs(10),
            Browser::connect(ws.clone()),
        )
        .await
        .map_err(|_| {
            anyhow!(
                "--cdp-endpoint {endpoint}: the browser did not accept the connection within 10 s"
            )
        })?
        .with_context(|| format!("--cdp-endpoint {endpoint}: could not connect to {ws}"))?;
        let (handler, version, watch) = connected(&browser, handler).await?;
        // The tabs that were open before we came are announced by the
        // discovery the client's handler turns on when it connects, and
        // attached to then. Not `fetch_targets`: it announces them a second
        // time, replacing each tab's attached session with a new one while a
        // session already handed out still names the old ("Session with
        // given id not found" on the first call to the browser's own tab).
        Ok(Chromium {
            browser,
            handler,
            version,
            watch,
            owned: None,
            network: true,
            opened: std::sync::Mutex::new(Vec::new()),
        })
    }

    /// Attaches to `endpoint` when one is given ([`Chromium::attach`]),
    /// else launches Chromium ([`Chromium::launch`]).
    pub async fn start(endpoint: Option<&str>, network: bool) -> Result<Chromium> {
        match endpoint {
            Some(endpoint) => Chromium::attach(endpoint).await,
            None => Chromium::launch(network).await,
        }
    }

    /// Whether this browser was attached to rather than launched.
    pub fn attached(&self) -> bool {
        self.owned.is_none()
    }

    /// The browser's page tabs, in the browser's order.
    pub async fn tabs(&self) -> Result<Vec<Tab>> {
        let targets = self
            .browser
            .execute(chromiumoxide::cdp::browser_protocol::target::GetTargetsParams::default())
            .await
            .context("could not list the browser's tabs (Target.getTargets)")?;
        Ok(targets
            .result
            .target_infos
            .into_iter()
            .filter(|t| t.r#type == "page")
            .map(|t| Tab {
                id: t.target_id.as_ref().to_owned(),
                url: t.url,
                title: t.title,
                opener: t.opener_id.map(|o| o.as_ref().to_owned()),
            })
            .collect())
    }

    /// A session on a tab that is already open (one the page opened, or the
    /// agent's own tab of an attached browser), by its target id. Its
    /// viewport is left as it is; later calls wait at most `limit` each.
    pub async fn adopt(&self, id: &str, limit: Duration) -> Result<ChromiumSession> {
        let target = chromiumoxide::cdp::browser_protocol::target::TargetId::new(id);
        // The client learns of the browser's tabs from the discovery its
        // handler turned on when it connected; a tab opened by someone else a
        // moment ago may not be known (attached) yet, so ask again for a while.
        // Turning discovery on a second time would announce every tab again
        // and replace each one's attached session with a new one, leaving a
        // session already handed out dead ("Session with given id not found").
        let mut page = self.browser.get_page(target.clone()).await;
        for _ in 0..40 {
            if page.is_ok() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
            page = self.browser.get_page(target.clone()).await;
        }
        let page = page.map_err(|_| anyhow!("no tab with id {id:?} (list them with page_tabs)"))?;
        accept_dialogs(&page).await?;
        let url = page.url().await.ok().flatten().unwrap_or_default();
        Ok(ChromiumSession {
            version: self.version.clone(),
            display_url: display_url(&url),
            url,
            target,
            watch: self.watch.clone(),
            limit,
            deadline: None,
            phase: std::sync::Mutex::new(Phase::Load),
            groups: std::sync::atomic::AtomicU64::new(0),
            frames: crate::frames::Frames::default(),
            page,
        })
    }

    /// The browser's CDP websocket URL, for a second client on the same
    /// browser (an external strategy attaching with Playwright's `connectOverCDP`).
    pub fn websocket_url(&self) -> &str {
        self.browser.websocket_address()
    }

    /// Opens `target` (a URL or a local file path) in a new tab with the given
    /// viewport, waits for load (bounded by `timeout`), then for `wait_for`,
    /// and scrolls to `scroll_y`. Later calls wait at most `timeout` each.
    pub async fn open(&self, target: &str, options: &OpenOptions) -> Result<ChromiumSession> {
        let deadline = Instant::now() + options.timeout;
        let mut session = self.open_until(target, options, deadline).await?;
        session.set_deadline(None);
        Ok(session)
    }

    /// [`Chromium::open`] within a budget: load, wait and settle end by
    /// `deadline`, and the session keeps it, so that every later call does too
    /// (the whole record of a page is bounded by `--timeout`).
    pub async fn open_until(
        &self,
        target: &str,
        options: &OpenOptions,
        deadline: Instant,
    ) -> Result<ChromiumSession> {
        let (url, display_url) = resolve_target(target)?;
        let budget = |what: &'static str| {
            move |_| {
                anyhow!(
                    "{target}: {what} did not finish within the --timeout limit of {:.1} s",
                    options.timeout.as_secs_f64()
                )
            }
        };
        let page = tokio::time::timeout_at(deadline.into(), self.browser.new_page("about:blank"))
            .await
            .map_err(budget("opening a tab"))?
            .context("could not open a new tab")?;
        tokio::time::timeout_at(
            deadline.into(),
            page.execute(SetDeviceMetricsOverrideParams::new(
                i64::from(options.width),
                i64::from(options.height),
                1.0,
                false,
            )),
        )
        .await
        .map_err(budget("setting the viewport"))?
        .context("could not set the viewport")?;
        accept_dialogs(&page).await?;
        if let Ok(mut opened) = self.opened.lock() {
            opened.push(page.target_id().clone());
        }
        // `Page.navigate` runs in the background while we poll
        // `readyState` ourselves: chromiumoxide resolves the command only
        // after lifecycle events that never come for some pages (scripts
        // that re-navigate during load), which would stall the recorder.
        let navigate_page = page.clone();
        let navigate_url = url.clone();
        let navigation = tokio::spawn(async move {
            // The navigation's own error (`net::ERR_…`), if it failed.
            navigate_page
                .execute(NavigateParams::new(navigate_url))
                .await
                .ok()
                .and_then(|response| response.result.error_text)
        });
        let target = page.target_id().clone();
        let session = ChromiumSession {
            page,
            version: self.version.clone(),
            display_url,
            url: url.clone(),
            target,
            watch: self.watch.clone(),
            limit: options.timeout,
            deadline: Some(deadline),
            phase: std::sync::Mutex::new(Phase::Load),
            groups: std::sync::atomic::AtomicU64::new(0),
            frames: crate::frames::Frames::default(),
        };
        match prepare(&session, options, deadline, navigation, self.network).await {
            Ok(()) => Ok(session),
            Err(err) => {
                // A tab left open would keep running (a reload loop, a busy
                // script) while the next page records.
                let _ = tokio::time::timeout(Duration::from_secs(2), session.close()).await;
                Err(err)
            }
        }
    }

    /// The browser's product string, e.g. `Chrome/156.0.8078.73`.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// Closes the browser, waits for the process to exit (killing it if it
    /// does not within a few seconds) and removes its temp profile. An
    /// attached browser is not closed: only the tabs this process opened are,
    /// and the connection is dropped.
    pub async fn close(mut self) -> Result<()> {
        let Some(owned) = self.owned.take() else {
            let opened = self.opened.lock().map(|o| o.clone()).unwrap_or_default();
            for target in opened {
                let _ = tokio::time::timeout(
                    Duration::from_secs(2),
                    self.browser.execute(
                        chromiumoxide::cdp::browser_protocol::target::CloseTargetParams::new(
                            target,
                        ),
                    ),
                )
                .await;
            }
            self.handler.abort();
            return Ok(());
        };
        // A browser that does not acknowledge `Browser.close` within a
        // second is killed at once: the client may be decoding a huge answer
        // (a 100,000-node snapshot cut by the limit), and waiting on it
        // would carry the record seconds past its limit.
        let closing = tokio::time::timeout(Duration::from_secs(1), self.browser.close()).await;
        let exited = matches!(closing, Ok(Ok(_)))
            && matches!(
                tokio::time::timeout(Duration::from_secs(5), self.browser.wait()).await,
                Ok(Ok(_))
            );
        if !exited {
            let _ = self.browser.kill().await;
            let _ = tokio::time::timeout(Duration::from_secs(5), self.browser.wait()).await;
        }
        self.handler.abort();
        if let Some(mut watchdog) = owned.watchdog {
            let _ = watchdog.kill();
            let _ = watchdog.wait();
        }
        let profile = owned.profile.path().to_owned();
        // Helpers of the browser (the crash handler) may still be writing
        // into the profile for a moment after it exits.
        for _ in 0..20 {
            match std::fs::remove_dir_all(&profile) {
                Err(err) if err.kind() != std::io::ErrorKind::NotFound => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                _ => break,
            }
        }
        owned
            .profile
            .close()
            .or_else(|err| {
                if err.kind() == std::io::ErrorKind::NotFound {
                    Ok(())
                } else {
                    Err(err)
                }
            })
            .with_context(|| format!("could not remove the profile {}", profile.display()))
    }
}

/// The client's handler, on a thread of its own: it reads the websocket and
/// parses every message, and parsing a huge answer (a 100,000-node DOM
/// snapshot) takes seconds. On one of the runtime's workers it held that
/// worker, and the tasks queued behind it there (the timer of the page's
/// `--timeout` among them) with it: a record cut at 6 s ended at 10–12 s
/// about a third of the time.
struct HandlerThread {
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl HandlerThread {
    fn start(handler: impl Future<Output = ()> + Send + 'static) -> Result<HandlerThread> {
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("could not start the CDP handler's runtime")?;
        std::thread::Builder::new()
            .name("pagesnap-cdp".to_owned())
            .spawn(move || {
                runtime.block_on(async move {
                    tokio::select! {
                        () = handler => {}
                        _ = stopped => {}
                    }
                });
            })
            .context("could not start the CDP handler's thread")?;
        Ok(HandlerThread { stop: Some(stop) })
    }

    /// Stops polling the handler (its thread ends at its next await).
    fn abort(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

impl Drop for HandlerThread {
    fn drop(&mut self) {
        self.abort();
    }
}

/// What every connection to a browser needs, launched or attached: its
/// handler polled for the whole session, its product string, and the watch
/// on crashed and closed tabs.
async fn connected(
    browser: &Browser,
    mut handler: chromiumoxide::Handler,
) -> Result<(HandlerThread, String, Watch)> {
    let handler = HandlerThread::start(async move { while handler.next().await.is_some() {} })?;
    let version = browser
        .version()
        .await
        .map(|v| v.product)
        .unwrap_or_else(|_| "Chromium (unknown version)".to_owned());
    let watch = Watch::start(browser)
        .await
        .context("could not listen for crashed and closed tabs")?;
    Ok((handler, version, watch))
}

/// A tab of the browser, as `page_tabs` lists it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Tab {
    /// The CDP target id.
    pub id: String,
    /// The URL it shows.
    pub url: String,
    /// Its title.
    pub title: String,
    /// The tab that opened it (`window.open`, a `target=_blank` link), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opener: Option<String>,
}

/// alert()/confirm()/prompt() would block the page (and its load event)
/// forever; accept each dialog as a user clicking OK would.
async fn accept_dialogs(page: &CdpPage) -> Result<()> {
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
    Ok(())
}

/// Starts a watchdog that kills the browser `pid` (and removes its profile)
/// as soon as this process is gone, however it ended — SIGKILL included, which
/// no handler of ours can see. It is a shell polling this process's pid, in
/// its own process group so that a Ctrl-C to pagesnap's group does not end it
/// first. `None` when no shell can be started (the browser then only dies with
/// an orderly exit).
fn watchdog(pid: u32, profile: &Path) -> Option<std::process::Child> {
    use std::os::unix::process::CommandExt;
    let script = r#"while kill -0 "$1" 2>/dev/null; do sleep 0.2; done
kill -KILL "$2" 2>/dev/null
pkill -KILL -f -- "--user-data-dir=$3" 2>/dev/null
sleep 0.5; rm -rf -- "$3""#;
    std::process::Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg("pagesnap-watchdog")
        .arg(std::process::id().to_string())
        .arg(pid.to_string())
        .arg(profile)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .spawn()
        .ok()
}

/// How long a navigation's answer is awaited once the page has loaded (or
/// failed to): it names the network error behind Chromium's error page.
const NAVIGATION_GRACE: Duration = Duration::from_secs(2);

/// Waits for load, `wait_for`, the scroll and settling, starting over after
/// the load when the page navigates again meanwhile (until the budget runs out).
async fn prepare(
    session: &ChromiumSession,
    options: &OpenOptions,
    deadline: Instant,
    mut navigation: tokio::task::JoinHandle<Option<String>>,
    network: bool,
) -> Result<()> {
    let loaded = session
        .wait_loaded(deadline.saturating_duration_since(Instant::now()))
        .await;
    // The navigation's answer names why a page failed (ERR_NAME_NOT_RESOLVED,
    // …); on a busy machine it can arrive a moment after Chromium's error
    // page has loaded, so there it gets a short grace. (Elsewhere it is not
    // awaited: for some pages it never comes.)
    let grace = if navigation.is_finished() {
        Some(Duration::ZERO)
    } else if session.on_error_page().await {
        Some(NAVIGATION_GRACE.min(deadline.saturating_duration_since(Instant::now())))
    } else {
        None
    };
    // (A timeout polls its future first: a finished navigation answers at once.)
    let answer = match grace {
        Some(grace) => tokio::time::timeout(grace, &mut navigation).await,
        None => Ok(Ok(None)),
    };
    if let Ok(Ok(Some(error))) = answer {
        let hint = if !network && error.contains("ERR_NAME_NOT_RESOLVED") {
            " (only 127.0.0.1 and localhost resolve unless --network is given: recordings \
             are offline by default)"
        } else {
            ""
        };
        bail!("loading {} failed: {error}{hint}", session.url());
    }
    if !navigation.is_finished() {
        navigation.abort();
    }
    loaded?;
    loop {
        let ready = async {
            session.check_loaded().await?;
            if let Some(wait) = &options.wait_for {
                let remaining = deadline.saturating_duration_since(Instant::now());
                session.wait_for(wait, remaining, options.timeout).await?;
            }
            if let Some(y) = options.scroll_y {
                session.eval(&format!("window.scrollTo(0, {y})")).await?;
            }
            session.settle().await
        };
        match ready.await {
            Err(err) if navigated(&err) => session.after_navigation().await?,
            other => return other,
        }
    }
}

/// The viewport every page opens in unless asked otherwise, CSS pixels (width, height).
pub const DEFAULT_VIEWPORT: (u32, u32) = (1280, 720);

/// How long loading a page (with its wait) and each browser call may take
/// unless asked otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

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
            width: DEFAULT_VIEWPORT.0,
            height: DEFAULT_VIEWPORT.1,
            scroll_y: None,
            wait_for: None,
            timeout: DEFAULT_TIMEOUT,
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
    let display = display_url(&url);
    Ok((url, display))
}

/// How a URL is stored: a `file://` URL of a file under the working
/// directory as `file:<relative path>`, anything else as it is.
pub fn display_url(url: &str) -> String {
    let Some(path) = url.strip_prefix("file://") else {
        return url.to_owned();
    };
    // Chromium percent-encodes the path (`my%20page.html`); the target as
    // given was not.
    let path = percent_decoded(path);
    std::env::current_dir()
        .ok()
        .and_then(|cwd| cwd.canonicalize().ok())
        .and_then(|cwd| {
            Path::new(&path)
                .strip_prefix(cwd)
                .ok()
                .map(Path::to_path_buf)
        })
        .map_or_else(|| url.to_owned(), |rel| format!("file:{}", rel.display()))
}

/// `%XX` escapes decoded; a malformed escape or non-UTF-8 result is kept as it was.
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

impl ChromiumSession {
    /// Loads `target` in this tab, as a user typing it into the address bar
    /// would: waits for load, `options.wait_for` and settling within
    /// `options.timeout` (past it, the error names what was still under
    /// way; the tab keeps whatever it shows).
    pub async fn navigate(
        &mut self,
        target: &str,
        options: &OpenOptions,
        network: bool,
    ) -> Result<()> {
        let (url, display_url) = resolve_target(target)?;
        // A page still loading (a request that never ends) is stopped first:
        // the CDP client runs one navigation at a time per tab, and the old
        // one would hold the new one back until its load.
        // The old document is marked, so that its `complete` is not taken
        // for the new one's (a change of the fragment alone keeps the document).
        let old = self
            .eval(
                "(document.readyState === 'complete' || window.stop(), \
                 window.__pagesnapOld = true, location.href.split('#')[0])",
            )
            .await
            .ok();
        let same_document = old
            .as_ref()
            .and_then(serde_json::Value::as_str)
            .is_some_and(|href| url.split('#').next() == Some(href) && url.contains('#'));
        self.url = url.clone();
        self.display_url = display_url;
        self.limit = options.timeout;
        let deadline = Instant::now() + options.timeout;
        self.set_deadline(Some(deadline));
        self.enter(Phase::Load);
        // The navigation is the page's own (`location.assign`), not
        // `Page.navigate`: the CDP client tracks one `Page.navigate` per tab
        // and drops the next one while an earlier never finished loading. A
        // failed load still shows as Chromium's error page, which `prepare`
        // names.
        let assign = format!(
            "location.assign({}); true",
            serde_json::Value::String(url.clone())
        );
        if let Err(err) = self.eval(&assign).await {
            self.set_deadline(None);
            return Err(err);
        }
        let navigation = tokio::spawn(async { None });
        let committed = if same_document {
            Ok(())
        } else {
            self.wait_committed(deadline).await
        };
        let result = match committed {
            Ok(()) => prepare(self, options, deadline, navigation, network).await,
            Err(err) => Err(err),
        };
        self.set_deadline(None);
        result
    }

    /// Waits until the tab shows a document other than the one marked
    /// before a navigation.
    async fn wait_committed(&self, deadline: Instant) -> Result<()> {
        loop {
            match self.eval("window.__pagesnapOld === true").await {
                Ok(serde_json::Value::Bool(false)) => return Ok(()),
                Err(err) if is_gone(&err) => return Err(err),
                _ => {}
            }
            if Instant::now() >= deadline {
                return Err(TabError::NeverLoaded {
                    url: self.url.clone(),
                    limit: self.limit,
                }
                .into());
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// Goes back one entry in the tab's history, then waits for load and
    /// settling within `limit`. `Ok(false)`: there was nothing to go back to.
    pub async fn back(&mut self, limit: Duration) -> Result<bool> {
        let before = self.eval("[location.href, history.length]").await?;
        self.eval("history.back(); true").await?;
        let href = before
            .get(0)
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let started = Instant::now();
        // history.back() is asynchronous; a page with no earlier entry stays.
        loop {
            tokio::time::sleep(Duration::from_millis(50)).await;
            match self.eval("location.href").await {
                Ok(now) if now.as_str() != Some(href.as_str()) => break,
                Ok(_) | Err(_) if started.elapsed() < Duration::from_millis(1500).min(limit) => {}
                Ok(_) => return Ok(false),
                Err(err) if navigated(&err) => {}
                Err(err) => return Err(err),
            }
        }
        let left = limit.saturating_sub(started.elapsed());
        self.wait_loaded(left).await?;
        self.settle().await?;
        self.refresh_url().await;
        Ok(true)
    }

    /// Re-reads the URL the tab shows (after a navigation the page made).
    pub async fn refresh_url(&mut self) {
        if let Ok(href) = self.eval("location.href").await
            && let Some(href) = href.as_str()
            && href != self.url
        {
            self.url = href.to_owned();
            self.display_url = display_url(href);
        }
    }
}
