//! Results per task category: for each tag of the suite, every strategy's step and task success on the tasks carrying it.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::results::Row;
use crate::results::manifest::Manifest;

/// The tag of tasks that carry none, listed when some other task has tags.
pub const UNTAGGED: &str = "(untagged)";

/// One category and how each strategy did on it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Category {
    /// The suite's tag (or [`UNTAGGED`]).
    pub tag: String,
    /// Tasks carrying the tag that have rows.
    pub tasks: usize,
    /// Per strategy, in strategy order.
    pub scores: Vec<CategoryScore>,
}

/// One strategy on one category.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CategoryScore {
    /// Strategy (variant) name.
    pub strategy: String,
    /// Steps run.
    pub steps: usize,
    /// Steps that succeeded.
    pub steps_passed: usize,
    /// `steps_passed / steps` (0 without steps).
    pub step_success: f64,
    /// Tasks with every step run and successful.
    pub tasks_passed: usize,
    /// `tasks_passed / tasks`.
    pub task_success: f64,
}

/// Every tag's results, tags in name order, [`UNTAGGED`] last; empty when
/// no task of the suite has a tag.
pub fn by_tag(manifest: &Manifest, rows: &[Row]) -> Vec<Category> {
    if manifest.tasks.iter().all(|t| t.tags.is_empty()) {
        return Vec::new();
    }
    // (task, strategy) → (steps run, steps passed).
    let mut runs: BTreeMap<(&str, &str), (usize, usize)> = BTreeMap::new();
    for row in rows {
        let entry = runs
            .entry((row.task.as_str(), row.strategy.as_str()))
            .or_default();
        entry.0 += 1;
        entry.1 += usize::from(row.success);
    }
    let present: BTreeSet<&str> = rows.iter().map(|r| r.task.as_str()).collect();
    let mut tagged: BTreeMap<&str, Vec<(&str, usize)>> = BTreeMap::new();
    let mut untagged = Vec::new();
    for task in manifest
        .tasks
        .iter()
        .filter(|t| present.contains(t.id.as_str()))
    {
        for tag in &task.tags {
            tagged
                .entry(tag.as_str())
                .or_default()
                .push((task.id.as_str(), task.steps));
        }
        if task.tags.is_empty() {
            untagged.push((task.id.as_str(), task.steps));
        }
    }
    let mut groups: Vec<(&str, Vec<(&str, usize)>)> = tagged.into_iter().collect();
    if !untagged.is_empty() {
        groups.push((UNTAGGED, untagged));
    }
    groups
        .into_iter()
        .map(|(tag, tasks)| Category {
            tag: tag.to_owned(),
            tasks: tasks.len(),
            scores: manifest
                .strategies
                .iter()
                .map(|strategy| score(strategy, &tasks, &runs))
                .collect(),
        })
        .collect()
}

fn score(
    strategy: &str,
    tasks: &[(&str, usize)],
    runs: &BTreeMap<(&str, &str), (usize, usize)>,
) -> CategoryScore {
    let (mut steps, mut steps_passed, mut tasks_passed) = (0, 0, 0);
    for &(task, expected) in tasks {
        let (run, passed) = runs.get(&(task, strategy)).copied().unwrap_or_default();
        steps += run;
        steps_passed += passed;
        tasks_passed += usize::from(run == expected && passed == run && run > 0);
    }
    let ratio = |a: usize, b: usize| {
        if b == 0 {
            0.0
        } else {
            super::metrics::round(a as f64 / b as f64)
        }
    };
    CategoryScore {
        strategy: strategy.to_owned(),
        steps,
        steps_passed,
        step_success: ratio(steps_passed, steps),
        tasks_passed,
        task_success: ratio(tasks_passed, tasks.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::manifest::TaskInfo;

    fn task(id: &str, steps: usize, tags: &[&str]) -> TaskInfo {
        TaskInfo {
            id: id.to_owned(),
            instruction: String::new(),
            steps,
            tags: tags.iter().map(|t| (*t).to_owned()).collect(),
        }
    }

    use crate::results::row::test_row as row;

    #[test]
    fn a_task_counts_in_each_of_its_tags_and_untagged_tasks_last() {
        let mut manifest: Manifest = serde_json::from_value(serde_json::json!({
            "pagesnap": "0", "suite": "s", "suite_path": "s.toml", "agent": "baseline", "shard": null,
            "strategies": ["aria", "flat"], "tasks": [],
        }))
        .unwrap();
        manifest.tasks = vec![
            task("a", 2, &["modal", "form"]),
            task("b", 1, &["modal"]),
            task("c", 1, &[]),
        ];
        let rows = vec![
            row("a", "aria", 1, true),
            row("a", "aria", 2, true),
            row("a", "flat", 1, true),
            row("a", "flat", 2, false),
            row("b", "aria", 1, false),
            row("b", "flat", 1, true),
            row("c", "aria", 1, true),
            row("c", "flat", 1, true),
        ];
        let categories = by_tag(&manifest, &rows);
        let tags: Vec<&str> = categories.iter().map(|c| c.tag.as_str()).collect();
        assert_eq!(tags, ["form", "modal", UNTAGGED]);
        let modal = &categories[1];
        assert_eq!(modal.tasks, 2);
        assert_eq!(
            (
                modal.scores[0].steps,
                modal.scores[0].steps_passed,
                modal.scores[0].tasks_passed
            ),
            (3, 2, 1)
        );
        assert_eq!(modal.scores[1].tasks_passed, 1);
        assert_eq!(modal.scores[1].step_success, 0.666667);
        // No tags anywhere: no breakdown.
        manifest.tasks.iter_mut().for_each(|t| t.tags.clear());
        assert!(by_tag(&manifest, &rows).is_empty());
    }
}
