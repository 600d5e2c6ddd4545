//! What one page measured: per server ([`Measured`], with its [`Click`]), per task target ([`TargetResult`], each server's [`Reach`]), and the page's whole row ([`PageResult`]).

use std::collections::BTreeMap;

use serde::Serialize;

use super::Side;

/// One page on one server.
#[derive(Clone, Debug, Serialize)]
pub struct Measured {
    /// The server.
    pub side: Side,
    /// Navigation round trip (load, the server's readiness wait and
    /// whatever it returns with it), ms.
    pub navigate_ms: f64,
    /// pagesnap only: the navigation's answer said `incomplete` (its
    /// readiness budget ran out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub navigate_incomplete: Option<bool>,
    /// The first snapshot's round trip, ms.
    pub first_ms: f64,
    /// Warm snapshots' round trips, ms.
    pub warm_ms: Vec<f64>,
    /// o200k tokens of the snapshot's text blocks.
    pub tokens: usize,
    /// Refs it offers.
    pub refs: usize,
    /// pagesnap only: snapshots (first and warm) rendered from an earlier
    /// capture the page still showed (`freshness.reused`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reused: Option<usize>,
    /// pagesnap only: tokens of the same strategy's full-page snapshot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full_page_tokens: Option<usize>,
    /// The click step, when asked for and a common target was found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub click: Option<Click>,
}

/// One click step.
#[derive(Clone, Debug, Serialize)]
pub struct Click {
    /// The element, as `role "name"`.
    pub element: String,
    /// Round trip of the click (with its readiness wait and whatever comes
    /// back), ms.
    pub ms: f64,
    /// o200k tokens of the answer's text.
    pub tokens: usize,
    /// pagesnap only: the answer said `incomplete` (readiness timed out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub incomplete: Option<bool>,
    /// pagesnap only: where the step's time went, as its answer says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<pagesnap_mcp::StepTimings>,
}

/// Whether a task's target is offered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reach {
    /// In the snapshot, with a ref.
    InView,
    /// Not in the viewport snapshot, but below it, announced by the snapshot's
    /// "scroll down" hint (and found by `page_find`).
    Announced,
    /// Not offered.
    Missing,
}

/// One task's target on every server.
#[derive(Clone, Debug, Serialize)]
pub struct TargetResult {
    /// The task.
    pub task: String,
    /// `role "name"`.
    pub target: String,
    /// Per server (written as `"pagesnap": …, "playwright": …`): through
    /// pagesnap's default snapshot, and through each other server's.
    #[serde(flatten)]
    pub reach: BTreeMap<Side, Reach>,
}

/// One page, measured on every server.
#[derive(Clone, Debug, Serialize)]
pub struct PageResult {
    /// The page as given.
    pub page: String,
    /// Per server, in [`Side`] order.
    pub servers: Vec<Measured>,
    /// Targets of tasks on this page.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub targets: Vec<TargetResult>,
    /// Why no click was measured, when one was asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub click_skipped: Option<String>,
}
