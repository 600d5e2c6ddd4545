//! The page's side of an episode: starting it (MiniWoB++ the way its own environment does) and reading whether it ended and with what reward (MiniWoB's globals, or a task's JavaScript predicate).

use anyhow::{Context, Result, bail};
use serde::Deserialize;

use crate::suite::live::{LiveTask, Source};
use pagesnap_browser::ChromiumSession;

/// The page's verdict on an episode.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Verdict {
    /// The page says the episode ended (MiniWoB: `WOB_DONE_GLOBAL`; a
    /// predicate's verdict is read at the end, so always true there).
    pub done: bool,
    /// The reward (MiniWoB: time-scaled `WOB_REWARD_GLOBAL`; a predicate: 1 or 0).
    pub reward: f64,
    /// The unscaled reward (MiniWoB: `WOB_RAW_REWARD_GLOBAL`; a predicate: 1 or 0).
    pub raw_reward: f64,
    /// MiniWoB's `WOB_REWARD_REASON`, or the predicate's value.
    pub reason: Option<String>,
}

/// Starts a MiniWoB++ episode as the package's environment does
/// (`miniwob/selenium_instance.py`: seed, data mode, `startEpisodeReal`,
/// wait for `WOB_TASK_READY`) with `core.EPISODE_MAX_TIME` raised, and
/// answers the utterance. The reward HUD (last reward, time left, episodes
/// done) is hidden: MiniWoB's environment crops its screenshots to the task
/// area, the HUD is not part of the task, and its countdown would make the
/// observations depend on timing.
fn miniwob_start(seed: u64, max_time_ms: u64) -> String {
    format!(
        r#"(async () => {{
  if (typeof core === 'undefined' || typeof core.startEpisodeReal !== 'function') return {{ error: 'not a MiniWoB++ page (no core.startEpisodeReal)' }};
  Math.seedrandom({seed});
  if (typeof core.setDataMode === 'function') core.setDataMode('train');
  core.EPISODE_MAX_TIME = {max_time_ms};
  core.startEpisodeReal();
  if (typeof core.hideDisplay === 'function' && document.getElementById('reward-display')) core.hideDisplay();
  for (let i = 0; i < 200 && !WOB_TASK_READY; i++) await new Promise((r) => setTimeout(r, 25));
  if (!WOB_TASK_READY) return {{ error: 'WOB_TASK_READY stayed false for 5 s' }};
  const u = core.getUtterance();
  return {{ utterance: typeof u === 'string' ? u : (u && u.utterance) || '' }};
}})()"#
    )
}

const MINIWOB_STATUS: &str = "({ done: !!WOB_DONE_GLOBAL, reward: Number(WOB_REWARD_GLOBAL), \
     raw: Number(WOB_RAW_REWARD_GLOBAL), reason: WOB_REWARD_REASON == null ? null : \
     (typeof WOB_REWARD_REASON === 'string' ? WOB_REWARD_REASON : JSON.stringify(WOB_REWARD_REASON)) })";

#[derive(Deserialize)]
struct Started {
    utterance: Option<String>,
    error: Option<String>,
}

#[derive(Deserialize)]
struct Status {
    done: bool,
    reward: f64,
    raw: f64,
    reason: Option<String>,
}

#[derive(Deserialize)]
struct Predicate {
    truthy: bool,
    value: String,
}

/// Starts the episode on the open page and returns the instruction.
pub async fn start(
    session: &ChromiumSession,
    source: &Source,
    task: &LiveTask,
    seed: u64,
) -> Result<String> {
    match source {
        Source::MiniWob {
            episode_max_time_ms,
            ..
        } => {
            let value = session
                .eval(&miniwob_start(seed, *episode_max_time_ms))
                .await
                .with_context(|| format!("starting MiniWoB++ task {:?}", task.id))?;
            let started: Started = serde_json::from_value(value)
                .with_context(|| format!("starting MiniWoB++ task {:?}: odd answer", task.id))?;
            if let Some(error) = started.error {
                bail!(
                    "starting MiniWoB++ task {:?} ({}): {error}",
                    task.id,
                    task.path
                );
            }
            session.settle().await?;
            match started.utterance.filter(|u| !u.trim().is_empty()) {
                Some(utterance) => Ok(utterance),
                None => bail!(
                    "MiniWoB++ task {:?}: core.getUtterance() gave no instruction",
                    task.id
                ),
            }
        }
        Source::Folder { .. } => Ok(task.instruction.clone().unwrap_or_default()),
    }
}

/// Whether the page says the episode has ended (MiniWoB only; a predicate
/// is asked once, at the end, by [`finish`]).
pub async fn ended(session: &ChromiumSession, source: &Source) -> Result<Option<Verdict>> {
    match source {
        Source::MiniWob { .. } => {
            let status = miniwob_status(session).await?;
            Ok(status.done.then_some(status))
        }
        Source::Folder { .. } => Ok(None),
    }
}

/// The page's final verdict: MiniWoB's globals (an episode that never ended
/// has reward 0, as in MiniWoB's own environment), or the task's predicate.
pub async fn finish(
    session: &ChromiumSession,
    source: &Source,
    task: &LiveTask,
) -> Result<Verdict> {
    // A page still waiting on a dialog answers nothing: the task was left
    // unfinished there.
    if let Some(dialog) = session.dialog() {
        return Ok(Verdict {
            done: false,
            reward: 0.0,
            raw_reward: 0.0,
            reason: Some(format!(
                "the episode ended with the page's {} dialog {:?} unanswered",
                dialog.kind.name(),
                dialog.message
            )),
        });
    }
    match source {
        Source::MiniWob { .. } => {
            let status = miniwob_status(session).await?;
            if status.done {
                Ok(status)
            } else {
                Ok(Verdict {
                    done: false,
                    reward: 0.0,
                    raw_reward: 0.0,
                    reason: Some("the episode did not end on the page".to_owned()),
                })
            }
        }
        Source::Folder { .. } => {
            let expression = task.success.as_deref().unwrap_or("false");
            let script = format!(
                "(async () => {{ const v = await ({expression}\n); \
                 return {{ truthy: !!v, value: typeof v === 'object' ? JSON.stringify(v) : String(v) }}; }})()"
            );
            let value = session
                .eval(&script)
                .await
                .with_context(|| format!("the success predicate of task {:?} failed", task.id))?;
            let predicate: Predicate = serde_json::from_value(value).with_context(|| {
                format!("the success predicate of task {:?} gave no value", task.id)
            })?;
            let reward = f64::from(u8::from(predicate.truthy));
            Ok(Verdict {
                done: true,
                reward,
                raw_reward: reward,
                reason: Some(predicate.value),
            })
        }
    }
}

async fn miniwob_status(session: &ChromiumSession) -> Result<Verdict> {
    let value = session.eval(MINIWOB_STATUS).await?;
    let status: Status = serde_json::from_value(value)
        .context("reading MiniWoB++'s WOB_* globals gave an odd answer")?;
    Ok(Verdict {
        done: status.done,
        reward: status.reward,
        raw_reward: status.raw,
        reason: status.reason,
    })
}
