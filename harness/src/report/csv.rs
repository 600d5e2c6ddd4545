//! `results.csv` (one row per judged step, reproducible byte for byte) and `timings.csv` (the wall-clock columns kept apart).

use std::fmt::Write as _;

use crate::results::Row;

use super::escape::cell;

const CSV_HEADER: &[&str] = &[
    "task",
    "strategy",
    "step",
    "recording",
    "expected_op",
    "expected_target",
    "expected_value",
    "op",
    "ref",
    "value",
    "node",
    "element",
    "hallucinated",
    "target_recall",
    "op_ok",
    "element_ok",
    "value_ok",
    "success",
    "op_f1",
    "refs",
    "input_tokens",
    "obs_tokens_o200k",
    "obs_tokens_cl100k",
    "image_tokens",
    "output_tokens",
    "retries",
    "fault",
    "invalid",
    "cost_usd",
    "judge",
    "judge_reason",
    "task_judge",
    "error",
    "raw",
];

/// `results.csv`: every column of the rows but the timings.
pub fn results(rows: &[Row]) -> String {
    let mut out = CSV_HEADER.join(",");
    out.push('\n');
    let flag = |b: Option<bool>| b.map_or(String::new(), |b| b.to_string());
    for r in rows {
        let fields = [
            cell(&r.task),
            cell(&r.strategy),
            r.step.to_string(),
            cell(&r.recording),
            r.expected_op.name().to_owned(),
            cell(&r.expected_target),
            cell(r.expected_value.as_deref().unwrap_or("")),
            r.op.map_or("", |o| o.name()).to_owned(),
            cell(r.reference.as_deref().unwrap_or("")),
            cell(r.value.as_deref().unwrap_or("")),
            r.node.map_or(String::new(), |n| n.to_string()),
            cell(r.element.as_deref().unwrap_or("")),
            r.hallucinated.to_string(),
            flag(r.target_recall),
            r.op_ok.to_string(),
            flag(r.element_ok),
            flag(r.value_ok),
            r.success.to_string(),
            format!("{:.4}", r.op_f1),
            r.refs.to_string(),
            r.input_tokens.to_string(),
            r.obs_tokens_o200k.to_string(),
            r.obs_tokens_cl100k.to_string(),
            r.image_tokens.to_string(),
            r.output_tokens.to_string(),
            r.retries.to_string(),
            cell(r.fault.as_deref().unwrap_or("")),
            r.invalid.to_string(),
            format!("{:.6}", r.cost_usd),
            flag(r.judge),
            cell(r.judge_reason.as_deref().unwrap_or("")),
            flag(r.task_judge),
            cell(r.error.as_deref().unwrap_or("")),
            cell(&r.raw),
        ];
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}

/// Wall-clock columns, kept apart so `results.csv` is byte-for-byte reproducible.
pub fn timings(rows: &[Row]) -> String {
    let mut out = String::from("task,strategy,step,analysis_us,engine_us,agent_us\n");
    for r in rows {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{}",
            cell(&r.task),
            cell(&r.strategy),
            r.step,
            r.analysis_us,
            r.engine_us,
            r.agent_us
        );
    }
    out
}
