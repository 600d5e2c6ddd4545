//! One unit of a replay: every step of one task under one strategy — observe the step's recording, ask the agent, judge, append the row.

use std::collections::BTreeMap;

use anyhow::{Result, bail};
use pagesnap_engine::observation::Observation;
use pagesnap_engine::page::Page;
use pagesnap_engine::strategy::{Options, Strategy};

use crate::agent::backend::ChatRequest;
use crate::agent::{Action, Agent, Request};
use crate::judge::llm::{LlmJudge, StepInput, TaskInput};
use crate::judge::rule;
use crate::observe;
use crate::report::steps;
use crate::results::RunFolder;
use crate::results::{Key, Row};
use crate::suite::Step;
use crate::tokens::ObservationSize;

use super::runner::Config;

/// All steps of one task under one strategy.
pub fn run_unit(
    config: &Config<'_>,
    t: usize,
    s: usize,
    existing: &BTreeMap<Key, Row>,
    sink: &RunFolder,
    done: &dyn Fn(),
) -> Result<Vec<Row>> {
    let task = &config.suite.tasks[t];
    let variant = &config.strategies[s];
    let strategy = variant.strategy;
    let mut history: Vec<Action> = Vec::new();
    // The element each history action named (for the LLM task judge).
    let mut elements: Vec<Option<String>> = Vec::new();
    let mut previous: Option<Observation> = None;
    let mut rows = Vec::new();
    for (n, step) in task.steps.iter().enumerate() {
        let key = (task.id.clone(), variant.name().to_owned(), n + 1);
        let Some(prepared) = config.suite.recordings.get(&step.recording) else {
            bail!("recording {} was not loaded", step.recording);
        };
        let options = variant.options(Options {
            previous: previous.as_ref(),
            screenshot: prepared.screenshot.as_deref(),
            ..Options::default()
        });
        // The page was analysed once when the suite loaded; only the
        // strategy's rendering happens here.
        let page = &prepared.analysed.page;
        let rendered = observe::render(page, strategy, &options);
        let observed = rendered.observation;
        if let Some(row) = existing.get(&key) {
            if let Some(action) = row.action() {
                history.push(action);
                // The same observation as when the row was written (rendering
                // is deterministic and `previous` is rebuilt the same way), so
                // the element the task judge reads is the same too.
                elements.push(observed.as_ref().ok().and_then(|o| element_of(o, row)));
            }
            previous = observed.ok();
            continue;
        }
        let mut row = Row::expecting(&task.id, variant.name(), n + 1, step);
        row.analysis_us = observe::micros(prepared.analysed.elapsed);
        row.engine_us = observe::micros(rendered.elapsed);
        match observed {
            Err(err) => {
                row.error = Some(format!("observation failed: {err}"));
                steps::write(
                    &config.out,
                    &row,
                    &steps::Artefact {
                        instruction: &task.instruction,
                        observation: None,
                        prompt: None,
                        steps: task.steps.len(),
                    },
                )?;
            }
            Ok(observation) => {
                let prompt = ask_and_judge(
                    config.agent,
                    &task.instruction,
                    strategy,
                    step,
                    page.page(),
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
                    )?;
                }
                row.element = element_of(&observation, &row);
                if let Some(action) = row.action() {
                    history.push(action);
                    elements.push(row.element.clone());
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
                    })?;
                    row.task_judge = verdict.success;
                }
                steps::write(
                    &config.out,
                    &row,
                    &steps::Artefact {
                        instruction: &task.instruction,
                        observation: Some(&observation),
                        prompt: prompt.as_ref(),
                        steps: task.steps.len(),
                    },
                )?;
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
        .map(pagesnap_browser::label)
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
) -> Result<()> {
    let Some(action) = row.action() else {
        return Ok(());
    };
    let element = element_of(observation, row);
    let verdict = judge.step(&StepInput {
        instruction,
        strategy: strategy.name(),
        observation: &observation.text,
        history,
        action: &action,
        element,
    })?;
    row.judge = verdict.success;
    row.judge_reason = Some(verdict.reason);
    Ok(())
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
) -> Result<Option<ChatRequest>> {
    let size = ObservationSize::of(observation);
    row.refs = size.refs;
    row.obs_tokens_o200k = size.o200k;
    row.obs_tokens_cl100k = size.cl100k;
    row.image_tokens = size.image;
    row.target_recall = rule::target_recall(step, page, observation);
    let request = Request::new(instruction, strategy.name(), observation, history);
    let prompt = agent.prompt(&request);
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
    Ok(prompt)
}
