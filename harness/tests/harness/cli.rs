//! The `snapshot`, `strategies`, `compare`, `redactions` and `doctor` commands on committed fixtures and the shared corpus.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn pagesnap(args: &[&str]) -> Output {
    Command::new(crate::support::exe())
        .args(args)
        .output()
        .unwrap()
}

fn fixture(relative: &str) -> String {
    let path: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures")
        .join(relative);
    path.display().to_string()
}

fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).unwrap()
}

#[test]
fn strategies_lists_and_explains() {
    let list = stdout(&pagesnap(&["strategies"]));
    for name in ["flat", "aria", "structural", "som", "html", "html-pruned"] {
        assert!(
            list.lines().any(|l| l.starts_with(name)),
            "{name} in\n{list}"
        );
    }
    let explain = stdout(&pagesnap(&["strategies", "--explain", "aria"]));
    assert!(explain.contains("Example"), "{explain}");
    let bad = pagesnap(&["strategies", "--explain", "nope"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown strategy \"nope\""));
}

#[test]
fn snapshot_prints_text_meta_and_writes_files() {
    let login = fixture("login/initial.json.gz");
    let text = stdout(&pagesnap(&["snapshot", &login, "--strategy", "aria"]));
    assert!(text.contains("[ref=e"), "{text}");
    let meta: serde_json::Value = serde_json::from_str(&stdout(&pagesnap(&[
        "snapshot",
        &login,
        "--strategy",
        "flat",
        "--meta",
    ])))
    .unwrap();
    assert_eq!(meta["strategy"], "flat");
    assert!(meta["items"].as_array().unwrap().len() >= 10);
    assert_eq!(meta["modal"]["kind"], "none");

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().display().to_string();
    stdout(&pagesnap(&[
        "snapshot",
        &login,
        "--strategy",
        "som",
        "--out",
        &out,
    ]));
    let png = std::fs::read(dir.path().join("som.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    assert!(dir.path().join("som.meta.json").exists() && dir.path().join("som.txt").exists());

    // Budget: a notice says what was dropped.
    let article = fixture("long_article/top.json.gz");
    let small = stdout(&pagesnap(&[
        "snapshot",
        &article,
        "--strategy",
        "aria",
        "--max-tokens",
        "300",
    ]));
    assert!(small.contains("truncated"), "{small}");

    // Stable refs with --previous: the task added in the next step is marked new.
    let before = fixture("todo_app/add_tasks.step1.json.gz");
    let after = fixture("todo_app/add_tasks.step2.json.gz");
    let marked = stdout(&pagesnap(&[
        "snapshot",
        &after,
        "--strategy",
        "flat",
        "--previous",
        &before,
    ]));
    assert!(marked.contains("*["), "{marked}");

    // Layers: an unknown id is an error naming it.
    let bad = pagesnap(&[
        "snapshot",
        &login,
        "--strategy",
        "structural",
        "--layer",
        "form=form",
        "--layers",
        "nav",
    ]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown layer \"nav\""));
    let scoped = stdout(&pagesnap(&[
        "snapshot",
        &login,
        "--strategy",
        "structural",
        "--layer",
        "form=form",
        "--layers",
        "form",
    ]));
    assert!(
        scoped.contains("textbox") && !scoped.contains("\"Pricing\""),
        "{scoped}"
    );

    // Secrets stay hidden unless asked for explicitly.
    let secrets = fixture("secrets/initial.json.gz");
    let redacted = stdout(&pagesnap(&["snapshot", &secrets, "--strategy", "flat"]));
    assert!(!redacted.contains("sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"));
    let shown = stdout(&pagesnap(&[
        "snapshot",
        &secrets,
        "--strategy",
        "flat",
        "--no-redact",
    ]));
    assert!(
        shown.contains("sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"),
        "{shown}"
    );
}

#[test]
fn compare_reports_every_strategy_with_real_tokens() {
    let login = fixture("login/initial.json.gz");
    let rows: serde_json::Value = serde_json::from_str(&stdout(&pagesnap(&[
        "compare", &login, "--runs", "1", "--json",
    ])))
    .unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 6);
    for row in rows {
        assert!(row["o200k"].as_u64().unwrap() > 50, "{row}");
        assert!(row["refs"].as_u64().unwrap() >= 10, "{row}");
    }
    let som = rows.iter().find(|r| r["strategy"] == "som").unwrap();
    assert_eq!(
        som["image_tokens"], 1105,
        "1280×720 at high detail: 3×2 tiles of 512 px × 170 + 85"
    );
    let html = rows.iter().find(|r| r["strategy"] == "html").unwrap();
    let pruned = rows
        .iter()
        .find(|r| r["strategy"] == "html-pruned")
        .unwrap();
    assert!(html["o200k"].as_u64() > pruned["o200k"].as_u64());
}

/// How many `.html` files `dir` holds, at any depth.
fn html_files(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|entry| entry.path())
        .map(|path| {
            if path.is_dir() {
                html_files(&path)
            } else {
                usize::from(path.extension().is_some_and(|e| e == "html"))
            }
        })
        .sum()
}

/// The shared corpus of real saved pages.
fn corpus() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/corpus")
        .display()
        .to_string()
}

#[test]
fn redactions_on_the_corpus_are_the_labelled_ones() {
    let labels = fixture("redaction/corpus-labels.tsv");
    let out = stdout(&pagesnap(&[
        "redactions",
        &corpus(),
        "--labels",
        &labels,
        "--check",
    ]));
    // Every page of the corpus is read (212 since the GOV.UK pages came: its
    // .html files, counted rather than written down, so a corpus that grows
    // does not fail the check).
    assert!(
        out.contains(&format!("{} pages", html_files(Path::new(&corpus())))),
        "{out}"
    );
    assert!(out.contains("unlabelled"), "{out}");
    let all = out
        .lines()
        .find(|l| l.trim_start().starts_with("all "))
        .unwrap();
    let listed = std::fs::read_to_string(&labels).unwrap().lines().count() - 1;
    assert!(all.contains(&format!(" {listed} ")), "{all} lists {listed}");
    assert!(all.trim_end().ends_with(" 0"), "nothing unlabelled: {all}");

    // A list that lacks a value now hidden, and holds one no longer hidden,
    // fails the check and names both.
    let text = std::fs::read_to_string(&labels).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    let dropped = lines.remove(1).to_owned();
    let fake = "readability/aclu.html\trandom\ttext\tsecret\tNotAnyRedactionAtAll42\tplanted";
    lines.push(fake);
    let dir = tempfile::tempdir().unwrap();
    let changed = dir.path().join("labels.tsv");
    std::fs::write(&changed, lines.join("\n") + "\n").unwrap();
    let output = pagesnap(&[
        "redactions",
        &corpus(),
        "--labels",
        changed.to_str().unwrap(),
        "--check",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let err = String::from_utf8_lossy(&output.stderr);
    let page = dropped.split('\t').next().unwrap();
    assert!(err.contains(&format!("new: {page}")), "{err}");
    assert!(
        err.contains(
            "no longer hidden: readability/aclu.html random text \"NotAnyRedactionAtAll42\""
        ),
        "{err}"
    );
    assert!(err.contains("1 new, 1 no longer hidden"), "{err}");
}

/// `doctor` finds this machine's browser (the search's first hit, which it
/// runs for its version), and fails naming `$PAGESNAP_CHROMIUM` when that
/// points nowhere; the browser it reports is the one pagesnap launches.
#[test]
fn doctor_finds_the_browser_and_names_a_bad_variable() {
    let found = pagesnap(&["doctor"]);
    let text = stdout(&found);
    let line = text
        .lines()
        .find(|l| l.starts_with("browser: "))
        .unwrap_or_else(|| panic!("no browser line in\n{text}"));
    let path = line
        .trim_start_matches("browser: ")
        .split(" (")
        .next()
        .unwrap();
    assert!(Path::new(path).is_file(), "{line}");
    assert!(
        line.contains("Chrom"),
        "the version is read from the browser: {line}"
    );
    assert!(
        text.contains("network: mcp and snapshot reach the web"),
        "{text}"
    );
    let listed = stdout(&pagesnap(&["doctor", "--all"]));
    for place in ["Playwright cache", "Puppeteer cache", "installed"] {
        assert!(
            listed.contains(place),
            "--all lists the {place} places:\n{listed}"
        );
    }
    let bad = Command::new(crate::support::exe())
        .arg("doctor")
        .env("PAGESNAP_CHROMIUM", "/nonexistent/chrome")
        .output()
        .unwrap();
    assert!(!bad.status.success());
    let said = String::from_utf8_lossy(&bad.stdout);
    assert!(
        said.contains("PAGESNAP_CHROMIUM names /nonexistent/chrome"),
        "{said}"
    );
}
