//! The Chromium browser: launches the user's Chrome or Chromium headless (chromiumoxide; found by [`crate::discover`]) and opens pages in tabs.
//!
//! chromiumoxide costs 0.5–1 ms per CDP call here, where headless_chrome costs
//! ~100 ms and cannot deserialize `DOMSnapshot.captureSnapshot`; see docs/commands.md.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use chromiumoxide::browser::{Browser, BrowserConfig};
use chromiumoxide::cdp::browser_protocol::browser::BrowserContextId;
use chromiumoxide::cdp::browser_protocol::emulation::SetDeviceMetricsOverrideParams;
use chromiumoxide::cdp::browser_protocol::page::NavigateParams;
use chromiumoxide::cdp::browser_protocol::target::CreateTargetParams;
use futures::StreamExt;

use crate::dialogs::DialogPolicy;
use crate::downloads::{DownloadPolicy, Downloads};
use crate::error::StartError;
use crate::failure::TabError;
use crate::gone::Watch;
use crate::navigation::{OpenOptions, prepare};
use crate::pulse::Pulse;
use crate::readiness::LoadProbe;
use crate::session::ChromiumSession;
use crate::tab::{Heard, TabHandle};
use crate::target::{BLANK, resolve_target};
use crate::waits;

/// The async runtime Chromium sessions run on: four worker threads, timers
/// and I/O enabled. Capture mostly waits on the browser, but the CDP client
/// parses each answer on a worker (seconds for a 100,000-node snapshot), and
/// the timers that end calls at the page's budget must still fire then.
pub fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .map_err(|source| Error::Runtime {
            what: "the async runtime",
            source,
        })
}

/// The flags every launch uses (DEVELOPERS.md): no sandbox (we run as root in
/// CI), no GPU, and no background networking — this machine's closed network
/// refuses those connections. A tab that is not in front runs as one in front
/// does (the last three, as Playwright launches): headless Chromium otherwise
/// runs its timers once a second and no animation frames or
/// IntersectionObservers at all, so a feed scrolled there never loads
/// (`browser/tests/background.rs`).
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
    "--disable-renderer-backgrounding",
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
];

/// Offline recording (the default): every host name but the loopback fails to
/// resolve at once, so missing third-party resources cannot stall the load
/// event for seconds, and a recording never depends on the network. Public
/// for tools that launch a browser another way and must see the same
/// network (bench-mcp's Playwright MCP).
pub const OFFLINE_FLAG: &str =
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1";

/// The command line of a browser pagesnap launches: the executable the search
/// finds and the flags a launch gives it. Helpers that launch the same browser
/// another way (Playwright's `chromium.launch`, a test's own Chromium) take it
/// from here — through [`BrowserCommand::VAR`] in their environment, or `pagesnap
/// doctor --launch` — instead of keeping their own copy of the flags.
#[derive(Debug, Clone, serde::Serialize)]
pub struct BrowserCommand {
    /// The browser binary ([`Chromium::executable`]).
    pub executable: PathBuf,
    /// [`CHROMIUM_FLAGS`], and without network the rule that only loopback hosts resolve.
    pub flags: Vec<&'static str>,
}

impl BrowserCommand {
    /// The environment variable that hands the command, as JSON, to a helper.
    pub const VAR: &'static str = "PAGESNAP_BROWSER_COMMAND";

    /// The command a launch with (or without) `network` runs.
    pub fn new(network: bool) -> Result<BrowserCommand, StartError> {
        Ok(BrowserCommand {
            executable: Chromium::executable()?,
            flags: launch_flags(network).collect(),
        })
    }

    /// The command as JSON (`{"executable": …, "flags": […]}`).
    pub fn to_json(&self) -> String {
        // Invariant: a path and strings always serialise.
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// The flags a launch gives Chromium.
fn launch_flags(network: bool) -> impl Iterator<Item = &'static str> {
    CHROMIUM_FLAGS
        .iter()
        .copied()
        .chain((!network).then_some(OFFLINE_FLAG))
}

/// A Chromium that pagesnap drives: one it launched (headless, with a fresh
/// profile, dying with pagesnap) or one someone else runs that it attached to
/// over CDP (`--cdp-endpoint`), whose life is not pagesnap's to end.
pub struct Chromium {
    browser: Browser,
    handler: HandlerThread,
    version: String,
    watch: Watch,
    /// Asks the browser whether it still answers (none: no port to ask).
    pulse: Option<Pulse>,
    /// What pagesnap owns of a browser it launched; none when attached.
    owned: Option<Owned>,
    /// The CDP endpoint an attached browser was reached at, as given.
    endpoint: Option<String>,
    /// Whether hosts other than loopback resolve (`--network`).
    network: bool,
    /// The tabs this process opened, closed on [`Chromium::close`] when attached.
    opened: std::sync::Mutex<Vec<chromiumoxide::cdp::browser_protocol::target::TargetId>>,
    /// What a tab of this browser does with a JavaScript dialog.
    dialogs: DialogPolicy,
    /// The folder its tabs' uploads are confined to.
    uploads: PathBuf,
    /// Its downloads, and where they go.
    downloads: Downloads,
}

/// A launched browser's profile and the watchdog that kills it if pagesnap dies.
struct Owned {
    profile: tempfile::TempDir,
    watchdog: Option<std::process::Child>,
    /// The browser process's id.
    pid: Option<u32>,
}

impl Chromium {
    /// The browser pagesnap launches: `$PAGESNAP_CHROMIUM`, else the first
    /// Chrome or Chromium the search finds ([`crate::discover`]; a peer
    /// benchmarked beside pagesnap is pointed at the same one).
    pub fn executable() -> Result<PathBuf, StartError> {
        Ok(crate::discover::find(
            crate::discover::Os::current(),
            &crate::discover::System,
        )?)
    }

    /// Launches Chromium ([`Chromium::executable`]) with a
    /// fresh profile; without `network`, only loopback hosts resolve.
    pub async fn launch(network: bool) -> Result<Chromium, StartError> {
        let executable = Chromium::executable()?;
        let profile = tempfile::Builder::new()
            .prefix("pagesnap-chromium-")
            .tempdir()
            .map_err(|source| StartError::Profile {
                dir: std::env::temp_dir(),
                source,
            })?;
        let launch_error = |message: String| StartError::Launch {
            executable: executable.clone(),
            message,
        };
        let config = BrowserConfig::builder()
            .chrome_executable(&executable)
            .user_data_dir(profile.path())
            .disable_default_args()
            .args(launch_flags(network).map(|flag| flag.trim_start_matches("--")))
            .viewport(None)
            .launch_timeout(waits::LAUNCH)
            .request_timeout(waits::REQUEST)
            .build()
            .map_err(|err| launch_error(format!("invalid configuration: {err}")))?;
        let (mut browser, handler) = Browser::launch(config)
            .await
            .map_err(|err| launch_error(err.to_string()))?;
        // The handler drives the websocket; it must be polled for the whole
        // session. Errors on single messages (events newer than the protocol
        // crate knows) are not fatal.
        let pid = browser
            .get_mut_child()
            .and_then(|child| child.as_mut_inner().id());
        let connection = connected(&browser, handler, pid, DownloadPolicy::Refuse).await?;
        let watchdog = pid.and_then(|pid| watchdog(pid, profile.path()));
        Ok(Chromium {
            browser,
            handler: connection.handler,
            version: connection.version,
            watch: connection.watch,
            pulse: connection.pulse,
            downloads: connection.downloads,
            owned: Some(Owned {
                profile,
                watchdog,
                pid,
            }),
            endpoint: None,
            network,
            opened: std::sync::Mutex::new(Vec::new()),
            dialogs: DialogPolicy::default(),
            uploads: PathBuf::from("."),
        })
    }

    /// Attaches to a browser someone else runs, by its CDP endpoint:
    /// `http://host:port` (its `/json/version` names the websocket) or the
    /// websocket itself (`ws://host:port/devtools/browser/…`). pagesnap opens
    /// and closes only its own tabs there and never closes the browser.
    pub async fn attach(endpoint: &str) -> Result<Chromium, StartError> {
        let ws = if endpoint.starts_with("ws://") || endpoint.starts_with("wss://") {
            endpoint.to_owned()
        } else if endpoint.starts_with("http://") {
            crate::endpoint::websocket_of(endpoint).await?
        } else {
            return Err(StartError::BadEndpoint {
                endpoint: endpoint.to_owned(),
            });
        };
        let (browser, handler) = tokio::time::timeout(waits::ATTACH, Browser::connect(ws.clone()))
            .await
            .map_err(|_| StartError::NoAnswer {
                endpoint: endpoint.to_owned(),
                waiting: "the browser did not accept the connection",
                limit: waits::ATTACH,
            })?
            .map_err(|err| StartError::Unreachable {
                endpoint: endpoint.to_owned(),
                address: ws.clone(),
                message: err.to_string(),
            })?;
        let connection = connected(&browser, handler, None, DownloadPolicy::Browser).await?;
        // The tabs that were open before we came are announced by the
        // discovery the client's handler turns on when it connects, and
        // attached to then. Not `fetch_targets`: it announces them a second
        // time, replacing each tab's attached session with a new one while a
        // session already handed out still names the old ("Session with
        // given id not found" on the first call to the browser's own tab).
        Ok(Chromium {
            browser,
            handler: connection.handler,
            version: connection.version,
            watch: connection.watch,
            pulse: connection.pulse,
            owned: None,
            endpoint: Some(endpoint.to_owned()),
            network: true,
            opened: std::sync::Mutex::new(Vec::new()),
            dialogs: DialogPolicy::default(),
            uploads: PathBuf::from("."),
            downloads: connection.downloads,
        })
    }

    /// Attaches to `endpoint` when one is given ([`Chromium::attach`]),
    /// else launches Chromium ([`Chromium::launch`]).
    pub async fn start(endpoint: Option<&str>, network: bool) -> Result<Chromium, StartError> {
        match endpoint {
            Some(endpoint) => Chromium::attach(endpoint).await,
            None => Chromium::launch(network).await,
        }
    }

    /// A browser in this one's place, started the way this one was: launched
    /// anew with the same network setting, or (attached) connected again to
    /// the same endpoint — never a browser of pagesnap's own in the place of
    /// one someone else runs — with the same dialog policy, upload folder and
    /// download policy.
    /// Its tabs and browser contexts are new; this one's are not carried over.
    pub async fn restart(&self) -> Result<Chromium, StartError> {
        let fresh = match &self.endpoint {
            Some(endpoint) => Chromium::attach(endpoint).await?,
            None => Chromium::launch(self.network).await?,
        };
        let fresh = fresh
            .with_dialogs(self.dialogs)
            .with_upload_dir(self.uploads.clone());
        fresh
            .set_downloads(self.downloads.policy())
            .await
            .map_err(|err| StartError::Session {
                what: "give it the download policy",
                message: format!("{err:#}"),
            })?;
        Ok(fresh)
    }

    /// The CDP endpoint of an attached browser, as given (none when launched).
    pub fn endpoint(&self) -> Option<&str> {
        self.endpoint.as_deref()
    }

    /// The browser whose tabs, opened or adopted from now on, do `policy`
    /// with a JavaScript dialog (the default: accept it, as `record` does).
    pub fn with_dialogs(mut self, policy: DialogPolicy) -> Chromium {
        self.dialogs = policy;
        self
    }

    /// Sends the files its pages download where `policy` says: its default
    /// browser context now, and each context [`Chromium::create_context`]
    /// makes from now on. A launched browser refuses them until told
    /// otherwise; an attached one is left as its owner set it up
    /// ([`DownloadPolicy::Browser`]). Each download a policy was given for is
    /// told to the tab whose page began it ([`ChromiumSession::downloads`]).
    pub async fn set_downloads(&self, policy: DownloadPolicy) -> Result<()> {
        self.downloads.apply(&self.browser, policy, None).await
    }

    /// The browser whose tabs, opened or adopted from now on, upload only
    /// files inside `folder` (the default: the working folder).
    pub fn with_upload_dir(mut self, folder: PathBuf) -> Chromium {
        self.uploads = folder;
        self
    }

    /// What the tabs do with a JavaScript dialog.
    pub fn dialogs(&self) -> DialogPolicy {
        self.dialogs
    }

    /// Whether this browser was attached to rather than launched.
    pub fn attached(&self) -> bool {
        self.owned.is_none()
    }

    /// The browser's page tabs, in the browser's order, giving a tab
    /// another opened that `fresh` picks (one the caller has not seen yet)
    /// a moment ([`waits::OPENED_URL`]) to commit its first document, so
    /// that it is listed with the URL it opens rather than none.
    pub async fn tabs_named(&self, fresh: impl Fn(&Tab) -> bool) -> Result<Vec<Tab>> {
        let deadline = Instant::now() + waits::OPENED_URL;
        loop {
            let tabs = self.tabs().await?;
            let unnamed = tabs
                .iter()
                .any(|t| t.opener.is_some() && t.url.is_empty() && fresh(t));
            if !unnamed || Instant::now() >= deadline {
                return Ok(tabs);
            }
            tokio::time::sleep(waits::OPENED_URL_POLL).await;
        }
    }

    /// The browser's page tabs, in the browser's order, as it lists them
    /// this moment.
    pub async fn tabs(&self) -> Result<Vec<Tab>> {
        let targets = self
            .browser
            .execute(chromiumoxide::cdp::browser_protocol::target::GetTargetsParams::default())
            .await
            .map_err(|err| Error::browser("list the browser's tabs (Target.getTargets)", err))?;
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
                context: t.browser_context_id.map(|c| c.as_ref().to_owned()),
            })
            .collect())
    }

    /// A new browser context: its own cookies, storage, cache and tabs (an
    /// incognito profile inside this browser). Its id names it to
    /// [`Chromium::open_in`] and [`Chromium::dispose_context`].
    pub async fn create_context(&self) -> Result<String> {
        let id = self
            .browser
            .create_browser_context(
                chromiumoxide::cdp::browser_protocol::target::CreateBrowserContextParams::default(),
            )
            .await
            .map_err(|err| {
                Error::browser(
                    "create a browser context (Target.createBrowserContext)",
                    err,
                )
            })?;
        let policy = self.downloads.policy();
        self.downloads
            .apply(&self.browser, policy, Some(id.as_ref()))
            .await?;
        Ok(id.as_ref().to_owned())
    }

    /// Closes a context made by [`Chromium::create_context`] with all its
    /// tabs, and forgets its cookies and storage.
    pub async fn dispose_context(&self, id: &str) -> Result<()> {
        self.browser
            .dispose_browser_context(BrowserContextId::new(id))
            .await
            .map_err(|err| Error::browser(format!("close the browser context {id}"), err))
    }

    /// A session on a tab that is already open (one the page opened, or the
    /// agent's own tab of an attached browser), by its target id. Its
    /// viewport is left as it is; later calls wait at most `limit` each.
    pub async fn adopt(&self, id: &str, limit: Duration) -> Result<ChromiumSession> {
        self.alive(id, "Target.attachToTarget")?;
        let target = chromiumoxide::cdp::browser_protocol::target::TargetId::new(id);
        // The client learns of the browser's tabs from the discovery its
        // handler turned on when it connected; a tab opened by someone else a
        // moment ago may not be known (attached) yet, so ask again for a while.
        // Turning discovery on a second time would announce every tab again
        // and replace each one's attached session with a new one, leaving a
        // session already handed out dead ("Session with given id not found").
        let mut page = self.browser.get_page(target.clone()).await;
        for _ in 0..waits::ADOPT_TRIES {
            if page.is_ok() {
                break;
            }
            tokio::time::sleep(waits::ADOPT_POLL).await;
            page = self.browser.get_page(target.clone()).await;
        }
        let page = page.map_err(|_| Error::NoTab { id: id.to_owned() })?;
        let heard = Heard::listen(&page, self.dialogs).await?;
        let url = page.url().await.ok().flatten().unwrap_or_default();
        let tab = TabHandle::new(
            page,
            heard,
            url,
            self.watch.clone(),
            self.downloads.clone(),
            limit,
            None,
        );
        Ok(ChromiumSession::new(
            tab,
            self.version.clone(),
            self.uploads.clone(),
        ))
    }

    /// The browser's CDP websocket URL, for a second client on the same
    /// browser (an external strategy attaching with Playwright's `connectOverCDP`).
    pub fn websocket_url(&self) -> &str {
        self.browser.websocket_address()
    }

    /// Opens `target` (a URL or a local file path) in a new tab with the given
    /// viewport, waits for load (bounded by `timeout`), then for `wait_for`,
    /// and scrolls to `scroll_y`. Later calls wait at most `timeout` each. A
    /// page that opened a dialog while loading is returned waiting on it
    /// ([`ChromiumSession::dialog`]; only under [`DialogPolicy::Ask`]).
    pub async fn open(&self, target: &str, options: &OpenOptions) -> Result<ChromiumSession> {
        self.open_in(target, options, None).await
    }

    /// [`Chromium::open`] in the browser context `context` (none: the
    /// browser's default one).
    pub async fn open_in(
        &self,
        target: &str,
        options: &OpenOptions,
        context: Option<&str>,
    ) -> Result<ChromiumSession> {
        let deadline = Instant::now() + options.timeout;
        let mut session = self
            .open_tab(target, options, deadline, context, Window::Own)
            .await?;
        session.set_deadline(None);
        Ok(session)
    }

    /// [`Chromium::open`] within a budget: load, wait and settle end by
    /// `deadline`, and the session keeps it, so that every later call does too
    /// (the whole record of a page is bounded by `--timeout`). For the
    /// recorder, which has one tab at a time, each closed before the next
    /// opens: the tab opens in the browser's window, in front, rather than in
    /// a window of its own (which costs about 45% more of the machine per
    /// page recorded: each window brings its own browser UI).
    pub async fn open_until(
        &self,
        target: &str,
        options: &OpenOptions,
        deadline: Instant,
    ) -> Result<ChromiumSession> {
        self.open_tab(target, options, deadline, None, Window::Shared)
            .await
    }

    /// Whether the browser's connection still stands ([`Chromium::is_gone`]);
    /// a call about to start on `what` fails at once when it does not.
    fn alive(&self, what: &str, call: &'static str) -> Result<()> {
        if self.is_gone() {
            return Err(TabError::BrowserGone {
                url: what.to_owned(),
                call,
            }
            .into());
        }
        Ok(())
    }

    /// The process id of a browser pagesnap launched (none when attached).
    pub fn pid(&self) -> Option<u32> {
        self.owned.as_ref().and_then(|owned| owned.pid)
    }

    /// Whether the browser is gone: its process ended or its DevTools
    /// connection closed. Nothing it is asked answers again.
    pub fn is_gone(&self) -> bool {
        self.watch.browser_gone()
    }

    async fn open_tab(
        &self,
        target: &str,
        options: &OpenOptions,
        deadline: Instant,
        context: Option<&str>,
        window: Window,
    ) -> Result<ChromiumSession> {
        let (url, _) = resolve_target(target)?;
        self.alive(target, "Target.createTarget")?;
        let budget = |call: &'static str| {
            move |_| TabError::NoAnswer {
                url: target.to_owned(),
                call,
                limit: options.timeout,
            }
        };
        let mut blank = CreateTargetParams::new(BLANK);
        blank.browser_context_id = context.map(BrowserContextId::new);
        blank.new_window = Some(window == Window::Own);
        let page = tokio::time::timeout_at(deadline.into(), self.browser.new_page(blank))
            .await
            .map_err(budget("Target.createTarget"))?
            .map_err(|err| Error::browser("open a new tab", err))?;
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
        .map_err(budget("Emulation.setDeviceMetricsOverride"))?
        .map_err(|err| TabError::Failed {
            url: target.to_owned(),
            call: "Emulation.setDeviceMetricsOverride",
            message: err.to_string(),
        })?;
        let heard = Heard::listen(&page, self.dialogs).await?;
        if let Ok(mut opened) = self.opened.lock() {
            opened.push(page.target_id().clone());
        }
        // `Page.navigate` runs in the background while we poll
        // `readyState` ourselves: chromiumoxide resolves the command only
        // after lifecycle events that never come for some pages (scripts
        // that re-navigate during load), which would stall the recorder.
        let navigate_page = page.clone();
        let navigate_url = url.clone();
        let tab = TabHandle::new(
            page,
            heard,
            url.clone(),
            self.watch.clone(),
            self.downloads.clone(),
            options.timeout,
            Some(deadline),
        );
        let load = match options.follow_load {
            true => match LoadProbe::register(&tab).await {
                Ok(load) => Some(load),
                Err(err) => {
                    let _ = tokio::time::timeout(waits::TAB_CLOSE, tab.close()).await;
                    return Err(err);
                }
            },
            false => None,
        };
        let navigation = tokio::spawn(async move {
            // The navigation's own error (`net::ERR_…`), if it failed.
            navigate_page
                .execute(NavigateParams::new(navigate_url))
                .await
                .ok()
                .and_then(|response| response.result.error_text)
        });
        let ready = prepare(&tab, options, deadline, navigation, self.network).await;
        if let Some(load) = load {
            load.remove(&tab).await;
        }
        match ready {
            Ok(()) => {}
            // The page waits on a dialog it opened while loading (only under
            // `DialogPolicy::Ask`): the tab is the agent's to answer.
            Err(err) if err.is_dialog_open() => {}
            Err(err) => {
                // A tab left open would keep running (a reload loop, a busy
                // script) while the next page records.
                let _ = tokio::time::timeout(waits::TAB_CLOSE, tab.close()).await;
                return Err(err);
            }
        }
        Ok(ChromiumSession::new(
            tab,
            self.version.clone(),
            self.uploads.clone(),
        ))
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
        // Closing, the browser stops answering: that is not a death.
        self.pulse.take();
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
        let closing = tokio::time::timeout(waits::BROWSER_CLOSE, self.browser.close()).await;
        let exited = matches!(closing, Ok(Ok(_)))
            && matches!(
                tokio::time::timeout(waits::BROWSER_EXIT, self.browser.wait()).await,
                Ok(Ok(_))
            );
        if !exited {
            let _ = self.browser.kill().await;
            let _ = tokio::time::timeout(waits::BROWSER_EXIT, self.browser.wait()).await;
        }
        self.handler.abort();
        if let Some(mut watchdog) = owned.watchdog {
            let _ = watchdog.kill();
            let _ = watchdog.wait();
        }
        let profile = owned.profile.path().to_owned();
        // A browser that was killed (or died) leaves its helpers (zygote,
        // renderers, the crash handler) to notice on their own, which takes
        // seconds on a busy machine: they are ended by the profile they name,
        // as the watchdog would, so that the profile can go.
        if !exited {
            let _ = std::process::Command::new("pkill")
                .args(["-KILL", "-f", "--"])
                .arg(format!("--user-data-dir={}", profile.display()))
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status();
        }
        // Helpers of the browser (the crash handler) may still be writing
        // into the profile for a moment after it exits.
        for _ in 0..waits::PROFILE_REMOVE_TRIES {
            match std::fs::remove_dir_all(&profile) {
                Err(err) if err.kind() != std::io::ErrorKind::NotFound => {
                    tokio::time::sleep(waits::PROFILE_REMOVE_POLL).await;
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
            .map_err(|source| Error::File {
                path: profile.to_path_buf(),
                source,
            })
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
            .map_err(|source| Error::Runtime {
                what: "the CDP handler's runtime",
                source,
            })?;
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
            .map_err(|source| Error::Runtime {
                what: "the CDP handler's thread",
                source,
            })?;
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
/// handler polled for the whole session, its product string, the watch on
/// crashed and closed tabs, and its pulse (`pid`: the process pagesnap
/// launched, killed when it stops answering).
async fn connected(
    browser: &Browser,
    mut handler: chromiumoxide::Handler,
    pid: Option<u32>,
    downloads: DownloadPolicy,
) -> Result<Connected, StartError> {
    let (watch, ended) = Watch::new();
    let listening = ended.clone();
    let handler = HandlerThread::start(async move {
        // The client's handler yields a websocket error when the browser's
        // connection breaks (the browser killed or crashed, its socket
        // closed), then waits forever on the dead socket: its end is
        // ours to notice, and every call still waiting ends with it.
        while let Some(item) = handler.next().await {
            if let Err(chromiumoxide::error::CdpError::Ws(_)) = item {
                break;
            }
        }
        ended.now();
    })
    .map_err(|err| StartError::Session {
        what: "start the thread that follows it",
        message: format!("{err:#}"),
    })?;
    let version = browser
        .version()
        .await
        .map(|v| v.product)
        .unwrap_or_else(|_| "Chromium (unknown version)".to_owned());
    watch
        .listen(browser, &listening)
        .await
        .map_err(|err| StartError::Session {
            what: "listen for crashed and closed tabs",
            message: format!("{err:#}"),
        })?;
    let pulse = Pulse::start(browser.websocket_address(), pid, watch.clone(), listening);
    let followed = async {
        let followed = Downloads::listen(browser, watch.clone()).await?;
        followed.apply(browser, downloads, None).await?;
        Ok::<_, crate::Error>(followed)
    }
    .await
    .map_err(|err| StartError::Session {
        what: "follow its downloads",
        message: format!("{err:#}"),
    })?;
    Ok(Connected {
        handler,
        version,
        watch,
        pulse,
        downloads: followed,
    })
}

/// A connection to a browser, as [`connected`] makes it.
struct Connected {
    handler: HandlerThread,
    version: String,
    watch: Watch,
    pulse: Option<Pulse>,
    downloads: Downloads,
}

/// Where a new tab opens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Window {
    /// A window of its own: a tab sharing a window with the one in front is
    /// hidden, and a hidden page runs no animation frames or
    /// IntersectionObservers (`browser/tests/background.rs`), so every tab
    /// that may live beside another (the tool server's, live episodes')
    /// opens in its own.
    Own,
    /// The browser's window, in front of what is there.
    Shared,
}

/// A tab of the browser.
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
    /// The browser context it belongs to (its cookies, storage and cache).
    #[serde(skip)]
    pub context: Option<String>,
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
