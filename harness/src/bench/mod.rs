//! Side-by-side benchmarks, each measuring pagesnap and a peer in one run: `bench-live` (warm live observations against Playwright's `ariaSnapshot()`) and `bench-mcp` (tool round trips against Playwright MCP).

pub mod live;
pub mod mcp;
pub mod playwright;

use std::time::Duration;

use crate::report::metrics::quantile;

/// Milliseconds, to the microsecond (no false precision in the output).
pub(crate) fn ms(elapsed: Duration) -> f64 {
    (elapsed.as_secs_f64() * 1_000_000.0).round() / 1000.0
}

/// The median of `values` (0 when empty).
pub(crate) fn median(values: impl IntoIterator<Item = f64>) -> f64 {
    let mut sorted: Vec<f64> = values.into_iter().collect();
    sorted.sort_by(f64::total_cmp);
    quantile(&sorted, 0.5)
}

/// The 90th percentile of `values` (0 when empty).
pub(crate) fn p90(values: impl IntoIterator<Item = f64>) -> f64 {
    let mut sorted: Vec<f64> = values.into_iter().collect();
    sorted.sort_by(f64::total_cmp);
    quantile(&sorted, 0.9)
}
