//! Reports of a live run: success and reward per strategy with confidence intervals, paired significance over the same episodes, steps and tokens per episode, latency, per-tier and per-task results, and the LLM judge's calibration against the page's reward.
//!
//! - **Success rate**: episodes whose raw reward is > 0. **Mean reward**:
//!   the unscaled reward (MiniWoB's `WOB_RAW_REWARD_GLOBAL`, a predicate's 1
//!   or 0), so a resumed run gives the same figures; MiniWoB's time-scaled
//!   reward is a wall-clock figure and sits with the timings.
//! - Intervals: 95% percentile bootstrap resampling *tasks* (episodes of a
//!   task share its page), fixed seed ([`super::metrics`]).
//! - **Significance**: McNemar's exact test on success over the (task,
//!   episode) pairs both strategies ran, and a paired bootstrap of the
//!   difference over tasks ([`super::significance::compare_pairs`]).
//! - **Calibration**: the LLM judge's episode verdict against the page's
//!   success — accuracy, precision and recall of "success", Cohen's kappa —
//!   with bootstrap intervals over episodes. This is how far the judge can be
//!   trusted on pages with no reward function.

mod csv;
mod html;
mod markdown;
pub mod merge;
#[cfg(test)]
mod spelling;
mod tables;
mod write;

use std::collections::BTreeMap;

use serde::Serialize;

use super::metrics::{self, Estimate, SplitMix64, quantile, ratio_bootstrap, round};
use super::significance::{self, Comparison};
use crate::results::{Episode, Manifest, is_external};

pub use write::write_all;

/// A live run's report: its manifest, episodes in report order, and figures.
pub struct LiveReport {
    /// What the run covered.
    pub manifest: Manifest,
    /// Episodes sorted by suite task order, strategy order, episode.
    pub episodes: Vec<Episode>,
    /// One summary per strategy, in strategy order.
    pub summaries: Vec<LiveSummary>,
    /// Every pair of strategies.
    pub comparisons: Vec<Comparison>,
}

/// Figures of one strategy.
#[derive(Clone, Debug, Serialize)]
pub struct LiveSummary {
    /// Strategy name.
    pub strategy: String,
    /// Episodes run.
    pub episodes: usize,
    /// Tasks run.
    pub tasks: usize,
    /// Share of episodes with raw reward > 0.
    pub success_rate: Estimate,
    /// Mean raw reward.
    pub mean_reward: Estimate,
    /// Mean steps per episode.
    pub mean_steps: f64,
    /// Observation tokens per episode (o200k): mean, median, p90.
    pub obs_tokens: Spread,
    /// Observation tokens per step: mean, median, p90.
    pub obs_tokens_per_step: Spread,
    /// Agent input tokens per episode.
    pub input_tokens: Spread,
    /// Image tokens per episode (mean).
    pub mean_image_tokens: f64,
    /// Cost per episode in US dollars (mean).
    pub mean_cost_usd: f64,
    /// How episodes ended: `page`, `agent`, `steps`, `error` → count.
    pub ended_by: BTreeMap<String, usize>,
    /// Actions that could not run, per kind (`covered`, `stale`, …), and
    /// answers that were no action (`hallucinated`, `invalid`, `fault`).
    pub step_outcomes: BTreeMap<String, usize>,
    /// Episodes stopped by an error (page never loaded, crashed tab, predicate threw).
    pub errors: usize,
    /// Success per tier: tier → (successes, episodes).
    pub tiers: BTreeMap<String, (usize, usize)>,
    /// Success per tag: tag → (successes, episodes).
    pub tags: BTreeMap<String, (usize, usize)>,
    /// The LLM judge against the page's verdict, when a judge ran.
    pub calibration: Option<Calibration>,
    /// Share of steps the LLM step judge called correct (when it ran).
    pub step_judge_approval: Option<f64>,
    /// Wall-clock figures (vary between runs; nothing else does).
    pub timing: LiveTiming,
    /// An external strategy (`ext:NAME`): a peer's snapshotter, not pagesnap's.
    pub external: bool,
    /// An external strategy's refs and round trips.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub external_refs: Option<ExternalSummary>,
    /// A tool server's calls and what its results cost (`mcp:NAME`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_server: Option<ToolServerSummary>,
}

/// What a tool server's episodes cost: the calls an agent makes through it
/// and the tokens a model would read.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct ToolServerSummary {
    /// Tool calls per episode (mean): snapshots and actions.
    pub tool_calls_per_episode: f64,
    /// The tool definitions a model is shown once per episode, o200k tokens.
    pub definition_tokens: usize,
    /// Tokens of every tool result per step (snapshot and action answer): mean, median, p90.
    pub result_tokens_per_step: Spread,
    /// Tokens of every tool result per episode (mean; the tool definitions not counted).
    pub result_tokens_per_episode: f64,
    /// Characters of every tool result per episode (mean).
    pub result_chars_per_episode: f64,
    /// Round trips of a step's calls, ms (wall-clock).
    pub round_trip_ms: Spread,
}

/// How an external strategy's refs resolved over its steps, and what the
/// protocol cost beside its own observation time.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct ExternalSummary {
    /// Steps observed.
    pub steps: usize,
    /// Refs resolved per step (mean).
    pub refs_per_step: f64,
    /// Refs naming no node of pagesnap's capture, over all steps.
    pub unresolved: usize,
    /// ARIA lines whose role and name several lines or nodes shared.
    pub ambiguous: usize,
    /// ARIA lines of an interactive role left without a ref.
    pub unassigned: usize,
    /// Round trip per step, ms (wall-clock).
    pub round_trip_ms: Spread,
    /// pagesnap's capture + analysis + resolution per step, ms (wall-clock).
    pub resolve_ms: Spread,
}

/// A strategy's name as reports show it: an external one and a tool server are marked.
pub fn shown(strategy: &str) -> String {
    if is_external(strategy) {
        format!("{strategy} (external)")
    } else if strategy.starts_with(crate::results::MCP_PREFIX) {
        format!("{strategy} (tool server)")
    } else {
        strategy.to_owned()
    }
}

/// Mean, median and 90th percentile.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq)]
pub struct Spread {
    /// Mean.
    pub mean: f64,
    /// Median.
    pub median: f64,
    /// 90th percentile.
    pub p90: f64,
}

impl Spread {
    fn of(values: impl Iterator<Item = f64>) -> Spread {
        let mut v: Vec<f64> = values.collect();
        v.sort_by(f64::total_cmp);
        if v.is_empty() {
            return Spread::default();
        }
        Spread {
            mean: round(v.iter().sum::<f64>() / v.len() as f64),
            median: round(quantile(&v, 0.5)),
            p90: round(quantile(&v, 0.9)),
        }
    }
}

/// Latency of the loop, per step, and of whole episodes.
#[derive(Clone, Debug, Default, Serialize)]
pub struct LiveTiming {
    /// Capture ms per step.
    pub capture_ms: Spread,
    /// Engine (analysis + render) ms per step.
    pub engine_ms: Spread,
    /// Agent ms per step.
    pub agent_ms: Spread,
    /// Acting (and letting the page settle) ms per step.
    pub act_ms: Spread,
    /// Whole episode ms.
    pub episode_ms: Spread,
    /// MiniWoB's time-scaled reward (mean).
    pub mean_scaled_reward: f64,
}

/// The LLM judge's episode verdicts against the page's success.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Calibration {
    /// Episodes with a verdict.
    pub episodes: usize,
    /// `[[judge fail & page fail, judge fail & page success], [judge success & page fail, judge success & page success]]`.
    pub table: [[u64; 2]; 2],
    /// Share of agreeing verdicts.
    pub accuracy: Estimate,
    /// Of the episodes the judge called successful, the share that were.
    pub precision: Option<Estimate>,
    /// Of the successful episodes, the share the judge called successful.
    pub recall: Option<Estimate>,
    /// Cohen's kappa (none when undefined: both constant and equal).
    pub kappa: Option<f64>,
    /// 95% bootstrap interval of kappa over episodes (resamples where it is defined).
    pub kappa_interval: Option<(f64, f64)>,
}

impl Calibration {
    /// What both reports print, in order: episodes, accuracy, precision,
    /// recall, kappa, then the counts judge✓page✓, judge✓page✗,
    /// judge✗page✓, judge✗page✗.
    pub fn cells(&self) -> Vec<String> {
        let opt = |e: &Option<Estimate>| e.as_ref().map_or("n/a".to_owned(), super::format::rate);
        let kappa = match (self.kappa, self.kappa_interval) {
            (Some(k), Some((lo, hi))) => format!("{k:.3} [{lo:.3}, {hi:.3}]"),
            (Some(k), None) => format!("{k:.3}"),
            _ => "undefined".to_owned(),
        };
        let t = self.table;
        vec![
            self.episodes.to_string(),
            super::format::rate(&self.accuracy),
            opt(&self.precision),
            opt(&self.recall),
            kappa,
            t[1][1].to_string(),
            t[1][0].to_string(),
            t[0][1].to_string(),
            t[0][0].to_string(),
        ]
    }
}

/// Column headers of [`Calibration::cells`].
pub const CALIBRATION_HEADERS: [&str; 9] = [
    "episodes",
    "accuracy [95% CI]",
    "precision",
    "recall",
    "Cohen's kappa [95% CI]",
    "judge✓ page✓",
    "judge✓ page✗",
    "judge✗ page✓",
    "judge✗ page✗",
];

/// An episode's actions as one line: `click [e3] button "OK" (covered); done (done)`.
pub fn actions_line(episode: &Episode) -> String {
    episode
        .step_log
        .iter()
        .filter_map(|s| {
            s.action.as_ref().map(|a| {
                format!(
                    "{} ({})",
                    crate::judge::llm::describe(a, s.element.as_deref()),
                    s.outcome
                )
            })
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Why an episode failed, as the reports say it: its error, else the page's reason.
pub fn failure_reason(episode: &Episode) -> &str {
    episode
        .error
        .as_deref()
        .or(episode.reason.as_deref())
        .unwrap_or("")
}

impl LiveReport {
    /// Sorts the episodes and computes every figure.
    pub fn build(manifest: Manifest, mut episodes: Vec<Episode>) -> LiveReport {
        let task_index = |id: &str| manifest.task_index(id).unwrap_or(usize::MAX);
        let strategy_index = |name: &str| manifest.strategy_index(name).unwrap_or(usize::MAX);
        episodes.sort_by(|a, b| {
            (task_index(&a.task), strategy_index(&a.strategy), a.episode).cmp(&(
                task_index(&b.task),
                strategy_index(&b.strategy),
                b.episode,
            ))
        });
        let summaries = manifest
            .strategies
            .iter()
            .map(|s| {
                let mine: Vec<&Episode> = episodes.iter().filter(|e| &e.strategy == s).collect();
                summarize(s, &mine)
            })
            .collect();
        let mut comparisons = Vec::new();
        for (i, a) in manifest.strategies.iter().enumerate() {
            for b in &manifest.strategies[i + 1..] {
                comparisons.push(compare(a, b, &episodes));
            }
        }
        LiveReport {
            manifest,
            episodes,
            summaries,
            comparisons,
        }
    }
}

fn compare(a: &str, b: &str, episodes: &[Episode]) -> Comparison {
    let outcomes = |name: &str| -> BTreeMap<(&str, usize), bool> {
        episodes
            .iter()
            .filter(|e| e.strategy == name)
            .map(|e| ((e.task.as_str(), e.episode), e.success))
            .collect()
    };
    let (left, right) = (outcomes(a), outcomes(b));
    let pairs = left
        .iter()
        .filter_map(|(key, &x)| right.get(key).map(|&y| (key.0, x, y)));
    significance::compare_pairs(a, b, pairs)
}

/// Summarises one strategy's episodes.
pub fn summarize(strategy: &str, episodes: &[&Episode]) -> LiveSummary {
    // Per task: (successes, raw reward sum, episodes).
    let mut by_task: BTreeMap<&str, (f64, f64, f64)> = BTreeMap::new();
    let mut ended_by = BTreeMap::new();
    let mut step_outcomes = BTreeMap::new();
    let mut tiers: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut tags: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let (mut approved, mut judged) = (0usize, 0usize);
    for e in episodes {
        let t = by_task.entry(e.task.as_str()).or_default();
        t.0 += f64::from(u8::from(e.success));
        t.1 += e.raw_reward;
        t.2 += 1.0;
        *ended_by.entry(e.ended_by.name().to_owned()).or_insert(0) += 1;
        for step in &e.step_log {
            if !step.outcome.ran() {
                *step_outcomes
                    .entry(step.outcome.name().to_owned())
                    .or_insert(0) += 1;
            }
            if let Some(verdict) = step.judge {
                judged += 1;
                approved += usize::from(verdict);
            }
        }
        let tier = tiers.entry(e.tier.clone()).or_default();
        tier.0 += usize::from(e.success);
        tier.1 += 1;
        for tag in &e.tags {
            let entry = tags.entry(tag.clone()).or_default();
            entry.0 += usize::from(e.success);
            entry.1 += 1;
        }
    }
    let tasks: Vec<(f64, f64, f64)> = by_task.into_values().collect();
    let n = episodes.len().max(1) as f64;
    let steps: Vec<&crate::results::StepLog> =
        episodes.iter().flat_map(|e| e.step_log.iter()).collect();
    LiveSummary {
        strategy: strategy.to_owned(),
        episodes: episodes.len(),
        tasks: tasks.len(),
        success_rate: ratio_bootstrap(&tasks.iter().map(|t| (t.0, t.2)).collect::<Vec<_>>()),
        mean_reward: ratio_bootstrap(&tasks.iter().map(|t| (t.1, t.2)).collect::<Vec<_>>()),
        mean_steps: round(episodes.iter().map(|e| e.steps as f64).sum::<f64>() / n),
        obs_tokens: Spread::of(episodes.iter().map(|e| e.obs_tokens as f64)),
        obs_tokens_per_step: Spread::of(steps.iter().map(|s| s.obs_tokens as f64)),
        input_tokens: Spread::of(episodes.iter().map(|e| e.input_tokens as f64)),
        mean_image_tokens: round(episodes.iter().map(|e| e.image_tokens as f64).sum::<f64>() / n),
        mean_cost_usd: round(episodes.iter().map(|e| e.cost_usd).sum::<f64>() / n),
        ended_by,
        step_outcomes,
        errors: episodes.iter().filter(|e| e.error.is_some()).count(),
        tiers,
        tags,
        calibration: calibration(episodes),
        step_judge_approval: (judged > 0).then(|| round(approved as f64 / judged as f64)),
        timing: LiveTiming {
            capture_ms: Spread::of(steps.iter().map(|s| s.capture_ms)),
            engine_ms: Spread::of(steps.iter().map(|s| s.engine_ms)),
            agent_ms: Spread::of(steps.iter().map(|s| s.agent_ms)),
            act_ms: Spread::of(steps.iter().map(|s| s.act_ms)),
            episode_ms: Spread::of(episodes.iter().map(|e| e.wall_ms)),
            mean_scaled_reward: round(episodes.iter().map(|e| e.reward).sum::<f64>() / n),
        },
        external: is_external(strategy),
        external_refs: external_summary(&steps),
        tool_server: tool_server_summary(episodes, &steps),
    }
}

fn tool_server_summary(
    episodes: &[&Episode],
    steps: &[&crate::results::StepLog],
) -> Option<ToolServerSummary> {
    let peer: Vec<&crate::results::PeerStep> =
        steps.iter().filter_map(|s| s.peer.as_ref()).collect();
    if peer.is_empty() {
        return None;
    }
    let per_episode = |of: fn(&crate::results::PeerStep) -> usize| {
        round(peer.iter().map(|p| of(p) as f64).sum::<f64>() / episodes.len().max(1) as f64)
    };
    Some(ToolServerSummary {
        tool_calls_per_episode: per_episode(|p| p.tool_calls),
        definition_tokens: peer.iter().map(|p| p.definition_tokens).max().unwrap_or(0),
        result_tokens_per_step: Spread::of(peer.iter().map(|p| p.result_tokens as f64)),
        result_tokens_per_episode: per_episode(|p| p.result_tokens),
        result_chars_per_episode: per_episode(|p| p.result_chars),
        round_trip_ms: Spread::of(peer.iter().map(|p| p.round_trip_ms)),
    })
}

fn external_summary(steps: &[&crate::results::StepLog]) -> Option<ExternalSummary> {
    let external: Vec<&crate::results::ExternalStep> =
        steps.iter().filter_map(|s| s.external.as_ref()).collect();
    if external.is_empty() {
        return None;
    }
    Some(ExternalSummary {
        steps: external.len(),
        refs_per_step: round(
            external.iter().map(|e| e.refs as f64).sum::<f64>() / external.len() as f64,
        ),
        unresolved: external.iter().map(|e| e.unresolved).sum(),
        ambiguous: external.iter().map(|e| e.ambiguous).sum(),
        unassigned: external.iter().map(|e| e.unassigned).sum(),
        round_trip_ms: Spread::of(external.iter().map(|e| e.round_trip_ms)),
        resolve_ms: Spread::of(external.iter().map(|e| e.resolve_ms)),
    })
}

/// The judge's verdicts against the page's, over the episodes with a verdict.
pub fn calibration(episodes: &[&Episode]) -> Option<Calibration> {
    let pairs: Vec<(bool, bool)> = episodes
        .iter()
        .filter_map(|e| e.judge.map(|j| (j, e.success)))
        .collect();
    if pairs.is_empty() {
        return None;
    }
    let table = table_of(&pairs);
    let share = |num: u64, den: u64| (den > 0).then(|| num as f64 / den as f64);
    let figures = |t: &[[u64; 2]; 2]| {
        (
            share(t[0][0] + t[1][1], t.iter().flatten().sum()),
            share(t[1][1], t[1][0] + t[1][1]),
            share(t[1][1], t[0][1] + t[1][1]),
            metrics::cohen_kappa(t),
        )
    };
    let (accuracy, precision, recall, kappa) = figures(&table);
    // Bootstrap over episodes.
    let mut rng = SplitMix64(metrics::SEED);
    let mut samples: [Vec<f64>; 4] = Default::default();
    let mut resample = Vec::with_capacity(pairs.len());
    for _ in 0..metrics::RESAMPLES {
        resample.clear();
        resample.extend((0..pairs.len()).map(|_| pairs[rng.below(pairs.len())]));
        let (a, p, r, k) = figures(&table_of(&resample));
        for (i, v) in [a, p, r, k].into_iter().enumerate() {
            if let Some(v) = v {
                samples[i].push(v);
            }
        }
    }
    for s in &mut samples {
        s.sort_by(f64::total_cmp);
    }
    let interval = |i: usize| {
        let s = &samples[i];
        let at = |q: f64| s[((s.len() - 1) as f64 * q).round() as usize];
        (!s.is_empty()).then(|| (round(at(0.025)), round(at(0.975))))
    };
    let estimate = |value: Option<f64>, i: usize| {
        value.map(|value| {
            let (low, high) = interval(i).unwrap_or((value, value));
            Estimate {
                value: round(value),
                low,
                high,
            }
        })
    };
    Some(Calibration {
        episodes: pairs.len(),
        table,
        accuracy: estimate(accuracy, 0).unwrap_or(Estimate {
            value: 0.0,
            low: 0.0,
            high: 0.0,
        }),
        precision: estimate(precision, 1),
        recall: estimate(recall, 2),
        kappa: kappa.map(round),
        kappa_interval: interval(3),
    })
}

/// `table[judge][page]`, index 1 = success.
fn table_of(pairs: &[(bool, bool)]) -> [[u64; 2]; 2] {
    let mut table = [[0u64; 2]; 2];
    for &(judge, page) in pairs {
        table[usize::from(judge)][usize::from(page)] += 1;
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    fn episode(task: &str, success: bool, judge: Option<bool>) -> Episode {
        let mut episode = crate::results::episode::test_episode(task, "aria");
        episode.tags = vec!["click".into()];
        episode.reward = f64::from(u8::from(success));
        episode.raw_reward = f64::from(u8::from(success));
        episode.success = success;
        episode.steps = 1;
        episode.obs_tokens = 10;
        episode.input_tokens = 20;
        episode.output_tokens = 5;
        episode.judge = judge;
        episode.wall_ms = 100.0;
        episode
    }

    #[test]
    fn calibration_counts_the_judge_against_the_page() {
        // judge/page: 3 true/true, 1 true/false, 1 false/true, 3 false/false.
        let episodes: Vec<Episode> = [
            (true, true),
            (true, true),
            (true, true),
            (false, true),
            (true, false),
            (false, false),
            (false, false),
            (false, false),
        ]
        .iter()
        .enumerate()
        .map(|(i, &(page, judge))| episode(&format!("t{i}"), page, Some(judge)))
        .collect();
        let refs: Vec<&Episode> = episodes.iter().collect();
        let c = calibration(&refs).unwrap();
        assert_eq!(c.episodes, 8);
        assert_eq!(c.table, [[3, 1], [1, 3]]);
        assert_eq!(c.accuracy.value, 0.75);
        assert_eq!(c.precision.unwrap().value, 0.75);
        assert_eq!(c.recall.unwrap().value, 0.75);
        assert_eq!(c.kappa, Some(0.5));
        assert!(c.accuracy.low <= 0.75 && c.accuracy.high >= 0.75);
        // No verdicts, no calibration.
        let none = [episode("x", true, None)];
        assert!(calibration(&none.iter().collect::<Vec<_>>()).is_none());
    }

    #[test]
    fn summaries_count_tiers_and_rates() {
        let episodes = [
            episode("a", true, None),
            episode("a", false, None),
            episode("b", true, None),
        ];
        let refs: Vec<&Episode> = episodes.iter().collect();
        let s = summarize("aria", &refs);
        assert_eq!(s.episodes, 3);
        assert_eq!(s.tasks, 2);
        assert!((s.success_rate.value - 2.0 / 3.0).abs() < 1e-6);
        assert_eq!(s.tiers.get("easy"), Some(&(2, 3)));
        assert_eq!(s.obs_tokens.mean, 10.0);
    }
}
