//! External strategies end to end: both Playwright adapters give refs that click the labelled button they name (main document, shadow DOM, iframe), a user's own program names refs by CSS selector, broken programs (one exits, one hangs, one answers garbage) become error rows of a run that completes, and a MiniWoB++ mini-suite runs `ext:playwright-aria` and `ext:playwright-ai` beside `aria` with reports marking them external.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use pagesnap_browser::{self as capture, Chromium, OpenOptions, Outcome, UserAction};
use pagesnap_harness::external::{self, Program};
use pagesnap_harness::live::server::Server;
use serde_json::Value;

use crate::support::{
    forgot_password_suite, install_playwright, pagesnap, read_json, require_tool, result_rows,
    root, stderr,
};

fn setup() {
    require_tool("node");
    require_tool("npm");
    install_playwright(&root().join("scripts/playwright"));
}

/// Records the button a click reached (its `aria-label`, else its text) in
/// the top window, in every same-origin document, through shadow roots, and
/// stops the click's default action (a form submit would reload the page).
const LISTENER: &str = r#"(() => {
  const listen = (doc) => doc.addEventListener('click', (e) => {
    const button = e.composedPath().find((n) => n.tagName === 'BUTTON');
    window.top.__clicked = button ? (button.getAttribute('aria-label') || button.textContent.trim()) : '(no button)';
    e.preventDefault();
  }, true);
  listen(document);
  for (const frame of document.querySelectorAll('iframe')) if (frame.contentDocument) listen(frame.contentDocument);
  return true;
})()"#;

/// (page, button name) per adapter. `playwright-aria` cannot see into the
/// iframe (Playwright's default mode shows `- iframe`), so it clicks a
/// button beside it; `playwright-ai` clicks the one inside (`[ref=f1e…]`),
/// also in a frame from another site (out of process), whose ref names its frame.
const CASES: &[(&str, &str, &str)] = &[
    ("playwright-aria", "login/index.html", "Sign in"),
    ("playwright-aria", "shadow_dom/index.html", "Dismiss notice"),
    ("playwright-aria", "iframe_form/index.html", "Apply voucher"),
    ("playwright-ai", "login/index.html", "Sign in"),
    ("playwright-ai", "shadow_dom/index.html", "Dismiss notice"),
    ("playwright-ai", "iframe_form/index.html", "Pay"),
    ("playwright-ai", "iframe_form/cross.html", "Pay"),
];

#[test]
fn adapter_refs_click_the_labelled_button_they_name() {
    setup();
    let server = Server::start(&root().join("fixtures/sites")).unwrap();
    capture::runtime().unwrap().block_on(async {
        let chromium = Chromium::launch(false).await.unwrap();
        let ws = chromium.websocket_url().to_owned();
        for adapter in ["playwright-aria", "playwright-ai"] {
            let name = format!("ext:{adapter}");
            let spec = external::named(&name, &[], Duration::from_secs(30)).unwrap();
            let mut program = Program::new(Arc::new(spec), &ws);
            for (_, site, button) in CASES.iter().filter(|(a, _, _)| *a == adapter) {
                let url = server.url(site);
                let session = chromium.open(&url, &OpenOptions::default()).await.unwrap();
                session.eval(LISTENER).await.unwrap();
                let observed = external::observe(&mut program, &session, &ws, 1, (1280, 720))
                    .await
                    .unwrap_or_else(|err| panic!("{name} on {site}: {err:#}"));
                let observation = &observed.observation;
                let wanted = format!("button {button:?}");
                let line = observation
                    .text
                    .lines()
                    .find(|l| l.trim_start().trim_start_matches("- ").starts_with(&wanted))
                    .unwrap_or_else(|| {
                        panic!(
                            "{name} on {site}: no {wanted} line in\n{}",
                            observation.text
                        )
                    });
                let reference = line
                    .split("[ref=")
                    .nth(1)
                    .and_then(|rest| rest.split(']').next())
                    .unwrap_or_else(|| panic!("{name} on {site}: {line:?} has no ref"));
                let item = observation
                    .meta
                    .items
                    .iter()
                    .find(|i| i.reference == reference)
                    .unwrap_or_else(|| panic!("{name} on {site}: ref {reference} did not resolve"));
                assert_eq!(
                    (item.role.as_str(), item.name.as_str()),
                    ("button", *button),
                    "{name} on {site}: ref {reference}"
                );
                let outcome = session
                    .perform(&UserAction::click(item.backend_id))
                    .await
                    .unwrap();
                assert!(
                    matches!(outcome, Outcome::Done { .. }),
                    "{name} on {site}: {outcome:?}"
                );
                if site.ends_with("cross.html") {
                    // The page cannot see into the frame: the frame tells it it was submitted.
                    assert!(pagesnap_browser::split_key(item.backend_id).0 > 0);
                    let told = session
                        .eval(
                            "new Promise((done) => { const t = Date.now(); (function poll() { \
                             const s = document.getElementById('payment-status').textContent; \
                             if (s || Date.now() - t > 5000) done(s); else setTimeout(poll, 20); })(); })",
                        )
                        .await
                        .unwrap();
                    assert!(
                        told.as_str().is_some_and(|s| s.starts_with("Payment submitted")),
                        "{name} on {site}: {told}"
                    );
                } else {
                    let clicked = session.eval("window.__clicked").await.unwrap();
                    assert_eq!(
                        clicked,
                        Value::String((*button).to_owned()),
                        "{name} on {site}: ref {reference} clicked another element"
                    );
                }
                assert_eq!(observed.step.unresolved, 0, "{name} on {site}");
                session.close().await;
            }
            assert_eq!(
                program.starts(),
                1,
                "{name} was started once for every page"
            );
            program.stop().await;
        }
        chromium.close().await.unwrap();
    });
}

fn write_suite(dir: &Path, body: &str) -> String {
    let path = dir.join("suite.toml");
    std::fs::write(&path, body).unwrap();
    path.display().to_string()
}

#[test]
fn broken_programs_are_error_rows_and_the_run_completes() {
    let dir = tempfile::tempdir().unwrap();
    let suite = forgot_password_suite(dir.path(), "broken");
    let suite = suite.to_str().unwrap();
    let out = dir.path().join("out");
    // Each answers its hello, then: exits, never answers, or answers garbage.
    let ready = r#"read l; echo '{"ready": true}'"#;
    let exits = format!("exits={ready}; read l; echo dying >&2; exit 3");
    let hangs = format!("hangs={ready}; sleep 600");
    let garbage = format!("garbage={ready}; while read l; do echo 'not json {{'; done");
    let output = pagesnap(&[
        "live",
        "--suite",
        suite,
        "--strategy",
        "ext:exits,ext:hangs,ext:garbage,aria",
        "--external",
        &exits,
        "--external",
        &hangs,
        "--external",
        &garbage,
        "--external-timeout",
        "2",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let rows = result_rows(&out);
    assert_eq!(rows.len(), 8, "two episodes per strategy");
    let error_of = |strategy: &str| -> Vec<String> {
        rows.iter()
            .filter(|e| e["strategy"] == strategy)
            .map(|e| {
                assert_eq!(e["ended_by"], "error", "{e}");
                e["error"].as_str().unwrap().to_owned()
            })
            .collect()
    };
    for error in error_of("ext:exits") {
        assert!(
            error.contains("external strategy ext:exits")
                && error.contains("exited at step 1 of http://127.0.0.1:")
                && error.contains("exit status: 3")
                && error.contains("stderr: dying"),
            "{error}"
        );
    }
    for error in error_of("ext:hangs") {
        assert!(
            error.contains("ext:hangs")
                && error.contains("did not answer at step 1")
                && error.contains("2.0 s"),
            "{error}"
        );
    }
    // Both episodes: the program was restarted after the first garbage answer.
    for error in error_of("ext:garbage") {
        assert!(
            error.contains("ext:garbage")
                && error.contains("malformed answer")
                && error.contains("not json {"),
            "{error}"
        );
    }
    for e in rows.iter().filter(|e| e["strategy"] == "aria") {
        assert!(e["error"].is_null(), "{e}");
        assert_eq!(e["success"], true, "{e}");
    }
    let summary = read_json(&out.join("summary.json"));
    let text = summary.to_string();
    assert!(text.contains("\"external\":true"), "{text}");
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        report.contains("| ext:hangs \\(external\\) | 2 |"),
        "{report}"
    );
}

/// A MiniWoB++ suite of three one- or two-action tasks, two seeds each.
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
id = "click-checkboxes"
page = "click-checkboxes"
tier = "medium"

[[task]]
id = "enter-text"
page = "enter-text"
tier = "medium"
"#;

#[test]
fn miniwob_mini_suite_runs_playwright_beside_aria() {
    setup();
    let dir = tempfile::tempdir().unwrap();
    let suite = write_suite(dir.path(), MINI);
    let out = dir.path().join("out");
    let output = pagesnap(&[
        "live",
        "--suite",
        &suite,
        "--strategy",
        "ext:playwright-aria,ext:playwright-ai,aria",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let rows = result_rows(&out);
    assert_eq!(rows.len(), 18);
    for e in &rows {
        assert!(e["error"].is_null(), "{e}");
        let external = e["strategy"].as_str().unwrap().starts_with("ext:");
        for step in e["step_log"].as_array().unwrap() {
            assert_eq!(step["external"].is_object(), external, "{step}");
            if external {
                assert!(step["external"]["refs"].as_u64().unwrap() > 0, "{step}");
                assert_eq!(step["external"]["unresolved"], 0, "{step}");
            }
        }
    }
    // The page decides: every strategy's button click and text entry reach it.
    for strategy in ["ext:playwright-aria", "ext:playwright-ai", "aria"] {
        for task in ["click-button", "enter-text"] {
            for e in rows
                .iter()
                .filter(|e| e["strategy"] == strategy && e["task"] == task)
            {
                assert_eq!(e["success"], true, "{strategy} {task}: {e}");
            }
        }
    }
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    for wanted in [
        "| ext:playwright-aria \\(external\\) | 6 |",
        "| ext:playwright-ai \\(external\\) | 6 |",
        "| ext:playwright-aria \\(external\\) | aria | 6 |",
        "## External strategies: refs and protocol cost",
    ] {
        assert!(report.contains(wanted), "{wanted:?} not in\n{report}");
    }
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    for wanted in [
        "<td>ext:playwright-ai (external)</td>",
        "<h2>External strategies</h2>",
    ] {
        assert!(html.contains(wanted), "{wanted:?} not in report.html");
    }
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    assert!(csv.contains(",ext:playwright-aria,"), "{csv}");
}

/// A user's own program through `--external`: its refs by CSS selector and
/// by a backend node id that names nothing are resolved on pagesnap's
/// capture (the first counted as a ref with pagesnap's metadata, the second
/// dropped), and `snapshot` prints its text and meta.
#[test]
fn a_user_program_names_refs_by_selector() {
    let answer = r##"{"text": "- button \"Sign in\" [ref=s1]\n- link \"nowhere\" [ref=s2]", "refs": {"s1": {"selector": "form #sign-in"}, "s2": {"backendNodeId": 999999}}, "observe_ms": 1.5}"##;
    let program = format!(
        "mine=read l; echo '{{\"ready\": true, \"about\": \"a test\"}}'; read l; printf '%s\\n' '{answer}'; read l"
    );
    let output = pagesnap(&[
        "snapshot",
        "fixtures/sites/login/index.html",
        "--strategy",
        "ext:mine",
        "--external",
        &program,
        "--meta",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let meta: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(meta["strategy"], "ext:mine");
    let items = meta["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{meta}");
    assert_eq!(items[0]["ref"], "s1");
    assert_eq!(items[0]["role"], "button");
    assert_eq!(items[0]["name"], "Sign in");
    assert!(items[0]["backendId"].as_u64().unwrap() > 0);
    let text = pagesnap(&[
        "snapshot",
        "fixtures/sites/login/index.html",
        "--strategy",
        "ext:mine",
        "--external",
        &program,
    ]);
    assert!(text.status.success(), "{}", stderr(&text));
    assert_eq!(
        String::from_utf8_lossy(&text.stdout),
        "- button \"Sign in\" [ref=s1]\n- link \"nowhere\" [ref=s2]"
    );
    let refused = pagesnap(&[
        "snapshot",
        "fixtures/login/initial.json.gz",
        "--strategy",
        "ext:mine",
    ]);
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains("needs a live page"),
        "{}",
        stderr(&refused)
    );
    let dir = tempfile::tempdir().unwrap();
    let offline = pagesnap(&[
        "run",
        "--suite",
        "suites/smoke.toml",
        "--strategy",
        "aria,ext:playwright-aria",
        "--out",
        dir.path().join("run").to_str().unwrap(),
    ]);
    assert!(!offline.status.success());
    assert!(
        stderr(&offline).contains("ext:playwright-aria: external strategies need a live page"),
        "{}",
        stderr(&offline)
    );
}
