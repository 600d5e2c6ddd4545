//! The harness's calls into the engine — recording → analysed page → observation — one function each, so an engine API change is adapted here.
//!
//! A recording is analysed once ([`analyze`]); its [`Analyzed`] page is then
//! rendered by as many strategies as a command or runner needs ([`render`]),
//! so analysis and rendering are timed apart. Every command and runner goes
//! through these functions rather than calling the engine itself.

use std::time::{Duration, Instant};

use pagesnap_engine::analyze::Analyzed;
use pagesnap_engine::observation::Observation;
use pagesnap_engine::page::Page;
use pagesnap_engine::recording::Recording;
use pagesnap_engine::strategy::{ObserveError, Options, Strategy};

/// A recording's page with every analysis fact, and what building and
/// analysing it cost.
pub struct Analysed {
    /// The page and its facts; refs of every observation of it resolve to its nodes.
    pub page: Analyzed,
    /// Page build + analysis.
    pub elapsed: Duration,
}

/// Builds the page of `recording` and analyses it.
pub fn analyze(recording: &Recording) -> Analysed {
    let started = Instant::now();
    let page = Analyzed::new(Page::from_recording(recording));
    Analysed {
        page,
        elapsed: started.elapsed(),
    }
}

/// One strategy's rendering of an analysed page.
pub struct Rendered {
    /// The observation, or why the strategy could not render one.
    pub observation: Result<Observation, ObserveError>,
    /// Render time (analysis excluded).
    pub elapsed: Duration,
}

/// Renders an analysed page through `strategy`, timing it.
pub fn render(page: &Analyzed, strategy: &dyn Strategy, options: &Options<'_>) -> Rendered {
    let started = Instant::now();
    let observation = strategy.observe(page, options);
    Rendered {
        observation,
        elapsed: started.elapsed(),
    }
}

/// Microseconds, saturating.
pub fn micros(elapsed: Duration) -> u64 {
    u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX)
}
