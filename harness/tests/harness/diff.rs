//! `pagesnap diff`: the regression table, `--fail-if` breaches (exit 1) and bad input (exit 2) on real run folders.

use crate::support::{pagesnap, stderr, stdout};

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

/// One real smoke run (aria, flat), shared by the tests of this file.
fn base_run() -> &'static Path {
    static RUN: OnceLock<PathBuf> = OnceLock::new();
    RUN.get_or_init(|| {
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("diff-base-run");
        let _ = std::fs::remove_dir_all(&out);
        let output = pagesnap(&[
            "run",
            "--suite",
            "suites/smoke.toml",
            "--strategy",
            "aria,flat",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(output.status.success(), "{}", stderr(&output));
        out
    })
}

/// A copy of the base run whose summary.json is edited by `edit`.
fn modified(name: &str, edit: impl FnOnce(&mut serde_json::Value)) -> tempfile::TempDir {
    let dir = tempfile::Builder::new().prefix(name).tempdir().unwrap();
    std::fs::copy(base_run().join("run.json"), dir.path().join("run.json")).unwrap();
    let text = std::fs::read_to_string(base_run().join("summary.json")).unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
    edit(&mut json);
    std::fs::write(
        dir.path().join("summary.json"),
        serde_json::to_string_pretty(&json).unwrap(),
    )
    .unwrap();
    dir
}

fn diff(base: &Path, new: &Path, rules: Option<&str>) -> Output {
    let mut args = vec!["diff", base.to_str().unwrap(), new.to_str().unwrap()];
    if let Some(rules) = rules {
        args.extend(["--fail-if", rules]);
    }
    pagesnap(&args)
}

const GATE: &str = "step_sr<-2pp,task_sr<-2pp,target_recall<-1pp,tokens>+10%";

#[test]
fn a_run_against_itself_has_no_breach() {
    let base = base_run();
    let output = diff(base, base, Some(GATE));
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}{}",
        stdout(&output),
        stderr(&output)
    );
    let text = stdout(&output);
    assert!(text.contains("no breach"), "{text}");
    for metric in [
        "target_recall",
        "element_acc",
        "step_sr",
        "task_sr",
        "tokens",
        "engine_us",
    ] {
        assert_eq!(
            text.lines()
                .filter(|l| l.split_whitespace().nth(1) == Some(metric))
                .count(),
            2,
            "{metric} once per strategy:\n{text}"
        );
    }
    assert!(
        text.contains("+0.0pp") && text.contains("(timing)"),
        "{text}"
    );
}

#[test]
fn lower_step_sr_and_more_tokens_are_breaches() {
    let new = modified("worse", |json| {
        let aria = &mut json["strategies"][0];
        assert_eq!(aria["strategy"], "aria");
        let sr = aria["step_success"]["value"].as_f64().unwrap();
        aria["step_success"]["value"] = (sr - 0.05).into();
        let tokens = aria["mean_input_tokens"].as_f64().unwrap();
        aria["mean_input_tokens"] = (tokens * 1.2).into();
        // Slower engine: shown, not gated.
        aria["timing"]["mean_engine_us"] = 1e9.into();
    });
    let output = diff(base_run(), new.path(), Some(GATE));
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{text}{}", stderr(&output));
    let breaches: Vec<&str> = text.lines().filter(|l| l.starts_with("breach: ")).collect();
    assert_eq!(breaches.len(), 2, "{text}");
    assert!(
        breaches[0].contains("aria step_sr")
            && breaches[0].contains("(-5.0pp) breaks step_sr<-2pp"),
        "{text}"
    );
    assert!(
        breaches[1].contains("aria tokens") && breaches[1].contains("(+20.0%) breaks tokens>+10%"),
        "{text}"
    );

    // A 1pp drop is inside a 2pp gate.
    let slight = modified("slight", |json| {
        let sr = json["strategies"][1]["step_success"]["value"]
            .as_f64()
            .unwrap();
        json["strategies"][1]["step_success"]["value"] = (sr - 0.01).into();
    });
    let output = diff(base_run(), slight.path(), Some(GATE));
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    // Timing is gated only when asked.
    let output = diff(base_run(), new.path(), Some("engine_us>+50%"));
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    assert!(
        stdout(&output).contains("breaks engine_us>+50%"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn a_strategy_missing_in_new_is_a_breach() {
    let new = modified("missing", |json| {
        json["strategies"]
            .as_array_mut()
            .unwrap()
            .retain(|s| s["strategy"] != "flat");
    });
    let output = diff(base_run(), new.path(), None);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    assert!(
        stdout(&output).contains("breach: strategy flat is missing in"),
        "{}",
        stdout(&output)
    );
}

/// A copy of the base run whose run.json is edited by `edit`.
fn other_run(name: &str, edit: impl FnOnce(&mut serde_json::Value)) -> tempfile::TempDir {
    let dir = modified(name, |_| {});
    let path = dir.path().join("run.json");
    let mut json = crate::support::read_json(&path);
    edit(&mut json);
    std::fs::write(&path, serde_json::to_string_pretty(&json).unwrap()).unwrap();
    dir
}

/// Issue 17: two runs of different suites (or tasks, agents, strategies)
/// printed `no breach` and exited 0. They are refused with exit status 2,
/// naming the field, both values and both run.json files.
#[test]
fn runs_of_different_suites_are_refused() {
    type Edit = fn(&mut serde_json::Value);
    let cases: [(&str, Edit, &str); 5] = [
        ("suite", |j| j["suite"] = "corpus".into(), "\"smoke\" in"),
        (
            "agent",
            |j| j["agent"] = "openai:gpt".into(),
            "\"openai:gpt\" in",
        ),
        (
            "strategies",
            |j| j["strategies"] = serde_json::json!(["aria", "som"]),
            "\"aria,som\" in",
        ),
        (
            "tasks",
            |j| {
                j["tasks"].as_array_mut().unwrap().pop();
            },
            "in",
        ),
        (
            "tasks",
            |j| j["tasks"][0]["instruction"] = "Do something else".into(),
            "\"Do something else\"",
        ),
    ];
    for (field, edit, value) in cases {
        let new = other_run(field, edit);
        let output = diff(base_run(), new.path(), Some(GATE));
        let err = stderr(&output);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{field}: {}{err}",
            stdout(&output)
        );
        assert!(
            err.contains(&format!("cannot diff runs that differ in `{field}`"))
                && err.contains(value)
                && err.contains(&new.path().join("run.json").display().to_string())
                && err.contains(&base_run().join("run.json").display().to_string()),
            "{field}: {err}"
        );
        assert!(!stdout(&output).contains("no breach"), "{field}");
    }
    // The same strategies in another order are the same run.
    let reordered = other_run("order", |j| {
        j["strategies"] = serde_json::json!(["flat", "aria"])
    });
    let output = diff(base_run(), reordered.path(), Some(GATE));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    // Tags are report categories: a retagged suite's run still compares.
    let retagged = other_run("tags", |j| {
        j["tasks"][0]["tags"] = serde_json::json!(["form", "modal"])
    });
    let output = diff(base_run(), retagged.path(), Some(GATE));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

#[test]
fn bad_input_exits_2_and_names_the_problem() {
    let base = base_run();
    // Not a run folder.
    let empty = tempfile::tempdir().unwrap();
    let output = diff(base, empty.path(), None);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("could not read") && stderr(&output).contains("summary.json"),
        "{}",
        stderr(&output)
    );
    // Not JSON.
    std::fs::write(empty.path().join("summary.json"), "{").unwrap();
    let output = diff(base, empty.path(), None);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("summary.json is not valid JSON"),
        "{}",
        stderr(&output)
    );
    // A field missing, and a field of the wrong type.
    let new = modified("nofield", |json| {
        json["strategies"][0]
            .as_object_mut()
            .unwrap()
            .remove("task_success");
    });
    let output = diff(base, new.path(), None);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output)
            .contains("strategy aria: field `task_success.value` is missing (metric task_sr)"),
        "{}",
        stderr(&output)
    );
    let new = modified("badtype", |json| {
        json["strategies"][1]["mean_input_tokens"] = "many".into()
    });
    let output = diff(base, new.path(), None);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output)
            .contains("strategy flat: field `mean_input_tokens` is \"many\", not a number"),
        "{}",
        stderr(&output)
    );
    // A bad rule.
    let output = diff(base, base, Some("step_sr<-2"));
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("--fail-if rule \"step_sr<-2\": the threshold needs a unit"),
        "{}",
        stderr(&output)
    );
}

/// Issue 18: `diff` lists the tasks that flipped, per strategy and way,
/// even when the aggregates do not move (one task each way).
#[test]
fn flipped_tasks_are_listed_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    for file in ["run.json", "summary.json"] {
        std::fs::copy(base_run().join(file), dir.path().join(file)).unwrap();
    }
    let text = std::fs::read_to_string(base_run().join("results.jsonl")).unwrap();
    let mut rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // One aria task that passed now fails, one that failed now passes.
    let pick = |rows: &[serde_json::Value], success: bool| {
        rows.iter()
            .find(|r| r["strategy"] == "aria" && r["success"] == success && r["step"] == 1)
            .map(|r| r["task"].as_str().unwrap().to_owned())
            .unwrap()
    };
    let (was_pass, was_fail) = (pick(&rows, true), pick(&rows, false));
    for row in &mut rows {
        if row["strategy"] == "aria" && row["task"] == was_pass.as_str() {
            row["success"] = false.into();
        }
        if row["strategy"] == "aria" && row["task"] == was_fail.as_str() {
            row["success"] = true.into();
        }
    }
    let lines: Vec<String> = rows.iter().map(|r| r.to_string()).collect();
    std::fs::write(dir.path().join("results.jsonl"), lines.join("\n") + "\n").unwrap();

    let output = diff(base_run(), dir.path(), None);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{text}{}", stderr(&output));
    let flips: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("flipped tasks"))
        .skip(1)
        .take_while(|l| !l.starts_with("no breach"))
        .collect();
    assert_eq!(flips.len(), 2, "{text}");
    assert!(
        flips[0].starts_with("aria")
            && flips[0].contains("pass → fail")
            && flips[0].ends_with(&was_pass),
        "{text}"
    );
    assert!(
        flips[1].contains("fail → pass") && flips[1].contains(&was_fail),
        "{text}"
    );

    // A run against itself: none.
    let same = stdout(&diff(base_run(), base_run(), None));
    assert!(
        same.contains("flipped tasks (base → new):\n  none"),
        "{same}"
    );
}
