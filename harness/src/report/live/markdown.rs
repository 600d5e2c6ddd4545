//! A live run's `report.md`: its headings and prose around the tables of [`LiveTables`], each written by the Markdown emitter.

use std::fmt::Write as _;

use super::LiveReport;
use super::tables::LiveTables;
use crate::report::emit::markdown::table;
use crate::report::escape::md;

/// The whole page.
pub fn page(report: &LiveReport, tables: &LiveTables) -> String {
    let m = &report.manifest;
    let mut out = String::new();
    let _ = writeln!(out, "# pagesnap live run: suite {}\n", md(&m.suite));
    let settings = m.live.as_ref();
    let _ = writeln!(
        out,
        "Agent `{}` · {} tasks · judge `{}` · step limit {} · {}{}\n",
        m.agent,
        m.tasks.len(),
        settings.map_or("rule", |s| s.judge.as_str()),
        settings
            .and_then(|s| s.max_steps)
            .map_or("per task".to_owned(), |n| n.to_string()),
        settings
            .and_then(|s| s.seed)
            .map_or("the suite's seeds".to_owned(), |s| format!(
                "seeds from {s}"
            )),
        settings
            .and_then(|s| s.episode_max_time_ms)
            .map_or(String::new(), |t| format!(
                " · MiniWoB++ core.EPISODE_MAX_TIME = {t} ms"
            )),
    );
    out.push_str("## Success per strategy\n\n");
    table(&mut out, &tables.success);
    out.push_str("\n## Success per tier\n\n");
    table(&mut out, &tables.tiers);
    out.push_str("\n## What went wrong in steps\n\n");
    table(&mut out, &tables.trouble);
    out.push_str("\n## Latency per step (ms, wall-clock: varies between runs)\n\n");
    table(&mut out, &tables.latency);
    if let Some(external) = &tables.external {
        out.push_str("\n## External strategies: refs and protocol cost\n\nAn external strategy's capture ms is its own observation time (the program's snapshot, without resolving refs); its engine ms is 0. The round trip adds the protocol and the adapter's ref resolution; pagesnap's capture, analysis and ref resolution of the same state (for actions and the trace) are not in either.\n\n");
        table(&mut out, external);
    }
    if let Some(tool_servers) = &tables.tool_servers {
        out.push_str("\n## Tool servers: calls and what a model reads\n\nA tool server's episode is observed and acted on through its own tools. Its obs tokens are every tool result the model reads (snapshots and action answers) plus the tool definitions, shown once per episode; result tokens and characters per episode are the tool results alone. A client that reads each action's answer instead of snapshotting again (`after_action = \"answer\"`) reads its first snapshot, then the answers only; capture ms is the snapshot call's round trip.\n\n");
        table(&mut out, tool_servers);
    }
    if let Some(calibration) = &tables.calibration {
        out.push_str("\n## LLM judge calibration (episode verdict vs the page's reward)\n\n");
        table(&mut out, calibration);
    }
    if let Some(significance) = &tables.significance {
        out.push_str("\n## Paired significance (same tasks and episodes)\n\n");
        table(&mut out, significance);
    }
    out.push_str("\n## Episodes that failed\n\n");
    table(&mut out, &tables.failed);
    out
}
