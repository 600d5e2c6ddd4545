//! Live traces → an offline suite: each kept episode becomes a task whose steps are the states the agent saw and the actions it took, targets named by backend node id, so replaying it (`pagesnap run`) checks the same actions on the same pages.
//!
//! Kept by default: episodes the page called successful (what an agent and
//! strategy can do today, pinned as a regression test); `--all` keeps the
//! failed ones too (pinning behaviour, right or wrong). An episode stopped by
//! an error, or with a step whose action could not name an element (a
//! hallucinated ref, an invalid answer, a failed call), is left out and
//! counted: such a step has no element to expect.

use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::trace::Trace;
use crate::agent::Op;
use crate::results::{Episode, Manifest, StepOutcome, jsonl};

/// What a conversion made.
pub struct Converted {
    /// The suite's TOML text.
    pub toml: String,
    /// Tasks written.
    pub tasks: usize,
    /// Episodes left out, with why: (task, strategy, episode, reason).
    pub skipped: Vec<(String, String, usize, String)>,
}

/// Turns the live run in `run` into a suite to be written at `out`.
pub fn convert(run: &Path, out: &Path, all: bool, name: Option<&str>) -> Result<Converted> {
    let manifest = Manifest::read(run)?;
    if manifest.live.is_none() {
        bail!(
            "{} holds an offline run (`pagesnap run`); trace-to-suite reads the run folder of `pagesnap live`",
            run.display()
        );
    }
    let episodes: Vec<Episode> = jsonl::read_rows(&run.join(jsonl::FILE))?;
    let folder = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let recordings = relative(folder, run)?;
    let name = name.map_or_else(|| format!("{}-traces", manifest.suite), str::to_owned);
    let mut toml = String::new();
    let _ = writeln!(
        toml,
        "# Made by `pagesnap trace-to-suite {}` from a live run of suite {:?} (agent {}, strategies {}).\n\
         # Each task is one episode: its steps are the states the agent saw and the actions it took.\n\
         # Replay: pagesnap run --suite {} --agent {} --strategy STRATEGY\n",
        run.display(),
        manifest.suite,
        manifest.agent,
        manifest.strategies.join(","),
        out.display(),
        manifest.agent
    );
    let _ = writeln!(
        toml,
        "[suite]\nname = {}\ndescription = {}\nrecordings = {}\n",
        quote(&name),
        quote(&format!(
            "{} episodes of the live run of {} turned into offline steps ({}).",
            if all { "All" } else { "The successful" },
            manifest.suite,
            run.display()
        )),
        quote(&recordings)
    );
    let mut tasks = 0;
    let mut skipped = Vec::new();
    for episode in &episodes {
        let skip = |why: &str| {
            (
                episode.task.clone(),
                episode.strategy.clone(),
                episode.episode,
                why.to_owned(),
            )
        };
        if let Some(error) = &episode.error {
            skipped.push(skip(&format!("stopped by an error: {error}")));
            continue;
        }
        if !all && !episode.success {
            skipped.push(skip("not successful (use --all to keep it)"));
            continue;
        }
        match task_of(episode) {
            Ok(text) => {
                toml.push_str(&text);
                tasks += 1;
            }
            Err(why) => skipped.push(skip(&why)),
        }
    }
    if tasks == 0 {
        bail!(
            "{}: no episode could become a task ({} episodes; {} left out)",
            run.display(),
            episodes.len(),
            skipped.len()
        );
    }
    Ok(Converted {
        toml,
        tasks,
        skipped,
    })
}

/// One episode as a `[[task]]`, or why it cannot be one.
fn task_of(episode: &Episode) -> Result<String, String> {
    let mut text = format!(
        "[[task]]\nid = {}\ninstruction = {}\n",
        quote(&format!(
            "{}--{}--e{}",
            episode.task, episode.strategy, episode.episode
        )),
        quote(&episode.instruction)
    );
    let mut steps = 0;
    for step in &episode.step_log {
        let Some(action) = &step.action else {
            return Err(format!(
                "step {} has no action ({})",
                step.step, step.outcome
            ));
        };
        if matches!(
            step.outcome,
            StepOutcome::Hallucinated | StepOutcome::Invalid
        ) {
            return Err(format!(
                "step {} names no element of its page ({})",
                step.step, step.outcome
            ));
        }
        let recording = format!("{}/{}", episode.trace, Trace::state_name(step.step));
        let _ = write!(
            text,
            "\n[[task.step]]\nrecording = {}\nop = {}\n",
            quote(&recording),
            quote(action.op.name())
        );
        if crate::agent::targets_element(action.op) {
            let Some(backend) = step.backend_id else {
                return Err(format!("step {} has no element", step.step));
            };
            let _ = writeln!(text, "target = {{ backend_id = {backend} }}");
        }
        let given = action.value.as_deref().is_some_and(|v| !v.is_empty());
        if action.op.takes_value() || (action.op.keeps_value() && given) {
            let value = action.value.as_deref().unwrap_or("");
            if value.is_empty() && action.op != Op::Type {
                return Err(format!("step {} has no value", step.step));
            }
            let _ = writeln!(text, "value = {}", quote(value));
        }
        steps += 1;
    }
    if steps == 0 {
        return Err("no steps".to_owned());
    }
    text.push('\n');
    Ok(text)
}

/// A TOML basic string.
fn quote(text: &str) -> String {
    // JSON string escapes are valid TOML basic-string escapes.
    serde_json::Value::String(text.to_owned()).to_string()
}

/// `to` relative to the folder `from` (both made absolute).
fn relative(from: &Path, to: &Path) -> Result<String> {
    let absolute = |p: &Path| -> Result<PathBuf> {
        p.canonicalize()
            .with_context(|| format!("{}: no such folder", p.display()))
    };
    let (from, to) = (absolute(from)?, absolute(to)?);
    let a: Vec<Component<'_>> = from.components().collect();
    let b: Vec<Component<'_>> = to.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<String> = std::iter::repeat_n("..".to_owned(), a.len() - common).collect();
    parts.extend(
        b[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    Ok(if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_walk_up_then_down() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("suites")).unwrap();
        std::fs::create_dir_all(dir.path().join("runs/a")).unwrap();
        assert_eq!(
            relative(&dir.path().join("suites"), &dir.path().join("runs/a")).unwrap(),
            "../runs/a"
        );
        assert_eq!(relative(dir.path(), dir.path()).unwrap(), ".");
    }

    #[test]
    fn quotes_are_toml() {
        let text = format!("x = {}", quote("a \"b\"\n\\c"));
        let value: toml::Value = toml::from_str(&text).unwrap();
        assert_eq!(value["x"].as_str(), Some("a \"b\"\n\\c"));
    }
}
