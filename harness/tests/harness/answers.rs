//! A client that reads `pagesnap mcp`'s action answers instead of snapshotting again (`mcp:pagesnap-answers`) beside one that snapshots after every action (`mcp:pagesnap`): the same agent on the same fixture tasks solves as many, is shown the first view with each answer read after it, is no longer offered the refs an answer said were removed, and reads less.

use std::sync::{Arc, Mutex};

use pagesnap_harness::agent::reader::Reader;
use pagesnap_harness::agent::{Agent, Op, Request, Response};
use pagesnap_harness::live;
use pagesnap_harness::observer::Observer;
use pagesnap_harness::peer::{self, Launch};
use pagesnap_harness::report::live::LiveReport;

use crate::support::{exe, root};

/// What the agent was shown at one step.
#[derive(Clone, Debug)]
struct Shown {
    strategy: String,
    instruction: String,
    text: String,
    refs: Vec<String>,
}

/// The reader agent, keeping what each step showed it.
struct Recorder {
    shown: Mutex<Vec<Shown>>,
}

impl Agent for Recorder {
    fn name(&self) -> String {
        "reader".to_owned()
    }

    fn act(&self, request: &Request<'_>) -> anyhow::Result<Response> {
        self.shown.lock().unwrap().push(Shown {
            strategy: request.strategy.to_owned(),
            instruction: request.instruction.to_owned(),
            text: request.observation.to_owned(),
            refs: request.refs.iter().map(|i| i.reference.clone()).collect(),
        });
        Reader.act(request)
    }
}

/// Tasks whose steps change part of the page (a todo added, ticked and
/// cleared; a sign-in form filled; a modal closed, then a quantity raised)
/// and one that opens a JavaScript dialog.
const TASKS: &[&str] = &[
    "todo-add-complete-clear",
    "login-sign-in",
    "checkout-close-dialog-quantity",
    "dialogs-discard-changes",
];

#[test]
fn a_client_reading_action_answers_solves_as_much_and_reads_less() {
    let mut suite =
        pagesnap_harness::suite::live::load(&root().join("suites/live-fixtures.toml")).unwrap();
    suite.tasks.retain(|t| TASKS.contains(&t.id.as_str()));
    assert_eq!(suite.tasks.len(), TASKS.len());
    let observers: Vec<Observer> = ["mcp:pagesnap", "mcp:pagesnap-answers"]
        .into_iter()
        .map(|name| {
            let mut server =
                peer::named(name, &[], &[], std::time::Duration::from_secs(30)).unwrap();
            // This test binary is not pagesnap: the binary under test serves.
            server.launch = Launch::Shell(format!(
                "exec '{}' mcp --cdp-endpoint '{{cdp}}'",
                exe().display()
            ));
            Observer::Peer(Arc::new(server))
        })
        .collect();
    let agent = Recorder {
        shown: Mutex::new(Vec::new()),
    };
    let dir = tempfile::tempdir().unwrap();
    let outcome = live::run(&crate::live_episodes::config_observing(
        &suite,
        &agent,
        dir.path(),
        observers,
    ))
    .unwrap();
    let report = LiveReport::build(outcome.manifest, outcome.episodes);
    let shown = agent.shown.into_inner().unwrap();
    let episode = |task: &str, strategy: &str| {
        report
            .episodes
            .iter()
            .find(|e| e.task == task && e.strategy == strategy)
            .unwrap_or_else(|| panic!("no episode of {task} through {strategy}"))
    };
    let mut solved = 0;
    let (mut read_snapshots, mut read_answers) = (0, 0);
    for task in &suite.tasks {
        let snapshots = episode(&task.id, "mcp:pagesnap");
        let answers = episode(&task.id, "mcp:pagesnap-answers");
        for e in [snapshots, answers] {
            assert!(e.error.is_none(), "{} {}: {e:#?}", e.task, e.strategy);
        }
        // Not lower: what the snapshots solve, the answers solve.
        assert!(
            answers.success || !snapshots.success,
            "{}: solved reading snapshots, not reading answers: {:#?}",
            task.id,
            answers.step_log
        );
        solved += usize::from(answers.success);
        // After the first step no snapshot is taken: the action's calls only.
        for step in &answers.step_log[1..] {
            let calls = step.peer.as_ref().unwrap().tool_calls;
            let acted = usize::from(step.action.as_ref().is_some_and(|a| a.op != Op::Done));
            assert_eq!(calls, acted, "{}: {step:#?}", task.id);
        }
        for step in &snapshots.step_log[1..] {
            assert!(step.peer.as_ref().unwrap().tool_calls >= 1, "{step:#?}");
        }
        let chars = |e: &pagesnap_harness::results::Episode| {
            e.step_log
                .iter()
                .map(|s| s.peer.as_ref().unwrap().result_chars)
                .sum::<usize>()
        };
        eprintln!(
            "{}: reading snapshots {} chars, {} tokens ({} steps); reading answers {} chars, {} tokens ({} steps)",
            task.id,
            chars(snapshots),
            snapshots.obs_tokens,
            snapshots.steps,
            chars(answers),
            answers.obs_tokens,
            answers.steps
        );
        if snapshots.steps == answers.steps && snapshots.steps > 1 {
            assert!(chars(answers) < chars(snapshots), "{}", task.id);
            read_snapshots += chars(snapshots);
            read_answers += chars(answers);
        }
        // What the agent was shown reading answers: the first view, then each
        // answer after it, until one shows the whole page.
        let steps: Vec<&Shown> = shown
            .iter()
            .filter(|s| {
                s.strategy == "mcp:pagesnap-answers" && s.instruction == answers.instruction
            })
            .collect();
        assert_eq!(steps.len(), answers.step_log.len(), "{}", task.id);
        for pair in steps.windows(2) {
            let (before, after) = (pair[0], pair[1]);
            assert!(
                after.text.contains("### Action"),
                "{}:\n{}",
                task.id,
                after.text
            );
            if !after.text.contains("\n### Page\n") && !after.text.contains("\n### Dialog\n") {
                assert!(
                    after.text.starts_with(&before.text),
                    "{}: read after what was read before:\n{}",
                    task.id,
                    after.text
                );
            }
        }
        // A ref an answer said was removed is written in what was read
        // before, and no longer offered.
        for shown in &steps {
            for line in shown.text.lines() {
                let Some(removed) = line.strip_prefix("removed: ") else {
                    continue;
                };
                for reference in removed.split(", ").filter(|r| *r != "none") {
                    assert!(
                        !shown.refs.iter().any(|r| r == reference),
                        "{}: {reference} was removed, yet offered:\n{}",
                        task.id,
                        shown.text
                    );
                }
            }
        }
    }
    assert!(
        solved >= 2,
        "reading answers solved {solved} of {}",
        TASKS.len()
    );
    assert!(
        read_answers * 2 < read_snapshots,
        "reading answers read {read_answers} characters, reading snapshots {read_snapshots}"
    );
    // Some answer removed refs (a todo cleared, the modal closed).
    assert!(
        shown.iter().any(|s| s
            .text
            .lines()
            .any(|l| l.starts_with("removed: ") && l != "removed: none")),
        "no answer removed a ref"
    );
}
