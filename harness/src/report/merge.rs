//! Joining the folders of a sharded run (`pagesnap run --shard K/N`) into one run: rows checked against each other, the manifest made whole, every report written.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::steps;
use crate::results::manifest::{self, Manifest, Shard};
use crate::results::{Key, Row, jsonl};

use super::{Report, write_all};

/// Shards joined into one run.
pub struct Merged {
    /// The whole run, ready to be written (its manifest names no shard).
    pub report: Report,
    /// The shards the folders given lack, when they do not cover the suite.
    pub missing: Option<String>,
    /// Each row's step page (`steps/…`, relative) and the shard folder it is in.
    pub step_pages: Vec<(PathBuf, String)>,
}

/// Fails when `out` already holds rows: a merge goes into an empty folder.
pub fn ensure_empty(out: &Path) -> Result<()> {
    let merged_jsonl = out.join(jsonl::FILE);
    if merged_jsonl.exists() {
        bail!(
            "{} already exists: merge into an empty folder",
            merged_jsonl.display()
        );
    }
    Ok(())
}

/// Joins the shard folders: their manifests must describe the same run, and
/// a step found in two folders must have the same outcome in both.
pub fn join(shards: &[PathBuf]) -> Result<Merged> {
    let mut first: Option<(Manifest, &Path)> = None;
    let mut rows: BTreeMap<Key, (Row, &Path)> = BTreeMap::new();
    let mut shards_seen: Vec<Option<Shard>> = Vec::new();
    for dir in shards {
        let manifest = Manifest::read(dir)?;
        if manifest.live.is_some() {
            bail!(
                "{} holds a live run (pagesnap live), not an offline replay; merge replay shards with replay shards",
                dir.display()
            );
        }
        match &first {
            Some((base, base_dir)) => {
                manifest::check_compatible(base, base_dir, &manifest, dir)?;
                check_same_scheme(base, base_dir, &manifest, dir)?;
            }
            None => first = Some((manifest.clone(), dir)),
        }
        shards_seen.push(manifest.shard);
        for row in jsonl::read_rows::<Row>(&dir.join(jsonl::FILE))? {
            let key = row.key();
            if let Some((earlier, earlier_dir)) = rows.get(&key) {
                if !same_outcome(earlier, &row) {
                    bail!(
                        "task {:?} strategy {} step {} is in {} and in {} with different results",
                        key.0,
                        key.1,
                        key.2,
                        earlier_dir.join(jsonl::FILE).display(),
                        dir.join(jsonl::FILE).display()
                    );
                }
                continue;
            }
            rows.insert(key, (row, dir));
        }
    }
    let Some((mut manifest, _)) = first else {
        bail!("no shard folders given");
    };
    let missing = missing_shards(&manifest, &shards_seen, &rows);
    manifest.shard = None;
    let step_pages = rows
        .values()
        .map(|(row, dir)| {
            (
                dir.to_path_buf(),
                steps::relative(&row.task, &row.strategy, row.step),
            )
        })
        .collect();
    let rows: Vec<Row> = rows.into_values().map(|(row, _)| row).collect();
    Ok(Merged {
        report: Report::build(manifest, rows),
        missing,
        step_pages,
    })
}

/// Writes the merged run into `out`: `results.jsonl`, `run.json`, every
/// report, and the step pages (with their screenshots) the shards hold.
pub fn write(out: &Path, merged: &Merged) -> Result<()> {
    let report = &merged.report;
    std::fs::create_dir_all(out).with_context(|| format!("could not create {}", out.display()))?;
    jsonl::write(&out.join(jsonl::FILE), &report.rows)?;
    report.manifest.write(out)?;
    for (dir, page) in &merged.step_pages {
        let page = Path::new(page);
        for file in [page.to_path_buf(), page.with_extension("png")] {
            let from = dir.join(&file);
            if !from.is_file() {
                // Rows written before step pages existed, or a step without a screenshot.
                continue;
            }
            let to = out.join(&file);
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent)
                    .with_context(|| format!("could not create {}", parent.display()))?;
            }
            std::fs::copy(&from, &to).with_context(|| {
                format!("could not copy {} to {}", from.display(), to.display())
            })?;
        }
    }
    write_all(out, report)
}

/// Equal apart from wall-clock time (a step run twice takes different µs).
fn same_outcome(a: &Row, b: &Row) -> bool {
    let strip = |r: &Row| Row {
        analysis_us: 0,
        engine_us: 0,
        agent_us: 0,
        ..r.clone()
    };
    strip(a) == strip(b)
}

/// Refuses shards of two splits (`1/2` with `2/3`, or a shard with a whole
/// run): their tasks overlap and leave gaps no shard list can name, so the
/// merged run would read as complete when it is not.
pub(crate) fn check_same_scheme(
    first: &Manifest,
    first_dir: &Path,
    other: &Manifest,
    other_dir: &Path,
) -> Result<()> {
    let n = |m: &Manifest| m.shard.map_or(1, |s| s.n);
    let same = match (first.shard, other.shard) {
        (Some(a), Some(b)) => a.n == b.n,
        (None, None) => true,
        _ => false,
    };
    if !same {
        let show = |m: &Manifest| {
            m.shard
                .map_or("the whole suite".to_owned(), |s| format!("shard {s}"))
        };
        bail!(
            "cannot merge shards of different schemes: {} holds {} (split in {}) and {} holds {} \
             (split in {}); merge the shards of one --shard K/N split",
            first_dir.display(),
            show(first),
            n(first),
            other_dir.display(),
            show(other),
            n(other)
        );
    }
    Ok(())
}

/// Which shards are missing when the shards given do not cover the suite
/// (a warning, not a failure).
fn missing_shards(
    manifest: &Manifest,
    shards: &[Option<Shard>],
    rows: &BTreeMap<Key, (Row, &Path)>,
) -> Option<String> {
    if shards.iter().any(Option::is_none) {
        return None;
    }
    let n = shards.iter().flatten().map(|s| s.n).max()?;
    let missing: Vec<String> = (1..=n)
        .filter(|&k| !shards.iter().flatten().any(|s| s.k == k && s.n == n))
        .map(|k| format!("{k}/{n}"))
        .collect();
    let tasks_with_rows = manifest
        .tasks
        .iter()
        .filter(|t| rows.keys().any(|(task, _, _)| task == &t.id))
        .count();
    (!missing.is_empty()).then(|| {
        format!(
            "shard {} not given; the merged run covers {tasks_with_rows} of {} tasks",
            missing.join(", "),
            manifest.tasks.len()
        )
    })
}
