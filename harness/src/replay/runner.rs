//! The replay loop: every (task, strategy) unit of the suite (or shard) across `--jobs` threads, rows appended as they finish, reports written at the end.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Context, Result, bail};

use crate::agent::Agent;
use crate::judge::llm::LlmJudge;
use crate::report::{self, metrics};
use crate::results::jsonl::{self, Appender};
use crate::results::manifest::{self, Manifest};
use crate::results::{Key, Row, Shard};
use crate::suite::Suite;
use crate::variant::Variant;

use super::unit::run_unit;
use crate::progress;

/// What to run.
pub struct Config<'a> {
    /// The loaded suite.
    pub suite: &'a Suite,
    /// Strategy variants, in report order.
    pub strategies: Vec<Variant>,
    /// The agent.
    pub agent: &'a dyn Agent,
    /// Output folder.
    pub out: PathBuf,
    /// Continue an interrupted run in `out`.
    pub resume: bool,
    /// Worker threads.
    pub jobs: usize,
    /// The suite file as given (for `run.json`).
    pub suite_path: PathBuf,
    /// Run only this shard of the tasks.
    pub shard: Option<Shard>,
    /// How progress is shown on stderr.
    pub progress: progress::Mode,
    /// The LLM judge, when `--judge llm:…` asked for one (the rule judge always runs).
    pub judge: Option<&'a LlmJudge>,
}

/// What a run produced.
pub struct Outcome {
    /// Rows, sorted.
    pub rows: Vec<Row>,
    /// Summaries per strategy, in strategy order.
    pub summaries: Vec<metrics::StrategySummary>,
    /// Steps skipped because `--resume` found them.
    pub resumed: usize,
}

/// Runs the suite and writes every report file into `config.out`.
pub fn run(config: &Config<'_>) -> Result<Outcome> {
    std::fs::create_dir_all(&config.out)
        .with_context(|| format!("could not create {}", config.out.display()))?;
    let jsonl = config.out.join(jsonl::FILE);
    let existing = if config.resume {
        jsonl::read_existing::<Row>(&jsonl)?
    } else if jsonl.exists() {
        bail!(
            "{} already exists (use --resume to continue that run, or another --out)",
            jsonl.display()
        );
    } else {
        BTreeMap::new()
    };
    let sink = Appender::open(&jsonl)?;
    let manifest = Manifest::new(
        config.suite,
        &config.suite_path,
        config.agent.name(),
        &config.strategies,
        config.shard,
    );
    if config.resume && config.out.join(manifest::FILE).exists() {
        manifest.check_resumes(&Manifest::read(&config.out)?, &config.out)?;
    }
    manifest.write(&config.out)?;
    let mut units: Vec<(usize, usize)> = (0..config.suite.tasks.len())
        .filter(|&t| config.shard.is_none_or(|shard| shard.includes(t)))
        .flat_map(|t| (0..config.strategies.len()).map(move |s| (t, s)))
        .collect();
    if config.jobs > 1 {
        // Largest pages first, so no worker is left alone with one big task
        // at the end (a run of the corpus suite otherwise gains nothing from
        // a second worker). One worker keeps suite order: its requests to a
        // model then come in the order the suite lists them.
        units.sort_by_key(|&(t, _)| std::cmp::Reverse(task_size(config.suite, t)));
    }
    let next = AtomicUsize::new(0);
    let produced: Mutex<Vec<Row>> = Mutex::new(Vec::new());
    let failure: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    let progress = progress_for(config, &existing);
    let step_delay = step_delay()?;
    std::thread::scope(|scope| {
        for _ in 0..config.jobs.max(1) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&(t, s)) = units.get(i) else { break };
                    let done = || {
                        progress.step();
                        if let Some(delay) = step_delay {
                            std::thread::sleep(delay);
                        }
                    };
                    let result = run_unit(config, t, s, &existing, &sink, &done);
                    match result {
                        Ok(rows) => lock(&produced).extend(rows),
                        Err(err) => {
                            lock(&failure).get_or_insert(err);
                            break;
                        }
                    }
                }
            });
        }
    });
    progress.finish();
    if let Some(err) = lock(&failure).take() {
        return Err(err);
    }
    let resumed = existing.len();
    let mut rows: Vec<Row> = existing.into_values().collect();
    rows.append(&mut lock(&produced));
    let report = report::Report::build(manifest, rows);
    report::write_all(&config.out, &report)?;
    Ok(Outcome {
        rows: report.rows,
        summaries: report.summaries,
        resumed,
    })
}

/// A task's work: the nodes of the pages its steps render.
fn task_size(suite: &Suite, t: usize) -> usize {
    suite.tasks[t]
        .steps
        .iter()
        .filter_map(|step| suite.recordings.get(&step.recording))
        .map(|page| page.analysed.page.page().len())
        .sum()
}

/// The progress display over every step of the run (of this shard), counting
/// the steps a resumed file already holds as done.
fn progress_for(config: &Config<'_>, existing: &BTreeMap<Key, Row>) -> progress::Progress {
    let mut total = 0;
    let mut skipped = 0;
    let mine = config
        .suite
        .tasks
        .iter()
        .enumerate()
        .filter(|&(t, _)| config.shard.is_none_or(|shard| shard.includes(t)));
    for (_, task) in mine {
        for strategy in &config.strategies {
            for n in 1..=task.steps.len() {
                total += 1;
                let key = (task.id.clone(), strategy.name().to_owned(), n);
                skipped += usize::from(existing.contains_key(&key));
            }
        }
    }
    progress::Progress::new(config.progress, total, skipped)
}

/// Test-only: `PAGESNAP_STEP_DELAY_MS` makes each worker sleep that long after
/// every step it writes, so a test can kill a run reliably midway. Not for
/// normal use; unset means no delay.
fn step_delay() -> Result<Option<std::time::Duration>> {
    match std::env::var("PAGESNAP_STEP_DELAY_MS") {
        Err(_) => Ok(None),
        Ok(text) => {
            let ms: u64 = text.trim().parse().with_context(|| {
                format!("PAGESNAP_STEP_DELAY_MS={text:?} is not a number of milliseconds")
            })?;
            Ok(Some(std::time::Duration::from_millis(ms)))
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A worker that panicked cannot leave rows half-written: each push is one call.
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
