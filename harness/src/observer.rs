//! What produces the observation of a live step: one of pagesnap's strategies rendering its own capture of the tab.
//!
//! The live runner names what an episode observes with through an
//! [`Observer`] rather than an engine strategy, so that an observation made
//! elsewhere can take the same place in episodes, rows and reports.

use std::time::Duration;

use anyhow::Result;
use pagesnap_engine::observation::Observation;
use pagesnap_engine::strategy::{Options, Strategy};

use crate::capture::{Captured, ChromiumSession};

/// What an episode observes the page with.
#[derive(Clone)]
pub enum Observer {
    /// One of pagesnap's strategies over pagesnap's own capture.
    Engine(&'static dyn Strategy),
}

impl Observer {
    /// The name rows and reports use.
    pub fn name(&self) -> &str {
        match self {
            Observer::Engine(strategy) => strategy.name(),
        }
    }
}

/// One observation of a live tab and what it cost.
pub struct Seen {
    /// What the agent reads; its refs resolve to nodes of `captured`.
    pub observation: Observation,
    /// pagesnap's capture of the same state (the trace keeps it).
    pub captured: Captured,
    /// Capture wall time.
    pub capture: Duration,
    /// Engine wall time (analysis + render).
    pub engine: Duration,
}

/// Observes the tab's current state; `previous` keeps refs stable and marks
/// new elements, as `snapshot --previous` does.
pub async fn observe(
    session: &ChromiumSession,
    observer: &Observer,
    previous: Option<&Observation>,
) -> Result<Seen> {
    match observer {
        Observer::Engine(strategy) => {
            let options = Options {
                previous,
                ..Options::default()
            };
            let live = session.observe(*strategy, &options).await?;
            Ok(Seen {
                capture: live.timings.capture.total,
                engine: live.timings.engine(),
                observation: live.observation,
                captured: live.captured,
            })
        }
    }
}
