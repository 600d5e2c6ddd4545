//! The replay loop: every (task, strategy) unit of the suite (or shard) across `--jobs` threads, rows appended as they finish and returned for the reports.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{Context, Result};

use crate::agent::Agent;
use crate::judge::llm::LlmJudge;
use crate::pool;
use crate::results::manifest::Manifest;
use crate::results::{Key, Row, RunFolder, Shard};
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
    /// What the run covers (`run.json`).
    pub manifest: Manifest,
    /// Every row of the run, those a resumed run found included, unsorted.
    pub rows: Vec<Row>,
    /// Steps skipped because `--resume` found them.
    pub resumed: usize,
}

/// Runs the suite into `config.out` (rows appended to `results.jsonl` as
/// they finish) and returns the rows; the caller writes the reports.
pub fn run(config: &Config<'_>) -> Result<Outcome> {
    let manifest = Manifest::new(
        config.suite,
        &config.suite_path,
        config.agent.name(),
        &config.strategies,
        config.shard,
    );
    let (folder, existing) = RunFolder::open::<Row>(&config.out, &manifest, config.resume)?;
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
    let progress = progress_for(config, &existing);
    let step_delay = step_delay()?;
    let done = || {
        progress.step();
        if let Some(delay) = step_delay {
            std::thread::sleep(delay);
        }
    };
    let produced = pool::run(config.jobs, &units, |_, units| {
        let mut rows = Vec::new();
        while let Some(&(t, s)) = units.next() {
            rows.extend(run_unit(config, t, s, &existing, &folder, &done)?);
        }
        Ok(rows)
    });
    progress.finish();
    let produced = produced?;
    let resumed = existing.len();
    let mut rows: Vec<Row> = existing.into_values().collect();
    rows.extend(produced.into_iter().flatten());
    Ok(Outcome {
        manifest,
        rows,
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
