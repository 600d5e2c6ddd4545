//! A run killed midway with SIGKILL and finished with `--resume` gives the same final metrics as an uninterrupted run.

use crate::support::{read_json, root, without_timing};
use crate::{alone, within};

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn command(out: &Path, resume: bool) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pagesnap"));
    command
        .current_dir(root())
        .args(["run", "--suite", "suites/smoke.toml", "--agent", "baseline"])
        .args(["--jobs", "2", "--quiet", "--out"])
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if resume {
        command.arg("--resume");
    }
    command
}

fn run_to_end(out: &Path, resume: bool) {
    let output = command(out, resume).output().expect("pagesnap runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Complete lines in results.jsonl so far.
fn lines(out: &Path) -> usize {
    std::fs::read_to_string(out.join("results.jsonl"))
        .map(|text| text.matches('\n').count())
        .unwrap_or(0)
}

/// summary.json without wall-clock figures.
fn summary(out: &Path) -> serde_json::Value {
    without_timing(read_json(&out.join("summary.json")))
}

/// results.csv as bytes: it holds no wall-clock column (those are in
/// timings.csv), so an interrupted-and-resumed run must match byte for byte.
fn results(out: &Path) -> String {
    let text = std::fs::read_to_string(out.join("results.csv")).expect("results.csv");
    // Header names hold no comma or quote, so splitting on commas is exact.
    let header: Vec<&str> = text.lines().next().expect("header").split(',').collect();
    assert!(
        !header
            .iter()
            .any(|h| *h == "analysis_us" || *h == "engine_us" || *h == "agent_us"),
        "{header:?}"
    );
    text
}

/// No bound of its own but a 120 s guard for progress (the run takes ~10 s).
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a wall-clock bound: scripts/test-bounded runs it alone against the release build"
)]
fn sigkill_midway_then_resume_matches_an_uninterrupted_run() {
    let _alone = alone();
    let dir = tempfile::tempdir().expect("tempdir");
    let whole = dir.path().join("whole");
    run_to_end(&whole, false);
    let total = lines(&whole);
    assert!(total > 100, "{total} steps in the smoke suite");

    // The test-only delay after each step keeps the run going for several
    // seconds, so the kill lands midway even on a loaded machine.
    let cut = dir.path().join("cut");
    let mut child = command(&cut, false)
        .env("PAGESNAP_STEP_DELAY_MS", "40")
        .spawn()
        .expect("pagesnap starts");
    let started = Instant::now();
    while lines(&cut) < 20 {
        if let Some(status) = child.try_wait().expect("poll child") {
            panic!("the run ended ({status}) before it could be killed");
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no rows after two minutes"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().expect("SIGKILL");
    child.wait().expect("reaped");
    let at_kill = lines(&cut);
    assert!(
        (20..total).contains(&at_kill),
        "killed midway: {at_kill} of {total} lines"
    );
    assert!(
        !cut.join("summary.json").exists(),
        "no reports from the killed run"
    );

    run_to_end(&cut, true);
    assert_eq!(lines(&cut), total, "every step once");
    assert_eq!(summary(&cut), summary(&whole));
    assert_eq!(results(&cut), results(&whole));
}

/// (task, strategy, step) of every line in results.jsonl.
fn keys(out: &Path) -> Vec<(String, String, u64)> {
    std::fs::read_to_string(out.join("results.jsonl"))
        .expect("results.jsonl")
        .lines()
        .map(|line| {
            let row: serde_json::Value = serde_json::from_str(line).expect("a row");
            (
                row["task"].as_str().expect("task").to_owned(),
                row["strategy"].as_str().expect("strategy").to_owned(),
                row["step"].as_u64().expect("step"),
            )
        })
        .collect()
}

/// Issue 17: two `run --resume` into one --out both proceeded, appending the
/// same steps twice. The second fails at once naming the folder; the lock
/// goes with the process, so after a SIGKILL the folder can be resumed.
///
/// Measured 0.03 s of its 10 s bound.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a wall-clock bound: scripts/test-bounded runs it alone against the release build"
)]
fn a_second_run_into_a_folder_in_use_fails_at_once() {
    let _alone = alone();
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("busy");
    let mut first = command(&out, true)
        .env("PAGESNAP_STEP_DELAY_MS", "40")
        .spawn()
        .expect("pagesnap starts");
    let started = Instant::now();
    while lines(&out) < 5 {
        if let Some(status) = first.try_wait().expect("poll child") {
            panic!("the first run ended ({status}) too soon");
        }
        assert!(started.elapsed() < Duration::from_secs(120), "no rows");
        std::thread::sleep(Duration::from_millis(5));
    }
    let second_started = Instant::now();
    let second = command(&out, true).output().expect("pagesnap runs");
    let err = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("{} is in use", out.display())),
        "{err}"
    );
    within(
        "refusing a second run into a folder in use",
        second_started.elapsed(),
        Duration::from_secs(10),
        &err,
    );
    assert!(
        first.try_wait().expect("poll").is_none(),
        "first still runs"
    );

    first.kill().expect("SIGKILL");
    first.wait().expect("reaped");
    run_to_end(&out, true);
    let mut all = keys(&out);
    let total = all.len();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), total, "every step once");
    assert!(out.join("summary.json").exists());
}
