//! `pagesnap mcp` driven by the official MCP SDKs, as agents use it: the Python SDK (PyPI `mcp`) and the TypeScript SDK (npm `@modelcontextprotocol/sdk`), over stdio and Streamable HTTP, attached to a Chromium the test starts, and killed with SIGKILL.
//!
//! Each client script (`tests/mcp_clients/`) runs a whole scenario against the
//! real server on real pages (the fixture sites and pages of its own, over
//! 127.0.0.1) and exits non-zero naming the first check that failed. The SDKs
//! are installed by `scripts/setup`: a venv in `~/.cache/pagesnap/mcp-venv`
//! (or `$PAGESNAP_MCP_PYTHON`) and `npm ci` in `scripts/mcp`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::path::PathBuf;
use std::process::Command;

mod common;
use common::root;

fn python() -> PathBuf {
    let python = std::env::var_os("PAGESNAP_MCP_PYTHON").map_or_else(
        || {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
                .join(".cache/pagesnap/mcp-venv/bin/python")
        },
        PathBuf::from,
    );
    assert!(
        python.exists(),
        "{} not found: the MCP Python SDK's venv is made by scripts/setup (or set PAGESNAP_MCP_PYTHON)",
        python.display()
    );
    python
}

fn node_sdk() {
    let sdk = root().join("scripts/mcp/node_modules/@modelcontextprotocol/sdk/package.json");
    assert!(
        sdk.exists(),
        "{} not found: scripts/setup installs the MCP TypeScript SDK (npm ci --prefix scripts/mcp)",
        sdk.display()
    );
}

/// Runs one client script in one mode; its last line says how many checks passed.
fn run(program: &PathBuf, script: &str, mode: &str) {
    let output = Command::new(program)
        .current_dir(root())
        .arg(root().join("harness/tests/mcp_clients").join(script))
        .arg(env!("CARGO_BIN_EXE_pagesnap"))
        .arg(mode)
        .arg(root().join("fixtures/sites"))
        .output()
        .expect("the client script runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{script} {mode} failed:\n{stdout}\n{stderr}"
    );
    let last = stdout.lines().last().unwrap_or_default();
    let checks: usize = last
        .strip_prefix("ok: ")
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{script} {mode}: no `ok: N checks` line:\n{stdout}"));
    assert!(checks >= 20, "{script} {mode}: only {checks} checks ran");
}

#[test]
fn python_sdk_over_stdio() {
    run(&python(), "client.py", "stdio");
}

#[test]
fn python_sdk_over_streamable_http() {
    run(&python(), "client.py", "http");
}

#[test]
fn python_sdk_on_an_attached_browser_leaves_it_running() {
    run(&python(), "client.py", "attach");
}

#[test]
fn sigkill_leaves_no_chromium() {
    run(&python(), "client.py", "sigkill");
}

#[test]
fn typescript_sdk_over_stdio() {
    node_sdk();
    run(&PathBuf::from("node"), "client.mjs", "stdio");
}

#[test]
fn typescript_sdk_over_streamable_http() {
    node_sdk();
    run(&PathBuf::from("node"), "client.mjs", "http");
}

#[test]
fn mcp_help_documents_every_flag() {
    let output = common::pagesnap(&["mcp", "--help"]);
    let help = common::stdout(&output);
    for flag in [
        "--port",
        "--host",
        "--allowed-origin",
        "--cdp-endpoint",
        "--strategy",
        "--secrets",
        "--layers-config",
        "--allow-file-urls",
        "--viewport",
        "--timeout",
        "--network",
    ] {
        assert!(help.contains(flag), "mcp --help lacks {flag}:\n{help}");
    }
    for tool in ["page_snapshot", "page_action", "page_scroll", "page_find"] {
        assert!(help.contains(tool), "mcp --help lacks {tool}");
    }
}

#[test]
fn bad_configuration_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let secrets = dir.path().join("secrets.env");
    std::fs::write(&secrets, "GOOD=1\nnot a line\n").unwrap();
    let output = common::pagesnap(&["mcp", "--secrets", secrets.to_str().unwrap()]);
    let err = common::stderr(&output);
    assert!(!output.status.success());
    assert!(
        err.contains("secrets.env") && err.contains("line 2"),
        "{err}"
    );
    let layers = dir.path().join("layers.toml");
    std::fs::write(&layers, "default = [\"main\"]\n").unwrap();
    let output = common::pagesnap(&["mcp", "--layers-config", layers.to_str().unwrap()]);
    let err = common::stderr(&output);
    assert!(!output.status.success());
    assert!(
        err.contains("layers.toml") && err.contains("\"main\""),
        "{err}"
    );
    let output = common::pagesnap(&["mcp", "--strategy", "nope"]);
    assert!(common::stderr(&output).contains("unknown strategy"));
    let output = common::pagesnap(&["mcp", "--cdp-endpoint", "ftp://x"]);
    let err = common::stderr(&output);
    assert!(
        err.contains("ftp://x") && err.contains("http://HOST:PORT"),
        "{err}"
    );
}
