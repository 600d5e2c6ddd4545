//! A live run's `report.html`: self-contained (inline CSS and SVG, no script), every page- or suite-derived string escaped, with success per strategy, per tier, per task (bars), calibration, significance and failed episodes.

use std::fmt::Write as _;

use super::{CALIBRATION_HEADERS, LiveReport, actions_line, failure_reason, shown};
use crate::report::escape::html;
use crate::report::format::{rate, verdict};
use crate::report::html::STYLE;

const BARS: &str = "\
.bar{display:inline-block;height:10px;background:#3b7bd8;vertical-align:middle}\
.barbg{display:inline-block;width:120px;height:10px;background:#e3e7ee;vertical-align:middle;margin-right:6px}\
td.task{max-width:320px;word-break:break-word}\
";

/// The whole page.
pub fn render(report: &LiveReport) -> String {
    let m = &report.manifest;
    let mut out = String::new();
    let title = format!("pagesnap live run: suite {}", m.suite);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>\n{STYLE}{BARS}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        html(&title),
        html(&title)
    );
    let settings = m.live.as_ref();
    let _ = writeln!(
        out,
        "<p class=\"meta\">Agent <code>{}</code> · judge <code>{}</code> · {} tasks · {} episodes · pagesnap {}{}</p>",
        html(&m.agent),
        html(settings.map_or("rule", |s| s.judge.as_str())),
        m.tasks.len(),
        report.episodes.len(),
        html(&m.pagesnap),
        settings
            .and_then(|s| s.episode_max_time_ms)
            .map_or(String::new(), |t| format!(
                " · MiniWoB++ core.EPISODE_MAX_TIME = {t} ms"
            )),
    );
    out.push_str("<h2>Success per strategy</h2>\n<table>\n<tr><th>strategy</th><th>episodes</th><th>success rate</th><th>mean reward</th><th>steps / episode</th><th>obs tokens / episode (mean · p90)</th><th>obs tokens / step (median)</th><th>input tokens / episode</th><th>capture ms (median)</th><th>engine ms (median)</th><th>agent ms (median)</th></tr>\n");
    for s in &report.summaries {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{:.2}</td><td class=\"n\">{:.0} · {:.0}</td><td class=\"n\">{:.0}</td><td class=\"n\">{:.0}</td><td class=\"n\">{:.1}</td><td class=\"n\">{:.2}</td><td class=\"n\">{:.2}</td></tr>",
            html(&shown(&s.strategy)),
            s.episodes,
            rate(&s.success_rate),
            rate(&s.mean_reward),
            s.mean_steps,
            s.obs_tokens.mean,
            s.obs_tokens.p90,
            s.obs_tokens_per_step.median,
            s.input_tokens.mean,
            s.timing.capture_ms.median,
            s.timing.engine_ms.median,
            s.timing.agent_ms.median,
        );
    }
    out.push_str("</table>\n");
    external_table(&mut out, report);
    tool_server_table(&mut out, report);
    tier_table(&mut out, report);
    task_bars(&mut out, report);
    calibration(&mut out, report);
    if !report.comparisons.is_empty() {
        out.push_str("<h2>Paired significance</h2>\n<table>\n<tr><th>a</th><th>b</th><th>pairs</th><th>a only</th><th>b only</th><th>SR(a) − SR(b)</th><th>McNemar p</th><th>verdict</th></tr>\n");
        for c in &report.comparisons {
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{:.4}</td><td{}>{}</td></tr>",
                html(&shown(&c.a)),
                html(&shown(&c.b)),
                c.steps,
                c.a_only,
                c.b_only,
                rate(&c.difference),
                c.p_value,
                if c.significant { " class=\"sig\"" } else { "" },
                verdict(c)
            );
        }
        out.push_str("</table>\n");
    }
    failed(&mut out, report);
    out.push_str("</body>\n</html>\n");
    out
}

/// External strategies: how their refs resolved and what the protocol cost.
fn external_table(out: &mut String, report: &LiveReport) {
    if report.summaries.iter().all(|s| s.external_refs.is_none()) {
        return;
    }
    out.push_str("<h2>External strategies</h2>\n<p>Capture ms of an external strategy is its own observation time (without resolving refs); the round trip adds the protocol and the adapter's ref resolution.</p>\n<table>\n<tr><th>strategy</th><th>steps</th><th>refs / step</th><th>unresolved refs</th><th>ambiguous ARIA lines</th><th>interactive lines without a ref</th><th>round trip ms (median)</th><th>pagesnap resolve ms (median)</th></tr>\n");
    for s in &report.summaries {
        let Some(x) = &s.external_refs else { continue };
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{:.1}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{:.1}</td><td class=\"n\">{:.1}</td></tr>",
            html(&shown(&s.strategy)),
            x.steps,
            x.refs_per_step,
            x.unresolved,
            x.ambiguous,
            x.unassigned,
            x.round_trip_ms.median,
            x.resolve_ms.median
        );
    }
    out.push_str("</table>\n");
}

/// Tool servers: the calls an agent makes through them and what a model reads.
fn tool_server_table(out: &mut String, report: &LiveReport) {
    if report.summaries.iter().all(|s| s.tool_server.is_none()) {
        return;
    }
    out.push_str("<h2>Tool servers</h2>\n<p>Observed and acted on through the server's own tools; obs tokens are every tool result a model reads plus the tool definitions once per episode.</p>\n<table>\n<tr><th>strategy</th><th>tool calls / episode</th><th>tool definitions (tokens)</th><th>result tokens / step (median)</th><th>round trips / step (median ms)</th><th>episodes / min (one worker)</th></tr>\n");
    for s in &report.summaries {
        let Some(x) = &s.tool_server else { continue };
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td class=\"n\">{:.2}</td><td class=\"n\">{}</td><td class=\"n\">{:.0}</td><td class=\"n\">{:.1}</td><td class=\"n\">{:.1}</td></tr>",
            html(&shown(&s.strategy)),
            x.tool_calls_per_episode,
            x.definition_tokens,
            x.result_tokens_per_step.median,
            x.round_trip_ms.median,
            60_000.0 / s.timing.episode_ms.mean.max(1.0)
        );
    }
    out.push_str("</table>\n");
}

fn tier_table(out: &mut String, report: &LiveReport) {
    let tiers: std::collections::BTreeSet<&String> = report
        .summaries
        .iter()
        .flat_map(|s| s.tiers.keys())
        .collect();
    out.push_str("<h2>Success per tier</h2>\n<table>\n<tr><th>tier</th>");
    for s in &report.summaries {
        let _ = write!(out, "<th>{}</th>", html(&shown(&s.strategy)));
    }
    out.push_str("</tr>\n");
    for tier in tiers {
        let _ = write!(out, "<tr><td>{}</td>", html(tier));
        for s in &report.summaries {
            let (ok, n) = s.tiers.get(tier).copied().unwrap_or((0, 0));
            let _ = write!(out, "<td class=\"n\">{ok}/{n}</td>");
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
}

/// Per task and strategy: a bar of the success share, and `k/n`.
fn task_bars(out: &mut String, report: &LiveReport) {
    out.push_str(
        "<h2>Success per task</h2>\n<div class=\"wide\"><table>\n<tr><th>task</th><th>tier</th>",
    );
    for s in &report.summaries {
        let _ = write!(out, "<th>{}</th>", html(&shown(&s.strategy)));
    }
    out.push_str("</tr>\n");
    for task in &report.manifest.tasks {
        let tier = report
            .episodes
            .iter()
            .find(|e| e.task == task.id)
            .map_or("", |e| e.tier.as_str());
        let _ = write!(
            out,
            "<tr><td class=\"task\">{}</td><td>{}</td>",
            html(&task.id),
            html(tier)
        );
        for s in &report.summaries {
            let (ok, n) = report
                .episodes
                .iter()
                .filter(|e| e.task == task.id && e.strategy == s.strategy)
                .fold((0usize, 0usize), |(ok, n), e| {
                    (ok + usize::from(e.success), n + 1)
                });
            let width = (ok * 120).checked_div(n).unwrap_or(0);
            let _ = write!(
                out,
                "<td><span class=\"barbg\"><span class=\"bar\" style=\"width:{width}px\"></span></span>{ok}/{n}</td>"
            );
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table></div>\n");
}

fn calibration(out: &mut String, report: &LiveReport) {
    if report.summaries.iter().all(|s| s.calibration.is_none()) {
        return;
    }
    out.push_str(
        "<h2>LLM judge calibration against the page's reward</h2>\n<table>\n<tr><th>strategy</th>",
    );
    for header in CALIBRATION_HEADERS {
        let _ = write!(out, "<th>{}</th>", html(header));
    }
    out.push_str("</tr>\n");
    for s in &report.summaries {
        let Some(c) = &s.calibration else { continue };
        let _ = write!(out, "<tr><td>{}</td>", html(&shown(&s.strategy)));
        for cell in c.cells() {
            let _ = write!(out, "<td class=\"n\">{}</td>", html(&cell));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
}

fn failed(out: &mut String, report: &LiveReport) {
    out.push_str("<h2>Episodes that failed</h2>\n<div class=\"wide\"><table>\n<tr><th>task</th><th>strategy</th><th>episode</th><th>instruction</th><th>ended by</th><th>reason</th><th>actions</th></tr>\n");
    for e in report.episodes.iter().filter(|e| !e.success) {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"text\">{}</td><td>{}</td><td class=\"text\">{}</td><td class=\"text\">{}</td></tr>",
            html(&e.task),
            html(&shown(&e.strategy)),
            e.episode,
            html(&e.instruction),
            html(e.ended_by.name()),
            html(failure_reason(e)),
            html(&actions_line(e))
        );
    }
    out.push_str("</table></div>\n");
}
