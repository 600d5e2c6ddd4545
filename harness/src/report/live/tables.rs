//! A live run's tables, computed once from its figures for `report.md` and `report.html` alike.
//!
//! Where the two pages word or choose columns differently (the HTML page
//! shows latency in the success table, the Markdown page error counts), the
//! column says which format shows it; the rows are the same.

use std::collections::{BTreeMap, BTreeSet};

use super::{CALIBRATION_HEADERS, LiveReport, LiveSummary, actions_line, failure_reason, shown};
use crate::report::format::verdict;
use crate::report::table::{Cell, Column, Format, Head, Table};

/// Every table of a live run's reports; a section a run has no figures for is `None`.
pub struct LiveTables {
    /// Success, reward, steps and tokens per strategy.
    pub success: Table,
    /// Successes per tier and strategy.
    pub tiers: Table,
    /// How episodes ended and which steps did not run (Markdown).
    pub trouble: Table,
    /// Latency per step (Markdown; the HTML page has it in `success`).
    pub latency: Table,
    /// External strategies: their refs and the protocol's cost.
    pub external: Option<Table>,
    /// Tool servers: their calls and what a model reads.
    pub tool_servers: Option<Table>,
    /// Successes per task and strategy, as bars (HTML).
    pub tasks: Table,
    /// The LLM judge against the page's reward.
    pub calibration: Option<Table>,
    /// Paired tests between strategies.
    pub significance: Option<Table>,
    /// Episodes that failed.
    pub failed: Table,
}

impl LiveTables {
    /// Computes every table of `report`.
    pub fn of(report: &LiveReport) -> LiveTables {
        let any = |has: fn(&LiveSummary) -> bool| report.summaries.iter().any(has);
        LiveTables {
            success: success(&report.summaries),
            tiers: tiers(&report.summaries),
            trouble: trouble(&report.summaries),
            latency: latency(&report.summaries),
            external: any(|s| s.external_refs.is_some()).then(|| external(&report.summaries)),
            tool_servers: any(|s| s.tool_server.is_some()).then(|| tool_servers(&report.summaries)),
            tasks: tasks(report),
            calibration: any(|s| s.calibration.is_some()).then(|| calibration(&report.summaries)),
            significance: (!report.comparisons.is_empty()).then(|| significance(report)),
            failed: failed(report),
        }
    }
}

fn strategy(s: &LiveSummary) -> Cell {
    Cell::Text(shown(&s.strategy))
}

fn success(summaries: &[LiveSummary]) -> Table {
    use Format::{Html, Markdown};
    let mut table = Table::new(vec![
        Column::label("strategy"),
        Column::label("episodes"),
        Column::label("success rate [95% CI]").html(Head::Label("success rate")),
        Column::label("mean reward [95% CI]").html(Head::Label("mean reward")),
        Column::label("steps / episode"),
        Column::label("obs tokens / episode (mean, p90)").only(Markdown),
        Column::label("obs tokens / episode (mean · p90)").only(Html),
        Column::label("obs tokens / step (median)"),
        Column::label("input tokens / episode"),
        Column::label("action errors").only(Markdown),
        Column::label("episode errors").only(Markdown),
        Column::label("capture ms (median)").only(Html),
        Column::label("engine ms (median)").only(Html),
        Column::label("agent ms (median)").only(Html),
    ]);
    for s in summaries {
        let (mean, p90) = (s.obs_tokens.mean, s.obs_tokens.p90);
        table.push(vec![
            strategy(s),
            Cell::count(s.episodes),
            Cell::Rate(s.success_rate),
            Cell::Rate(s.mean_reward),
            Cell::Fixed(s.mean_steps, 2),
            Cell::Figure(format!("{mean:.0}, {p90:.0}")),
            Cell::Figure(format!("{mean:.0} · {p90:.0}")),
            Cell::Fixed(s.obs_tokens_per_step.median, 0),
            Cell::Fixed(s.input_tokens.mean, 0),
            Cell::count(s.step_outcomes.values().sum()),
            Cell::count(s.errors),
            Cell::Fixed(s.timing.capture_ms.median, 1),
            Cell::Fixed(s.timing.engine_ms.median, 2),
            Cell::Fixed(s.timing.agent_ms.median, 2),
        ]);
    }
    table
}

/// The tiers a suite names, easiest first (`easy`, `medium`, `hard`), then
/// any other by name.
const TIER_ORDER: &[&str] = &["easy", "medium", "hard"];

fn tiers(summaries: &[LiveSummary]) -> Table {
    let tiers: BTreeSet<&String> = summaries.iter().flat_map(|s| s.tiers.keys()).collect();
    let mut tiers: Vec<&String> = tiers.into_iter().collect();
    tiers.sort_by_key(|tier| {
        let rank = TIER_ORDER.iter().position(|known| *known == tier.as_str());
        (rank.unwrap_or(TIER_ORDER.len()), tier.as_str())
    });
    let mut columns = vec![Column::label("tier")];
    columns.extend(summaries.iter().map(|s| Column::text(shown(&s.strategy))));
    let mut table = Table::new(columns);
    for tier in tiers {
        let mut row = vec![Cell::Text(tier.clone())];
        for s in summaries {
            let (ok, n) = s.tiers.get(tier).copied().unwrap_or((0, 0));
            row.push(Cell::Figure(format!("{ok}/{n}")));
        }
        table.push(row);
    }
    table
}

fn trouble(summaries: &[LiveSummary]) -> Table {
    let join = |map: &BTreeMap<String, usize>| {
        map.iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut table = Table::new(vec![
        Column::label("strategy"),
        Column::label("how episodes ended"),
        Column::label("step outcomes other than ok"),
    ]);
    for s in summaries {
        let outcomes = if s.step_outcomes.is_empty() {
            "none".to_owned()
        } else {
            join(&s.step_outcomes)
        };
        table.push(vec![
            strategy(s),
            Cell::Figure(join(&s.ended_by)),
            Cell::Figure(outcomes),
        ]);
    }
    table
}

fn latency(summaries: &[LiveSummary]) -> Table {
    let mut table = Table::new(vec![
        Column::label("strategy"),
        Column::label("capture median"),
        Column::label("capture p90"),
        Column::label("engine median"),
        Column::label("agent median"),
        Column::label("act median"),
        Column::label("episode median"),
    ]);
    for s in summaries {
        let t = &s.timing;
        table.push(vec![
            strategy(s),
            Cell::Fixed(t.capture_ms.median, 1),
            Cell::Fixed(t.capture_ms.p90, 1),
            Cell::Fixed(t.engine_ms.median, 2),
            Cell::Fixed(t.agent_ms.median, 2),
            Cell::Fixed(t.act_ms.median, 1),
            Cell::Fixed(t.episode_ms.median, 0),
        ]);
    }
    table
}

fn external(summaries: &[LiveSummary]) -> Table {
    let mut table = Table::new(vec![
        Column::label("strategy"),
        Column::label("steps"),
        Column::label("refs / step"),
        Column::label("unresolved refs"),
        Column::label("ambiguous ARIA lines"),
        Column::label("interactive lines without a ref"),
        Column::label("round trip median (ms)").html(Head::Label("round trip ms (median)")),
        Column::label("pagesnap resolve median (ms)")
            .html(Head::Label("pagesnap resolve ms (median)")),
    ]);
    for s in summaries {
        let Some(x) = &s.external_refs else { continue };
        table.push(vec![
            strategy(s),
            Cell::count(x.steps),
            Cell::Fixed(x.refs_per_step, 1),
            Cell::count(x.unresolved),
            Cell::count(x.ambiguous),
            Cell::count(x.unassigned),
            Cell::Fixed(x.round_trip_ms.median, 1),
            Cell::Fixed(x.resolve_ms.median, 1),
        ]);
    }
    table
}

fn tool_servers(summaries: &[LiveSummary]) -> Table {
    let mut table = Table::new(vec![
        Column::label("strategy"),
        Column::label("tool calls / episode"),
        Column::label("tool definitions (tokens)"),
        Column::label("result tokens / step (median)"),
        Column::label("result tokens / episode"),
        Column::label("result characters / episode"),
        Column::label("round trips / step median (ms)")
            .html(Head::Label("round trips / step (median ms)")),
        Column::label("episodes / min (one worker)"),
    ]);
    for s in summaries {
        let Some(x) = &s.tool_server else { continue };
        table.push(vec![
            strategy(s),
            Cell::Fixed(x.tool_calls_per_episode, 2),
            Cell::count(x.definition_tokens),
            Cell::Fixed(x.result_tokens_per_step.median, 0),
            Cell::Fixed(x.result_tokens_per_episode, 0),
            Cell::Fixed(x.result_chars_per_episode, 0),
            Cell::Fixed(x.round_trip_ms.median, 1),
            // One worker runs episodes back to back; a run of 0 ms counts as 1.
            Cell::Fixed(60_000.0 / s.timing.episode_ms.mean.max(1.0), 1),
        ]);
    }
    table
}

fn tasks(report: &LiveReport) -> Table {
    let mut columns = vec![Column::label("task"), Column::label("tier")];
    columns.extend(
        report
            .summaries
            .iter()
            .map(|s| Column::text(shown(&s.strategy))),
    );
    let mut table = Table::new(columns).wide();
    for task in &report.manifest.tasks {
        let tier = report
            .episodes
            .iter()
            .find(|e| e.task == task.id)
            .map_or("", |e| e.tier.as_str());
        let mut row = vec![
            Cell::Task {
                id: task.id.clone(),
                instruction: None,
            },
            Cell::Text(tier.to_owned()),
        ];
        for s in &report.summaries {
            let (ok, of) = report
                .episodes
                .iter()
                .filter(|e| e.task == task.id && e.strategy == s.strategy)
                .fold((0, 0), |(ok, n), e| (ok + usize::from(e.success), n + 1));
            row.push(Cell::Bar { ok, of });
        }
        table.push(row);
    }
    table
}

fn calibration(summaries: &[LiveSummary]) -> Table {
    let mut columns = vec![Column::label("strategy")];
    // The HTML page has always escaped these headers as text (`Cohen&#39;s`),
    // the Markdown page written them as they are.
    columns.extend(
        CALIBRATION_HEADERS
            .iter()
            .map(|&h| Column::label(h).html(Head::Text(h.to_owned()))),
    );
    let mut table = Table::new(columns);
    for s in summaries {
        let Some(c) = &s.calibration else { continue };
        let mut row = vec![strategy(s)];
        row.extend(c.cells().into_iter().map(Cell::Figure));
        table.push(row);
    }
    table
}

fn significance(report: &LiveReport) -> Table {
    let mut table = Table::new(vec![
        Column::label("a"),
        Column::label("b"),
        Column::label("pairs"),
        Column::label("a only"),
        Column::label("b only"),
        Column::label("SR(a) − SR(b) [95% CI]").html(Head::Label("SR(a) − SR(b)")),
        Column::label("McNemar p"),
        Column::label("verdict"),
    ]);
    for c in &report.comparisons {
        table.push(vec![
            Cell::Text(shown(&c.a)),
            Cell::Text(shown(&c.b)),
            Cell::count(c.steps),
            Cell::Count(c.a_only),
            Cell::Count(c.b_only),
            Cell::Rate(c.difference),
            Cell::Fixed(c.p_value, 4),
            Cell::Verdict {
                text: verdict(c),
                significant: c.significant,
            },
        ]);
    }
    table
}

fn failed(report: &LiveReport) -> Table {
    use Format::{Html, Markdown};
    let mut table = Table::new(vec![
        Column::label("task"),
        Column::label("strategy"),
        Column::label("episode"),
        Column::label("seed").only(Markdown),
        Column::label("instruction").only(Html),
        Column::label("ended by"),
        Column::label("reason"),
        Column::label("actions"),
    ])
    .wide();
    for e in report.episodes.iter().filter(|e| !e.success) {
        table.push(vec![
            Cell::Text(e.task.clone()),
            Cell::Text(shown(&e.strategy)),
            Cell::count(e.episode),
            Cell::Count(e.seed),
            Cell::LongText(e.instruction.clone()),
            Cell::Text(e.ended_by.name().to_owned()),
            Cell::LongText(failure_reason(e).to_owned()),
            Cell::LongText(actions_line(e)),
        ]);
    }
    table
}
