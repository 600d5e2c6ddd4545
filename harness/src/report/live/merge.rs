//! Joining the folders of a sharded live run (`pagesnap live --shard K/N`) into one run: manifests compared by name, episodes checked against each other, traces copied, every report written.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::LiveReport;
use crate::results::manifest::{self, Manifest, Shard};
use crate::results::{Episode, EpisodeKey, jsonl};

/// Live shards joined into one run.
pub struct Merged {
    /// The whole run (its manifest names no shard; its browsers are every
    /// shard's).
    pub report: LiveReport,
    /// The shards the folders given lack, when they do not cover the run.
    pub missing: Option<String>,
    /// Each episode's trace folder (relative) and the shard folder it is in.
    pub traces: Vec<(PathBuf, String)>,
}

/// Joins live shard folders. Their manifests must describe the same run
/// (suite, agent, strategies, tasks, live settings) split the same way; an
/// episode found in two folders is refused.
pub fn join(shards: &[PathBuf]) -> Result<Merged> {
    let mut first: Option<(Manifest, &Path)> = None;
    let mut episodes: BTreeMap<EpisodeKey, (Episode, &Path)> = BTreeMap::new();
    let mut seen: Vec<Option<Shard>> = Vec::new();
    let mut browsers = Vec::new();
    for dir in shards {
        let manifest = Manifest::read(dir)?;
        if manifest.live.is_none() {
            bail!(
                "{} holds an offline replay (pagesnap run), not a live run; merge live shards with live shards",
                dir.display()
            );
        }
        match &first {
            Some((base, base_dir)) => {
                manifest::check_compatible(base, base_dir, &manifest, dir)?;
                if manifest.live != base.live {
                    bail!(
                        "cannot merge {} with {}: their live settings differ ({:?} against {:?}); \
                         merge the shards of one run",
                        dir.display(),
                        base_dir.display(),
                        manifest.live,
                        base.live
                    );
                }
                crate::report::merge::check_same_scheme(base, base_dir, &manifest, dir)?;
                if let Some(shard) = manifest.shard
                    && seen.contains(&Some(shard))
                {
                    bail!(
                        "shard {shard} is given twice ({} is one of them)",
                        dir.display()
                    );
                }
            }
            None => first = Some((manifest.clone(), dir)),
        }
        seen.push(manifest.shard);
        browsers.extend(manifest.browsers.iter().cloned());
        for (key, episode) in jsonl::read_existing::<Episode>(&dir.join(jsonl::FILE))? {
            if let Some((_, earlier)) = episodes.get(&key) {
                bail!(
                    "task {:?} strategy {} episode {} is in {} and in {}: shards of one split never share an episode",
                    key.0,
                    key.1,
                    key.2,
                    earlier.display(),
                    dir.display()
                );
            }
            episodes.insert(key, (episode, dir));
        }
    }
    let Some((mut manifest, _)) = first else {
        bail!("no shard folders given");
    };
    let missing = missing(&seen);
    manifest.shard = None;
    browsers.sort();
    browsers.dedup();
    manifest.browsers = browsers;
    let traces = episodes
        .values()
        .map(|(episode, dir)| (dir.to_path_buf(), episode.trace.clone()))
        .collect();
    let episodes = episodes.into_values().map(|(e, _)| e).collect();
    Ok(Merged {
        report: LiveReport::build(manifest, episodes),
        missing,
        traces,
    })
}

/// The shards of the split not given (a warning: the merged run is partial).
fn missing(seen: &[Option<Shard>]) -> Option<String> {
    let n = seen.iter().flatten().map(|s| s.n).max()?;
    let missing: Vec<String> = (1..=n)
        .filter(|&k| !seen.iter().flatten().any(|s| s.k == k))
        .map(|k| format!("{k}/{n}"))
        .collect();
    (!missing.is_empty()).then(|| {
        format!(
            "shard {} not given; the merged run lacks their episodes",
            missing.join(", ")
        )
    })
}

/// Writes the merged run into `out`: `results.jsonl`, `run.json`, the
/// traces the shards hold and every report.
pub fn write(out: &Path, merged: &Merged) -> Result<()> {
    let report = &merged.report;
    std::fs::create_dir_all(out).with_context(|| format!("could not create {}", out.display()))?;
    jsonl::write(&out.join(jsonl::FILE), &report.episodes)?;
    report.manifest.write(out)?;
    for (dir, trace) in &merged.traces {
        let from = dir.join(trace);
        if from.is_dir() {
            copy_dir(&from, &out.join(trace))?;
        }
    }
    super::write_all(out, report)
}

fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("could not create {}", to.display()))?;
    for entry in
        std::fs::read_dir(from).with_context(|| format!("could not read {}", from.display()))?
    {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target).with_context(|| {
                format!(
                    "could not copy {} to {}",
                    entry.path().display(),
                    target.display()
                )
            })?;
        }
    }
    Ok(())
}
