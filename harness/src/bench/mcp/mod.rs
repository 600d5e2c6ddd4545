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
//!
//! [`Chromium::executable`]: pagesnap_browser::Chromium::executable
//! [`Connection::start`]: crate::peer::connection::Connection::start

mod answers;
mod click;
mod measure;
mod measured;
mod pages;
mod run;
pub(crate) mod server;
mod side;
mod summary;

use std::time::Duration;

use crate::peer::Shipped;
use crate::suite::PageTarget;

pub use measured::{Click, Measured, PageResult, Reach, TargetResult};
pub use run::run;
pub use side::{Side, peers_named};
pub use summary::{Ratios, SideSummary, StepSpread, Summary};

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
    /// Whether every server's browser reaches hosts other than loopback;
    /// without, only 127.0.0.1 and localhost resolve in each.
    pub network: bool,
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
    /// Whether their browsers reach hosts other than loopback.
    pub network: bool,
}

/// What the run reports as it goes.
pub type Event<'a> = super::Event<'a, Started, PageResult>;

/// Everything measured.
pub type Outcome = super::Outcome<PageResult, Summary>;
