//! Reading and writing recordings on disk: `<name>.json.gz` plus the `<name>.png` screenshot.

use std::collections::BTreeSet;
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
    let bytes = recording.to_gz_bytes()?;
    write_encoded(stem, &bytes, screenshot)
}

/// Writes an already encoded recording (`.json.gz` bytes) and its screenshot.
pub fn write_encoded(
    stem: &Path,
    bytes: &[u8],
    screenshot: Option<&[u8]>,
) -> Result<(PathBuf, u64)> {
    let (json, png) = paths(stem);
    if let Some(dir) = json.parent() {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("could not create {}", dir.display()))?;
    }
    write_atomic(&json, bytes)?;
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

/// Every `*.json.gz` under the given files or directories, sorted; each
/// real file once (see [`walk_files`]).
pub fn find_recordings(inputs: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut walk = Walk::default();
    for input in inputs {
        if input.is_dir() {
            walk.dir(input, &|p| p.to_string_lossy().ends_with(".json.gz"))?;
        } else if input.exists() {
            walk.file(input.clone())?;
        } else {
            anyhow::bail!("{}: no such file or directory", input.display());
        }
    }
    Ok(walk.finish())
}

/// Every file under `dir` that `keep` accepts, sorted. Symbolic links are
/// followed, but each real (canonical) directory is entered once and each real
/// file listed once, under the first path that reaches it in sorted order: a
/// link loop such as `s1 -> .` neither recurses forever nor lists a file again.
pub fn walk_files(dir: &Path, keep: &dyn Fn(&Path) -> bool) -> Result<Vec<PathBuf>> {
    let mut walk = Walk::default();
    walk.dir(dir, keep)?;
    Ok(walk.finish())
}

/// The state of one walk: the real paths already seen.
#[derive(Default)]
struct Walk {
    dirs: BTreeSet<PathBuf>,
    files: BTreeSet<PathBuf>,
    out: Vec<PathBuf>,
}

impl Walk {
    fn dir(&mut self, dir: &Path, keep: &dyn Fn(&Path) -> bool) -> Result<()> {
        let real = std::fs::canonicalize(dir)
            .with_context(|| format!("could not resolve {}", dir.display()))?;
        if !self.dirs.insert(real) {
            return Ok(());
        }
        let mut paths = std::fs::read_dir(dir)
            .with_context(|| format!("could not list {}", dir.display()))?
            .map(|entry| entry.map(|e| e.path()))
            .collect::<std::io::Result<Vec<_>>>()
            .with_context(|| format!("could not list {}", dir.display()))?;
        // Sorted, so which of several paths to one file is kept does not
        // depend on the order the file system lists them in.
        paths.sort();
        for path in paths {
            if path.is_dir() {
                self.dir(&path, keep)?;
            } else if keep(&path) {
                self.file(path)?;
            }
        }
        Ok(())
    }

    fn file(&mut self, path: PathBuf) -> Result<()> {
        let real = std::fs::canonicalize(&path)
            .with_context(|| format!("could not resolve {}", path.display()))?;
        if self.files.insert(real) {
            self.out.push(path);
        }
        Ok(())
    }

    fn finish(mut self) -> Vec<PathBuf> {
        self.out.sort();
        self.out
    }
}
