//! The regression table between two run folders' `summary.json` (`pagesnap diff BASE NEW`), per strategy, and its `--fail-if` gates for CI.
//!
//! Rates (recall, accuracy, SR, F1) move in percentage points (`pp`), other
//! figures in percent of the base value. `--fail-if` takes comma-separated
//! rules `METRIC<-Xpp`, `METRIC>+X%`, … (the metric names are in
//! [`METRICS`]); a strategy of BASE missing from NEW is always a breach.
//! Two runs of another suite, task set, agent or set of strategies (per their
//! `run.json`) are refused rather than compared.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::results::manifest::{self, Manifest};
use crate::results::{Episode, Row, jsonl};

/// Whether a metric is a rate in [0, 1] (deltas in pp) or an amount (deltas in %).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Rate,
    Amount,
}

/// A metric `diff` knows: its name on the command line and its place in summary.json.
pub struct Metric {
    /// Name in `--fail-if`.
    pub name: &'static str,
    /// JSON path inside a strategy's summary.
    path: &'static [&'static str],
    kind: Kind,
    /// Shown without being asked for.
    default: bool,
    /// A live run's metric (`pagesnap live`), not a replay's.
    live: bool,
}

/// Every metric, in table order.
pub const METRICS: &[Metric] = &[
    metric(
        "target_recall",
        &["target_recall", "value"],
        Kind::Rate,
        true,
    ),
    metric(
        "element_acc",
        &["element_accuracy", "value"],
        Kind::Rate,
        true,
    ),
    metric("op_f1", &["operation_f1", "value"], Kind::Rate, false),
    metric("step_sr", &["step_success", "value"], Kind::Rate, true),
    metric("task_sr", &["task_success", "value"], Kind::Rate, true),
    metric(
        "invalid_rate",
        &["invalid_rate", "value"],
        Kind::Rate,
        false,
    ),
    metric(
        "hallucination_rate",
        &["hallucination_rate", "value"],
        Kind::Rate,
        false,
    ),
    metric("tokens", &["mean_input_tokens"], Kind::Amount, true),
    metric(
        "obs_tokens",
        &["mean_obs_tokens_o200k"],
        Kind::Amount,
        false,
    ),
    metric(
        "obs_tokens_cl100k",
        &["mean_obs_tokens_cl100k"],
        Kind::Amount,
        false,
    ),
    metric("image_tokens", &["mean_image_tokens"], Kind::Amount, false),
    metric(
        "output_tokens",
        &["mean_output_tokens"],
        Kind::Amount,
        false,
    ),
    metric("cost", &["mean_cost_usd"], Kind::Amount, false),
    metric("errors", &["errors"], Kind::Amount, false),
    metric(
        "engine_us",
        &["timing", "mean_engine_us"],
        Kind::Amount,
        true,
    ),
    metric(
        "agent_us",
        &["timing", "mean_agent_us"],
        Kind::Amount,
        false,
    ),
    live("success_rate", &["success_rate", "value"], Kind::Rate, true),
    live("mean_reward", &["mean_reward", "value"], Kind::Rate, true),
    live("steps", &["mean_steps"], Kind::Amount, true),
    live(
        "episode_obs_tokens",
        &["obs_tokens", "mean"],
        Kind::Amount,
        true,
    ),
    live(
        "episode_input_tokens",
        &["input_tokens", "mean"],
        Kind::Amount,
        false,
    ),
    live("episode_errors", &["errors"], Kind::Amount, false),
    live(
        "capture_ms",
        &["timing", "capture_ms", "median"],
        Kind::Amount,
        true,
    ),
    live(
        "agent_ms",
        &["timing", "agent_ms", "median"],
        Kind::Amount,
        false,
    ),
];

const fn metric(
    name: &'static str,
    path: &'static [&'static str],
    kind: Kind,
    default: bool,
) -> Metric {
    Metric {
        name,
        path,
        kind,
        default,
        live: false,
    }
}

const fn live(
    name: &'static str,
    path: &'static [&'static str],
    kind: Kind,
    default: bool,
) -> Metric {
    Metric {
        live: true,
        ..metric(name, path, kind, default)
    }
}

fn metric_by_name(name: &str) -> Option<&'static Metric> {
    METRICS.iter().find(|m| m.name == name)
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Unit {
    Points,
    Percent,
}

/// One `--fail-if` rule.
pub struct Rule {
    metric: &'static Metric,
    above: bool,
    threshold: f64,
    unit: Unit,
    text: String,
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Reads `--fail-if` rules: comma-separated `METRIC<-Xpp`, `METRIC>+X%`, ….
pub fn parse_rules(text: &str) -> Result<Vec<Rule>> {
    text.split(',')
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .map(parse_rule)
        .collect()
}

fn parse_rule(text: &str) -> Result<Rule> {
    let grammar = "expected METRIC<-Xpp, METRIC>+X%, METRIC<-X% or METRIC>+Xpp";
    let Some(at) = text.find(['<', '>']) else {
        bail!("--fail-if rule {text:?}: no < or > ({grammar})");
    };
    let name = text[..at].trim();
    let above = text[at..].starts_with('>');
    let rest = text[at + 1..].trim();
    let Some(metric) = metric_by_name(name) else {
        let known: Vec<&str> = METRICS.iter().map(|m| m.name).collect();
        bail!(
            "--fail-if rule {text:?}: unknown metric {name:?} (known: {})",
            known.join(", ")
        );
    };
    let (number, unit) = if let Some(n) = rest.strip_suffix("pp") {
        (n, Unit::Points)
    } else if let Some(n) = rest.strip_suffix('%') {
        (n, Unit::Percent)
    } else {
        bail!("--fail-if rule {text:?}: the threshold needs a unit, pp or % ({grammar})");
    };
    let threshold: f64 = number
        .trim()
        .parse()
        .ok()
        .filter(|x: &f64| x.is_finite())
        .with_context(|| {
            format!("--fail-if rule {text:?}: {number:?} is not a number ({grammar})")
        })?;
    if unit == Unit::Points && metric.kind != Kind::Rate {
        bail!("--fail-if rule {text:?}: {name} is not a rate; use % instead of pp");
    }
    Ok(Rule {
        metric,
        above,
        threshold,
        unit,
        text: text.to_owned(),
    })
}

/// A run folder's summary.json, with the run.json that says what it covers.
pub struct Summary {
    path: PathBuf,
    dir: PathBuf,
    manifest: Manifest,
    /// A live run's summary (`"kind": "live"`).
    live: bool,
    strategies: Vec<(String, Value)>,
}

/// Reads `<dir>/summary.json` and `<dir>/run.json`; errors name the file and the field.
pub fn read_summary(dir: &Path) -> Result<Summary> {
    let path = dir.join("summary.json");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("could not read {}", path.display()))?;
    let json: Value = serde_json::from_str(&text)
        .with_context(|| format!("{} is not valid JSON", path.display()))?;
    let Some(list) = json.get("strategies").and_then(Value::as_array) else {
        bail!(
            "{}: field `strategies` is missing or not a list",
            path.display()
        );
    };
    let mut strategies = Vec::new();
    for (i, s) in list.iter().enumerate() {
        let Some(name) = s.get("strategy").and_then(Value::as_str) else {
            bail!(
                "{}: strategies[{i}].strategy is missing or not a string",
                path.display()
            );
        };
        strategies.push((name.to_owned(), s.clone()));
    }
    let live = json.get("kind").and_then(Value::as_str) == Some("live");
    let manifest = Manifest::read(dir)?;
    Ok(Summary {
        path,
        dir: dir.to_owned(),
        manifest,
        live,
        strategies,
    })
}

/// Refuses two runs that did not run the same thing: another suite, task
/// set (tasks or shard), agent or set of strategies. Their figures are not
/// comparable, and a table of them would read as "no breach".
fn check_same_run(base: &Summary, new: &Summary) -> Result<()> {
    let (a, b) = (&base.manifest, &new.manifest);
    let ids = |m: &Manifest| {
        m.tasks
            .iter()
            .map(|t| t.id.as_str())
            .collect::<Vec<_>>()
            .join(",")
    };
    let strategies = |m: &Manifest| {
        let mut names = m.strategies.clone();
        names.sort();
        names.join(",")
    };
    let shard = |m: &Manifest| {
        m.shard
            .map_or("the whole suite".to_owned(), |s| s.to_string())
    };
    let fields: [(&str, String, String); 5] = [
        ("suite", a.suite.clone(), b.suite.clone()),
        ("tasks", ids(a), ids(b)),
        ("shard", shard(a), shard(b)),
        ("agent", a.agent.clone(), b.agent.clone()),
        ("strategies", strategies(a), strategies(b)),
    ];
    let base_file = base.dir.join(manifest::FILE);
    let new_file = new.dir.join(manifest::FILE);
    for (field, was, now) in fields {
        if was != now {
            bail!(
                "cannot diff runs that differ in `{field}`: {was:?} in {} and {now:?} in {}; \
                 diff compares two runs of the same suite, tasks, agent and strategies",
                base_file.display(),
                new_file.display()
            );
        }
    }
    // Tags are report categories, not the task: retagging a suite keeps
    // its runs comparable.
    if let Some((was, now)) = a
        .tasks
        .iter()
        .zip(&b.tasks)
        .find(|(x, y)| x.id != y.id || x.instruction != y.instruction || x.steps != y.steps)
    {
        bail!(
            "cannot diff runs that differ in `tasks`: task {:?} has instruction {:?} and {} steps \
             in {} but {:?} and {} steps in {}",
            was.id,
            was.instruction,
            was.steps,
            base_file.display(),
            now.instruction,
            now.steps,
            new_file.display()
        );
    }
    Ok(())
}

fn value_of(summary: &Summary, strategy: &str, figures: &Value, metric: &Metric) -> Result<f64> {
    let mut at = figures;
    for key in metric.path {
        at = at.get(key).with_context(|| {
            format!(
                "{}: strategy {strategy}: field `{}` is missing (metric {})",
                summary.path.display(),
                metric.path.join("."),
                metric.name
            )
        })?;
    }
    at.as_f64().with_context(|| {
        format!(
            "{}: strategy {strategy}: field `{}` is {at}, not a number",
            summary.path.display(),
            metric.path.join(".")
        )
    })
}

/// Percentage points for rates, percent of base for amounts.
fn delta(base: f64, new: f64, unit: Unit) -> f64 {
    match unit {
        Unit::Points => (new - base) * 100.0,
        Unit::Percent if base == 0.0 => {
            if new == 0.0 {
                0.0
            } else {
                f64::INFINITY.copysign(new)
            }
        }
        Unit::Percent => (new - base) / base.abs() * 100.0,
    }
}

fn show(value: f64, kind: Kind) -> String {
    match kind {
        Kind::Rate => format!("{value:.3}"),
        Kind::Amount => format!("{value:.1}"),
    }
}

fn show_delta(d: f64, unit: Unit) -> String {
    match unit {
        Unit::Points => format!("{d:+.1}pp"),
        Unit::Percent if d.is_infinite() => format!("{}inf%", if d > 0.0 { "+" } else { "-" }),
        Unit::Percent => format!("{d:+.1}%"),
    }
}

fn natural_unit(kind: Kind) -> Unit {
    match kind {
        Kind::Rate => Unit::Points,
        Kind::Amount => Unit::Percent,
    }
}

/// Compares the strategies of `base` and `new` on the default metrics and
/// those `rules` name: hands the table to `emit` line by line (a line is out
/// before a later figure can fail to read) and returns the breaches, a
/// strategy of `base` missing from `new` among them.
pub fn compare(
    base: &Summary,
    new: &Summary,
    rules: &[Rule],
    emit: &mut dyn FnMut(String),
) -> Result<Vec<String>> {
    if base.live != new.live {
        let kind = |s: &Summary| {
            if s.live {
                "a live run"
            } else {
                "an offline replay"
            }
        };
        bail!(
            "{} is {} and {} is {}: diff compares runs of one kind",
            base.path.display(),
            kind(base),
            new.path.display(),
            kind(new)
        );
    }
    check_same_run(base, new)?;
    if let Some(rule) = rules.iter().find(|r| r.metric.live != base.live) {
        bail!(
            "--fail-if rule {rule}: {} is a metric of {}, and these are {}",
            rule.metric.name,
            if rule.metric.live {
                "live runs"
            } else {
                "offline replays"
            },
            if base.live {
                "live runs"
            } else {
                "offline replays"
            }
        );
    }
    let shown: Vec<&Metric> = METRICS
        .iter()
        .filter(|m| m.live == base.live)
        .filter(|m| m.default || rules.iter().any(|r| r.metric.name == m.name))
        .collect();
    let mut breaches: Vec<String> = Vec::new();
    emit(format!(
        "{:<12} {:<20} {:>12} {:>12} {:>10}",
        "strategy", "metric", "base", "new", "delta"
    ));
    for (name, base_figures) in &base.strategies {
        let Some((_, new_figures)) = new.strategies.iter().find(|(n, _)| n == name) else {
            emit(format!("{name:<12} (missing in {})", new.path.display()));
            breaches.push(format!(
                "strategy {name} is missing in {}",
                new.path.display()
            ));
            continue;
        };
        for metric in &shown {
            let b = value_of(base, name, base_figures, metric)?;
            let n = value_of(new, name, new_figures, metric)?;
            let unit = natural_unit(metric.kind);
            let timing = if metric.path.first() == Some(&"timing") {
                "  (timing)"
            } else {
                ""
            };
            emit(format!(
                "{:<12} {:<20} {:>12} {:>12} {:>10}{timing}",
                name,
                metric.name,
                show(b, metric.kind),
                show(n, metric.kind),
                show_delta(delta(b, n, unit), unit)
            ));
            for rule in rules.iter().filter(|r| r.metric.name == metric.name) {
                let d = delta(b, n, rule.unit);
                let hit = if rule.above {
                    d > rule.threshold
                } else {
                    d < rule.threshold
                };
                if hit {
                    breaches.push(format!(
                        "{name} {}: {} → {} ({}) breaks {rule}",
                        metric.name,
                        show(b, metric.kind),
                        show(n, metric.kind),
                        show_delta(d, rule.unit)
                    ));
                }
            }
        }
    }
    for (name, _) in &new.strategies {
        if !base.strategies.iter().any(|(n, _)| n == name) {
            emit(format!("{name:<12} (new: not in {})", base.path.display()));
        }
    }
    flipped(base, new, emit)?;
    Ok(breaches)
}

/// Per strategy, the tasks (live: task and episode) that passed in one run
/// and failed in the other, read from both `results.jsonl` files: what an
/// aggregate hides when as many tasks flip one way as the other.
fn flipped(base: &Summary, new: &Summary, emit: &mut dyn FnMut(String)) -> Result<()> {
    let outcomes = |summary: &Summary| -> Result<Option<BTreeMap<(String, String), bool>>> {
        let path = summary.dir.join(jsonl::FILE);
        if !path.exists() {
            return Ok(None);
        }
        let mut out: BTreeMap<(String, String), bool> = BTreeMap::new();
        if summary.live {
            for e in jsonl::read_rows::<Episode>(&path)? {
                out.insert((e.strategy, format!("{}#{}", e.task, e.episode)), e.success);
            }
        } else {
            // A task passes when every one of its steps does.
            for r in jsonl::read_rows::<Row>(&path)? {
                let passed = out.entry((r.strategy, r.task)).or_insert(true);
                *passed &= r.success;
            }
        }
        Ok(Some(out))
    };
    let (Some(before), Some(after)) = (outcomes(base)?, outcomes(new)?) else {
        emit(format!(
            "flipped tasks: not listed ({} is missing in one of the runs)",
            jsonl::FILE
        ));
        return Ok(());
    };
    let unit = if base.live { "episodes" } else { "tasks" };
    emit(format!("flipped {unit} (base → new):"));
    let mut any = false;
    for (strategy, _) in &base.strategies {
        for (from, to) in [(true, false), (false, true)] {
            let tasks: Vec<&str> = before
                .iter()
                .filter(|((s, _), passed)| s == strategy && **passed == from)
                .filter(|(key, _)| after.get(*key) == Some(&to))
                .map(|((_, task), _)| task.as_str())
                .collect();
            if tasks.is_empty() {
                continue;
            }
            any = true;
            let word = |passed: bool| if passed { "pass" } else { "fail" };
            emit(format!(
                "{strategy:<12} {} → {} {:>4}  {}",
                word(from),
                word(to),
                tasks.len(),
                tasks.join(", ")
            ));
        }
    }
    if !any {
        emit("  none".to_owned());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_parse_with_units_and_signs() {
        let rules = parse_rules("step_sr<-2pp, tokens>+10%,task_sr<-0.5pp,engine_us>50%").unwrap();
        let got: Vec<(&str, bool, f64, Unit)> = rules
            .iter()
            .map(|r| (r.metric.name, r.above, r.threshold, r.unit))
            .collect();
        assert_eq!(
            got,
            [
                ("step_sr", false, -2.0, Unit::Points),
                ("tokens", true, 10.0, Unit::Percent),
                ("task_sr", false, -0.5, Unit::Points),
                ("engine_us", true, 50.0, Unit::Percent),
            ]
        );
    }

    #[test]
    fn bad_rules_say_what_is_wrong() {
        let err = |text: &str| format!("{:#}", parse_rules(text).err().unwrap());
        assert!(err("step_rate<-2pp").contains("unknown metric \"step_rate\""));
        assert!(err("step_sr-2pp").contains("no < or >"));
        assert!(err("step_sr<-2").contains("needs a unit"));
        assert!(err("step_sr<-twopp").contains("\"-two\" is not a number"));
        assert!(err("tokens>+2pp").contains("tokens is not a rate"));
    }

    #[test]
    fn deltas_in_points_and_percent() {
        assert!((delta(0.80, 0.75, Unit::Points) + 5.0).abs() < 1e-9);
        assert!((delta(200.0, 230.0, Unit::Percent) - 15.0).abs() < 1e-9);
        assert_eq!(delta(0.0, 0.0, Unit::Percent), 0.0);
        assert_eq!(delta(0.0, 3.0, Unit::Percent), f64::INFINITY);
    }
}
