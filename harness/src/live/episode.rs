//! One episode: open the task page in a warm browser, then observe → agent → act until the agent says done, the step limit, or the page says the episode ended; the page gives the reward.
//!
//! Refs stay stable and new elements are marked across steps (each
//! observation is rendered with the previous one, as `snapshot --previous`
//! does). A ref resolves to its node through the observation's
//! `meta.items[].backendId`, and the action runs on that node as a user
//! would ([`pagesnap_browser::UserAction`]). What cannot run — a covered
//! click, a node gone, a ref the observation does not have, an answer that is
//! no action — is shown to the agent at the next step and counted; it never
//! stops the episode. What stops it early (the page never loads, the tab
//! crashes) is the episode's `error`; only an agent error that must stop the
//! run (a cassette miss) is returned as `Err`.

use std::path::Path;
use std::time::Instant;

use anyhow::Result;
use pagesnap_engine::observation::Observation;

use super::page;
use super::trace::Trace;
use crate::agent::{Action, Agent, Op, Request};
use crate::judge::llm::{JudgeStop, LiveStepInput, LiveTaskInput, LlmJudge};
use crate::observer::{self, Attached, Observer};
use crate::peer::mapping::{ActionKey, AfterAction, Arg, dialog_placeholders};
use crate::peer::transcript::Transcript;
use crate::peer::{Connection, Peer};
use crate::results::{EndedBy, Episode, StepLog, StepOutcome, ms};
use crate::suite::live::{LiveTask, Source};
use crate::tokens::ObservationSize;
use pagesnap_browser::{
    Chromium, ChromiumSession, Failure, OpenOptions, Outcome, Unrunnable, UserAction,
};

/// What every episode of a run shares.
pub struct Setting<'a> {
    /// Where the pages come from.
    pub source: &'a Source,
    /// The page server's base URL (`http://127.0.0.1:<port>/`).
    pub base_url: &'a str,
    /// The agent.
    pub agent: &'a dyn Agent,
    /// The LLM judge, when asked for.
    pub judge: Option<&'a LlmJudge>,
    /// The run folder (traces go under `traces/`).
    pub out: &'a Path,
    /// How the page is opened: viewport, scroll, wait, load and per-call limit.
    pub open: OpenOptions,
}

/// Which episode to run.
pub struct Spec<'a> {
    /// The task.
    pub task: &'a LiveTask,
    /// What the agent observes the page with.
    pub strategy: &'a Observer,
    /// Episode number, from 1.
    pub episode: usize,
    /// The page's seed.
    pub seed: u64,
    /// Step limit.
    pub max_steps: usize,
}

/// An agent error that must stop the run (e.g. a cassette replay miss).
#[derive(Debug, thiserror::Error)]
#[error("the agent failed: {0:#}")]
pub struct AgentStop(anyhow::Error);

/// An episode that never reached its page: the browser it was to run in
/// could not be reached (an endpoint that refuses), an error row naming why.
pub fn unreachable(
    setting: &Setting<'_>,
    spec: &Spec<'_>,
    err: &dyn std::fmt::Display,
) -> Result<Episode> {
    let mut episode = base(spec);
    episode.error = Some(format!("{err:#}"));
    episode.ended_by = EndedBy::Error;
    let trace = Trace::create(&setting.out.join(&episode.trace))?;
    trace.finish(&episode)?;
    Ok(episode)
}

/// The row of an episode before it runs.
fn base(spec: &Spec<'_>) -> Episode {
    let trace_rel = format!(
        "traces/{}/{}/e{}",
        spec.task.id,
        spec.strategy.name(),
        spec.episode
    );
    Episode {
        task: spec.task.id.clone(),
        strategy: spec.strategy.name().to_owned(),
        episode: spec.episode,
        seed: spec.seed,
        tier: spec.task.tier.clone(),
        tags: spec.task.tags.clone(),
        instruction: String::new(),
        reward: 0.0,
        raw_reward: 0.0,
        reason: None,
        success: false,
        ended_by: EndedBy::Steps,
        steps: 0,
        obs_tokens: 0,
        image_tokens: 0,
        input_tokens: 0,
        output_tokens: 0,
        cost_usd: 0.0,
        action_errors: 0,
        covered: 0,
        stale: 0,
        hallucinated: 0,
        invalid: 0,
        faults: 0,
        judge: None,
        judge_reason: None,
        error: None,
        browser_died: None,
        wall_ms: 0.0,
        trace: trace_rel,
        step_log: Vec::new(),
    }
}

/// Runs one episode in a new tab of `browser` (an external strategy's
/// program `attached` to that browser).
pub async fn run(
    browser: &Chromium,
    attached: Option<&mut Attached<'_>>,
    setting: &Setting<'_>,
    spec: &Spec<'_>,
) -> Result<Episode> {
    let started = Instant::now();
    let mut episode = base(spec);
    let trace_rel = episode.trace.clone();
    let mut trace = Trace::create(&setting.out.join(&trace_rel))?;
    let url = format!("{}{}", setting.base_url, spec.task.path);
    let result = match browser.open(&url, &setting.open).await {
        Ok(session) => {
            let result = drive(&session, attached, setting, spec, &mut episode, &mut trace).await;
            session.close().await;
            result
        }
        Err(err) => Err(crate::flag_hints::with_flags(err)),
    };
    if let Err(err) = result {
        if err.downcast_ref::<AgentStop>().is_some() || err.downcast_ref::<JudgeStop>().is_some() {
            return Err(err);
        }
        episode.error = Some(format!("{err:#}"));
        episode.ended_by = EndedBy::Error;
        episode.success = false;
    }
    episode.wall_ms = ms(started.elapsed());
    episode.tally();
    trace.finish(&episode)?;
    Ok(episode)
}

/// A step waiting for its "after" observation before the LLM judge sees it.
struct Pending {
    before: String,
    history: Vec<Action>,
    action: Action,
    element: Option<String>,
    outcome: StepOutcome,
    log: usize,
}

async fn drive(
    session: &ChromiumSession,
    mut attached: Option<&mut Attached<'_>>,
    setting: &Setting<'_>,
    spec: &Spec<'_>,
    episode: &mut Episode,
    trace: &mut Trace,
) -> Result<()> {
    let mut focus_emulated = false;
    emulate_focus(session, &mut focus_emulated).await?;
    let instruction = page::start(session, setting.source, spec.task, spec.seed).await?;
    episode.instruction = instruction.clone();
    let strategy = spec.strategy;
    if let (Some(Attached::Server(connection)), Some(peer)) = (attached.as_deref(), strategy.peer())
    {
        let url = format!("{}{}", setting.base_url, spec.task.path);
        connection.choose_tab(&peer.mapping, &url).await?;
    }
    let mut previous: Option<Observation> = None;
    // What a client reading action answers has read, from the first snapshot on.
    let mut transcript: Option<Transcript> = None;
    let mut history: Vec<Action> = Vec::new();
    // Each action with the element it named and its outcome (task judge).
    let mut trail: Vec<(Action, Option<String>, StepOutcome)> = Vec::new();
    let mut feedback: Option<String> = None;
    let mut pending: Option<Pending> = None;
    let mut ended_by = EndedBy::Steps;
    for n in 1..=spec.max_steps {
        let live = look(
            session,
            strategy,
            previous.as_ref(),
            attached.as_deref_mut(),
            n,
            (setting.open.width, setting.open.height),
            &mut transcript,
        )
        .await?;
        if let Some(captured) = &live.captured {
            trace.state(&Trace::state_name(n), captured)?;
        }
        if let Some(step) = pending.take() {
            judge_step(
                setting,
                strategy,
                &instruction,
                step,
                &live.observation.text,
                episode,
            )?;
        }
        let observation = &live.observation;
        let size = ObservationSize::of(observation);
        let request = Request {
            feedback: feedback.as_deref(),
            live: true,
            ..Request::new(&instruction, strategy.name(), observation, &history)
        };
        let response = setting.agent.act(&request).map_err(AgentStop)?;
        feedback = None;
        let failed = |why: String| Some(format!("The last action did not run: {why}"));
        let mut log = StepLog {
            step: n,
            refs: size.refs,
            new_refs: observation.meta.items.iter().filter(|i| i.new).count(),
            // A tool server's: what the model newly reads (nothing when it
            // rereads the answers it has).
            obs_tokens: live.peer.as_ref().map_or(size.o200k, |p| p.result_tokens),
            image_tokens: size.image,
            input_tokens: response.input_tokens,
            output_tokens: response.output_tokens,
            action: None,
            element: None,
            backend_id: None,
            outcome: StepOutcome::Invalid,
            message: None,
            judge: None,
            judge_reason: None,
            raw: response.raw.clone(),
            capture_ms: ms(live.capture),
            engine_ms: ms(live.engine),
            agent_ms: response.latency_us as f64 / 1000.0,
            act_ms: 0.0,
            external: live.external.clone(),
            peer: live.peer.clone(),
        };
        episode.obs_tokens += log.obs_tokens;
        // A model is shown a tool server's definitions once per episode.
        if n == 1
            && let (Some(step), Some(Attached::Server(connection))) =
                (log.peer.as_mut(), attached.as_deref())
        {
            step.definition_tokens = connection.definition_tokens;
            episode.obs_tokens += connection.definition_tokens;
        }
        episode.image_tokens += u64::from(size.image);
        episode.input_tokens += response.input_tokens;
        episode.output_tokens += response.output_tokens;
        episode.cost_usd += response.cost_usd;
        episode.steps = n;
        let mut stop = false;
        match (response.fault, response.action) {
            (Some(fault), _) => {
                log.outcome = StepOutcome::Fault;
                log.message = Some(format!("agent {} failed: {fault}", setting.agent.name()));
            }
            (None, None) => {
                let why = response.invalid.unwrap_or_else(|| "no action".to_owned());
                log.outcome = StepOutcome::Invalid;
                feedback = failed(format!(
                    "your answer was not a valid action ({why}); answer with one JSON object"
                ));
                log.message = feedback.clone();
            }
            (None, Some(action)) if action.op == Op::Done => {
                log.outcome = StepOutcome::Done;
                log.action = Some(action);
                ended_by = EndedBy::Agent;
                stop = true;
            }
            (None, Some(action)) => {
                let acted = Instant::now();
                let ran = match (attached.as_deref(), strategy.peer()) {
                    (Some(Attached::Server(connection)), Some(peer)) => {
                        let ran = peer_act(session, connection, peer, &action, observation).await?;
                        if let (Ok(done), Some(step)) = (&ran, log.peer.as_mut()) {
                            step.tool_calls += done.calls;
                            step.round_trip_ms += done.ms;
                            step.result_tokens += done.tokens;
                            step.result_chars += done.chars;
                            log.obs_tokens += done.tokens;
                            episode.obs_tokens += done.tokens;
                        }
                        if let (Ok(done), Some(read)) = (&ran, transcript.as_mut()) {
                            for (answer, failed) in &done.answers {
                                read.read(&peer.mapping, answer, *failed);
                            }
                        }
                        ran.map(|done| (done.outcome, done.element, None))
                    }
                    _ => match user_action(&action, observation) {
                        Ok((run, element, backend_id)) => {
                            let outcome = session.perform(&run).await?;
                            emulate_focus(session, &mut focus_emulated).await?;
                            Ok((outcome, element, backend_id))
                        }
                        Err(unrunnable) => Err(unrunnable),
                    },
                };
                match ran {
                    Err(Unrunnable::Hallucinated(reference)) => {
                        log.outcome = StepOutcome::Hallucinated;
                        feedback = failed(format!(
                            "ref {reference:?} is not in the observation; use a ref shown in the current observation"
                        ));
                        log.message = feedback.clone();
                    }
                    Err(Unrunnable::Incomplete(why)) => {
                        log.outcome = StepOutcome::Invalid;
                        feedback = failed(why);
                        log.message = feedback.clone();
                    }
                    Ok((outcome, element, backend_id)) => {
                        log.element = element;
                        log.backend_id = backend_id;
                        match outcome {
                            Outcome::Done { note } => {
                                log.outcome = StepOutcome::Ok;
                                // A note on an action that ran (a scroll that
                                // could not move) is not a failure.
                                feedback = note
                                    .as_ref()
                                    .map(|n| format!("The last action ran, but {n}."));
                                log.message = note;
                            }
                            Outcome::Failed { kind, message } => {
                                log.outcome = kind.into();
                                feedback = failed(message.clone());
                                log.message = Some(message);
                            }
                        }
                    }
                }
                log.act_ms = ms(acted.elapsed());
                trail.push((action.clone(), log.element.clone(), log.outcome));
                if setting.judge.is_some() {
                    pending = Some(Pending {
                        before: observation.text.clone(),
                        history: history.clone(),
                        action: action.clone(),
                        element: log.element.clone(),
                        outcome: log.outcome,
                        log: episode.step_log.len(),
                    });
                }
                log.action = Some(action.clone());
                history.push(action);
            }
        }
        episode.step_log.push(log);
        previous = Some(live.observation);
        if stop {
            break;
        }
        if page::ended(session, setting.source).await?.is_some() {
            ended_by = EndedBy::Page;
            break;
        }
    }
    episode.ended_by = ended_by;
    // The page at the end: the "after" of the last action, the trace's last
    // state and what the task judge reads.
    let last = look(
        session,
        strategy,
        previous.as_ref(),
        attached,
        episode.steps + 1,
        (setting.open.width, setting.open.height),
        &mut transcript,
    )
    .await?;
    if let Some(captured) = &last.captured {
        trace.state("final", captured)?;
    }
    if let Some(step) = pending.take() {
        judge_step(
            setting,
            strategy,
            &instruction,
            step,
            &last.observation.text,
            episode,
        )?;
    }
    let verdict = page::finish(session, setting.source, spec.task).await?;
    episode.reward = verdict.reward;
    episode.raw_reward = verdict.raw_reward;
    episode.reason = verdict.reason;
    episode.success = verdict.raw_reward > 0.0;
    if let Some(judge) = setting.judge {
        let verdict = judge.live_task(&LiveTaskInput {
            instruction: &instruction,
            strategy: strategy.name(),
            actions: &trail,
            last: &last.observation.text,
        })?;
        episode.judge = verdict.success;
        episode.judge_reason = Some(verdict.reason);
    }
    Ok(())
}

/// The step's observation: the observer's, or for a client reading action
/// answers ([`AfterAction::Answer`]) once it has read the first snapshot,
/// what it has read since ([`Transcript`]).
async fn look(
    session: &ChromiumSession,
    strategy: &Observer,
    previous: Option<&Observation>,
    attached: Option<&mut Attached<'_>>,
    step: usize,
    viewport: (u32, u32),
    transcript: &mut Option<Transcript>,
) -> Result<observer::Seen> {
    let answers = strategy
        .peer()
        .filter(|peer| peer.mapping.after_action == AfterAction::Answer);
    if let (Some(peer), Some(read)) = (answers, transcript.as_ref()) {
        return Ok(observer::reread(peer, read));
    }
    let seen = observer::observe(session, strategy, previous, attached, step, viewport).await?;
    if let Some(peer) = answers {
        *transcript = Some(Transcript::start(&peer.mapping, &seen.observation.text));
    }
    Ok(seen)
}

fn judge_step(
    setting: &Setting<'_>,
    strategy: &Observer,
    instruction: &str,
    step: Pending,
    after: &str,
    episode: &mut Episode,
) -> Result<(), JudgeStop> {
    let Some(judge) = setting.judge else {
        return Ok(());
    };
    let verdict = judge.live_step(&LiveStepInput {
        instruction,
        strategy: strategy.name(),
        history: &step.history,
        before: &step.before,
        action: &step.action,
        element: step.element,
        outcome: step.outcome.name(),
        after,
    })?;
    if let Some(log) = episode.step_log.get_mut(step.log) {
        log.judge = verdict.success;
        log.judge_reason = Some(verdict.reason);
    }
    Ok(())
}

/// An action a tool server ran (or refused), and what it cost.
struct PeerDone {
    outcome: Outcome,
    /// The snapshot's line for the ref.
    element: Option<String>,
    /// Tool calls made (an action may take several, in turn).
    calls: usize,
    ms: f64,
    /// o200k tokens of the tool's answer (the model reads it).
    tokens: usize,
    /// Its characters.
    chars: usize,
    /// The answers' text, in turn, each with whether it was the tool's
    /// error (a client reading answers reads them).
    answers: Vec<(String, bool)>,
}

/// Runs an agent's action through the tool server's own tool, with the
/// server's refs and waiting. A ref the snapshot did not offer is
/// hallucinated; an op the mapping has no tool for, or a call missing its
/// ref or value, is incomplete; a tool error is the action's failure, in the
/// server's words.
/// Input events reach a background tab's focused element only if the page
/// believes it has focus (several episodes may run at once). A page waiting
/// on a dialog answers no call: asked again after the next action.
async fn emulate_focus(session: &ChromiumSession, done: &mut bool) -> Result<()> {
    if *done || session.dialog().is_some() {
        return Ok(());
    }
    match session.emulate_focus().await {
        Ok(()) => *done = true,
        // The page opened a dialog meanwhile.
        Err(err) if err.is_dialog_open() => {}
        Err(err) => {
            return Err(anyhow::Error::from(err).context("could not enable focus emulation"));
        }
    }
    Ok(())
}

async fn peer_act(
    session: &ChromiumSession,
    connection: &Connection,
    peer: &Peer,
    action: &Action,
    observation: &Observation,
) -> Result<Result<PeerDone, Unrunnable>> {
    if let Some(reference) = &action.reference
        && !observation
            .meta
            .items
            .iter()
            .any(|i| &i.reference == reference)
    {
        return Ok(Err(Unrunnable::Hallucinated(reference.clone())));
    }
    let mut value = action.value.clone().unwrap_or_default();
    // Keyed by the agent's value ("dismiss" is the dismissal's call); `done`
    // has no key and is refused there.
    let key = match ActionKey::of(action.op, action.reference.as_deref(), &value) {
        Ok(key) => key,
        Err(unrunnable) => return Ok(Err(unrunnable)),
    };
    if action.op == Op::Dialog {
        // The call's {value} is a prompt's text, not the agent's "accept".
        value = match pagesnap_browser::dialog_of(&value) {
            pagesnap_browser::UserAction::Dialog {
                text: Some(text), ..
            } => text,
            _ => String::new(),
        };
    }
    let Some(calls) = peer.mapping.calls_for(key) else {
        return Ok(Err(Unrunnable::Incomplete(format!(
            "{} has no tool for {}",
            peer.name,
            key.name()
        ))));
    };
    let line = |reference: &str| {
        peer.mapping
            .line_of(&observation.text, reference)
            .map(str::to_owned)
    };
    let element = action.reference.as_deref().and_then(line);
    let uploads = session.upload_dir();
    let values = match placeholders(key, action, &value, element.as_deref(), line, uploads) {
        Ok(values) => values,
        Err(refused) => {
            return Ok(Ok(PeerDone {
                outcome: refused,
                element,
                calls: 0,
                ms: 0.0,
                tokens: 0,
                chars: 0,
                answers: Vec::new(),
            }));
        }
    };
    // Every argument first: a call missing a value is refused before any runs.
    let mut arguments = Vec::with_capacity(calls.len());
    for call in calls {
        match connection.arguments(call, &values) {
            Ok(filled) => arguments.push((call, filled)),
            Err(err) => {
                return Ok(Err(Unrunnable::Incomplete(format!(
                    "{} needs more on {}: {err}",
                    action.op.name(),
                    peer.name
                ))));
            }
        }
    }
    let mut done = PeerDone {
        outcome: Outcome::Done { note: None },
        element,
        calls: 0,
        ms: 0.0,
        tokens: 0,
        chars: 0,
        answers: Vec::new(),
    };
    for (call, filled) in arguments {
        let answer = connection.send(&call.tool, filled).await?;
        done.calls += 1;
        done.ms += answer.ms;
        done.tokens += crate::tokens::o200k(&answer.text);
        done.chars += answer.text.chars().count();
        let failed = answer.is_error;
        if failed {
            // The calls after a failed one are not made.
            done.outcome = Outcome::Failed {
                kind: Failure::Failed,
                message: format!("{}: {}", call.tool, answer.text.trim()),
            };
        }
        done.answers.push((answer.text, failed));
        if failed {
            break;
        }
    }
    Ok(Ok(done))
}

/// The values of a tool server's placeholders for `key`'s calls: the
/// agent's value (for a dialog, the prompt's text) and ref with the ref's
/// snapshot line, and what the action adds — a drag's target, a dialog's
/// answer, a delay, an upload's files (absolute, as the server's process
/// reads them, and only inside the upload folder, as pagesnap's own upload
/// confines them: refused by name outside it).
fn placeholders(
    key: ActionKey,
    action: &Action,
    value: &str,
    element: Option<&str>,
    line: impl Fn(&str) -> Option<String>,
    uploads: &Path,
) -> Result<Vec<(&'static str, Arg)>, Outcome> {
    let mut values: Vec<(&'static str, Arg)> = vec![("value", value.into())];
    if let Some(reference) = &action.reference {
        values.push(("ref", reference.as_str().into()));
        values.push(("element", element.unwrap_or(reference).into()));
    }
    match key {
        // A drag's value is the drop target's ref.
        ActionKey::DRAG => {
            values.push(("to", value.into()));
            values.push(("to_element", line(value).unwrap_or(value.to_owned()).into()));
        }
        ActionKey::DIALOG_ACCEPT | ActionKey::DIALOG_DISMISS => {
            values.extend(dialog_placeholders(key == ActionKey::DIALOG_ACCEPT, value));
        }
        ActionKey::WAIT_TIME => {
            if let pagesnap_browser::Wait::Delay(delay) = pagesnap_browser::wait_of(value) {
                values.push(("ms", Arg::Number(delay.as_millis() as f64)));
                values.push(("secs", Arg::Number(delay.as_secs_f64())));
            }
        }
        ActionKey::CLICK_WITH => {
            // Checked by ActionKey::of, which chose this key.
            let with = pagesnap_browser::click_of(value).unwrap_or_default();
            values.push(("button", with.button.name().into()));
            values.push(("modifiers", Arg::List(with.modifier_names())));
        }
        ActionKey::UPLOAD => {
            let given = pagesnap_browser::paths_of(value);
            let files = pagesnap_browser::confine_uploads(uploads, &given)
                .map_err(|message| Outcome::failed(Failure::UploadRefused, message))?;
            values.push((
                "paths",
                Arg::List(files.iter().map(|f| f.display().to_string()).collect()),
            ));
        }
        _ => {}
    }
    Ok(values)
}

/// The page action an agent's action asks for, resolved on the observation
/// (the one resolver), with the element it names (`button "Submit"`) and
/// its backend node id.
fn user_action(
    action: &Action,
    observation: &Observation,
) -> Result<(UserAction, Option<String>, Option<u64>), Unrunnable> {
    let resolved = pagesnap_browser::resolve(
        action.op,
        action.reference.as_deref(),
        Some(action.value.as_deref().unwrap_or_default()),
        &observation.meta.items,
    )?;
    Ok((
        resolved.action,
        resolved.item.map(pagesnap_browser::label),
        resolved.item.map(|item| item.backend_id),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn act(op: Op, reference: Option<&str>, value: &str) -> Action {
        Action {
            op,
            reference: reference.map(str::to_owned),
            value: Some(value.to_owned()),
        }
    }

    fn value<'v>(values: &'v [(&'static str, Arg)], name: &str) -> Option<&'v Arg> {
        values.iter().find(|(k, _)| *k == name).map(|(_, v)| v)
    }

    /// Each action's own placeholders, typed; an upload outside the upload
    /// folder is refused by name before any call, as pagesnap's own is.
    #[test]
    fn each_action_fills_its_own_placeholders() {
        let here = std::env::current_dir().unwrap();
        let no_line = |_: &str| None;
        let upload = act(Op::Upload, Some("e4"), "Cargo.toml");
        let values = placeholders(
            ActionKey::UPLOAD,
            &upload,
            "Cargo.toml",
            Some("button \"Choose\""),
            no_line,
            &here,
        )
        .unwrap();
        let cargo = here.join("Cargo.toml").canonicalize().unwrap();
        assert_eq!(
            value(&values, "paths"),
            Some(&Arg::List(vec![cargo.display().to_string()]))
        );
        assert_eq!(
            value(&values, "element"),
            Some(&Arg::Text("button \"Choose\"".to_owned()))
        );
        let outside = placeholders(
            ActionKey::UPLOAD,
            &upload,
            "/etc/passwd",
            None,
            no_line,
            &here,
        )
        .unwrap_err();
        assert!(
            matches!(&outside, Outcome::Failed { kind: Failure::UploadRefused, message } if message.contains("outside the upload folder")),
            "{outside:?}"
        );
        let wait = act(Op::Wait, None, "1500ms");
        let values =
            placeholders(ActionKey::WAIT_TIME, &wait, "1500ms", None, no_line, &here).unwrap();
        assert_eq!(value(&values, "ms"), Some(&Arg::Number(1500.0)));
        assert_eq!(value(&values, "secs"), Some(&Arg::Number(1.5)));
        let dismiss = act(Op::Dialog, None, "dismiss");
        let values = placeholders(
            ActionKey::DIALOG_DISMISS,
            &dismiss,
            "",
            None,
            no_line,
            &here,
        )
        .unwrap();
        assert_eq!(value(&values, "accept"), Some(&Arg::Bool(false)));
        let drag = act(Op::Drag, Some("e1"), "e9");
        let values = placeholders(
            ActionKey::DRAG,
            &drag,
            "e9",
            None,
            |r: &str| (r == "e9").then(|| "listitem \"Done\"".to_owned()),
            &here,
        )
        .unwrap();
        assert_eq!(value(&values, "to"), Some(&Arg::Text("e9".to_owned())));
        assert_eq!(
            value(&values, "to_element"),
            Some(&Arg::Text("listitem \"Done\"".to_owned()))
        );
    }
}
