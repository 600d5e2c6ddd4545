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
    /// The smallest step-SR difference this many paired steps can show at
    /// α 0.05 with power 0.8 (McNemar, Connor's approximation at the
    /// observed share of discordant steps; never below what the exact test
    /// needs: 6 discordant steps all one way). None without steps.
    pub min_detectable: Option<f64>,
    /// Why the exact test and the bootstrap interval disagree, or that the
    /// two strategies had the same outcome on every step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
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
    let groups = tasks.len();
    let difference = paired_bootstrap(&tasks.into_values().collect::<Vec<_>>());
    let significant = p_value < ALPHA;
    let interval_excludes_zero = difference.low > 0.0 || difference.high < 0.0;
    let discordant = a_only + b_only;
    let note = if steps > 0 && discordant == 0 {
        Some(format!(
            "the same outcome on all {steps} steps: nothing tells the two apart on this suite"
        ))
    } else if interval_excludes_zero && !significant {
        Some(format!(
            "the bootstrap interval excludes 0 but the exact test does not reject: with {discordant} \
             discordant steps ({a_only} vs {b_only}) McNemar is conservative (it needs at least {MIN_ONE_WAY} \
             one way), while the bootstrap over {groups} tasks is approximate on a small suite; \
             treat the difference as suggestive and grow the suite"
        ))
    } else if significant && !interval_excludes_zero {
        Some(format!(
            "the exact test rejects but the bootstrap interval includes 0: the {discordant} discordant \
             steps sit in few of the {groups} tasks, and resampling tasks gives them a wide spread"
        ))
    } else {
        None
    };
    Comparison {
        a: a.to_owned(),
        b: b.to_owned(),
        steps,
        a_only,
        b_only,
        difference,
        p_value,
        significant,
        min_detectable: min_detectable(steps, discordant).map(metrics::round),
        note,
    }
}

/// Discordant steps, all one way, that McNemar's exact test needs before
/// it can reject at 0.05 (2 · ½⁶ = 0.031; five give 0.0625).
pub const MIN_ONE_WAY: u64 = 6;

/// The smallest SR difference `steps` paired steps can detect at α 0.05
/// (two-sided) with power 0.8: Connor's (1987) sample size for McNemar's
/// test, n = (z_α·√p_d + z_β·√(p_d − δ²))² / δ², solved for δ at the
/// observed discordant share p_d, and never below MIN_ONE_WAY / n.
pub fn min_detectable(steps: usize, discordant: u64) -> Option<f64> {
    if steps == 0 {
        return None;
    }
    let n = steps as f64;
    let floor = (MIN_ONE_WAY as f64 / n).min(1.0);
    let p_d = discordant as f64 / n;
    if p_d == 0.0 {
        return Some(floor);
    }
    const Z_ALPHA: f64 = 1.959_964;
    const Z_BETA: f64 = 0.841_621;
    let needed = |delta: f64| {
        let a = Z_ALPHA * p_d.sqrt() + Z_BETA * (p_d - delta * delta).max(0.0).sqrt();
        a * a / (delta * delta)
    };
    // `needed` falls as δ grows: bisect for needed(δ) = n on (0, √p_d].
    let (mut low, mut high) = (1e-9, p_d.sqrt());
    if needed(high) > n {
        // Even a difference as large as the discordance allows needs more steps.
        return Some(high.max(floor));
    }
    for _ in 0..100 {
        let mid = (low + high) / 2.0;
        if needed(mid) > n {
            low = mid;
        } else {
            high = mid;
        }
    }
    Some(high.max(floor))
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

    #[test]
    fn the_minimum_detectable_difference_follows_connor_and_the_exact_floor() {
        // Connor's worked range: 100 pairs at 20% discordance detect about
        // 12.5 points (n(δ=0.125) = (1.96·0.447 + 0.842·0.424)² / 0.0156 ≈ 101).
        let mde = min_detectable(100, 20).unwrap();
        assert!((mde - 0.125).abs() < 0.005, "{mde}");
        // More pairs, smaller differences.
        assert!(min_detectable(400, 80).unwrap() < mde);
        // Nothing discordant: the exact test's own floor, 6 steps one way.
        assert_eq!(min_detectable(66, 0), Some(6.0 / 66.0));
        assert_eq!(min_detectable(0, 0), None);
        // Tiny suites cannot show anything small.
        assert!(min_detectable(8, 4).unwrap() >= 0.7);
    }

    #[test]
    fn notes_explain_disagreement_and_identical_outcomes() {
        // 5 vs 0 discordant steps in five tasks: the bootstrap excludes 0,
        // McNemar's p is 0.0625.
        let pairs: Vec<(String, bool, bool)> =
            (0..10).map(|i| (format!("t{i}"), true, i >= 5)).collect();
        let c = compare_pairs("a", "b", pairs.iter().map(|(t, x, y)| (t.as_str(), *x, *y)));
        assert!(!c.significant && c.difference.low > 0.0, "{c:?}");
        assert!(
            c.note.as_deref().unwrap_or("").contains("conservative"),
            "{c:?}"
        );
        let same: Vec<(String, bool, bool)> = (0..4)
            .map(|i| (format!("t{i}"), i % 2 == 0, i % 2 == 0))
            .collect();
        let c = compare_pairs("a", "b", same.iter().map(|(t, x, y)| (t.as_str(), *x, *y)));
        assert!(
            c.note
                .as_deref()
                .unwrap_or("")
                .starts_with("the same outcome on all 4 steps"),
            "{c:?}"
        );
    }

    fn row(task: &str, step: usize, strategy: &str, success: bool) -> Row {
        crate::results::row::test_row(task, strategy, step, success)
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
