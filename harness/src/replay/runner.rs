//! The offline replay runner: every task × strategy × step through an agent, judged by the rule judge.
//!
//! Per step: build the observation from the step's recording (engine time:
//! page build + analysis + render, in µs; the previous step's observation is
//! passed so refs stay stable), ask the agent, resolve its ref with
//! `Observation::resolve`, and judge with the rule judge: the op must match;
//! for click/type/select the resolved node must be the expected target, a node
//! inside it, or an alternative; for type/select the value must match
//! case-insensitively after trimming; scroll and done are judged on the op.
//! Target recall records whether the expected element had a ref at all.
//!
//! Each finished step is appended to `<out>/results.jsonl` at once (and
//! flushed), so `--resume` skips the (task, strategy, step) triples already
//! there and rebuilds the agent's history from them. A step that fails (engine
//! or agent error) becomes a row with `error` set, never a crash. Tasks run in
//! parallel across `--jobs` threads; rows are sorted (suite task order,
//! strategy order, step) before the reports are written (see `report`).
//! `--shard K/N` runs only the tasks whose 0-based suite index i has
//! i % N == K − 1; `run.json` records what the folder covers so `pagesnap
//! merge` can join shards without the suite.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Context, Result, bail};
use pagesnap_engine::observation::Observation;
use pagesnap_engine::page::Page;
use pagesnap_engine::strategy::{Options, Strategy};

use crate::agent::{Action, Agent, RefItem, Request};
use crate::judge::llm::{LlmJudge, StepInput, TaskInput};
use crate::judge::rule;
use crate::observe;
use crate::report::{self, metrics};
use crate::results::jsonl::{self, Appender};
use crate::results::manifest::{self, Manifest};
use crate::results::{Key, Row, Shard};
use crate::suite::{Step, Suite};
use crate::tokens::ObservationSize;

use super::progress;

/// What to run.
pub struct Config<'a> {
    /// The loaded suite.
    pub suite: &'a Suite,
    /// Strategies, in report order.
    pub strategies: Vec<&'static dyn Strategy>,
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
        jsonl::read_existing(&jsonl)?
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
    let units: Vec<(usize, usize)> = (0..config.suite.tasks.len())
        .filter(|&t| config.shard.is_none_or(|shard| shard.includes(t)))
        .flat_map(|t| (0..config.strategies.len()).map(move |s| (t, s)))
        .collect();
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

/// All steps of one task under one strategy.
fn run_unit(
    config: &Config<'_>,
    t: usize,
    s: usize,
    existing: &BTreeMap<Key, Row>,
    sink: &Appender,
    done: &dyn Fn(),
) -> Result<Vec<Row>> {
    let task = &config.suite.tasks[t];
    let strategy = config.strategies[s];
    let mut history: Vec<Action> = Vec::new();
    // The element each history action named (for the LLM task judge).
    let mut elements: Vec<Option<String>> = Vec::new();
    let mut previous: Option<Observation> = None;
    let mut rows = Vec::new();
    for (n, step) in task.steps.iter().enumerate() {
        let key = (task.id.clone(), strategy.name().to_owned(), n + 1);
        let Some(loaded) = config.suite.recordings.get(&step.recording) else {
            bail!("recording {} was not loaded", step.recording);
        };
        let options = Options {
            previous: previous.as_ref(),
            screenshot: loaded.screenshot.as_deref(),
            ..Options::default()
        };
        let observe::Observed {
            page,
            observation: observed,
            elapsed,
        } = observe::observe(&loaded.recording, strategy, &options);
        let engine_us = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX);
        if let Some(row) = existing.get(&key) {
            if let Some(op) = row.op {
                history.push(Action {
                    op,
                    reference: row.reference.clone(),
                    value: row.value.clone(),
                });
                elements.push(None);
            }
            previous = observed.ok();
            continue;
        }
        let mut row = Row::expecting(&task.id, strategy.name(), n + 1, step);
        row.engine_us = engine_us;
        match observed {
            Err(err) => row.error = Some(format!("observation failed: {err}")),
            Ok(observation) => {
                ask_and_judge(
                    config.agent,
                    &task.instruction,
                    strategy,
                    step,
                    &page,
                    &observation,
                    &history,
                    &mut row,
                )?;
                if let Some(judge) = config.judge {
                    judge_with_llm(
                        judge,
                        &task.instruction,
                        strategy,
                        &observation,
                        &history,
                        &mut row,
                    );
                }
                if let Some(op) = row.op {
                    history.push(Action {
                        op,
                        reference: row.reference.clone(),
                        value: row.value.clone(),
                    });
                    elements.push(element_of(&observation, &row));
                }
                if let Some(judge) = config.judge.filter(|_| n + 1 == task.steps.len()) {
                    let actions: Vec<(Action, Option<String>)> = history
                        .iter()
                        .cloned()
                        .zip(elements.iter().cloned())
                        .collect();
                    let verdict = judge.task(&TaskInput {
                        instruction: &task.instruction,
                        actions: &actions,
                    });
                    row.task_judge = verdict.success;
                }
                previous = Some(observation);
            }
        }
        sink.append(&row)?;
        rows.push(row);
        done();
    }
    Ok(rows)
}

/// `button "Submit"`: the element the row's ref resolved to, as the observation describes it.
fn element_of(observation: &Observation, row: &Row) -> Option<String> {
    let node = row.node?;
    observation
        .meta
        .items
        .iter()
        .find(|item| item.node == node)
        .map(|item| format!("{} {:?}", item.role, item.name))
}

/// Asks the LLM judge about the action in `row` (rows without an action — a
/// fault or an invalid answer — are not judged: there is nothing to judge).
fn judge_with_llm(
    judge: &LlmJudge,
    instruction: &str,
    strategy: &dyn Strategy,
    observation: &Observation,
    history: &[Action],
    row: &mut Row,
) {
    let Some(op) = row.op else { return };
    let action = Action {
        op,
        reference: row.reference.clone(),
        value: row.value.clone(),
    };
    let element = element_of(observation, row);
    let verdict = judge.step(&StepInput {
        instruction,
        strategy: strategy.name(),
        observation: &observation.text,
        history,
        action: &action,
        element,
    });
    row.judge = verdict.success;
    row.judge_reason = Some(verdict.reason);
}

/// Asks the agent about one observation and has the rule judge judge its
/// answer, filling `row` with the observation's size, the answer and the verdict.
#[expect(
    clippy::too_many_arguments,
    reason = "one call site; the pieces of one step"
)]
fn ask_and_judge(
    agent: &dyn Agent,
    instruction: &str,
    strategy: &dyn Strategy,
    step: &Step,
    page: &Page,
    observation: &Observation,
    history: &[Action],
    row: &mut Row,
) -> Result<()> {
    let size = ObservationSize::of(observation);
    row.refs = size.refs;
    row.obs_tokens_o200k = size.o200k;
    row.obs_tokens_cl100k = size.cl100k;
    row.image_tokens = size.image;
    row.target_recall = rule::target_recall(step, page, observation);
    let request = Request {
        instruction: instruction.to_owned(),
        strategy: strategy.name().to_owned(),
        observation: observation.text.clone(),
        refs: observation
            .meta
            .items
            .iter()
            .map(|item| RefItem {
                reference: item.reference.clone(),
                role: item.role.clone(),
                name: item.name.clone(),
                states: item.states.clone(),
                zone: item.zone.clone(),
                context: item.context.clone(),
            })
            .collect(),
        history: history.to_vec(),
        image_png: observation.image.as_ref().map(|i| i.png.clone()),
    };
    let response = agent.act(&request)?;
    row.input_tokens = response.input_tokens;
    row.output_tokens = response.output_tokens;
    row.agent_us = response.latency_us;
    row.retries = response.retries;
    row.cost_usd = response.cost_usd;
    row.raw = response.raw;
    let action = match (response.fault, response.action) {
        (Some(fault), _) => {
            row.fault = Some(fault.kind.as_str().to_owned());
            row.error = Some(format!("agent {} failed: {fault}", agent.name()));
            None
        }
        (None, None) => {
            row.invalid = true;
            row.error = Some(format!(
                "invalid answer: {}",
                response.invalid.as_deref().unwrap_or("no action")
            ));
            None
        }
        (None, Some(action)) => Some(action),
    };
    let verdict = rule::judge(step, page, observation, action.as_ref());
    row.node = verdict.node;
    row.hallucinated = verdict.hallucinated;
    row.op_ok = verdict.op_ok;
    row.element_ok = verdict.element_ok;
    row.value_ok = verdict.value_ok;
    row.success = verdict.success;
    row.op_f1 = verdict.op_f1;
    if let Some(action) = action {
        row.op = Some(action.op);
        row.reference = action.reference;
        row.value = action.value;
    }
    Ok(())
}
