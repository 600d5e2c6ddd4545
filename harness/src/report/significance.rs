//! Paired significance of step-success differences between strategies: McNemar's exact test and a paired bootstrap over tasks.
//!
//! Both strategies are compared on the (task, step) pairs both ran. McNemar's
//! exact test looks only at the discordant steps — `b` where the first
//! strategy succeeded and the second failed, `c` the reverse — and asks how
//! likely a split at least this uneven is under Binomial(b + c, ½), two-sided
//! (McNemar 1947; the exact form as in Fagerland, Lydersen & Laake 2013).
//! The paired bootstrap resamples *tasks* (steps of a task are not
//! independent) and gives a 95% percentile interval of the step-SR
//! difference. A difference is called significant at 0.05 when the exact
//! p-value is below 0.05.

use std::collections::BTreeMap;

use serde::Serialize;

use super::metrics::{self, Estimate, SplitMix64};
use crate::results::Row;

/// Significance level used for the verdict.
pub const ALPHA: f64 = 0.05;

/// One pair of strategies.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Comparison {
    /// First strategy.
    pub a: String,
    /// Second strategy.
    pub b: String,
    /// Steps both ran.
    pub steps: usize,
    /// Steps `a` passed and `b` failed.
    pub a_only: u64,
    /// Steps `b` passed and `a` failed.
    pub b_only: u64,
    /// Step SR of `a` minus step SR of `b` on the shared steps, with its paired bootstrap interval.
    pub difference: Estimate,
    /// McNemar's exact two-sided p-value.
    pub p_value: f64,
    /// `p_value < 0.05`.
    pub significant: bool,
}

/// Every pair of strategies, in strategy order (a before b).
pub fn compare_all(strategies: &[String], rows: &[Row]) -> Vec<Comparison> {
    let mut out = Vec::new();
    for (i, a) in strategies.iter().enumerate() {
        for b in &strategies[i + 1..] {
            out.push(compare(a, b, rows));
        }
    }
    out
}

/// Compares strategies `a` and `b` on the steps both ran.
pub fn compare(a: &str, b: &str, rows: &[Row]) -> Comparison {
    let outcomes = |name: &str| -> BTreeMap<(&str, usize), bool> {
        rows.iter()
            .filter(|r| r.strategy == name)
            .map(|r| ((r.task.as_str(), r.step), r.success))
            .collect()
    };
    let (left, right) = (outcomes(a), outcomes(b));
    let pairs = left
        .iter()
        .filter_map(|(key, &x)| right.get(key).map(|&y| (key.0, x, y)));
    compare_pairs(a, b, pairs)
}

/// Compares `a` and `b` on paired outcomes `(group, a passed, b passed)`:
/// McNemar's exact test on the pairs, and a paired bootstrap of the
/// success-rate difference that resamples the groups (tasks).
pub fn compare_pairs<'g>(
    a: &str,
    b: &str,
    pairs: impl Iterator<Item = (&'g str, bool, bool)>,
) -> Comparison {
    // Per group: (a successes, b successes, pairs).
    let mut tasks: BTreeMap<&str, (f64, f64, f64)> = BTreeMap::new();
    let (mut a_only, mut b_only, mut steps) = (0u64, 0u64, 0usize);
    for (group, x, y) in pairs {
        steps += 1;
        match (x, y) {
            (true, false) => a_only += 1,
            (false, true) => b_only += 1,
            _ => {}
        }
        let t = tasks.entry(group).or_default();
        t.0 += f64::from(u8::from(x));
        t.1 += f64::from(u8::from(y));
        t.2 += 1.0;
    }
    let p_value = metrics::round(mcnemar_exact(a_only, b_only));
    Comparison {
        a: a.to_owned(),
        b: b.to_owned(),
        steps,
        a_only,
        b_only,
        difference: paired_bootstrap(&tasks.into_values().collect::<Vec<_>>()),
        p_value,
        significant: p_value < ALPHA,
    }
}

/// McNemar's exact test: two-sided binomial p-value of `b` vs `c` discordant
/// pairs under Binomial(b + c, ½), i.e. min(1, 2 · P(X ≤ min(b, c))).
/// Summed in log space so thousands of pairs do not underflow.
pub fn mcnemar_exact(b: u64, c: u64) -> f64 {
    let n = b + c;
    if n == 0 {
        return 1.0;
    }
    let k = b.min(c);
    let ln_half_n = n as f64 * std::f64::consts::LN_2;
    let mut ln_choose = 0.0; // ln C(n, 0)
    let mut tail = 0.0;
    for i in 0..=k {
        if i > 0 {
            ln_choose += ((n - i + 1) as f64).ln() - (i as f64).ln();
        }
        tail += (ln_choose - ln_half_n).exp();
    }
    (2.0 * tail).min(1.0)
}

/// Percentile bootstrap over tasks of SR(a) − SR(b); each task is (a passes, b passes, steps).
fn paired_bootstrap(tasks: &[(f64, f64, f64)]) -> Estimate {
    let diff = |sample: &mut dyn Iterator<Item = (f64, f64, f64)>| {
        let (x, y, n) = sample.fold((0.0, 0.0, 0.0), |acc, t| {
            (acc.0 + t.0, acc.1 + t.1, acc.2 + t.2)
        });
        if n > 0.0 { (x - y) / n } else { 0.0 }
    };
    let value = diff(&mut tasks.iter().copied());
    if tasks.is_empty() {
        return Estimate {
            value,
            low: value,
            high: value,
        };
    }
    let mut rng = SplitMix64(metrics::SEED);
    let mut samples: Vec<f64> = (0..metrics::RESAMPLES)
        .map(|_| diff(&mut (0..tasks.len()).map(|_| tasks[rng.below(tasks.len())])))
        .collect();
    samples.sort_by(f64::total_cmp);
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    Estimate {
        value: metrics::round(value),
        low: metrics::round(at(0.025)),
        high: metrics::round(at(0.975)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::Op;

    #[test]
    fn mcnemar_exact_matches_known_values() {
        // b = 10, c = 2: 2 · (1 + 12 + 66) / 4096 = 0.03857.
        let p = mcnemar_exact(10, 2);
        assert!((p - 0.038_574_22).abs() < 1e-7, "{p}");
        assert_eq!(mcnemar_exact(2, 10), p, "symmetric");
        // No discordant pairs, or a perfect tie: no evidence.
        assert_eq!(mcnemar_exact(0, 0), 1.0);
        assert_eq!(mcnemar_exact(5, 5), 1.0);
        // b = 6, c = 0: 2 / 64.
        assert!((mcnemar_exact(6, 0) - 0.031_25).abs() < 1e-12);
        // b = 5, c = 0: 2 / 32 = 0.0625, not significant.
        assert!((mcnemar_exact(5, 0) - 0.0625).abs() < 1e-12);
        // Large n does not underflow: 3000 vs 2900 is p ≈ 0.20 (normal approx. z = 1.28).
        let p = mcnemar_exact(3000, 2900);
        assert!(p > 0.15 && p < 0.25, "{p}");
    }

    fn row(task: &str, step: usize, strategy: &str, success: bool) -> Row {
        let mut r: Row = serde_json::from_value(serde_json::json!({
            "task": task, "strategy": strategy, "step": step, "recording": "r",
            "expected_op": "click", "expected_target": "#x", "expected_value": null,
            "op": null, "ref": null, "value": null, "node": null, "hallucinated": false,
            "target_recall": null, "op_ok": false, "element_ok": null, "value_ok": null,
            "success": false, "op_f1": 0.0, "refs": 0, "input_tokens": 0, "image_tokens": 0,
            "output_tokens": 0, "engine_us": 0, "agent_us": 0, "error": null, "raw": ""
        }))
        .unwrap();
        r.success = success;
        r.expected_op = Op::Click;
        r
    }

    #[test]
    fn compare_counts_discordant_steps_on_shared_steps_only() {
        let mut rows = Vec::new();
        // 12 one-step tasks: a wins 10 of them alone, b wins 2 alone.
        for t in 0..12 {
            let task = format!("t{t}");
            rows.push(row(&task, 1, "a", t < 10));
            rows.push(row(&task, 1, "b", t >= 10));
        }
        // A step only `a` ran does not count.
        rows.push(row("extra", 1, "a", true));
        let c = compare("a", "b", &rows);
        assert_eq!((c.steps, c.a_only, c.b_only), (12, 10, 2));
        assert!((c.p_value - 0.038_574).abs() < 1e-6, "{}", c.p_value);
        assert!(c.significant);
        let d = c.difference;
        assert!((d.value - 8.0 / 12.0).abs() < 1e-6, "{d:?}");
        assert!(
            d.low > 0.0 && d.low <= d.value && d.value <= d.high,
            "{d:?}"
        );
        let reverse = compare("b", "a", &rows);
        assert_eq!((reverse.a_only, reverse.b_only), (2, 10));
        assert!((reverse.difference.value + 8.0 / 12.0).abs() < 1e-6);
        // Identical strategies: p = 1, difference 0.
        let same = compare("a", "a", &rows);
        assert_eq!((same.p_value, same.significant), (1.0, false));
        assert_eq!(same.difference.value, 0.0);
    }
}
