//! Observing a live tab: capture only what a strategy needs, then analyse and render it in memory — the path an agent pays at every step.

use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use pagesnap_engine::analyze::Analyzed;
use pagesnap_engine::observation::Observation;
use pagesnap_engine::strategy::{Options, Strategy};

use super::Capture;
use super::state::Captured;
use super::state::Needs;
use super::timings::CaptureTimings;
use super::watch::{Kept, Shows, reusable};
use crate::observe;

/// One live observation and what it cost.
pub struct Live {
    /// What the model would read.
    pub observation: Observation,
    /// The state it was rendered from (its screenshot only if the strategy needed one).
    pub captured: Captured,
    /// Where the time went.
    pub timings: Timings,
}

/// Where the time of one live observation went.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timings {
    /// The capture: each CDP call, the join into a recording, its wall time.
    pub capture: CaptureTimings,
    /// Building the page and analysing it.
    pub analysis: Duration,
    /// Rendering the strategy.
    pub render: Duration,
    /// Wall time, capture to observation.
    pub total: Duration,
}

impl Timings {
    /// Analysis and render: the engine's part.
    pub fn engine(&self) -> Duration {
        self.analysis + self.render
    }
}

impl Capture<'_> {
    /// [`crate::ChromiumSession::observe`]'s work.
    pub(crate) async fn observe(
        &self,
        strategy: &dyn Strategy,
        options: &Options<'_>,
    ) -> Result<Live> {
        self.observe_with(strategy, options, Needs::observe(strategy))
            .await
    }

    /// [`crate::ChromiumSession::observe_with`]'s work.
    pub(crate) async fn observe_with(
        &self,
        strategy: &dyn Strategy,
        options: &Options<'_>,
        needs: Needs,
    ) -> Result<Live> {
        let started = Instant::now();
        let (captured, capture) = self.capture_with(needs).await?;
        let analysed = tokio::task::block_in_place(|| observe::analyze(&captured.recording));
        let (observation, render) = self.render(&captured, &analysed.page, strategy, options)?;
        Ok(Live {
            observation,
            captured,
            timings: Timings {
                capture,
                analysis: analysed.elapsed,
                render,
                total: started.elapsed(),
            },
        })
    }

    /// Renders a captured page through `strategy` (with the capture's
    /// screenshot when it has one), and how long rendering took. The engine
    /// computes for a few milliseconds (more on huge pages): the runtime
    /// moves the CDP handler to the other worker meanwhile.
    fn render(
        &self,
        captured: &Captured,
        page: &Analyzed,
        strategy: &dyn Strategy,
        options: &Options<'_>,
    ) -> Result<(Observation, Duration)> {
        let options = Options {
            screenshot: captured.screenshot.as_deref().or(options.screenshot),
            ..options.clone()
        };
        let rendered = tokio::task::block_in_place(|| observe::render(page, strategy, &options));
        let observation = rendered.observation.map_err(|err| Error::Render {
            url: self.tab.display_url().to_owned(),
            strategy: strategy.name().to_owned(),
            message: format!("{err:#}"),
        })?;
        Ok((observation, rendered.elapsed))
    }
}

/// Where an observation's page state came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// A capture made for it.
    Captured,
    /// An earlier capture the page still shows (see [`crate::Mark`]).
    Reused {
        /// How old that capture is.
        age: Duration,
    },
    /// An earlier capture of the page as it is but for the document's
    /// scroll, moved to where it now stands (`capture::rescroll`).
    Scrolled {
        /// How old that capture is.
        age: Duration,
    },
}

impl Capture<'_> {
    /// [`crate::ChromiumSession::observe_kept`]'s and
    /// [`crate::ChromiumSession::observe_untracked`]'s work.
    pub(crate) async fn observe_kept(
        &self,
        strategy: &dyn Strategy,
        options: &Options<'_>,
        kept: &mut Option<Kept>,
        track: bool,
    ) -> Result<(Observation, Source)> {
        let needs = Needs::observe(strategy);
        // Untracked, the page keeps no tracker of ours: nothing is reused.
        let mark = if track {
            self.mark_unless_unanswered().await?
        } else {
            None
        };
        let shows = kept
            .as_ref()
            .map_or(Shows::Not, |kept| kept.shows(mark.as_ref(), needs));
        match (shows, kept.as_mut()) {
            (Shows::Same, Some(kept)) => {
                let (observation, _) =
                    self.render(&kept.captured, &kept.page, strategy, options)?;
                return Ok((observation, Source::Reused { age: kept.age() }));
            }
            (Shows::Scrolled { to }, Some(kept)) => {
                let at = Instant::now();
                if let Some((recording, capture)) =
                    self.rescroll(&kept.captured.recording, to).await?
                {
                    let analysed = tokio::task::block_in_place(|| observe::analyze(&recording));
                    kept.captured = Captured {
                        recording,
                        screenshot: None,
                    };
                    kept.page = analysed.page;
                    kept.mark = mark;
                    let (observation, render) =
                        self.render(&kept.captured, &kept.page, strategy, options)?;
                    kept.timings = Timings {
                        capture,
                        analysis: analysed.elapsed,
                        render,
                        total: at.elapsed(),
                    };
                    return Ok((observation, Source::Scrolled { age: kept.age() }));
                }
            }
            _ => {}
        }
        *kept = None;
        let at = Instant::now();
        let (captured, capture) = self.capture_with(needs).await?;
        let analysed = tokio::task::block_in_place(|| observe::analyze(&captured.recording));
        let (observation, render) = self.render(&captured, &analysed.page, strategy, options)?;
        let mark = mark.filter(|_| reusable(&captured.recording));
        *kept = Some(Kept {
            captured,
            page: analysed.page,
            needs,
            mark,
            at,
            timings: Timings {
                capture,
                analysis: analysed.elapsed,
                render,
                total: at.elapsed(),
            },
        });
        Ok((observation, Source::Captured))
    }
}
