//! Every output of a run spells every op as the one vocabulary names it (`results.jsonl`, `steps.csv`, the reports, a replay's rows), and a run written with the old spellings still reads back, merges and writes the new ones.

use std::path::Path;

use pagesnap_browser::Op;

use super::{LiveReport, html, merge, write};
use crate::agent::Action;
use crate::results::{Episode, Manifest, StepLog, StepOutcome, jsonl};

/// A live run's manifest: one task, one strategy.
fn manifest() -> Manifest {
    serde_json::from_value(serde_json::json!({
        "pagesnap": "0", "suite": "ops", "suite_path": "ops.toml", "agent": "baseline",
        "strategies": ["aria"], "shard": null,
        "tasks": [{"id": "t", "instruction": "every op", "steps": 0}],
        "live": {"episodes": 1, "seed": null, "max_steps": null, "judge": "rule",
                 "episode_max_time_ms": null}
    }))
    .expect("the template is a manifest")
}

/// One episode taking every op once, in `Op::ALL` order.
fn episode() -> Episode {
    let step_log = Op::ALL
        .into_iter()
        .enumerate()
        .map(|(i, op)| StepLog {
            step: i + 1,
            refs: 1,
            new_refs: 0,
            obs_tokens: 1,
            image_tokens: 0,
            input_tokens: 1,
            output_tokens: 1,
            action: Some(Action {
                op,
                reference: Some("e1".to_owned()),
                value: Some("v".to_owned()),
            }),
            element: Some("button \"Go\"".to_owned()),
            backend_id: Some(7),
            outcome: StepOutcome::Ok,
            message: None,
            judge: None,
            judge_reason: None,
            raw: String::new(),
            capture_ms: 0.0,
            engine_ms: 0.0,
            agent_ms: 0.0,
            act_ms: 0.0,
            external: None,
            peer: None,
        })
        .collect::<Vec<_>>();
    let mut episode = crate::results::episode::test_episode("t", "aria");
    // Failed, as test_episode leaves it: the reports list a failed episode's actions.
    episode.instruction = "every op".to_owned();
    episode.steps = step_log.len();
    episode.trace = "traces/t/aria/1".to_owned();
    episode.step_log = step_log;
    episode
}

/// The op column of each step of `steps.csv`, in order.
fn steps_csv_ops(csv: &str) -> Vec<String> {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
    let column = header
        .iter()
        .position(|h| *h == "op")
        .expect("an op column");
    lines
        .map(|line| line.split(',').nth(column).unwrap_or_default().to_owned())
        .collect()
}

/// The ops of a `results.jsonl` episode line, as written.
fn jsonl_ops(line: &str) -> Vec<String> {
    let value: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
    value["step_log"]
        .as_array()
        .expect("steps")
        .iter()
        .map(|step| step["action"]["op"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// Every way a writer could misspell an op: the old lowercase run of
/// letters (`selecttext`), camel case, a hyphen for the underscore.
fn misspellings(op: Op) -> Vec<String> {
    let name = op.name();
    let mut camel = String::new();
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            camel.extend(c.to_uppercase());
            upper = false;
        } else {
            camel.push(c);
        }
    }
    [name.replace('_', ""), camel, name.replace('_', "-")]
        .into_iter()
        .filter(|spelling| spelling != name)
        .collect()
}

#[test]
fn every_output_of_a_live_run_spells_every_op_by_its_one_name() {
    let names: Vec<String> = Op::ALL.iter().map(|op| op.name().to_owned()).collect();
    let report = LiveReport::build(manifest(), vec![episode()]);
    let line = serde_json::to_string(&report.episodes[0]).expect("an episode serializes");
    assert_eq!(jsonl_ops(&line), names, "results.jsonl");
    assert_eq!(
        steps_csv_ops(&write::steps_csv(&report)),
        names,
        "steps.csv"
    );
    // Markdown escapes the underscore (`select\\_text`): read as rendered.
    let markdown = write::markdown(&report).replace("\\_", "_");
    let page = html::render(&report);
    for op in Op::ALL {
        for wrong in misspellings(op) {
            for (output, text) in [
                ("results.jsonl", line.as_str()),
                ("report.md", markdown.as_str()),
                ("report.html", page.as_str()),
            ] {
                assert!(
                    !text.contains(&format!("{wrong} ")) && !text.contains(&format!("\"{wrong}\"")),
                    "{output} spells {} as {wrong}",
                    op.name()
                );
            }
        }
    }
    // The reports describe each step's action; an op without a sentence of
    // its own is named by its one name.
    for op in [Op::Drag, Op::Upload, Op::SelectText, Op::ClickAt, Op::Wait] {
        assert!(
            markdown.contains(op.name()),
            "report.md lacks {}",
            op.name()
        );
    }
}

#[test]
fn every_output_of_a_replay_spells_every_op_by_its_one_name() {
    let rows: Vec<_> = Op::ALL
        .into_iter()
        .enumerate()
        .map(|(i, op)| {
            let mut row = crate::results::row::test_row("t", "aria", i + 1, true);
            row.expected_op = op;
            row.op = Some(op);
            row
        })
        .collect();
    let csv = crate::report::csv::results(&rows);
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
    let expected = header.iter().position(|h| *h == "expected_op");
    let got = header.iter().position(|h| *h == "op");
    for ((row, line), op) in rows.iter().zip(lines).zip(Op::ALL) {
        let json: serde_json::Value = serde_json::to_value(row).expect("a row serializes");
        assert_eq!(json["expected_op"], op.name());
        assert_eq!(json["op"], op.name());
        let cells: Vec<&str> = line.split(',').collect();
        for column in [expected, got] {
            assert_eq!(cells[column.expect("an op column")], op.name(), "{line}");
        }
        assert_eq!(
            crate::report::format::got(row).split(' ').next(),
            Some(op.name())
        );
    }
}

/// A run folder written before the names were one: `results.jsonl` spelled
/// `select_text` and `click_at` as `selecttext` and `clickat`.
fn old_run(dir: &Path) {
    manifest().write(dir).expect("run.json");
    let line = serde_json::to_string(&episode())
        .expect("an episode serializes")
        .replace("\"select_text\"", "\"selecttext\"")
        .replace("\"click_at\"", "\"clickat\"");
    assert!(line.contains("\"selecttext\"") && line.contains("\"clickat\""));
    std::fs::write(dir.join(jsonl::FILE), format!("{line}\n")).expect("results.jsonl");
}

#[test]
fn a_run_written_with_the_old_spellings_reads_back_merges_and_resumes() {
    let temp = tempfile::tempdir().expect("a temporary folder");
    let old = temp.path().join("old");
    std::fs::create_dir(&old).expect("the run folder");
    old_run(&old);
    let ops = |episodes: &[Episode]| -> Vec<Op> {
        episodes[0]
            .step_log
            .iter()
            .filter_map(|s| s.action.as_ref().map(|a| a.op))
            .collect()
    };
    // diff and report read every row; --resume keeps the finished ones.
    let read: Vec<Episode> = jsonl::read_rows(&old.join(jsonl::FILE)).expect("diff reads it");
    assert_eq!(ops(&read), Op::ALL);
    let kept = jsonl::read_existing::<Episode>(&old.join(jsonl::FILE)).expect("resume reads it");
    assert_eq!(kept.len(), 1);
    // merge joins it and writes the one spelling.
    let merged = merge::join(std::slice::from_ref(&old)).expect("merge reads it");
    assert_eq!(ops(&merged.report.episodes), Op::ALL);
    let out = temp.path().join("merged");
    merge::write(&out, &merged).expect("the merged run is written");
    let written = std::fs::read_to_string(out.join(jsonl::FILE)).expect("merged results");
    let names: Vec<String> = Op::ALL.iter().map(|op| op.name().to_owned()).collect();
    assert_eq!(jsonl_ops(written.trim_end()), names);
    let steps = std::fs::read_to_string(out.join("steps.csv")).expect("merged steps.csv");
    assert_eq!(steps_csv_ops(&steps), names);
}
