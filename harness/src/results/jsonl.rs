//! `results.jsonl`: one result row per line, appended and flushed as each row finishes, read back to resume, merge or report.
//!
//! Generic over the row type ([`Keyed`]): the offline runner writes one
//! [`Row`] per step, the live runner one episode per line.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

use anyhow::{Context, Result};

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::row::{Key, Row};

/// A row that knows its place in a run, so a resumed run can skip it.
pub trait Keyed: Serialize + DeserializeOwned {
    /// What identifies the row in its run.
    type Key: Ord;
    /// The row's key.
    fn key(&self) -> Self::Key;
}

impl Keyed for Row {
    type Key = Key;
    fn key(&self) -> Key {
        Row::key(self)
    }
}

/// File name of the rows inside a run folder.
pub const FILE: &str = "results.jsonl";

/// Reads a finished run's `results.jsonl` (every line must parse).
pub fn read_rows<R: Keyed>(path: &Path) -> Result<Vec<R>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("could not read {}", path.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            serde_json::from_str(line)
                .with_context(|| format!("{}:{}: not a result row", path.display(), i + 1))
        })
        .collect()
}

/// Complete, parseable lines of an earlier run; the file is rewritten with
/// them so a line cut by a kill does not corrupt the next append.
pub fn read_existing<R: Keyed>(path: &Path) -> Result<BTreeMap<R::Key, R>> {
    let mut rows = BTreeMap::new();
    if !path.exists() {
        return Ok(rows);
    }
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("could not read {}", path.display()))?;
    let mut kept = String::new();
    for line in text.split_inclusive('\n') {
        if !line.ends_with('\n') {
            continue;
        }
        if let Ok(row) = serde_json::from_str::<R>(line) {
            kept.push_str(line);
            rows.insert(row.key(), row);
        }
    }
    std::fs::write(path, kept).with_context(|| format!("could not rewrite {}", path.display()))?;
    Ok(rows)
}

/// Writes `rows`, one per line, replacing the file.
pub fn write<R: Serialize>(path: &Path, rows: &[R]) -> Result<()> {
    let mut jsonl = String::new();
    for row in rows {
        jsonl.push_str(&serde_json::to_string(row)?);
        jsonl.push('\n');
    }
    std::fs::write(path, jsonl).with_context(|| format!("could not write {}", path.display()))
}

/// Appends rows as they are produced, from any thread; each row is one
/// complete, flushed line, so a killed run leaves at most one cut line.
pub struct Appender {
    file: Mutex<File>,
}

impl Appender {
    /// Opens `path` for appending, creating it.
    pub fn open(path: &Path) -> Result<Appender> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("could not open {}", path.display()))?;
        Ok(Appender {
            file: Mutex::new(file),
        })
    }

    /// Appends one row and flushes it.
    pub fn append<R: Serialize>(&self, row: &R) -> Result<()> {
        let line = serde_json::to_string(row)?;
        // A writer that panicked cannot leave a line half-written: each line is one call.
        let mut file = self
            .file
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        writeln!(file, "{line}").context("could not append to results.jsonl")?;
        file.flush().context("could not flush results.jsonl")
    }
}
