//! A run folder as both runners open it: started or resumed, its manifest written, rows appended as they finish (the command holds its [`OutLock`](super::OutLock) from before it loads anything into the folder until its reports are written).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Serialize;

use super::jsonl::{self, Appender, Keyed};
use super::manifest::{self, Manifest};

/// An open run folder.
pub struct RunFolder {
    out: PathBuf,
    sink: Appender,
}

impl RunFolder {
    /// Creates `out` and starts a run there — refusing a folder
    /// that already holds rows — or, with `resume`, continues one: the
    /// earlier manifest must describe the same run, and the rows it holds
    /// are returned so the runner skips them. `manifest` is written either way.
    pub fn open<R: Keyed>(
        out: &Path,
        manifest: &Manifest,
        resume: bool,
    ) -> Result<(RunFolder, BTreeMap<R::Key, R>)> {
        std::fs::create_dir_all(out)
            .with_context(|| format!("could not create {}", out.display()))?;
        let rows = out.join(jsonl::FILE);
        let existing = if resume {
            if out.join(manifest::FILE).exists() {
                manifest.check_resumes(&Manifest::read(out)?, out)?;
            }
            jsonl::read_existing::<R>(&rows)?
        } else if rows.exists() {
            bail!(
                "{} already exists (use --resume to continue that run, or another --out)",
                rows.display()
            );
        } else {
            BTreeMap::new()
        };
        manifest.write(out)?;
        let sink = Appender::open(&rows)?;
        Ok((
            RunFolder {
                out: out.to_owned(),
                sink,
            },
            existing,
        ))
    }

    /// Appends one finished row (a step, an episode) to `results.jsonl`.
    pub fn append<R: Serialize>(&self, row: &R) -> Result<()> {
        self.sink.append(row)
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.out
    }
}
