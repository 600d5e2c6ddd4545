//! `report.html`: one self-contained page (inline CSS and SVG, no script, no external resource) with the run's tables and charts.
//!
//! Every string that comes from a page or a suite (task ids, instructions,
//! targets, answers, errors, strategy and suite names) goes through
//! [`escape::html`](super::escape::html), in text and in attribute values alike (attributes are always
//! double-quoted). A Content-Security-Policy meta tag forbids scripts as a
//! second line of defence: the page needs none.

use std::fmt::Write as _;

use crate::results::Row;

use super::charts::{self, latency_chart, pareto_chart};
use super::escape::html;
use super::figures::Report;
use super::format::{expected, got, mde, significance_notes, spread, task_score, usd, verdict};
use super::metrics::{self, Estimate, StrategySummary};
use super::steps;

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
    let m = &report.manifest;
    let tasks = report.tasks_run();
    let mut out = String::new();
    let title = format!("pagesnap run: suite {}", m.suite);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        html(&title),
        html(&title)
    );
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
    summary_table(&mut out, &report.summaries);
    out.push_str("<h2>Accuracy vs. tokens and cost</h2>\n<div class=\"charts\">\n");
    pareto_chart(&mut out, &report.summaries, &charts::TOKENS);
    if report.summaries.iter().any(|s| s.total_cost_usd > 0.0) {
        pareto_chart(&mut out, &report.summaries, &charts::COST);
    }
    out.push_str("</div>\n");
    tokens_table(&mut out, report);
    categories_table(&mut out, report);
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
    significance_table(&mut out, report);
    judge_table(&mut out, report);
    task_grid(&mut out, report);
    failed_steps(&mut out, &report.rows);
    out.push_str("</body>\n</html>\n");
    out
}

fn summary_table(out: &mut String, summaries: &[StrategySummary]) {
    out.push_str(
        "<h2>Summary</h2>\n<div class=\"wide\"><table id=\"summary\">\n<tr><th>strategy</th><th>steps</th><th>target recall</th>\
         <th>element acc.</th><th>op F1</th><th>step SR</th><th>task SR</th><th>input tok</th>\
         <th>image tok</th><th>invalid</th><th>halluc. refs</th><th>faults / retries</th>\
         <th>cost $</th><th>analysis + render µs (mean)</th><th>agent µs (median / p90)</th></tr>\n",
    );
    for s in summaries {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{:.0}</td>\
             <td class=\"n\">{:.0}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{} / {}</td>\
             <td class=\"n\">{:.4}</td><td class=\"n\">{:.0} + {:.0}</td>\
             <td class=\"n\">{:.0} / {:.0}</td></tr>",
            html(&s.strategy),
            s.steps,
            ci(&s.target_recall),
            ci(&s.element_accuracy),
            ci(&s.operation_f1),
            ci(&s.step_success),
            ci(&s.task_success),
            s.mean_input_tokens,
            s.mean_image_tokens,
            ci(&s.invalid_rate),
            ci(&s.hallucination_rate),
            html(&faults(s)),
            s.retries,
            s.total_cost_usd,
            s.timing.mean_analysis_us,
            s.timing.mean_engine_us,
            s.timing.median_agent_us,
            s.timing.p90_agent_us,
        );
    }
    out.push_str("</table></div>\n");
}

/// A rate over its interval, the interval in small type.
fn ci(e: &Estimate) -> String {
    format!(
        "{:.3}<span class=\"ci\">[{:.3}, {:.3}]</span>",
        e.value, e.low, e.high
    )
}

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

fn significance_table(out: &mut String, report: &Report) {
    out.push_str(
        "<h2>Significance</h2>\n<p class=\"meta\">Step success on the steps both strategies ran: \
         McNemar's exact test (two-sided) and a paired bootstrap over tasks of the SR difference (95% CI).</p>\n",
    );
    if report.comparisons.is_empty() {
        out.push_str("<p>One strategy only: nothing to compare.</p>\n");
        return;
    }
    out.push_str(
        "<table id=\"significance\">\n<tr><th>A</th><th>B</th><th>steps</th><th>A only</th><th>B only</th>\
         <th>SR(A) − SR(B)</th><th>p</th><th>verdict</th>\
         <th title=\"the smallest SR difference these paired steps can show (α 0.05, power 0.8)\">detectable</th></tr>\n",
    );
    for c in &report.comparisons {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{:+.3} [{:+.3}, {:+.3}]</td><td class=\"n\">{:.4}</td><td{}>{}</td><td class=\"n\">{}</td></tr>",
            html(&c.a),
            html(&c.b),
            c.steps,
            c.a_only,
            c.b_only,
            c.difference.value,
            c.difference.low,
            c.difference.high,
            c.p_value,
            if c.significant { " class=\"sig\"" } else { "" },
            verdict(c),
            mde(c)
        );
    }
    out.push_str("</table>\n");
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

fn judge_table(out: &mut String, report: &Report) {
    let Some(all) = report.judge else { return };
    out.push_str(
        "<h2>LLM judge agreement with the rule judge</h2>\n<p class=\"meta\">With the confusion matrix: \
         both say success, only the LLM judge does (lenient), only the rule does (strict), both say failure.</p>\n\
         <table id=\"judge\">\n<tr><th>strategy</th><th>steps</th><th>accuracy</th><th>Cohen's kappa</th>\
         <th>both ✓</th><th>judge ✓ rule ✗</th><th>rule ✓ judge ✗</th><th>both ✗</th></tr>\n",
    );
    let line = |out: &mut String, name: &str, a: &metrics::Agreement| {
        let c = &a.confusion;
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{:.3}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            html(name),
            a.steps,
            a.accuracy,
            a.kappa.map_or("—".to_owned(), |k| format!("{k:.3}")),
            c.both_success,
            c.judge_only,
            c.rule_only,
            c.both_failure,
        );
    };
    for s in &report.summaries {
        if let Some(a) = &s.judge {
            line(out, &s.strategy, a);
        }
    }
    line(out, "all", &all);
    out.push_str("</table>\n");
}

fn task_grid(out: &mut String, report: &Report) {
    out.push_str(
        "<h2>Tasks</h2>\n<p class=\"meta\">Steps passed per task and strategy: green all, amber some, red none. \
         A cell opens the task's first step as that strategy showed it (observation, prompt, reply, verdict).</p>\n\
         <table id=\"task-grid\" class=\"grid\">\n<tr><th>task</th>",
    );
    for s in &report.summaries {
        let _ = write!(out, "<th>{}</th>", html(&s.strategy));
    }
    out.push_str("</tr>\n");
    for task in report.tasks_run() {
        let _ = write!(
            out,
            "<tr><td class=\"task\">{}<div class=\"instruction\">{}</div></td>",
            html(&task.id),
            html(&task.instruction)
        );
        for s in &report.summaries {
            let (passed, total) = task_score(&report.rows, &task.id, &s.strategy);
            let class = match (passed, total) {
                (_, 0) => "none",
                (p, t) if p == t => "pass",
                (0, _) => "fail",
                _ => "part",
            };
            let _ = write!(
                out,
                "<td class=\"{class}\" title=\"{}\"><a href=\"{}\">{passed}/{total}</a></td>",
                html(&format!(
                    "{} — {}: {passed}/{total} steps passed. {}",
                    task.id, s.strategy, task.instruction
                )),
                html(&steps::relative(&task.id, &s.strategy, 1))
            );
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
}

fn tokens_table(out: &mut String, report: &Report) {
    out.push_str(
        "<h2>Tokens and cost</h2>\n<p class=\"meta\">Per step: the agent's input tokens and the observation's \
         (o200k) as median / p90 / max; cost from <code>prices.toml</code>.</p>\n\
         <table id=\"tokens\">\n<tr><th>strategy</th><th>input tok (median / p90 / max)</th>\
         <th>observation tok (median / p90 / max)</th><th>image tok (mean)</th><th>cost per step $</th>\
         <th>total cost $</th><th>step SR</th></tr>\n",
    );
    for s in &report.summaries {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{:.0}</td>\
             <td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            html(&s.strategy),
            spread(&s.input_tokens),
            spread(&s.obs_tokens),
            s.mean_image_tokens,
            usd(s.mean_cost_usd),
            usd(s.total_cost_usd),
            ci(&s.step_success),
        );
    }
    out.push_str("</table>\n");
    if report.summaries.iter().all(|s| s.total_cost_usd == 0.0) {
        let _ = writeln!(
            out,
            "<p class=\"meta\">No step cost anything: agent <code>{}</code> calls no priced model, so there is no \
             cost chart.</p>",
            html(&report.manifest.agent)
        );
    }
}

fn categories_table(out: &mut String, report: &Report) {
    if report.categories.is_empty() {
        return;
    }
    out.push_str(
        "<h2>Per category</h2>\n<p class=\"meta\">The suite's task tags. Each cell: step SR (steps passed / run), \
         and tasks passed / tasks.</p>\n<table id=\"categories\">\n<tr><th>category</th><th>tasks</th>",
    );
    for s in &report.summaries {
        let _ = write!(out, "<th>{}</th>", html(&s.strategy));
    }
    out.push_str("</tr>\n");
    for c in &report.categories {
        let _ = write!(
            out,
            "<tr><td>{}</td><td class=\"n\">{}</td>",
            html(&c.tag),
            c.tasks
        );
        for score in &c.scores {
            let _ = write!(
                out,
                "<td class=\"n\">{:.3} ({}/{})<span class=\"ci\">{}/{} tasks</span></td>",
                score.step_success, score.steps_passed, score.steps, score.tasks_passed, c.tasks
            );
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
}

fn failed_steps(out: &mut String, rows: &[Row]) {
    out.push_str("<h2>Failed steps</h2>\n");
    let failed: Vec<&Row> = rows.iter().filter(|r| !r.success).collect();
    if failed.is_empty() {
        out.push_str("<p>None.</p>\n");
        return;
    }
    out.push_str(
        "<table id=\"failed\">\n<tr><th>task</th><th>step</th><th>strategy</th><th>expected</th>\
         <th>got</th><th>error</th><th>raw answer</th></tr>\n",
    );
    for r in failed {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td class=\"n\"><a href=\"{}\">{}</a></td><td>{}</td><td class=\"text\">{}</td><td class=\"text\">{}</td>\
             <td class=\"text\">{}</td><td class=\"text\">{}</td></tr>",
            html(&r.task),
            html(&steps::relative(&r.task, &r.strategy, r.step)),
            r.step,
            html(&r.strategy),
            html(&expected(r)),
            html(&got(r)),
            html(r.error.as_deref().unwrap_or("")),
            html(&truncate(&r.raw, 240)),
        );
    }
    out.push_str("</table>\n");
}

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
