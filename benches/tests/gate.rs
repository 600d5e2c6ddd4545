//! The instruction-count gate can fail: against a baseline 10% below today's counts it exits 1 naming every id, against today's it exits 0, and a baseline id the run lacks breaks it.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn gate(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pagesnap-instructions"))
        .current_dir(root())
        .arg("gate")
        .args(args)
        .output()
        .expect("pagesnap-instructions runs")
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn the_gate_fails_on_growth_and_missing_ids_and_passes_on_its_own_counts() {
    let dir = tempfile::tempdir().unwrap();
    let today = dir.path().join("today.json");
    let today_s = today.to_str().unwrap();
    // This test binary's own counts (a debug build counts more than the
    // release build the committed baseline holds, so it makes its own).
    let output = gate(&["--only", "login/initial", "--baseline", today_s, "--update"]);
    assert!(output.status.success(), "{}", text(&output));
    let counts: BTreeMap<String, u64> =
        serde_json::from_str(&std::fs::read_to_string(&today).unwrap()).unwrap();
    assert!(counts.len() >= 10, "{counts:?}");
    assert!(
        counts.contains_key("aria/login/initial") && counts.contains_key("decode/login/initial")
    );

    let output = gate(&["--only", "login/initial", "--baseline", today_s]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert!(text(&output).contains("within +5%"), "{}", text(&output));

    let lowered: BTreeMap<&String, u64> = counts.iter().map(|(id, n)| (id, n * 9 / 10)).collect();
    let low = dir.path().join("low.json");
    std::fs::write(&low, serde_json::to_string(&lowered).unwrap()).unwrap();
    let output = gate(&[
        "--only",
        "login/initial",
        "--baseline",
        low.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    for id in counts.keys() {
        assert!(
            text(&output).contains(&format!("{id} ")) && text(&output).contains(id.as_str()),
            "{id} named: {}",
            text(&output)
        );
    }
    assert!(text(&output).contains("breaks the gate"));

    let mut extra: BTreeMap<String, u64> = counts.clone();
    extra.insert("gone-step/login/initial".into(), 1);
    let with_missing = dir.path().join("missing.json");
    std::fs::write(&with_missing, serde_json::to_string(&extra).unwrap()).unwrap();
    let output = gate(&[
        "--only",
        "login/initial",
        "--baseline",
        with_missing.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert!(text(&output).contains("missing"), "{}", text(&output));

    let output = gate(&["--only", "nowhere/page"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output).contains("no such page"), "{}", text(&output));
}
