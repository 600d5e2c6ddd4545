//! What produces the observation of a live step: one of pagesnap's strategies rendering its own capture of the tab, an external program observing the same tab ([`crate::external`]), or a tool server's snapshot tool ([`crate::peer`]).
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
use crate::peer::transcript::Transcript;
use crate::peer::{Connection, Peer};
use crate::results::{ExternalStep, PeerStep};
use pagesnap_browser::{Captured, ChromiumSession};

/// What an episode observes the page with.
#[derive(Clone)]
pub enum Observer {
    /// One of pagesnap's strategies over pagesnap's own capture.
    Engine(&'static dyn Strategy),
    /// An external program (`ext:NAME`).
    External(Arc<External>),
    /// A tool server (`mcp:NAME`): its snapshot tool observes, its tools act.
    Peer(Arc<Peer>),
}

impl Observer {
    /// The name rows and reports use.
    pub fn name(&self) -> &str {
        match self {
            Observer::Engine(strategy) => strategy.name(),
            Observer::External(external) => &external.name,
            Observer::Peer(peer) => &peer.name,
        }
    }

    /// The external strategy, if this is one.
    pub fn external(&self) -> Option<&Arc<External>> {
        match self {
            Observer::External(external) => Some(external),
            Observer::Engine(_) | Observer::Peer(_) => None,
        }
    }

    /// The tool server, if this is one.
    pub fn peer(&self) -> Option<&Arc<Peer>> {
        match self {
            Observer::Peer(peer) => Some(peer),
            Observer::Engine(_) | Observer::External(_) => None,
        }
    }
}

/// One observation of a live tab and what it cost.
pub struct Seen {
    /// What the agent reads; its refs resolve to nodes of `captured`.
    pub observation: Observation,
    /// pagesnap's capture of the same state (the trace keeps it); none for
    /// a tool server, which pagesnap does not capture behind its back.
    pub captured: Option<Captured>,
    /// Capture wall time (an external strategy: its own observation time).
    pub capture: Duration,
    /// Engine wall time (analysis + render; 0 for an external strategy).
    pub engine: Duration,
    /// An external strategy's round trip and ref resolution.
    pub external: Option<ExternalStep>,
    /// A tool server's snapshot call.
    pub peer: Option<PeerStep>,
}

/// What an observer other than pagesnap's own runs on, attached to the
/// browser of the tab observed.
pub enum Attached<'a> {
    /// An external strategy's program and the browser's CDP websocket URL.
    Program {
        /// The program.
        program: &'a mut Program,
        /// The browser's CDP websocket URL.
        ws: &'a str,
    },
    /// A tool server's session.
    Server(&'a Connection),
}

/// Observes the tab's current state at `step`; `previous` keeps pagesnap's
/// refs stable and marks new elements, as `snapshot --previous` does. An
/// external observer or a tool server needs `attached`.
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
            // A pending dialog stops the page: the dialog is all there is to see.
            if let Some(dialog) = session.dialog() {
                return Ok(Seen {
                    observation: dialog.observation(strategy.name()),
                    captured: None,
                    capture: Duration::ZERO,
                    engine: Duration::ZERO,
                    external: None,
                    peer: None,
                });
            }
            let options = Options {
                previous,
                ..Options::default()
            };
            let live = session.observe(*strategy, &options).await?;
            Ok(Seen {
                capture: live.timings.capture.total,
                engine: live.timings.engine(),
                observation: live.observation,
                captured: Some(live.captured),
                external: None,
                peer: None,
            })
        }
        Observer::External(external) => {
            let Some(Attached::Program { program, ws }) = attached else {
                bail!(
                    "external strategy {} has no program attached to this browser",
                    external.name
                );
            };
            let observed = external::observe(program, session, ws, step, viewport).await?;
            Ok(Seen {
                observation: observed.observation,
                captured: Some(observed.captured),
                capture: observed.observe,
                engine: Duration::ZERO,
                external: Some(observed.step),
                peer: None,
            })
        }
        Observer::Peer(peer) => {
            let Some(Attached::Server(connection)) = attached else {
                bail!("tool server {} is not attached to this browser", peer.name);
            };
            let snapshot = &peer.mapping.snapshot;
            let answer = connection.call(snapshot, &[]).await?;
            // A server that refuses to snapshot while a dialog waits names the
            // dialog in its error: that is what the agent sees, and answers.
            let dialog = peer.mapping.dialog_in(&answer.text);
            if answer.is_error && dialog.is_none() {
                bail!("{}: {} failed: {}", peer.name, snapshot.tool, answer.text);
            }
            let refs = peer.mapping.refs_in(&answer.text);
            let step = PeerStep {
                tool_calls: 1,
                round_trip_ms: answer.ms,
                result_tokens: crate::tokens::o200k(&answer.text),
                result_chars: answer.text.chars().count(),
                definition_tokens: 0,
            };
            Ok(Seen {
                observation: crate::peer::observation(&peer.name, answer.text, refs, dialog),
                captured: None,
                capture: Duration::from_secs_f64(answer.ms / 1000.0),
                engine: Duration::ZERO,
                external: None,
                peer: Some(step),
            })
        }
    }
}

/// What a client that reads action answers has in front of it
/// ([`Transcript`]): no call made, nothing new read (the answers were
/// counted on the steps that acted).
pub fn reread(peer: &Peer, transcript: &Transcript) -> Seen {
    Seen {
        observation: transcript.observation(&peer.name),
        captured: None,
        capture: Duration::ZERO,
        engine: Duration::ZERO,
        external: None,
        peer: Some(PeerStep::default()),
    }
}
