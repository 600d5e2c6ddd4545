//! Tool servers as observers and actors in `pagesnap live` (`mcp:NAME`): Playwright MCP, Chrome DevTools MCP and agent-browser (the real npm packages) and pagesnap's own server attached to the episode's browser, the agent reading their snapshot text and acting through their tools; servers that die, hang or answer garbage are error rows naming them.

use std::path::Path;

use crate::support::{forgot_password_suite, pagesnap, require_tool, result_rows, root, stderr};

/// Two MiniWoB++ tasks, two seeds each: a click, and a text entry then a click.
const MINI: &str = r#"[suite]
name = "miniwob-mini"
source = "miniwob"
seeds = [0, 1]
max_steps = 5

[[task]]
id = "click-button"
page = "click-button"
tier = "easy"

[[task]]
id = "enter-text"
page = "enter-text"
tier = "medium"
"#;

#[test]
fn the_four_tool_servers_solve_miniwob_tasks_through_their_own_tools() {
    // scripts/setup installs the peers (npm ci --prefix scripts/mcp).
    require_tool("node");
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite.toml");
    std::fs::write(&suite, MINI).unwrap();
    let out = dir.path().join("out");
    let output = pagesnap(&[
        "live",
        "--suite",
        suite.to_str().unwrap(),
        "--strategy",
        "mcp:playwright,mcp:pagesnap,mcp:chrome-devtools,mcp:agent-browser",
        "--agent",
        "reader",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let rows = result_rows(&out);
    assert_eq!(rows.len(), 16);
    for e in &rows {
        assert!(e["error"].is_null(), "{e}");
        assert_eq!(e["success"], true, "the page says the task is done: {e}");
        let steps = e["step_log"].as_array().unwrap();
        let mut tokens = 0;
        for (i, step) in steps.iter().enumerate() {
            let peer = &step["peer"];
            assert!(peer.is_object(), "{step}");
            // The snapshot, and the action the agent asked for.
            let calls = if step["outcome"] == "done" { 1 } else { 2 };
            assert_eq!(peer["tool_calls"], calls, "{step}");
            assert!(peer["round_trip_ms"].as_f64().unwrap() > 0.0);
            assert_eq!(peer["result_tokens"], step["obs_tokens"], "{step}");
            tokens += step["obs_tokens"].as_u64().unwrap();
            // The tool definitions are shown to a model once per episode.
            let definitions = peer["definition_tokens"].as_u64().unwrap_or(0);
            if i == 0 {
                assert!(definitions > 500, "{step}");
                // Every agent pays pagesnap's on every episode: within the
                // action-space issue's budget (1,572 before page_dialog).
                if e["strategy"] == "mcp:pagesnap" {
                    eprintln!("pagesnap mcp tool definitions: {definitions} o200k tokens");
                    assert!(definitions <= 2_200, "{definitions} tokens: {step}");
                }
                tokens += definitions;
            } else {
                assert_eq!(definitions, 0, "{step}");
            }
            // No capture of pagesnap's behind the server's back.
            assert!(step["external"].is_null());
        }
        assert_eq!(e["obs_tokens"].as_u64().unwrap(), tokens, "{e}");
    }
    // The agent typed into the server's textbox by the server's own ref.
    let typed = rows
        .iter()
        .filter(|e| e["task"] == "enter-text")
        .flat_map(|e| e["step_log"].as_array().unwrap().iter())
        .filter(|s| s["action"]["op"] == "type")
        .count();
    assert_eq!(typed, 8);
    // Each server's element lines are its own: Chrome DevTools MCP's uids (it
    // named the episode's page on every call, {tab} in each call of its
    // mapping), Playwright MCP's and agent-browser's refs.
    for (server, starts, holds) in [
        ("mcp:chrome-devtools", "uid=", "textbox"),
        ("mcp:playwright", "textbox", "[ref=e"),
        ("mcp:agent-browser", "textbox", "ref=e"),
    ] {
        let episode = rows
            .iter()
            .find(|e| e["strategy"] == server && e["task"] == "enter-text")
            .unwrap();
        let first = &episode["step_log"][0];
        let element = first["element"].as_str().unwrap();
        assert!(
            element.starts_with(starts) && element.contains(holds),
            "{server}: {first}"
        );
    }
    // agent-browser ran in its own session and daemon, which ended with the run.
    let daemons = || {
        std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|entry| std::fs::read(entry.ok()?.path().join("cmdline")).ok())
            .map(|cmdline| String::from_utf8_lossy(&cmdline).replace('\0', " "))
            .filter(|cmdline| cmdline.contains("agent-browser/bin/agent-browser-"))
            .collect::<Vec<_>>()
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while !daemons().is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(
        daemons().is_empty(),
        "agent-browser daemons outlived the run: {:?}",
        daemons()
    );
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    for wanted in [
        "## Tool servers: calls and what a model reads",
        "| mcp:agent-browser \\(tool server\\) | ",
        "| mcp:playwright \\(tool server\\) | ",
        "| mcp:pagesnap \\(tool server\\) | ",
    ] {
        assert!(report.contains(wanted), "{wanted:?} not in\n{report}");
    }
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("<h2>Tool servers</h2>"), "report.html");
}

#[test]
fn tool_servers_that_die_hang_or_answer_garbage_are_error_rows_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let suite = forgot_password_suite(dir.path(), "broken-servers");
    let mapping = root().join("harness/mcp-servers/pagesnap.toml");
    let teleport = dir.path().join("teleport.toml");
    std::fs::write(
        &teleport,
        std::fs::read_to_string(&mapping)
            .unwrap()
            .replace("tool = \"page_scroll\"", "tool = \"page_teleport\""),
    )
    .unwrap();
    let exe = crate::support::exe();
    let out = dir.path().join("out");
    let mapped = |name: &str, file: &Path| format!("{name}={}", file.display());
    let output = pagesnap(&[
        "live",
        "--suite",
        suite.to_str().unwrap(),
        "--strategy",
        "mcp:dies,mcp:hangs,mcp:garbage,mcp:teleport,aria",
        "--mcp",
        "dies=echo dying >&2; exit 3",
        "--mcp",
        "hangs=sleep 600",
        "--mcp",
        "garbage=while read l; do echo 'not json {'; done",
        "--mcp",
        &format!("teleport={} mcp --cdp-endpoint {{cdp}}", exe.display()),
        "--mcp-mapping",
        &mapped("dies", &mapping),
        "--mcp-mapping",
        &mapped("hangs", &mapping),
        "--mcp-mapping",
        &mapped("garbage", &mapping),
        "--mcp-mapping",
        &mapped("teleport", &teleport),
        "--external-timeout",
        "2",
        "--out",
        dir.path().join("out").to_str().unwrap(),
        "--quiet",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let rows = result_rows(&out);
    assert_eq!(rows.len(), 10);
    let errors = |strategy: &str| -> Vec<String> {
        rows.iter()
            .filter(|e| e["strategy"] == strategy)
            .map(|e| {
                assert_eq!(e["ended_by"], "error", "{e}");
                e["error"].as_str().unwrap().to_owned()
            })
            .collect()
    };
    // Each episode tries again: a server that failed is started anew.
    for error in errors("mcp:dies") {
        assert!(
            error.contains("mcp:dies") && error.contains("initialize") && error.contains("dying"),
            "{error}"
        );
    }
    for error in errors("mcp:hangs") {
        assert!(
            error.contains("mcp:hangs") && error.contains("no answer to initialize within 2s"),
            "{error}"
        );
    }
    for error in errors("mcp:garbage") {
        assert!(error.contains("mcp:garbage"), "{error}");
    }
    for error in errors("mcp:teleport") {
        assert!(
            error.contains("mcp:teleport")
                && error.contains("the mapping names tool \"page_teleport\""),
            "{error}"
        );
    }
    for e in rows.iter().filter(|e| e["strategy"] == "aria") {
        assert!(e["error"].is_null(), "{e}");
    }
}

#[test]
fn tool_servers_are_refused_where_they_cannot_act_and_named_when_unknown() {
    let output = pagesnap(&[
        "live",
        "--suite",
        "suites/miniwob.toml",
        "--strategy",
        "mcp:nope",
    ]);
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains(
            "known: mcp:playwright, mcp:chrome-devtools, mcp:agent-browser, mcp:pagesnap"
        ),
        "{}",
        stderr(&output)
    );
    let output = pagesnap(&[
        "live",
        "--suite",
        "suites/miniwob.toml",
        "--strategy",
        "mcp:mine",
        "--mcp",
        "mine=my-server",
    ]);
    assert!(
        stderr(&output).contains("--mcp-mapping mine=FILE.toml"),
        "{}",
        stderr(&output)
    );
    let output = pagesnap(&[
        "bench-live",
        "fixtures/sites/login/index.html",
        "--strategy",
        "mcp:playwright",
    ]);
    assert!(!output.status.success());
    assert!(
        stderr(&output)
            .contains("mcp:playwright: a tool server observes and acts in `pagesnap live` only"),
        "{}",
        stderr(&output)
    );
}
