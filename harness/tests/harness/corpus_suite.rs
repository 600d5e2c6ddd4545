//! `suites/corpus.toml` end to end, on the recordings the whole-corpus test made (`corpus.rs`, the same capture as the suite's own): the pages missing from the cache are recorded at run time, every step gets a row, recall is sane, and `--resume` records nothing again.

use crate::support::{pagesnap, read_json, root};

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Every recording in the cache with its modification time.
fn cache_state(dir: &Path) -> Vec<(PathBuf, SystemTime)> {
    fn walk(dir: &Path, out: &mut Vec<(PathBuf, SystemTime)>) {
        for entry in std::fs::read_dir(dir).expect("list cache") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else {
                let modified = path
                    .metadata()
                    .expect("metadata")
                    .modified()
                    .expect("mtime");
                out.push((path, modified));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    out
}

/// (task, steps) of the suite, read from the TOML itself.
fn suite_steps() -> Vec<(String, usize)> {
    let text = std::fs::read_to_string(root().join("suites/corpus.toml")).expect("read suite");
    let value: toml::Value = toml::from_str(&text).expect("suite parses");
    value["task"]
        .as_array()
        .expect("tasks")
        .iter()
        .map(|task| {
            (
                task["id"].as_str().expect("id").to_owned(),
                task["step"].as_array().expect("steps").len(),
            )
        })
        .collect()
}

/// Pages of the suite taken out of the cache, for the run to record again.
const RECORDED_AGAIN: [&str; 2] = ["readability/bbc-1", "readability/lwn-1"];

/// Runs the corpus suite with `cache` as its recordings (`--recordings`),
/// after taking [`RECORDED_AGAIN`] out of it: the run records those two,
/// and only those. Called by the whole-corpus test once it has recorded every
/// page into `cache` (recording the suite's ~35 pages again here took a
/// minute of the harness tests' time).
pub(crate) fn runs_on_the_recorded_corpus(cache: &Path) {
    for key in RECORDED_AGAIN {
        for ext in ["json.gz", "png"] {
            let file = cache.join(format!("{key}.{ext}"));
            std::fs::remove_file(&file)
                .unwrap_or_else(|err| panic!("{} was recorded: {err}", file.display()));
        }
    }
    let steps = suite_steps();
    assert!(steps.len() >= 40, "the corpus suite has ≥ 40 tasks");
    assert!(
        steps.iter().any(|(_, n)| *n >= 2),
        "some tasks have several steps"
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("run");
    let out_arg = out.to_str().expect("utf-8 path");
    let args = [
        "run",
        "--suite",
        "suites/corpus.toml",
        "--agent",
        "baseline",
        "--strategy",
        "aria,flat",
        "--out",
        out_arg,
        "--recordings",
        cache.to_str().expect("utf-8 path"),
    ];
    let first = pagesnap(&args);
    let stderr = String::from_utf8_lossy(&first.stderr);
    assert!(first.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!("recording {} pages", RECORDED_AGAIN.len())),
        "the pages missing from the cache are recorded, and only they: {stderr}"
    );

    // The pages landed in the cache, one recording and screenshot each.
    let before = cache_state(cache);
    let recordings: BTreeSet<&Path> = before
        .iter()
        .filter(|(p, _)| p.to_string_lossy().ends_with(".json.gz"))
        .map(|(p, _)| p.as_path())
        .collect();
    assert!(recordings.len() >= 30, "{} recordings", recordings.len());
    assert_eq!(before.len(), recordings.len() * 2, "a PNG beside each");
    for key in RECORDED_AGAIN {
        assert!(cache.join(format!("{key}.json.gz")).is_file(), "{key}");
    }

    // Every task × strategy × step has a row.
    let csv = std::fs::read_to_string(out.join("results.csv")).expect("results.csv");
    let total: usize = steps.iter().map(|(_, n)| n).sum();
    assert_eq!(
        csv.lines().count(),
        1 + 2 * total,
        "header + one row per step"
    );
    for (task, n) in &steps {
        for strategy in ["aria", "flat"] {
            let rows = csv
                .lines()
                .filter(|l| l.starts_with(&format!("{task},{strategy},")))
                .count();
            assert_eq!(rows, *n, "{task} × {strategy}");
        }
    }

    // Recall is an upper bound on accuracy and close to 1 for aria.
    let summary = read_json(&out.join("summary.json"));
    let strategies = summary["strategies"].as_array().expect("strategies");
    assert_eq!(strategies.len(), 2);
    for s in strategies {
        let name = s["strategy"].as_str().expect("name");
        let recall = s["target_recall"]["value"].as_f64().expect("recall");
        let element = s["element_accuracy"]["value"].as_f64().expect("element");
        let step_sr = s["step_success"]["value"].as_f64().expect("step SR");
        assert!((0.0..=1.0).contains(&recall), "{name}: recall {recall}");
        assert!(element <= recall + 1e-9, "{name}: {element} > {recall}");
        assert!(step_sr > 0.1, "{name}: the baseline solves some steps");
        if name == "aria" {
            assert!(recall > 0.8, "aria recall {recall}");
        }
    }

    // --resume records nothing again and leaves the cache as it was.
    let mut resume = args.to_vec();
    resume.push("--resume");
    let second = pagesnap(&resume);
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert!(second.status.success(), "{stderr}");
    assert!(!stderr.contains("recording "), "nothing recorded: {stderr}");
    assert_eq!(cache_state(cache), before, "cache untouched");
    assert_eq!(
        std::fs::read_to_string(out.join("results.csv")).expect("results.csv"),
        csv,
        "nothing re-run"
    );
}

#[test]
fn a_missing_page_is_named_with_file_and_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let suite = dir.path().join("pages.toml");
    let pages = dir.path().join("pages");
    std::fs::create_dir_all(&pages).expect("pages dir");
    std::fs::write(
        &suite,
        "[suite]\nname = \"p\"\npages = \"pages\"\n\n[[task]]\nid = \"t\"\ninstruction = \"x\"\n\
         [[task.step]]\nrecording = \"nope/page\"\nop = \"done\"\n",
    )
    .expect("write suite");
    let out = dir.path().join("out");
    let output = pagesnap(&[
        "run",
        "--suite",
        suite.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
        "--quiet",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    let want = format!(
        "{}:8: task \"t\" step 1: page \"nope/page\" not found",
        suite.display()
    );
    assert!(stderr.contains(&want), "{stderr}");
}

#[test]
fn targets_are_checked_on_the_fresh_recording_with_file_and_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pages = dir.path().join("pages");
    std::fs::create_dir_all(&pages).expect("pages dir");
    std::fs::write(
        pages.join("form.html"),
        "<!doctype html><title>f</title><button>Go</button><button>Go</button>",
    )
    .expect("write page");
    let suite = dir.path().join("pages.toml");
    std::fs::write(
        &suite,
        "[suite]\nname = \"p\"\npages = \"pages\"\n\n[[task]]\nid = \"t\"\ninstruction = \"Press Go\"\n\
         [[task.step]]\nrecording = \"form\"\nop = \"click\"\ntarget = { role = \"button\", name = \"Go\" }\n",
    )
    .expect("write suite");
    let out = dir.path().join("out");
    let output = pagesnap(&[
        "run",
        "--suite",
        suite.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    let want = format!(
        "{}:8: task \"t\" step 1: target button \"Go\" matches 2 elements in form",
        suite.display()
    );
    assert!(stderr.contains(&want), "{stderr}");
    assert!(
        out.join("recordings/form.json.gz").is_file(),
        "recorded first"
    );
}
