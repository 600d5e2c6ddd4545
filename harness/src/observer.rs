//! What produces the observation of a live step: one of pagesnap's strategies rendering its own capture of the tab, or an external program observing the same tab ([`crate::external`]).
//!
//! The live runner, `bench-live` and `snapshot` name what they observe with
//! through an [`Observer`], so that an observation made elsewhere takes the
//! same place in episodes, rows and reports.

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Result, bail};
use pagesnap_engine::observation::Observation;
use pagesnap_engine::strategy::{Options, Strategy};

use crate::external::{self, External, Program};
use crate::results::ExternalStep;
use pagesnap_browser::{Captured, ChromiumSession};

/// What an episode observes the page with.
#[derive(Clone)]
pub enum Observer {
    /// One of pagesnap's strategies over pagesnap's own capture.
    Engine(&'static dyn Strategy),
    /// An external program (`ext:NAME`).
    External(Arc<External>),
}

impl Observer {
    /// The name rows and reports use.
    pub fn name(&self) -> &str {
        match self {
            Observer::Engine(strategy) => strategy.name(),
            Observer::External(external) => &external.name,
        }
    }

    /// The external strategy, if this is one.
    pub fn external(&self) -> Option<&Arc<External>> {
        match self {
            Observer::Engine(_) => None,
            Observer::External(external) => Some(external),
        }
    }
}

/// One observation of a live tab and what it cost.
pub struct Seen {
    /// What the agent reads; its refs resolve to nodes of `captured`.
    pub observation: Observation,
    /// pagesnap's capture of the same state (the trace keeps it).
    pub captured: Captured,
    /// Capture wall time (an external strategy: its own observation time).
    pub capture: Duration,
    /// Engine wall time (analysis + render; 0 for an external strategy).
    pub engine: Duration,
    /// An external strategy's round trip and ref resolution.
    pub external: Option<ExternalStep>,
}

/// Where an external strategy's program runs: its program and the browser's websocket URL.
pub struct Attached<'a> {
    /// The program, attached to the browser of the tab observed.
    pub program: &'a mut Program,
    /// The browser's CDP websocket URL.
    pub ws: &'a str,
}

/// Observes the tab's current state at `step`; `previous` keeps pagesnap's
/// refs stable and marks new elements, as `snapshot --previous` does. An
/// external observer needs `attached`.
pub async fn observe(
    session: &ChromiumSession,
    observer: &Observer,
    previous: Option<&Observation>,
    attached: Option<&mut Attached<'_>>,
    step: usize,
    viewport: (u32, u32),
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
                external: None,
            })
        }
        Observer::External(external) => {
            let Some(attached) = attached else {
                bail!(
                    "external strategy {} has no program attached to this browser",
                    external.name
                );
            };
            let observed =
                external::observe(attached.program, session, attached.ws, step, viewport).await?;
            Ok(Seen {
                observation: observed.observation,
                captured: observed.captured,
                capture: observed.observe,
                engine: Duration::ZERO,
                external: Some(observed.step),
            })
        }
    }
}
