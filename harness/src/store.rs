//! Reading and writing recordings on disk: `<name>.json.gz` plus the `<name>.png` screenshot.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use pagesnap_engine::recording::Recording;

/// A decoded recording and its screenshot.
pub struct Loaded {
    /// The recording.
    pub recording: Recording,
    /// Its viewport PNG, when present (the `som` strategy needs it).
    pub screenshot: Option<Vec<u8>>,
}

/// Reads a recording (`<name>.json.gz`) and the screenshot beside it, if any.
pub fn load(path: &Path) -> Result<Loaded> {
    Ok(Loaded {
        recording: read(path)?,
        screenshot: screenshot_of(path),
    })
}

/// The screenshot beside a recording, if present.
pub fn screenshot_of(recording: &Path) -> Option<Vec<u8>> {
    let (_, png) = paths(recording);
    std::fs::read(png).ok()
}

/// Reads a recording; errors name the file and the offending field.
pub fn read(path: &Path) -> Result<Recording> {
    let bytes =
        std::fs::read(path).with_context(|| format!("could not read {}", path.display()))?;
    Ok(Recording::from_gz_bytes(
        &bytes,
        &path.display().to_string(),
    )?)
}

/// The `.json.gz` and `.png` paths for an output stem like `fixtures/login/initial`.
pub fn paths(stem: &Path) -> (PathBuf, PathBuf) {
    let stem = stem.to_string_lossy();
    let stem = stem.strip_suffix(".json.gz").unwrap_or(&stem);
    (
        PathBuf::from(format!("{stem}.json.gz")),
        PathBuf::from(format!("{stem}.png")),
    )
}

/// Writes a recording and its screenshot next to each other, atomically
/// (temp file + rename), creating the directory.
pub fn write(stem: &Path, recording: &Recording, screenshot: &[u8]) -> Result<(PathBuf, u64)> {
    write_state(stem, recording, Some(screenshot))
}

/// Writes a recording and, when there is one, its screenshot (a live
/// observation captures one only for a strategy that reads it).
pub fn write_state(
    stem: &Path,
    recording: &Recording,
    screenshot: Option<&[u8]>,
) -> Result<(PathBuf, u64)> {
    let (json, png) = paths(stem);
    if let Some(dir) = json.parent() {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("could not create {}", dir.display()))?;
    }
    let bytes = recording.to_gz_bytes()?;
    write_atomic(&json, &bytes)?;
    if let Some(screenshot) = screenshot {
        write_atomic(&png, screenshot)?;
    }
    Ok((json, bytes.len() as u64))
}

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes).with_context(|| format!("could not write {}", tmp.display()))?;
    std::fs::rename(&tmp, path)
        .with_context(|| format!("could not move {} into place", path.display()))
}

/// Every `*.json.gz` under the given files or directories, sorted.
pub fn find_recordings(inputs: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for input in inputs {
        if input.is_dir() {
            walk(input, &mut out)?;
        } else if input.exists() {
            out.push(input.clone());
        } else {
            anyhow::bail!("{}: no such file or directory", input.display());
        }
    }
    out.sort();
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("could not list {}", dir.display()))?;
    for entry in entries {
        let path = entry?.path();
        if path.is_dir() {
            walk(&path, out)?;
        } else if path.to_string_lossy().ends_with(".json.gz") {
            out.push(path);
        }
    }
    Ok(())
}
