//! Helpers shared by the integration tests that drive the `pagesnap` binary: the repository root, running the binary, reading its outputs.
#![allow(dead_code, reason = "each test binary uses a different subset")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root (suites, fixtures and reports are relative to it).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Runs `pagesnap ARGS` in the repository root and waits for it.
pub fn pagesnap(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pagesnap"))
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
