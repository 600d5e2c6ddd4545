//! A live run's CSV files, each a slice of columns with their cells: `results.csv` (one row per episode), `steps.csv` (one row per step) and `timings.csv` (the wall-clock columns, apart).

use crate::report::emit;
use crate::report::table::{Cell, Field, Table};
use crate::results::{Episode, StepLog};

use super::LiveReport;

fn text(s: &str) -> Cell {
    Cell::Text(s.to_owned())
}

/// One row per episode, without wall-clock columns.
const RESULTS: &[Field<Episode>] = &[
    ("task", |e| text(&e.task)),
    ("strategy", |e| text(&e.strategy)),
    ("episode", |e| Cell::count(e.episode)),
    ("seed", |e| Cell::Count(e.seed)),
    ("tier", |e| text(&e.tier)),
    ("tags", |e| Cell::Text(e.tags.join(" "))),
    ("success", |e| Cell::flag(e.success)),
    ("raw_reward", |e| Cell::Real(e.raw_reward)),
    ("reason", |e| Cell::maybe_text(e.reason.as_deref())),
    ("ended_by", |e| text(e.ended_by.name())),
    ("steps", |e| Cell::count(e.steps)),
    ("obs_tokens", |e| Cell::count(e.obs_tokens)),
    ("image_tokens", |e| Cell::Count(e.image_tokens)),
    ("input_tokens", |e| Cell::count(e.input_tokens)),
    ("output_tokens", |e| Cell::count(e.output_tokens)),
    ("cost_usd", |e| Cell::Real(e.cost_usd)),
    ("action_errors", |e| Cell::count(e.action_errors)),
    ("covered", |e| Cell::count(e.covered)),
    ("stale", |e| Cell::count(e.stale)),
    ("hallucinated", |e| Cell::count(e.hallucinated)),
    ("invalid", |e| Cell::count(e.invalid)),
    ("faults", |e| Cell::count(e.faults)),
    ("judge", |e| Cell::Flag(e.judge)),
    ("judge_reason", |e| {
        Cell::maybe_text(e.judge_reason.as_deref())
    }),
    ("error", |e| Cell::maybe_text(e.error.as_deref())),
    ("instruction", |e| text(&e.instruction)),
    ("trace", |e| text(&e.trace)),
];

/// A step with its episode.
type Step<'a> = (&'a Episode, &'a StepLog);

/// A column of a file with one row per step.
type StepField = (&'static str, for<'a> fn(&Step<'a>) -> Cell);

/// One row per step, without wall-clock columns (nor backend node ids,
/// which a page's next load numbers differently; they are in
/// `results.jsonl` and the traces).
const STEPS: &[StepField] = &[
    ("task", |(e, _)| text(&e.task)),
    ("strategy", |(e, _)| text(&e.strategy)),
    ("episode", |(e, _)| Cell::count(e.episode)),
    ("step", |(_, s)| Cell::count(s.step)),
    ("refs", |(_, s)| Cell::count(s.refs)),
    ("new_refs", |(_, s)| Cell::count(s.new_refs)),
    ("obs_tokens", |(_, s)| Cell::count(s.obs_tokens)),
    ("image_tokens", |(_, s)| Cell::Count(s.image_tokens.into())),
    ("input_tokens", |(_, s)| Cell::count(s.input_tokens)),
    ("output_tokens", |(_, s)| Cell::count(s.output_tokens)),
    ("op", |(_, s)| {
        text(s.action.as_ref().map_or("", |a| a.op.name()))
    }),
    ("ref", |(_, s)| {
        Cell::maybe_text(s.action.as_ref().and_then(|a| a.reference.as_deref()))
    }),
    ("value", |(_, s)| {
        Cell::maybe_text(s.action.as_ref().and_then(|a| a.value.as_deref()))
    }),
    ("element", |(_, s)| Cell::maybe_text(s.element.as_deref())),
    ("outcome", |(_, s)| text(s.outcome.name())),
    ("message", |(_, s)| Cell::maybe_text(s.message.as_deref())),
    ("judge", |(_, s)| Cell::Flag(s.judge)),
    ("judge_reason", |(_, s)| {
        Cell::maybe_text(s.judge_reason.as_deref())
    }),
    ("raw", |(_, s)| text(&s.raw)),
];

/// The wall-clock columns, one row per step (and the episode's wall time
/// and time-scaled reward on every row of it).
const TIMINGS: &[StepField] = &[
    ("task", |(e, _)| text(&e.task)),
    ("strategy", |(e, _)| text(&e.strategy)),
    ("episode", |(e, _)| Cell::count(e.episode)),
    ("step", |(_, s)| Cell::count(s.step)),
    ("capture_ms", |(_, s)| Cell::Real(s.capture_ms)),
    ("engine_ms", |(_, s)| Cell::Real(s.engine_ms)),
    ("agent_ms", |(_, s)| Cell::Real(s.agent_ms)),
    ("act_ms", |(_, s)| Cell::Real(s.act_ms)),
    ("episode_ms", |(e, _)| Cell::Real(e.wall_ms)),
    ("scaled_reward", |(e, _)| Cell::Real(e.reward)),
];

fn steps(report: &LiveReport) -> Vec<Step<'_>> {
    report
        .episodes
        .iter()
        .flat_map(|e| e.step_log.iter().map(move |s| (e, s)))
        .collect()
}

/// `results.csv`: one row per episode, without wall-clock columns.
pub fn results_csv(report: &LiveReport) -> String {
    emit::csv::file(&Table::of(RESULTS, &report.episodes))
}

/// `steps.csv`: one row per step, without wall-clock columns.
pub fn steps_csv(report: &LiveReport) -> String {
    emit::csv::file(&Table::of(STEPS, &steps(report)))
}

/// `timings.csv`: the wall-clock columns, one row per step.
pub fn timings_csv(report: &LiveReport) -> String {
    emit::csv::file(&Table::of(TIMINGS, &steps(report)))
}
