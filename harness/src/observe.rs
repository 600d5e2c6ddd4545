//! The harness's calls into the engine — recording → page → analysis → observation — one function each, so an engine API change is adapted here.
//!
//! Every command and runner goes through these functions rather than calling
//! `Page::from_recording`, `Analysis::new` or `Strategy::observe` itself.

use std::time::{Duration, Instant};

use pagesnap_engine::analyze::Analysis;
use pagesnap_engine::observation::Observation;
use pagesnap_engine::page::Page;
use pagesnap_engine::recording::Recording;
use pagesnap_engine::strategy::{ObserveError, Options, Strategy};

/// The page of a recording.
pub fn page(recording: &Recording) -> Page {
    Page::from_recording(recording)
}

/// Every analysis fact of a page (roles, names, visibility, …).
pub fn analysis(page: &Page) -> Analysis {
    Analysis::new(page)
}

/// A recording rendered through one strategy.
pub struct Observed {
    /// The page the observation was rendered from (refs resolve to its nodes).
    pub page: Page,
    /// The observation, or why the strategy could not render one.
    pub observation: Result<Observation, ObserveError>,
    /// Engine time: page build + analysis + render.
    pub elapsed: Duration,
}

/// Builds the page of `recording` and renders it through `strategy`, timing both.
pub fn observe(recording: &Recording, strategy: &dyn Strategy, options: &Options<'_>) -> Observed {
    let started = Instant::now();
    let page = page(recording);
    let observation = strategy.observe(&page, options);
    Observed {
        page,
        observation,
        elapsed: started.elapsed(),
    }
}
