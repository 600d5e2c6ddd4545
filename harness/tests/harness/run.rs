//! `pagesnap run`: suite loading errors, the smoke suite end to end, and `--resume`.

use crate::support::{pagesnap, root, stderr};

use std::path::{Path, PathBuf};

use serde_json::Value;

/// Writes a suite with one good task and `bad` appended, and returns the error `pagesnap run` prints.
fn load_error(bad: &str) -> (String, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("bad.toml");
    let text = format!(
        "[suite]\nname = \"bad\"\n\n[[task]]\nid = \"ok\"\ninstruction = \"Click Sign in\"\n\
         [[task.step]]\nrecording = \"login/initial\"\nop = \"click\"\n\
         target = {{ selector = \"#sign-in\" }}\n\n{bad}"
    );
    std::fs::write(&path, text).expect("write suite");
    let fixtures = root().join("fixtures");
    let out = dir.path().join("out");
    let output = pagesnap(&[
        "run",
        "--suite",
        path.to_str().expect("utf-8 path"),
        "--fixtures",
        fixtures.to_str().expect("utf-8 path"),
        "--strategy",
        "aria",
        "--out",
        out.to_str().expect("utf-8 path"),
    ]);
    assert!(!output.status.success(), "a bad suite must fail");
    assert!(!out.join("results.jsonl").exists(), "nothing is run");
    (stderr(&output), path)
}

const TWO_STEPS: &str = "[[task]]\nid = \"broken\"\ninstruction = \"x\"\n\
    [[task.step]]\nrecording = \"login/initial\"\nop = \"click\"\ntarget = { selector = \"#sign-in\" }\n";

#[test]
fn unknown_op_names_file_line_task_and_step() {
    let (err, path) = load_error(&format!(
        "{TWO_STEPS}[[task.step]]\nrecording = \"login/initial\"\nop = \"clik\"\n"
    ));
    let want = format!(
        "{}:19: task \"broken\" step 2: unknown op \"clik\"",
        path.display()
    );
    assert!(err.contains(&want), "{err}");
}

#[test]
fn missing_recording_is_named() {
    let (err, _) = load_error(&format!(
        "{TWO_STEPS}[[task.step]]\nrecording = \"login/nope\"\nop = \"done\"\n"
    ));
    assert!(
        err.contains("task \"broken\" step 2: recording \"login/nope\" not found"),
        "{err}"
    );
}

#[test]
fn selector_matching_nothing_is_named() {
    let (err, path) = load_error(&format!(
        "{TWO_STEPS}[[task.step]]\nrecording = \"login/initial\"\nop = \"click\"\n\
         target = {{ selector = \"#no-such-button\" }}\n"
    ));
    let want = format!(
        "{}:19: task \"broken\" step 2: target #no-such-button matches nothing in login/initial",
        path.display()
    );
    assert!(err.contains(&want), "{err}");
}

#[test]
fn ambiguous_role_name_bad_selector_missing_value_and_unknown_keys_are_errors() {
    let (err, _) = load_error(&format!(
        "{TWO_STEPS}[[task.step]]\nrecording = \"duplicate_submit/initial\"\nop = \"click\"\n\
         target = {{ role = \"button\", name = \"Submit\" }}\n"
    ));
    assert!(
        err.contains("step 2: target button \"Submit\" matches 2 elements"),
        "{err}"
    );
    let (err, _) = load_error(&format!(
        "{TWO_STEPS}[[task.step]]\nrecording = \"login/initial\"\nop = \"click\"\n\
         target = {{ selector = \"##\" }}\n"
    ));
    assert!(err.contains("step 2: invalid CSS selector \"##\""), "{err}");
    let (err, _) = load_error(&format!(
        "{TWO_STEPS}[[task.step]]\nrecording = \"login/initial\"\nop = \"type\"\n\
         target = {{ selector = \"#username\" }}\n"
    ));
    assert!(err.contains("step 2: op type needs a value"), "{err}");
    let (err, _) = load_error(&format!("{TWO_STEPS}colour = \"red\"\n"));
    assert!(
        err.contains("unknown field `colour`") && err.contains("line 19"),
        "{err}"
    );
}

#[test]
fn bad_tags_are_named() {
    let task = "[[task]]\nid = \"tagged\"\ninstruction = \"x\"\ntags = [TAGS]\n\
        [[task.step]]\nrecording = \"login/initial\"\nop = \"done\"\n";
    let (err, path) = load_error(&task.replace("TAGS", "\"Modal Dialog\""));
    let want = format!(
        "{}:12: task \"tagged\": tag \"Modal Dialog\" must be a non-empty word of a-z, 0-9 and '-'",
        path.display()
    );
    assert!(err.contains(&want), "{err}");
    let (err, _) = load_error(&task.replace("TAGS", "\"modal\", \"modal\""));
    assert!(err.contains("tag \"modal\" is given twice"), "{err}");
}

fn strip_timing(mut summary: serde_json::Value) -> serde_json::Value {
    if let Some(strategies) = summary["strategies"].as_array_mut() {
        for s in strategies {
            if let Some(s) = s.as_object_mut() {
                s.remove("timing");
            }
        }
    }
    summary
}

fn read_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).expect("read json");
    serde_json::from_str(&text).expect("valid json")
}

#[test]
fn smoke_suite_end_to_end_and_resume() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("run");
    let out_str = out.to_str().expect("utf-8 path");
    let args = [
        "run",
        "--suite",
        "suites/smoke.toml",
        "--strategy",
        "aria,flat",
        "--out",
        out_str,
    ];
    let output = pagesnap(&args);
    assert!(output.status.success(), "{}", stderr(&output));

    let smoke = std::fs::read_to_string(root().join("suites/smoke.toml")).expect("suite");
    let tasks = smoke.matches("[[task]]").count();
    let steps = smoke.matches("[[task.step]]").count();
    assert!(tasks >= 30, "{tasks} tasks");
    let lines = std::fs::read_to_string(out.join("results.jsonl")).expect("jsonl");
    assert_eq!(lines.lines().count(), 2 * steps);
    let csv = std::fs::read_to_string(out.join("results.csv")).expect("csv");
    assert_eq!(csv.lines().count(), 1 + 2 * steps);
    assert!(csv.starts_with("task,strategy,step,"));
    let report = std::fs::read_to_string(out.join("report.md")).expect("report");
    assert!(
        report.contains("| aria | ") && report.contains("| flat | "),
        "{report}"
    );

    // Significance: the smallest detectable difference for 66 paired steps,
    // and aria and flat (same refs, baseline agent) are said to be alike
    // because of the agent, not found to tie.
    assert!(report.contains("| detectable |"), "{report}");
    assert!(
        report.contains("the same outcome on all") && report.contains("baseline agent reads"),
        "{report}"
    );

    let summary = read_json(&out.join("summary.json"));
    // Per category: the suite's tags, counted from the rows themselves.
    let modal_tasks: Vec<String> = smoke
        .split("[[task]]")
        .filter(|t| t.contains("tags = [\"modal\""))
        .filter_map(|t| t.split('"').nth(1).map(str::to_owned))
        .collect();
    assert!(modal_tasks.len() >= 5, "{modal_tasks:?}");
    let rows: Vec<Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).expect("row"))
        .collect();
    let modal_rows = |strategy: &str| {
        rows.iter()
            .filter(|r| {
                r["strategy"] == strategy && modal_tasks.iter().any(|t| r["task"] == t.as_str())
            })
            .map(|r| r["success"] == true)
            .collect::<Vec<bool>>()
    };
    let modal = summary["categories"]
        .as_array()
        .expect("categories")
        .iter()
        .find(|c| c["tag"] == "modal")
        .expect("a modal category");
    assert_eq!(modal["tasks"], modal_tasks.len());
    let flat = modal_rows("flat");
    assert_eq!(modal["scores"][1]["strategy"], "flat");
    assert_eq!(modal["scores"][1]["steps"], flat.len());
    assert_eq!(
        modal["scores"][1]["steps_passed"],
        flat.iter().filter(|s| **s).count()
    );
    assert!(
        report.contains("## Per category")
            && report.contains(&format!("| modal | {} |", modal_tasks.len()))
    );
    // Token distributions: the largest is the largest row's.
    let most = rows
        .iter()
        .filter(|r| r["strategy"] == "aria")
        .filter_map(|r| r["input_tokens"].as_f64())
        .fold(0.0, f64::max);
    let tokens = &summary["strategies"][0]["input_tokens"];
    assert_eq!(tokens["max"].as_f64(), Some(most), "{tokens}");
    let (median, p90) = (
        tokens["median"].as_f64().expect("median"),
        tokens["p90"].as_f64().expect("p90"),
    );
    assert!(0.0 < median && median <= p90 && p90 <= most, "{tokens}");
    assert!(
        report.contains("## Tokens and cost") && report.contains("No step cost anything"),
        "{report}"
    );
    let pair = &summary["significance"]["comparisons"][0];
    let detectable = pair["min_detectable"].as_f64().expect("min_detectable");
    assert!(detectable > 0.0 && detectable < 0.5, "{pair}");
    let aria = &summary["strategies"][0];
    assert_eq!(aria["strategy"], "aria");
    assert_eq!(aria["steps"], steps);
    assert_eq!(aria["tasks"], tasks);
    let recall = aria["target_recall"]["value"].as_f64().expect("recall");
    assert!(recall > 0.8, "aria target recall {recall}");
    let sr = &aria["step_success"];
    let (value, low, high) = (
        sr["value"].as_f64().expect("value"),
        sr["low"].as_f64().expect("low"),
        sr["high"].as_f64().expect("high"),
    );
    assert!(low <= value && value <= high && value > 0.0, "{sr}");
    assert!(aria["mean_input_tokens"].as_f64().expect("tokens") > 100.0);
    assert!(aria["timing"]["mean_engine_us"].as_f64().expect("µs") > 0.0);
    // Analysis is timed apart from rendering: once per step, shared by every strategy.
    let analysis = aria["timing"]["mean_analysis_us"].as_f64().expect("µs");
    assert!(analysis > 0.0);
    for s in summary["strategies"].as_array().expect("strategies") {
        assert_eq!(
            s["timing"]["mean_analysis_us"].as_f64(),
            Some(analysis),
            "{}",
            s["strategy"]
        );
    }

    // Running again into the same folder without --resume is refused.
    let again = pagesnap(&args);
    assert!(!again.status.success());
    assert!(
        stderr(&again).contains("use --resume"),
        "{}",
        stderr(&again)
    );

    // Interrupted run: the last 15 lines lost and a half-written line left behind.
    let kept: Vec<&str> = lines.lines().collect();
    let mut cut = kept[..kept.len() - 15].join("\n");
    cut.push_str("\n{\"task\":\"login-sign");
    std::fs::write(out.join("results.jsonl"), cut).expect("truncate");
    let mut resume = args.to_vec();
    resume.push("--resume");
    let resumed = pagesnap(&resume);
    assert!(resumed.status.success(), "{}", stderr(&resumed));
    assert!(stderr(&resumed).contains(&format!("resumed: {} steps", kept.len() - 15)));
    let after = std::fs::read_to_string(out.join("results.jsonl")).expect("jsonl");
    assert_eq!(after.lines().count(), 2 * steps);
    assert_eq!(
        strip_timing(read_json(&out.join("summary.json"))),
        strip_timing(summary),
        "a resumed run reports the same figures"
    );
}

/// `--resume` into a folder that holds another run (other suite, agent,
/// strategies, shard or tasks) is refused before anything runs or is
/// recorded, naming what differs; the folder's results stay as they were.
#[test]
fn resume_refuses_a_folder_of_another_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fixtures = root().join("fixtures");
    let suite = |instruction: &str| {
        let path = dir.path().join(format!("s{}.toml", instruction.len()));
        let text = format!(
            "[suite]\nname = \"mini\"\n\n[[task]]\nid = \"sign-in\"\ninstruction = \"{instruction}\"\n\
             [[task.step]]\nrecording = \"login/initial\"\nop = \"click\"\n\
             target = {{ selector = \"#sign-in\" }}\n"
        );
        std::fs::write(&path, text).expect("write suite");
        path
    };
    let first = suite("Click Sign in");
    let out = dir.path().join("out");
    let run = |suite: &Path, extra: &[&str]| {
        let mut args = vec![
            "run",
            "--suite",
            suite.to_str().expect("utf-8 path"),
            "--fixtures",
            fixtures.to_str().expect("utf-8 path"),
            "--out",
            out.to_str().expect("utf-8 path"),
            "--quiet",
        ];
        args.extend_from_slice(extra);
        pagesnap(&args)
    };
    let output = run(&first, &["--strategy", "flat"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let results = std::fs::read_to_string(out.join("results.jsonl")).expect("jsonl");
    let manifest = std::fs::read_to_string(out.join("run.json")).expect("run.json");

    let refusals: [(PathBuf, &[&str], &str); 5] = [
        (
            first.clone(),
            &["--strategy", "flat,aria"],
            "`strategies` was \"flat\" there, and is \"flat,aria\" now",
        ),
        (
            first.clone(),
            &["--strategy", "flat", "--shard", "1/2"],
            "`shard` was the whole suite there, and is 1/2 now",
        ),
        (
            first.clone(),
            &[
                "--strategy",
                "flat",
                "--agent",
                "openai:m",
                "--base-url",
                "http://127.0.0.1:9",
            ],
            "`agent` was \"baseline\" there, and is \"openai:m\" now",
        ),
        (
            suite("Press the Sign in button"),
            &["--strategy", "flat"],
            "the suite's tasks changed since that run (task \"sign-in\" changed)",
        ),
        (
            root().join("suites/corpus.toml"),
            &["--strategy", "flat"],
            "`suite` was \"mini\" there, and is \"corpus\" now",
        ),
    ];
    for (suite, extra, why) in refusals {
        let mut args = extra.to_vec();
        args.push("--resume");
        let output = run(&suite, &args);
        let err = stderr(&output);
        assert!(!output.status.success(), "{extra:?} must be refused");
        assert!(
            err.contains("cannot resume") && err.contains(why),
            "{extra:?}: {err}"
        );
        assert!(
            !err.contains("recording"),
            "nothing is recorded first: {err}"
        );
        assert_eq!(
            std::fs::read_to_string(out.join("results.jsonl")).expect("jsonl"),
            results
        );
        assert_eq!(
            std::fs::read_to_string(out.join("run.json")).expect("run.json"),
            manifest
        );
    }
    // The same run resumes: nothing left to do, nothing lost.
    let output = run(&first, &["--strategy", "flat", "--resume"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        std::fs::read_to_string(out.join("results.jsonl")).expect("jsonl"),
        results
    );
}

/// Issue 17: `--strategy flat,flat` ran the strategy twice and wrote two rows
/// under one key. Every command that reads a strategy list refuses it, naming
/// the duplicate, before anything runs.
#[test]
fn a_strategy_given_twice_is_refused() {
    let out = tempfile::tempdir().unwrap();
    let out = out.path().join("run");
    let out = out.to_str().unwrap();
    let commands: [&[&str]; 3] = [
        &["run", "--suite", "suites/smoke.toml", "--out", out],
        &["live", "--suite", "suites/miniwob.toml", "--out", out],
        &["compare", "fixtures/login/initial.json.gz"],
    ];
    for command in commands {
        let mut args = command.to_vec();
        args.extend(["--strategy", "flat,aria,flat"]);
        let output = pagesnap(&args);
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
        assert!(
            stderr(&output).contains("strategy \"flat\" is given twice"),
            "{command:?}: {}",
            stderr(&output)
        );
        assert!(!Path::new(out).exists(), "{command:?} wrote {out}");
    }
}

/// Issue 17: `run --resume` and `live --resume` into a folder another process
/// holds fail at once, naming the folder, and leave it as it was.
#[test]
fn a_folder_locked_by_another_process_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("busy");
    let held = pagesnap_harness::results::OutLock::acquire(&out).unwrap();
    let out_arg = out.to_str().unwrap();
    let commands: [&[&str]; 2] = [
        &["run", "--suite", "suites/smoke.toml"],
        &["live", "--suite", "suites/live-fixtures.toml"],
    ];
    for command in commands {
        let mut args = command.to_vec();
        args.extend(["--strategy", "flat", "--out", out_arg, "--resume"]);
        let output = pagesnap(&args);
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
        assert!(
            stderr(&output).contains(&format!("{} is in use", out.display())),
            "{command:?}: {}",
            stderr(&output)
        );
        let mut left: Vec<_> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        left.sort();
        assert_eq!(left, [".pagesnap.lock"], "{command:?}");
    }
    drop(held);
}

/// A PNG whose header claims `width` × `height` px, followed by a few KB of
/// compressed zeros: small on disk, huge once decoded.
fn png_claiming(width: u32, height: u32) -> Vec<u8> {
    use std::io::Write;

    fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
        out.extend_from_slice(&u32::try_from(data.len()).unwrap().to_be_bytes());
        let mut crc = flate2::Crc::new();
        crc.update(kind);
        crc.update(data);
        out.extend_from_slice(kind);
        out.extend_from_slice(data);
        out.extend_from_slice(&crc.sum().to_be_bytes());
    }
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut header = Vec::new();
    header.extend_from_slice(&width.to_be_bytes());
    header.extend_from_slice(&height.to_be_bytes());
    // 8-bit RGB, deflate, adaptive filtering, no interlace.
    header.extend_from_slice(&[8, 2, 0, 0, 0]);
    chunk(&mut png, b"IHDR", &header);
    let mut zlib = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    zlib.write_all(&vec![0u8; 4 << 20]).unwrap();
    chunk(&mut png, b"IDAT", &zlib.finish().unwrap());
    chunk(&mut png, b"IEND", &[]);
    png
}

/// Issue 17: a 4 KB PNG whose header claims 100000 × 100000 px beside a
/// valid recording aborted the process in `som` (a 40 GB allocation), so
/// `run` died before any report and `--resume` died again. The size is read
/// from the header and refused; the step gets an error row, the run ends.
#[test]
fn a_screenshot_claiming_a_huge_size_is_an_error_row_not_an_abort() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = dir.path().join("fixtures");
    std::fs::create_dir_all(fixtures.join("login")).unwrap();
    for (name, width, height) in [("huge", 100_000, 100_000), ("big", 20_000, 20_000)] {
        std::fs::copy(
            root().join("fixtures/login/initial.json.gz"),
            fixtures.join(format!("login/{name}.json.gz")),
        )
        .unwrap();
        std::fs::write(
            fixtures.join(format!("login/{name}.png")),
            png_claiming(width, height),
        )
        .unwrap();
    }
    assert!(
        std::fs::metadata(fixtures.join("login/huge.png"))
            .unwrap()
            .len()
            < 8192
    );
    let suite = dir.path().join("s.toml");
    std::fs::write(
        &suite,
        "[suite]\nname = \"png\"\n\n\
         [[task]]\nid = \"huge\"\ninstruction = \"Click Sign in\"\n\
         [[task.step]]\nrecording = \"login/huge\"\nop = \"click\"\ntarget = { selector = \"#sign-in\" }\n\n\
         [[task]]\nid = \"big\"\ninstruction = \"Click Sign in\"\n\
         [[task.step]]\nrecording = \"login/big\"\nop = \"click\"\ntarget = { selector = \"#sign-in\" }\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let args = [
        "run",
        "--suite",
        suite.to_str().unwrap(),
        "--fixtures",
        fixtures.to_str().unwrap(),
        "--strategy",
        "som,flat",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ];
    let output = pagesnap(&args);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(out.join("summary.json").exists());
    let rows: Vec<serde_json::Value> = std::fs::read_to_string(out.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 4);
    for row in &rows {
        let error = row["error"].as_str().unwrap_or("");
        if row["strategy"] == "som" {
            let size = if row["task"] == "huge" {
                "100000×100000"
            } else {
                "20000×20000"
            };
            assert!(
                error.contains(&format!(
                    "screenshot is {size} px, expected at most 16384 px"
                )),
                "{row}"
            );
        } else {
            assert_eq!(error, "", "{row}");
        }
    }
    // `snapshot` says the same, with a non-zero exit instead of an abort.
    let output = pagesnap(&[
        "snapshot",
        fixtures.join("login/huge.json.gz").to_str().unwrap(),
        "--strategy",
        "som",
    ]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("screenshot is 100000×100000 px"),
        "{}",
        stderr(&output)
    );
}

/// Issue 18: a budget sweep is one run. Each `strategy@budget` (and
/// `@viewport`) is its own variant: rows, summary, `run.json` and the
/// accuracy-vs-tokens chart name it, and a smaller budget shows fewer tokens.
#[test]
fn a_budget_sweep_is_one_run_with_one_row_and_one_point_per_variant() {
    let dir = tempfile::tempdir().expect("tempdir");
    // The smoke suite with `flags`, into `out`.
    let smoke = |out: &Path, flags: &[&str]| {
        let mut args = vec!["run", "--suite", "suites/smoke.toml"];
        args.extend(flags);
        args.extend(["--out", out.to_str().expect("utf-8 path")]);
        pagesnap(&args)
    };
    let out = dir.path().join("sweep");
    let output = smoke(
        &out,
        &["--strategy", "aria@150,aria@600,aria,flat@viewport"],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let names = ["aria@150", "aria@600", "aria", "flat@viewport"];
    let summary = read_json(&out.join("summary.json"));
    let strategies = summary["strategies"].as_array().expect("strategies");
    let got: Vec<&str> = strategies
        .iter()
        .map(|s| s["strategy"].as_str().expect("name"))
        .collect();
    assert_eq!(got, names);
    let tokens: Vec<f64> = strategies
        .iter()
        .map(|s| s["mean_input_tokens"].as_f64().expect("tokens"))
        .collect();
    assert!(
        tokens[0] < tokens[1] && tokens[1] < tokens[2],
        "budgets must cut tokens: {tokens:?}"
    );
    // A ref the budget cut from the text is not offered: target recall
    // falls with the budget (the baseline agent reads refs, not text).
    let recall: Vec<f64> = strategies
        .iter()
        .map(|s| s["target_recall"]["value"].as_f64().expect("recall"))
        .collect();
    assert!(
        recall[0] < recall[2] && recall[0] <= recall[1] && recall[1] <= recall[2],
        "a tighter budget shows fewer targets: {recall:?}"
    );
    let csv = std::fs::read_to_string(out.join("results.csv")).expect("csv");
    for name in names {
        assert!(csv.contains(&format!(",{name},")), "{name} rows");
    }
    let manifest = read_json(&out.join("run.json"));
    assert_eq!(manifest["variants"][0]["strategy"], "aria");
    assert_eq!(manifest["variants"][0]["max_tokens"], 150);
    assert_eq!(manifest["variants"][3]["full_page"], false);
    let html = std::fs::read_to_string(out.join("report.html")).expect("html");
    let chart = &html[html.find("id=\"chart-pareto\"").expect("chart")..];
    let chart = &chart[..chart.find("</svg>").expect("end of chart")];
    assert_eq!(chart.matches("<g class=\"strategy\">").count(), names.len());
    for name in names {
        assert!(chart.contains(&format!("<title>{name}: ")), "{name} point");
    }

    // Run-wide settings name the variants they make; a modifier wins.
    let out2 = dir.path().join("flags");
    let output = smoke(
        &out2,
        &[
            "--strategy",
            "flat,aria@900",
            "--max-tokens",
            "400",
            "--viewport-only",
        ],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let manifest = read_json(&out2.join("run.json"));
    assert_eq!(
        manifest["strategies"],
        serde_json::json!(["flat@400@viewport", "aria@900@viewport"])
    );

    // `@hidden` shows text no person can see (withheld by default): more
    // tokens where the smoke pages hold some, the same targets (issue 56).
    // `--show-hidden` sets it for every variant.
    let out3 = dir.path().join("hidden");
    let output = smoke(&out3, &["--strategy", "aria,aria@hidden"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let summary = read_json(&out3.join("summary.json"));
    let strategies = summary["strategies"].as_array().expect("strategies");
    let field = |i: usize, key: &str| -> f64 {
        let value = &strategies[i][key];
        value["value"].as_f64().or(value.as_f64()).expect(key)
    };
    assert_eq!(strategies[1]["strategy"], "aria@hidden");
    assert!(
        field(0, "mean_input_tokens") < field(1, "mean_input_tokens"),
        "withheld text is not read: {strategies:?}"
    );
    assert_eq!(field(0, "target_recall"), field(1, "target_recall"));
    let manifest = read_json(&out3.join("run.json"));
    assert_eq!(manifest["variants"][1]["show_hidden"], true);
    assert!(manifest["variants"][0].get("show_hidden").is_none());
    let out4 = dir.path().join("hidden-flag");
    let output = smoke(&out4, &["--strategy", "flat,aria@900", "--show-hidden"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let manifest = read_json(&out4.join("run.json"));
    assert_eq!(
        manifest["strategies"],
        serde_json::json!(["flat@hidden", "aria@900@hidden"])
    );

    // Bad modifiers and a variant named twice are refused before anything runs.
    for (spec, says) in [
        ("aria@hidden@hidden", "given twice"),
        ("aria@0", "must be a positive number"),
        ("aria@huge", "unknown modifier"),
        ("aria@2000,aria@2000", "given twice"),
    ] {
        let bad = dir.path().join("bad");
        let output = smoke(&bad, &["--strategy", spec]);
        assert!(!output.status.success(), "{spec}");
        assert!(
            stderr(&output).contains(says),
            "{spec}: {}",
            stderr(&output)
        );
        assert!(!bad.join("results.jsonl").exists(), "{spec}");
    }
}

/// `[suite] max_tokens` and `full_page` set every variant the run does not
/// set otherwise; run flags override the suite.
#[test]
fn suite_settings_are_the_default_observation_settings() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("budget.toml");
    std::fs::write(
        &path,
        "[suite]\nname = \"budget\"\nmax_tokens = 250\nfull_page = true\n\n[[task]]\nid = \"ok\"\n\
         instruction = \"Click Sign in\"\n[[task.step]]\nrecording = \"login/initial\"\nop = \"click\"\n\
         target = { selector = \"#sign-in\" }\n",
    )
    .expect("write suite");
    let fixtures = root().join("fixtures");
    let run = |extra: &[&str], out: &str| {
        let out = dir.path().join(out);
        let mut args = vec![
            "run",
            "--suite",
            path.to_str().expect("utf-8 path"),
            "--fixtures",
            fixtures.to_str().expect("utf-8 path"),
            "--strategy",
            "aria,flat@viewport",
            "--out",
            out.to_str().expect("utf-8 path"),
        ];
        args.extend_from_slice(extra);
        let output = pagesnap(&args);
        assert!(output.status.success(), "{}", stderr(&output));
        read_json(&out.join("run.json"))["strategies"].clone()
    };
    assert_eq!(
        run(&[], "suite"),
        serde_json::json!(["aria@250@full", "flat@250@viewport"])
    );
    assert_eq!(
        run(&["--max-tokens", "900"], "flag"),
        serde_json::json!(["aria@900@full", "flat@900@viewport"])
    );
}

/// `aria` with every quoted name taken out of its text and its meta left
/// as it was: a text regression the baseline agent (which reads the meta)
/// cannot see.
struct NamesStripped;

impl pagesnap_engine::strategy::Strategy for NamesStripped {
    fn name(&self) -> &'static str {
        "aria"
    }
    fn summary(&self) -> &'static str {
        "aria without its names"
    }
    fn explain(&self) -> &'static str {
        "aria without its names"
    }
    fn observe(
        &self,
        analyzed: &pagesnap_engine::analyze::Analyzed,
        options: &pagesnap_engine::strategy::Options<'_>,
    ) -> Result<pagesnap_engine::observation::Observation, pagesnap_engine::strategy::ObserveError>
    {
        let aria = pagesnap_engine::strategy::by_name("aria").unwrap();
        let mut observation = aria.observe(analyzed, options)?;
        let mut text = String::new();
        for (i, piece) in observation.text.split('"').enumerate() {
            // Outside quotes kept, inside dropped (each line's quotes pair up).
            if i % 2 == 0 {
                text.push_str(piece);
            } else {
                text.push_str("\"\"");
            }
        }
        observation.text = text;
        Ok(observation)
    }
}

/// Runs the smoke suite through the library with `aria` replaced by
/// [`NamesStripped`] and returns the folder.
fn run_stripped(agent: &str, out: &Path) {
    use pagesnap_harness::{agent, progress, replay, suite, variant::Variant};
    let path = root().join("suites/smoke.toml");
    let defaults = suite::observe_defaults(&path).unwrap();
    let strategies = pagesnap_engine::strategy::STRATEGIES
        .iter()
        .map(|&s| {
            let s: &'static dyn pagesnap_engine::strategy::Strategy = if s.name() == "aria" {
                &NamesStripped
            } else {
                s
            };
            Variant::plain(s, defaults)
        })
        .collect();
    let suite = suite::load(
        &path,
        &suite::default_fixtures(&path),
        Some(&out.join("recordings")),
    )
    .unwrap();
    let agent = agent::by_name(agent, &agent::AgentOptions::default()).unwrap();
    let config = replay::Config {
        suite: &suite,
        strategies,
        agent: agent.as_ref(),
        out: out.to_path_buf(),
        resume: false,
        jobs: 2,
        suite_path: path,
        shard: None,
        progress: progress::Mode::Quiet,
        judge: None,
    };
    let outcome = replay::run(&config).unwrap();
    let report = pagesnap_harness::report::Report::build(outcome.manifest, outcome.rows);
    pagesnap_harness::report::write_all(out, &report).unwrap();
}

#[test]
fn a_text_regression_breaches_the_reader_gate_and_not_the_baseline_one() {
    let dir = tempfile::tempdir().unwrap();
    let gate = |base: &str, out: &Path| {
        pagesnap(&[
            "diff",
            root().join(base).to_str().unwrap(),
            out.to_str().unwrap(),
            "--fail-if",
            "step_sr<-2pp,task_sr<-2pp,target_recall<-1pp,tokens>+10%",
        ])
    };
    let baseline = dir.path().join("baseline");
    run_stripped("baseline", &baseline);
    let output = gate("reports/baseline", &baseline);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );

    let reader = dir.path().join("reader");
    run_stripped("reader", &reader);
    let output = gate("reports/baseline-reader", &reader);
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(said.contains("breach: aria step_sr"), "{said}");
    // Only the strategy whose text lost its names.
    let breached: Vec<&str> = said
        .lines()
        .filter_map(|l| l.strip_prefix("breach: "))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(breached.iter().all(|s| *s == "aria"), "{said}");
}
