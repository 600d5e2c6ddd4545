//! Tool servers as observers and actors in `pagesnap live` (`mcp:NAME`): Playwright MCP, Chrome DevTools MCP and agent-browser (the real npm packages) and pagesnap's own server attached to the episode's browser, the agent reading their snapshot text and acting through their tools; servers that die, hang or answer garbage are error rows naming them.

use std::path::Path;

use pagesnap_harness::agent::{Action, Agent, Op, Request, Response};
use pagesnap_harness::live;
use pagesnap_harness::observer::Observer;
use pagesnap_harness::peer::{self, Launch};
use pagesnap_harness::report::live::LiveReport;
use pagesnap_harness::results::StepOutcome;

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
    // Its temp folders (agent-browser's socket folder among them) in one of
    // this test's own: the daemons of other tests running beside it are not
    // this run's.
    let temp = dir.path().join("tmp");
    std::fs::create_dir(&temp).unwrap();
    let output = std::process::Command::new(crate::support::exe())
        .current_dir(root())
        .env("TMPDIR", &temp)
        .args([
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
        ])
        .output()
        .unwrap();
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
                // action-space issue's budget (1,572 before page_dialog),
                // raised from 2,200 to 2,300 when every acting tool took
                // `brief` (issue 59: 2,251; 2,298 once page_navigate's says
                // what a same document and a download answer; Playwright
                // MCP's are 4,444).
                if e["strategy"] == "mcp:pagesnap" {
                    eprintln!("pagesnap mcp tool definitions: {definitions} o200k tokens");
                    assert!(definitions <= 2_300, "{definitions} tokens: {step}");
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
            .filter_map(|entry| {
                let path = entry.ok()?.path();
                let environ = std::fs::read(path.join("environ")).ok()?;
                let cmdline = std::fs::read(path.join("cmdline")).ok()?;
                let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
                (cmdline.contains("agent-browser/bin/agent-browser-")
                    && String::from_utf8_lossy(&environ).contains(&*temp.to_string_lossy()))
                .then_some(cmdline)
            })
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
    let mapped = |name: &str, file: &Path| format!("{name}={}", file.display());
    // The broken servers at a limit of 2 s; the real one (a pagesnap whose
    // mapping names a tool it lacks) in a run of its own, at a limit a
    // loaded machine cannot outlast: at 2 s its initialize (it attaches to
    // the browser first) once ran out in CI before the mapping was checked.
    let run = |out: &Path, strategies: &str, servers: &[(&str, String, &Path)], limit: &str| {
        let mut args: Vec<String> = [
            "live",
            "--suite",
            suite.to_str().unwrap(),
            "--strategy",
            strategies,
        ]
        .map(str::to_owned)
        .to_vec();
        for (name, command, mapping) in servers {
            args.extend([
                "--mcp".to_owned(),
                format!("{name}={command}"),
                "--mcp-mapping".to_owned(),
                mapped(name, mapping),
            ]);
        }
        args.extend(
            [
                "--external-timeout",
                limit,
                "--out",
                out.to_str().unwrap(),
                "--quiet",
            ]
            .map(str::to_owned),
        );
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = pagesnap(&args);
        assert!(output.status.success(), "{}", stderr(&output));
        result_rows(out)
    };
    let mut rows = run(
        &dir.path().join("out"),
        "mcp:dies,mcp:hangs,mcp:garbage,aria",
        &[
            ("dies", "echo dying >&2; exit 3".to_owned(), &mapping),
            ("hangs", "sleep 600".to_owned(), &mapping),
            (
                "garbage",
                "while read l; do echo 'not json {'; done".to_owned(),
                &mapping,
            ),
        ],
        "2",
    );
    assert_eq!(rows.len(), 8);
    let teleport_rows = run(
        &dir.path().join("out-teleport"),
        "mcp:teleport",
        &[(
            "teleport",
            format!("{} mcp --cdp-endpoint {{cdp}}", exe.display()),
            &teleport,
        )],
        "120",
    );
    assert_eq!(teleport_rows.len(), 2);
    rows.extend(teleport_rows);
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
    let teleported = errors("mcp:teleport");
    assert_eq!(teleported.len(), 2);
    for error in teleported {
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

/// Follows a plan per task through a tool server's own snapshot text: each
/// step an op on the element whose snapshot line holds the named words (its
/// ref read as the server's mapping reads refs); a dialog the server names
/// is accepted. The plan's ops are those no embedded agent emits on these
/// pages (upload, both waits) and the dialog a server shows only in its
/// snapshot tool's error.
struct PeerPlan {
    mapping: pagesnap_harness::peer::mapping::Mapping,
}

type PlanStep = (Op, Option<&'static str>, Option<&'static str>);

/// A server, the tasks it has no tool for, those it runs without success
/// and those it is not run on.
type Expected = (
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
    &'static [&'static str],
);

fn plan_steps(instruction: &str) -> &'static [PlanStep] {
    match instruction {
        "upload" => &[(Op::Upload, Some("sum"), Some("Cargo.toml"))],
        "wait-time" => &[
            (Op::Click, Some("Search"), None),
            (Op::Wait, None, Some("3500ms")),
        ],
        "wait-gone" => &[
            (Op::Click, Some("Search"), None),
            (Op::Wait, Some("Cancel"), None),
        ],
        "dialog" | "dialog-keep" => &[(Op::Click, Some("Close editor"), None)],
        // The page alerts while it loads, before the server is asked anything.
        "dialog-on-load" => &[(Op::Click, Some("Open reports"), None)],
        // The click with a key held last: a server without it is refused there.
        "click-with" => &[
            (Op::Click, Some("Budget.xlsx"), None),
            (Op::Click, Some("Photo.jpg"), Some("Control")),
        ],
        "date" => &[(Op::Type, Some("Departure"), Some("2026-12-24"))],
        other => panic!("no plan for {other:?}"),
    }
}

impl Agent for PeerPlan {
    fn name(&self) -> String {
        "peer-plan".to_owned()
    }

    fn act(&self, request: &Request<'_>) -> anyhow::Result<Response> {
        let action = |op, reference: Option<String>, value: Option<&str>| Action {
            op,
            reference,
            value: value.map(str::to_owned),
        };
        let chosen = if request.dialog.is_some() {
            let answer = match request.instruction {
                "dialog-keep" => "dismiss",
                _ => "accept",
            };
            action(Op::Dialog, None, Some(answer))
        } else {
            let done = request
                .history
                .iter()
                .filter(|a| a.op != Op::Dialog)
                .count();
            match plan_steps(request.instruction).get(done) {
                None => action(Op::Done, None, None),
                Some((op, words, value)) => {
                    let reference = words.map(|words| {
                        request
                            .observation
                            .lines()
                            .filter(|line| line.contains(words))
                            .find_map(|line| self.mapping.refs_in(line).into_iter().next())
                            .unwrap_or_else(|| {
                                panic!(
                                    "no ref on a line with {words:?} in\n{}",
                                    request.observation
                                )
                            })
                    });
                    action(*op, reference, *value)
                }
            }
        };
        Ok(Response {
            raw: serde_json::to_string(&chosen).unwrap(),
            action: Some(chosen),
            ..Response::default()
        })
    }
}

/// Upload, a timed wait, a wait for an element to leave, a JavaScript
/// dialog, a Control-click that adds to a selection and a date typed into a
/// date input (whose page tracks its value as React does), through each
/// server's own tools as its mapping names them: the page says whether the
/// file arrived, the results showed, the changes were discarded, both files
/// are selected and the date was seen. A server without a tool for the action is refused by
/// name and nothing is sent to it; a server that shows a dialog only as its
/// snapshot tool's error has that dialog read out of it, and answered.
#[test]
fn tool_servers_upload_wait_and_answer_dialogs_through_their_own_tools() {
    require_tool("node");
    let dir = tempfile::tempdir().unwrap();
    let sites = root().join("fixtures/sites");
    let mut text = format!(
        "[suite]\nname = \"peer-actions\"\nsource = \"{}\"\n\n",
        sites.display()
    );
    for (id, page, success) in [
        (
            "upload",
            "actions/upload.html",
            "document.getElementById('resume')?.files?.[0]?.name === 'Cargo.toml'",
        ),
        (
            "wait-time",
            "actions/wait.html",
            "document.body.innerText.includes('3 results found')",
        ),
        (
            "wait-gone",
            "actions/wait.html",
            "document.body.innerText.includes('3 results found')",
        ),
        (
            "dialog",
            "dialogs/editor.html",
            "document.getElementById('status')?.textContent === 'discarded'",
        ),
        (
            "dialog-keep",
            "dialogs/editor.html",
            "document.getElementById('status')?.textContent.startsWith('kept')",
        ),
        (
            "dialog-on-load",
            "dialogs/onload.html",
            "document.getElementById('status')?.textContent === 'clicked'",
        ),
        (
            "click-with",
            "actions/files.html",
            "document.getElementById('status')?.textContent === 'selected: [\\\"Budget.xlsx\\\",\\\"Photo.jpg\\\"]'",
        ),
        (
            "date",
            "actions/controls.html",
            "document.getElementById('status')?.textContent === 'departure: \\\"2026-12-24\\\"'",
        ),
    ] {
        text += &format!(
            "[[task]]\nid = \"{id}\"\npage = \"{page}\"\ninstruction = \"{id}\"\nsuccess = \"\"\"{success}\"\"\"\nmax_steps = 5\n\n"
        );
    }
    let suite_path = dir.path().join("peer-actions.toml");
    std::fs::write(&suite_path, text).unwrap();
    let all = pagesnap_harness::suite::live::load(&suite_path).unwrap();
    // What each server has no tool for (refused by name, the step invalid),
    // what it runs without the page reporting success, and what it is not
    // run on.
    let cases: [Expected; 4] = [
        ("playwright", &["wait-gone"], &[], &[]),
        // Its select_page gives no answer while a dialog is open (30 s). Its
        // fill on a date input answers "did not become interactive".
        (
            "chrome-devtools",
            &["wait-time", "wait-gone", "click-with"],
            &["date"],
            &["dialog-on-load"],
        ),
        // It answers an alert itself (its default). One run under load (a flake
        // check beside it) clicked "Open reports" with its snapshot's ref, was
        // answered ok, and the page never reported the click (its next snapshot
        // had no refs): not this test's subject, left out. Its snapshot shows a
        // date input as its month, day and year spinbuttons, with no ref for
        // the field: no step of the plan's can name it.
        (
            "agent-browser",
            &["wait-gone", "click-with"],
            &[],
            &["dialog-on-load", "date"],
        ),
        ("pagesnap", &[], &[], &[]),
    ];
    for (bare, lacks, fails, skips) in cases {
        let mut suite = all.clone();
        suite.tasks.retain(|t| !skips.contains(&t.id.as_str()));
        let mut server = peer::named(
            &format!("mcp:{bare}"),
            &[],
            &[],
            std::time::Duration::from_secs(30),
        )
        .unwrap();
        if bare == "pagesnap" {
            // This test binary is not pagesnap: the binary under test serves.
            server.launch = Launch::Shell(format!(
                "exec '{}' mcp --cdp-endpoint '{{cdp}}' --upload-dir '{}'",
                crate::support::exe().display(),
                std::env::current_dir().unwrap().display()
            ));
        }
        let agent = PeerPlan {
            mapping: server.mapping.clone(),
        };
        let out = dir.path().join(bare);
        let outcome = live::run(&crate::live_episodes::config_observing(
            &suite,
            &agent,
            &out,
            vec![Observer::Peer(std::sync::Arc::new(server))],
        ))
        .unwrap();
        let report = LiveReport::build(outcome.manifest, outcome.episodes);
        assert_eq!(report.episodes.len(), 8 - skips.len(), "{bare}");
        for e in &report.episodes {
            assert!(e.error.is_none(), "{bare} {}: {e:#?}", e.task);
            if lacks.contains(&e.task.as_str()) {
                let refused = e
                    .step_log
                    .iter()
                    .find(|s| s.outcome == StepOutcome::Invalid);
                let message = refused
                    .and_then(|s| s.message.as_deref())
                    .unwrap_or_default();
                let key = e.task.replace('-', "_");
                assert!(
                    message.contains(&format!("mcp:{bare} has no tool for {key}")),
                    "{bare} {}: {:#?}",
                    e.task,
                    e.step_log
                );
                continue;
            }
            if fails.contains(&e.task.as_str()) {
                assert!(!e.success, "{bare} {}: {:#?}", e.task, e.step_log);
                continue;
            }
            assert!(
                e.success,
                "{bare} {}: the page did not report success ({:?}; ended by {:?}): {:#?}",
                e.task, e.reason, e.ended_by, e.step_log
            );
            assert!(
                e.step_log
                    .iter()
                    .all(|s| matches!(s.outcome, StepOutcome::Ok | StepOutcome::Done)),
                "{bare} {}: {:#?}",
                e.task,
                e.step_log
            );
            if e.task == "dialog" || e.task == "dialog-keep" {
                // The click, the dialog's answer, done.
                let ops: Vec<Op> = e
                    .step_log
                    .iter()
                    .filter_map(|s| s.action.as_ref().map(|a| a.op))
                    .collect();
                assert_eq!(ops, [Op::Click, Op::Dialog, Op::Done], "{bare}");
            }
        }
    }
}
