//! `pagesnap mcp` driven by the official MCP SDKs, as agents use it: the Python SDK (PyPI `mcp`) and the TypeScript SDK (npm `@modelcontextprotocol/sdk`), over stdio and Streamable HTTP, attached to a Chromium the test starts, and killed with SIGKILL.
//!
//! Each client script (`tests/mcp_clients/`) runs a whole scenario against the
//! real server on real pages (the fixture sites and pages of its own, over
//! 127.0.0.1) and exits non-zero naming the first check that failed. The SDKs
//! are installed by `scripts/setup`: a venv in `~/.cache/pagesnap/mcp-venv`
//! (or `$PAGESNAP_MCP_PYTHON`) and `npm ci` in `scripts/mcp`.

use std::path::PathBuf;
use std::process::Command;

use crate::support::root;

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

/// Runs one client script in one mode; its last line says how many checks
/// passed, which must be exactly `checks`: a check that stops running (a
/// branch no longer taken, a loop over nothing) fails here as a failed check would.
fn run(program: &PathBuf, script: &str, mode: &str, expected: usize) {
    let output = Command::new(program)
        .current_dir(root())
        .arg(root().join("harness/tests/mcp_clients").join(script))
        .arg(crate::support::exe())
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
    assert_eq!(
        checks, expected,
        "{script} {mode}: {checks} checks ran, not {expected} (a client changed: update the count with the reason)"
    );
}

#[test]
fn python_sdk_over_stdio() {
    run(&python(), "client.py", "stdio", 403);
}

#[test]
fn python_sdk_over_streamable_http() {
    run(&python(), "client.py", "http", 499);
}

#[test]
fn python_sdk_on_an_attached_browser_leaves_it_running() {
    run(&python(), "client.py", "attach", 406);
}

#[test]
fn python_sdk_sees_and_answers_every_dialog() {
    run(&python(), "client.py", "dialogs", 119);
}

#[test]
fn python_sdk_drives_every_action() {
    // 424: a scroll that did not move answers "unchanged" (issue 59's changed-lines answers), and the
    // carousel's last slides are checked in a snapshot of their own. 436: a download through
    // --download-dir (its three calls, and five checks of the file and the answer), and a
    // --download-dir that is a file refused.
    run(&python(), "client.py", "actions", 436);
}

#[test]
fn sigkill_leaves_no_chromium() {
    run(&python(), "client.py", "sigkill", 27);
}

/// Issue 58: one session's tab crashed (its renderer killed) beside another's,
/// the browser killed and stopped under two HTTP sessions, an
/// attached browser killed and started again, its DevTools socket cut.
#[test]
fn python_sdk_sessions_recover_from_browser_faults() {
    run(&python(), "client.py", "crash", 113);
}

#[test]
fn typescript_sdk_over_stdio() {
    node_sdk();
    run(&PathBuf::from("node"), "client.mjs", "stdio", 498);
}

#[test]
fn typescript_sdk_over_streamable_http() {
    node_sdk();
    run(&PathBuf::from("node"), "client.mjs", "http", 526);
}

#[test]
fn mcp_help_documents_every_flag() {
    let output = crate::support::pagesnap(&["mcp", "--help"]);
    let help = crate::support::stdout(&output);
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
        "--offline",
        "--shared-context",
        "--max-sessions",
        "--idle-timeout",
        "--dialogs",
    ] {
        assert!(help.contains(flag), "mcp --help lacks {flag}:\n{help}");
    }
    for tool in [
        "page_snapshot",
        "page_action",
        "page_scroll",
        "page_find",
        "page_dialog",
    ] {
        assert!(help.contains(tool), "mcp --help lacks {tool}");
    }
}

#[test]
fn bad_configuration_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let secrets = dir.path().join("secrets.env");
    std::fs::write(&secrets, "GOOD=1\nnot a line\n").unwrap();
    let output = crate::support::pagesnap(&["mcp", "--secrets", secrets.to_str().unwrap()]);
    let err = crate::support::stderr(&output);
    assert!(!output.status.success());
    assert!(
        err.contains("secrets.env") && err.contains("line 2"),
        "{err}"
    );
    let layers = dir.path().join("layers.toml");
    std::fs::write(&layers, "default = [\"main\"]\n").unwrap();
    let output = crate::support::pagesnap(&["mcp", "--layers-config", layers.to_str().unwrap()]);
    let err = crate::support::stderr(&output);
    assert!(!output.status.success());
    assert!(
        err.contains("layers.toml") && err.contains("\"main\""),
        "{err}"
    );
    let output = crate::support::pagesnap(&["mcp", "--strategy", "nope"]);
    assert!(crate::support::stderr(&output).contains("unknown strategy"));
    let output = crate::support::pagesnap(&["mcp", "--cdp-endpoint", "ftp://x"]);
    let err = crate::support::stderr(&output);
    assert!(
        err.contains("ftp://x") && err.contains("http://HOST:PORT"),
        "{err}"
    );
}

/// `bench-mcp --click` answers a dialog a page left open, so that it does
/// not stop the next page: the click on `dialogs/card.html` opens a confirm
/// ("Remove this card…"), `dialogs/onload.html` an alert while it loads. The
/// page after each was refused (`dialog-pending`) on the same tab before;
/// now each is measured, with its click, on pagesnap, Playwright MCP and
/// agent-browser. agent-browser's click answer does not show the page (nor
/// the confirm), so its snapshot is read for it: `editor.html` failed there
/// on the confirm left open until that. Playwright MCP's own snapshot
/// refuses a page with an open dialog ("does not handle the modal state"):
/// its row for `onload.html` is an error (it is asked before agent-browser).
#[test]
fn bench_mcp_answers_the_dialog_a_page_left_open_before_the_next_page() {
    let pages = [
        "fixtures/sites/dialogs/card.html",
        "fixtures/sites/dialogs/editor.html",
        "fixtures/sites/dialogs/onload.html",
        "fixtures/sites/disabled_controls/index.html",
    ];
    let output = Command::new(crate::support::exe())
        .current_dir(root())
        .arg("bench-mcp")
        .args(pages)
        .args([
            "--vs",
            "playwright,agent-browser",
            "--click",
            "--runs",
            "1",
            "--json",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let rows: Vec<serde_json::Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .filter(|row: &serde_json::Value| row.get("page").is_some())
        .collect();
    assert_eq!(rows.len(), pages.len(), "{stdout}\n{stderr}");
    for (row, page) in rows.iter().zip(pages) {
        assert_eq!(row["page"], page, "{stdout}");
        if page.ends_with("onload.html") {
            let error = row["error"].as_str().unwrap_or_default();
            assert!(
                error.contains("playwright") && error.contains("modal state"),
                "{row}"
            );
            continue;
        }
        assert!(row.get("error").is_none(), "{page}: {row}\n{stderr}");
        let servers = row["servers"].as_array().unwrap();
        assert_eq!(servers.len(), 3, "{row}");
        for server in servers {
            let click = &server["click"];
            assert!(click["ms"].as_f64().unwrap() > 0.0, "{page}: {server}");
        }
    }
}

/// `bench-mcp` is offline in every server's browser unless `--network`:
/// a page asks the test's server for an image by a name only the network
/// resolves (`probe.localhost`, which Chromium itself answers with the
/// loopback) and for one by `localhost`. Offline, no server's browser asks
/// for the first and each asks for the second; with `--network` each asks
/// for both. pagesnap, Playwright MCP (its browser given the flag through a
/// configuration file) and Chrome DevTools MCP (on the browser bench-mcp
/// launches) each take another path to it.
#[test]
fn bench_mcp_is_offline_in_every_servers_browser_unless_network() {
    use std::sync::{Arc, Mutex};

    use crate::support::http::{self, Reply};

    let asked: Arc<Mutex<Vec<String>>> = Arc::default();
    let log = Arc::clone(&asked);
    let images = http::Server::start(move |request| {
        let host = request.headers.get("host").cloned().unwrap_or_default();
        let name = host.split(':').next().unwrap_or_default().to_owned();
        log.lock().unwrap().push(name);
        Reply::empty_for_pages()
    });
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("probe.html");
    let port = images.port;
    std::fs::write(
        &page,
        format!(
            "<!doctype html><title>Probe</title><h1>Probe</h1>\
             <img alt=\"resolved by the network\" src=\"http://probe.localhost:{port}/a.png\">\
             <img alt=\"loopback\" src=\"http://localhost:{port}/b.png\">"
        ),
    )
    .unwrap();
    let count = |names: &[String], name: &str| names.iter().filter(|n| *n == name).count();
    for network in [false, true] {
        asked.lock().unwrap().clear();
        let mut command = Command::new(crate::support::exe());
        command
            .current_dir(root())
            .arg("bench-mcp")
            .arg(&page)
            .args([
                "--vs",
                "playwright,chrome-devtools",
                "--runs",
                "1",
                "--json",
            ]);
        if network {
            command.arg("--network");
        }
        let output = command.output().unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{stdout}\n{stderr}");
        let summary: serde_json::Value =
            serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
        assert_eq!(summary["network"], network, "{summary}");
        assert_eq!(summary["pages"], 1, "{stdout}");
        let names = asked.lock().unwrap().clone();
        // Each of the three browsers loaded the page once at least.
        assert!(
            count(&names, "localhost") >= 3,
            "network {network}: {names:?}"
        );
        let probes = count(&names, "probe.localhost");
        if network {
            assert!(
                probes >= 3,
                "--network: every browser resolves it: {names:?}"
            );
        } else {
            assert_eq!(probes, 0, "offline: no browser resolves it: {names:?}");
        }
    }
}

/// `pagesnap bench-mcp --vs playwright,chrome-devtools,agent-browser`
/// against the real npm servers: the four measured on the same pages (each
/// navigation, first and warm snapshot timed, tokens and refs counted), a
/// click on a target all name alike, done on each, and a corpus task's
/// target looked for on each.
#[test]
fn bench_mcp_measures_all_servers_beside_pagesnap() {
    for bin in [
        "scripts/mcp/node_modules/@playwright/mcp/cli.js",
        "scripts/mcp/node_modules/chrome-devtools-mcp",
        "scripts/mcp/node_modules/agent-browser",
    ] {
        assert!(
            root().join(bin).exists(),
            "{bin} not found: scripts/setup installs the tool servers (npm ci --prefix scripts/mcp)"
        );
    }
    let corpus = root().join("../shared/corpus");
    let suite = tempfile::tempdir().unwrap();
    let suite_file = suite.path().join("one.toml");
    std::fs::write(
        &suite_file,
        format!(
            "[suite]\nname = \"one\"\npages = {:?}\n\n[[task]]\nid = \"lwn-create-account\"\ninstruction = \"Create an account\"\n\n[[task.step]]\nrecording = \"readability/lwn-1\"\nop = \"click\"\ntarget = {{ role = \"link\", name = \"Create an account\" }}\n",
            corpus.display().to_string()
        ),
    )
    .unwrap();
    let output = Command::new(crate::support::exe())
        .current_dir(root())
        .args(["bench-mcp", "fixtures/sites/login/index.html", "--tasks"])
        .arg(&suite_file)
        .args(["--vs", "playwright,mcp:chrome-devtools,agent-browser"])
        .args(["--click", "--runs", "2", "--json"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "bench-mcp failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let [login, lwn, summary] = lines.as_slice() else {
        panic!("expected two pages and a summary:\n{stdout}");
    };
    let all = ["pagesnap", "playwright", "chrome-devtools", "agent-browser"];
    for page in [login, lwn] {
        let servers = page["servers"].as_array().unwrap();
        let sides: Vec<&str> = servers
            .iter()
            .map(|s| s["side"].as_str().unwrap())
            .collect();
        assert_eq!(sides, all, "{page}");
        for server in servers {
            for timing in ["navigate_ms", "first_ms"] {
                assert!(server[timing].as_f64().unwrap() > 0.0, "{timing}: {server}");
            }
            let warm = server["warm_ms"].as_array().unwrap();
            assert_eq!(warm.len(), 2, "{server}");
            assert!(warm.iter().all(|ms| ms.as_f64().unwrap() > 0.0), "{server}");
            assert!(server["tokens"].as_u64().unwrap() > 20, "{server}");
            assert!(server["refs"].as_u64().unwrap() > 0, "{server}");
        }
        // One click per page, on the same element everywhere, done by each.
        let clicks: Vec<&serde_json::Value> = servers.iter().map(|s| &s["click"]).collect();
        for click in &clicks {
            assert_eq!(click["element"], clicks[0]["element"], "{page}");
            assert!(click["ms"].as_f64().unwrap() > 0.0, "{page}");
        }
    }
    // On the login page the click is a button; pagesnap's answer is complete
    // (the page is quiet).
    let pagesnap_click = &login["servers"][0]["click"];
    assert!(
        pagesnap_click["element"]
            .as_str()
            .unwrap()
            .starts_with("button"),
        "{login}"
    );
    assert_eq!(pagesnap_click["incomplete"], false, "{login}");
    // The LWN link is looked for on every server, found by pagesnap and
    // Playwright MCP.
    let target = &lwn["targets"][0];
    assert_eq!(target["task"], "lwn-create-account", "{lwn}");
    for side in all {
        assert!(target[side].is_string(), "{side}: {lwn}");
    }
    assert_ne!(target["pagesnap"], "missing", "{lwn}");
    assert_eq!(target["playwright"], "in-view", "{lwn}");
    assert_eq!(summary["pages"], 2, "{summary}");
    for side in all {
        let server = &summary["servers"][side];
        assert!(
            server["definition_tokens"].as_u64().unwrap() > 0,
            "{side}: {summary}"
        );
        assert!(
            server["click_ms"][0].as_f64().unwrap() > 0.0,
            "{side}: {summary}"
        );
        assert_eq!(
            summary["reach"][side]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_u64().unwrap())
                .sum::<u64>(),
            1,
            "{side}: {summary}"
        );
    }
    for side in &all[1..] {
        assert!(
            summary["ratios"][side]["tokens"][0].as_f64().unwrap() > 0.0,
            "{side}: {summary}"
        );
    }
}

/// `bench-mcp --vs` refuses a server it does not ship, naming those it does.
#[test]
fn bench_mcp_refuses_an_unknown_server() {
    let output = crate::support::pagesnap(&[
        "bench-mcp",
        "fixtures/sites/login/index.html",
        "--vs",
        "nope",
    ]);
    assert!(!output.status.success());
    let err = crate::support::stderr(&output);
    assert!(
        err.contains("nope") && err.contains("known: playwright, chrome-devtools, agent-browser"),
        "{err}"
    );
}

/// `scripts/bench-sessions`, the load benchmark of many sessions, runs: two
/// sessions side by side on pagesnap and on Playwright MCP, every read of
/// pagesnap's the session's own page (the script exits non-zero on any read
/// of another session's page or any error). Its figures are not judged here.
#[test]
fn the_sessions_benchmark_runs_with_every_read_its_own() {
    let out = tempfile::tempdir().unwrap();
    let json = out.path().join("sessions.json");
    let output = Command::new(python())
        .current_dir(root())
        .arg("scripts/bench_sessions.py")
        .args([
            "--clients",
            "2",
            "--rounds",
            "1",
            "--vs-playwright-mcp",
            "--bin",
        ])
        .arg(crate::support::exe())
        .arg("--out")
        .arg(&json)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let rows: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 2);
    for row in rows {
        assert_eq!(row["other_page_reads"], 0, "{row}");
        assert!(row["reads"].as_u64().unwrap() >= 2, "{row}");
        for kind in ["navigate", "snapshot", "click", "scroll"] {
            assert!(row["kinds"][kind]["calls"].as_u64().unwrap() >= 2, "{row}");
        }
    }
}
