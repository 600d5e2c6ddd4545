//! `report.md`: the run's headings and prose around the tables of `tables.rs`, each written by the Markdown emitter with every page-derived string escaped.

use std::fmt::Write as _;

use super::emit::markdown::table;
use super::escape::md;
use super::figures::Report;
use super::format::significance_notes;
use super::metrics;
use super::tables::Tables;

/// The whole report.
pub fn render(report: &Report) -> String {
    page(report, &Tables::of(report))
}

/// The whole report, from tables computed once for both pages.
pub fn page(report: &Report, tables: &Tables) -> String {
    let manifest = &report.manifest;
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
    table(&mut out, &tables.summary);
    out.push_str("\n## Tokens and cost\n\n");
    out.push_str(
        "Per step: the agent's input tokens and the observation's (o200k) as median / p90 / max; \
         cost from `prices.toml` against step success.\n\n",
    );
    table(&mut out, &tables.tokens);
    if report.summaries.iter().all(|s| s.total_cost_usd == 0.0) {
        let _ = writeln!(
            out,
            "\nNo step cost anything: agent `{}` calls no priced model.",
            md(&report.manifest.agent)
        );
    }
    if let Some(categories) = &tables.categories {
        out.push_str("\n## Per category\n\n");
        out.push_str(
            "The suite's task tags. Each cell: step SR (steps passed/run), tasks passed/tasks.\n\n",
        );
        table(&mut out, categories);
    }
    out.push_str("\n## Significance\n\n");
    out.push_str(
        "Step success, paired on the steps both strategies ran: McNemar's exact test \
         (two-sided) and a paired bootstrap over tasks of the SR difference (95%).\n\n",
    );
    match &tables.significance {
        None => out.push_str("One strategy only: nothing to compare.\n"),
        Some(significance) => {
            table(&mut out, significance);
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
    }
    if let Some(judge) = &tables.judge {
        out.push_str("\n## LLM judge agreement with the rule judge\n\n");
        out.push_str(
            "Counts: both say success / only the LLM judge does (lenient) / only the rule does \
             (strict) / both say failure.\n\n",
        );
        table(&mut out, judge);
        if let Some(task_judge) = &tables.task_judge {
            out.push_str("\nPer task (the judge saw the whole action sequence; column `steps` counts tasks):\n\n");
            table(&mut out, task_judge);
        }
    }
    out.push_str("\n## Tasks\n\n");
    out.push_str("Steps passed per task and strategy.\n\n");
    table(&mut out, &tables.tasks);
    out.push_str("\n## Failed steps\n\n");
    match &tables.failed {
        None => out.push_str("None.\n"),
        Some(failed) => table(&mut out, failed),
    }
    out
}
