//! Report writers: `results.csv`, `timings.csv`, `summary.json`, `report.md`, `report.html` — page-derived strings escaped in each.
//!
//! Everything but `timings.csv`, the `timing` parts of `summary.json` and the
//! latency charts of `report.html` is a function of the rows' judged content,
//! so the same inputs give the same bytes.

use std::path::Path;

use anyhow::{Context, Result};
use serde::Serialize;

use super::categories::Category;
use super::figures::Report;
use super::metrics::{self, Agreement, StrategySummary};
use super::significance::{self, Comparison};
use super::tables::Tables;
use super::{csv, html, markdown};

#[derive(Serialize)]
struct Summary<'a> {
    suite: &'a str,
    agent: &'a str,
    tasks: usize,
    bootstrap: Bootstrap,
    strategies: &'a [StrategySummary],
    judge: Option<Agreement>,
    significance: Significance<'a>,
    #[serde(skip_serializing_if = "<[Category]>::is_empty")]
    categories: &'a [Category],
}

/// How the intervals of a summary were computed (both runners' `summary.json`).
#[derive(Serialize)]
pub(super) struct Bootstrap {
    pub(super) resamples: usize,
    pub(super) seed: u64,
    pub(super) unit: &'static str,
    pub(super) level: f64,
}

/// The paired tests of a summary (both runners' `summary.json`).
#[derive(Serialize)]
pub(super) struct Significance<'a> {
    pub(super) test: &'static str,
    pub(super) alpha: f64,
    pub(super) comparisons: &'a [Comparison],
}

/// Writes every report file into `out`.
pub fn write_all(out: &Path, report: &Report) -> Result<()> {
    write(&out.join("results.csv"), &csv::results(&report.rows))?;
    write(&out.join("timings.csv"), &csv::timings(&report.rows))?;
    let summary = Summary {
        suite: &report.manifest.suite,
        agent: &report.manifest.agent,
        tasks: report.tasks_run().len(),
        bootstrap: Bootstrap {
            resamples: metrics::RESAMPLES,
            seed: metrics::SEED,
            unit: "task",
            level: 0.95,
        },
        strategies: &report.summaries,
        judge: report.judge,
        significance: Significance {
            test: "McNemar exact (two-sided) on step success; paired bootstrap over tasks for the SR difference",
            alpha: significance::ALPHA,
            comparisons: &report.comparisons,
        },
        categories: &report.categories,
    };
    let mut json = serde_json::to_string_pretty(&summary)?;
    json.push('\n');
    write(&out.join("summary.json"), &json)?;
    let tables = Tables::of(report);
    write(&out.join("report.md"), &markdown::page(report, &tables))?;
    write(&out.join("report.html"), &html::page(report, &tables))
}

fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).with_context(|| format!("could not write {}", path.display()))
}
