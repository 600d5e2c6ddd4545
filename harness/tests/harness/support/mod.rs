//! What the harness tests share: the repository root, running the binary, reading its outputs and recordings, Node.js tools.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root (suites, fixtures and reports are relative to it).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The `pagesnap` binary the tests drive: `$PAGESNAP_TEST_BIN` when set
/// (scripts/test sets it to the release build it has just made, the binary
/// users run and a fraction of the debug one's CPU on two cores), else the
/// one this test build made.
pub fn exe() -> PathBuf {
    std::env::var_os("PAGESNAP_TEST_BIN")
        .filter(|path| !path.is_empty())
        .map_or_else(
            || PathBuf::from(env!("CARGO_BIN_EXE_pagesnap")),
            PathBuf::from,
        )
}

/// Runs `pagesnap ARGS` in the repository root and waits for it.
pub fn pagesnap(args: &[&str]) -> Output {
    Command::new(exe())
        .current_dir(root())
        .args(args)
        .output()
        .expect("pagesnap runs")
}

/// The output's stdout as text.
pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The output's stderr as text.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A recording file (`.json.gz`), read.
pub fn load(path: &Path) -> pagesnap_engine::recording::Recording {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    pagesnap_engine::recording::Recording::from_gz_bytes(&bytes, &path.display().to_string())
        .unwrap()
}

/// A run folder's `results.jsonl`, one JSON value per row.
pub fn result_rows(out: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(out.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Writes `dir/suite.toml`, a live suite named `name` of one easy fixture
/// task (click "Forgot password?" on the login site, two seeds, two steps)
/// that any working observer solves, and returns its path.
pub fn forgot_password_suite(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join("suite.toml");
    let text = format!(
        r#"[suite]
name = "{name}"
source = "{}"

[[task]]
id = "login-forgot-password"
page = "login/index.html"
instruction = "Click the Forgot password? link"
success = '''location.hash === '#forgot' '''
tier = "easy"
max_steps = 2
seeds = [0, 1]
"#,
        root().join("fixtures/sites").display()
    );
    std::fs::write(&path, text).unwrap();
    path
}

/// A JSON file, parsed.
pub fn read_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|err| panic!("could not read {}: {err}", path.display()));
    serde_json::from_str(&text)
        .unwrap_or_else(|err| panic!("{} is not valid JSON: {err}", path.display()))
}

/// A summary.json value without its wall-clock figures: every `timing`
/// object removed, wherever it sits.
pub fn without_timing(mut value: serde_json::Value) -> serde_json::Value {
    fn strip(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Object(map) => {
                map.remove("timing");
                map.values_mut().for_each(strip);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut value);
    value
}

fn tool_version(tool: &str) -> Option<String> {
    let output = Command::new(tool).arg("--version").output().ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

pub fn require_tool(tool: &str) {
    assert!(
        tool_version(tool).is_some(),
        "`{tool}` was not found: this test runs Playwright under Node.js. Install nodejs and npm \
         (`scripts/setup` does: apt-get install nodejs npm)."
    );
}

/// `npm ci` unless `node_modules` already holds the locked playwright-core.
pub fn install_playwright(dir: &Path) {
    let lock: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("package-lock.json")).unwrap())
            .unwrap();
    let wanted = lock["packages"]["node_modules/playwright-core"]["version"]
        .as_str()
        .unwrap()
        .to_owned();
    let installed = std::fs::read_to_string(dir.join("node_modules/playwright-core/package.json"))
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .and_then(|v| v["version"].as_str().map(str::to_owned));
    if installed.as_deref() == Some(wanted.as_str()) {
        return;
    }
    let status = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund", "--prefix"])
        .arg(dir)
        .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
        .status()
        .unwrap();
    assert!(status.success(), "npm ci --prefix {} failed", dir.display());
}

pub mod http;
