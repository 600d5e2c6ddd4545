//! An episode's trace on disk: a recording of every state the agent saw (`state-01.json.gz`, …, `final.json.gz`, with the `.png` when the strategy captured one) and `trace.json`, the episode row with every action.
//!
//! `pagesnap trace-to-suite` turns traces into an offline suite whose steps
//! name these recordings, so a live run becomes a regression test.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::results::Episode;
use crate::store;
use pagesnap_browser::Captured;

/// File name of the episode row inside a trace folder.
pub const FILE: &str = "trace.json";

/// The trace folder of one episode.
pub struct Trace {
    dir: PathBuf,
}

impl Trace {
    /// Starts a trace in `dir`, removing what an interrupted run left there.
    pub fn create(dir: &Path) -> Result<Trace> {
        if dir.exists() {
            std::fs::remove_dir_all(dir)
                .with_context(|| format!("could not clear {}", dir.display()))?;
        }
        std::fs::create_dir_all(dir)
            .with_context(|| format!("could not create {}", dir.display()))?;
        Ok(Trace {
            dir: dir.to_path_buf(),
        })
    }

    /// The trace of `episode` under the run folder `out`, as it is on disk
    /// (nothing cleared), to write its row again.
    pub fn existing(out: &Path, episode: &Episode) -> Trace {
        Trace {
            dir: out.join(&episode.trace),
        }
    }

    /// The recording name of the state step `n` acted on: `state-01`.
    pub fn state_name(n: usize) -> String {
        format!("state-{n:02}")
    }

    /// Writes one state.
    pub fn state(&mut self, name: &str, captured: &Captured) -> Result<()> {
        store::write_state(
            &self.dir.join(name),
            &captured.recording,
            captured.screenshot.as_deref(),
        )?;
        Ok(())
    }

    /// Writes `trace.json`.
    pub fn finish(&self, episode: &Episode) -> Result<()> {
        let path = self.dir.join(FILE);
        let mut json = serde_json::to_string_pretty(episode)?;
        json.push('\n');
        std::fs::write(&path, json).with_context(|| format!("could not write {}", path.display()))
    }
}
