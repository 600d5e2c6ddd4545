//! Peers' snapshotters as strategies: an external program observes the live tab pagesnap drives, over the JSON-lines protocol `pagesnap.external/1`, and pagesnap resolves its refs to nodes so that episodes, rows and reports treat it like its own strategies.
//!
//! A strategy named `ext:NAME` is a program pagesnap starts once per browser
//! ([`program`]) and keeps: the two adapters shipped under
//! `scripts/playwright/adapters/` (`playwright-aria`, `playwright-ai`: Node.js
//! on the playwright-core the Playwright comparison already installs), or any
//! command given with `--external NAME=COMMAND`. Per observation pagesnap
//! sends the tab's coordinates ([`protocol::Observe`]); the answer's refs are
//! resolved on pagesnap's own capture of the same state ([`resolve`]), which
//! the trace keeps. A program that exits, hangs past its limit or answers
//! garbage fails that observation with an [`ExternalError`] naming it; the
//! next observation starts it again.

pub mod program;
pub mod protocol;
pub mod resolve;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use pagesnap_engine::observation::Observation;

pub use program::{ExternalError, Program};
pub use resolve::RefCounts;

use crate::results::{ExternalStep, ms};
use pagesnap_browser::{Captured, ChromiumSession, Needs};

/// The prefix that marks an external strategy's name (its home is [`crate::results`]).
pub use crate::results::EXTERNAL_PREFIX as PREFIX;

/// The adapters shipped with pagesnap: name, script under `scripts/playwright/adapters/`, summary.
pub const ADAPTERS: &[(&str, &str, &str)] = &[
    (
        "playwright-aria",
        "playwright-aria.mjs",
        "Playwright's page.locator('body').ariaSnapshot() (default mode); refs given by pagesnap from role + name",
    ),
    (
        "playwright-ai",
        "playwright-ai.mjs",
        "Playwright's page.ariaSnapshot({mode: 'ai'}) with its own [ref=eN], resolved through aria-ref=",
    ),
];

/// An external strategy: its name and how to start its program.
#[derive(Clone, Debug, PartialEq)]
pub struct External {
    /// `ext:NAME`.
    pub name: String,
    /// The program.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// How long one answer (the hello included) may take.
    pub timeout: Duration,
}

impl External {
    /// The command as a user would type it (for messages).
    pub fn command_line(&self) -> String {
        std::iter::once(self.program.display().to_string())
            .chain(self.args.iter().cloned())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// A program given with `--external NAME=COMMAND`.
#[derive(Clone, Debug, PartialEq)]
pub struct UserProgram {
    /// NAME (without `ext:`).
    pub name: String,
    /// COMMAND, run by `sh -c COMMAND` in a process group of its own.
    pub command: String,
}

impl UserProgram {
    /// Parses `NAME=COMMAND`.
    pub fn parse(text: &str) -> Result<UserProgram> {
        let Some((name, command)) = text.split_once('=') else {
            bail!("--external {text:?}: expected NAME=COMMAND");
        };
        let name = name.trim().trim_start_matches(PREFIX);
        if name.is_empty() || command.trim().is_empty() {
            bail!("--external {text:?}: expected NAME=COMMAND with both parts");
        }
        Ok(UserProgram {
            name: name.to_owned(),
            command: command.trim().to_owned(),
        })
    }
}

pub use crate::results::is_external;

/// The external strategy `ext:NAME`: a `--external` program of that name, or a shipped adapter.
pub fn named(name: &str, user: &[UserProgram], timeout: Duration) -> Result<External> {
    let Some(bare) = name.strip_prefix(PREFIX) else {
        bail!("{name:?} is not an external strategy (those are named ext:NAME)");
    };
    if let Some(program) = user.iter().find(|p| p.name == bare) {
        return Ok(External {
            name: name.to_owned(),
            program: PathBuf::from("sh"),
            args: vec!["-c".to_owned(), program.command.clone()],
            timeout,
        });
    }
    let Some((_, script, _)) = ADAPTERS.iter().find(|(n, _, _)| *n == bare) else {
        let known: Vec<String> = ADAPTERS
            .iter()
            .map(|(n, _, _)| format!("{PREFIX}{n}"))
            .chain(user.iter().map(|p| format!("{PREFIX}{}", p.name)))
            .collect();
        bail!(
            "unknown external strategy {name:?} (known: {}; or give one with --external NAME=COMMAND)",
            known.join(", ")
        );
    };
    let dir = crate::node::playwright_dir()
        .with_context(|| format!("external strategy {name} needs the Playwright helper"))?;
    Ok(External {
        name: name.to_owned(),
        program: PathBuf::from("node"),
        args: vec![dir.join("adapters").join(script).display().to_string()],
        timeout,
    })
}

/// One external observation of a live tab.
pub struct Observed {
    /// What the agent reads; refs resolve to nodes of `captured`.
    pub observation: Observation,
    /// pagesnap's capture of the same state.
    pub captured: Captured,
    /// The observation's own time: what the program reported (its snapshot
    /// without resolving refs), else the round trip.
    pub observe: Duration,
    /// Round trip, counts and pagesnap's resolving.
    pub step: ExternalStep,
}

/// Asks `program` to observe the tab of `session`, then resolves its refs on
/// pagesnap's own capture of the same state (taken right after the answer).
pub async fn observe(
    program: &mut Program,
    session: &ChromiumSession,
    ws: &str,
    step: usize,
    viewport: (u32, u32),
) -> Result<Observed> {
    let request = protocol::Observe {
        kind: "observe",
        ws,
        target: session.target_id(),
        url: session.url(),
        step,
        viewport: protocol::Viewport {
            width: viewport.0,
            height: viewport.1,
        },
    };
    let answered = program.observe(&request).await?;
    let resolving = Instant::now();
    // Only what the analysis reads: no screenshot, no oracle.
    let needs = Needs {
        screenshot: None,
        oracle: false,
        stable_counts: false,
    };
    let (captured, _) = session.capture_with(needs).await?;
    let name = program.name().to_owned();
    let (observation, counts) = tokio::task::block_in_place(|| {
        let analysed = crate::observe::analyze(&captured.recording);
        resolve::resolve(
            &name,
            answered.answer.clone(),
            &analysed.page,
            &session.frame_ids(),
        )
    });
    let observe = answered
        .answer
        .observe_ms
        .map_or(answered.round_trip, |ms| {
            Duration::from_secs_f64(ms / 1000.0)
        });
    Ok(Observed {
        observation,
        captured,
        observe,
        step: ExternalStep {
            round_trip_ms: ms(answered.round_trip),
            resolve_ms: ms(resolving.elapsed()),
            refs: counts.refs,
            unresolved: counts.unresolved,
            ambiguous: counts.ambiguous,
            unassigned: counts.unassigned,
        },
    })
}
