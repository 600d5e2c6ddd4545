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

#[test]
fn ratios_measure_every_recording_under_a_folder_and_name_an_empty_one() {
    let dir = tempfile::tempdir().unwrap();
    let pages = dir.path().join("pages");
    std::fs::create_dir_all(pages.join("forms")).unwrap();
    for (from, to) in [
        ("fixtures/login/initial", "forms/login"),
        ("fixtures/checkout_modal/initial", "modal"),
    ] {
        for ext in ["json.gz", "png"] {
            std::fs::copy(
                root().join(format!("{from}.{ext}")),
                pages.join(format!("{to}.{ext}")),
            )
            .unwrap();
        }
    }
    let ratios = |dir: &Path| {
        Command::new(env!("CARGO_BIN_EXE_pagesnap-instructions"))
            .args(["ratios"])
            .arg(dir)
            .output()
            .expect("pagesnap-instructions runs")
    };
    let output = ratios(&pages);
    assert!(output.status.success(), "{}", text(&output));
    let out = text(&output);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[1].starts_with("forms/login "), "{out}");
    assert!(lines[2].starts_with("modal "), "{out}");
    for line in &lines[1..3] {
        // engine instructions, parse instructions, their ratio.
        let fields: Vec<&str> = line.split_whitespace().collect();
        let engine: f64 = fields[1].parse().unwrap();
        let parse: f64 = fields[2].parse().unwrap();
        assert!(engine > 0.0 && parse > 0.0, "{line}");
        let ratio: f64 = fields[3].trim_end_matches('×').parse().unwrap();
        assert!((ratio - engine / parse).abs() < 0.01, "{line}");
    }
    assert!(lines[3].starts_with("2 pages: median "), "{out}");

    let empty = dir.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let output = ratios(&empty);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(text(&output).contains("no recordings"), "{}", text(&output));
}
