//! `report.html`: one self-contained page (inline CSS and SVG, no script, no external resource) with the run's tables and charts.
//!
//! Every string that comes from a page or a suite (task ids, instructions,
//! targets, answers, errors, strategy and suite names) goes through
//! [`escape`], in text and in attribute values alike (attributes are always
//! double-quoted). A Content-Security-Policy meta tag forbids scripts as a
//! second line of defence: the page needs none.

use std::fmt::Write as _;

use super::markdown::{Report, expected, got, rate, task_score, verdict};
use super::metrics::{self, Estimate, StrategySummary};
use crate::results::Row;

/// HTML-escapes text for element content and double- or single-quoted attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

const STYLE: &str = "\
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px auto;max-width:1280px;padding:0 16px;color:#1d2330;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #dde2ea;padding-bottom:4px}
p.meta{color:#5a6475;margin:0 0 12px}
table{border-collapse:collapse;font-size:12.5px;margin:6px 0}
th,td{border:1px solid #dde2ea;padding:3px 5px;text-align:left;vertical-align:top}
th{background:#f3f5f9;font-weight:600}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.charts{display:flex;flex-wrap:wrap;gap:18px}
figure{margin:0}figcaption{font-size:12px;color:#5a6475;max-width:640px}
svg{background:#fbfcfe;border:1px solid #e5e9f0}
svg text{font:11px system-ui,sans-serif;fill:#1d2330}svg .axis{stroke:#8a93a3}svg .grid{stroke:#e3e7ee}
table.grid td{width:54px;text-align:center;padding:2px}
td.pass{background:#cdeccf}td.part{background:#fbe7b5}td.fail{background:#f6c9c9}td.none{background:#eee}
table.grid td.task{text-align:left;max-width:300px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
td.text{max-width:360px;word-break:break-word}
.sig{font-weight:600;color:#116329}
.ci{display:block;color:#6b7587;font-size:11px}
.wide{overflow-x:auto}
";

/// Colours for strategies, by position (colour-blind-safe Okabe–Ito order).
const PALETTE: &[&str] = &[
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442",
];

fn colour(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

/// The whole page.
pub fn render(report: &Report) -> String {
    let m = &report.manifest;
    let tasks = report.tasks_run();
    let mut out = String::new();
    let title = format!("pagesnap run: suite {}", m.suite);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        escape(&title),
        escape(&title)
    );
    let _ = writeln!(
        out,
        "<p class=\"meta\">Agent <code>{}</code> · {} tasks · {} steps per strategy · pagesnap {}{}</p>",
        escape(&m.agent),
        tasks.len(),
        tasks.iter().map(|t| t.steps).sum::<usize>(),
        escape(&m.pagesnap),
        if m.description.is_empty() {
            String::new()
        } else {
            format!("<br>{}", escape(&m.description))
        }
    );
    summary_table(&mut out, &report.summaries);
    out.push_str("<h2>Accuracy vs. tokens</h2>\n<div class=\"charts\">\n");
    pareto_chart(&mut out, &report.summaries);
    out.push_str("</div>\n<h2>Latency</h2>\n<div class=\"charts\">\n");
    let strategies: Vec<&str> = report
        .summaries
        .iter()
        .map(|s| s.strategy.as_str())
        .collect();
    latency_chart(
        &mut out,
        "chart-engine-latency",
        "Engine µs per observation (page build + analysis + render)",
        &strategies,
        &report.rows,
        |r| r.engine_us,
    );
    latency_chart(
        &mut out,
        "chart-agent-latency",
        "Agent µs per call (LLM latency; the baseline agent is local)",
        &strategies,
        &report.rows,
        |r| r.agent_us,
    );
    out.push_str("</div>\n");
    significance_table(&mut out, report);
    judge_table(&mut out, report);
    task_grid(&mut out, report);
    failed_steps(&mut out, &report.rows);
    out.push_str("</body>\n</html>\n");
    out
}

fn summary_table(out: &mut String, summaries: &[StrategySummary]) {
    out.push_str(
        "<h2>Summary</h2>\n<div class=\"wide\"><table id=\"summary\">\n<tr><th>strategy</th><th>steps</th><th>target recall</th>\
         <th>element acc.</th><th>op F1</th><th>step SR</th><th>task SR</th><th>input tok</th>\
         <th>image tok</th><th>invalid</th><th>halluc. refs</th><th>faults / retries</th>\
         <th>cost $</th><th>engine µs (mean / p90)</th><th>agent µs (median / p90)</th></tr>\n",
    );
    for s in summaries {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{:.0}</td>\
             <td class=\"n\">{:.0}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{} / {}</td>\
             <td class=\"n\">{:.4}</td><td class=\"n\">{:.0} / {:.0}</td>\
             <td class=\"n\">{:.0} / {:.0}</td></tr>",
            escape(&s.strategy),
            s.steps,
            ci(&s.target_recall),
            ci(&s.element_accuracy),
            ci(&s.operation_f1),
            ci(&s.step_success),
            ci(&s.task_success),
            s.mean_input_tokens,
            s.mean_image_tokens,
            ci(&s.invalid_rate),
            ci(&s.hallucination_rate),
            escape(&faults(s)),
            s.retries,
            s.total_cost_usd,
            s.timing.mean_engine_us,
            s.timing.p90_engine_us,
            s.timing.median_agent_us,
            s.timing.p90_agent_us,
        );
    }
    out.push_str("</table></div>\n");
}

/// A rate over its interval, the interval in small type.
fn ci(e: &Estimate) -> String {
    format!(
        "{:.3}<span class=\"ci\">[{:.3}, {:.3}]</span>",
        e.value, e.low, e.high
    )
}

fn faults(s: &StrategySummary) -> String {
    if s.faults.is_empty() {
        return "0".to_owned();
    }
    s.faults
        .iter()
        .map(|(kind, n)| format!("{kind} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Tokens the Pareto view charges a strategy: text plus image input tokens.
fn cost_tokens(s: &StrategySummary) -> f64 {
    s.mean_input_tokens + s.mean_image_tokens
}

/// Strategies no other strategy beats on both step SR and tokens.
pub fn pareto_front(summaries: &[StrategySummary]) -> Vec<bool> {
    summaries
        .iter()
        .map(|s| {
            !summaries.iter().any(|o| {
                let (ot, st) = (cost_tokens(o), cost_tokens(s));
                let (osr, ssr) = (o.step_success.value, s.step_success.value);
                ot <= st && osr >= ssr && (ot < st || osr > ssr)
            })
        })
        .collect()
}

/// A log10 axis over [lo, hi] (powers of ten) mapped to [x0, x1].
struct LogAxis {
    lo: f64,
    hi: f64,
    x0: f64,
    x1: f64,
}

impl LogAxis {
    fn over(values: impl Iterator<Item = f64>, x0: f64, x1: f64) -> LogAxis {
        let (mut min, mut max) = (f64::INFINITY, 0.0f64);
        for v in values {
            let v = v.max(1.0);
            min = min.min(v);
            max = max.max(v);
        }
        if !min.is_finite() {
            min = 1.0;
            max = 10.0;
        }
        let lo = 10f64.powf(min.log10().floor());
        let mut hi = 10f64.powf(max.log10().ceil());
        if hi <= lo {
            hi = lo * 10.0;
        }
        LogAxis { lo, hi, x0, x1 }
    }

    fn x(&self, v: f64) -> f64 {
        let t = (v.max(1.0).log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10());
        self.x0 + t.clamp(0.0, 1.0) * (self.x1 - self.x0)
    }

    /// Powers of ten inside the axis.
    fn decades(&self) -> Vec<f64> {
        let mut ticks = Vec::new();
        let mut v = self.lo;
        while v <= self.hi * 1.000_001 {
            ticks.push(v);
            v *= 10.0;
        }
        ticks
    }

    fn draw(&self, out: &mut String, top: f64, bottom: f64, label: &str) {
        for t in self.decades() {
            let x = self.x(t);
            let _ = writeln!(
                out,
                "<line class=\"grid\" x1=\"{x:.1}\" y1=\"{top:.1}\" x2=\"{x:.1}\" y2=\"{bottom:.1}\"/>\
                 <text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
                bottom + 14.0,
                short_number(t)
            );
        }
        let _ = writeln!(
            out,
            "<line class=\"axis\" x1=\"{:.1}\" y1=\"{bottom:.1}\" x2=\"{:.1}\" y2=\"{bottom:.1}\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            self.x0,
            self.x1,
            (self.x0 + self.x1) / 2.0,
            bottom + 32.0,
            escape(label)
        );
    }
}

fn short_number(v: f64) -> String {
    if v >= 1e6 {
        format!("{:.0}M", v / 1e6)
    } else if v >= 1e3 {
        format!("{:.0}k", v / 1e3)
    } else {
        format!("{v:.0}")
    }
}

fn pareto_chart(out: &mut String, summaries: &[StrategySummary]) {
    let (w, h) = (640.0, 380.0);
    let (left, right, top, bottom) = (56.0, w - 110.0, 16.0, h - 48.0);
    let axis = LogAxis::over(summaries.iter().map(cost_tokens), left, right);
    // The y axis starts at the tenth below the lowest interval, so close rates stay apart.
    let floor = summaries
        .iter()
        .map(|s| s.step_success.low)
        .fold(1.0f64, f64::min);
    let floor = ((floor * 10.0).floor() / 10.0 - 0.1).clamp(0.0, 0.9);
    let y = |v: f64| bottom - (v.clamp(floor, 1.0) - floor) / (1.0 - floor) * (bottom - top);
    let _ = writeln!(
        out,
        "<figure><svg id=\"chart-pareto\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
         viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"Step success rate vs mean input tokens per strategy\">"
    );
    for i in 0..=4 {
        let v = floor + (1.0 - floor) * f64::from(i) / 4.0;
        let _ = writeln!(
            out,
            "<line class=\"grid\" x1=\"{left}\" y1=\"{0:.1}\" x2=\"{right}\" y2=\"{0:.1}\"/>\
             <text x=\"{1}\" y=\"{2:.1}\" text-anchor=\"end\">{v:.2}</text>",
            y(v),
            left - 6.0,
            y(v) + 4.0
        );
    }
    let _ = writeln!(
        out,
        "<line class=\"axis\" x1=\"{left}\" y1=\"{top}\" x2=\"{left}\" y2=\"{bottom}\"/>\
         <text transform=\"translate(14 {:.1}) rotate(-90)\" text-anchor=\"middle\">step success rate (95% CI)</text>",
        (top + bottom) / 2.0
    );
    axis.draw(
        out,
        top,
        bottom,
        "mean input tokens per step (text + image, log scale)",
    );
    let front = pareto_front(summaries);
    let mut on_front: Vec<(f64, f64)> = summaries
        .iter()
        .zip(&front)
        .filter(|(_, f)| **f)
        .map(|(s, _)| (axis.x(cost_tokens(s)), y(s.step_success.value)))
        .collect();
    on_front.sort_by(|a, b| a.0.total_cmp(&b.0));
    if on_front.len() > 1 {
        let points: Vec<String> = on_front
            .iter()
            .map(|(x, y)| format!("{x:.1},{y:.1}"))
            .collect();
        let _ = writeln!(
            out,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"#7a8699\" stroke-dasharray=\"4 3\"/>",
            points.join(" ")
        );
    }
    let mut labels: Vec<(f64, f64)> = Vec::new();
    for (i, (s, front)) in summaries.iter().zip(&front).enumerate() {
        let (cx, e) = (axis.x(cost_tokens(s)), &s.step_success);
        let c = colour(i);
        // Nudge a label down while it would overlap one already placed.
        let (tx, mut ty) = (cx + 8.0, y(e.value) - 6.0);
        while labels
            .iter()
            .any(|&(x, y)| (x - tx).abs() < 70.0 && (y - ty).abs() < 12.0)
        {
            ty += 12.0;
        }
        labels.push((tx, ty));
        let _ = writeln!(
            out,
            "<g class=\"strategy\"><title>{}: step SR {}, {:.0} input tokens{}</title>\
             <line x1=\"{cx:.1}\" y1=\"{lo:.1}\" x2=\"{cx:.1}\" y2=\"{hi:.1}\" stroke=\"{c}\" stroke-width=\"1.5\"/>\
             <line x1=\"{a:.1}\" y1=\"{lo:.1}\" x2=\"{b:.1}\" y2=\"{lo:.1}\" stroke=\"{c}\"/>\
             <line x1=\"{a:.1}\" y1=\"{hi:.1}\" x2=\"{b:.1}\" y2=\"{hi:.1}\" stroke=\"{c}\"/>\
             <circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"5\" stroke=\"{c}\" stroke-width=\"2\" fill=\"{fill}\"/>\
             <text x=\"{tx:.1}\" y=\"{ty:.1}\">{}{}</text></g>",
            escape(&s.strategy),
            rate(e),
            cost_tokens(s),
            if *front { " (Pareto front)" } else { "" },
            escape(&s.strategy),
            if *front { " ★" } else { "" },
            lo = y(e.low),
            hi = y(e.high),
            a = cx - 4.0,
            b = cx + 4.0,
            cy = y(e.value),
            fill = if *front { c } else { "#fff" },
        );
    }
    out.push_str("</svg>\n<figcaption>Step success rate (with 95% bootstrap CI) against mean input tokens. \
                  Filled points and ★ mark the Pareto front: no other strategy is both cheaper and more accurate.\
                  </figcaption></figure>\n");
}

/// Horizontal box plots (min, quartiles, median, max; nearest-rank) per strategy on a log axis.
fn latency_chart(
    out: &mut String,
    id: &str,
    caption: &str,
    strategies: &[&str],
    rows: &[Row],
    pick: impl Fn(&Row) -> u64,
) {
    let series: Vec<Vec<f64>> = strategies
        .iter()
        .map(|s| {
            let mut v: Vec<f64> = rows
                .iter()
                .filter(|r| r.strategy == *s)
                .map(|r| pick(r) as f64)
                .collect();
            v.sort_by(f64::total_cmp);
            v
        })
        .collect();
    let (w, band) = (520.0, 30.0);
    let (left, right, top) = (96.0, w - 20.0, 12.0);
    let bottom = top + band * strategies.len().max(1) as f64;
    let h = bottom + 44.0;
    let axis = LogAxis::over(series.iter().flatten().copied(), left, right);
    let _ = writeln!(
        out,
        "<figure><svg id=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
         viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"{}\">",
        escape(id),
        escape(caption)
    );
    axis.draw(out, top, bottom, "µs (log scale)");
    for (i, (name, values)) in strategies.iter().zip(&series).enumerate() {
        let mid = top + band * (i as f64 + 0.5);
        let _ = writeln!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            left - 8.0,
            mid + 4.0,
            escape(name)
        );
        if values.is_empty() {
            continue;
        }
        let q = |p: f64| metrics::quantile(values, p);
        let (min, q1, med, q3, max) = (values[0], q(0.25), q(0.5), q(0.75), q(1.0));
        let c = colour(i);
        let _ = writeln!(
            out,
            "<g class=\"box\"><title>{}: min {min:.0}, q1 {q1:.0}, median {med:.0}, q3 {q3:.0}, max {max:.0} µs ({} steps)</title>\
             <line x1=\"{:.1}\" y1=\"{mid:.1}\" x2=\"{:.1}\" y2=\"{mid:.1}\" stroke=\"{c}\"/>\
             <rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{c}\" fill-opacity=\"0.25\" stroke=\"{c}\"/>\
             <line x1=\"{m:.1}\" y1=\"{:.1}\" x2=\"{m:.1}\" y2=\"{:.1}\" stroke=\"{c}\" stroke-width=\"2.5\"/></g>",
            escape(name),
            values.len(),
            axis.x(min),
            axis.x(max),
            axis.x(q1),
            mid - 9.0,
            (axis.x(q3) - axis.x(q1)).max(1.0),
            18.0,
            mid - 9.0,
            mid + 9.0,
            m = axis.x(med),
        );
    }
    let _ = writeln!(
        out,
        "</svg>\n<figcaption>{}</figcaption></figure>",
        escape(caption)
    );
}

fn significance_table(out: &mut String, report: &Report) {
    out.push_str(
        "<h2>Significance</h2>\n<p class=\"meta\">Step success on the steps both strategies ran: \
         McNemar's exact test (two-sided) and a paired bootstrap over tasks of the SR difference (95% CI).</p>\n",
    );
    if report.comparisons.is_empty() {
        out.push_str("<p>One strategy only: nothing to compare.</p>\n");
        return;
    }
    out.push_str(
        "<table id=\"significance\">\n<tr><th>A</th><th>B</th><th>steps</th><th>A only</th><th>B only</th>\
         <th>SR(A) − SR(B)</th><th>p</th><th>verdict</th></tr>\n",
    );
    for c in &report.comparisons {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{:+.3} [{:+.3}, {:+.3}]</td><td class=\"n\">{:.4}</td><td{}>{}</td></tr>",
            escape(&c.a),
            escape(&c.b),
            c.steps,
            c.a_only,
            c.b_only,
            c.difference.value,
            c.difference.low,
            c.difference.high,
            c.p_value,
            if c.significant { " class=\"sig\"" } else { "" },
            verdict(c)
        );
    }
    out.push_str("</table>\n");
}

fn judge_table(out: &mut String, report: &Report) {
    let Some(all) = report.judge else { return };
    out.push_str(
        "<h2>LLM judge agreement with the rule judge</h2>\n<table id=\"judge\">\n\
         <tr><th>strategy</th><th>steps</th><th>accuracy</th><th>Cohen's kappa</th></tr>\n",
    );
    let line = |out: &mut String, name: &str, a: &metrics::Agreement| {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{:.3}</td><td class=\"n\">{}</td></tr>",
            escape(name),
            a.steps,
            a.accuracy,
            a.kappa.map_or("—".to_owned(), |k| format!("{k:.3}"))
        );
    };
    for s in &report.summaries {
        if let Some(a) = &s.judge {
            line(out, &s.strategy, a);
        }
    }
    line(out, "all", &all);
    out.push_str("</table>\n");
}

fn task_grid(out: &mut String, report: &Report) {
    out.push_str(
        "<h2>Tasks</h2>\n<p class=\"meta\">Steps passed per task and strategy: green all, amber some, red none. \
         Hover a cell for the instruction.</p>\n<table id=\"task-grid\" class=\"grid\">\n<tr><th>task</th>",
    );
    for s in &report.summaries {
        let _ = write!(out, "<th>{}</th>", escape(&s.strategy));
    }
    out.push_str("</tr>\n");
    for task in report.tasks_run() {
        let _ = write!(
            out,
            "<tr><td class=\"task\" title=\"{}\">{}</td>",
            escape(&task.instruction),
            escape(&task.id)
        );
        for s in &report.summaries {
            let (passed, total) = task_score(&report.rows, &task.id, &s.strategy);
            let class = match (passed, total) {
                (_, 0) => "none",
                (p, t) if p == t => "pass",
                (0, _) => "fail",
                _ => "part",
            };
            let _ = write!(
                out,
                "<td class=\"{class}\" title=\"{}\">{passed}/{total}</td>",
                escape(&format!(
                    "{} — {}: {passed}/{total} steps passed. {}",
                    task.id, s.strategy, task.instruction
                ))
            );
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
}

fn failed_steps(out: &mut String, rows: &[Row]) {
    out.push_str("<h2>Failed steps</h2>\n");
    let failed: Vec<&Row> = rows.iter().filter(|r| !r.success).collect();
    if failed.is_empty() {
        out.push_str("<p>None.</p>\n");
        return;
    }
    out.push_str(
        "<table id=\"failed\">\n<tr><th>task</th><th>step</th><th>strategy</th><th>expected</th>\
         <th>got</th><th>error</th><th>raw answer</th></tr>\n",
    );
    for r in failed {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td class=\"n\">{}</td><td>{}</td><td class=\"text\">{}</td><td class=\"text\">{}</td>\
             <td class=\"text\">{}</td><td class=\"text\">{}</td></tr>",
            escape(&r.task),
            r.step,
            escape(&r.strategy),
            escape(&expected(r)),
            escape(&got(r)),
            escape(r.error.as_deref().unwrap_or("")),
            escape(&truncate(&r.raw, 240)),
        );
    }
    out.push_str("</table>\n");
}

fn truncate(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_turns_markup_into_text() {
        assert_eq!(
            escape("<img src=x onerror=alert(1)>"),
            "&lt;img src=x onerror=alert(1)&gt;"
        );
        assert_eq!(
            escape(r#"a & "b" 'c' </script>"#),
            "a &amp; &quot;b&quot; &#39;c&#39; &lt;/script&gt;"
        );
        assert_eq!(escape("plain µs ★"), "plain µs ★");
        let attack = "\" onmouseover=\"alert(1)";
        assert!(!escape(attack).contains('"'));
    }

    #[test]
    fn truncate_respects_char_boundaries() {
        assert_eq!(truncate("héllo", 2), "hé…");
        assert_eq!(truncate("ok", 5), "ok");
    }
}
