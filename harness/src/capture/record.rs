//! Recording one page into the store: open it, capture it, apply each scripted step and capture again, write every state as `<out>`, `<out>.step1`, ….

use std::path::PathBuf;

use anyhow::{Context, Result};

use super::{Action, Capture, Chromium, OpenOptions};
use crate::store;

/// One page to record.
pub struct Job {
    /// URL or local file, as given.
    pub target: String,
    /// Output stem of the first state (`fixtures/login/initial`).
    pub out: PathBuf,
    /// Viewport, scroll, wait and load limit.
    pub options: OpenOptions,
    /// Scripted steps, each followed by a capture (`--then`).
    pub then: Vec<Action>,
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
}

/// Records `job` in `chromium` and writes every state (recording, then
/// screenshot: a recording without its screenshot is not complete).
pub async fn record(chromium: &Chromium, job: &Job) -> Result<Vec<Written>> {
    let mut session = chromium.open(&job.target, &job.options).await?;
    let stems = job.stems();
    let mut states = vec![(&stems[0], session.capture().await?)];
    for ((k, action), stem) in job.then.iter().enumerate().zip(&stems[1..]) {
        session
            .apply(action)
            .await
            .with_context(|| format!("step {} of --then", k + 1))?;
        states.push((stem, session.capture().await?));
    }
    states
        .iter()
        .map(|(stem, captured)| {
            // `Capture::capture` takes everything `Needs::RECORD` names, the screenshot included.
            let screenshot = captured
                .screenshot
                .as_deref()
                .context("internal: a recording was captured without its screenshot")?;
            let (path, bytes) = store::write(stem, &captured.recording, screenshot)?;
            Ok(Written {
                path,
                bytes,
                nodes: captured.recording.nodes.len(),
            })
        })
        .collect()
}
