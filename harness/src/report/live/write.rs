//! A live run's files: `results.csv` (one row per episode), `steps.csv` (one row per step), `timings.csv` (wall-clock, apart), `summary.json`, `report.md`, `report.html`.
//!
//! Everything but `timings.csv`, the `timing` parts of `summary.json` and the
//! latency table of the reports is a function of the episodes' content, so a
//! resumed run gives the same bytes as an uninterrupted one.

use std::path::Path;

use anyhow::{Context, Result};
use serde::Serialize;

pub use super::csv::{results_csv, steps_csv, timings_csv};
use super::tables::LiveTables;
use super::{LiveReport, LiveSummary};
use crate::report::metrics;
use crate::report::significance;
use crate::report::write::{Bootstrap, Significance};

#[derive(Serialize)]
struct Summary<'a> {
    suite: &'a str,
    agent: &'a str,
    kind: &'static str,
    settings: &'a Option<crate::results::LiveSettings>,
    tasks: usize,
    bootstrap: Bootstrap,
    strategies: &'a [LiveSummary],
    significance: Significance<'a>,
}

/// Writes every report file into `out`.
pub fn write_all(out: &Path, report: &LiveReport) -> Result<()> {
    write(&out.join("results.csv"), &results_csv(report))?;
    write(&out.join("steps.csv"), &steps_csv(report))?;
    write(&out.join("timings.csv"), &timings_csv(report))?;
    let summary = Summary {
        suite: &report.manifest.suite,
        agent: &report.manifest.agent,
        kind: "live",
        settings: &report.manifest.live,
        tasks: report.manifest.tasks.len(),
        bootstrap: Bootstrap {
            resamples: metrics::RESAMPLES,
            seed: metrics::SEED,
            unit: "task (calibration: episode)",
            level: 0.95,
        },
        strategies: &report.summaries,
        significance: Significance {
            test: "McNemar exact (two-sided) on episode success over the (task, episode) pairs; paired bootstrap over tasks for the success-rate difference",
            alpha: significance::ALPHA,
            comparisons: &report.comparisons,
        },
    };
    let mut json = serde_json::to_string_pretty(&summary)?;
    json.push('\n');
    write(&out.join("summary.json"), &json)?;
    let tables = LiveTables::of(report);
    write(
        &out.join("report.md"),
        &super::markdown::page(report, &tables),
    )?;
    write(
        &out.join("report.html"),
        &super::html::page(report, &tables),
    )
}

fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).with_context(|| format!("could not write {}", path.display()))
}

/// `report.md` alone (the tests read it without writing a run folder).
#[cfg(test)]
pub fn markdown(report: &LiveReport) -> String {
    super::markdown::page(report, &LiveTables::of(report))
}
