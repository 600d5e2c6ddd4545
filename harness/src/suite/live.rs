//! Live suites: tasks an agent performs on a real page, whose success the page decides — MiniWoB++ task pages (their own reward) or pages of a folder with a JavaScript predicate.
//!
//! ```toml
//! [suite]
//! name = "live-fixtures"
//! source = "../fixtures/sites"     # a folder served over http://127.0.0.1, or "miniwob"
//! max_steps = 10                   # default step limit of an episode
//! seeds = [0, 1, 2]                # episode i of a task uses seeds[i]
//! # episode_max_time_ms = 600000   # miniwob: core.EPISODE_MAX_TIME
//!
//! [[task]]
//! id = "bank-transfer"
//! page = "bank_form/index.html"    # under `source`; miniwob: the task name
//! instruction = "…"                # folder sources (miniwob reads core.getUtterance())
//! success = "JS expression"        # folder sources: truthy at the end = success
//! tags = ["form"]
//! tier = "medium"
//! max_steps = 8
//! ```
//!
//! `source = "miniwob"` serves the `html/` folder of the PyPI package
//! `miniwob` (found with `$PAGESNAP_MINIWOB` or the `python3` that has the
//! package); its tasks take no `instruction` or `success`: the page gives
//! both. Every error names the file, the line and the task.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use serde::Deserialize;
use toml::Spanned;

use super::line_of;

/// The MiniWoB++ episode limit pagesnap sets when a suite does not: 10 minutes,
/// so a slow model is not what fails a task (MiniWoB's own default is 10 s).
pub const DEFAULT_EPISODE_MAX_TIME_MS: u64 = 600_000;

/// A loaded, checked live suite.
#[derive(Clone, Debug)]
pub struct LiveSuite {
    /// Suite name.
    pub name: String,
    /// What it covers.
    pub description: String,
    /// Where the pages come from.
    pub source: Source,
    /// Tasks in file order.
    pub tasks: Vec<LiveTask>,
}

/// Where a live suite's pages come from; both are served over 127.0.0.1.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// The `miniwob` package's `html/` folder; pages are `miniwob/<task>.html`.
    MiniWob {
        /// The `html/` folder.
        root: PathBuf,
        /// `core.EPISODE_MAX_TIME` set before each episode.
        episode_max_time_ms: u64,
    },
    /// A folder of pages; success is each task's predicate.
    Folder {
        /// The folder.
        root: PathBuf,
    },
}

impl Source {
    /// The folder served.
    pub fn root(&self) -> &Path {
        match self {
            Source::MiniWob { root, .. } | Source::Folder { root } => root,
        }
    }
}

/// One live task.
#[derive(Clone, Debug, PartialEq)]
pub struct LiveTask {
    /// Unique id.
    pub id: String,
    /// The page's path under the served folder (`miniwob/click-button.html`).
    pub path: String,
    /// The instruction (folder sources; MiniWoB's comes from the page).
    pub instruction: Option<String>,
    /// The success predicate (folder sources).
    pub success: Option<String>,
    /// Categories for the reports.
    pub tags: Vec<String>,
    /// Difficulty tier for the reports.
    pub tier: String,
    /// Step limit of an episode.
    pub max_steps: usize,
    /// Seeds of the episodes, in order.
    pub seeds: Vec<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileDef {
    suite: HeaderDef,
    #[serde(default, rename = "task")]
    tasks: Vec<Spanned<TaskDef>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HeaderDef {
    name: String,
    #[serde(default)]
    description: String,
    source: Spanned<String>,
    #[serde(default)]
    episode_max_time_ms: Option<u64>,
    #[serde(default)]
    max_steps: Option<usize>,
    #[serde(default)]
    seeds: Option<Vec<u64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TaskDef {
    id: String,
    page: String,
    #[serde(default)]
    instruction: Option<String>,
    #[serde(default)]
    success: Option<String>,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    tier: Option<String>,
    #[serde(default)]
    max_steps: Option<usize>,
    #[serde(default)]
    seeds: Option<Vec<u64>>,
}

/// Step limit when neither the task nor the suite sets one.
const DEFAULT_MAX_STEPS: usize = 10;

/// Whether the file at `path` is a live suite (its `[suite]` has a `source`).
pub fn is_live(path: &Path) -> bool {
    #[derive(Deserialize)]
    struct File {
        suite: Header,
    }
    #[derive(Deserialize)]
    struct Header {
        source: Option<toml::Value>,
    }
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| toml::from_str::<File>(&text).ok())
        .is_some_and(|file| file.suite.source.is_some())
}

/// Loads and checks a live suite.
pub fn load(path: &Path) -> Result<LiveSuite> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("could not read {}", path.display()))?;
    let file: FileDef =
        toml::from_str(&text).map_err(|err| anyhow::anyhow!("{}: {err}", path.display()))?;
    let header = file.suite;
    let source_at = format!(
        "{}:{}",
        path.display(),
        line_of(&text, header.source.span().start)
    );
    let source = match header.source.get_ref().as_str() {
        "miniwob" => Source::MiniWob {
            root: miniwob_html().with_context(|| source_at.clone())?,
            episode_max_time_ms: header
                .episode_max_time_ms
                .unwrap_or(DEFAULT_EPISODE_MAX_TIME_MS),
        },
        folder => {
            if header.episode_max_time_ms.is_some() {
                bail!("{source_at}: episode_max_time_ms is for source = \"miniwob\" only");
            }
            let root = path.parent().unwrap_or(Path::new(".")).join(folder);
            if !root.is_dir() {
                bail!(
                    "{source_at}: source folder {} does not exist (expected a folder of pages relative to the suite file, or \"miniwob\")",
                    root.display()
                );
            }
            Source::Folder { root }
        }
    };
    let default_steps = header.max_steps.unwrap_or(DEFAULT_MAX_STEPS);
    let default_seeds = header.seeds.unwrap_or_else(|| vec![0]);
    if default_seeds.is_empty() {
        bail!("{}: [suite] seeds is empty", path.display());
    }
    let mut tasks: Vec<LiveTask> = Vec::new();
    for task in file.tasks {
        let line = line_of(&text, task.span().start);
        let task = task.into_inner();
        let at = format!("{}:{line}: task {:?}", path.display(), task.id);
        if tasks.iter().any(|t| t.id == task.id) {
            bail!("{at}: duplicate task id");
        }
        let plain = Path::new(&task.page)
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
        if !plain || task.page.is_empty() {
            bail!(
                "{at}: page {:?} must be a relative path inside the source",
                task.page
            );
        }
        let path = match &source {
            Source::MiniWob { .. } => {
                if task.instruction.is_some() || task.success.is_some() {
                    bail!(
                        "{at}: a MiniWoB task takes no instruction or success: the page gives its utterance and reward"
                    );
                }
                format!("miniwob/{}.html", task.page.trim_end_matches(".html"))
            }
            Source::Folder { .. } => {
                if task
                    .instruction
                    .as_deref()
                    .is_none_or(|i| i.trim().is_empty())
                {
                    bail!("{at}: needs an instruction");
                }
                if task.success.as_deref().is_none_or(|s| s.trim().is_empty()) {
                    bail!("{at}: needs a success predicate (a JavaScript expression)");
                }
                task.page.clone()
            }
        };
        let file = source.root().join(&path);
        if !file.is_file() {
            bail!("{at}: page {} does not exist", file.display());
        }
        let max_steps = task.max_steps.unwrap_or(default_steps);
        if max_steps == 0 {
            bail!("{at}: max_steps must be at least 1");
        }
        super::check_tags(&task.tags, &at)?;
        let seeds = task.seeds.unwrap_or_else(|| default_seeds.clone());
        if seeds.is_empty() {
            bail!("{at}: seeds is empty");
        }
        tasks.push(LiveTask {
            id: task.id,
            path,
            instruction: task.instruction,
            success: task.success,
            tags: task.tags,
            tier: task.tier.unwrap_or_else(|| "untiered".to_owned()),
            max_steps,
            seeds,
        });
    }
    if tasks.is_empty() {
        bail!("{}: the suite has no [[task]]", path.display());
    }
    Ok(LiveSuite {
        name: header.name,
        description: header.description,
        source,
        tasks,
    })
}

/// Where `scripts/setup` installs the `miniwob` package (`pip --target`), under `$HOME`.
pub const MINIWOB_HOME: &str = ".cache/pagesnap/miniwob-1.1.0";

/// The `html/` folder of the `miniwob` package: `$PAGESNAP_MINIWOB`, else
/// where `scripts/setup` installs it (`~/.cache/pagesnap/miniwob-1.1.0`), else
/// asked of `python3`.
pub fn miniwob_html() -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os("PAGESNAP_MINIWOB") {
        let dir = PathBuf::from(dir);
        if !dir.join("core/core.js").is_file() {
            bail!(
                "PAGESNAP_MINIWOB={} is not the miniwob package's html/ folder (no core/core.js)",
                dir.display()
            );
        }
        return Ok(dir);
    }
    if let Some(home) = std::env::var_os("HOME") {
        let dir = PathBuf::from(home).join(MINIWOB_HOME).join("miniwob/html");
        if dir.join("core/core.js").is_file() {
            return Ok(dir);
        }
    }
    // find_spec locates the package without importing it (its __init__
    // imports gymnasium, which pagesnap does not need).
    let script = "import importlib.util, os, sys\n\
                  s = importlib.util.find_spec('miniwob')\n\
                  sys.stdout.write(os.path.join(list(s.submodule_search_locations)[0], 'html') if s else '')";
    let output = Command::new("python3").args(["-c", script]).output();
    let dir = match output {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).trim().to_owned(),
        _ => String::new(),
    };
    let dir = PathBuf::from(dir);
    if dir.as_os_str().is_empty() || !dir.join("core/core.js").is_file() {
        bail!(
            "the MiniWoB++ pages were not found: install them with `scripts/setup` (PyPI miniwob 1.1.0 into \
             ~/{MINIWOB_HOME}) or set PAGESNAP_MINIWOB to the package's html/ folder"
        );
    }
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, text: &str) -> PathBuf {
        let path = dir.join("s.toml");
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn loads_a_folder_suite_with_defaults() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("site")).unwrap();
        std::fs::write(dir.path().join("site/a.html"), "<p>a</p>").unwrap();
        let path = write(
            dir.path(),
            "[suite]\nname = \"x\"\nsource = \"site\"\nseeds = [4, 5]\n\n[[task]]\nid = \"t\"\npage = \"a.html\"\ninstruction = \"Click A\"\nsuccess = \"true\"\n",
        );
        let suite = load(&path).unwrap();
        assert_eq!(suite.tasks[0].path, "a.html");
        assert_eq!(suite.tasks[0].seeds, vec![4, 5]);
        assert_eq!(suite.tasks[0].max_steps, DEFAULT_MAX_STEPS);
        assert!(is_live(&path));
    }

    #[test]
    fn errors_name_the_line_and_the_task() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("site")).unwrap();
        let path = write(
            dir.path(),
            "[suite]\nname = \"x\"\nsource = \"site\"\n\n[[task]]\nid = \"t\"\npage = \"missing.html\"\ninstruction = \"Click A\"\nsuccess = \"true\"\n",
        );
        let err = format!("{:#}", load(&path).unwrap_err());
        assert!(
            err.contains("s.toml:5: task \"t\"") && err.contains("missing.html"),
            "{err}"
        );
        let path = write(
            dir.path(),
            "[suite]\nname = \"x\"\nsource = \"site\"\n\n[[task]]\nid = \"t\"\npage = \"../x.html\"\ninstruction = \"Click A\"\nsuccess = \"true\"\n",
        );
        assert!(format!("{:#}", load(&path).unwrap_err()).contains("relative path inside"));
        let path = write(
            dir.path(),
            "[suite]\nname = \"x\"\nsource = \"nowhere\"\n\n[[task]]\nid = \"t\"\npage = \"a.html\"\n",
        );
        let err = format!("{:#}", load(&path).unwrap_err());
        assert!(err.contains("s.toml:3") && err.contains("nowhere"), "{err}");
    }
}
