//! `bench-hidden`: which text no person can see reaches the model, and which visible text it is shown (issue 56) — per pagesnap strategy on a live capture (viewport and full page) and per tool server (its own snapshot tool over MCP), on a page family whose tokens `markers.toml` declares.
//!
//! The folder's pages are served over 127.0.0.1 (a cross-site frame is
//! loaded from the server's other host name, `localhost`). Each `[[page]]`
//! is opened once in a headless Chromium launched offline and captured once
//! (with a screenshot when a strategy reads one); every strategy renders that
//! capture with `full_page` false and true, and its observation's text is
//! what the model reads (`som`'s legend; its image is not read for tokens).
//! The raw `html` strategy is left out: it is the unprocessed document by
//! design, so every token is in it. Each tool server is started as bench-mcp
//! starts it ([`crate::bench::mcp::server`]: the same launcher, the same
//! browser binary and viewport), navigates to each page with its mapped
//! navigation and is asked for a snapshot with its mapped snapshot call; the
//! text blocks of that answer are what the model reads. A server that is not
//! installed is skipped, not failed.
//!
//! A token is found as a whole word ([`find::occurs`]). A visible token
//! found is shown, else lost (or out of view: below the first viewport, in a
//! viewport's text); a hidden token found reached the model, else it was
//! withheld.

pub mod find;
mod live;
mod markers;
mod rows;
mod run;
mod servers;

use std::path::PathBuf;
use std::time::Duration;

use pagesnap_engine::strategy::Strategy;

use crate::bench::mcp::Side;

pub use markers::{Family, MARKERS_FILE, Marker, Markers, MarkersError, PageEntry, Place};
pub use rows::{
    Counts, HiddenCounts, Kind, Outcome, Report, Row, Scope, Status, TokenResult, Viewer,
    VisibleCounts,
};
pub use run::run;
pub use servers::servers_named;

/// What to measure.
pub struct Config {
    /// The folder holding the pages and their `markers.toml`.
    pub folder: PathBuf,
    /// Its markers.
    pub markers: Markers,
    /// pagesnap strategies, each observed at both scopes.
    pub strategies: Vec<&'static dyn Strategy>,
    /// Tool servers, in [`Side`] order.
    pub servers: Vec<Side>,
    /// `pagesnap mcp --strategy`: the strategy of its `page_snapshot`.
    pub mcp_strategy: String,
    /// Viewport of every browser.
    pub viewport: (u32, u32),
    /// Limit of a page load and of each tool call.
    pub timeout: Duration,
}

/// A page as the browsers open it.
struct ServedPage {
    /// Its file, relative to the folder (the markers' `page`).
    file: String,
    /// `http://127.0.0.1:PORT/FILE`.
    url: String,
}
