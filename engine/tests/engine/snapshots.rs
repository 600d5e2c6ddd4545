//! Snapshot tests: every fixture recording × every strategy in `STRATEGIES` (`snapshots/<site>__<name>@<strategy>.snap`).
//!
//! A new strategy gets its snapshots here by being registered: nothing to add.
#![allow(
    clippy::unwrap_used,
    reason = "test helpers outside #[test] fns unwrap known-good fixtures"
)]

use std::path::Path;

use pagesnap_engine::analyze::Analyzed;
use pagesnap_engine::observation::Observation;
use pagesnap_engine::page::Page;
use pagesnap_engine::recording::Recording;
use pagesnap_engine::strategy::{Options, STRATEGIES};

use crate::common::fixture_recordings;

fn snapshot_name(path: &Path) -> String {
    let site = path
        .parent()
        .and_then(Path::file_name)
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let file = path.file_name().unwrap().to_string_lossy();
    format!("{site}__{}", file.trim_end_matches(".json.gz"))
}

/// FNV-1a, 64 bits: a stable fingerprint of the drawn PNG.
fn fnv(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// What a snapshot holds for each strategy: the text, plus the honesty
/// figures for `structural` and the image facts and PNG hash for `som`.
fn render(strategy: &str, observation: &Observation) -> String {
    let mut out = observation.text.clone();
    match strategy {
        "structural" => {
            out.push_str("--- meta.observation ---\n");
            out.push_str(&serde_json::to_string(&observation.meta.observation).unwrap());
            out.push('\n');
        }
        "som" => {
            let image = observation.image.as_ref().unwrap();
            out.push_str("--- meta.image ---\n");
            out.push_str(&serde_json::to_string(&observation.meta.image).unwrap());
            out.push_str(&format!("\npng fnv1a64: {:016x}\n", fnv(&image.png)));
        }
        _ => {}
    }
    out
}

#[test]
fn every_fixture_under_every_strategy() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        for path in fixture_recordings() {
            let bytes = std::fs::read(&path).unwrap();
            let recording = Recording::from_gz_bytes(&bytes, &path.to_string_lossy()).unwrap();
            // One analysis per recording, shared by every strategy, as the harness does.
            let analyzed = Analyzed::new(Page::from_recording(&recording));
            let screenshot = std::fs::read(path.with_extension("").with_extension("png")).ok();
            for strategy in STRATEGIES {
                let name = strategy.name();
                if name == "som" && screenshot.is_none() {
                    continue;
                }
                let options = Options {
                    screenshot: screenshot.as_deref(),
                    ..Options::default()
                };
                let observation = strategy.observe(&analyzed, &options).unwrap();
                let snapshot = format!("{}@{name}", snapshot_name(&path));
                insta::assert_snapshot!(snapshot, render(name, &observation));
            }
        }
    });
}
