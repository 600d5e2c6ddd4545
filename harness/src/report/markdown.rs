//! Report writers: `results.csv`, `timings.csv`, `summary.json`, `report.md`, `report.html` — page-derived strings escaped in each.
//!
//! Everything but `timings.csv`, the `timing` parts of `summary.json` and the
//! latency charts of `report.html` is a function of the rows' judged content,
//! so the same inputs give the same bytes.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use serde::Serialize;

use super::html;
use super::metrics::{self, Agreement, Estimate, StrategySummary};
use super::significance::{self, Comparison};
use crate::results::Row;
use crate::results::manifest::{Manifest, TaskInfo};

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
        Report {
            manifest,
            rows,
            summaries,
            comparisons,
            judge,
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

#[derive(Serialize)]
struct Summary<'a> {
    suite: &'a str,
    agent: &'a str,
    tasks: usize,
    bootstrap: Bootstrap,
    strategies: &'a [StrategySummary],
    judge: Option<Agreement>,
    significance: Significance<'a>,
}

#[derive(Serialize)]
struct Bootstrap {
    resamples: usize,
    seed: u64,
    unit: &'static str,
    level: f64,
}

#[derive(Serialize)]
struct Significance<'a> {
    test: &'static str,
    alpha: f64,
    comparisons: &'a [Comparison],
}

/// Writes every report file into `out`.
pub fn write_all(out: &Path, report: &Report) -> Result<()> {
    write(&out.join("results.csv"), &csv(&report.rows))?;
    write(&out.join("timings.csv"), &timings_csv(&report.rows))?;
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
    };
    let mut json = serde_json::to_string_pretty(&summary)?;
    json.push('\n');
    write(&out.join("summary.json"), &json)?;
    write(&out.join("report.md"), &markdown(report))?;
    write(&out.join("report.html"), &html::render(report))
}

fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).with_context(|| format!("could not write {}", path.display()))
}

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

fn csv(rows: &[Row]) -> String {
    let mut out = CSV_HEADER.join(",");
    out.push('\n');
    let flag = |b: Option<bool>| b.map_or(String::new(), |b| b.to_string());
    for r in rows {
        let fields = [
            cell(&r.task),
            cell(&r.strategy),
            r.step.to_string(),
            cell(&r.recording),
            r.expected_op.as_str().to_owned(),
            cell(&r.expected_target),
            cell(r.expected_value.as_deref().unwrap_or("")),
            r.op.map_or("", |o| o.as_str()).to_owned(),
            cell(r.reference.as_deref().unwrap_or("")),
            cell(r.value.as_deref().unwrap_or("")),
            r.node.map_or(String::new(), |n| n.to_string()),
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
fn timings_csv(rows: &[Row]) -> String {
    let mut out = String::from("task,strategy,step,engine_us,agent_us\n");
    for r in rows {
        let _ = writeln!(
            out,
            "{},{},{},{},{}",
            cell(&r.task),
            cell(&r.strategy),
            r.step,
            r.engine_us,
            r.agent_us
        );
    }
    out
}

/// A CSV cell: formula prefixes (`= + - @`, tab, CR) neutralised with a
/// leading `'` (OWASP CSV injection), then RFC 4180 quoting.
pub fn cell(text: &str) -> String {
    let mut value = String::new();
    if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        value.push('\'');
    }
    value.push_str(text);
    if value.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", value.replace('"', "\"\""))
    } else {
        value
    }
}

/// Markdown-safe text: HTML metacharacters as entities (a page label like
/// `<img onerror=…>` must not render), Markdown punctuation backslash-escaped,
/// line breaks flattened.
pub fn md(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\n' | '\r' => out.push(' '),
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '#' | '!' | '(' | ')' | '{' | '}' | '~' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// `0.812 [0.750, 0.870]`.
pub fn rate(e: &Estimate) -> String {
    format!("{:.3} [{:.3}, {:.3}]", e.value, e.low, e.high)
}

fn markdown(report: &Report) -> String {
    let manifest = &report.manifest;
    let summaries = &report.summaries;
    let rows = &report.rows;
    let tasks = report.tasks_run();
    let mut out = String::new();
    let _ = writeln!(out, "# pagesnap run: suite {}\n", md(&manifest.suite));
    if !manifest.description.is_empty() {
        let _ = writeln!(out, "{}\n", md(&manifest.description));
    }
    let _ = writeln!(
        out,
        "Agent `{}`, {} tasks, {} steps per strategy. Rates with 95% bootstrap intervals \
         ({} resamples of tasks, fixed seed). Tokens: the agent's input tokens (o200k_base of \
         the prompt for local agents); image tokens by OpenAI's formula. Engine µs: page build + \
         analysis + render.\n",
        md(&manifest.agent),
        tasks.len(),
        tasks.iter().map(|t| t.steps).sum::<usize>(),
        metrics::RESAMPLES,
    );
    out.push_str(
        "| strategy | steps | target recall | element acc. | op F1 | op macro-F1 | step SR | task SR | \
         input tok | image tok | invalid | halluc. refs | faults | engine µs (mean) | errors |\n",
    );
    out.push_str("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for s in summaries {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {:.3} | {} | {} | {:.0} | {:.0} | {} | {} | {} | {:.0} | {} |",
            md(&s.strategy),
            s.steps,
            rate(&s.target_recall),
            rate(&s.element_accuracy),
            rate(&s.operation_f1),
            s.op_macro_f1,
            rate(&s.step_success),
            rate(&s.task_success),
            s.mean_input_tokens,
            s.mean_image_tokens,
            rate(&s.invalid_rate),
            rate(&s.hallucination_rate),
            s.faults.values().sum::<usize>(),
            s.timing.mean_engine_us,
            s.errors,
        );
    }
    out.push_str("\n## Significance\n\n");
    out.push_str(
        "Step success, paired on the steps both strategies ran: McNemar's exact test \
         (two-sided) and a paired bootstrap over tasks of the SR difference (95%).\n\n",
    );
    if report.comparisons.is_empty() {
        out.push_str("One strategy only: nothing to compare.\n");
    } else {
        out.push_str("| A | B | steps | A only | B only | SR(A) − SR(B) | p | verdict |\n");
        out.push_str("|---|---|---|---|---|---|---|---|\n");
        for c in &report.comparisons {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {:+.3} [{:+.3}, {:+.3}] | {:.4} | {} |",
                md(&c.a),
                md(&c.b),
                c.steps,
                c.a_only,
                c.b_only,
                c.difference.value,
                c.difference.low,
                c.difference.high,
                c.p_value,
                verdict(c),
            );
        }
    }
    if let Some(overall) = report.judge {
        out.push_str("\n## LLM judge agreement with the rule judge\n\n");
        out.push_str("| strategy | steps | accuracy | Cohen's kappa |\n|---|---|---|---|\n");
        let line = |name: &str, a: &Agreement| {
            format!(
                "| {} | {} | {:.3} | {} |\n",
                md(name),
                a.steps,
                a.accuracy,
                a.kappa.map_or("—".to_owned(), |k| format!("{k:.3}"))
            )
        };
        for s in summaries {
            if let Some(a) = &s.judge {
                out.push_str(&line(&s.strategy, a));
            }
        }
        out.push_str(&line("all", &overall));
        let tasks_judged: Vec<String> = summaries
            .iter()
            .filter_map(|s| s.task_judge.as_ref().map(|a| line(&s.strategy, a)))
            .collect();
        if !tasks_judged.is_empty() {
            out.push_str("\nPer task (the judge saw the whole action sequence; column `steps` counts tasks):\n\n");
            out.push_str("| strategy | tasks | accuracy | Cohen's kappa |\n|---|---|---|---|\n");
            out.extend(tasks_judged);
        }
    }
    out.push_str("\n## Tasks\n\n");
    out.push_str("Steps passed per task and strategy.\n\n| task |");
    for s in summaries {
        let _ = write!(out, " {} |", md(&s.strategy));
    }
    out.push_str("\n|---|");
    out.push_str(&"---|".repeat(summaries.len()));
    out.push('\n');
    for task in &tasks {
        let _ = write!(out, "| {} |", md(&task.id));
        for s in summaries {
            let (passed, total) = task_score(rows, &task.id, &s.strategy);
            let mark = if passed == total && total > 0 {
                "✓"
            } else {
                "✗"
            };
            let _ = write!(out, " {mark} {passed}/{total} |");
        }
        out.push('\n');
    }
    out.push_str("\n## Failed steps\n\n");
    let failed: Vec<&Row> = rows.iter().filter(|r| !r.success).collect();
    if failed.is_empty() {
        out.push_str("None.\n");
    } else {
        out.push_str(
            "| task | step | strategy | expected | got | error |\n|---|---|---|---|---|---|\n",
        );
        for r in failed {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} |",
                md(&r.task),
                r.step,
                md(&r.strategy),
                md(&expected(r)),
                md(&got(r)),
                md(r.error.as_deref().unwrap_or("")),
            );
        }
    }
    out
}

/// "significant at 0.05" or "not significant".
pub fn verdict(c: &Comparison) -> &'static str {
    if c.significant {
        "significant at 0.05"
    } else {
        "not significant"
    }
}

/// Steps passed and steps run of one task under one strategy.
pub fn task_score(rows: &[Row], task: &str, strategy: &str) -> (usize, usize) {
    rows.iter()
        .filter(|r| r.task == task && r.strategy == strategy)
        .fold((0, 0), |(p, n), r| (p + usize::from(r.success), n + 1))
}

/// The expected step as one line: `click #sign-in`, `type #email ada@example.com`.
pub fn expected(r: &Row) -> String {
    let text = format!(
        "{} {} {}",
        r.expected_op.as_str(),
        r.expected_target,
        r.expected_value.as_deref().unwrap_or("")
    );
    text.trim().to_owned()
}

/// The agent's answer as one line.
pub fn got(r: &Row) -> String {
    let text = format!(
        "{} {} {}",
        r.op.map_or("—", |o| o.as_str()),
        r.reference.as_deref().unwrap_or(""),
        r.value.as_deref().unwrap_or("")
    );
    text.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_cells_neutralise_formulas_and_quote() {
        assert_eq!(cell("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        assert_eq!(cell("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(cell("-1"), "'-1");
        assert_eq!(cell("+cmd"), "'+cmd");
        assert_eq!(cell("a,b"), "\"a,b\"");
        assert_eq!(cell("plain"), "plain");
    }

    #[test]
    fn markdown_escapes_html_and_table_syntax() {
        let escaped = md("<img src=x onerror=alert(1)> | *x*");
        assert!(!escaped.contains('<'));
        assert_eq!(
            escaped,
            "&lt;img src=x onerror=alert\\(1\\)&gt; \\| \\*x\\*"
        );
    }
}
