//! A replay's tables, computed once from its figures for `report.md` and `report.html` alike.
//!
//! Where the two pages word or choose columns differently (the HTML summary
//! has cost and agent latency, the Markdown one op macro-F1 and error
//! counts), the column says which format shows it; the rows are the same.

use crate::results::Row;

use super::figures::Report;
use super::format::{expected, got, mde, spread, task_score, usd, verdict};
use super::metrics::{Agreement, StrategySummary};
use super::steps;
use super::table::{Cell, Column, Format, Head, Table};

/// Every table of a replay's reports; a section a run has no figures for is `None`.
pub struct Tables {
    /// Accuracy, tokens, faults and latency per strategy.
    pub summary: Table,
    /// Token spreads and cost per strategy.
    pub tokens: Table,
    /// Results per suite tag (none: no task has tags).
    pub categories: Option<Table>,
    /// Paired tests between strategies (none: one strategy).
    pub significance: Option<Table>,
    /// The LLM judge against the rule judge per step (none: no LLM judge ran).
    pub judge: Option<Table>,
    /// The LLM judge against the rule judge per task (Markdown; none: no task verdicts).
    pub task_judge: Option<Table>,
    /// Steps passed per task and strategy.
    pub tasks: Table,
    /// The steps that failed (none: every step passed).
    pub failed: Option<Table>,
}

impl Tables {
    /// Computes every table of `report`.
    pub fn of(report: &Report) -> Tables {
        Tables {
            summary: summary(&report.summaries),
            tokens: tokens(&report.summaries),
            categories: (!report.categories.is_empty()).then(|| categories(report)),
            significance: (!report.comparisons.is_empty()).then(|| significance(report)),
            judge: report.judge.map(|all| {
                let mut rows: Vec<(&str, &Agreement)> = report
                    .summaries
                    .iter()
                    .filter_map(|s| s.judge.as_ref().map(|a| (s.strategy.as_str(), a)))
                    .collect();
                rows.push(("all", &all));
                judge("steps", &rows)
            }),
            task_judge: report.judge.and_then(|_| {
                let rows: Vec<(&str, &Agreement)> = report
                    .summaries
                    .iter()
                    .filter_map(|s| s.task_judge.as_ref().map(|a| (s.strategy.as_str(), a)))
                    .collect();
                (!rows.is_empty()).then(|| judge("tasks", &rows))
            }),
            tasks: tasks(report),
            failed: report
                .rows
                .iter()
                .any(|r| !r.success)
                .then(|| failed(&report.rows)),
        }
    }
}

fn summary(summaries: &[StrategySummary]) -> Table {
    use Format::{Html, Markdown};
    let mut table = Table::new(vec![
        Column::label("strategy"),
        Column::label("steps"),
        Column::label("target recall"),
        Column::label("element acc."),
        Column::label("op F1"),
        Column::label("op macro-F1").only(Markdown),
        Column::label("step SR"),
        Column::label("task SR"),
        Column::label("input tok"),
        Column::label("image tok"),
        Column::label("invalid"),
        Column::label("halluc. refs"),
        Column::label("faults").only(Markdown),
        Column::label("faults / retries").only(Html),
        Column::label("cost $").only(Html),
        Column::label("analysis µs (mean)").only(Markdown),
        Column::label("render µs (mean)").only(Markdown),
        Column::label("analysis + render µs (mean)").only(Html),
        Column::label("agent µs (median / p90)").only(Html),
        Column::label("errors").only(Markdown),
    ])
    .id("summary")
    .wide();
    for s in summaries {
        let t = &s.timing;
        table.push(vec![
            Cell::Text(s.strategy.clone()),
            Cell::count(s.steps),
            Cell::RateStacked(s.target_recall),
            Cell::RateStacked(s.element_accuracy),
            Cell::RateStacked(s.operation_f1),
            Cell::Fixed(s.op_macro_f1, 3),
            Cell::RateStacked(s.step_success),
            Cell::RateStacked(s.task_success),
            Cell::Fixed(s.mean_input_tokens, 0),
            Cell::Fixed(s.mean_image_tokens, 0),
            Cell::RateStacked(s.invalid_rate),
            Cell::RateStacked(s.hallucination_rate),
            Cell::count(s.faults.values().sum()),
            Cell::Figure(format!("{} / {}", faults(s), s.retries)),
            Cell::Fixed(s.total_cost_usd, 4),
            Cell::Fixed(t.mean_analysis_us, 0),
            Cell::Fixed(t.mean_engine_us, 0),
            Cell::Figure(format!(
                "{:.0} + {:.0}",
                t.mean_analysis_us, t.mean_engine_us
            )),
            Cell::Figure(format!("{:.0} / {:.0}", t.median_agent_us, t.p90_agent_us)),
            Cell::count(s.errors),
        ]);
    }
    table
}

/// Faults per kind (`rate_limit 2, timeout 1`), `0` for none.
fn faults(s: &StrategySummary) -> String {
    if s.faults.is_empty() {
        return "0".to_owned();
    }
    s.faults
        .iter()
        .map(|(kind, n)| format!("{kind} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn tokens(summaries: &[StrategySummary]) -> Table {
    let mut table = Table::new(vec![
        Column::label("strategy"),
        Column::label("input tok (median / p90 / max)"),
        Column::label("observation tok (median / p90 / max)"),
        Column::label("image tok (mean)"),
        Column::label("cost per step (USD)").html(Head::Label("cost per step $")),
        Column::label("total cost (USD)").html(Head::Label("total cost $")),
        Column::label("step SR"),
    ])
    .id("tokens");
    for s in summaries {
        table.push(vec![
            Cell::Text(s.strategy.clone()),
            Cell::Figure(spread(&s.input_tokens)),
            Cell::Figure(spread(&s.obs_tokens)),
            Cell::Fixed(s.mean_image_tokens, 0),
            Cell::Figure(usd(s.mean_cost_usd)),
            Cell::Figure(usd(s.total_cost_usd)),
            Cell::RateStacked(s.step_success),
        ]);
    }
    table
}

fn categories(report: &Report) -> Table {
    let mut columns = vec![Column::label("category"), Column::label("tasks")];
    columns.extend(report.summaries.iter().map(|s| Column::text(&s.strategy)));
    let mut table = Table::new(columns).id("categories");
    for c in &report.categories {
        let mut row = vec![Cell::Text(c.tag.clone()), Cell::count(c.tasks)];
        row.extend(c.scores.iter().map(|score| Cell::Category {
            step_success: score.step_success,
            steps_passed: score.steps_passed,
            steps: score.steps,
            tasks_passed: score.tasks_passed,
            tasks: c.tasks,
        }));
        table.push(row);
    }
    table
}

fn significance(report: &Report) -> Table {
    let mut table = Table::new(vec![
        Column::label("A"),
        Column::label("B"),
        Column::label("steps"),
        Column::label("A only"),
        Column::label("B only"),
        Column::label("SR(A) − SR(B)"),
        Column::label("p"),
        Column::label("verdict"),
        Column::label("detectable")
            .title("the smallest SR difference these paired steps can show (α 0.05, power 0.8)"),
    ])
    .id("significance");
    for c in &report.comparisons {
        table.push(vec![
            Cell::Text(c.a.clone()),
            Cell::Text(c.b.clone()),
            Cell::count(c.steps),
            Cell::Count(c.a_only),
            Cell::Count(c.b_only),
            Cell::Difference(c.difference),
            Cell::Fixed(c.p_value, 4),
            Cell::Verdict {
                text: verdict(c),
                significant: c.significant,
            },
            Cell::Figure(mde(c)),
        ]);
    }
    table
}

/// The judges' agreement, one row per `(name, agreement)`; `counted` names
/// what the second column counts (`steps` or `tasks`).
fn judge(counted: &'static str, rows: &[(&str, &Agreement)]) -> Table {
    let mut table = Table::new(vec![
        Column::label("strategy"),
        Column::label(counted),
        Column::label("accuracy"),
        Column::label("Cohen's kappa"),
        Column::label("both ✓"),
        Column::label("judge ✓ rule ✗"),
        Column::label("rule ✓ judge ✗"),
        Column::label("both ✗"),
    ])
    .id("judge");
    for (name, a) in rows {
        let c = &a.confusion;
        table.push(vec![
            Cell::Text((*name).to_owned()),
            Cell::count(a.steps),
            Cell::Fixed(a.accuracy, 3),
            Cell::Figure(a.kappa.map_or("—".to_owned(), |k| format!("{k:.3}"))),
            Cell::Count(c.both_success),
            Cell::Count(c.judge_only),
            Cell::Count(c.rule_only),
            Cell::Count(c.both_failure),
        ]);
    }
    table
}

fn tasks(report: &Report) -> Table {
    let mut columns = vec![Column::label("task")];
    columns.extend(report.summaries.iter().map(|s| Column::text(&s.strategy)));
    let mut table = Table::new(columns).id("task-grid").class("grid");
    for task in report.tasks_run() {
        let mut row = vec![Cell::Task {
            id: task.id.clone(),
            instruction: Some(task.instruction.clone()),
        }];
        for s in &report.summaries {
            let (passed, total) = task_score(&report.rows, &task.id, &s.strategy);
            row.push(Cell::Score {
                passed,
                total,
                title: format!(
                    "{} — {}: {passed}/{total} steps passed. {}",
                    task.id, s.strategy, task.instruction
                ),
                href: steps::relative(&task.id, &s.strategy, 1),
            });
        }
        table.push(row);
    }
    table
}

fn failed(rows: &[Row]) -> Table {
    let mut table = Table::new(vec![
        Column::label("task"),
        Column::label("step"),
        Column::label("strategy"),
        Column::label("expected"),
        Column::label("got"),
        Column::label("error"),
        Column::label("raw answer").only(Format::Html),
    ])
    .id("failed");
    for r in rows.iter().filter(|r| !r.success) {
        table.push(vec![
            Cell::Text(r.task.clone()),
            Cell::Link(
                Box::new(Cell::count(r.step)),
                steps::relative(&r.task, &r.strategy, r.step),
            ),
            Cell::Text(r.strategy.clone()),
            Cell::LongText(expected(r)),
            Cell::LongText(got(r)),
            Cell::LongText(r.error.clone().unwrap_or_default()),
            Cell::LongText(truncate(&r.raw, 240)),
        ]);
    }
    table
}

/// The first `max` characters of `text`, and `…` when there were more.
fn truncate(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncate_respects_char_boundaries() {
        assert_eq!(truncate("héllo", 2), "hé…");
        assert_eq!(truncate("ok", 5), "ok");
    }
}
