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

mod html;
pub mod manifest;
pub mod metrics;
pub mod progress;
pub mod report;
pub mod significance;

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Context, Result, bail};
use pagesnap_engine::observation::Observation;
use pagesnap_engine::page::Page;
use pagesnap_engine::strategy::{Options, Strategy};
use serde::{Deserialize, Serialize};

use crate::agent::{Action, Agent, Op, RefItem, Request};
use crate::judge::llm::{LlmJudge, StepInput, TaskInput};
use crate::suite::{Step, Suite};
use crate::{observe, tokens};

/// One judged step: a line of `results.jsonl`, a row of `results.csv`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Row {
    /// Task id.
    pub task: String,
    /// Strategy name.
    pub strategy: String,
    /// Step number, from 1.
    pub step: usize,
    /// Recording key.
    pub recording: String,
    /// Expected op.
    pub expected_op: Op,
    /// Expected target as written in the suite.
    pub expected_target: String,
    /// Expected value.
    pub expected_value: Option<String>,
    /// The agent's op (none on error).
    pub op: Option<Op>,
    /// The agent's ref.
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    /// The agent's value.
    pub value: Option<String>,
    /// Document-order index of the node the ref resolved to.
    pub node: Option<usize>,
    /// The answer named a ref the observation does not have.
    pub hallucinated: bool,
    /// The expected element had a ref (none for scroll/done).
    pub target_recall: Option<bool>,
    /// Op right.
    pub op_ok: bool,
    /// Element right (none for scroll/done).
    pub element_ok: Option<bool>,
    /// Value right (none unless type/select).
    pub value_ok: Option<bool>,
    /// Op, element and value right.
    pub success: bool,
    /// Mind2Web operation F1 of this step.
    pub op_f1: f64,
    /// Refs in the observation.
    pub refs: usize,
    /// Input text tokens (the agent's count: o200k_base of the prompt for
    /// local agents, the provider's `usage` for remote ones).
    pub input_tokens: usize,
    /// Observation text tokens under o200k_base (GPT-4o and later).
    #[serde(default)]
    pub obs_tokens_o200k: usize,
    /// Observation text tokens under cl100k_base (GPT-4, GPT-3.5).
    #[serde(default)]
    pub obs_tokens_cl100k: usize,
    /// Image tokens (OpenAI formula).
    pub image_tokens: u32,
    /// Output tokens.
    pub output_tokens: usize,
    /// Engine time in µs.
    pub engine_us: u64,
    /// Agent time in µs.
    pub agent_us: u64,
    /// Model-call retries (attempts beyond the first).
    #[serde(default)]
    pub retries: u32,
    /// The call failed after its retries: the fault kind (`rate_limited`, `timeout`, …).
    #[serde(default)]
    pub fault: Option<String>,
    /// The answer could not be read as an action.
    #[serde(default)]
    pub invalid: bool,
    /// Estimated cost of the agent call in US dollars.
    #[serde(default)]
    pub cost_usd: f64,
    /// The LLM judge's verdict on this step (when `--judge llm:…` ran).
    #[serde(default)]
    pub judge: Option<bool>,
    /// The LLM judge's reason.
    #[serde(default)]
    pub judge_reason: Option<String>,
    /// The LLM judge's verdict on the whole task (on the task's last step only).
    #[serde(default)]
    pub task_judge: Option<bool>,
    /// What went wrong, if the step failed.
    pub error: Option<String>,
    /// The agent's raw answer.
    pub raw: String,
}

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
    pub shard: Option<manifest::Shard>,
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

type Key = (String, String, usize);

/// Runs the suite and writes every report file into `config.out`.
pub fn run(config: &Config<'_>) -> Result<Outcome> {
    std::fs::create_dir_all(&config.out)
        .with_context(|| format!("could not create {}", config.out.display()))?;
    let jsonl = config.out.join("results.jsonl");
    let existing = if config.resume {
        read_existing(&jsonl)?
    } else if jsonl.exists() {
        bail!(
            "{} already exists (use --resume to continue that run, or another --out)",
            jsonl.display()
        );
    } else {
        BTreeMap::new()
    };
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&jsonl)
        .with_context(|| format!("could not open {}", jsonl.display()))?;
    let sink = Mutex::new(file);
    let manifest = manifest::Manifest::of(config);
    if config.resume && config.out.join(manifest::FILE).exists() {
        manifest.check_resumes(&manifest::Manifest::read(&config.out)?, &config.out)?;
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

/// Reads a finished run's `results.jsonl` (every line must parse).
pub fn read_rows(path: &Path) -> Result<Vec<Row>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("could not read {}", path.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            serde_json::from_str(line)
                .with_context(|| format!("{}:{}: not a result row", path.display(), i + 1))
        })
        .collect()
}

/// Complete, parseable lines of an earlier run; the file is rewritten with
/// them so a line cut by a kill does not corrupt the next append.
fn read_existing(path: &Path) -> Result<BTreeMap<Key, Row>> {
    let mut rows = BTreeMap::new();
    if !path.exists() {
        return Ok(rows);
    }
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("could not read {}", path.display()))?;
    let mut kept = String::new();
    for line in text.split_inclusive('\n') {
        if !line.ends_with('\n') {
            continue;
        }
        if let Ok(row) = serde_json::from_str::<Row>(line) {
            kept.push_str(line);
            rows.insert((row.task.clone(), row.strategy.clone(), row.step), row);
        }
    }
    std::fs::write(path, kept).with_context(|| format!("could not rewrite {}", path.display()))?;
    Ok(rows)
}

/// All steps of one task under one strategy.
fn run_unit(
    config: &Config<'_>,
    t: usize,
    s: usize,
    existing: &BTreeMap<Key, Row>,
    sink: &Mutex<File>,
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
        let mut row = blank_row(&task.id, strategy.name(), n + 1, step);
        row.engine_us = engine_us;
        match observed {
            Err(err) => row.error = Some(format!("observation failed: {err}")),
            Ok(observation) => {
                judge_step(
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
        let line = serde_json::to_string(&row)?;
        let mut file = lock(sink);
        writeln!(file, "{line}").context("could not append to results.jsonl")?;
        file.flush().context("could not flush results.jsonl")?;
        drop(file);
        rows.push(row);
        done();
    }
    Ok(rows)
}

fn blank_row(task: &str, strategy: &str, step_number: usize, step: &Step) -> Row {
    Row {
        task: task.to_owned(),
        strategy: strategy.to_owned(),
        step: step_number,
        recording: step.recording.clone(),
        expected_op: step.op,
        expected_target: step.target.clone(),
        expected_value: step.value.clone(),
        op: None,
        reference: None,
        value: None,
        node: None,
        hallucinated: false,
        target_recall: None,
        op_ok: false,
        element_ok: None,
        value_ok: None,
        success: false,
        op_f1: 0.0,
        refs: 0,
        input_tokens: 0,
        obs_tokens_o200k: 0,
        obs_tokens_cl100k: 0,
        image_tokens: 0,
        output_tokens: 0,
        engine_us: 0,
        agent_us: 0,
        retries: 0,
        fault: None,
        invalid: false,
        cost_usd: 0.0,
        judge: None,
        judge_reason: None,
        task_judge: None,
        error: None,
        raw: String::new(),
    }
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

#[expect(
    clippy::too_many_arguments,
    reason = "one call site; the pieces of one step"
)]
fn judge_step(
    agent: &dyn Agent,
    instruction: &str,
    strategy: &dyn Strategy,
    step: &Step,
    page: &Page,
    observation: &Observation,
    history: &[Action],
    row: &mut Row,
) -> Result<()> {
    let needs_target = matches!(step.op, Op::Click | Op::Type | Op::Select);
    row.refs = observation.refs.len();
    row.obs_tokens_o200k = tokens::o200k(&observation.text);
    row.obs_tokens_cl100k = tokens::cl100k(&observation.text);
    row.image_tokens = observation
        .meta
        .image
        .as_ref()
        .map_or(0, |i| i.openai_tokens);
    if needs_target {
        row.target_recall = Some(
            observation
                .refs
                .iter()
                .any(|(_, id)| step.accepts(page, *id)),
        );
    }
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
    if needs_target {
        row.element_ok = Some(false);
    }
    if let Some(fault) = response.fault {
        row.fault = Some(fault.kind.as_str().to_owned());
        row.error = Some(format!("agent {} failed: {fault}", agent.name()));
        return Ok(());
    }
    let Some(action) = response.action else {
        row.invalid = true;
        row.error = Some(format!(
            "invalid answer: {}",
            response.invalid.as_deref().unwrap_or("no action")
        ));
        return Ok(());
    };
    let resolved = action
        .reference
        .as_deref()
        .and_then(|r| observation.resolve(r));
    row.hallucinated = action.reference.is_some() && resolved.is_none();
    row.node = resolved.map(|id| id.index());
    row.op_ok = action.op == step.op;
    if needs_target {
        row.element_ok = Some(resolved.is_some_and(|id| step.accepts(page, id)));
    }
    if let Some(expected) = &step.value {
        row.value_ok = Some(
            action
                .value
                .as_deref()
                .is_some_and(|v| v.trim().to_lowercase() == expected.trim().to_lowercase()),
        );
    }
    row.success = row.op_ok && row.element_ok.unwrap_or(true) && row.value_ok.unwrap_or(true);
    let operation = |op: Op, value: Option<&str>| match value {
        Some(v) if matches!(op, Op::Type | Op::Select) => format!("{} {v}", op.as_str()),
        _ => op.as_str().to_owned(),
    };
    row.op_f1 = metrics::token_f1(
        &operation(action.op, action.value.as_deref()),
        &operation(step.op, step.value.as_deref()),
    );
    row.op = Some(action.op);
    row.reference = action.reference;
    row.value = action.value;
    Ok(())
}
