//! `run.json`: what a run covered (suite, agent, strategies, shard, tasks), so `merge`, `diff` and the report writers need no suite file.

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use anyhow::{Context, Result, bail};

use serde::{Deserialize, Serialize};

use crate::suite::Suite;
use crate::variant::{Variant, VariantInfo};

/// File name of the manifest inside a run folder.
pub const FILE: &str = "run.json";

/// The manifest of one run folder.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    /// pagesnap version that wrote it.
    pub pagesnap: String,
    /// Suite name.
    pub suite: String,
    /// Suite file as given on the command line.
    pub suite_path: String,
    /// Suite description.
    #[serde(default)]
    pub description: String,
    /// Agent name.
    pub agent: String,
    /// Strategies, in report order (variant names: `aria@2000`).
    pub strategies: Vec<String>,
    /// Each strategy's observation settings (token budget, viewport or
    /// whole page), in the same order; empty in runs that predate variants.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<VariantInfo>,
    /// The shard this folder holds (none: the whole suite).
    pub shard: Option<Shard>,
    /// Every task of the suite, in suite order (a shard runs a subset of them).
    pub tasks: Vec<TaskInfo>,
    /// A live run's settings (none: an offline replay).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub live: Option<LiveSettings>,
    /// The browsers a live run's workers drove, one per worker (written when
    /// the run ends; a resumed run may use others).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub browsers: Vec<BrowserInfo>,
}

/// What a live run's episodes depend on besides suite, agent and strategies.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct LiveSettings {
    /// `--episodes`: episodes per task and strategy (none: one per seed the suite lists).
    pub episodes: Option<usize>,
    /// `--seed`: the first seed (none: the suite's seeds).
    pub seed: Option<u64>,
    /// `--max-steps` (none: the suite's limits).
    pub max_steps: Option<usize>,
    /// The judges (`rule`, `llm:…`).
    pub judge: String,
    /// MiniWoB's `core.EPISODE_MAX_TIME` as set, ms (none: not a MiniWoB suite).
    pub episode_max_time_ms: Option<u64>,
}

/// A browser a live run drove.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
pub struct BrowserInfo {
    /// The `--cdp-endpoint` attached to (none: launched by pagesnap).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// The version the browser reports (`Chrome/156.0…`).
    pub version: String,
}

/// One task as the reports need it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TaskInfo {
    /// Task id.
    pub id: String,
    /// The instruction.
    pub instruction: String,
    /// Number of steps.
    pub steps: usize,
    /// The suite's categories for the task.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
}

impl Manifest {
    /// The manifest of a run of `suite` (read from `suite_path`) by `agent`
    /// under `strategies`, of `shard` (none: the whole suite).
    pub fn new(
        suite: &Suite,
        suite_path: &Path,
        agent: String,
        strategies: &[Variant],
        shard: Option<Shard>,
    ) -> Manifest {
        Manifest {
            pagesnap: env!("CARGO_PKG_VERSION").to_owned(),
            suite: suite.name.clone(),
            suite_path: suite_path.display().to_string(),
            description: suite.description.clone(),
            agent,
            strategies: strategies.iter().map(|s| s.name().to_owned()).collect(),
            variants: strategies.iter().map(Variant::info).collect(),
            shard,
            tasks: suite
                .tasks
                .iter()
                .map(|t| TaskInfo {
                    id: t.id.clone(),
                    instruction: t.instruction.clone(),
                    steps: t.steps.len(),
                    tags: t.tags.clone(),
                })
                .collect(),
            live: None,
            browsers: Vec::new(),
        }
    }

    /// Reads `<dir>/run.json`.
    pub fn read(dir: &Path) -> Result<Manifest> {
        let path = dir.join(FILE);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("could not read {}", path.display()))?;
        serde_json::from_str(&text)
            .with_context(|| format!("{} is not a run manifest", path.display()))
    }

    /// Writes `<dir>/run.json`.
    pub fn write(&self, dir: &Path) -> Result<()> {
        let path = dir.join(FILE);
        let mut json = serde_json::to_string_pretty(self)?;
        json.push('\n');
        std::fs::write(&path, json).with_context(|| format!("could not write {}", path.display()))
    }

    /// Checks that `--resume` continues the run this manifest describes: the
    /// same suite (name and tasks), agent, strategies and shard as the one
    /// `previous` (the folder's `run.json`) recorded. Rows of another run
    /// would otherwise be mixed into this run's metrics.
    pub fn check_resumes(&self, previous: &Manifest, dir: &Path) -> Result<()> {
        let path = dir.join(FILE);
        let differs = |field: &str, was: String, now: String| {
            anyhow::anyhow!(
                "cannot resume {}: `{field}` was {was} there, and is {now} now; \
                 rerun with the same options, or choose another --out",
                path.display()
            )
        };
        if self.suite != previous.suite {
            return Err(differs(
                "suite",
                quoted(&previous.suite),
                quoted(&self.suite),
            ));
        }
        if self.agent != previous.agent {
            return Err(differs(
                "agent",
                quoted(&previous.agent),
                quoted(&self.agent),
            ));
        }
        if self.strategies != previous.strategies {
            return Err(differs(
                "strategies",
                quoted(&previous.strategies.join(",")),
                quoted(&self.strategies.join(",")),
            ));
        }
        if self.shard != previous.shard {
            let shard =
                |s: Option<Shard>| s.map_or("the whole suite".to_owned(), |s| s.to_string());
            return Err(differs("shard", shard(previous.shard), shard(self.shard)));
        }
        if self.live != previous.live {
            let show = |l: &Option<LiveSettings>| {
                l.as_ref().map_or("an offline replay".to_owned(), |l| {
                    format!(
                        "episodes {:?}, seed {:?}, max steps {:?}, judge {:?}",
                        l.episodes, l.seed, l.max_steps, l.judge
                    )
                })
            };
            return Err(differs(
                "live settings",
                show(&previous.live),
                show(&self.live),
            ));
        }
        if self.tasks != previous.tasks {
            let changed = self
                .tasks
                .iter()
                .zip(&previous.tasks)
                .find(|(now, was)| now != was)
                .map_or_else(
                    || {
                        format!(
                            "{} tasks then, {} now",
                            previous.tasks.len(),
                            self.tasks.len()
                        )
                    },
                    |(now, _)| format!("task {:?} changed", now.id),
                );
            bail!(
                "cannot resume {}: the suite's tasks changed since that run ({changed}); \
                 choose another --out",
                path.display()
            );
        }
        Ok(())
    }

    /// Position of a task id in suite order.
    pub fn task_index(&self, id: &str) -> Option<usize> {
        self.tasks.iter().position(|t| t.id == id)
    }

    /// Position of a strategy in report order.
    pub fn strategy_index(&self, name: &str) -> Option<usize> {
        self.strategies.iter().position(|s| s == name)
    }
}

fn quoted(text: &str) -> String {
    format!("{text:?}")
}

/// `--shard K/N`: the tasks whose 0-based suite index `i` has `i % N == K - 1`.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Shard {
    /// Which shard, from 1.
    pub k: usize,
    /// How many shards.
    pub n: usize,
}

impl Shard {
    /// Whether the task at 0-based suite index `index` belongs to this shard.
    pub fn includes(self, index: usize) -> bool {
        index % self.n == self.k - 1
    }
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(text: &str) -> Result<Shard, String> {
        let bad = || format!("invalid shard {text:?}: expected K/N with 1 ≤ K ≤ N, e.g. 1/4");
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let k: usize = k.trim().parse().map_err(|_| bad())?;
        let n: usize = n.trim().parse().map_err(|_| bad())?;
        if k == 0 || n == 0 || k > n {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

/// Checks that two manifests describe the same suite, agent and strategies.
pub fn check_compatible(
    first: &Manifest,
    first_dir: &Path,
    other: &Manifest,
    other_dir: &Path,
) -> Result<()> {
    let fields: [(&str, String, String); 4] = [
        ("suite", first.suite.clone(), other.suite.clone()),
        ("agent", first.agent.clone(), other.agent.clone()),
        (
            "strategies",
            first.strategies.join(","),
            other.strategies.join(","),
        ),
        (
            "tasks",
            first
                .tasks
                .iter()
                .map(|t| t.id.as_str())
                .collect::<Vec<_>>()
                .join(","),
            other
                .tasks
                .iter()
                .map(|t| t.id.as_str())
                .collect::<Vec<_>>()
                .join(","),
        ),
    ];
    for (field, a, b) in fields {
        if a != b {
            bail!(
                "{} and {} differ in {field}: {a:?} vs {b:?}",
                first_dir.join(FILE).display(),
                other_dir.join(FILE).display()
            );
        }
    }
    if first.tasks != other.tasks {
        bail!(
            "{} and {} list the same task ids with different instructions or step counts",
            first_dir.join(FILE).display(),
            other_dir.join(FILE).display()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_parses_and_selects_round_robin() {
        let s: Shard = "2/3".parse().unwrap();
        assert_eq!(s, Shard { k: 2, n: 3 });
        let picked: Vec<usize> = (0..8).filter(|&i| s.includes(i)).collect();
        assert_eq!(picked, [1, 4, 7]);
        for bad in ["0/2", "3/2", "1/0", "x/2", "2", "1/2/3"] {
            let err = bad.parse::<Shard>().unwrap_err();
            assert!(err.contains(bad) && err.contains("1 ≤ K ≤ N"), "{err}");
        }
    }
}
