//! A live run's files: `results.csv` (one row per episode), `steps.csv` (one row per step), `timings.csv` (wall-clock, apart), `summary.json`, `report.md`, `report.html`.
//!
//! Everything but `timings.csv`, the `timing` parts of `summary.json` and the
//! latency table of the reports is a function of the episodes' content, so a
//! resumed run gives the same bytes as an uninterrupted one.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use serde::Serialize;

pub use super::csv::{results_csv, steps_csv, timings_csv};
use super::{CALIBRATION_HEADERS, LiveReport, LiveSummary, actions_line, failure_reason, shown};
use crate::report::escape::md;
use crate::report::format::{rate, verdict};
use crate::report::metrics;
use crate::report::significance;
use crate::report::write::{Bootstrap, Significance};

#[derive(Serialize)]
struct Summary<'a> {
    suite: &'a str,
    agent: &'a str,
    kind: &'static str,
    settings: &'a Option<crate::results::LiveSettings>,
    tasks: usize,
    bootstrap: Bootstrap,
    strategies: &'a [LiveSummary],
    significance: Significance<'a>,
}

/// Writes every report file into `out`.
pub fn write_all(out: &Path, report: &LiveReport) -> Result<()> {
    write(&out.join("results.csv"), &results_csv(report))?;
    write(&out.join("steps.csv"), &steps_csv(report))?;
    write(&out.join("timings.csv"), &timings_csv(report))?;
    let summary = Summary {
        suite: &report.manifest.suite,
        agent: &report.manifest.agent,
        kind: "live",
        settings: &report.manifest.live,
        tasks: report.manifest.tasks.len(),
        bootstrap: Bootstrap {
            resamples: metrics::RESAMPLES,
            seed: metrics::SEED,
            unit: "task (calibration: episode)",
            level: 0.95,
        },
        strategies: &report.summaries,
        significance: Significance {
            test: "McNemar exact (two-sided) on episode success over the (task, episode) pairs; paired bootstrap over tasks for the success-rate difference",
            alpha: significance::ALPHA,
            comparisons: &report.comparisons,
        },
    };
    let mut json = serde_json::to_string_pretty(&summary)?;
    json.push('\n');
    write(&out.join("summary.json"), &json)?;
    write(&out.join("report.md"), &markdown(report))?;
    write(&out.join("report.html"), &super::html::render(report))
}

fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).with_context(|| format!("could not write {}", path.display()))
}

/// `report.md`.
pub fn markdown(report: &LiveReport) -> String {
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
    out.push_str("| strategy | episodes | success rate [95% CI] | mean reward [95% CI] | steps / episode | obs tokens / episode (mean, p90) | obs tokens / step (median) | input tokens / episode | action errors | episode errors |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for s in &report.summaries {
        let action_errors: usize = s.step_outcomes.values().sum();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {:.2} | {:.0}, {:.0} | {:.0} | {:.0} | {} | {} |",
            md(&shown(&s.strategy)),
            s.episodes,
            rate(&s.success_rate),
            rate(&s.mean_reward),
            s.mean_steps,
            s.obs_tokens.mean,
            s.obs_tokens.p90,
            s.obs_tokens_per_step.median,
            s.input_tokens.mean,
            action_errors,
            s.errors
        );
    }
    out.push_str("\n## Success per tier\n\n");
    let tiers: std::collections::BTreeSet<&String> = report
        .summaries
        .iter()
        .flat_map(|s| s.tiers.keys())
        .collect();
    let _ = write!(out, "| tier |");
    for s in &report.summaries {
        let _ = write!(out, " {} |", md(&shown(&s.strategy)));
    }
    out.push_str("\n|---|");
    out.push_str(&"---|".repeat(report.summaries.len()));
    out.push('\n');
    for tier in tiers {
        let _ = write!(out, "| {} |", md(tier));
        for s in &report.summaries {
            let (ok, n) = s.tiers.get(tier).copied().unwrap_or((0, 0));
            let _ = write!(out, " {ok}/{n} |");
        }
        out.push('\n');
    }
    out.push_str("\n## What went wrong in steps\n\n| strategy | how episodes ended | step outcomes other than ok |\n|---|---|---|\n");
    for s in &report.summaries {
        let join = |map: &std::collections::BTreeMap<String, usize>| {
            map.iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            md(&shown(&s.strategy)),
            join(&s.ended_by),
            if s.step_outcomes.is_empty() {
                "none".to_owned()
            } else {
                join(&s.step_outcomes)
            }
        );
    }
    out.push_str("\n## Latency per step (ms, wall-clock: varies between runs)\n\n| strategy | capture median | capture p90 | engine median | agent median | act median | episode median |\n|---|---|---|---|---|---|---|\n");
    for s in &report.summaries {
        let t = &s.timing;
        let _ = writeln!(
            out,
            "| {} | {:.1} | {:.1} | {:.2} | {:.2} | {:.1} | {:.0} |",
            md(&shown(&s.strategy)),
            t.capture_ms.median,
            t.capture_ms.p90,
            t.engine_ms.median,
            t.agent_ms.median,
            t.act_ms.median,
            t.episode_ms.median
        );
    }
    if report.summaries.iter().any(|s| s.external_refs.is_some()) {
        out.push_str("\n## External strategies: refs and protocol cost\n\nAn external strategy's capture ms is its own observation time (the program's snapshot, without resolving refs); its engine ms is 0. The round trip adds the protocol and the adapter's ref resolution; pagesnap's capture, analysis and ref resolution of the same state (for actions and the trace) are not in either.\n\n| strategy | steps | refs / step | unresolved refs | ambiguous ARIA lines | interactive lines without a ref | round trip median (ms) | pagesnap resolve median (ms) |\n|---|---|---|---|---|---|---|---|\n");
        for s in &report.summaries {
            let Some(x) = &s.external_refs else { continue };
            let _ = writeln!(
                out,
                "| {} | {} | {:.1} | {} | {} | {} | {:.1} | {:.1} |",
                md(&shown(&s.strategy)),
                x.steps,
                x.refs_per_step,
                x.unresolved,
                x.ambiguous,
                x.unassigned,
                x.round_trip_ms.median,
                x.resolve_ms.median
            );
        }
    }
    if report.summaries.iter().any(|s| s.tool_server.is_some()) {
        out.push_str("\n## Tool servers: calls and what a model reads\n\nA tool server's episode is observed and acted on through its own tools. Its obs tokens are every tool result the model reads (snapshots and action answers) plus the tool definitions, shown once per episode; capture ms is the snapshot call's round trip.\n\n| strategy | tool calls / episode | tool definitions (tokens) | result tokens / step (median) | round trips / step median (ms) | episodes / min (one worker) |\n|---|---|---|---|---|---|\n");
        for s in &report.summaries {
            let Some(x) = &s.tool_server else { continue };
            let _ = writeln!(
                out,
                "| {} | {:.2} | {} | {:.0} | {:.1} | {:.1} |",
                md(&shown(&s.strategy)),
                x.tool_calls_per_episode,
                x.definition_tokens,
                x.result_tokens_per_step.median,
                x.round_trip_ms.median,
                60_000.0 / s.timing.episode_ms.mean.max(1.0)
            );
        }
    }
    if report.summaries.iter().any(|s| s.calibration.is_some()) {
        out.push_str(
            "\n## LLM judge calibration (episode verdict vs the page's reward)\n\n| strategy | ",
        );
        out.push_str(&CALIBRATION_HEADERS.join(" | "));
        out.push_str(" |\n|---|");
        out.push_str(&"---|".repeat(CALIBRATION_HEADERS.len()));
        out.push('\n');
        for s in &report.summaries {
            let Some(c) = &s.calibration else { continue };
            let _ = writeln!(
                out,
                "| {} | {} |",
                md(&shown(&s.strategy)),
                c.cells().join(" | ")
            );
        }
    }
    if !report.comparisons.is_empty() {
        out.push_str("\n## Paired significance (same tasks and episodes)\n\n| a | b | pairs | a only | b only | SR(a) − SR(b) [95% CI] | McNemar p | verdict |\n|---|---|---|---|---|---|---|---|\n");
        for c in &report.comparisons {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {:.4} | {} |",
                md(&shown(&c.a)),
                md(&shown(&c.b)),
                c.steps,
                c.a_only,
                c.b_only,
                rate(&c.difference),
                c.p_value,
                verdict(c)
            );
        }
    }
    out.push_str("\n## Episodes that failed\n\n| task | strategy | episode | seed | ended by | reason | actions |\n|---|---|---|---|---|---|---|\n");
    for e in report.episodes.iter().filter(|e| !e.success) {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            md(&e.task),
            md(&shown(&e.strategy)),
            e.episode,
            e.seed,
            e.ended_by,
            md(failure_reason(e)),
            md(&actions_line(e))
        );
    }
    out
}
