//! `results.csv` (one row per judged step, reproducible byte for byte) and `timings.csv` (the wall-clock columns kept apart), each a slice of columns with their cells.

use crate::results::Row;

use super::emit;
use super::table::{Cell, Field, Table};

fn text(s: &str) -> Cell {
    Cell::Text(s.to_owned())
}

/// Every column of a row but the timings.
const RESULTS: &[Field<Row>] = &[
    ("task", |r| text(&r.task)),
    ("strategy", |r| text(&r.strategy)),
    ("step", |r| Cell::count(r.step)),
    ("recording", |r| text(&r.recording)),
    ("expected_op", |r| text(r.expected_op.name())),
    ("expected_target", |r| text(&r.expected_target)),
    ("expected_value", |r| {
        Cell::maybe_text(r.expected_value.as_deref())
    }),
    ("op", |r| text(r.op.map_or("", |o| o.name()))),
    ("ref", |r| Cell::maybe_text(r.reference.as_deref())),
    ("value", |r| Cell::maybe_text(r.value.as_deref())),
    ("node", |r| Cell::maybe_count(r.node)),
    ("element", |r| Cell::maybe_text(r.element.as_deref())),
    ("hallucinated", |r| Cell::flag(r.hallucinated)),
    ("target_recall", |r| Cell::Flag(r.target_recall)),
    ("op_ok", |r| Cell::flag(r.op_ok)),
    ("element_ok", |r| Cell::Flag(r.element_ok)),
    ("value_ok", |r| Cell::Flag(r.value_ok)),
    ("success", |r| Cell::flag(r.success)),
    ("op_f1", |r| Cell::Fixed(r.op_f1, 4)),
    ("refs", |r| Cell::count(r.refs)),
    ("input_tokens", |r| Cell::count(r.input_tokens)),
    ("obs_tokens_o200k", |r| Cell::count(r.obs_tokens_o200k)),
    ("obs_tokens_cl100k", |r| Cell::count(r.obs_tokens_cl100k)),
    ("image_tokens", |r| Cell::Count(r.image_tokens.into())),
    ("output_tokens", |r| Cell::count(r.output_tokens)),
    ("retries", |r| Cell::Count(r.retries.into())),
    ("fault", |r| Cell::maybe_text(r.fault.as_deref())),
    ("invalid", |r| Cell::flag(r.invalid)),
    ("cost_usd", |r| Cell::Fixed(r.cost_usd, 6)),
    ("judge", |r| Cell::Flag(r.judge)),
    ("judge_reason", |r| {
        Cell::maybe_text(r.judge_reason.as_deref())
    }),
    ("task_judge", |r| Cell::Flag(r.task_judge)),
    ("error", |r| Cell::maybe_text(r.error.as_deref())),
    ("raw", |r| text(&r.raw)),
];

/// The wall-clock columns, kept apart so `results.csv` is byte-for-byte reproducible.
const TIMINGS: &[Field<Row>] = &[
    ("task", |r| text(&r.task)),
    ("strategy", |r| text(&r.strategy)),
    ("step", |r| Cell::count(r.step)),
    ("analysis_us", |r| Cell::Count(r.analysis_us)),
    ("engine_us", |r| Cell::Count(r.engine_us)),
    ("agent_us", |r| Cell::Count(r.agent_us)),
];

/// `results.csv`: every column of the rows but the timings.
pub fn results(rows: &[Row]) -> String {
    emit::csv::file(&Table::of(RESULTS, rows))
}

/// `timings.csv`: the wall-clock columns.
pub fn timings(rows: &[Row]) -> String {
    emit::csv::file(&Table::of(TIMINGS, rows))
}
