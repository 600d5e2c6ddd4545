//! The run's statistics over its pages: per server medians and p90s ([`SideSummary`]), pagesnap over each other server ([`Ratios`]), target reach and pagesnap's own counts ([`Summary`]).

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Measured, PageResult, Reach, Side};
use crate::bench::{median, p90};

/// Medians and p90s per server, and ratios pagesnap / each other server.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    /// Pages measured on every server.
    pub pages: usize,
    /// Whether the servers' browsers reached hosts other than loopback
    /// (`--network`); without, only 127.0.0.1 and localhost resolved.
    pub network: bool,
    /// Per server: `[median, p90]` of first round trips, warm medians,
    /// tokens, refs, navigations, clicks; its tool definitions' tokens.
    pub servers: BTreeMap<Side, SideSummary>,
    /// Per other server: pagesnap / that server, of medians and of p90s.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub ratios: BTreeMap<Side, Ratios>,
    /// Task targets offered, per server: `[in view, announced, missing]`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub reach: BTreeMap<Side, [usize; 3]>,
    /// pagesnap snapshots rendered from an earlier capture, of snapshots taken.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reused_snapshots: Option<(usize, usize)>,
    /// pagesnap navigations whose answer said `incomplete`, of navigations.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub incomplete_navigations: Option<(usize, usize)>,
    /// pagesnap clicks whose answer said `incomplete`, of clicks measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub incomplete_clicks: Option<(usize, usize)>,
    /// Where pagesnap's click steps' time went.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub click_step: Option<StepSpread>,
}

/// One action kind's steps on pagesnap, each part's `[median, p90]` in ms:
/// the parts its answers report, and the rest of the round trip (the
/// answer's diff and text, the transport).
#[derive(Clone, Debug, Default, Serialize)]
pub struct StepSpread {
    /// Steps measured.
    pub steps: usize,
    /// The action's input events and the page's handlers meanwhile.
    pub act: [f64; 2],
    /// The wait for the page to settle.
    pub settle: [f64; 2],
    /// The capture after it (steps that captured).
    pub capture: [f64; 2],
    /// The engine's analysis of that capture.
    pub analysis: [f64; 2],
    /// The strategy's render.
    pub render: [f64; 2],
    /// The round trip less those parts.
    pub rest: [f64; 2],
    /// Steps that rendered an earlier capture instead of capturing.
    pub reused: usize,
}

impl StepSpread {
    /// The spread of `steps`, each with its round trip in ms.
    fn of(steps: &[(f64, &pagesnap_mcp::StepTimings)]) -> Option<StepSpread> {
        if steps.is_empty() {
            return None;
        }
        let part = |f: &dyn Fn(&pagesnap_mcp::StepTimings) -> Option<f64>| {
            spread(&steps.iter().filter_map(|(_, t)| f(t)).collect::<Vec<_>>())
        };
        Some(StepSpread {
            steps: steps.len(),
            act: part(&|t| Some(t.act_ms)),
            settle: part(&|t| Some(t.settle_ms)),
            capture: part(&|t| t.capture_ms),
            analysis: part(&|t| t.analysis_ms),
            render: part(&|t| t.render_ms),
            rest: spread(
                &steps
                    .iter()
                    .map(|(ms, t)| {
                        ms - t.act_ms
                            - t.settle_ms
                            - t.capture_ms.unwrap_or(0.0)
                            - t.analysis_ms.unwrap_or(0.0)
                            - t.render_ms.unwrap_or(0.0)
                    })
                    .collect::<Vec<_>>(),
            ),
            reused: steps.iter().filter(|(_, t)| t.capture_ms.is_none()).count(),
        })
    }
}

/// One server's figures over the pages.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SideSummary {
    /// First snapshot round trip, ms: median, p90.
    pub first_ms: [f64; 2],
    /// Per-page median warm round trip, ms: median, p90.
    pub warm_ms: [f64; 2],
    /// Snapshot tokens: median, p90.
    pub tokens: [f64; 2],
    /// Refs: median, p90.
    pub refs: [f64; 2],
    /// Navigation round trip, ms: median, p90.
    pub navigate_ms: [f64; 2],
    /// Click round trip, ms: median, p90 (pages with a click).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub click_ms: Option<[f64; 2]>,
    /// pagesnap only: full-page snapshot tokens: median, p90.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full_page_tokens: Option<[f64; 2]>,
    /// Its tool definitions (their JSON as listed), o200k tokens: what a
    /// model is shown once per session.
    pub definition_tokens: usize,
}

/// pagesnap over another server: `[of medians, of p90s]`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Ratios {
    /// First snapshot.
    pub first: [f64; 2],
    /// Warm snapshot.
    pub warm: [f64; 2],
    /// Snapshot tokens.
    pub tokens: [f64; 2],
    /// Navigation.
    pub navigate: [f64; 2],
    /// Click step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub click: Option<[f64; 2]>,
}

/// `[median, p90]`.
fn spread(values: &[f64]) -> [f64; 2] {
    [median(values.iter().copied()), p90(values.iter().copied())]
}

fn ratio(ours: [f64; 2], theirs: [f64; 2]) -> [f64; 2] {
    let one = |a: f64, b: f64| {
        if b > 0.0 {
            (a / b * 1000.0).round() / 1000.0
        } else {
            0.0
        }
    };
    [one(ours[0], theirs[0]), one(ours[1], theirs[1])]
}

pub(super) fn summarize(
    results: &[PageResult],
    sides: &[Side],
    definitions: &BTreeMap<Side, usize>,
) -> Summary {
    let mut summary = Summary {
        pages: results.len(),
        ..Summary::default()
    };
    for &side in sides {
        let measured: Vec<&Measured> = results
            .iter()
            .flat_map(|r| r.servers.iter().filter(move |m| m.side == side))
            .collect();
        let column = |f: &dyn Fn(&Measured) -> f64| -> [f64; 2] {
            spread(&measured.iter().map(|m| f(m)).collect::<Vec<_>>())
        };
        let clicks: Vec<f64> = measured
            .iter()
            .filter_map(|m| m.click.as_ref().map(|c| c.ms))
            .collect();
        let full: Vec<f64> = measured
            .iter()
            .filter_map(|m| m.full_page_tokens.map(|t| t as f64))
            .collect();
        summary.servers.insert(
            side,
            SideSummary {
                first_ms: column(&|m| m.first_ms),
                warm_ms: column(&|m| median(m.warm_ms.iter().copied())),
                tokens: column(&|m| m.tokens as f64),
                refs: column(&|m| m.refs as f64),
                navigate_ms: column(&|m| m.navigate_ms),
                click_ms: (!clicks.is_empty()).then(|| spread(&clicks)),
                full_page_tokens: (!full.is_empty()).then(|| spread(&full)),
                definition_tokens: definitions.get(&side).copied().unwrap_or(0),
            },
        );
        let reach: Vec<Reach> = results
            .iter()
            .flat_map(|r| r.targets.iter())
            .filter_map(|t| t.reach.get(&side).copied())
            .collect();
        if !reach.is_empty() {
            let count = |kind: Reach| reach.iter().filter(|&&r| r == kind).count();
            summary.reach.insert(
                side,
                [
                    count(Reach::InView),
                    count(Reach::Announced),
                    count(Reach::Missing),
                ],
            );
        }
        if side == Side::Pagesnap {
            summary.incomplete_navigations = Some((
                measured
                    .iter()
                    .filter(|m| m.navigate_incomplete == Some(true))
                    .count(),
                measured.len(),
            ));
            summary.reused_snapshots = Some((
                measured.iter().filter_map(|m| m.reused).sum(),
                measured.iter().map(|m| 1 + m.warm_ms.len()).sum(),
            ));
            let flags: Vec<bool> = measured
                .iter()
                .filter_map(|m| m.click.as_ref().and_then(|c| c.incomplete))
                .collect();
            if !flags.is_empty() {
                summary.incomplete_clicks =
                    Some((flags.iter().filter(|&&f| f).count(), flags.len()));
            }
            let steps: Vec<(f64, &pagesnap_mcp::StepTimings)> = measured
                .iter()
                .filter_map(|m| m.click.as_ref())
                .filter_map(|c| c.step.as_ref().map(|step| (c.ms, step)))
                .collect();
            summary.click_step = StepSpread::of(&steps);
        }
    }
    if let Some(ours) = summary.servers.get(&Side::Pagesnap)
        && summary.pages > 0
    {
        let ratios = summary
            .servers
            .iter()
            .filter(|(side, _)| **side != Side::Pagesnap)
            .map(|(&side, theirs)| {
                (
                    side,
                    Ratios {
                        first: ratio(ours.first_ms, theirs.first_ms),
                        warm: ratio(ours.warm_ms, theirs.warm_ms),
                        tokens: ratio(ours.tokens, theirs.tokens),
                        navigate: ratio(ours.navigate_ms, theirs.navigate_ms),
                        click: ours.click_ms.zip(theirs.click_ms).map(|(a, b)| ratio(a, b)),
                    },
                )
            })
            .collect();
        summary.ratios = ratios;
    }
    summary
}
