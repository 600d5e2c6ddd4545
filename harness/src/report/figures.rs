//! A finished run ready to be written: its rows in report order and every figure computed from them.

use std::collections::BTreeSet;

use crate::results::Row;
use crate::results::manifest::{Manifest, TaskInfo};

use super::categories::{self, Category};
use super::metrics::{self, Agreement, StrategySummary};
use super::significance::{self, Comparison};

/// A finished run, ready to be written: rows in suite order, figures computed.
pub struct Report {
    /// What the run covered.
    pub manifest: Manifest,
    /// Rows sorted by (suite task order, strategy order, step).
    pub rows: Vec<Row>,
    /// Per strategy, in strategy order.
    pub summaries: Vec<StrategySummary>,
    /// Every pair of strategies.
    pub comparisons: Vec<Comparison>,
    /// LLM judge vs rule judge over all strategies.
    pub judge: Option<Agreement>,
    /// Results per suite tag (empty when no task has tags).
    pub categories: Vec<Category>,
}

impl Report {
    /// Sorts `rows` into report order (dropping rows of tasks or strategies
    /// the manifest does not list) and computes every figure.
    pub fn build(manifest: Manifest, mut rows: Vec<Row>) -> Report {
        let order = |row: &Row| {
            (
                manifest.task_index(&row.task),
                manifest.strategy_index(&row.strategy),
                row.step,
            )
        };
        rows.retain(|row| {
            let (t, s, _) = order(row);
            t.is_some() && s.is_some()
        });
        rows.sort_by_key(order);
        let summaries = manifest
            .strategies
            .iter()
            .map(|s| {
                let mine: Vec<&Row> = rows.iter().filter(|r| &r.strategy == s).collect();
                metrics::summarize(s, &mine)
            })
            .collect();
        let comparisons = significance::compare_all(&manifest.strategies, &rows);
        let judge = metrics::agreement(&rows.iter().collect::<Vec<_>>());
        let categories = categories::by_tag(&manifest, &rows);
        Report {
            manifest,
            rows,
            summaries,
            comparisons,
            judge,
            categories,
        }
    }

    /// Tasks that have rows, in suite order.
    pub fn tasks_run(&self) -> Vec<&TaskInfo> {
        let present: BTreeSet<&str> = self.rows.iter().map(|r| r.task.as_str()).collect();
        self.manifest
            .tasks
            .iter()
            .filter(|t| present.contains(t.id.as_str()))
            .collect()
    }
}
