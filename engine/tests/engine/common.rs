//! Helpers every test module shares: the fixture folder and one-call observation.
#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::path::{Path, PathBuf};

use pagesnap_engine::analyze::Analyzed;
use pagesnap_engine::observation::Observation;
use pagesnap_engine::page::Page;
use pagesnap_engine::strategy::{ObserveError, Options, by_name};

/// The repository's `fixtures/` folder.
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures")
}

/// Every committed recording, `fixtures/**/<name>.json.gz`, sorted.
pub fn fixture_recordings() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![fixtures_dir()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.to_string_lossy().ends_with(".json.gz") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Renders `page` through the strategy called `name`, analysing a copy of it.
pub fn try_observe(
    name: &str,
    page: &Page,
    options: &Options<'_>,
) -> Result<Observation, ObserveError> {
    by_name(name)
        .unwrap_or_else(|| panic!("no strategy {name}"))
        .observe(&Analyzed::new(page.clone()), options)
}

/// [`try_observe`] for observations that must succeed.
pub fn observe(name: &str, page: &Page, options: &Options<'_>) -> Observation {
    try_observe(name, page, options).unwrap_or_else(|e| panic!("{name}: {e}"))
}
