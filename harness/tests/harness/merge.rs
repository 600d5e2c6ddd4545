//! `pagesnap run --shard K/N` and `pagesnap merge`: shards joined give the same results as one unsharded run.

use crate::support::{pagesnap, read_json, stderr, without_timing};

use std::path::Path;

fn run_smoke(out: &Path, shard: Option<&str>) {
    let mut args = vec![
        "run",
        "--suite",
        "suites/smoke.toml",
        "--strategy",
        "aria,structural",
        "--out",
        out.to_str().unwrap(),
    ];
    if let Some(shard) = shard {
        args.extend(["--shard", shard]);
    }
    let output = pagesnap(&args);
    assert!(output.status.success(), "{}", stderr(&output));
}

fn task_ids(dir: &Path) -> Vec<String> {
    let csv = std::fs::read_to_string(dir.join("results.csv")).unwrap();
    let mut ids: Vec<String> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().to_owned())
        .collect();
    ids.dedup();
    ids
}

#[test]
fn shards_merged_equal_an_unsharded_run() {
    let dir = tempfile::tempdir().unwrap();
    let (full, one, two, merged) = (
        dir.path().join("full"),
        dir.path().join("one"),
        dir.path().join("two"),
        dir.path().join("merged"),
    );
    run_smoke(&full, None);
    run_smoke(&one, Some("1/2"));
    run_smoke(&two, Some("2/2"));

    // Shards split the suite round-robin in suite order.
    let manifest = read_json(&full.join("run.json"));
    let all: Vec<String> = manifest["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap().to_owned())
        .collect();
    let odd: Vec<String> = all.iter().step_by(2).cloned().collect();
    let even: Vec<String> = all.iter().skip(1).step_by(2).cloned().collect();
    assert_eq!(task_ids(&one), odd);
    assert_eq!(task_ids(&two), even);
    assert_eq!(
        read_json(&one.join("run.json"))["shard"],
        serde_json::json!({"k": 1, "n": 2})
    );
    assert_eq!(manifest["shard"], serde_json::Value::Null);
    assert_eq!(
        manifest["strategies"],
        serde_json::json!(["aria", "structural"])
    );
    assert_eq!(manifest["agent"], "baseline");

    let output = pagesnap(&[
        "merge",
        merged.to_str().unwrap(),
        two.to_str().unwrap(),
        one.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let csv = |d: &Path| std::fs::read_to_string(d.join("results.csv")).unwrap();
    assert_eq!(csv(&merged), csv(&full), "results.csv is byte-identical");
    assert_eq!(
        without_timing(read_json(&merged.join("summary.json"))),
        without_timing(read_json(&full.join("summary.json")))
    );
    assert_eq!(read_json(&merged.join("run.json")), manifest);
    for file in ["results.jsonl", "timings.csv", "report.md", "report.html"] {
        assert!(merged.join(file).exists(), "{file}");
    }
    // Every step page of the shards comes along, so the report's links work.
    let pages = |d: &Path| {
        let mut found = Vec::new();
        let mut stack = vec![d.join("steps")];
        while let Some(at) = stack.pop() {
            for entry in std::fs::read_dir(&at).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    found.push(path.strip_prefix(d).unwrap().to_path_buf());
                }
            }
        }
        found.sort();
        found
    };
    assert_eq!(pages(&merged), pages(&full));
    assert!(!pages(&full).is_empty());

    // A single shard merges with a warning naming the missing shard.
    let partial = dir.path().join("partial");
    let output = pagesnap(&["merge", partial.to_str().unwrap(), one.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("warning: shard 2/2 not given"),
        "{}",
        stderr(&output)
    );

    // The same shard twice is fine (identical rows); a changed row is not.
    let twice = dir.path().join("twice");
    let output = pagesnap(&[
        "merge",
        twice.to_str().unwrap(),
        one.to_str().unwrap(),
        one.to_str().unwrap(),
        two.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(csv(&twice), csv(&full));

    let tampered = dir.path().join("tampered");
    std::fs::create_dir(&tampered).unwrap();
    std::fs::copy(one.join("run.json"), tampered.join("run.json")).unwrap();
    let jsonl = std::fs::read_to_string(one.join("results.jsonl")).unwrap();
    let changed = jsonl.replacen("\"success\":true", "\"success\":false", 1);
    assert_ne!(changed, jsonl);
    std::fs::write(tampered.join("results.jsonl"), changed).unwrap();
    let output = pagesnap(&[
        "merge",
        dir.path().join("x").to_str().unwrap(),
        one.to_str().unwrap(),
        tampered.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("with different results"),
        "{}",
        stderr(&output)
    );
    assert!(
        stderr(&output).contains("tampered/results.jsonl"),
        "{}",
        stderr(&output)
    );

    // Shards of another agent do not merge.
    let run_json = std::fs::read_to_string(two.join("run.json")).unwrap();
    std::fs::write(
        tampered.join("run.json"),
        run_json.replace("\"agent\": \"baseline\"", "\"agent\": \"openai:gpt-4o\""),
    )
    .unwrap();
    std::fs::copy(two.join("results.jsonl"), tampered.join("results.jsonl")).unwrap();
    let output = pagesnap(&[
        "merge",
        dir.path().join("y").to_str().unwrap(),
        one.to_str().unwrap(),
        tampered.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("differ in agent: \"baseline\" vs \"openai:gpt-4o\""),
        "{}",
        stderr(&output)
    );

    // Merging into a folder that already holds a run is refused.
    let output = pagesnap(&["merge", full.to_str().unwrap(), one.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("merge into an empty folder"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn bad_shard_is_named() {
    for bad in ["3/2", "0/2", "1-2"] {
        let output = pagesnap(&[
            "run",
            "--suite",
            "suites/smoke.toml",
            "--shard",
            bad,
            "--out",
            "/nonexistent/never",
        ]);
        assert!(!output.status.success());
        let err = stderr(&output);
        assert!(
            err.contains(&format!("invalid shard \"{bad}\"")) && err.contains("1 ≤ K ≤ N"),
            "{err}"
        );
    }
}

/// Issue 17: shards of two splits (1/2 with 2/3) merged with only a warning
/// and read as a complete run. They are refused, naming both folders and
/// their schemes, and nothing is written.
#[test]
fn shards_of_different_schemes_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (half, third, merged) = (
        dir.path().join("half"),
        dir.path().join("third"),
        dir.path().join("merged"),
    );
    run_smoke(&half, Some("1/2"));
    run_smoke(&third, Some("2/3"));
    let output = pagesnap(&[
        "merge",
        merged.to_str().unwrap(),
        half.to_str().unwrap(),
        third.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let expected = format!(
        "cannot merge shards of different schemes: {} holds shard 1/2 (split in 2) and {} holds \
         shard 2/3 (split in 3)",
        half.display(),
        third.display()
    );
    assert!(stderr(&output).contains(&expected), "{}", stderr(&output));
    assert!(!merged.join("results.jsonl").exists());
}
