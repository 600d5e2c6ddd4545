//! A live run's `report.html`: self-contained (inline CSS and SVG, no script), every page- or suite-derived string escaped, with success per strategy, per tier, per task (bars), calibration, significance and failed episodes — the tables of [`LiveTables`] written by the HTML emitter.

use std::fmt::Write as _;

use super::LiveReport;
use super::tables::LiveTables;
use crate::report::emit::html::{close_page, open_page, table};
use crate::report::escape::html;
use crate::report::html::STYLE;

const BARS: &str = "\
.bar{display:inline-block;height:10px;background:#3b7bd8;vertical-align:middle}\
.barbg{display:inline-block;width:120px;height:10px;background:#e3e7ee;vertical-align:middle;margin-right:6px}\
td.task{max-width:320px;word-break:break-word}\
";

/// The whole page alone (the tests read it without writing a run folder).
#[cfg(test)]
pub fn render(report: &LiveReport) -> String {
    page(report, &LiveTables::of(report))
}

/// The whole page, from tables computed once for both reports.
pub fn page(report: &LiveReport, tables: &LiveTables) -> String {
    let m = &report.manifest;
    let mut out = String::new();
    let title = format!("pagesnap live run: suite {}", m.suite);
    open_page(&mut out, &title, &[STYLE, BARS]);
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
    out.push_str("<h2>Success per strategy</h2>\n");
    table(&mut out, &tables.success);
    if let Some(external) = &tables.external {
        out.push_str("<h2>External strategies</h2>\n<p>Capture ms of an external strategy is its own observation time (without resolving refs); the round trip adds the protocol and the adapter's ref resolution.</p>\n");
        table(&mut out, external);
    }
    if let Some(tool_servers) = &tables.tool_servers {
        out.push_str("<h2>Tool servers</h2>\n<p>Observed and acted on through the server's own tools; obs tokens are every tool result a model reads plus the tool definitions once per episode.</p>\n");
        table(&mut out, tool_servers);
    }
    out.push_str("<h2>Success per tier</h2>\n");
    table(&mut out, &tables.tiers);
    out.push_str("<h2>Success per task</h2>\n");
    table(&mut out, &tables.tasks);
    if let Some(calibration) = &tables.calibration {
        out.push_str("<h2>LLM judge calibration against the page's reward</h2>\n");
        table(&mut out, calibration);
    }
    if let Some(significance) = &tables.significance {
        out.push_str("<h2>Paired significance</h2>\n");
        table(&mut out, significance);
    }
    out.push_str("<h2>Episodes that failed</h2>\n");
    table(&mut out, &tables.failed);
    close_page(&mut out);
    out
}
