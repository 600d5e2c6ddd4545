//! A replay analyses each step's recording once, whatever the number of strategies: the suite's page is the one every strategy renders and every target was resolved on.

use std::collections::{BTreeMap, BTreeSet};

use pagesnap_engine::strategy::STRATEGIES;
use pagesnap_harness::agent::baseline::Baseline;
use pagesnap_harness::observe;
use pagesnap_harness::progress::Mode;
use pagesnap_harness::replay::{Config, run};
use pagesnap_harness::report::Report;
use pagesnap_harness::suite;
use pagesnap_harness::variant::{Defaults, Variant};

use crate::support;

#[test]
fn each_recording_is_analysed_once_for_every_strategy() {
    let root = support::root();
    let suite_path = root.join("suites/smoke.toml");
    let suite = suite::load(&suite_path, &root.join("fixtures"), None).unwrap();
    assert!(
        suite.recordings.len() > 10,
        "the smoke suite names {} recordings",
        suite.recordings.len()
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
    assert_eq!(
        Report::build(outcome.manifest, outcome.rows.clone())
            .summaries
            .len(),
        STRATEGIES.len()
    );
    // Every row carries the analysis time its recording got when the suite
    // loaded: the run rendered that analysis and made none of its own.
    for row in &outcome.rows {
        let page = &suite.recordings[&row.recording];
        assert_eq!(
            row.analysis_us,
            observe::micros(page.analysed.elapsed),
            "{} step {}",
            row.task,
            row.step
        );
    }

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
