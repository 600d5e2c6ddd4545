//! `pagesnap live` end to end in headless Chromium: MiniWoB++ rewards read both ways with scripted agents, covered clicks and stale refs as error observations, a fixture task's predicate, trace → suite → replay, resume after SIGKILL, and the LLM judge's calibration through a cassette.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use pagesnap_engine::strategy;
use pagesnap_harness::agent::{Action, Agent, Op, Request, Response};
use pagesnap_harness::live;
use pagesnap_harness::observer::Observer;
use pagesnap_harness::progress;
use pagesnap_harness::report::live::LiveReport;
use pagesnap_harness::results::EndedBy;
use pagesnap_harness::results::Episode;
use pagesnap_harness::results::StepOutcome;
use pagesnap_harness::suite::live::{LiveSuite, load};
use serde_json::{Value, json};

use crate::support::http::{self, Reply};
use crate::support::{pagesnap, read_json, root, stderr, stdout, without_timing};

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
id = "click-link"
page = "click-link"
tier = "easy"

[[task]]
id = "enter-text"
page = "enter-text"
tier = "medium"
"#;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn config<'a>(
    suite: &'a LiveSuite,
    agent: &'a dyn Agent,
    out: &Path,
    strategies: &[&str],
) -> live::Config<'a> {
    let observers = strategies
        .iter()
        .map(|s| Observer::Engine(strategy::by_name(s).unwrap()))
        .collect();
    config_observing(suite, agent, out, observers)
}

/// A one-worker, quiet run of `suite` with `observers`, uploads from the
/// test's working folder (the crate's, which holds Cargo.toml).
pub(crate) fn config_observing<'a>(
    suite: &'a LiveSuite,
    agent: &'a dyn Agent,
    out: &Path,
    observers: Vec<Observer>,
) -> live::Config<'a> {
    live::Config {
        suite,
        suite_path: PathBuf::from("suite.toml"),
        strategies: observers,
        agent,
        judge: None,
        judge_spec: "rule".to_owned(),
        episodes: None,
        seed: None,
        max_steps: None,
        jobs: 1,
        out: out.to_path_buf(),
        resume: false,
        progress: progress::Mode::Quiet,
        open: pagesnap_browser::OpenOptions::default(),
        network: false,
        dialogs: pagesnap_browser::DialogPolicy::Ask,
        uploads: std::env::current_dir().unwrap(),
        shard: None,
        endpoints: Vec::new(),
    }
}

fn respond(action: Action) -> anyhow::Result<Response> {
    Ok(Response {
        raw: serde_json::to_string(&action).unwrap(),
        action: Some(action),
        ..Response::default()
    })
}

fn act(op: Op, reference: Option<&str>, value: Option<&str>) -> Action {
    Action {
        op,
        reference: reference.map(str::to_owned),
        value: value.map(str::to_owned),
    }
}

/// The text in double quotes of a MiniWoB utterance (`Click on the "Ok" button.`).
fn quoted(instruction: &str) -> String {
    instruction.split('"').nth(1).unwrap_or_default().to_owned()
}

/// Solves click-button, click-link and enter-text from the refs' meta, or —
/// `wrong` — clicks an element that is not the one asked for.
struct Scripted {
    wrong: bool,
}

impl Agent for Scripted {
    fn name(&self) -> String {
        if self.wrong {
            "scripted-wrong"
        } else {
            "scripted"
        }
        .to_owned()
    }

    fn act(&self, request: &Request<'_>) -> anyhow::Result<Response> {
        let want = quoted(request.instruction);
        if request.instruction.starts_with("Enter") && !self.wrong {
            if request.history.is_empty() {
                let field = request.refs.iter().find(|i| i.role == "textbox").unwrap();
                return respond(act(Op::Type, Some(&field.reference), Some(&want)));
            }
            let submit = request.refs.iter().find(|i| i.name == "Submit").unwrap();
            return respond(act(Op::Click, Some(&submit.reference), None));
        }
        // MiniWoB's links are spans without a name: their text follows the
        // ref on the observation's line (`- text [ref=e4]: Eget`).
        let text_of = |reference: &str| {
            request
                .observation
                .lines()
                .find(|l| l.contains(&format!("[ref={reference}]")))
                .and_then(|l| l.rsplit(": ").next())
                .unwrap_or("")
                .trim()
                .to_owned()
        };
        let target = request.refs.iter().find(|i| {
            let shown = if i.name.is_empty() {
                text_of(&i.reference)
            } else {
                i.name.clone()
            };
            let clickable = i.role == "button" || i.role == "generic" || i.role == "link";
            clickable && !shown.is_empty() && ((shown == want) != self.wrong)
        });
        let target = match target {
            Some(target) => target,
            // Nothing else to click (a one-button page): stop without the answer.
            None if self.wrong => return respond(act(Op::Done, None, None)),
            None => panic!("no target for {want:?} in {}", request.observation),
        };
        respond(act(Op::Click, Some(&target.reference), None))
    }
}

#[test]
fn miniwob_rewards_are_read_both_ways_with_scripted_agents() {
    let dir = tempfile::tempdir().unwrap();
    let suite = load(&write(dir.path(), "mini.toml", MINI)).unwrap();
    let right = Scripted { wrong: false };
    let outcome = live::run(&config(
        &suite,
        &right,
        &dir.path().join("right"),
        &["aria"],
    ))
    .unwrap();
    let report = LiveReport::build(outcome.manifest, outcome.episodes);
    let episodes = &report.episodes;
    assert_eq!(episodes.len(), 6);
    for e in episodes {
        assert!(
            e.success && e.raw_reward > 0.0 && e.ended_by == EndedBy::Page,
            "{} episode {} should succeed: {e:?}",
            e.task,
            e.episode
        );
        assert!(e.instruction.contains('"'), "the utterance is read: {e:?}");
    }
    // The seeds give different problems.
    assert_ne!(episodes[0].instruction, episodes[1].instruction);
    let wrong = Scripted { wrong: true };
    let click_only = LiveSuite {
        tasks: suite
            .tasks
            .iter()
            .filter(|t| t.id != "enter-text")
            .cloned()
            .collect(),
        ..suite.clone()
    };
    let outcome = live::run(&config(
        &click_only,
        &wrong,
        &dir.path().join("wrong"),
        &["aria"],
    ))
    .unwrap();
    let report = LiveReport::build(outcome.manifest, outcome.episodes);
    assert_eq!(report.episodes.len(), 4);
    for e in &report.episodes {
        assert!(
            !e.success && e.raw_reward <= 0.0,
            "{} episode {} should fail: {e:?}",
            e.task,
            e.episode
        );
    }
    // A wrong click ends the episode on the page with MiniWoB's −1.
    let refused = report
        .episodes
        .iter()
        .filter(|e| e.ended_by == EndedBy::Page && e.raw_reward == -1.0)
        .count();
    assert!(refused >= 3, "{:#?}", report.episodes);
    let summary = &report.summaries[0];
    assert_eq!(summary.success_rate.value, 0.0);
}

/// Clicks by name, in order: `Go` (covered by a transparent layer), `Remove
/// layer`, `Arm` (the page then waits on the [`Signals`] server to remove
/// `Vanish`), then — having released the page and heard it removed `Vanish`,
/// which its observation still shows — `Vanish`, then `Go`, then done.
/// Records the feedback each step showed.
struct Obstacles {
    seen: Mutex<Vec<Option<String>>>,
    signals: Signals,
}

/// A 127.0.0.1 server the obstacles page talks to, so the test knows what
/// the page did without waiting a guessed time: `GET /wait` is answered once
/// the test releases it, `GET /removed` tells the test the page removed `Vanish`.
struct Signals {
    port: u16,
    release: std::sync::mpsc::Sender<()>,
    removed: Mutex<std::sync::mpsc::Receiver<()>>,
}

impl Signals {
    fn start() -> Signals {
        let (release, released) = std::sync::mpsc::channel::<()>();
        let (tell, removed) = std::sync::mpsc::channel::<()>();
        let (released, tell) = (Mutex::new(released), Mutex::new(tell));
        let server = http::Server::start(move |request| {
            if request.path == "/wait" {
                let _ = released
                    .lock()
                    .unwrap()
                    .recv_timeout(Duration::from_secs(60));
            } else if request.path == "/removed" {
                let _ = tell.lock().unwrap().send(());
            }
            Reply::empty_for_pages()
        });
        Signals {
            port: server.port,
            release,
            removed: Mutex::new(removed),
        }
    }

    /// Lets the page remove `Vanish` and returns once it has.
    fn remove_vanish(&self) {
        self.release.send(()).unwrap();
        self.removed
            .lock()
            .unwrap()
            .recv_timeout(Duration::from_secs(30))
            .expect("the page never said it removed Vanish");
    }
}

impl Agent for Obstacles {
    fn name(&self) -> String {
        "obstacles".to_owned()
    }

    fn act(&self, request: &Request<'_>) -> anyhow::Result<Response> {
        self.seen
            .lock()
            .unwrap()
            .push(request.feedback.map(str::to_owned));
        let plan = ["Go", "Remove layer", "Arm", "Vanish", "Go"];
        let Some(name) = plan.get(request.history.len()) else {
            return respond(act(Op::Done, None, None));
        };
        if *name == "Vanish" {
            // This observation, taken after the click on `Arm`, still shows
            // `Vanish`; the page removes it now, before the click.
            self.signals.remove_vanish();
        }
        let item = request
            .refs
            .iter()
            .find(|i| i.name == *name)
            .unwrap_or_else(|| panic!("no {name:?} in {:?}", request.refs));
        respond(act(Op::Click, Some(&item.reference), None))
    }
}

const OBSTACLES: &str = r#"<!DOCTYPE html>
<html><head><title>start</title><style>
  body { font: 16px sans-serif; margin: 40px }
  button { display: block; margin: 20px 0; width: 160px; height: 40px }
  #layer { position: absolute; left: 30px; top: 30px; width: 200px; height: 70px; z-index: 5 }
</style></head><body>
<button id="go" onclick="document.title = 'clicked'">Go</button>
<div id="layer"></div>
<button onclick="document.getElementById('layer').remove()">Remove layer</button>
<button onclick="fetch('http://127.0.0.1:PORT/wait').then(() => { document.getElementById('vanish').remove(); return fetch('http://127.0.0.1:PORT/removed'); })">Arm</button>
<button id="vanish">Vanish</button>
</body></html>
"#;

#[test]
fn covered_clicks_and_stale_refs_are_error_observations() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("site")).unwrap();
    let signals = Signals::start();
    write(
        &dir.path().join("site"),
        "index.html",
        &OBSTACLES.replace("PORT", &signals.port.to_string()),
    );
    let suite = load(&write(
        dir.path(),
        "s.toml",
        "[suite]\nname = \"obstacles\"\nsource = \"site\"\n\n[[task]]\nid = \"go\"\npage = \"index.html\"\ninstruction = \"Click Go\"\nsuccess = \"document.title === 'clicked'\"\nmax_steps = 7\n",
    ))
    .unwrap();
    let agent = Obstacles {
        seen: Mutex::new(Vec::new()),
        signals,
    };
    let outcome = live::run(&config(&suite, &agent, &dir.path().join("out"), &["aria"])).unwrap();
    let report = LiveReport::build(outcome.manifest, outcome.episodes);
    let e = &report.episodes[0];
    let outcomes: Vec<&str> = e.step_log.iter().map(|s| s.outcome.name()).collect();
    assert_eq!(
        outcomes,
        ["covered", "ok", "ok", "stale", "ok", "done"],
        "{e:#?}"
    );
    assert_eq!((e.covered, e.stale, e.action_errors), (1, 1, 2));
    assert!(e.success, "Go was clicked once the layer was gone: {e:?}");
    assert_eq!(e.ended_by, EndedBy::Agent);
    let seen = agent.seen.lock().unwrap();
    let covered = seen[1].as_deref().unwrap();
    assert!(
        covered.contains("covered") && covered.contains("<div id=\"layer\">"),
        "{covered}"
    );
    assert_eq!(seen[2], None, "a click that ran gets no error");
    assert_eq!(seen[3], None);
    assert!(
        seen[4].as_deref().unwrap().contains("no longer exists"),
        "{seen:?}"
    );
    assert!(seen[5].is_none());
    // The first click never reached Go: the covered attempt did not count.
    assert_eq!(e.step_log[0].element.as_deref(), Some("button \"Go\""));
}

/// Acts on refs of the observation in ways the browser refuses, one of each
/// kind the obstacles test does not reach, then says done.
struct Refusals;

impl Agent for Refusals {
    fn name(&self) -> String {
        "refusals".to_owned()
    }

    fn act(&self, request: &Request<'_>) -> anyhow::Result<Response> {
        let plan = [
            (Op::Click, "Ghost", None),
            (Op::Type, "Plain", Some("x")),
            (Op::Select, "Plain", Some("France")),
            (Op::Select, "Country", Some("Atlantis")),
            (Op::Press, "Name", Some("Hyper")),
        ];
        let Some((op, name, value)) = plan.get(request.history.len()) else {
            return respond(act(Op::Done, None, None));
        };
        let item = request
            .refs
            .iter()
            .find(|i| i.name == *name)
            .unwrap_or_else(|| panic!("no {name:?} in {:?}", request.refs));
        respond(act(*op, Some(&item.reference), *value))
    }
}

#[test]
fn every_refused_action_is_its_own_outcome_and_counted_from_the_step_log() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("site")).unwrap();
    write(
        &dir.path().join("site"),
        "index.html",
        r#"<!DOCTYPE html><html><head><title>start</title></head><body>
<button style="display:contents">Ghost</button>
<button>Plain</button>
<select aria-label="Country"><option>France</option><option>Germany</option></select>
<input aria-label="Name">
</body></html>"#,
    );
    let suite = load(&write(
        dir.path(),
        "s.toml",
        "[suite]\nname = \"refusals\"\nsource = \"site\"\n\n[[task]]\nid = \"refuse\"\npage = \"index.html\"\ninstruction = \"Try\"\nsuccess = \"false\"\nmax_steps = 8\n",
    ))
    .unwrap();
    let outcome = live::run(&config(
        &suite,
        &Refusals,
        &dir.path().join("out"),
        &["aria"],
    ))
    .unwrap();
    let e = &outcome.episodes[0];
    let outcomes: Vec<&str> = e.step_log.iter().map(|s| s.outcome.name()).collect();
    assert_eq!(
        outcomes,
        [
            "hidden",
            "not-editable",
            "not-select",
            "no-option",
            "unknown-key",
            "done"
        ],
        "{e:#?}"
    );
    // Each refusal tells the agent what went wrong, in words of its own.
    let messages: Vec<&str> = e.step_log[..5]
        .iter()
        .map(|s| s.message.as_deref().unwrap())
        .collect();
    for (message, word) in
        messages
            .iter()
            .zip(["visible", "text field", "<select>", "Atlantis", "Hyper"])
    {
        assert!(message.contains(word), "{word:?} in {message:?}");
    }
    assert_eq!(
        (
            e.action_errors,
            e.covered,
            e.stale,
            e.invalid,
            e.hallucinated,
            e.faults
        ),
        (5, 0, 0, 0, 0, 0)
    );
    assert!(!e.success);
}

/// The shipped live suites load — a bad tag or field fails here, not in
/// `scripts/main` — with the task counts the docs give.
#[test]
fn shipped_live_suites_load_with_their_documented_counts() {
    let miniwob = load(&root().join("suites/miniwob.toml")).unwrap();
    assert_eq!(miniwob.tasks.len(), 110);
    let fixtures = load(&root().join("suites/live-fixtures.toml")).unwrap();
    assert_eq!(fixtures.tasks.len(), 46);
}

/// Says done at once, leaving the page as it loaded.
struct Quits;

impl Agent for Quits {
    fn name(&self) -> String {
        "quits".to_owned()
    }

    fn act(&self, _: &Request<'_>) -> anyhow::Result<Response> {
        respond(act(Op::Done, None, None))
    }
}

#[test]
fn fixture_tasks_are_decided_by_their_predicate() {
    let dir = tempfile::tempdir().unwrap();
    let path = root().join("suites/live-fixtures.toml");
    let mut suite = load(&path).unwrap();
    assert!(suite.tasks.len() >= 15, "at least 15 fixture tasks");
    suite
        .tasks
        .retain(|t| t.id == "login-forgot-password" || t.id == "cookie-reject-privacy");
    assert_eq!(suite.tasks.len(), 2);
    let baseline = pagesnap_harness::agent::baseline::Baseline;
    let outcome = live::run(&config(&suite, &baseline, &dir.path().join("a"), &["aria"])).unwrap();
    let report = LiveReport::build(outcome.manifest, outcome.episodes);
    for e in &report.episodes {
        assert!(e.success, "{}: {e:#?}", e.task);
        assert_eq!(e.reason.as_deref(), Some("true"));
    }
    // An agent that stops at once leaves the page as it loaded: the predicate says no.
    let outcome = live::run(&config(&suite, &Quits, &dir.path().join("b"), &["aria"])).unwrap();
    let report = LiveReport::build(outcome.manifest, outcome.episodes);
    for e in &report.episodes {
        assert!(!e.success && e.ended_by == EndedBy::Agent, "{e:?}");
    }
}

/// Dialogs are the agent's to answer: the baseline reads each one and
/// answers as the instruction says, and the pages report what the answers
/// did. Under `--dialogs accept` the keep-the-changes task cannot be done
/// (the policy said yes before the agent saw the question); an agent that
/// stops with a dialog open leaves the task undone, said so.
#[test]
fn dialogs_are_shown_to_the_agent_and_answered_by_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut suite = load(&root().join("suites/live-fixtures.toml")).unwrap();
    suite.tasks.retain(|t| t.id.starts_with("dialogs-"));
    assert_eq!(suite.tasks.len(), 4);
    let baseline = pagesnap_harness::agent::baseline::Baseline;
    let outcome = live::run(&config(
        &suite,
        &baseline,
        &dir.path().join("ask"),
        &["aria"],
    ))
    .unwrap();
    let report = LiveReport::build(outcome.manifest, outcome.episodes);
    for e in &report.episodes {
        assert!(e.success, "{}: {e:#?}", e.task);
        assert!(
            e.step_log
                .iter()
                .any(|s| s.action.as_ref().is_some_and(|a| a.op == Op::Dialog)),
            "{}: the agent answered a dialog: {e:#?}",
            e.task
        );
    }

    suite.tasks.retain(|t| t.id == "dialogs-keep-changes");
    let accepting = live::Config {
        dialogs: pagesnap_browser::DialogPolicy::Accept,
        ..config(&suite, &baseline, &dir.path().join("accept"), &["aria"])
    };
    let outcome = live::run(&accepting).unwrap();
    let report = LiveReport::build(outcome.manifest, outcome.episodes);
    let kept = &report.episodes[0];
    assert!(
        !kept.success,
        "--dialogs accept discarded the changes: {kept:#?}"
    );

    let mut welcome = load(&root().join("suites/live-fixtures.toml")).unwrap();
    welcome
        .tasks
        .retain(|t| t.id == "dialogs-welcome-then-reports");
    let outcome = live::run(&config(
        &welcome,
        &Quits,
        &dir.path().join("quits"),
        &["aria"],
    ))
    .unwrap();
    let report = LiveReport::build(outcome.manifest, outcome.episodes);
    let left = &report.episodes[0];
    assert!(!left.success, "{left:#?}");
    assert!(
        left.reason
            .as_deref()
            .is_some_and(|r| r.contains("alert dialog") && r.contains("unanswered")),
        "{left:#?}"
    );
}

/// Follows a plan per task: each step an op on the element named so (a
/// drag's value names the drop target, turned into its ref), then done.
struct Plan;

/// One step of a [`Plan`]: the op, the element's name, the value.
type Step = (Op, Option<&'static str>, Option<&'static str>);

impl Plan {
    fn steps(instruction: &str) -> &'static [Step] {
        match instruction {
            "drag" => &[(Op::Drag, Some("Write report"), Some("Done"))],
            "drop-target" => &[(Op::Drag, Some("Write report"), Some("In progress"))],
            "hover" => &[
                (Op::Hover, Some("Account"), None),
                (Op::Click, Some("Sign out"), None),
            ],
            "hover-css" => &[
                (Op::Hover, Some("My account"), None),
                (Op::Click, Some("Sign out"), None),
            ],
            "hover-script" => &[(Op::Hover, Some("English"), None)],
            "hover-attribute" => &[(Op::Hover, Some("Help"), None)],
            "dblclick" => &[(Op::Dblclick, Some("Quarterly report.docx"), None)],
            "upload" => &[(Op::Upload, Some("Résumé (PDF)"), Some("Cargo.toml"))],
            "wait" => &[
                (Op::Click, Some("Search"), None),
                (Op::Wait, None, Some("3 results found")),
            ],
            "point" => &[(Op::ClickAt, None, Some("200,240"))],
            // Twelve default scrolls down a feed that loads on a sentinel.
            "feed" => &[(Op::Scroll, None, None); 12],
            // Nine scrolls right across a carousel of ten slides, two in view.
            "carousel" => &[(Op::Scroll, Some("Featured"), Some("right")); 9],
            "virtual-list" => &[
                (Op::Scroll, Some("Orders"), None),
                (Op::Scroll, Some("Orders"), None),
                (Op::Scroll, Some("Orders"), None),
                (Op::Scroll, Some("Orders"), None),
                (Op::Click, Some("Open order 33"), None),
            ],
            "date" => &[(Op::Type, Some("Departure"), Some("2026-12-24"))],
            "slider" => &[(Op::Type, Some("Volume"), Some("70"))],
            "custom-slider" => &[(Op::Type, Some("Zoom"), Some("70"))],
            "right-click" => &[
                (Op::Click, Some("Notes.txt"), Some("right")),
                (Op::Click, Some("Delete"), None),
            ],
            "control-click" => &[
                (Op::Click, Some("Budget.xlsx"), None),
                (Op::Click, Some("Photo.jpg"), Some("Control")),
            ],
            other => panic!("no plan for {other:?}"),
        }
    }
}

impl Agent for Plan {
    fn name(&self) -> String {
        "plan".to_owned()
    }

    fn act(&self, request: &Request<'_>) -> anyhow::Result<Response> {
        let Some((op, name, value)) = Plan::steps(request.instruction).get(request.history.len())
        else {
            return respond(act(Op::Done, None, None));
        };
        let ref_of = |name: &str| {
            let refs = || request.refs.iter();
            // A nameless target (a hover menu's `<span>`) by its own text,
            // else by the text its line shows (`text [ref=e2]: Write report`).
            refs()
                .find(|i| i.name == name || (i.name.is_empty() && i.context.starts_with(name)))
                .map(|i| i.reference.clone())
                .or_else(|| {
                    refs()
                        .find(|i| {
                            request
                                .observation
                                .contains(&format!("[ref={}]: {name}", i.reference))
                        })
                        .map(|i| i.reference.clone())
                })
                .unwrap_or_else(|| panic!("no {name:?} in {}", request.observation))
        };
        let reference = name.map(ref_of);
        let value = match op {
            Op::Drag => value.map(ref_of),
            _ => value.map(str::to_owned),
        };
        respond(act(*op, reference.as_deref(), value.as_deref()))
    }
}

/// The new actions run in live episodes as the agents name them — drag,
/// a card dragged onto a column that only its drop listeners make a target,
/// twelve scrolls down a feed that loads as its end comes into view,
/// scrolls right across a carousel and down a virtualized list,
/// hover then click (on a button with a listener, and on targets that only
/// a `:hover` rule, a script's listener or a handler attribute makes one),
/// double click, upload (from the working folder), wait
/// for a text, a click at a point, a date and a slider set by value, a
/// custom slider dragged (its page listens to the pointer only), a
/// right click into the page's own menu, a Control-click that adds to a
/// selection — each decided by what the page shows.
/// Without its action each task stays undone: the wait task's results come
/// 2.5 s after the click, after an agent that stops at once has ended.
#[test]
fn every_new_action_runs_in_live_episodes() {
    let dir = tempfile::tempdir().unwrap();
    let sites = root().join("fixtures/sites");
    let task = |id: &str, page: &str, success: &str| {
        format!(
            "[[task]]\nid = \"{id}\"\npage = \"actions/{page}\"\ninstruction = \"{id}\"\nsuccess = \"\"\"{success}\"\"\"\nmax_steps = 4\n\n"
        )
    };
    let mut text = format!(
        "[suite]\nname = \"actions\"\nsource = \"{}\"\n\n",
        sites.display()
    );
    for (id, page, success) in [
        (
            "drag",
            "board.html",
            "document.getElementById('done')?.textContent.includes('Write report')",
        ),
        (
            "hover",
            "hover.html",
            "document.getElementById('status')?.textContent === 'signed-out'",
        ),
        (
            "hover-css",
            "hover-css.html",
            "document.getElementById('status')?.textContent === 'signed-out'",
        ),
        (
            "hover-script",
            "hover-css.html",
            "document.getElementById('status')?.textContent === 'languages-shown'",
        ),
        (
            "hover-attribute",
            "hover-css.html",
            "document.getElementById('status')?.textContent === 'tip-shown'",
        ),
        (
            "dblclick",
            "dblclick.html",
            "document.getElementById('status')?.textContent.startsWith('opened')",
        ),
        (
            "upload",
            "upload.html",
            "document.getElementById('resume')?.files?.[0]?.name === 'Cargo.toml'",
        ),
        (
            "wait",
            "wait.html",
            "document.body.innerText.includes('3 results found')",
        ),
        (
            "point",
            "point.html",
            "document.getElementById('status')?.textContent.startsWith('clicked-go')",
        ),
        (
            "date",
            "controls.html",
            "document.getElementById('status')?.textContent === 'departure: \\\"2026-12-24\\\"'",
        ),
        (
            "slider",
            "controls.html",
            "document.getElementById('status')?.textContent === 'volume: \\\"70\\\"'",
        ),
        (
            "drop-target",
            "drop.html",
            "document.getElementById('doing')?.textContent.includes('Write report')",
        ),
        (
            "custom-slider",
            "controls.html",
            "document.getElementById('status')?.textContent === 'zoom: 70'",
        ),
        (
            "right-click",
            "files.html",
            "document.getElementById('status')?.textContent === 'deleted: \\\"Notes.txt\\\"'",
        ),
        (
            "control-click",
            "files.html",
            "document.getElementById('status')?.textContent === 'selected: [\\\"Budget.xlsx\\\",\\\"Photo.jpg\\\"]'",
        ),
    ] {
        text += &task(id, page, success);
    }
    // Twelve 0.75-screen steps cover about 36 posts: the feed must have loaded
    // its later ones as they came into view.
    text += &task(
        "feed",
        "feed.html",
        "document.querySelectorAll('.post').length >= 30",
    )
    .replace("max_steps = 4", "max_steps = 14");
    // Every slide of the carousel was half in its view (the page's own
    // IntersectionObserver counts them); a row the virtualized list added
    // four scrolls down is clicked by its new ref.
    text += &task("carousel", "gallery.html", "seen.size === 10")
        .replace("max_steps = 4", "max_steps = 11");
    text += &task(
        "virtual-list",
        "virtual.html",
        "document.getElementById('status')?.textContent === 'opened: 33'",
    )
    .replace("max_steps = 4", "max_steps = 7");
    let suite = load(&write(dir.path(), "actions.toml", &text)).unwrap();
    let outcome = live::run(&config(&suite, &Plan, &dir.path().join("plan"), &["aria"])).unwrap();
    let report = LiveReport::build(outcome.manifest, outcome.episodes);
    assert_eq!(report.episodes.len(), 18);
    for e in &report.episodes {
        assert!(e.success, "{}: {e:#?}", e.task);
        assert!(
            e.step_log
                .iter()
                .all(|s| matches!(s.outcome, StepOutcome::Ok | StepOutcome::Done)),
            "{}: {:#?}",
            e.task,
            e.step_log
        );
    }
}

fn csv_rows(path: &Path) -> Vec<BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let headers = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            headers
                .iter()
                .zip(r.iter())
                .map(|(h, v)| (h.to_owned(), v.to_owned()))
                .collect()
        })
        .collect()
}

#[test]
fn traces_become_a_suite_whose_replay_repeats_every_step() {
    let dir = tempfile::tempdir().unwrap();
    let suite = write(dir.path(), "mini.toml", MINI);
    let run = dir.path().join("run");
    let output = pagesnap(&[
        "live",
        "--suite",
        suite.to_str().unwrap(),
        "--strategy",
        "aria,flat",
        "--out",
        run.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    for file in [
        "results.csv",
        "steps.csv",
        "timings.csv",
        "summary.json",
        "report.md",
        "report.html",
        "run.json",
    ] {
        assert!(run.join(file).is_file(), "{file}");
    }
    let summary = read_json(&run.join("summary.json"));
    assert_eq!(summary["kind"], "live");
    assert_eq!(summary["strategies"][0]["episodes"], 6);
    let live_steps = csv_rows(&run.join("steps.csv"));
    let episodes = csv_rows(&run.join("results.csv"));
    let successes = episodes.iter().filter(|e| e["success"] == "true").count();
    assert!(
        successes >= 4,
        "the baseline solves click-button and enter-text: {episodes:?}"
    );
    // Every state the agent saw is on disk.
    assert!(
        run.join("traces/enter-text/aria/e1/state-02.json.gz")
            .is_file()
    );
    assert!(run.join("traces/enter-text/aria/e1/trace.json").is_file());

    let made = dir.path().join("suites/replay.toml");
    let output = pagesnap(&[
        "trace-to-suite",
        run.to_str().unwrap(),
        "--out",
        made.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stdout(&output).contains(&format!("{successes} tasks written")),
        "{}",
        stdout(&output)
    );
    for strategy in ["aria", "flat"] {
        let replay = dir.path().join(format!("replay-{strategy}"));
        let output = pagesnap(&[
            "run",
            "--suite",
            made.to_str().unwrap(),
            "--strategy",
            strategy,
            "--out",
            replay.to_str().unwrap(),
            "--quiet",
        ]);
        assert!(output.status.success(), "{}", stderr(&output));
        let rows = csv_rows(&replay.join("results.csv"));
        let mine: Vec<&BTreeMap<String, String>> = rows
            .iter()
            .filter(|r| r["task"].contains(&format!("--{strategy}--")))
            .collect();
        assert!(!mine.is_empty());
        for row in &mine {
            assert_eq!(row["success"], "true", "{row:?}");
            // The same action as live: find the live step it came from.
            let mut id = row["task"].split("--");
            let (task, _, episode) = (id.next().unwrap(), id.next().unwrap(), id.next().unwrap());
            let live = live_steps
                .iter()
                .find(|s| {
                    s["task"] == task
                        && s["strategy"] == strategy
                        && format!("e{}", s["episode"]) == episode
                        && s["step"] == row["step"]
                })
                .unwrap();
            assert_eq!(
                (&row["op"], &row["ref"], &row["value"]),
                (&live["op"], &live["ref"], &live["value"])
            );
        }
    }
    // A replay suite refuses to run live, and a live suite refuses to replay.
    let output = pagesnap(&["live", "--suite", made.to_str().unwrap()]);
    assert!(
        !output.status.success() && stderr(&output).contains("offline suite"),
        "{}",
        stderr(&output)
    );
    let output = pagesnap(&["run", "--suite", suite.to_str().unwrap()]);
    assert!(
        !output.status.success() && stderr(&output).contains("pagesnap live"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn resume_after_sigkill_gives_the_same_run() {
    let dir = tempfile::tempdir().unwrap();
    let suite = write(dir.path(), "mini.toml", MINI);
    let args = |out: &Path| {
        vec![
            "live".to_owned(),
            "--suite".to_owned(),
            suite.display().to_string(),
            "--strategy".to_owned(),
            "aria,structural".to_owned(),
            "--out".to_owned(),
            out.display().to_string(),
            "--quiet".to_owned(),
        ]
    };
    let whole = dir.path().join("whole");
    let output = pagesnap(&args(&whole).iter().map(String::as_str).collect::<Vec<_>>());
    assert!(output.status.success(), "{}", stderr(&output));

    let cut = dir.path().join("cut");
    // Its own process group, so the kill takes its Chromium along (a SIGKILLed
    // pagesnap cannot close the browser itself).
    let mut child = Command::new(crate::support::exe())
        .current_dir(root())
        .args(args(&cut))
        .process_group(0)
        .spawn()
        .unwrap();
    let started = Instant::now();
    loop {
        let lines = std::fs::read_to_string(cut.join("results.jsonl"))
            .map(|t| t.lines().count())
            .unwrap_or(0);
        if lines >= 3 {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(120), "no progress");
        std::thread::sleep(Duration::from_millis(20));
    }
    let group = format!("-{}", child.id());
    let killed = Command::new("kill")
        .args(["-KILL", "--", &group])
        .status()
        .unwrap();
    assert!(killed.success(), "kill -KILL -- {group}");
    child.wait().unwrap();
    let kept = std::fs::read_to_string(cut.join("results.jsonl"))
        .unwrap()
        .lines()
        .count();
    assert!(kept < 12, "killed midway ({kept} episodes)");
    let mut resumed = args(&cut);
    resumed.push("--resume".to_owned());
    let output = pagesnap(&resumed.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stderr(&output).contains("resumed:"), "{}", stderr(&output));
    for file in ["results.csv", "steps.csv"] {
        assert_eq!(
            std::fs::read_to_string(whole.join(file)).unwrap(),
            std::fs::read_to_string(cut.join(file)).unwrap(),
            "{file}"
        );
    }
    assert_eq!(
        without_timing(read_json(&whole.join("summary.json"))),
        without_timing(read_json(&cut.join("summary.json")))
    );
    // Two live runs diff on live metrics; a live run and a replay do not mix.
    let output = pagesnap(&[
        "diff",
        whole.to_str().unwrap(),
        cut.to_str().unwrap(),
        "--fail-if",
        "success_rate<-1pp,episode_obs_tokens>+5%",
    ]);
    assert!(
        output.status.success(),
        "{}{}",
        stdout(&output),
        stderr(&output)
    );
    assert!(stdout(&output).contains("success_rate") && stdout(&output).contains("no breach"));
    let output = pagesnap(&["diff", "reports/baseline", whole.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("one kind"), "{}", stderr(&output));
    // Resuming with other settings is refused, naming what changed.
    let mut other = args(&cut);
    other.extend([
        "--resume".to_owned(),
        "--max-steps".to_owned(),
        "2".to_owned(),
    ]);
    let output = pagesnap(&other.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("live settings"),
        "{}",
        stderr(&output)
    );
}

/// A fake OpenAI-compatible judge on 127.0.0.1: it calls an episode a
/// success when its instruction is `Click on the "…" button` (click-button),
/// and approves every step.
fn judge_server() -> http::Server {
    http::Server::start(|request| {
        let text = request.json().to_string();
        let verdict = if text.contains("Is the task complete") {
            text.contains(r#"Task: Click on the \""#)
        } else {
            true
        };
        let content = format!("{{\"success\": {verdict}, \"reason\": \"scripted\"}}");
        Reply::ok(http::chat_completion(&content, 100, 10).to_string())
    })
}

#[test]
fn judge_calibration_against_the_reward_replays_from_the_cassette() {
    let dir = tempfile::tempdir().unwrap();
    let suite = write(dir.path(), "mini.toml", MINI);
    let judge = judge_server();
    let port = judge.port;
    let base = format!("http://127.0.0.1:{port}");
    let run = |out: &Path, mode: &str| {
        pagesnap(&[
            "live",
            "--suite",
            suite.to_str().unwrap(),
            "--strategy",
            "aria",
            "--judge",
            "llm:openai:judge",
            "--base-url",
            &base,
            "--cassette",
            mode,
            "--cassette-file",
            dir.path().join("cassette.jsonl").to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
            "--max-retries",
            "0",
        ])
    };
    let recorded = dir.path().join("recorded");
    let output = run(&recorded, "record");
    assert!(output.status.success(), "{}", stderr(&output));
    let summary = read_json(&recorded.join("summary.json"));
    let calibration = &summary["strategies"][0]["calibration"];
    assert_eq!(calibration["episodes"], 6, "{summary:#}");
    // The scripted judge says success for the click-button episodes only:
    // right on those, wrong on enter-text (a success it denies).
    let episodes: Vec<Episode> = std::fs::read_to_string(recorded.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut table = [[0u64; 2]; 2];
    for e in &episodes {
        let judge = e.instruction.starts_with("Click on the \"");
        assert_eq!(e.judge, Some(judge), "{e:?}");
        table[usize::from(judge)][usize::from(e.success)] += 1;
    }
    assert_eq!(calibration["table"], json!(table));
    assert!(
        table[0][1] > 0 && table[1][1] > 0,
        "both kinds of success: {table:?}"
    );
    let n = 6.0;
    let accuracy = (table[0][0] + table[1][1]) as f64 / n;
    assert!((calibration["accuracy"]["value"].as_f64().unwrap() - accuracy).abs() < 1e-6);
    let recall = table[1][1] as f64 / (table[0][1] + table[1][1]) as f64;
    assert!((calibration["recall"]["value"].as_f64().unwrap() - recall).abs() < 1e-6);
    assert_eq!(calibration["precision"]["value"], 1.0);
    assert!(calibration["kappa"].is_number(), "{calibration}");
    assert!(episodes.iter().all(|e| {
        e.step_log
            .iter()
            .all(|s| s.action.is_none() || s.judge == Some(true))
    }));
    // Without the server, the cassette answers and the reports are the same.
    judge.stop();
    let _ = TcpStream::connect(("127.0.0.1", port));
    let replayed = dir.path().join("replayed");
    let output = run(&replayed, "replay");
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        std::fs::read_to_string(recorded.join("results.csv")).unwrap(),
        std::fs::read_to_string(replayed.join("results.csv")).unwrap()
    );
    assert_eq!(
        without_timing(read_json(&recorded.join("summary.json"))),
        without_timing(read_json(&replayed.join("summary.json")))
    );
    let md = std::fs::read_to_string(replayed.join("report.md")).unwrap();
    assert!(md.contains("LLM judge calibration"), "{md}");
}

/// A Chromium started the way a browser pool runs one: its own profile,
/// `--remote-debugging-port=0`; the port is read from `DevToolsActivePort`.
struct Pooled {
    child: std::process::Child,
    endpoint: String,
    _profile: tempfile::TempDir,
}

impl Pooled {
    fn start() -> Pooled {
        let profile = tempfile::tempdir().unwrap();
        let command = pagesnap_browser::BrowserCommand::new(false).unwrap();
        let child = Command::new(&command.executable)
            .args(&command.flags)
            .args(["--remote-debugging-port=0", "about:blank"])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let started = Instant::now();
        let port = loop {
            let text = std::fs::read_to_string(profile.path().join("DevToolsActivePort"))
                .unwrap_or_default();
            if let Some(port) = text.lines().next().filter(|l| !l.is_empty()) {
                break port.to_owned();
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "Chromium did not listen"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        Pooled {
            child,
            endpoint: format!("http://127.0.0.1:{port}"),
            _profile: profile,
        }
    }

    /// The browser's page tabs (`/json/list`), sorted.
    fn tabs(&self) -> Vec<String> {
        let address = self.endpoint.trim_start_matches("http://");
        let mut stream = TcpStream::connect(address).unwrap();
        write!(
            stream,
            "GET /json/list HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut answer = String::new();
        // The DevTools handler may keep the connection open: read by length.
        let mut reader = BufReader::new(stream);
        let mut length = 0;
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = v.trim().parse().unwrap();
            }
            if line == "\r\n" {
                break;
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        answer.push_str(&String::from_utf8_lossy(&body));
        let list: Vec<Value> = serde_json::from_str(&answer).unwrap();
        let mut tabs: Vec<String> = list
            .iter()
            .filter(|t| t["type"] == "page")
            .map(|t| t["id"].as_str().unwrap().to_owned())
            .collect();
        tabs.sort();
        tabs
    }
}

impl Drop for Pooled {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `--cdp-endpoint` in `live` (two browsers spread over two workers) and
/// `snapshot`: pagesnap drives browsers it did not launch, records their
/// versions in run.json, closes only its own tabs and leaves them running.
#[test]
fn live_and_snapshot_attach_to_browsers_given_by_cdp_endpoint() {
    let dir = tempfile::tempdir().unwrap();
    let suite = write(dir.path(), "mini.toml", MINI);
    let pool = [Pooled::start(), Pooled::start()];
    let before: Vec<Vec<String>> = pool.iter().map(Pooled::tabs).collect();
    let endpoints = format!("{},{}", pool[0].endpoint, pool[1].endpoint);
    let out = dir.path().join("attached");
    let output = pagesnap(&[
        "live",
        "--suite",
        suite.to_str().unwrap(),
        "--strategy",
        "aria",
        "--jobs",
        "2",
        "--cdp-endpoint",
        &endpoints,
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let manifest = read_json(&out.join("run.json"));
    let browsers = manifest["browsers"].as_array().unwrap();
    let named: Vec<&str> = browsers
        .iter()
        .map(|b| b["endpoint"].as_str().unwrap())
        .collect();
    let mut expected = [pool[0].endpoint.as_str(), pool[1].endpoint.as_str()];
    expected.sort_unstable();
    assert_eq!(named, expected, "run.json lists the browsers, sorted");
    for browser in browsers {
        assert!(
            browser["version"].as_str().unwrap().contains("Chrome"),
            "{browser}"
        );
    }
    let episodes = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    assert_eq!(episodes.lines().count(), 6, "{episodes}");
    // An endpoint that refuses costs each of its episodes a row naming it;
    // the run goes on.
    let refused = dir.path().join("refused");
    let output = pagesnap(&[
        "live",
        "--suite",
        suite.to_str().unwrap(),
        "--strategy",
        "aria",
        "--cdp-endpoint",
        "http://127.0.0.1:9",
        "--out",
        refused.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let rows = std::fs::read_to_string(refused.join("results.jsonl")).unwrap();
    assert_eq!(rows.lines().count(), 6, "{rows}");
    for row in rows.lines() {
        let row: Value = serde_json::from_str(row).unwrap();
        assert_eq!(row["ended_by"], "error", "{row}");
        assert!(
            row["error"]
                .as_str()
                .unwrap()
                .contains("http://127.0.0.1:9"),
            "{row}"
        );
    }
    let output = pagesnap(&[
        "snapshot",
        root()
            .join("fixtures/sites/login/index.html")
            .to_str()
            .unwrap(),
        "--strategy",
        "aria",
        "--cdp-endpoint",
        &pool[1].endpoint,
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("button \"Sign in\""),
        "{}",
        stdout(&output)
    );
    // `Target.closeTarget` is answered when the close begins: the browser
    // may list a closing tab for a moment after pagesnap has exited.
    for (browser, tabs) in pool.iter().zip(&before) {
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut now = browser.tabs();
        while &now != tabs && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(100));
            now = browser.tabs();
        }
        assert_eq!(&now, tabs, "only pagesnap's own tabs are closed");
    }
    let mut pool = pool;
    for browser in &mut pool {
        assert!(
            browser.child.try_wait().unwrap().is_none(),
            "the browser keeps running"
        );
    }
    // --network belongs to a browser pagesnap launches.
    let output = pagesnap(&[
        "snapshot",
        "fixtures/sites/login/index.html",
        "--cdp-endpoint",
        &pool[0].endpoint,
        "--network",
    ]);
    assert!(!output.status.success());
    assert!(stderr(&output).contains("--network"), "{}", stderr(&output));
}

/// Shards started the way `examples/kubernetes` starts them (the index in
/// `JOB_COMPLETION_INDEX`, `--shard-from-env --shards 3`, a folder each), two
/// of them on Chromiums started with `--remote-debugging-port`, one killed
/// with SIGKILL mid-run (its Chromium dies with it) and resumed, merge into
/// the reports of one unsharded run.
#[test]
fn live_shards_from_the_schedulers_environment_merge_into_the_whole_run() {
    let dir = tempfile::tempdir().unwrap();
    let suite = write(dir.path(), "mini.toml", MINI);
    let args = |out: &Path| {
        vec![
            "live".to_owned(),
            "--suite".to_owned(),
            suite.display().to_string(),
            "--strategy".to_owned(),
            "aria,structural".to_owned(),
            "--out".to_owned(),
            out.display().to_string(),
            "--quiet".to_owned(),
        ]
    };
    let whole = dir.path().join("whole");
    let output = pagesnap(&args(&whole).iter().map(String::as_str).collect::<Vec<_>>());
    assert!(output.status.success(), "{}", stderr(&output));

    let pool = [Pooled::start(), Pooled::start()];
    let shard = |index: usize| {
        let out = dir.path().join(format!("shard-{index}"));
        let mut args = args(&out);
        args.extend([
            "--shard-from-env".to_owned(),
            "--shards".to_owned(),
            "3".to_owned(),
        ]);
        if let Some(browser) = pool.get(index) {
            args.extend(["--cdp-endpoint".to_owned(), browser.endpoint.clone()]);
        }
        // A temp folder of its own, so that its Chromium's profile is found.
        let tmp = dir.path().join(format!("tmp-{index}"));
        std::fs::create_dir_all(&tmp).unwrap();
        let mut command = Command::new(crate::support::exe());
        command
            .current_dir(root())
            .args(args)
            .env("JOB_COMPLETION_INDEX", index.to_string())
            .env("TMPDIR", &tmp);
        (command, out, tmp)
    };
    for index in 0..2 {
        let (mut command, _, _) = shard(index);
        let output = command.output().unwrap();
        assert!(
            output.status.success(),
            "shard {index}: {}",
            stderr(&output)
        );
    }
    // Shard 3/3 launches its own Chromium; SIGKILL it once it has begun.
    let (mut command, out, tmp) = shard(2);
    let mut child = command.spawn().unwrap();
    let started = Instant::now();
    while std::fs::read_to_string(out.join("results.jsonl")).map_or(0, |t| t.lines().count()) < 1 {
        assert!(started.elapsed() < Duration::from_secs(120), "no progress");
        std::thread::sleep(Duration::from_millis(20));
    }
    let pattern = tmp.display().to_string();
    let running = Command::new("pgrep")
        .args(["-f", &pattern])
        .output()
        .unwrap();
    assert!(
        running.status.success(),
        "the shard's Chromium is found by its profile folder"
    );
    // That its Chromium and profile go with it within a bound is
    // tests/bounded/killed.rs's; here the killed shard is resumed.
    child.kill().unwrap();
    child.wait().unwrap();
    let (mut command, _, _) = shard(2);
    let output = command.arg("--resume").output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stderr(&output).contains("resumed:"), "{}", stderr(&output));
    let manifest = read_json(&dir.path().join("shard-0/run.json"));
    assert_eq!(manifest["shard"], json!({"k": 1, "n": 3}), "{manifest}");

    let merged = dir.path().join("merged");
    let mut merge = vec!["merge".to_owned(), merged.display().to_string()];
    merge.extend((0..3).map(|i| dir.path().join(format!("shard-{i}")).display().to_string()));
    let output = pagesnap(&merge.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(output.status.success(), "{}", stderr(&output));
    for file in ["results.csv", "steps.csv"] {
        assert_eq!(
            std::fs::read_to_string(whole.join(file)).unwrap(),
            std::fs::read_to_string(merged.join(file)).unwrap(),
            "{file}"
        );
    }
    assert_eq!(
        without_timing(read_json(&whole.join("summary.json"))),
        without_timing(read_json(&merged.join("summary.json")))
    );
    let browsers = read_json(&merged.join("run.json"))["browsers"].clone();
    assert_eq!(browsers.as_array().unwrap().len(), 3, "{browsers}");
    // Shards of another split, or a shard given twice, are refused by name.
    let output = pagesnap(&[
        "merge",
        dir.path().join("again").to_str().unwrap(),
        dir.path().join("shard-0").to_str().unwrap(),
        dir.path().join("shard-0").to_str().unwrap(),
    ]);
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("given twice"),
        "{}",
        stderr(&output)
    );
    let output = pagesnap(&[
        "merge",
        dir.path().join("again2").to_str().unwrap(),
        dir.path().join("shard-0").to_str().unwrap(),
        whole.to_str().unwrap(),
    ]);
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("different schemes"),
        "{}",
        stderr(&output)
    );
}
