//! `bench-mcp`: pagesnap's tool server against the shipped ones (Playwright MCP, Chrome DevTools MCP, agent-browser), each spawned over stdio and driven by one MCP client (rmcp), page by page in one run.
//!
//! Per page and server: `navigate`, then the first snapshot and `runs` warm
//! ones, each a round trip as the client sees it (request written, answer
//! parsed); the text an agent reads (every text block) in o200k tokens; the
//! refs it offers (pagesnap's structured items; another server's as its
//! mapping reads them from the text). With `click`, one click on an element
//! every server names alike (pagesnap's item, found on each other server's
//! snapshot line by role and name), by each server's mapped click, with its
//! readiness wait and the result the agent reads. With targets (a suite over
//! pages), whether each task's target is offered: by pagesnap's default
//! snapshot in view, or off screen under its "scroll down" hint (found with
//! `page_find`), and by each other server's snapshot. Each server's tool
//! definitions are counted once, as a model is shown them.
//!
//! Which tool does what is each server's mapping file
//! (`harness/mcp-servers/*.toml`). How each server gets its browser, every
//! one the same binary ([`Chromium::executable`]) with the same viewport:
//! pagesnap (`pagesnap mcp --viewport`) and Playwright MCP (`--headless
//! --isolated --no-sandbox --executable-path … --viewport-size`) launch
//! their own; Chrome DevTools MCP and agent-browser cannot launch that
//! binary themselves, so bench-mcp launches a headless Chromium for each
//! (as `pagesnap live` does), opens a tab in it with the viewport set (as a
//! live episode's tab is), starts the server attached to it over CDP
//! ([`Connection::start`]) and has it choose that tab with its tab tools
//! (`{tab}` then names the page on every call).
//!
//! The servers take turns going first, page by page (pagesnap, the
//! reference, first on even pages, last on odd ones). Pages given as files
//! are served over 127.0.0.1 (no server opens `file://` by default). A page
//! that fails on a server is reported and the run goes on; a server that
//! failed is restarted for the next page.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use pagesnap_engine::observation::{Item, Zone};
use pagesnap_mcp::{ActionAnswer, FindAnswer, Snapshot};
use serde::{Serialize, Serializer};
use serde_json::{Value, json};

use super::{PageError, median, p90};
use crate::live::server::Server as PageServer;
use crate::peer::connection::{Answer, Connection, ServerBrowser, command};
use crate::peer::mapping::{ActionKey, Arg, Call, Mapping};
use crate::peer::{Launch, Peer, SHIPPED, Shipped};
use crate::results::MCP_PREFIX;
use crate::suite::PageTarget;
use pagesnap_browser::{Chromium, ChromiumSession, DialogPolicy, OpenOptions};

/// What to measure.
pub struct Config {
    /// Pages: local `.html` files or URLs.
    pub pages: Vec<String>,
    /// Task targets on those pages (a suite over pages), checked for
    /// reachability.
    pub targets: Vec<PageTarget>,
    /// Warm snapshots per page and server, after the first.
    pub runs: usize,
    /// Viewport of every browser.
    pub viewport: (u32, u32),
    /// pagesnap's default strategy (`pagesnap mcp --strategy`).
    pub strategy: String,
    /// The shipped servers measured beside pagesnap ([`peers_named`]).
    pub versus: Vec<&'static Shipped>,
    /// One click per page on every server.
    pub click: bool,
    /// Run pagesnap with `--always-capture` (no snapshot renders an earlier capture).
    pub always_capture: bool,
    /// How long one tool call may take before the page counts as failed.
    pub call_timeout: Duration,
}

/// The shipped servers `names` names (`playwright` or `mcp:playwright`, …),
/// each once, in the order given; pagesnap itself is always measured, as
/// the reference, and is refused here, as is an unknown name (the error
/// lists the known ones).
pub fn peers_named(names: &[String]) -> Result<Vec<&'static Shipped>> {
    let others = || {
        SHIPPED
            .iter()
            .filter(|s| !matches!(s.launch, Launch::Pagesnap))
    };
    let mut peers: Vec<&'static Shipped> = Vec::new();
    for name in names {
        let bare = name.trim();
        let bare = bare.strip_prefix(MCP_PREFIX).unwrap_or(bare);
        match SHIPPED.iter().find(|s| s.name == bare) {
            Some(server) if matches!(server.launch, Launch::Pagesnap) => bail!(
                "--vs {name}: pagesnap is always measured, as the reference; name the servers to measure beside it ({})",
                others().map(|s| s.name).collect::<Vec<_>>().join(", ")
            ),
            Some(server) => {
                if !peers.iter().any(|p| p.name == server.name) {
                    peers.push(server);
                }
            }
            None => bail!(
                "--vs {name}: unknown tool server (known: {})",
                others().map(|s| s.name).collect::<Vec<_>>().join(", ")
            ),
        }
    }
    Ok(peers)
}

/// A tool server under test: pagesnap's own, or a shipped one
/// ([`SHIPPED`]) measured beside it.
#[derive(Clone, Copy)]
pub enum Side {
    /// `pagesnap mcp`, the reference.
    Pagesnap,
    /// A shipped server (`mcp:NAME`), named by its entry.
    Peer(&'static Shipped),
}

impl Side {
    /// Its name: `pagesnap`, or the shipped server's `NAME` (as `--vs`
    /// takes it, and as the JSON output writes it).
    pub fn name(self) -> &'static str {
        match self {
            Side::Pagesnap => "pagesnap",
            Side::Peer(shipped) => shipped.name,
        }
    }

    /// As printed.
    pub fn label(self) -> &'static str {
        self.name()
    }

    /// Where it sorts: pagesnap first, then the shipped servers in
    /// [`SHIPPED`] order.
    fn rank(self) -> usize {
        match self {
            Side::Pagesnap => 0,
            Side::Peer(shipped) => {
                1 + SHIPPED
                    .iter()
                    .position(|s| s.name == shipped.name)
                    .unwrap_or(SHIPPED.len())
            }
        }
    }

    /// The shipped mapping file naming its tools (`harness/mcp-servers/`).
    fn mapping(self) -> Result<Mapping> {
        crate::peer::shipped_mapping(self.name())
    }
}

impl PartialEq for Side {
    fn eq(&self, other: &Side) -> bool {
        self.rank() == other.rank()
    }
}

impl Eq for Side {}

impl PartialOrd for Side {
    fn partial_cmp(&self, other: &Side) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Side {
    fn cmp(&self, other: &Side) -> Ordering {
        self.rank().cmp(&other.rank())
    }
}

impl std::fmt::Debug for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Side {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// One page on one server.
#[derive(Clone, Debug, Serialize)]
pub struct Measured {
    /// The server.
    pub side: Side,
    /// Navigation round trip (load, the server's readiness wait and
    /// whatever it returns with it), ms.
    pub navigate_ms: f64,
    /// pagesnap only: the navigation's answer said `incomplete` (its
    /// readiness budget ran out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub navigate_incomplete: Option<bool>,
    /// The first snapshot's round trip, ms.
    pub first_ms: f64,
    /// Warm snapshots' round trips, ms.
    pub warm_ms: Vec<f64>,
    /// o200k tokens of the snapshot's text blocks.
    pub tokens: usize,
    /// Refs it offers.
    pub refs: usize,
    /// pagesnap only: snapshots (first and warm) rendered from an earlier
    /// capture the page still showed (`freshness.reused`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reused: Option<usize>,
    /// pagesnap only: tokens of the same strategy's full-page snapshot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full_page_tokens: Option<usize>,
    /// The click step, when asked for and a common target was found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub click: Option<Click>,
}

/// One click step.
#[derive(Clone, Debug, Serialize)]
pub struct Click {
    /// The element, as `role "name"`.
    pub element: String,
    /// Round trip of the click (with its readiness wait and whatever comes
    /// back), ms.
    pub ms: f64,
    /// o200k tokens of the answer's text.
    pub tokens: usize,
    /// pagesnap only: the answer said `incomplete` (readiness timed out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub incomplete: Option<bool>,
}

/// Whether a task's target is offered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reach {
    /// In the snapshot, with a ref.
    InView,
    /// Not in the viewport snapshot, but below it, announced by the snapshot's
    /// "scroll down" hint (and found by `page_find`).
    Announced,
    /// Not offered.
    Missing,
}

/// One task's target on every server.
#[derive(Clone, Debug, Serialize)]
pub struct TargetResult {
    /// The task.
    pub task: String,
    /// `role "name"`.
    pub target: String,
    /// Per server (written as `"pagesnap": …, "playwright": …`): through
    /// pagesnap's default snapshot, and through each other server's.
    #[serde(flatten)]
    pub reach: BTreeMap<Side, Reach>,
}

/// One page, measured on every server.
#[derive(Clone, Debug, Serialize)]
pub struct PageResult {
    /// The page as given.
    pub page: String,
    /// Per server, in [`Side`] order.
    pub servers: Vec<Measured>,
    /// Targets of tasks on this page.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub targets: Vec<TargetResult>,
    /// Why no click was measured, when one was asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub click_skipped: Option<String>,
}

/// Medians and p90s per server, and ratios pagesnap / each other server.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    /// Pages measured on every server.
    pub pages: usize,
    /// Per server: `[median, p90]` of first round trips, warm medians,
    /// tokens, refs, navigations, clicks; its tool definitions' tokens.
    pub servers: BTreeMap<Side, SideSummary>,
    /// Per other server: pagesnap / that server, of medians and of p90s.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub ratios: BTreeMap<Side, Ratios>,
    /// Task targets offered, per server: `[in view, announced, missing]`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub reach: BTreeMap<Side, [usize; 3]>,
    /// pagesnap snapshots rendered from an earlier capture, of snapshots taken.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reused_snapshots: Option<(usize, usize)>,
    /// pagesnap navigations whose answer said `incomplete`, of navigations.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub incomplete_navigations: Option<(usize, usize)>,
    /// pagesnap clicks whose answer said `incomplete`, of clicks measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub incomplete_clicks: Option<(usize, usize)>,
}

/// One server's figures over the pages.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SideSummary {
    /// First snapshot round trip, ms: median, p90.
    pub first_ms: [f64; 2],
    /// Per-page median warm round trip, ms: median, p90.
    pub warm_ms: [f64; 2],
    /// Snapshot tokens: median, p90.
    pub tokens: [f64; 2],
    /// Refs: median, p90.
    pub refs: [f64; 2],
    /// Navigation round trip, ms: median, p90.
    pub navigate_ms: [f64; 2],
    /// Click round trip, ms: median, p90 (pages with a click).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub click_ms: Option<[f64; 2]>,
    /// pagesnap only: full-page snapshot tokens: median, p90.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full_page_tokens: Option<[f64; 2]>,
    /// Its tool definitions (their JSON as listed), o200k tokens: what a
    /// model is shown once per session.
    pub definition_tokens: usize,
}

/// pagesnap over another server: `[of medians, of p90s]`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Ratios {
    /// First snapshot.
    pub first: [f64; 2],
    /// Warm snapshot.
    pub warm: [f64; 2],
    /// Snapshot tokens.
    pub tokens: [f64; 2],
    /// Navigation.
    pub navigate: [f64; 2],
    /// Click step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub click: Option<[f64; 2]>,
}

/// A server that answered `initialize`.
pub struct Running {
    /// Which.
    pub side: Side,
    /// `name version`, as it reports itself.
    pub version: String,
    /// Its tool definitions, o200k tokens.
    pub definition_tokens: usize,
}

/// What is up when measuring starts: every server answered `initialize`.
pub struct Started {
    /// Each server, in [`Side`] order.
    pub servers: Vec<Running>,
}

/// What the run reports as it goes.
pub type Event<'a> = super::Event<'a, Started, PageResult>;

/// Everything measured.
pub type Outcome = super::Outcome<PageResult, Summary>;

/// The page a browser bench-mcp launched for a server opens its tab at,
/// so that the server's tab listing names it.
const PREPARED_TAB: &str = "about:blank#pagesnap-bench-mcp";

/// A browser bench-mcp launched for a server that cannot launch its own,
/// and the tab, its viewport set, that the server works on.
struct Browser {
    /// pagesnap's session on the tab (it keeps the viewport set).
    tab: ChromiumSession,
    chromium: Chromium,
}

/// A spawned tool server, the client session to it ([`Connection`]), the
/// mapping that names its tools and, for a server attached to one, its
/// browser.
struct Server {
    side: Side,
    connection: Connection,
    mapping: Mapping,
    /// Dropped after the connection (fields drop in order).
    browser: Option<Browser>,
}

impl Server {
    async fn start(side: Side, config: &Config) -> Result<Server> {
        let label = side.label();
        let mapping = side.mapping()?;
        if mapping.navigate.is_none() {
            bail!("{label}: its mapping has no [navigate] call");
        }
        let viewport = format!("{}x{}", config.viewport.0, config.viewport.1);
        let own_dir = || {
            tempfile::Builder::new()
                .prefix("pagesnap-bench-mcp-")
                .tempdir()
                .context("could not create a temp folder")
        };
        let (connection, browser) = match side {
            Side::Pagesnap => {
                let launched = ServerBrowser::Launched {
                    viewport: &viewport,
                };
                let dir = own_dir()?;
                let mut command = command(&Launch::Pagesnap, &launched, dir.path())?;
                command.args(["--strategy", &config.strategy]);
                if config.always_capture {
                    command.arg("--always-capture");
                }
                let connection =
                    Connection::launch(label, command, dir, config.call_timeout).await?;
                (connection, None)
            }
            Side::Peer(shipped) => match &shipped.launch {
                Launch::Playwright => {
                    let dir = own_dir()?;
                    let launched = ServerBrowser::Launched {
                        viewport: &viewport,
                    };
                    let command = command(&shipped.launch, &launched, dir.path())?;
                    let connection =
                        Connection::launch(label, command, dir, config.call_timeout).await?;
                    (connection, None)
                }
                Launch::ChromeDevtools | Launch::AgentBrowser => {
                    attached(shipped, &mapping, config).await?
                }
                Launch::Pagesnap | Launch::Shell(_) => {
                    bail!("{label}: not a server bench-mcp measures beside pagesnap")
                }
            },
        };
        connection.offers(&mapping.tools())?;
        Ok(Server {
            side,
            connection,
            mapping,
            browser,
        })
    }

    /// The mapping's `call` with its placeholders from `values`, timed; a
    /// tool error is an error.
    async fn call(&self, call: &Call, values: &[(&str, Arg)]) -> Result<Answer> {
        let answer = self.connection.call(call, values).await?;
        self.checked(&call.tool, answer)
    }

    /// One of pagesnap's own tools with `arguments`, timed; a tool error is an error.
    async fn send(&self, tool: &str, arguments: Value) -> Result<Answer> {
        let Value::Object(arguments) = arguments else {
            bail!("{tool}: arguments must be an object");
        };
        let answer = self.connection.send(tool, arguments).await?;
        self.checked(tool, answer)
    }

    fn checked(&self, tool: &str, answer: Answer) -> Result<Answer> {
        if answer.is_error {
            bail!("{}: {tool} failed: {}", self.side.label(), answer.text);
        }
        Ok(answer)
    }

    /// Opens `url` with the mapped navigation; on a browser bench-mcp
    /// launched, the prepared tab must be the one that shows it, at the
    /// viewport (unless a dialog stops the page).
    async fn navigate(&self, url: &str, viewport: (u32, u32)) -> Result<Answer> {
        let label = self.side.label();
        let Some(call) = &self.mapping.navigate else {
            bail!("{label}: its mapping has no [navigate] call");
        };
        let answer = self.call(call, &[("url", url.into())]).await?;
        // A page stopped by a dialog it opened cannot be read: the check is
        // left to the next page.
        if let Some(browser) = &self.browser
            && let Ok(shown) = browser
                .tab
                .eval("[location.href, innerWidth, innerHeight]")
                .await
        {
            if shown[0].as_str() == Some(PREPARED_TAB) {
                bail!(
                    "{label}: {} opened {url} in another tab than the one prepared with the viewport",
                    call.tool
                );
            }
            let size = (shown[1].as_u64(), shown[2].as_u64());
            if size != (Some(viewport.0.into()), Some(viewport.1.into())) {
                bail!(
                    "{label}: its tab shows {url} at {}x{}, not at the viewport {}x{}",
                    shown[1],
                    shown[2],
                    viewport.0,
                    viewport.1
                );
            }
        }
        Ok(answer)
    }

    async fn snapshot(&self) -> Result<Answer> {
        self.call(&self.mapping.snapshot, &[]).await
    }

    async fn stop(self) {
        self.connection.stop().await;
        if let Some(browser) = self.browser {
            browser.tab.close().await;
            let _ = browser.chromium.close().await;
        }
    }
}

/// Starts `shipped` attached over CDP to a headless Chromium launched for
/// it (network on, as `pagesnap mcp` and Playwright MCP have it), in a tab
/// opened with the viewport set, which it is told to work on (its `{tab}`).
async fn attached(
    shipped: &'static Shipped,
    mapping: &Mapping,
    config: &Config,
) -> Result<(Connection, Option<Browser>)> {
    let label = shipped.name;
    let chromium = Chromium::launch(true)
        .await
        .with_context(|| format!("{label}: could not launch its browser"))?
        // The server answers its page's dialogs itself.
        .with_dialogs(DialogPolicy::Ask);
    let options = OpenOptions {
        width: config.viewport.0,
        height: config.viewport.1,
        timeout: config.call_timeout,
        ..OpenOptions::default()
    };
    let tab = chromium
        .open(PREPARED_TAB, &options)
        .await
        .with_context(|| format!("{label}: could not open its tab"))?;
    let peer = Peer {
        name: label.to_owned(),
        launch: shipped.launch.clone(),
        mapping: mapping.clone(),
        timeout: config.call_timeout,
    };
    // Nothing is uploaded: the server runs in the working folder.
    let here = std::env::current_dir().context("the working folder")?;
    let connection = Connection::start(&peer, chromium.websocket_url(), &here).await?;
    connection.choose_tab(mapping, PREPARED_TAB).await?;
    Ok((connection, Some(Browser { tab, chromium })))
}

/// Refs a snapshot offers: pagesnap's meta items; another server's refs
/// as its mapping reads them from the text.
fn refs_of(server: &Server, answer: &Answer) -> usize {
    match server.side {
        Side::Pagesnap => items(answer).len(),
        Side::Peer(_) => server.mapping.refs_in(&answer.text).len(),
    }
}

/// pagesnap's meta items (`page_snapshot`'s structured content, or the
/// `snapshot` of an action's answer), as the engine describes them.
fn items(answer: &Answer) -> Vec<Item> {
    if let Some(snapshot) = pagesnap_snapshot(answer) {
        return snapshot.meta.items;
    }
    action_answer(answer)
        .map(|answer| answer.snapshot.meta.items)
        .unwrap_or_default()
}

/// pagesnap's answer to an acting tool, read as the server wrote it.
fn action_answer(answer: &Answer) -> Option<ActionAnswer> {
    serde_json::from_value(answer.structured.clone()?).ok()
}

/// pagesnap's answer to `page_snapshot`, read as the server wrote it.
fn pagesnap_snapshot(answer: &Answer) -> Option<Snapshot> {
    serde_json::from_value(answer.structured.clone()?).ok()
}

/// Whether pagesnap's action answer said `incomplete`.
fn incomplete(answer: &Answer) -> bool {
    action_answer(answer).is_some_and(|answer| answer.incomplete)
}

/// Whether pagesnap said it rendered this snapshot from an earlier capture.
fn was_reused(answer: &Answer) -> bool {
    pagesnap_snapshot(answer).is_some_and(|snapshot| snapshot.freshness.reused)
}

/// Lower case with runs of white space as one space.
fn normalise(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The ref a server's snapshot gives the one line that reads
/// `role "name" …` (after its list marker, and after the ref when the
/// server writes it first: `uid=1_5 button "Go"`), as its mapping reads
/// refs; `None` when no line or several do.
fn ref_on_line(mapping: &Mapping, snapshot: &str, role: &str, name: &str) -> Option<String> {
    let wanted = normalise(&format!("{role} {name:?}"));
    let mut found = snapshot.lines().filter_map(|line| {
        let reference = mapping.refs_in(line).into_iter().next()?;
        let line = normalise(line);
        let rest = line.trim_start_matches(['-', ' ']);
        let described = match rest.split_once(' ') {
            Some((first, after)) if first.contains(&reference.to_lowercase()) => after,
            _ => rest,
        };
        described.starts_with(&wanted).then_some(reference)
    });
    let first = found.next()?;
    found.next().is_none().then_some(first)
}

/// A pagesnap item with this role and name, in the viewport.
fn pagesnap_item<'a>(items: &'a [Item], role: &str, name: &str) -> Option<&'a Item> {
    let (role, name) = (normalise(role), normalise(name));
    items.iter().find(|item| {
        item.zone != Zone::Offscreen
            && normalise(&item.role) == role
            && normalise(&item.name) == name
    })
}

/// Runs the benchmark, reporting each page as it is measured.
pub async fn run(config: &Config, mut report: impl FnMut(Event<'_>)) -> Result<Outcome> {
    let sides: Vec<Side> = std::iter::once(Side::Pagesnap)
        .chain(config.versus.iter().map(|&shipped| Side::Peer(shipped)))
        .collect();
    // Pages given as files are served over 127.0.0.1 from the folder that
    // holds them all.
    let files: Vec<PathBuf> = config
        .pages
        .iter()
        .filter(|page| !page.contains("://"))
        .map(|page| {
            Path::new(page)
                .canonicalize()
                .with_context(|| format!("{page}: no such file"))
        })
        .collect::<Result<_>>()?;
    let root = common_folder(&files);
    let served = match &root {
        Some(root) => Some(PageServer::start(root)?),
        None => None,
    };
    let url_of = |page: &str| -> Result<String> {
        if page.contains("://") {
            return Ok(page.to_owned());
        }
        let (Some(root), Some(server)) = (&root, &served) else {
            bail!("{page}: not served");
        };
        let path = Path::new(page).canonicalize()?;
        let relative = path.strip_prefix(root)?;
        Ok(server.url(&relative.to_string_lossy()))
    };

    let mut servers = Vec::new();
    for &side in &sides {
        servers.push(Server::start(side, config).await?);
    }
    let running: Vec<Running> = servers
        .iter()
        .map(|s| Running {
            side: s.side,
            version: s.connection.version(),
            definition_tokens: s.connection.definition_tokens,
        })
        .collect();
    let definitions: BTreeMap<Side, usize> = running
        .iter()
        .map(|r| (r.side, r.definition_tokens))
        .collect();
    report(Event::Started(Started { servers: running }));

    let mut results = Vec::new();
    let mut errors = Vec::new();
    for (index, page) in config.pages.iter().enumerate() {
        let url = url_of(page)?;
        let targets: Vec<&PageTarget> = config
            .targets
            .iter()
            .filter(|t| {
                t.page
                    .canonicalize()
                    .ok()
                    .zip(Path::new(page).canonicalize().ok())
                    .is_some_and(|(a, b)| a == b)
            })
            .collect();
        match measure_page(&mut servers, index, page, &url, &targets, config).await {
            Ok(result) => {
                report(Event::Page(&result));
                results.push(result);
            }
            Err((side, err)) => {
                let error = PageError {
                    page: page.clone(),
                    error: format!("{page}: {err:#}"),
                };
                report(Event::Failed(&error));
                errors.push(error);
                // A server that failed may be wedged: start it afresh.
                if let Some(position) = servers.iter().position(|s| s.side == side) {
                    let fresh = Server::start(side, config).await?;
                    let old = std::mem::replace(&mut servers[position], fresh);
                    old.stop().await;
                }
            }
        }
    }
    for server in servers {
        server.stop().await;
    }
    let summary = summarize(&results, &sides, &definitions);
    Ok(Outcome {
        results,
        errors,
        summary,
    })
}

/// The deepest folder holding every file.
fn common_folder(files: &[PathBuf]) -> Option<PathBuf> {
    let mut common = files.first()?.parent()?.to_path_buf();
    for file in files {
        while !file.starts_with(&common) {
            common = common.parent()?.to_path_buf();
        }
    }
    Some(common)
}

/// What one server gave on one page, before the click.
struct Observed {
    measured: Measured,
    snapshot: Answer,
}

async fn measure_page(
    servers: &mut [Server],
    index: usize,
    page: &str,
    url: &str,
    targets: &[&PageTarget],
    config: &Config,
) -> Result<PageResult, (Side, anyhow::Error)> {
    // Take turns going first.
    let mut order: Vec<usize> = (0..servers.len()).collect();
    if index % 2 == 1 {
        order.reverse();
    }
    let mut observed: BTreeMap<Side, Observed> = BTreeMap::new();
    for &i in &order {
        let server = &servers[i];
        let seen = observe(server, url, config)
            .await
            .map_err(|err| (server.side, err))?;
        observed.insert(server.side, seen);
    }
    let mut target_results = Vec::new();
    for target in targets {
        let mut reach = BTreeMap::new();
        for server in servers.iter() {
            let Some(seen) = observed.get(&server.side) else {
                continue;
            };
            let offered = match server.side {
                Side::Pagesnap => pagesnap_reach(server, &seen.snapshot, target)
                    .await
                    .map_err(|err| (server.side, err))?,
                Side::Peer(_) => {
                    let text = &seen.snapshot.text;
                    if ref_on_line(&server.mapping, text, &target.role, &target.name).is_some() {
                        Reach::InView
                    } else {
                        Reach::Missing
                    }
                }
            };
            reach.insert(server.side, offered);
        }
        target_results.push(TargetResult {
            task: target.task.clone(),
            target: format!("{} {:?}", target.role, target.name),
            reach,
        });
    }
    let mut click_skipped = None;
    if config.click {
        match click_target(servers, &observed) {
            Some((element, refs)) => {
                for &i in &order {
                    let server = &servers[i];
                    let Some(reference) = refs.get(&server.side) else {
                        continue;
                    };
                    let click = click(server, &element, reference)
                        .await
                        .map_err(|err| (server.side, err))?;
                    if let Some(seen) = observed.get_mut(&server.side) {
                        seen.measured.click = Some(click);
                    }
                }
            }
            None => {
                click_skipped = Some(
                    "no button or link in pagesnap's viewport snapshot that every server names alike"
                        .to_owned(),
                );
            }
        }
    }
    Ok(PageResult {
        page: page.to_owned(),
        servers: observed.into_values().map(|o| o.measured).collect(),
        targets: target_results,
        click_skipped,
    })
}

/// Navigates, then times the first and the warm snapshots.
async fn observe(server: &Server, url: &str, config: &Config) -> Result<Observed> {
    let side = server.side;
    let navigated = server.navigate(url, config.viewport).await?;
    let snapshot = server.snapshot().await?;
    let mut reused = usize::from(was_reused(&snapshot));
    let mut warm_ms = Vec::with_capacity(config.runs);
    for _ in 0..config.runs {
        let warm = server.snapshot().await?;
        warm_ms.push(warm.ms);
        reused += usize::from(was_reused(&warm));
    }
    let full_page_tokens = match side {
        Side::Pagesnap => {
            let full = server
                .send(&server.mapping.snapshot.tool, json!({ "full_page": true }))
                .await?;
            Some(crate::tokens::o200k(&full.text))
        }
        Side::Peer(_) => None,
    };
    Ok(Observed {
        measured: Measured {
            side,
            navigate_ms: navigated.ms,
            navigate_incomplete: (side == Side::Pagesnap).then(|| incomplete(&navigated)),
            first_ms: snapshot.ms,
            warm_ms,
            tokens: crate::tokens::o200k(&snapshot.text),
            refs: refs_of(server, &snapshot),
            reused: (side == Side::Pagesnap).then_some(reused),
            full_page_tokens,
            click: None,
        },
        snapshot,
    })
}

/// Whether pagesnap's default snapshot offers a target: in view, or below
/// the viewport under the "scroll down" hint and found by `page_find`.
async fn pagesnap_reach(server: &Server, snapshot: &Answer, target: &PageTarget) -> Result<Reach> {
    if pagesnap_item(&items(snapshot), &target.role, &target.name).is_some() {
        return Ok(Reach::InView);
    }
    if !snapshot.text.contains("below the viewport") {
        return Ok(Reach::Missing);
    }
    let found = server
        .send("page_find", json!({ "text": target.name }))
        .await?;
    let matches = found
        .structured
        .and_then(|s| serde_json::from_value::<FindAnswer>(s).ok())
        .map(|found| found.matches)
        .unwrap_or_default();
    let (role, name) = (normalise(&target.role), normalise(&target.name));
    let offered = matches
        .iter()
        .any(|m| normalise(&m.role) == role && normalise(&m.name) == name);
    Ok(if offered {
        Reach::Announced
    } else {
        Reach::Missing
    })
}

/// The first enabled button (else link) in pagesnap's viewport snapshot that every
/// other server's snapshot names exactly once, with each server's ref.
fn click_target(
    servers: &[Server],
    observed: &BTreeMap<Side, Observed>,
) -> Option<(String, BTreeMap<Side, String>)> {
    let ours = observed.get(&Side::Pagesnap)?;
    let items = items(&ours.snapshot);
    for role in ["button", "link"] {
        for item in &items {
            let name = item.name.as_str();
            if item.role != role
                || item.zone == Zone::Offscreen
                || name.trim().is_empty()
                || name.contains('"')
                || name.contains("[redacted]")
                || item.states.iter().any(|s| s == "disabled")
            {
                continue;
            }
            // The name must be unique on our side too.
            let same = items
                .iter()
                .filter(|other| other.role == role && other.name == item.name)
                .count();
            if same != 1 {
                continue;
            }
            let mut refs = BTreeMap::new();
            refs.insert(Side::Pagesnap, item.reference.clone());
            let mut everywhere = true;
            for server in servers.iter().filter(|s| s.side != Side::Pagesnap) {
                let Some(seen) = observed.get(&server.side) else {
                    continue;
                };
                match ref_on_line(&server.mapping, &seen.snapshot.text, role, name) {
                    Some(reference) => {
                        refs.insert(server.side, reference);
                    }
                    None => everywhere = false,
                }
            }
            if everywhere {
                return Some((format!("{role} {name:?}"), refs));
            }
        }
    }
    None
}

/// One click by ref through the server's mapped click, timed with its
/// readiness wait and answer.
async fn click(server: &Server, element: &str, reference: &str) -> Result<Click> {
    let Some(calls) = server.mapping.actions.get(&ActionKey::CLICK) else {
        bail!(
            "{}: its mapping has no [actions.click]",
            server.side.label()
        );
    };
    let values = [
        ("ref", reference.into()),
        ("element", element.into()),
        ("value", "".into()),
    ];
    let (mut ms, mut tokens, mut incomplete_lines) = (0.0, 0, None);
    for call in calls {
        let answer = server.call(call, &values).await?;
        ms += answer.ms;
        tokens += crate::tokens::o200k(&answer.text);
        if server.side == Side::Pagesnap {
            incomplete_lines = Some(incomplete(&answer));
        }
    }
    Ok(Click {
        element: element.to_owned(),
        ms,
        tokens,
        incomplete: incomplete_lines,
    })
}

/// `[median, p90]`.
fn spread(values: &[f64]) -> [f64; 2] {
    [median(values.iter().copied()), p90(values.iter().copied())]
}

fn ratio(ours: [f64; 2], theirs: [f64; 2]) -> [f64; 2] {
    let one = |a: f64, b: f64| {
        if b > 0.0 {
            (a / b * 1000.0).round() / 1000.0
        } else {
            0.0
        }
    };
    [one(ours[0], theirs[0]), one(ours[1], theirs[1])]
}

fn summarize(
    results: &[PageResult],
    sides: &[Side],
    definitions: &BTreeMap<Side, usize>,
) -> Summary {
    let mut summary = Summary {
        pages: results.len(),
        ..Summary::default()
    };
    for &side in sides {
        let measured: Vec<&Measured> = results
            .iter()
            .flat_map(|r| r.servers.iter().filter(move |m| m.side == side))
            .collect();
        let column = |f: &dyn Fn(&Measured) -> f64| -> [f64; 2] {
            spread(&measured.iter().map(|m| f(m)).collect::<Vec<_>>())
        };
        let clicks: Vec<f64> = measured
            .iter()
            .filter_map(|m| m.click.as_ref().map(|c| c.ms))
            .collect();
        let full: Vec<f64> = measured
            .iter()
            .filter_map(|m| m.full_page_tokens.map(|t| t as f64))
            .collect();
        summary.servers.insert(
            side,
            SideSummary {
                first_ms: column(&|m| m.first_ms),
                warm_ms: column(&|m| median(m.warm_ms.iter().copied())),
                tokens: column(&|m| m.tokens as f64),
                refs: column(&|m| m.refs as f64),
                navigate_ms: column(&|m| m.navigate_ms),
                click_ms: (!clicks.is_empty()).then(|| spread(&clicks)),
                full_page_tokens: (!full.is_empty()).then(|| spread(&full)),
                definition_tokens: definitions.get(&side).copied().unwrap_or(0),
            },
        );
        let reach: Vec<Reach> = results
            .iter()
            .flat_map(|r| r.targets.iter())
            .filter_map(|t| t.reach.get(&side).copied())
            .collect();
        if !reach.is_empty() {
            let count = |kind: Reach| reach.iter().filter(|&&r| r == kind).count();
            summary.reach.insert(
                side,
                [
                    count(Reach::InView),
                    count(Reach::Announced),
                    count(Reach::Missing),
                ],
            );
        }
        if side == Side::Pagesnap {
            summary.incomplete_navigations = Some((
                measured
                    .iter()
                    .filter(|m| m.navigate_incomplete == Some(true))
                    .count(),
                measured.len(),
            ));
            summary.reused_snapshots = Some((
                measured.iter().filter_map(|m| m.reused).sum(),
                measured.iter().map(|m| 1 + m.warm_ms.len()).sum(),
            ));
            let flags: Vec<bool> = measured
                .iter()
                .filter_map(|m| m.click.as_ref().and_then(|c| c.incomplete))
                .collect();
            if !flags.is_empty() {
                summary.incomplete_clicks =
                    Some((flags.iter().filter(|&&f| f).count(), flags.len()));
            }
        }
    }
    if let Some(ours) = summary.servers.get(&Side::Pagesnap)
        && summary.pages > 0
    {
        let ratios = summary
            .servers
            .iter()
            .filter(|(side, _)| **side != Side::Pagesnap)
            .map(|(&side, theirs)| {
                (
                    side,
                    Ratios {
                        first: ratio(ours.first_ms, theirs.first_ms),
                        warm: ratio(ours.warm_ms, theirs.warm_ms),
                        tokens: ratio(ours.tokens, theirs.tokens),
                        navigate: ratio(ours.navigate_ms, theirs.navigate_ms),
                        click: ours.click_ms.zip(theirs.click_ms).map(|(a, b)| ratio(a, b)),
                    },
                )
            })
            .collect();
        summary.ratios = ratios;
    }
    summary
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ref_is_read_from_one_line_and_refused_from_two() {
        let playwright = Side::Peer(peers_named(&["playwright".into()]).unwrap()[0])
            .mapping()
            .unwrap();
        let snapshot = "- generic [ref=e1]:\n  - link \"Sign in\" [ref=e7] [cursor=pointer]:\n    - /url: /signin\n  - button \"Go\" [ref=e9]\n  - button \"Go\" [ref=e10]";
        assert_eq!(
            ref_on_line(&playwright, snapshot, "link", "Sign  In"),
            Some("e7".to_owned())
        );
        assert_eq!(ref_on_line(&playwright, snapshot, "button", "Go"), None);
        assert_eq!(
            ref_on_line(&playwright, snapshot, "button", "Sign in"),
            None
        );
        let devtools = Side::Peer(peers_named(&["chrome-devtools".into()]).unwrap()[0])
            .mapping()
            .unwrap();
        let snapshot = "uid=1_0 RootWebArea \"Login\"\n  uid=1_4 button \"Sign in\" focusable\n  uid=1_5 link \"Sign in help\"";
        assert_eq!(
            ref_on_line(&devtools, snapshot, "button", "Sign in"),
            Some("1_4".to_owned())
        );
        assert_eq!(ref_on_line(&devtools, snapshot, "link", "Help"), None);
    }

    #[test]
    fn servers_are_named_with_or_without_the_prefix_and_pagesnap_first() {
        let names: Vec<String> = [
            "mcp:agent-browser",
            "playwright",
            "chrome-devtools",
            "playwright",
        ]
        .map(String::from)
        .into();
        let peers = peers_named(&names).unwrap();
        let named: Vec<&str> = peers.iter().map(|p| p.name).collect();
        assert_eq!(named, ["agent-browser", "playwright", "chrome-devtools"]);
        let mut sides: Vec<Side> = peers.iter().map(|&p| Side::Peer(p)).collect();
        sides.push(Side::Pagesnap);
        sides.sort();
        assert_eq!(sides[0], Side::Pagesnap);
        assert_eq!(serde_json::to_value(sides[1]).unwrap(), "playwright");
        let Err(err) = peers_named(&["nope".into()]) else {
            panic!("an unknown server was accepted");
        };
        let err = err.to_string();
        assert!(
            err.contains("known: playwright, chrome-devtools, agent-browser"),
            "{err}"
        );
        assert!(peers_named(&["pagesnap".into()]).is_err());
    }

    #[test]
    fn common_folder_is_the_deepest_shared_parent() {
        let files = [
            PathBuf::from("/a/b/c/one.html"),
            PathBuf::from("/a/b/d/two.html"),
        ];
        assert_eq!(common_folder(&files), Some(PathBuf::from("/a/b")));
        assert_eq!(common_folder(&files[..1]), Some(PathBuf::from("/a/b/c")));
        assert_eq!(common_folder(&[]), None);
    }
}
