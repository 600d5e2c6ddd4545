//! Report writers: `results.csv`, `summary.json`, `report.md` — page-derived strings escaped in each.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use serde::Serialize;

use super::metrics::{self, Estimate, StrategySummary};
use super::{Config, Row};

#[derive(Serialize)]
struct Summary<'a> {
    suite: &'a str,
    agent: String,
    tasks: usize,
    bootstrap: Bootstrap,
    strategies: &'a [StrategySummary],
}

#[derive(Serialize)]
struct Bootstrap {
    resamples: usize,
    seed: u64,
    unit: &'static str,
    level: f64,
}

/// Writes every report file.
pub fn write_all(
    out: &Path,
    config: &Config<'_>,
    rows: &[Row],
    summaries: &[StrategySummary],
) -> Result<()> {
    write(&out.join("results.csv"), &csv(rows))?;
    let summary = Summary {
        suite: &config.suite.name,
        agent: config.agent.name(),
        tasks: config.suite.tasks.len(),
        bootstrap: Bootstrap {
            resamples: metrics::RESAMPLES,
            seed: metrics::SEED,
            unit: "task",
            level: 0.95,
        },
        strategies: summaries,
    };
    let mut json = serde_json::to_string_pretty(&summary)?;
    json.push('\n');
    write(&out.join("summary.json"), &json)?;
    write(&out.join("report.md"), &markdown(config, rows, summaries))
}

fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).with_context(|| format!("could not write {}", path.display()))
}

const CSV_HEADER: &[&str] = &[
    "task",
    "strategy",
    "step",
    "recording",
    "expected_op",
    "expected_target",
    "expected_value",
    "op",
    "ref",
    "value",
    "node",
    "hallucinated",
    "target_recall",
    "op_ok",
    "element_ok",
    "value_ok",
    "success",
    "op_f1",
    "refs",
    "input_tokens",
    "image_tokens",
    "output_tokens",
    "engine_us",
    "agent_us",
    "error",
    "raw",
];

fn csv(rows: &[Row]) -> String {
    let mut out = CSV_HEADER.join(",");
    out.push('\n');
    let flag = |b: Option<bool>| b.map_or(String::new(), |b| b.to_string());
    for r in rows {
        let fields = [
            cell(&r.task),
            cell(&r.strategy),
            r.step.to_string(),
            cell(&r.recording),
            r.expected_op.as_str().to_owned(),
            cell(&r.expected_target),
            cell(r.expected_value.as_deref().unwrap_or("")),
            r.op.map_or("", |o| o.as_str()).to_owned(),
            cell(r.reference.as_deref().unwrap_or("")),
            cell(r.value.as_deref().unwrap_or("")),
            r.node.map_or(String::new(), |n| n.to_string()),
            r.hallucinated.to_string(),
            flag(r.target_recall),
            r.op_ok.to_string(),
            flag(r.element_ok),
            flag(r.value_ok),
            r.success.to_string(),
            format!("{:.4}", r.op_f1),
            r.refs.to_string(),
            r.input_tokens.to_string(),
            r.image_tokens.to_string(),
            r.output_tokens.to_string(),
            r.engine_us.to_string(),
            r.agent_us.to_string(),
            cell(r.error.as_deref().unwrap_or("")),
            cell(&r.raw),
        ];
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}

/// A CSV cell: formula prefixes (`= + - @`, tab, CR) neutralised with a
/// leading `'` (OWASP CSV injection), then RFC 4180 quoting.
pub fn cell(text: &str) -> String {
    let mut value = String::new();
    if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        value.push('\'');
    }
    value.push_str(text);
    if value.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", value.replace('"', "\"\""))
    } else {
        value
    }
}

/// Markdown-safe text: HTML metacharacters as entities (a page label like
/// `<img onerror=…>` must not render), Markdown punctuation backslash-escaped,
/// line breaks flattened.
pub fn md(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\n' | '\r' => out.push(' '),
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '#' | '!' | '(' | ')' | '{' | '}' | '~' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

fn rate(e: &Estimate) -> String {
    format!("{:.3} [{:.3}, {:.3}]", e.value, e.low, e.high)
}

fn markdown(config: &Config<'_>, rows: &[Row], summaries: &[StrategySummary]) -> String {
    let suite = config.suite;
    let mut out = String::new();
    let _ = writeln!(out, "# pagesnap run: suite {}\n", md(&suite.name));
    if !suite.description.is_empty() {
        let _ = writeln!(out, "{}\n", md(&suite.description));
    }
    let _ = writeln!(
        out,
        "Agent `{}`, {} tasks, {} steps per strategy. Rates with 95% bootstrap intervals \
         ({} resamples of tasks, fixed seed). Tokens: o200k_base text tokens of the prompt; \
         image tokens by OpenAI's formula. Engine µs: page build + analysis + render.\n",
        md(&config.agent.name()),
        suite.tasks.len(),
        suite.tasks.iter().map(|t| t.steps.len()).sum::<usize>(),
        metrics::RESAMPLES,
    );
    out.push_str(
        "| strategy | steps | target recall | element acc. | op F1 | op macro-F1 | step SR | task SR | \
         input tok | image tok | engine µs (mean) | errors |\n",
    );
    out.push_str("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for s in summaries {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {:.3} | {} | {} | {:.0} | {:.0} | {:.0} | {} |",
            md(&s.strategy),
            s.steps,
            rate(&s.target_recall),
            rate(&s.element_accuracy),
            rate(&s.operation_f1),
            s.op_macro_f1,
            rate(&s.step_success),
            rate(&s.task_success),
            s.mean_input_tokens,
            s.mean_image_tokens,
            s.timing.mean_engine_us,
            s.errors,
        );
    }
    out.push_str("\n## Tasks\n\n");
    out.push_str("Steps passed per task and strategy.\n\n| task |");
    for s in summaries {
        let _ = write!(out, " {} |", md(&s.strategy));
    }
    out.push_str("\n|---|");
    out.push_str(&"---|".repeat(summaries.len()));
    out.push('\n');
    for task in &suite.tasks {
        let _ = write!(out, "| {} |", md(&task.id));
        for s in summaries {
            let mine: Vec<&Row> = rows
                .iter()
                .filter(|r| r.task == task.id && r.strategy == s.strategy)
                .collect();
            let passed = mine.iter().filter(|r| r.success).count();
            let mark = if passed == mine.len() && !mine.is_empty() {
                "✓"
            } else {
                "✗"
            };
            let _ = write!(out, " {mark} {passed}/{} |", mine.len());
        }
        out.push('\n');
    }
    out.push_str("\n## Failed steps\n\n");
    let failed: Vec<&Row> = rows.iter().filter(|r| !r.success).collect();
    if failed.is_empty() {
        out.push_str("None.\n");
    } else {
        out.push_str(
            "| task | step | strategy | expected | got | error |\n|---|---|---|---|---|---|\n",
        );
        for r in failed {
            let expected = format!(
                "{} {} {}",
                r.expected_op.as_str(),
                r.expected_target,
                r.expected_value.as_deref().unwrap_or("")
            );
            let got = format!(
                "{} {} {}",
                r.op.map_or("—", |o| o.as_str()),
                r.reference.as_deref().unwrap_or(""),
                r.value.as_deref().unwrap_or("")
            );
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} |",
                md(&r.task),
                r.step,
                md(&r.strategy),
                md(expected.trim()),
                md(got.trim()),
                md(r.error.as_deref().unwrap_or("")),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_cells_neutralise_formulas_and_quote() {
        assert_eq!(cell("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        assert_eq!(cell("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(cell("-1"), "'-1");
        assert_eq!(cell("+cmd"), "'+cmd");
        assert_eq!(cell("a,b"), "\"a,b\"");
        assert_eq!(cell("plain"), "plain");
    }

    #[test]
    fn markdown_escapes_html_and_table_syntax() {
        let escaped = md("<img src=x onerror=alert(1)> | *x*");
        assert!(!escaped.contains('<'));
        assert_eq!(
            escaped,
            "&lt;img src=x onerror=alert\\(1\\)&gt; \\| \\*x\\*"
        );
    }
}
