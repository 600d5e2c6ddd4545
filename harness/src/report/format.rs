//! Text both the Markdown and the HTML report print: rates with intervals, verdicts, task scores, expected and given actions.

use crate::results::Row;

use super::metrics::Estimate;
use super::significance::Comparison;

/// `0.812 [0.750, 0.870]`.
pub fn rate(e: &Estimate) -> String {
    format!("{:.3} [{:.3}, {:.3}]", e.value, e.low, e.high)
}

/// "significant at 0.05" or "not significant".
pub fn verdict(c: &Comparison) -> &'static str {
    if c.significant {
        "significant at 0.05"
    } else {
        "not significant"
    }
}

/// The smallest detectable difference, in points (`±12.5pp`), or `—`.
pub fn mde(c: &Comparison) -> String {
    c.min_detectable
        .map_or("—".to_owned(), |d| format!("±{:.1}pp", d * 100.0))
}

/// What the significance table's reader must know besides the numbers:
/// each pair's note, and, when strategies tie on every step under the
/// baseline agent, why that is not a tie of their texts.
pub fn significance_notes(report: &super::figures::Report) -> Vec<String> {
    let mut notes: Vec<String> = report
        .comparisons
        .iter()
        .filter_map(|c| c.note.as_ref().map(|n| format!("{} vs {}: {n}.", c.a, c.b)))
        .collect();
    let identical = report
        .comparisons
        .iter()
        .any(|c| c.steps > 0 && c.a_only + c.b_only == 0);
    if identical && report.manifest.agent == "baseline" {
        notes.push(
            "The baseline agent reads the refs' metadata (role, name, nearby text), not the rendered \
             text: strategies that give the same elements refs score alike under it. A tie here says \
             nothing about which text a model would read better; run a model agent for that."
                .to_owned(),
        );
    }
    notes
}

/// Steps passed and steps run of one task under one strategy.
pub fn task_score(rows: &[Row], task: &str, strategy: &str) -> (usize, usize) {
    rows.iter()
        .filter(|r| r.task == task && r.strategy == strategy)
        .fold((0, 0), |(p, n), r| (p + usize::from(r.success), n + 1))
}

/// The expected step as one line: `click #sign-in`, `type #email ada@example.com`.
pub fn expected(r: &Row) -> String {
    let text = format!(
        "{} {} {}",
        r.expected_op.name(),
        r.expected_target,
        r.expected_value.as_deref().unwrap_or("")
    );
    text.trim().to_owned()
}

/// The agent's answer as one line.
pub fn got(r: &Row) -> String {
    let mut text = r.op.map_or("—", |o| o.name()).to_owned();
    if let Some(reference) = &r.reference {
        text.push_str(&format!(" [{reference}]"));
    }
    if let Some(element) = &r.element {
        text.push(' ');
        text.push_str(element);
    }
    if let Some(value) = &r.value {
        text.push_str(&format!(" {value:?}"));
    }
    text
}

/// `median / p90 / max`, whole tokens.
pub fn spread(d: &super::metrics::Distribution) -> String {
    format!("{:.0} / {:.0} / {:.0}", d.median, d.p90, d.max)
}

/// US dollars with enough digits for a step's cost (`0.000412`), `0` for none.
pub fn usd(v: f64) -> String {
    if v == 0.0 {
        "0".to_owned()
    } else if v >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.6}")
    }
}
