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
//! Confidence intervals: 95% percentile bootstrap, 1,000 resamples of *tasks*
//! (steps of one task are not independent), with a fixed-seed splitmix64 RNG
//! so reports are reproducible.

use std::collections::BTreeMap;

use serde::Serialize;

use super::Row;
use crate::agent::Op;

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
    /// Steps that failed with an error (engine or agent).
    pub errors: usize,
    /// Mean input text tokens (o200k_base).
    pub mean_input_tokens: f64,
    /// Mean image tokens (OpenAI formula; `som` only).
    pub mean_image_tokens: f64,
    /// Mean output tokens.
    pub mean_output_tokens: f64,
    /// Wall-clock figures: they vary between runs, everything else does not.
    pub timing: Timing,
}

/// Time figures.
#[derive(Clone, Debug, Serialize)]
pub struct Timing {
    /// Mean engine µs per observation (page build + analysis + render).
    pub mean_engine_us: f64,
    /// Median engine µs.
    pub median_engine_us: f64,
    /// Mean agent µs per call.
    pub mean_agent_us: f64,
}

/// Per-task sums: (numerator, denominator) for each rate.
#[derive(Clone, Copy, Default)]
struct TaskSums {
    recall: (f64, f64),
    element: (f64, f64),
    op_f1: (f64, f64),
    step: (f64, f64),
    task: (f64, f64),
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
    }
    for (task, sums) in &mut by_task {
        let all = rows.iter().filter(|r| r.task == *task).all(|r| r.success);
        sums.task = (f64::from(u8::from(all)), 1.0);
    }
    let tasks: Vec<TaskSums> = by_task.into_values().collect();
    let n = rows.len().max(1) as f64;
    let mut engine: Vec<f64> = rows.iter().map(|r| r.engine_us as f64).collect();
    engine.sort_by(f64::total_cmp);
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
        errors: rows.iter().filter(|r| r.error.is_some()).count(),
        mean_input_tokens: round(rows.iter().map(|r| r.input_tokens as f64).sum::<f64>() / n),
        mean_image_tokens: round(rows.iter().map(|r| f64::from(r.image_tokens)).sum::<f64>() / n),
        mean_output_tokens: round(rows.iter().map(|r| r.output_tokens as f64).sum::<f64>() / n),
        timing: Timing {
            mean_engine_us: round(engine.iter().sum::<f64>() / n),
            median_engine_us: engine.get(engine.len() / 2).copied().unwrap_or(0.0),
            mean_agent_us: round(rows.iter().map(|r| r.agent_us as f64).sum::<f64>() / n),
        },
    }
}

fn add(sum: &mut (f64, f64), hit: bool) {
    sum.0 += f64::from(u8::from(hit));
    sum.1 += 1.0;
}

fn round(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// Ratio of sums over tasks, with a percentile bootstrap over tasks.
fn bootstrap(tasks: &[TaskSums], pick: impl Fn(&TaskSums) -> (f64, f64)) -> Estimate {
    let pairs: Vec<(f64, f64)> = tasks.iter().map(&pick).collect();
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

/// Token-level F1 between two operation strings (Mind2Web's operation F1).
pub fn token_f1(predicted: &str, expected: &str) -> f64 {
    let tokens = |s: &str| -> Vec<String> { s.split_whitespace().map(str::to_lowercase).collect() };
    let p = tokens(predicted);
    let mut e = tokens(expected);
    if p.is_empty() || e.is_empty() {
        return f64::from(u8::from(p.is_empty() && e.is_empty()));
    }
    let mut common = 0usize;
    for token in &p {
        if let Some(i) = e.iter().position(|t| t == token) {
            e.swap_remove(i);
            common += 1;
        }
    }
    if common == 0 {
        return 0.0;
    }
    let precision = common as f64 / p.len() as f64;
    let recall = common as f64 / tokens(expected).len() as f64;
    2.0 * precision * recall / (precision + recall)
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
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (Lemire's multiply-shift; bias below 2^-32 for our n).
    fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next()) * n as u128) >> 64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_f1_matches_mind2web_examples() {
        assert_eq!(token_f1("click", "click"), 1.0);
        assert_eq!(token_f1("type new york", "type new york"), 1.0);
        let f = token_f1("type new", "type new york");
        assert!((f - 0.8).abs() < 1e-9, "{f}");
        assert_eq!(token_f1("click", "type x"), 0.0);
    }

    #[test]
    fn splitmix64_is_the_reference_sequence() {
        // First outputs for seed 0 from the reference implementation.
        let mut rng = SplitMix64(0);
        assert_eq!(rng.next(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(rng.next(), 0x6e78_9e6a_a1b9_65f4);
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
