//! Metrics over result rows (Mind2Web definitions plus target recall) with task-level bootstrap confidence intervals.
//!
//! - **Target recall**: of the steps with a target (click/type/select), the
//!   share whose expected element (or a node inside it, or an alternative) has
//!   a ref in the observation — an upper bound on element accuracy.
//! - **Element accuracy**: of the steps with a target, the share whose chosen
//!   ref resolves to the expected element.
//! - **Operation F1** (Mind2Web): per step, token-level F1 between the
//!   predicted and expected operation strings (`op` followed by the value),
//!   averaged over steps. **Op macro-F1** is also given: the classification F1
//!   of the op alone, averaged over the ops that occur.
//! - **Step success**: op, element and value all right. **Task success**:
//!   every step of the task right.
//!
//! - **Invalid-output rate**: of all steps, the share whose answer could not
//!   be read as an action. **Hallucinated-ref rate**: of all steps, the share
//!   whose answer named a ref the observation does not have.
//! - **Judge agreement**: when an LLM judge ran (rows carry `judge`), its
//!   accuracy against the rule judge (`success`) and Cohen's kappa.
//!
//! Confidence intervals: 95% percentile bootstrap, 1,000 resamples of *tasks*
//! (steps of one task are not independent), with a fixed-seed splitmix64 RNG
//! so reports are reproducible.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::agent::Op;
use crate::results::Row;

/// Bootstrap resamples.
pub const RESAMPLES: usize = 1000;
/// Bootstrap seed.
pub const SEED: u64 = 0x9a9e_5a4b_2024_0005;

/// A rate with its 95% bootstrap interval.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct Estimate {
    /// Point estimate.
    pub value: f64,
    /// 2.5th percentile.
    pub low: f64,
    /// 97.5th percentile.
    pub high: f64,
}

/// Figures for one strategy.
#[derive(Clone, Debug, Serialize)]
pub struct StrategySummary {
    /// Strategy name.
    pub strategy: String,
    /// Steps judged.
    pub steps: usize,
    /// Tasks judged.
    pub tasks: usize,
    /// Expected element had a ref.
    pub target_recall: Estimate,
    /// Chosen ref was the expected element.
    pub element_accuracy: Estimate,
    /// Mind2Web operation F1 (mean per-step token F1 of `op value`).
    pub operation_f1: Estimate,
    /// Macro F1 of the op alone over the ops that occur.
    pub op_macro_f1: f64,
    /// Step success rate.
    pub step_success: Estimate,
    /// Task success rate.
    pub task_success: Estimate,
    /// Steps whose answer named a ref absent from the observation.
    pub hallucinated_refs: usize,
    /// Share of steps whose answer named a ref absent from the observation.
    pub hallucination_rate: Estimate,
    /// Steps whose answer could not be read as an action.
    pub invalid_outputs: usize,
    /// Share of steps whose answer could not be read as an action.
    pub invalid_rate: Estimate,
    /// Steps that failed with an error (engine or agent).
    pub errors: usize,
    /// Failed model calls by fault kind.
    pub faults: BTreeMap<String, usize>,
    /// Model-call retries, summed over steps.
    pub retries: u64,
    /// Mean input text tokens (the agent's count).
    pub mean_input_tokens: f64,
    /// Input text tokens per step: median, p90, max.
    pub input_tokens: Distribution,
    /// Observation tokens (o200k) per step: median, p90, max.
    pub obs_tokens: Distribution,
    /// Mean observation tokens under o200k_base.
    pub mean_obs_tokens_o200k: f64,
    /// Mean observation tokens under cl100k_base.
    pub mean_obs_tokens_cl100k: f64,
    /// Mean image tokens (OpenAI formula; `som` only).
    pub mean_image_tokens: f64,
    /// Mean output tokens.
    pub mean_output_tokens: f64,
    /// Estimated cost of all agent calls, US dollars.
    pub total_cost_usd: f64,
    /// Estimated cost per step, US dollars.
    pub mean_cost_usd: f64,
    /// LLM judge vs rule judge (none unless rows carry a judge verdict).
    pub judge: Option<Agreement>,
    /// LLM task judge vs rule task success (none unless rows carry a task verdict).
    pub task_judge: Option<Agreement>,
    /// Wall-clock figures: they vary between runs, everything else does not.
    pub timing: Timing,
}

/// Time figures.
#[derive(Clone, Debug, Serialize)]
pub struct Timing {
    /// Mean page build + analysis µs of a step's recording (done once per
    /// recording and shared by every strategy, so equal across strategies).
    pub mean_analysis_us: f64,
    /// 90th percentile analysis µs.
    pub p90_analysis_us: f64,
    /// Mean engine µs per observation: the strategy's rendering of the analysed page.
    pub mean_engine_us: f64,
    /// Median engine µs.
    pub median_engine_us: f64,
    /// 90th percentile engine µs.
    pub p90_engine_us: f64,
    /// Mean agent (LLM) µs per call.
    pub mean_agent_us: f64,
    /// Median agent µs.
    pub median_agent_us: f64,
    /// 90th percentile agent µs.
    pub p90_agent_us: f64,
}

/// Agreement of the LLM judge with the rule judge on the steps (or tasks) it judged.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct Agreement {
    /// Steps (tasks, for the task judge) with both verdicts.
    pub steps: usize,
    /// Share of steps where the verdicts agree.
    pub accuracy: f64,
    /// Cohen's kappa (none when chance agreement is 1: both judges constant and equal).
    pub kappa: Option<f64>,
    /// The 2×2 table behind both figures.
    pub confusion: Confusion,
}

/// LLM judge verdicts against the rule judge's, counted.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq)]
pub struct Confusion {
    /// Both say success.
    pub both_success: u64,
    /// The LLM judge says success, the rule failure (the judge is lenient).
    pub judge_only: u64,
    /// The rule says success, the LLM judge failure (the judge is strict).
    pub rule_only: u64,
    /// Both say failure.
    pub both_failure: u64,
}

impl Confusion {
    /// From `table[judge][rule]`, index 1 = success.
    fn of(table: &[[u64; 2]; 2]) -> Confusion {
        Confusion {
            both_success: table[1][1],
            judge_only: table[1][0],
            rule_only: table[0][1],
            both_failure: table[0][0],
        }
    }
}

/// Median, 90th percentile (nearest rank) and maximum of a per-step count.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq)]
pub struct Distribution {
    /// Median.
    pub median: f64,
    /// 90th percentile.
    pub p90: f64,
    /// Largest.
    pub max: f64,
}

impl Distribution {
    fn of(values: impl Iterator<Item = f64>) -> Distribution {
        let v = sorted(values);
        Distribution {
            median: quantile(&v, 0.5),
            p90: quantile(&v, 0.9),
            max: v.last().copied().unwrap_or(0.0),
        }
    }
}

/// Per-task sums: (numerator, denominator) for each rate.
#[derive(Clone, Copy, Default)]
struct TaskSums {
    recall: (f64, f64),
    element: (f64, f64),
    op_f1: (f64, f64),
    step: (f64, f64),
    task: (f64, f64),
    invalid: (f64, f64),
    hallucinated: (f64, f64),
}

/// Summarises the rows of one strategy (rows of any order).
pub fn summarize(strategy: &str, rows: &[&Row]) -> StrategySummary {
    let mut by_task: BTreeMap<&str, TaskSums> = BTreeMap::new();
    for row in rows {
        let sums = by_task.entry(row.task.as_str()).or_default();
        if let Some(hit) = row.target_recall {
            add(&mut sums.recall, hit);
        }
        if let Some(ok) = row.element_ok {
            add(&mut sums.element, ok);
        }
        sums.op_f1.0 += row.op_f1;
        sums.op_f1.1 += 1.0;
        add(&mut sums.step, row.success);
        add(&mut sums.invalid, row.invalid);
        add(&mut sums.hallucinated, row.hallucinated);
    }
    for (task, sums) in &mut by_task {
        let all = rows.iter().filter(|r| r.task == *task).all(|r| r.success);
        sums.task = (f64::from(u8::from(all)), 1.0);
    }
    let tasks: Vec<TaskSums> = by_task.into_values().collect();
    let mean = |f: &dyn Fn(&Row) -> f64| round(mean_of(rows.iter().map(|r| f(r))));
    let analysis = sorted(rows.iter().map(|r| r.analysis_us as f64));
    let engine = sorted(rows.iter().map(|r| r.engine_us as f64));
    let agent = sorted(rows.iter().map(|r| r.agent_us as f64));
    let mut faults = BTreeMap::new();
    for fault in rows.iter().filter_map(|r| r.fault.as_deref()) {
        *faults.entry(fault.to_owned()).or_insert(0) += 1;
    }
    let total_cost = rows.iter().map(|r| r.cost_usd).sum::<f64>();
    StrategySummary {
        strategy: strategy.to_owned(),
        steps: rows.len(),
        tasks: tasks.len(),
        target_recall: bootstrap(&tasks, |t| t.recall),
        element_accuracy: bootstrap(&tasks, |t| t.element),
        operation_f1: bootstrap(&tasks, |t| t.op_f1),
        op_macro_f1: round(op_macro_f1(rows)),
        step_success: bootstrap(&tasks, |t| t.step),
        task_success: bootstrap(&tasks, |t| t.task),
        hallucinated_refs: rows.iter().filter(|r| r.hallucinated).count(),
        hallucination_rate: bootstrap(&tasks, |t| t.hallucinated),
        invalid_outputs: rows.iter().filter(|r| r.invalid).count(),
        invalid_rate: bootstrap(&tasks, |t| t.invalid),
        errors: rows.iter().filter(|r| r.error.is_some()).count(),
        faults,
        retries: rows.iter().map(|r| u64::from(r.retries)).sum(),
        mean_input_tokens: mean(&|r| r.input_tokens as f64),
        input_tokens: Distribution::of(rows.iter().map(|r| r.input_tokens as f64)),
        obs_tokens: Distribution::of(rows.iter().map(|r| r.obs_tokens_o200k as f64)),
        mean_obs_tokens_o200k: mean(&|r| r.obs_tokens_o200k as f64),
        mean_obs_tokens_cl100k: mean(&|r| r.obs_tokens_cl100k as f64),
        mean_image_tokens: mean(&|r| f64::from(r.image_tokens)),
        mean_output_tokens: mean(&|r| r.output_tokens as f64),
        total_cost_usd: round(total_cost),
        mean_cost_usd: round(total_cost / rows.len().max(1) as f64),
        judge: agreement(rows),
        task_judge: task_agreement(rows),
        timing: Timing {
            mean_analysis_us: round(mean_of(analysis.iter().copied())),
            p90_analysis_us: quantile(&analysis, 0.9),
            mean_engine_us: round(mean_of(engine.iter().copied())),
            median_engine_us: quantile(&engine, 0.5),
            p90_engine_us: quantile(&engine, 0.9),
            mean_agent_us: round(mean_of(agent.iter().copied())),
            median_agent_us: quantile(&agent, 0.5),
            p90_agent_us: quantile(&agent, 0.9),
        },
    }
}

/// LLM judge vs rule judge over the rows that carry a judge verdict.
pub fn agreement(rows: &[&Row]) -> Option<Agreement> {
    // table[judge][rule], index 1 = success.
    let mut table = [[0u64; 2]; 2];
    for row in rows {
        if let Some(judge) = row.judge {
            table[usize::from(judge)][usize::from(row.success)] += 1;
        }
    }
    let steps = table.iter().flatten().sum::<u64>();
    if steps == 0 {
        return None;
    }
    let agree = table[0][0] + table[1][1];
    Some(Agreement {
        steps: steps as usize,
        accuracy: round(agree as f64 / steps as f64),
        kappa: cohen_kappa(&table).map(round),
        confusion: Confusion::of(&table),
    })
}

/// LLM task judge vs rule judge per (task, strategy): the task verdict sits on
/// the task's last step; the rule says success when every step succeeded.
pub fn task_agreement(rows: &[&Row]) -> Option<Agreement> {
    let mut tasks: BTreeMap<(&str, &str), (Option<bool>, bool)> = BTreeMap::new();
    for row in rows {
        let entry = tasks
            .entry((row.task.as_str(), row.strategy.as_str()))
            .or_insert((None, true));
        entry.0 = entry.0.or(row.task_judge);
        entry.1 &= row.success;
    }
    let mut table = [[0u64; 2]; 2];
    for (judge, rule) in tasks.into_values() {
        if let Some(judge) = judge {
            table[usize::from(judge)][usize::from(rule)] += 1;
        }
    }
    let n = table.iter().flatten().sum::<u64>();
    if n == 0 {
        return None;
    }
    Some(Agreement {
        steps: n as usize,
        accuracy: round((table[0][0] + table[1][1]) as f64 / n as f64),
        kappa: cohen_kappa(&table).map(round),
        confusion: Confusion::of(&table),
    })
}

/// Cohen's kappa of a k×k contingency table (`table[a][b]`: items rater A put
/// in class `a` and rater B in class `b`): (p_o − p_e) / (1 − p_e). None when
/// the table is empty or p_e = 1 (kappa undefined).
pub fn cohen_kappa<const K: usize>(table: &[[u64; K]; K]) -> Option<f64> {
    let n = table.iter().flatten().sum::<u64>() as f64;
    if n == 0.0 {
        return None;
    }
    let observed = (0..K).map(|i| table[i][i] as f64).sum::<f64>() / n;
    let chance = (0..K)
        .map(|i| {
            let row = table[i].iter().sum::<u64>() as f64;
            let column = table.iter().map(|r| r[i]).sum::<u64>() as f64;
            row * column / (n * n)
        })
        .sum::<f64>();
    if (1.0 - chance).abs() < 1e-12 {
        return None;
    }
    Some((observed - chance) / (1.0 - chance))
}

fn mean_of(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    if n == 0 { 0.0 } else { sum / n as f64 }
}

fn sorted(values: impl Iterator<Item = f64>) -> Vec<f64> {
    let mut v: Vec<f64> = values.collect();
    v.sort_by(f64::total_cmp);
    v
}

/// Nearest-rank quantile of sorted values (0 when empty).
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn add(sum: &mut (f64, f64), hit: bool) {
    sum.0 += f64::from(u8::from(hit));
    sum.1 += 1.0;
}

pub fn round(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// Ratio of sums over tasks, with a percentile bootstrap over tasks.
fn bootstrap(tasks: &[TaskSums], pick: impl Fn(&TaskSums) -> (f64, f64)) -> Estimate {
    let pairs: Vec<(f64, f64)> = tasks.iter().map(&pick).collect();
    ratio_bootstrap(&pairs)
}

/// Σ numerators / Σ denominators over units (tasks, episodes), with a 95%
/// percentile bootstrap that resamples the units.
pub fn ratio_bootstrap(pairs: &[(f64, f64)]) -> Estimate {
    let ratio = |num: f64, den: f64| if den > 0.0 { num / den } else { 0.0 };
    let (num, den) = pairs
        .iter()
        .fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
    let value = ratio(num, den);
    if pairs.is_empty() || den == 0.0 {
        return Estimate {
            value,
            low: value,
            high: value,
        };
    }
    let mut rng = SplitMix64(SEED);
    let mut samples = Vec::with_capacity(RESAMPLES);
    for _ in 0..RESAMPLES {
        let (mut num, mut den) = (0.0, 0.0);
        for _ in 0..pairs.len() {
            let (x, y) = pairs[rng.below(pairs.len())];
            num += x;
            den += y;
        }
        if den > 0.0 {
            samples.push(num / den);
        }
    }
    samples.sort_by(f64::total_cmp);
    let at = |q: f64| {
        let i = ((samples.len() as f64 - 1.0) * q).round() as usize;
        samples.get(i).copied().unwrap_or(value)
    };
    Estimate {
        value: round(value),
        low: round(at(0.025)),
        high: round(at(0.975)),
    }
}

/// Macro F1 of the op as a class label, over the ops that occur (expected or predicted).
fn op_macro_f1(rows: &[&Row]) -> f64 {
    let mut f1s = Vec::new();
    for op in Op::ALL {
        let tp = rows
            .iter()
            .filter(|r| r.expected_op == op && r.op == Some(op))
            .count() as f64;
        let predicted = rows.iter().filter(|r| r.op == Some(op)).count() as f64;
        let expected = rows.iter().filter(|r| r.expected_op == op).count() as f64;
        if predicted == 0.0 && expected == 0.0 {
            continue;
        }
        let f1 = if tp == 0.0 {
            0.0
        } else {
            2.0 * tp / (predicted + expected)
        };
        f1s.push(f1);
    }
    if f1s.is_empty() {
        0.0
    } else {
        f1s.iter().sum::<f64>() / f1s.len() as f64
    }
}

/// splitmix64 (Steele, Lea, Flood 2014): tiny, fast, fixed-seed reproducible.
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (Lemire's multiply-shift; bias below 2^-32 for our n).
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cohen_kappa_matches_textbook_examples() {
        // Wikipedia "Cohen's kappa", worked example: 20 yes/yes, 5 yes/no,
        // 10 no/yes, 15 no/no → p_o 0.7, p_e 0.5, kappa 0.4.
        let k = cohen_kappa(&[[20, 5], [10, 15]]).unwrap();
        assert!((k - 0.4).abs() < 1e-12, "{k}");
        // Same article, "similar agreement, different kappa": 45/15/25/15 → 0.1304,
        // 25/35/5/35 → 0.2593.
        let k = cohen_kappa(&[[45, 15], [25, 15]]).unwrap();
        assert!((k - 0.130_434_78).abs() < 1e-6, "{k}");
        let k = cohen_kappa(&[[25, 35], [5, 35]]).unwrap();
        assert!((k - 0.259_259_26).abs() < 1e-6, "{k}");
        // Perfect agreement is 1, systematic disagreement is negative.
        assert_eq!(cohen_kappa(&[[7, 0], [0, 3]]), Some(1.0));
        assert_eq!(cohen_kappa(&[[0, 5], [5, 0]]), Some(-1.0));
        // Undefined: empty, or both raters constant on the same class.
        assert_eq!(cohen_kappa(&[[0, 0], [0, 0]]), None);
        assert_eq!(cohen_kappa(&[[4, 0], [0, 0]]), None);
        // Three classes: p_o 0.7, p_e from the marginals (40, 30, 30 each way).
        let k = cohen_kappa(&[[30, 5, 5], [5, 20, 5], [5, 5, 20]]).unwrap();
        let (po, pe) = (0.7, (40.0 * 40.0 + 30.0 * 30.0 + 30.0 * 30.0) / 10_000.0);
        assert!((k - (po - pe) / (1.0 - pe)).abs() < 1e-12, "{k}");
    }

    fn judged(task: &str, success: bool, judge: Option<bool>) -> Row {
        let mut row = crate::results::row::test_row(task, "s", 1, success);
        row.judge = judge;
        row
    }

    #[test]
    fn judge_agreement_counts_only_judged_rows() {
        // The Wikipedia table again, judge = rater A, rule = rater B: 20 both
        // yes, 5 judge yes / rule no, 10 judge no / rule yes, 15 both no.
        let mut rows = Vec::new();
        for (judge, rule, n) in [
            (true, true, 20),
            (true, false, 5),
            (false, true, 10),
            (false, false, 15),
        ] {
            rows.extend((0..n).map(|i| judged(&format!("t{i}"), rule, Some(judge))));
        }
        rows.push(judged("unjudged", true, None));
        let refs: Vec<&Row> = rows.iter().collect();
        let a = agreement(&refs).unwrap();
        assert_eq!((a.steps, a.accuracy), (50, 0.7));
        assert!((a.kappa.unwrap() - 0.4).abs() < 1e-9, "{a:?}");
        assert_eq!(
            agreement(&refs[50..]),
            None,
            "no judge verdicts, no agreement"
        );
        let summary = summarize("s", &refs);
        assert_eq!(summary.judge, Some(a));
    }

    #[test]
    fn quantile_is_nearest_rank() {
        let v: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(quantile(&v, 0.5), 5.0);
        assert_eq!(quantile(&v, 0.9), 9.0);
        assert_eq!(quantile(&v, 1.0), 10.0);
        assert_eq!(quantile(&[], 0.9), 0.0);
    }

    #[test]
    fn splitmix64_is_the_reference_sequence() {
        // First outputs for seed 0 from the reference implementation.
        let mut rng = SplitMix64(0);
        assert_eq!(rng.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(rng.next_u64(), 0x6e78_9e6a_a1b9_65f4);
        let mut rng = SplitMix64(7);
        assert!((0..1000).all(|_| rng.below(3) < 3));
    }

    #[test]
    fn bootstrap_brackets_the_estimate_and_is_exact_for_constant_data() {
        let constant = vec![
            TaskSums {
                step: (1.0, 1.0),
                ..TaskSums::default()
            };
            10
        ];
        let e = bootstrap(&constant, |t| t.step);
        assert_eq!((e.value, e.low, e.high), (1.0, 1.0, 1.0));
        let mixed: Vec<TaskSums> = (0..40)
            .map(|i| TaskSums {
                step: (f64::from(u8::from(i % 4 != 0)), 1.0),
                ..TaskSums::default()
            })
            .collect();
        let e = bootstrap(&mixed, |t| t.step);
        assert_eq!(e.value, 0.75);
        assert!(
            e.low < 0.75 && e.high > 0.75 && e.low > 0.5 && e.high <= 1.0,
            "{e:?}"
        );
    }
}
