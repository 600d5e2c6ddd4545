//! Recording one page into the store: open it, capture it, apply each scripted step and capture again, write every state as `<out>`, `<out>.step1`, ….
//!
//! The whole record of a page — load, wait, settle, every capture and step,
//! and the write — shares one budget, the job's `--timeout`: every CDP call
//! waits at most until the budget's end, and a phase still under way then
//! fails as [`TabError::OverLimit`] naming the page, the phase and the limit.
//! Only preparing the recording for the store — `--redact`, the
//! `--max-nodes`/`--max-text` caps, encoding — may run past it, by a tenth
//! of the limit.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};

use pagesnap_engine::recording::CaptureNotes;

use pagesnap_browser::{Captured, Chromium, ChromiumSession, OpenOptions, Phase, Step, TabError};

use crate::store;

mod caps;
pub mod steps;

pub use caps::Caps;

/// One page to record.
pub struct Job {
    /// URL or local file, as given.
    pub target: String,
    /// Output stem of the first state (`fixtures/login/initial`).
    pub out: PathBuf,
    /// Viewport, scroll, wait and load limit.
    pub options: OpenOptions,
    /// Scripted steps, each followed by a capture (`--then`).
    pub then: Vec<Step>,
    /// What each recording may hold at most (`--max-nodes`, `--max-text`).
    pub caps: Caps,
    /// Apply the engine's redaction rules to every state before it is
    /// written, the screenshot included (`--redact`).
    pub redact: bool,
}

impl Job {
    /// The stem of every state the job writes: `out`, then `out.step<K>`
    /// after each scripted step.
    pub fn stems(&self) -> Vec<PathBuf> {
        std::iter::once(self.out.clone())
            .chain(
                (1..=self.then.len())
                    .map(|k| PathBuf::from(format!("{}.step{k}", self.out.display()))),
            )
            .collect()
    }
}

/// One state written to the store.
pub struct Written {
    /// The `.json.gz` written.
    pub path: PathBuf,
    /// Its size in bytes.
    pub bytes: u64,
    /// Nodes in the recording.
    pub nodes: usize,
    /// What the capture replaced, cut or redacted (the recording's `capture`).
    pub notes: CaptureNotes,
}

/// Records `job` in `chromium` and writes every state (recording, then
/// screenshot: a recording without its screenshot is not complete), all
/// within the job's `--timeout`. The tab is closed afterwards, whatever happened.
pub async fn record(chromium: &Chromium, job: &Job) -> Result<Vec<Written>> {
    record_within(chromium, job)
        .await
        .map_err(crate::flag_hints::with_flags)
}

async fn record_within(chromium: &Chromium, job: &Job) -> Result<Vec<Written>> {
    let deadline = Instant::now() + job.options.timeout;
    let mut session = chromium
        .open_until(&job.target, &job.options, deadline)
        .await?;
    let states = capture_states(&mut session, job).await;
    let url = session.url().to_owned();
    // A hung renderer may never answer the close; the browser's own close
    // ends it at the latest. Past the limit (a capture it cut short, the
    // renderer still busy with it) the tab is left to that close at once.
    if Instant::now() < deadline {
        let _ = tokio::time::timeout(std::time::Duration::from_secs(2), session.close()).await;
    }
    let states = states?;
    // Redacting, cutting and encoding a large page take a while; they may
    // run a tenth of the limit past the budget, then the job fails naming
    // the write.
    let write_deadline = deadline + job.options.timeout / 10;
    let mut written = Vec::new();
    for (stem, captured) in states {
        // `ChromiumSession::capture` takes everything `Needs::RECORD` names, the screenshot included.
        let screenshot = captured
            .screenshot
            .context("internal: a recording was captured without its screenshot")?;
        let mut recording = captured.recording;
        let (caps, redact) = (job.caps, job.redact);
        let encoded = tokio::time::timeout_at(
            write_deadline.into(),
            tokio::task::spawn_blocking(move || {
                finish(&mut recording, screenshot, caps, redact)
                    .map(|(encoded, png)| (encoded, png, recording.nodes.len(), recording.capture))
            }),
        )
        .await
        .map_err(|_| TabError::OverLimit {
            url: url.clone(),
            phase: Phase::Write,
            limit: job.options.timeout,
        })?
        .context("internal: the encoder task failed")?;
        let (encoded, screenshot, nodes, notes) =
            encoded.with_context(|| format!("{}: preparing {}", url, stem.display()))?;
        let (path, bytes) = store::write_encoded(&stem, &encoded, Some(&screenshot))?;
        written.push(Written {
            path,
            bytes,
            nodes,
            notes,
        });
    }
    Ok(written)
}

/// Redacts the state when asked (recording and screenshot), then cuts it
/// to the caps, then encodes it. Redaction comes first so that a secret the
/// text cap would cut in half is still recognised and removed whole.
fn finish(
    recording: &mut pagesnap_engine::recording::Recording,
    screenshot: Vec<u8>,
    caps: Caps,
    redact: bool,
) -> Result<(Vec<u8>, Vec<u8>)> {
    let mut screenshot = screenshot;
    if redact {
        let masks = pagesnap_engine::passes::redact_recording::redact_recording(recording);
        screenshot = pagesnap_engine::strategy::som::mask_screenshot(
            &screenshot,
            &recording.viewport,
            recording.scroll,
            &masks,
        )
        .context("blanking the redacted boxes of the screenshot")?;
    }
    caps::apply(recording, caps);
    Ok((recording.to_gz_bytes()?, screenshot))
}

/// The first state, then one after each scripted step.
async fn capture_states(
    session: &mut ChromiumSession,
    job: &Job,
) -> Result<Vec<(PathBuf, Captured)>> {
    let stems = job.stems();
    let mut states = Vec::with_capacity(stems.len());
    let mut stems = stems.into_iter();
    if let Some(stem) = stems.next() {
        states.push((stem, session.capture().await?));
    }
    for ((k, action), stem) in job.then.iter().enumerate().zip(stems) {
        session
            .apply(action)
            .await
            .with_context(|| format!("step {} of --then", k + 1))?;
        states.push((stem, session.capture().await?));
    }
    Ok(states)
}
