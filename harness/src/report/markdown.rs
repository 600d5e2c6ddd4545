//! `report.md`: the run's tables in Markdown, every page-derived string escaped.

use std::fmt::Write as _;

use crate::results::Row;

use super::escape::md;
use super::figures::Report;
use super::format::{
    expected, got, mde, rate, significance_notes, spread, task_score, usd, verdict,
};
use super::metrics::{self, Agreement};

/// The whole report.
pub fn render(report: &Report) -> String {
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
         the prompt for local agents); image tokens by OpenAI's formula. Analysis µs: page build \
         and analysis of a step's recording, done once per step for every strategy; render µs: \
         the strategy's own rendering.\n",
        md(&manifest.agent),
        tasks.len(),
        tasks.iter().map(|t| t.steps).sum::<usize>(),
        metrics::RESAMPLES,
    );
    out.push_str(
        "| strategy | steps | target recall | element acc. | op F1 | op macro-F1 | step SR | task SR | \
         input tok | image tok | invalid | halluc. refs | faults | analysis µs (mean) | render µs (mean) | errors |\n",
    );
    out.push_str("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for s in summaries {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {:.3} | {} | {} | {:.0} | {:.0} | {} | {} | {} | {:.0} | {:.0} | {} |",
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
            s.timing.mean_analysis_us,
            s.timing.mean_engine_us,
            s.errors,
        );
    }
    tokens_table(&mut out, report);
    categories_table(&mut out, report);
    out.push_str("\n## Significance\n\n");
    out.push_str(
        "Step success, paired on the steps both strategies ran: McNemar's exact test \
         (two-sided) and a paired bootstrap over tasks of the SR difference (95%).\n\n",
    );
    if report.comparisons.is_empty() {
        out.push_str("One strategy only: nothing to compare.\n");
    } else {
        out.push_str(
            "| A | B | steps | A only | B only | SR(A) − SR(B) | p | verdict | detectable |\n",
        );
        out.push_str("|---|---|---|---|---|---|---|---|---|\n");
        for c in &report.comparisons {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {:+.3} [{:+.3}, {:+.3}] | {:.4} | {} | {} |",
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
                mde(c),
            );
        }
        out.push_str(
            "\n*detectable*: the smallest SR difference these paired steps can show \
             (α 0.05, power 0.8, at the observed discordance).\n",
        );
        let notes = significance_notes(report);
        if !notes.is_empty() {
            out.push('\n');
        }
        for note in notes {
            let _ = writeln!(out, "- {}", md(&note));
        }
    }
    if let Some(overall) = report.judge {
        out.push_str("\n## LLM judge agreement with the rule judge\n\n");
        out.push_str(
            "Counts: both say success / only the LLM judge does (lenient) / only the rule does \
             (strict) / both say failure.\n\n",
        );
        out.push_str(
            "| strategy | steps | accuracy | Cohen's kappa | both ✓ | judge ✓ rule ✗ | rule ✓ judge ✗ | both ✗ |\n\
             |---|---|---|---|---|---|---|---|\n",
        );
        let line = |name: &str, a: &Agreement| {
            let c = &a.confusion;
            format!(
                "| {} | {} | {:.3} | {} | {} | {} | {} | {} |\n",
                md(name),
                a.steps,
                a.accuracy,
                a.kappa.map_or("—".to_owned(), |k| format!("{k:.3}")),
                c.both_success,
                c.judge_only,
                c.rule_only,
                c.both_failure,
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
            out.push_str(
                "| strategy | tasks | accuracy | Cohen's kappa | both ✓ | judge ✓ rule ✗ | rule ✓ judge ✗ | both ✗ |\n\
                 |---|---|---|---|---|---|---|---|\n",
            );
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

/// Tokens per step as distributions, and what the run cost against what it scored.
fn tokens_table(out: &mut String, report: &Report) {
    out.push_str("\n## Tokens and cost\n\n");
    out.push_str(
        "Per step: the agent's input tokens and the observation's (o200k) as median / p90 / max; \
         cost from `prices.toml` against step success.\n\n",
    );
    out.push_str(
        "| strategy | input tok (median / p90 / max) | observation tok (median / p90 / max) | \
         image tok (mean) | cost per step (USD) | total cost (USD) | step SR |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for s in &report.summaries {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {:.0} | {} | {} | {} |",
            md(&s.strategy),
            spread(&s.input_tokens),
            spread(&s.obs_tokens),
            s.mean_image_tokens,
            usd(s.mean_cost_usd),
            usd(s.total_cost_usd),
            rate(&s.step_success),
        );
    }
    if report.summaries.iter().all(|s| s.total_cost_usd == 0.0) {
        let _ = writeln!(
            out,
            "\nNo step cost anything: agent `{}` calls no priced model.",
            md(&report.manifest.agent)
        );
    }
}

/// Results per suite tag: step SR (steps passed / run) and tasks passed.
fn categories_table(out: &mut String, report: &Report) {
    if report.categories.is_empty() {
        return;
    }
    out.push_str("\n## Per category\n\n");
    out.push_str(
        "The suite's task tags. Each cell: step SR (steps passed/run), tasks passed/tasks.\n\n| category | tasks |",
    );
    for s in &report.summaries {
        let _ = write!(out, " {} |", md(&s.strategy));
    }
    out.push_str("\n|---|---|");
    out.push_str(&"---|".repeat(report.summaries.len()));
    out.push('\n');
    for c in &report.categories {
        let _ = write!(out, "| {} | {} |", md(&c.tag), c.tasks);
        for score in &c.scores {
            let _ = write!(
                out,
                " {:.3} ({}/{}), {}/{} |",
                score.step_success, score.steps_passed, score.steps, score.tasks_passed, c.tasks
            );
        }
        out.push('\n');
    }
}
