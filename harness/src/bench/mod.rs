//! Side-by-side benchmarks, each measuring pagesnap and a peer in one run: `bench-live` (warm live observations against Playwright's `ariaSnapshot()`), `bench-mcp` (tool round trips against Playwright MCP) `bench-hidden` (which text no one can see reaches the model, per strategy and tool server) and `bench-paint` (whether what pagesnap withholds paints, Chromium as the oracle).

pub mod hidden;
pub mod live;
pub mod mcp;
pub mod paint;
pub mod playwright;

use std::io::Write as _;

use serde::Serialize;

use crate::report::metrics::quantile;
pub(crate) use crate::results::ms;

/// A page that could not be measured.
#[derive(Clone, Debug, Serialize)]
pub struct PageError {
    /// The page as given.
    pub page: String,
    /// What went wrong, naming the page, the step and (bench-mcp) the server and tool.
    pub error: String,
}

/// One line of a benchmark's output, as it is measured: the start (`S`:
/// what was started, as it reports itself), a measured page (`P`) or a
/// failed one.
pub enum Event<'a, S, P> {
    /// Everything measured is up.
    Started(S),
    /// A page measured.
    Page(&'a P),
    /// A page that failed.
    Failed(&'a PageError),
}

/// Everything a benchmark measured: its pages (`P`), the pages that
/// failed, and its summary (`S`).
pub struct Outcome<P, S> {
    /// Pages measured.
    pub results: Vec<P>,
    /// Pages that failed.
    pub errors: Vec<PageError>,
    /// Over the measured pages.
    pub summary: S,
}

/// `--json`: one JSON object per measured or failed page, flushed as it comes.
pub fn print_json<S, P: Serialize>(event: &Event<'_, S, P>) {
    let line = match event {
        Event::Started(_) => return,
        Event::Page(result) => serde_json::to_string(result),
        Event::Failed(error) => serde_json::to_string(error),
    };
    println!("{}", line.unwrap_or_default());
    let _ = std::io::stdout().flush();
}

/// The median of `values` (0 when empty).
pub fn median(values: impl IntoIterator<Item = f64>) -> f64 {
    let mut sorted: Vec<f64> = values.into_iter().collect();
    sorted.sort_by(f64::total_cmp);
    quantile(&sorted, 0.5)
}

/// The 90th percentile of `values` (0 when empty).
pub fn p90(values: impl IntoIterator<Item = f64>) -> f64 {
    let mut sorted: Vec<f64> = values.into_iter().collect();
    sorted.sort_by(f64::total_cmp);
    quantile(&sorted, 0.9)
}
