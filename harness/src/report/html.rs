//! `report.html`: one self-contained page (inline CSS and SVG, no script, no external resource) with the run's charts and the tables of `tables.rs`, written by the HTML emitter.
//!
//! Every string that comes from a page or a suite (task ids, instructions,
//! targets, answers, errors, strategy and suite names) goes through
//! [`escape::html`](super::escape::html), in text and in attribute values alike (attributes are always
//! double-quoted). A Content-Security-Policy meta tag forbids scripts as a
//! second line of defence: the page needs none.

use std::fmt::Write as _;

use super::charts::{self, latency_chart, pareto_chart};
use super::emit::html::{close_page, open_page, table};
use super::escape::html;
use super::figures::Report;
use super::format::significance_notes;
use super::tables::Tables;

pub(super) const STYLE: &str = "\
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px auto;max-width:1280px;padding:0 16px;color:#1d2330;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #dde2ea;padding-bottom:4px}
p.meta{color:#5a6475;margin:0 0 12px}
table{border-collapse:collapse;font-size:12.5px;margin:6px 0}
th,td{border:1px solid #dde2ea;padding:3px 5px;text-align:left;vertical-align:top}
th{background:#f3f5f9;font-weight:600}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.charts{display:flex;flex-wrap:wrap;gap:18px}
figure{margin:0}figcaption{font-size:12px;color:#5a6475;max-width:640px}
svg{background:#fbfcfe;border:1px solid #e5e9f0}
svg text{font:11px system-ui,sans-serif;fill:#1d2330}svg .axis{stroke:#8a93a3}svg .grid{stroke:#e3e7ee}
table.grid td{width:54px;text-align:center;padding:2px}
td.pass{background:#cdeccf}td.part{background:#fbe7b5}td.fail{background:#f6c9c9}td.none{background:#eee}
table.grid td.task{text-align:left;max-width:420px}table.grid td.task .instruction{color:#5b6473;font-size:12px}table.grid td a{color:inherit;text-decoration:none;display:block}
td.text{max-width:360px;word-break:break-word}
.sig{font-weight:600;color:#116329}
.ci{display:block;color:#6b7587;font-size:11px}
.wide{overflow-x:auto}
";

/// The whole page.
pub fn render(report: &Report) -> String {
    page(report, &Tables::of(report))
}

/// The whole page, from tables computed once for both reports.
pub fn page(report: &Report, tables: &Tables) -> String {
    let m = &report.manifest;
    let tasks = report.tasks_run();
    let mut out = String::new();
    let title = format!("pagesnap run: suite {}", m.suite);
    open_page(&mut out, &title, &[STYLE]);
    let _ = writeln!(
        out,
        "<p class=\"meta\">Agent <code>{}</code> · {} tasks · {} steps per strategy · pagesnap {}{}</p>",
        html(&m.agent),
        tasks.len(),
        tasks.iter().map(|t| t.steps).sum::<usize>(),
        html(&m.pagesnap),
        if m.description.is_empty() {
            String::new()
        } else {
            format!("<br>{}", html(&m.description))
        }
    );
    out.push_str("<h2>Summary</h2>\n");
    table(&mut out, &tables.summary);
    out.push_str("<h2>Accuracy vs. tokens and cost</h2>\n<div class=\"charts\">\n");
    pareto_chart(&mut out, &report.summaries, &charts::TOKENS);
    if report.summaries.iter().any(|s| s.total_cost_usd > 0.0) {
        pareto_chart(&mut out, &report.summaries, &charts::COST);
    }
    out.push_str("</div>\n");
    out.push_str(
        "<h2>Tokens and cost</h2>\n<p class=\"meta\">Per step: the agent's input tokens and the observation's \
         (o200k) as median / p90 / max; cost from <code>prices.toml</code>.</p>\n",
    );
    table(&mut out, &tables.tokens);
    if report.summaries.iter().all(|s| s.total_cost_usd == 0.0) {
        let _ = writeln!(
            out,
            "<p class=\"meta\">No step cost anything: agent <code>{}</code> calls no priced model, so there is no \
             cost chart.</p>",
            html(&report.manifest.agent)
        );
    }
    if let Some(categories) = &tables.categories {
        out.push_str(
            "<h2>Per category</h2>\n<p class=\"meta\">The suite's task tags. Each cell: step SR (steps passed / run), \
             and tasks passed / tasks.</p>\n",
        );
        table(&mut out, categories);
    }
    out.push_str("<h2>Latency</h2>\n<div class=\"charts\">\n");
    let strategies: Vec<&str> = report
        .summaries
        .iter()
        .map(|s| s.strategy.as_str())
        .collect();
    latency_chart(
        &mut out,
        "chart-engine-latency",
        "Render µs per observation (the step's page is built and analysed once, apart)",
        &strategies,
        &report.rows,
        |r| r.engine_us,
    );
    latency_chart(
        &mut out,
        "chart-agent-latency",
        "Agent µs per call (LLM latency; the baseline agent is local)",
        &strategies,
        &report.rows,
        |r| r.agent_us,
    );
    out.push_str("</div>\n");
    significance(&mut out, report, tables);
    if let Some(judge) = &tables.judge {
        out.push_str(
            "<h2>LLM judge agreement with the rule judge</h2>\n<p class=\"meta\">With the confusion matrix: \
             both say success, only the LLM judge does (lenient), only the rule does (strict), both say failure.</p>\n",
        );
        table(&mut out, judge);
    }
    out.push_str(
        "<h2>Tasks</h2>\n<p class=\"meta\">Steps passed per task and strategy: green all, amber some, red none. \
         A cell opens the task's first step as that strategy showed it (observation, prompt, reply, verdict).</p>\n",
    );
    table(&mut out, &tables.tasks);
    out.push_str("<h2>Failed steps</h2>\n");
    match &tables.failed {
        None => out.push_str("<p>None.</p>\n"),
        Some(failed) => table(&mut out, failed),
    }
    close_page(&mut out);
    out
}

fn significance(out: &mut String, report: &Report, tables: &Tables) {
    out.push_str(
        "<h2>Significance</h2>\n<p class=\"meta\">Step success on the steps both strategies ran: \
         McNemar's exact test (two-sided) and a paired bootstrap over tasks of the SR difference (95% CI).</p>\n",
    );
    let Some(significance) = &tables.significance else {
        out.push_str("<p>One strategy only: nothing to compare.</p>\n");
        return;
    };
    table(out, significance);
    out.push_str(
        "<p class=\"meta\"><b>detectable</b>: the smallest SR difference these paired steps can show \
         (α 0.05, power 0.8, at the observed discordance).</p>\n",
    );
    let notes = significance_notes(report);
    if !notes.is_empty() {
        out.push_str("<ul id=\"significance-notes\">\n");
        for note in notes {
            let _ = writeln!(out, "<li>{}</li>", html(&note));
        }
        out.push_str("</ul>\n");
    }
}
