//! A replay analyses each step's recording once, whatever the number of strategies: the suite's page is the one every strategy renders and every target was resolved on.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

#[path = "harness/support/mod.rs"]
#[allow(dead_code, reason = "this binary uses only part of the support module")]
mod support;

use std::collections::{BTreeMap, BTreeSet};

use pagesnap_engine::strategy::STRATEGIES;
use pagesnap_harness::agent::baseline::Baseline;
use pagesnap_harness::observe;
use pagesnap_harness::progress::Mode;
use pagesnap_harness::replay::{Config, run};
use pagesnap_harness::report::Report;
use pagesnap_harness::suite;
use pagesnap_harness::variant::{Defaults, Variant};

#[test]
fn each_recording_is_analysed_once_for_every_strategy() {
    let root = support::root();
    let suite_path = root.join("suites/smoke.toml");
    let before = observe::analyses();
    let suite = suite::load(&suite_path, &root.join("fixtures"), None).unwrap();
    let recordings = suite.recordings.len();
    assert!(
        recordings > 10,
        "the smoke suite names {recordings} recordings"
    );
    assert_eq!(
        observe::analyses() - before,
        recordings,
        "loading the suite"
    );

    let out = tempfile::tempdir().unwrap();
    let outcome = run(&Config {
        suite: &suite,
        strategies: STRATEGIES
            .iter()
            .map(|&s| Variant::plain(s, Defaults::default()))
            .collect(),
        agent: &Baseline,
        out: out.path().join("run"),
        resume: false,
        jobs: 2,
        suite_path,
        shard: None,
        progress: Mode::Quiet,
        judge: None,
    })
    .unwrap();
    // Six strategies rendered every step; not one more analysis happened.
    assert_eq!(
        Report::build(outcome.manifest, outcome.rows.clone())
            .summaries
            .len(),
        STRATEGIES.len()
    );
    assert_eq!(observe::analyses() - before, recordings, "after the run");

    // Every strategy's row of a step carries the one analysis time of its recording.
    let mut analysis_of: BTreeMap<(String, usize), BTreeSet<u64>> = BTreeMap::new();
    let mut strategies_of: BTreeMap<(String, usize), usize> = BTreeMap::new();
    for row in &outcome.rows {
        analysis_of
            .entry((row.task.clone(), row.step))
            .or_default()
            .insert(row.analysis_us);
        *strategies_of
            .entry((row.task.clone(), row.step))
            .or_default() += 1;
    }
    for (step, times) in &analysis_of {
        assert_eq!(times.len(), 1, "{step:?}: {times:?}");
        assert_eq!(strategies_of[step], STRATEGIES.len(), "{step:?}");
    }
}
