//! Golden outputs of every report writer: a replay and a live report built from inputs that reach every section, checked byte for byte against `golden/`.
//!
//! The files in `golden/` were written by the writers as they were before the
//! reports moved onto one table model (issue 55 item 4), so a restructuring
//! that changes a byte fails here. The inputs reach the sections a smoke run
//! does not: judges, categories, faults, external strategies, tool servers,
//! calibration, failed episodes, and strings that need CSV, Markdown and HTML
//! escaping. `PAGESNAP_BLESS=1` rewrites the files (only for a change meant to
//! alter the outputs).

#![expect(
    clippy::manual_is_multiple_of,
    reason = "the inputs vary each field by a remainder (`n % 3 == 1`, `n % 3 != 0`); one spelling for every remainder reads best"
)]

use std::path::PathBuf;

use pagesnap_browser::{Failure, Op};

use super::Report;
use super::live::LiveReport;
use crate::agent::Action;
use crate::results::row::test_row;
use crate::results::{
    EndedBy, Episode, ExternalStep, Manifest, PeerStep, Row, StepLog, StepOutcome,
};

/// A string every format must escape: markup, table pipes, Markdown
/// punctuation, a CSV formula prefix, a comma, quotes and a line break.
const HOSTILE: &str = "=cmd|x <img src=x onerror=alert(1)> *a_b* [l](u), \"q\" 'p'\nnext";

fn manifest(live: bool) -> Manifest {
    let mut value = serde_json::json!({
        "pagesnap": "0.1.0", "suite": "gold <suite>", "suite_path": "suites/gold.toml",
        "description": "Golden | inputs *for* the <reports>",
        "agent": "baseline",
        "strategies": ["flat", "aria", "som"], "shard": null,
        "tasks": [
            {"id": "login", "instruction": "Sign in as \"ada\"", "steps": 2, "tags": ["form", "auth"]},
            {"id": "modal|close", "instruction": HOSTILE, "steps": 2, "tags": ["form"]},
            {"id": "not-run", "instruction": "never run", "steps": 1, "tags": ["nav"]}
        ]
    });
    if live {
        value["agent"] = "openai:gpt-test".into();
        value["strategies"] = serde_json::json!(["aria", "ext:playwright-aria", "mcp:playwright"]);
        value["live"] = serde_json::json!({
            "episodes": 2, "seed": 7, "max_steps": 5, "judge": "llm:openai:gpt-judge",
            "episode_max_time_ms": 10000
        });
    }
    serde_json::from_value(value).expect("the template is a manifest")
}

fn row(task: &str, strategy: &str, step: usize, n: usize) -> Row {
    let mut r = test_row(task, strategy, step, n % 3 != 0);
    r.recording = format!("recordings/{task}-{step}.json.gz");
    r.expected_op = if step == 2 { Op::Type } else { Op::Click };
    r.expected_target = if n % 2 == 0 {
        "#sign-in".to_owned()
    } else {
        HOSTILE.to_owned()
    };
    r.expected_value = (step == 2).then(|| "ada@example.com".to_owned());
    r.op = (n % 5 != 4).then_some(if n % 4 == 1 {
        Op::SelectText
    } else {
        Op::Click
    });
    r.reference = r.op.map(|_| format!("e{n}"));
    r.value = (n % 3 == 1).then(|| "-1, \"x\"".to_owned());
    r.node = (n % 2 == 0).then_some(n * 7);
    r.element = (n % 2 == 1).then(|| format!("button \"Go {n}\""));
    r.hallucinated = n % 7 == 3;
    r.target_recall = (n % 4 != 0).then_some(n % 5 != 0);
    r.op_ok = n % 6 != 5;
    r.element_ok = (n % 3 != 2).then_some(r.success);
    r.value_ok = (step == 2).then_some(n % 2 == 0);
    r.op_f1 = (n % 4) as f64 / 3.0;
    r.refs = 10 + n;
    r.input_tokens = 400 + 37 * n;
    r.obs_tokens_o200k = 300 + 11 * n;
    r.obs_tokens_cl100k = 310 + 13 * n;
    r.image_tokens = if strategy == "som" { 765 } else { 0 };
    r.output_tokens = 20 + n;
    r.analysis_us = 1000 + 3 * n as u64;
    r.engine_us = 200 + 5 * n as u64;
    r.agent_us = 70_000 + 1_013 * n as u64;
    r.retries = (n % 4 == 2) as u32;
    r.fault = (n % 9 == 8).then(|| "rate_limit".to_owned());
    r.invalid = n % 8 == 6;
    r.cost_usd = 0.000_123 * n as f64;
    r.judge = (strategy != "som").then_some(n % 4 != 1);
    r.judge_reason = r.judge.map(|_| format!("reason {n}: {HOSTILE}"));
    r.task_judge = (strategy == "aria").then_some(n % 2 == 0);
    r.error = (n % 5 == 4).then(|| format!("no answer: {HOSTILE}"));
    r.raw = format!(
        "{{\"op\":\"click\",\"ref\":\"e{n}\"}} {}",
        "long ".repeat(n * 6)
    );
    r
}

/// A replay of two tasks under three strategies, with every optional column set somewhere.
pub(super) fn replay() -> Report {
    let mut rows = Vec::new();
    let mut n = 0;
    for strategy in ["flat", "aria", "som"] {
        for task in ["login", "modal|close"] {
            for step in 1..=2 {
                n += 1;
                rows.push(row(task, strategy, step, n));
            }
        }
    }
    Report::build(manifest(false), rows)
}

fn step(n: usize, strategy: &str) -> StepLog {
    let outcomes = [
        StepOutcome::Ok,
        StepOutcome::Refused(Failure::Covered),
        StepOutcome::Ok,
        StepOutcome::Hallucinated,
        StepOutcome::Done,
        StepOutcome::Refused(Failure::Stale),
        StepOutcome::Invalid,
    ];
    let ops = [Op::Click, Op::Type, Op::SelectText, Op::Scroll, Op::Done];
    StepLog {
        step: n % 3 + 1,
        refs: 5 + n,
        new_refs: n % 3,
        obs_tokens: 200 + 17 * n,
        image_tokens: 0,
        input_tokens: 900 + 31 * n,
        output_tokens: 15 + n,
        action: (n % 6 != 5).then(|| Action {
            op: ops[n % ops.len()],
            reference: (n % 2 == 0).then(|| format!("e{n}")),
            value: (n % 3 == 0).then(|| HOSTILE.to_owned()),
        }),
        element: (n % 2 == 0).then(|| format!("textbox \"Email {n}\"")),
        backend_id: Some(n as u64),
        outcome: outcomes[n % outcomes.len()],
        message: (n % 4 == 1).then(|| format!("covered by <div class=\"modal\"> {n}")),
        judge: (n % 3 != 0).then_some(n % 2 == 0),
        judge_reason: (n % 3 != 0).then(|| format!("the page changed, \"{n}\"")),
        raw: format!("{{\"op\":\"click\"}}\n{n}"),
        capture_ms: 12.5 + n as f64,
        engine_ms: 1.25 + n as f64 / 8.0,
        agent_ms: 800.0 + 13.0 * n as f64,
        act_ms: 40.0 + n as f64,
        external: strategy.starts_with("ext:").then(|| ExternalStep {
            round_trip_ms: 30.0 + n as f64,
            resolve_ms: 9.5 + n as f64 / 4.0,
            refs: 6 + n % 4,
            unresolved: n % 2,
            ambiguous: n % 3,
            unassigned: usize::from(n % 5 == 0),
        }),
        peer: strategy.starts_with("mcp:").then(|| PeerStep {
            tool_calls: 2 + n % 2,
            round_trip_ms: 55.0 + n as f64,
            result_tokens: 700 + 23 * n,
            result_chars: 2800 + 90 * n,
            definition_tokens: if n % 3 == 0 { 2400 } else { 0 },
        }),
    }
}

fn episode(task: &str, tier: &str, strategy: &str, number: usize, n: usize) -> Episode {
    let step_log: Vec<StepLog> = (0..1 + n % 3).map(|i| step(n * 3 + i, strategy)).collect();
    let success = n % 3 != 1;
    let mut e = Episode {
        task: task.to_owned(),
        strategy: strategy.to_owned(),
        episode: number,
        seed: 7 + number as u64 - 1,
        tier: tier.to_owned(),
        tags: vec!["form".to_owned(), "auth, \"x\"".to_owned()],
        instruction: if n % 2 == 0 {
            HOSTILE.to_owned()
        } else {
            "Click OK".to_owned()
        },
        reward: if success {
            0.75 - n as f64 / 100.0
        } else {
            -1.0
        },
        raw_reward: if success { 1.0 } else { -1.0 },
        reason: (!success).then(|| format!("predicate false: <b>{n}</b>")),
        success,
        ended_by: [
            EndedBy::Page,
            EndedBy::Agent,
            EndedBy::Steps,
            EndedBy::Error,
        ][n % 4],
        steps: step_log.len(),
        obs_tokens: step_log.iter().map(|s| s.obs_tokens).sum(),
        image_tokens: 0,
        input_tokens: step_log.iter().map(|s| s.input_tokens).sum(),
        output_tokens: step_log.iter().map(|s| s.output_tokens).sum(),
        cost_usd: 0.0021 * n as f64,
        action_errors: 0,
        covered: 0,
        stale: 0,
        hallucinated: 0,
        invalid: 0,
        faults: 0,
        judge: (n % 4 != 3).then_some(n % 2 == 0),
        judge_reason: (n % 4 != 3).then(|| format!("judged | {n}")),
        error: (n % 4 == 3).then(|| format!("tab crashed: {HOSTILE}")),
        browser_died: None,
        wall_ms: 2500.0 + 111.0 * n as f64,
        trace: format!("traces/{task}/{strategy}/{number}"),
        step_log,
    };
    e.tally();
    e
}

/// A live run of two tasks under pagesnap, an external strategy and a tool
/// server, two episodes each, judged by an LLM.
pub(super) fn live() -> LiveReport {
    let mut episodes = Vec::new();
    let mut n = 0;
    for strategy in ["aria", "ext:playwright-aria", "mcp:playwright"] {
        for (task, tier) in [("login", "hard"), ("modal|close", "easy <b>")] {
            for number in 1..=2 {
                n += 1;
                episodes.push(episode(task, tier, strategy, number, n));
            }
        }
    }
    LiveReport::build(manifest(true), episodes)
}

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/report/golden")
}

/// Each output equals its golden file; with `PAGESNAP_BLESS=1`, rewrites them.
fn check(outputs: &[(&str, String)]) {
    let dir = golden_dir();
    let bless = std::env::var_os("PAGESNAP_BLESS").is_some();
    let mut differ = Vec::new();
    for (name, text) in outputs {
        let path = dir.join(name);
        if bless {
            std::fs::create_dir_all(&dir).expect("the golden folder");
            std::fs::write(&path, text).expect("a golden file");
            continue;
        }
        let want = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (PAGESNAP_BLESS=1 writes it)", path.display()));
        if &want != text {
            let line = want
                .lines()
                .zip(text.lines())
                .position(|(a, b)| a != b)
                .unwrap_or_else(|| want.lines().count().min(text.lines().count()));
            differ.push(format!(
                "{name}: first difference on line {}\n  want: {:?}\n  got:  {:?}",
                line + 1,
                want.lines().nth(line).unwrap_or(""),
                text.lines().nth(line).unwrap_or("")
            ));
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

#[test]
fn replay_reports_are_byte_identical_to_the_golden_files() {
    let report = replay();
    let dir = tempfile::tempdir().expect("a temporary folder");
    super::write_all(dir.path(), &report).expect("the reports are written");
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).expect("a report");
    check(&[
        ("replay.results.csv", read("results.csv")),
        ("replay.timings.csv", read("timings.csv")),
        ("replay.summary.json", read("summary.json")),
        ("replay.report.md", read("report.md")),
        ("replay.report.html", read("report.html")),
    ]);
}

#[test]
fn live_reports_are_byte_identical_to_the_golden_files() {
    let report = live();
    let dir = tempfile::tempdir().expect("a temporary folder");
    super::live::write_all(dir.path(), &report).expect("the reports are written");
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).expect("a report");
    check(&[
        ("live.results.csv", read("results.csv")),
        ("live.steps.csv", read("steps.csv")),
        ("live.timings.csv", read("timings.csv")),
        ("live.summary.json", read("summary.json")),
        ("live.report.md", read("report.md")),
        ("live.report.html", read("report.html")),
    ]);
}
