//! Task suites: the TOML schema and its loader.
//!
//! A suite is a list of tasks; a task is an instruction and one or more
//! steps; a step is a recorded page and the action expected on it.
//!
//! ```toml
//! [suite]
//! name = "smoke"
//! description = "Offline tasks over the fixture recordings."
//!
//! [[task]]
//! id = "login-sign-in"
//! instruction = "Click the Sign in button"
//! tags = ["form"]                      # categories the report breaks results down by
//!
//! [[task.step]]
//! recording = "login/initial"          # fixtures/login/initial.json.gz
//! op = "click"                         # click | type | select | scroll | done
//! target = { role = "button", name = "Sign in" }   # or { selector = "#sign-in" }
//! # value = "…"                        # required for type and select
//! # alternatives = [ { selector = "#other" } ]    # also accepted
//! ```
//!
//! Rules the loader checks, each error naming `file:line`, the task id and the
//! step number: unknown keys (`deny_unknown_fields`), an unknown op, a missing
//! `value` for `type`/`select` (and a `value` elsewhere), a missing `target`
//! for `click`/`type`/`select`, a recording that does not exist, a selector
//! that does not parse, and a target (selector or role + name) that matches no
//! element — or more than one — in its recording, and a tag that is empty, not
//! `[a-z0-9-]` or given twice. Role + name compare the
//! engine's computed role and accessible name (whitespace-normalised,
//! case-insensitive). Task ids must be unique.
//!
//! A suite over real pages sets `pages = "../../shared/corpus"` in `[suite]`
//! (a folder, relative to the suite file): its steps then name HTML files
//! under it (`recording = "readability/bbc-1"` is
//! `<pages>/readability/bbc-1.html`), which are recorded once each at run
//! time into a cache folder (`pagesnap run --recordings DIR`, default
//! `<out>/recordings`; pages already there are reused) before the checks
//! above run on the fresh recordings (see [`pages`]):
//!
//! ```toml
//! [suite]
//! name = "corpus"
//! pages = "../../shared/corpus"
//!
//! [[task]]
//! id = "bbc-sign-in"
//! instruction = "Click the Sign in link"
//!
//! [[task.step]]
//! recording = "readability/bbc-1"      # ../../shared/corpus/readability/bbc-1.html
//! op = "click"
//! target = { role = "link", name = "Sign in" }
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use pagesnap_engine::analyze::Analyzed;
use pagesnap_engine::page::{NodeId, Page, Selector};
use rayon::prelude::*;
use serde::Deserialize;
use toml::Spanned;

use crate::agent::Op;
use crate::observe;
use crate::store::{self, Loaded};

pub mod live;
pub mod pages;

/// A loaded, checked suite.
pub struct Suite {
    /// Suite name.
    pub name: String,
    /// What it covers.
    pub description: String,
    /// Tasks in file order.
    pub tasks: Vec<Task>,
    /// Every recording the suite names, decoded and analysed once for the
    /// whole run (key: `login/fill.step1`).
    pub recordings: BTreeMap<String, StepPage>,
}

/// A recording a suite names, analysed once: the expected targets are
/// resolved on this page, and every strategy of every task renders it, so
/// node ids mean the same thing everywhere in a run.
pub struct StepPage {
    /// The analysed page and what building and analysing it cost.
    pub analysed: observe::Analysed,
    /// Its viewport PNG, when present (the `som` strategy needs it).
    pub screenshot: Option<Vec<u8>>,
}

/// One task.
pub struct Task {
    /// Unique id.
    pub id: String,
    /// What the agent is asked to do.
    pub instruction: String,
    /// Categories (`modal`, `iframe`, `below-fold`) results are broken down by.
    pub tags: Vec<String>,
    /// Steps in order.
    pub steps: Vec<Step>,
}

/// One expected step.
pub struct Step {
    /// Recording key relative to the fixtures folder, without `.json.gz`.
    pub recording: String,
    /// Expected operation.
    pub op: Op,
    /// The expected target as written (`#id`, `button "Sign in"`), for reports.
    pub target: String,
    /// Expected value (type / select).
    pub value: Option<String>,
    /// Nodes accepted as the element: the target and the alternatives (a node
    /// inside one of them is accepted too).
    pub accept: Vec<NodeId>,
}

impl Step {
    /// Whether acting on `node` hits the expected element.
    pub fn accepts(&self, page: &Page, node: NodeId) -> bool {
        self.accept.iter().any(|&a| page.contains(a, node))
    }
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
    /// Folder of HTML pages recorded at run time, relative to the suite file.
    #[serde(default)]
    pages: Option<Spanned<String>>,
    /// Folder the steps' recordings are relative to, relative to the suite
    /// file (a suite made by `pagesnap trace-to-suite` names its live run).
    #[serde(default)]
    recordings: Option<Spanned<String>>,
    /// Token budget of every observation (see [`observe_defaults`]).
    #[serde(default)]
    #[allow(
        dead_code,
        reason = "read by `observe_defaults`; declared here so the loader accepts it"
    )]
    max_tokens: Option<usize>,
    /// Whole page (`true`) or viewport only (`false`) for every strategy.
    #[serde(default)]
    #[allow(
        dead_code,
        reason = "read by `observe_defaults`; declared here so the loader accepts it"
    )]
    full_page: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TaskDef {
    id: String,
    instruction: String,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default, rename = "step")]
    steps: Vec<Spanned<StepDef>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StepDef {
    recording: String,
    op: String,
    #[serde(default)]
    target: Option<TargetDef>,
    #[serde(default)]
    value: Option<String>,
    #[serde(default)]
    alternatives: Vec<TargetDef>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TargetDef {
    selector: Option<String>,
    role: Option<String>,
    name: Option<String>,
    /// The CDP backend node id recorded with the node (traces of live runs).
    backend_id: Option<u64>,
}

/// The `[suite] name` of a suite file, read without loading its tasks or
/// recording its pages.
pub fn name_of(path: &Path) -> Result<String> {
    #[derive(Deserialize)]
    struct File {
        suite: Header,
    }
    #[derive(Deserialize)]
    struct Header {
        name: String,
    }
    let file: File = parse(path, &read(path)?)?;
    Ok(file.suite.name)
}

/// What the suite's `[suite]` sets for every observation of a run
/// (`max_tokens = 4000`, `full_page = false`); run flags and strategy
/// modifiers (`aria@2000`) override it.
pub fn observe_defaults(path: &Path) -> Result<crate::variant::Defaults> {
    #[derive(Deserialize)]
    struct File {
        suite: Header,
    }
    #[derive(Deserialize)]
    struct Header {
        #[serde(default)]
        max_tokens: Option<usize>,
        #[serde(default)]
        full_page: Option<bool>,
    }
    let file: File = parse(path, &read(path)?)?;
    if file.suite.max_tokens == Some(0) {
        bail!(
            "{}: [suite] max_tokens must be a positive number",
            path.display()
        );
    }
    Ok(crate::variant::Defaults {
        max_tokens: file.suite.max_tokens,
        full_page: file.suite.full_page,
        show_hidden: false,
    })
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("could not read {}", path.display()))
}

/// Parses a suite file; toml's error Display already carries `line N,
/// column M` and the snippet.
fn parse<T: serde::de::DeserializeOwned>(path: &Path, source: &str) -> Result<T> {
    toml::from_str(source).map_err(|err| anyhow::anyhow!("{}: {err}", path.display()))
}

/// A task's first target on a page of a `pages` suite, as written (role and
/// name), for a benchmark that asks whether an observation of the live page
/// offers it.
#[derive(Clone, Debug)]
pub struct PageTarget {
    /// The task id.
    pub task: String,
    /// The HTML page of the task's first step.
    pub page: PathBuf,
    /// The target's role.
    pub role: String,
    /// The target's accessible name.
    pub name: String,
}

/// The first step's role + name target of every task of a suite over real
/// pages (`[suite] pages`), read without recording the pages; tasks whose
/// first step has no role + name target (a selector, `done`) are left out.
pub fn page_targets(path: &Path) -> Result<Vec<PageTarget>> {
    let source = read(path)?;
    let file: FileDef = parse(path, &source)?;
    let Some(pages) = &file.suite.pages else {
        bail!(
            "{}: not a suite over pages ([suite] pages = \"…\" names the folder of its HTML pages)",
            path.display()
        );
    };
    let folder = path
        .parent()
        .unwrap_or(Path::new("."))
        .join(pages.get_ref());
    let mut targets = Vec::new();
    for task in &file.tasks {
        let task = task.get_ref();
        let Some(step) = task.steps.first().map(Spanned::get_ref) else {
            continue;
        };
        let Some(TargetDef {
            role: Some(role),
            name: Some(name),
            ..
        }) = &step.target
        else {
            continue;
        };
        let page = folder.join(format!("{}.html", step.recording));
        if !page.is_file() {
            bail!(
                "{}: task {}: page {} does not exist",
                path.display(),
                task.id,
                page.display()
            );
        }
        targets.push(PageTarget {
            task: task.id.clone(),
            page,
            role: role.clone(),
            name: name.clone(),
        });
    }
    Ok(targets)
}

/// Loads and checks a suite; recordings are read from `fixtures`, or, for a
/// suite with `pages`, recorded into and read from `cache` (which it needs).
pub fn load(path: &Path, fixtures: &Path, cache: Option<&Path>) -> Result<Suite> {
    let source = read(path)?;
    let file: FileDef = parse(path, &source)?;
    let recorded_into;
    let named;
    let fixtures = match &file.suite.pages {
        None => match &file.suite.recordings {
            None => fixtures,
            Some(folder) => {
                let at = format!(
                    "{}:{}",
                    path.display(),
                    line_of(&source, folder.span().start)
                );
                named = path
                    .parent()
                    .unwrap_or(Path::new("."))
                    .join(folder.get_ref());
                if !named.is_dir() {
                    bail!("{at}: recordings folder {} does not exist", named.display());
                }
                named.as_path()
            }
        },
        Some(_) if file.suite.recordings.is_some() => {
            bail!(
                "{}: [suite] takes `pages` or `recordings`, not both",
                path.display()
            );
        }
        Some(pages) => {
            let at = format!(
                "{}:{}",
                path.display(),
                line_of(&source, pages.span().start)
            );
            let folder = path
                .parent()
                .unwrap_or(Path::new("."))
                .join(pages.get_ref());
            if !folder.is_dir() {
                bail!("{at}: pages folder {} does not exist", folder.display());
            }
            let Some(cache) = cache else {
                bail!("{at}: a suite with `pages` needs a folder to record them into");
            };
            pages::record_missing(&folder, cache, &wanted_pages(&source, path, &file)?)?;
            recorded_into = cache.to_path_buf();
            recorded_into.as_path()
        }
    };
    let recordings = load_recordings(&source, path, &file, fixtures)?;
    let mut tasks = Vec::new();
    let mut seen = BTreeMap::new();
    for task in file.tasks {
        let task_line = line_of(&source, task.span().start);
        let task = task.into_inner();
        let here = format!("{}:{task_line}: task {:?}", path.display(), task.id);
        if let Some(first) = seen.insert(task.id.clone(), task_line) {
            bail!("{here}: duplicate task id (first defined on line {first})");
        }
        if task.steps.is_empty() {
            bail!("{here}: has no [[task.step]]");
        }
        check_tags(&task.tags, &here)?;
        let mut steps = Vec::new();
        for (n, step) in task.steps.into_iter().enumerate() {
            let line = line_of(&source, step.span().start);
            let at = format!(
                "{}:{line}: task {:?} step {}",
                path.display(),
                task.id,
                n + 1
            );
            let step = step.into_inner();
            let Some(page) = recordings.get(&step.recording) else {
                bail!("{at}: recording {:?} could not be loaded", step.recording);
            };
            steps.push(check_step(step, &page.analysed.page, &at)?);
        }
        tasks.push(Task {
            id: task.id,
            instruction: task.instruction,
            tags: task.tags,
            steps,
        });
    }
    if tasks.is_empty() {
        bail!("{}: the suite has no [[task]]", path.display());
    }
    Ok(Suite {
        name: file.suite.name,
        description: file.suite.description,
        tasks,
        recordings,
    })
}

/// Tags are report categories and CSV cells joined by spaces: each one a
/// non-empty `[a-z0-9-]` word, none twice.
pub fn check_tags(tags: &[String], here: &str) -> Result<()> {
    for (i, tag) in tags.iter().enumerate() {
        if tag.is_empty()
            || !tag
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        {
            bail!("{here}: tag {tag:?} must be a non-empty word of a-z, 0-9 and '-'");
        }
        if tags[..i].contains(tag) {
            bail!("{here}: tag {tag:?} is given twice");
        }
    }
    Ok(())
}

/// Every recording the suite's steps name, decoded and analysed once, in
/// parallel (a recording's page is independent of the others); a missing or
/// unreadable one is reported at its first use, the earliest in the file first.
fn load_recordings(
    source: &str,
    path: &Path,
    file: &FileDef,
    fixtures: &Path,
) -> Result<BTreeMap<String, StepPage>> {
    let mut wanted: Vec<(&str, String)> = Vec::new();
    for task in &file.tasks {
        for (n, step) in task.get_ref().steps.iter().enumerate() {
            let key = step.get_ref().recording.as_str();
            if wanted.iter().any(|(k, _)| *k == key) {
                continue;
            }
            let at = format!(
                "{}:{}: task {:?} step {}",
                path.display(),
                line_of(source, step.span().start),
                task.get_ref().id,
                n + 1
            );
            wanted.push((key, at));
        }
    }
    let loaded: Vec<Result<(String, StepPage)>> = wanted
        .par_iter()
        .map(|(key, at)| {
            let (json, _) = store::paths(&fixtures.join(key));
            if !json.is_file() {
                bail!("{at}: recording {key:?} not found ({})", json.display());
            }
            let Loaded {
                recording,
                screenshot,
            } = store::load(&json).with_context(|| at.clone())?;
            let analysed = observe::analyze(&recording);
            Ok((
                (*key).to_owned(),
                StepPage {
                    analysed,
                    screenshot,
                },
            ))
        })
        .collect();
    loaded.into_iter().collect()
}

/// The pages a `pages` suite names, each once, in first-use order, with where
/// it is first used.
fn wanted_pages(source: &str, path: &Path, file: &FileDef) -> Result<Vec<pages::Wanted>> {
    let mut seen = std::collections::BTreeSet::new();
    let mut wanted = Vec::new();
    for task in &file.tasks {
        for (n, step) in task.get_ref().steps.iter().enumerate() {
            let at = format!(
                "{}:{}: task {:?} step {}",
                path.display(),
                line_of(source, step.span().start),
                task.get_ref().id,
                n + 1
            );
            let key = &step.get_ref().recording;
            let plain = Path::new(key)
                .components()
                .all(|c| matches!(c, std::path::Component::Normal(_)));
            if !plain || key.is_empty() {
                bail!("{at}: recording {key:?} must be a relative path inside the pages folder");
            }
            if seen.insert(key.clone()) {
                wanted.push(pages::Wanted {
                    key: key.clone(),
                    at,
                });
            }
        }
    }
    Ok(wanted)
}

fn check_step(step: StepDef, page: &Analyzed, at: &str) -> Result<Step> {
    let Some(op) = Op::from_name(&step.op) else {
        bail!(
            "{at}: unknown op {:?} (expected click, type, select, scroll, press or done)",
            step.op
        );
    };
    let needs_value = op.takes_value();
    match (&step.value, needs_value) {
        (None, true) => bail!("{at}: op {} needs a value", op.name()),
        (Some(_), false) if !op.keeps_value() => {
            bail!("{at}: op {} takes no value", op.name())
        }
        _ => {}
    }
    if let (Op::Click, Some(value)) = (op, &step.value)
        && let Err(refused) = pagesnap_browser::click_of(value)
    {
        bail!("{at}: {refused}");
    }
    let needs_target = crate::agent::targets_element(op);
    let mut accept = Vec::new();
    let mut described = String::new();
    match (&step.target, needs_target) {
        (None, true) => bail!("{at}: op {} needs a target", op.name()),
        (Some(_), false) => bail!("{at}: op {} takes no target", op.name()),
        (Some(target), true) => {
            let (text, node) = resolve(target, page, &step.recording, at)?;
            described = text;
            accept.push(node);
        }
        (None, false) => {}
    }
    for (i, alternative) in step.alternatives.iter().enumerate() {
        let at = format!("{at}: alternative {}", i + 1);
        accept.push(resolve(alternative, page, &step.recording, &at)?.1);
    }
    Ok(Step {
        recording: step.recording,
        op,
        target: described,
        value: step.value,
        accept,
    })
}

/// The one node a target names, and how to print the target.
fn resolve(
    target: &TargetDef,
    analyzed: &Analyzed,
    recording: &str,
    at: &str,
) -> Result<(String, NodeId)> {
    let page = analyzed.page();
    let (described, found): (String, Vec<NodeId>) = match target {
        TargetDef {
            selector: Some(source),
            role: None,
            name: None,
            backend_id: None,
        } => {
            let selector = Selector::parse(source).map_err(|err| anyhow::anyhow!("{at}: {err}"))?;
            (
                source.clone(),
                page.select(&selector).map(|e| e.id()).collect(),
            )
        }
        TargetDef {
            selector: None,
            role: None,
            name: None,
            backend_id: Some(backend),
        } => (
            format!("backend node {backend}"),
            page.ids()
                .filter(|&id| page.layout(id).backend_id == *backend)
                .collect(),
        ),
        TargetDef {
            selector: None,
            role: Some(role),
            name: Some(name),
            backend_id: None,
        } => {
            let analysis = analyzed.analysis();
            let wanted = normalize(name);
            let found = page
                .ids()
                .filter(|&id| {
                    analysis.role(id) == Some(role.as_str())
                        && analysis
                            .name(id)
                            .is_some_and(|n| normalize(&n.text) == wanted)
                })
                .collect();
            (format!("{role} {name:?}"), found)
        }
        _ => bail!(
            "{at}: a target is {{ selector = \"…\" }}, {{ role = \"…\", name = \"…\" }} or {{ backend_id = N }}"
        ),
    };
    match found.as_slice() {
        [node] => Ok((described, *node)),
        [] => bail!("{at}: target {described} matches nothing in {recording}"),
        many => bail!(
            "{at}: target {described} matches {} elements in {recording}; make it unique",
            many.len()
        ),
    }
}

fn normalize(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The 1-based line of byte `offset` in `source`.
pub(crate) fn line_of(source: &str, offset: usize) -> usize {
    source
        .get(..offset)
        .map_or(0, |before| before.matches('\n').count())
        + 1
}

/// The default fixtures folder for a suite path: `fixtures/` beside `suites/`.
pub fn default_fixtures(suite: &Path) -> PathBuf {
    suite
        .parent()
        .and_then(Path::parent)
        .map_or_else(|| PathBuf::from("fixtures"), |root| root.join("fixtures"))
}
