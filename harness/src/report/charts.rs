//! The SVG charts of `report.html`: accuracy against tokens with the Pareto front, and latency box plots per strategy.

use std::fmt::Write as _;

use crate::results::Row;

use super::escape::html;
use super::format::rate;
use super::metrics::{self, StrategySummary};

/// Colours for strategies, by position (colour-blind-safe Okabe–Ito order).
const PALETTE: &[&str] = &[
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442",
];

fn colour(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

/// Tokens the Pareto view charges a strategy: text plus image input tokens.
fn cost_tokens(s: &StrategySummary) -> f64 {
    s.mean_input_tokens + s.mean_image_tokens
}

/// What an accuracy chart puts on its x axis (log scale).
pub struct Price {
    /// The `<svg>` id.
    pub id: &'static str,
    /// The x axis label.
    pub label: &'static str,
    /// How a value reads in a point's tooltip (`{} input tokens`).
    pub unit: &'static str,
    /// The value charged to a strategy.
    pub of: fn(&StrategySummary) -> f64,
    /// Values below are drawn at it (a log axis has no 0).
    pub floor: f64,
    /// Decimals in tooltips.
    pub decimals: usize,
}

/// Step SR against mean input tokens (text + image).
pub const TOKENS: Price = Price {
    id: "chart-pareto",
    label: "mean input tokens per step (text + image, log scale)",
    unit: "input tokens",
    of: cost_tokens,
    floor: 1.0,
    decimals: 0,
};

/// Step SR against mean cost per step.
pub const COST: Price = Price {
    id: "chart-cost",
    label: "mean cost per step, USD (log scale)",
    unit: "USD per step",
    of: |s| s.mean_cost_usd,
    floor: 1e-7,
    decimals: 6,
};

/// Strategies no other strategy beats on both step SR and price.
pub fn pareto_front(summaries: &[StrategySummary], price: &Price) -> Vec<bool> {
    summaries
        .iter()
        .map(|s| {
            !summaries.iter().any(|o| {
                let (ot, st) = ((price.of)(o), (price.of)(s));
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
    fn over(values: impl Iterator<Item = f64>, floor: f64, x0: f64, x1: f64) -> LogAxis {
        let (mut min, mut max) = (f64::INFINITY, 0.0f64);
        for v in values {
            let v = v.max(floor);
            min = min.min(v);
            max = max.max(v);
        }
        if !min.is_finite() {
            min = floor;
            max = floor * 10.0;
        }
        let lo = 10f64.powf(min.log10().floor());
        let mut hi = 10f64.powf(max.log10().ceil());
        if hi <= lo {
            hi = lo * 10.0;
        }
        LogAxis { lo, hi, x0, x1 }
    }

    fn x(&self, v: f64) -> f64 {
        let t = (v.max(self.lo).log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10());
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
            html(label)
        );
    }
}

fn short_number(v: f64) -> String {
    if v >= 1e6 {
        format!("{:.0}M", v / 1e6)
    } else if v >= 1e3 {
        format!("{:.0}k", v / 1e3)
    } else if v >= 1.0 {
        format!("{v:.0}")
    } else {
        // Powers of ten below one: as many decimals as the power needs.
        let decimals = (-v.log10()).round().max(0.0) as usize;
        format!("{v:.decimals$}")
    }
}

/// Step SR (with its interval) against `price` per strategy, the Pareto
/// front marked.
pub fn pareto_chart(out: &mut String, summaries: &[StrategySummary], price: &Price) {
    let (w, h) = (640.0, 380.0);
    let (left, right, top, bottom) = (56.0, w - 110.0, 16.0, h - 48.0);
    let axis = LogAxis::over(summaries.iter().map(price.of), price.floor, left, right);
    // The y axis starts at the tenth below the lowest interval, so close rates stay apart.
    let floor = summaries
        .iter()
        .map(|s| s.step_success.low)
        .fold(1.0f64, f64::min);
    let floor = ((floor * 10.0).floor() / 10.0 - 0.1).clamp(0.0, 0.9);
    let y = |v: f64| bottom - (v.clamp(floor, 1.0) - floor) / (1.0 - floor) * (bottom - top);
    let _ = writeln!(
        out,
        "<figure><svg id=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
         viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"Step success rate vs {} per strategy\">",
        price.id, price.unit
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
    axis.draw(out, top, bottom, price.label);
    let front = pareto_front(summaries, price);
    let mut on_front: Vec<(f64, f64)> = summaries
        .iter()
        .zip(&front)
        .filter(|(_, f)| **f)
        .map(|(s, _)| (axis.x((price.of)(s)), y(s.step_success.value)))
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
    // Placed labels: left edge, baseline, width (11px text, ~6.2px a character).
    let mut labels: Vec<(f64, f64, f64)> = Vec::new();
    for (i, (s, front)) in summaries.iter().zip(&front).enumerate() {
        let (cx, e) = (axis.x((price.of)(s)), &s.step_success);
        let c = colour(i);
        let width = 6.2 * (s.strategy.chars().count() + 2) as f64;
        // Nudge a label down while it would overlap one already placed
        // (variants of one strategy sit close: `aria@2000`, `aria@4000`).
        let (tx, mut ty) = (cx + 8.0, y(e.value) - 6.0);
        while labels
            .iter()
            .any(|&(x, y, w)| tx < x + w && x < tx + width && (y - ty).abs() < 12.0)
        {
            ty += 12.0;
        }
        labels.push((tx, ty, width));
        let _ = writeln!(
            out,
            "<g class=\"strategy\"><title>{}: step SR {}, {:.decimals$} {}{}</title>\
             <line x1=\"{cx:.1}\" y1=\"{lo:.1}\" x2=\"{cx:.1}\" y2=\"{hi:.1}\" stroke=\"{c}\" stroke-width=\"1.5\"/>\
             <line x1=\"{a:.1}\" y1=\"{lo:.1}\" x2=\"{b:.1}\" y2=\"{lo:.1}\" stroke=\"{c}\"/>\
             <line x1=\"{a:.1}\" y1=\"{hi:.1}\" x2=\"{b:.1}\" y2=\"{hi:.1}\" stroke=\"{c}\"/>\
             <circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"5\" stroke=\"{c}\" stroke-width=\"2\" fill=\"{fill}\"/>\
             <text x=\"{tx:.1}\" y=\"{ty:.1}\">{}{}</text></g>",
            html(&s.strategy),
            rate(e),
            (price.of)(s),
            price.unit,
            if *front { " (Pareto front)" } else { "" },
            html(&s.strategy),
            if *front { " ★" } else { "" },
            lo = y(e.low),
            hi = y(e.high),
            a = cx - 4.0,
            b = cx + 4.0,
            cy = y(e.value),
            fill = if *front { c } else { "#fff" },
            decimals = price.decimals,
        );
    }
    let _ = writeln!(
        out,
        "</svg>\n<figcaption>Step success rate (with 95% bootstrap CI) against {}. \
         Filled points and ★ mark the Pareto front: no other strategy is both cheaper and more accurate.\
         </figcaption></figure>",
        price.unit
    );
}

/// Horizontal box plots (min, quartiles, median, max; nearest-rank) per strategy on a log axis.
pub fn latency_chart(
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
    let axis = LogAxis::over(series.iter().flatten().copied(), 1.0, left, right);
    let _ = writeln!(
        out,
        "<figure><svg id=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
         viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"{}\">",
        html(id),
        html(caption)
    );
    axis.draw(out, top, bottom, "µs (log scale)");
    for (i, (name, values)) in strategies.iter().zip(&series).enumerate() {
        let mid = top + band * (i as f64 + 0.5);
        let _ = writeln!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            left - 8.0,
            mid + 4.0,
            html(name)
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
            html(name),
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
        html(caption)
    );
}
