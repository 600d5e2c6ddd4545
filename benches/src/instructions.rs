//! Instruction counts of the engine's hot paths under callgrind, and the gate that compares them with a committed baseline.
//!
//! Wall-clock times on shared 2-core machines vary ±25% run to run;
//! instructions counted by callgrind do not (the same binary on the same
//! input gives the same count, whatever else the machine does). A small
//! runner of our own rather than a harness crate: one process per page runs
//! under `valgrind --tool=callgrind`, and each measured step runs inside one
//! `#[inline(never)]` function that callgrind zeroes its counters before
//! (`--zero-before`) and dumps them after (`--dump-after`), so the page is
//! decoded once per process and setup never counts. The gate reads the
//! dumps, so it needs nothing but Debian's `valgrind`.
//!
//! Ids are `<group>/<page>`: `decode`, `page` (build), `analysis`, each
//! strategy's render of the analysed page, `e2e-aria` (gzip bytes → `aria`
//! text), and `html5ever-parse` of the page's DOM serialised as HTML, the
//! reference the engine plays against.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use pagesnap_engine::analyze::{Analysis, Analyzed};
use pagesnap_engine::page::Page;
use pagesnap_engine::recording::Recording;
use pagesnap_engine::strategy::{self, Options, STRATEGIES};

/// The fixtures measured, relative to `fixtures/`.
pub const FIXTURES: &[&str] = &[
    "login/initial",
    "checkout_modal/initial",
    "long_article/top",
    "data_table/initial",
];

/// The corpus sample measured, relative to `../shared/corpus/` (recorded into
/// `target/bench-corpus/` by `scripts/bench-gate` when missing): a spread of
/// sizes, `lwn-1`, whose nested layout tables were the worst ratio to
/// html5ever's parse, and `mathjax`, whose controls of thousands of glyph
/// spans once made the meta's context quadratic.
pub const CORPUS: &[&str] = &[
    "readability/aclu",
    "readability/bbc-1",
    "readability/lwn-1",
    "readability/mathjax",
    "readability/medium-1",
    "readability/mozilla-1",
    "readability/wikipedia-2",
];

/// The recordings (`.json.gz`) under `dir`, each keyed by its path inside
/// `dir` without the extension, in path order.
pub fn recordings(dir: &Path) -> Result<Vec<(String, PathBuf)>> {
    let mut found = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let entries = std::fs::read_dir(&folder)
            .with_context(|| format!("could not read {}", folder.display()))?;
        for entry in entries {
            let path = entry?.path();
            if path.is_dir() {
                folders.push(path);
            } else if let Some(stem) = path.to_str().and_then(|p| p.strip_suffix(".json.gz")) {
                let key = Path::new(stem).strip_prefix(dir).unwrap_or(Path::new(stem));
                found.push((key.display().to_string(), path.clone()));
            }
        }
    }
    found.sort();
    Ok(found)
}

/// Decoded recording → `aria` (page build, analysis, render) and
/// html5ever's parse of the same page, from measured counts.
pub fn engine_and_parse(counts: &BTreeMap<String, u64>, key: &str) -> Option<(u64, u64)> {
    let count = |group: &str| counts.get(&format!("{group}/{key}")).copied();
    Some((
        count("page")? + count("analysis")? + count("aria")?,
        count("html5ever-parse")?,
    ))
}

/// A gate breaks when an id grew by more than this many percent.
pub const THRESHOLD_PERCENT: f64 = 5.0;

/// The one function every measured step runs in: callgrind zeroes its
/// counters on entry (`--zero-before`) and dumps them on exit
/// (`--dump-after`), so a dump holds exactly one step.
#[inline(never)]
pub fn measured_step(run: &mut dyn FnMut()) {
    run();
}

/// The callgrind pattern naming [`measured_step`] (callgrind demangles).
const STEP_PATTERN: &str = "*instructions::measured_step";

/// Prefix of the lines `measure` prints, one per step, in order.
const STEP_LINE: &str = "pagesnap-step ";

/// Runs every measured step of one page through [`measured_step`], printing
/// each step's id first. Outside callgrind it only runs them.
///
/// Every step runs once unmeasured first: each is then counted warm, as in
/// a process that observes page after page, and none pays a first use the
/// others do not (the allocator's first pages of each size, tables built
/// on first use). Measured cold, the engine's steps paid those for the
/// parse, which runs after them.
pub fn measure(key: &str, path: &Path) -> Result<()> {
    let bytes =
        std::fs::read(path).with_context(|| format!("could not read {}", path.display()))?;
    let origin = path.display().to_string();
    let screenshot = std::fs::read(path.to_string_lossy().replace(".json.gz", ".png")).ok();
    let input = Input {
        key,
        bytes: &bytes,
        origin: &origin,
        screenshot: screenshot.as_deref(),
    };
    run_steps(&input, false)?;
    run_steps(&input, true)
}

/// One page's input to [`run_steps`].
struct Input<'a> {
    key: &'a str,
    bytes: &'a [u8],
    origin: &'a str,
    screenshot: Option<&'a [u8]>,
}

/// Every step of [`measure`], through [`measured_step`] when `measured`.
fn run_steps(input: &Input<'_>, measured: bool) -> Result<()> {
    let Input {
        key,
        bytes,
        origin,
        screenshot,
    } = *input;
    let step = |group: &str, run: &mut dyn FnMut()| -> Result<()> {
        if measured {
            println!("{STEP_LINE}{group}/{key}");
            measured_step(run);
        } else {
            run();
        }
        Ok(())
    };
    let mut recording = None;
    step("decode", &mut || {
        recording = Some(Recording::from_gz_bytes(black_box(bytes), origin));
    })?;
    let recording = recording
        .context("the decode step ran")?
        .with_context(|| format!("{origin}: not a recording"))?;
    let mut page = None;
    step("page", &mut || {
        page = Some(Page::from_recording(black_box(&recording)))
    })?;
    let page = page.context("the page step ran")?;
    let mut analysis = None;
    step("analysis", &mut || {
        analysis = Some(Analysis::new(black_box(&page)))
    })?;
    drop(analysis);
    let analyzed = Analyzed::new(page);
    for strategy in STRATEGIES {
        let options = Options {
            screenshot,
            ..Options::default()
        };
        let mut observed = None;
        step(strategy.name(), &mut || {
            observed = Some(strategy.observe(black_box(&analyzed), &options));
        })?;
        observed
            .context("the render step ran")?
            .with_context(|| format!("{origin}: {}", strategy.name()))?;
    }
    let html = strategy::by_name("html").context("the html strategy is registered")?;
    let text = html
        .observe(
            &analyzed,
            &Options {
                full_page: Some(true),
                redact: false,
                ..Options::default()
            },
        )
        .with_context(|| format!("{origin}: html"))?
        .text;
    let mut parsed = None;
    step("html5ever-parse", &mut || {
        parsed = Some(scraper::Html::parse_document(black_box(&text)));
    })?;
    drop(parsed);
    let aria = strategy::by_name("aria").context("the aria strategy is registered")?;
    let mut text = None;
    step("e2e-aria", &mut || {
        text = Recording::from_gz_bytes(black_box(bytes), origin)
            .ok()
            .map(|r| Analyzed::new(Page::from_recording(&r)))
            .and_then(|a| aria.observe(&a, &Options::default()).ok())
            .map(|o| o.text);
    })?;
    text.context("e2e-aria gave no text")?;
    Ok(())
}

/// Measures `pages` (key, recording path) with `jobs` callgrind processes
/// at a time and returns every id's instruction count. A queue, largest
/// recording first: a page's run takes time in proportion to its size, and
/// the biggest (`mathjax`) alone takes as long as several small ones, so
/// starting it last (or waiting on it in a fixed batch) leaves a core idle.
pub fn count(
    exe: &Path,
    pages: &[(String, PathBuf)],
    jobs: usize,
) -> Result<BTreeMap<String, u64>> {
    let mut order: Vec<&(String, PathBuf)> = pages.iter().collect();
    order.sort_by_cached_key(|(key, path)| {
        let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        (std::cmp::Reverse(size), key.clone())
    });
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..jobs.clamp(1, order.len().max(1)))
            .map(|_| {
                scope.spawn(|| -> Result<Vec<(String, u64)>> {
                    let mut counts = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some((key, path)) = order.get(i) else {
                            return Ok(counts);
                        };
                        counts.extend(measure_page(exe, key, path)?);
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|worker| {
                worker
                    .join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("a measuring thread panicked")))
            })
            .collect::<Vec<_>>()
    });
    let mut counts = BTreeMap::new();
    for result in results {
        counts.extend(result?);
    }
    Ok(counts)
}

/// One page's ids and instruction counts: `exe measure KEY PATH` under callgrind.
fn measure_page(exe: &Path, key: &str, path: &Path) -> Result<Vec<(String, u64)>> {
    let dir = tempfile::tempdir().context("could not create a temp folder")?;
    let output = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", dir.path().join("cg.out").display()))
        .arg(format!("--zero-before={STEP_PATTERN}"))
        .arg(format!("--dump-after={STEP_PATTERN}"))
        .arg("--quiet")
        .arg(exe)
        .args(["measure", key])
        .arg(path)
        .stderr(std::process::Stdio::inherit())
        .output()
        .context("could not start valgrind: install it with `apt-get install valgrind` (scripts/setup does)")?;
    if !output.status.success() {
        bail!("measuring {key} under callgrind failed ({})", output.status);
    }
    let ids: Vec<&str> = std::str::from_utf8(&output.stdout)?
        .lines()
        .filter_map(|l| l.strip_prefix(STEP_LINE))
        .collect();
    let dumps = read_dumps(dir.path())?;
    if dumps.len() != ids.len() {
        bail!(
            "measuring {key}: {} steps ran but callgrind wrote {} dumps (is {STEP_PATTERN} the measured function's name?)",
            ids.len(),
            dumps.len()
        );
    }
    Ok(ids.into_iter().map(str::to_owned).zip(dumps).collect())
}

/// The instruction totals of the dumps in `dir` (`cg.out.1`, `cg.out.2`, …), in dump order.
fn read_dumps(dir: &Path) -> Result<Vec<u64>> {
    let mut dumps = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let Some(n) = path
            .extension()
            .and_then(|e| e.to_str())
            .and_then(|e| e.parse::<u64>().ok())
        else {
            continue; // `cg.out`, the dump at exit
        };
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("could not read {}", path.display()))?;
        let total = text
            .lines()
            .find_map(|l| {
                l.strip_prefix("summary: ")
                    .or_else(|| l.strip_prefix("totals: "))
            })
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse::<u64>().ok())
            .with_context(|| format!("{}: no instruction total", path.display()))?;
        dumps.push((n, total));
    }
    dumps.sort_unstable();
    Ok(dumps.into_iter().map(|(_, total)| total).collect())
}

/// One line of the gate's table.
#[derive(Debug, PartialEq)]
pub struct Line {
    /// The id.
    pub id: String,
    /// Baseline count (none: new in this run).
    pub baseline: Option<u64>,
    /// This run's count (none: missing).
    pub now: Option<u64>,
}

impl Line {
    /// Change in percent of the baseline.
    pub fn change(&self) -> Option<f64> {
        match (self.baseline, self.now) {
            (Some(b), Some(n)) if b > 0 => Some((n as f64 - b as f64) / b as f64 * 100.0),
            _ => None,
        }
    }

    /// Whether this line fails the gate: grown past the threshold, or missing.
    pub fn breaks(&self) -> bool {
        match (self.baseline, self.now) {
            (Some(_), None) => true,
            _ => self.change().is_some_and(|c| c > THRESHOLD_PERCENT),
        }
    }
}

/// The table of `baseline` against `now`, in id order.
pub fn compare(baseline: &BTreeMap<String, u64>, now: &BTreeMap<String, u64>) -> Vec<Line> {
    let ids: std::collections::BTreeSet<&String> = baseline.keys().chain(now.keys()).collect();
    ids.into_iter()
        .map(|id| Line {
            id: id.clone(),
            baseline: baseline.get(id).copied(),
            now: now.get(id).copied(),
        })
        .collect()
}

/// Reads a baseline: a flat JSON object `{"<id>": <instructions>, …}`.
pub fn read_baseline(path: &Path) -> Result<BTreeMap<String, u64>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("could not read the baseline {}", path.display()))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{}: not JSON", path.display()))?;
    let Some(object) = value.as_object() else {
        bail!(
            "{}: expected a flat JSON object {{\"<bench id>\": <instructions>, …}}",
            path.display()
        );
    };
    object
        .iter()
        .map(|(id, count)| match count.as_u64() {
            Some(n) => Ok((id.clone(), n)),
            None => bail!(
                "{}: field {id:?}: {count} is not a count of instructions",
                path.display()
            ),
        })
        .collect()
}

/// Writes a baseline, ids sorted, one per line.
pub fn write_baseline(path: &Path, counts: &BTreeMap<String, u64>) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("could not create {}", dir.display()))?;
    }
    let mut text = serde_json::to_string_pretty(counts)?;
    text.push('\n');
    std::fs::write(path, text).with_context(|| format!("could not write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_break_on_growth_past_the_threshold_and_on_missing_ids() {
        let baseline: BTreeMap<String, u64> =
            [("a".into(), 100), ("b".into(), 100), ("c".into(), 100)].into();
        let now: BTreeMap<String, u64> =
            [("a".into(), 105), ("b".into(), 106), ("d".into(), 1)].into();
        let lines = compare(&baseline, &now);
        let broken: Vec<&str> = lines
            .iter()
            .filter(|l| l.breaks())
            .map(|l| l.id.as_str())
            .collect();
        assert_eq!(
            broken,
            ["b", "c"],
            "5% is allowed, 6% is not; c is missing; d is new"
        );
        assert_eq!(lines[0].change(), Some(5.0));
    }

    #[test]
    fn dumps_are_read_in_dump_order() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        for (name, total) in [
            ("cg.out.10", 10),
            ("cg.out.2", 2),
            ("cg.out.1", 1),
            ("cg.out", 99),
        ] {
            std::fs::write(
                dir.path().join(name),
                format!("version: 1\ndesc: Trigger: --dump-after\nevents: Ir\nsummary: {total}\n"),
            )
            .unwrap_or_else(|e| panic!("{e}"));
        }
        let dumps = read_dumps(dir.path()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            dumps,
            [1, 2, 10],
            "numbered dumps in order; the exit dump left out"
        );
    }
}
