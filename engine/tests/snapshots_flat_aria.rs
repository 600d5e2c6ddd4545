//! Snapshot tests: every fixture recording × the `flat` and `aria` strategies (`snapshots/<site>__<name>@<strategy>.snap`).
#![allow(
    clippy::unwrap_used,
    reason = "test helpers outside #[test] fns unwrap known-good fixtures"
)]

use std::path::{Path, PathBuf};

use pagesnap_engine::page::Page;
use pagesnap_engine::recording::Recording;
use pagesnap_engine::strategy::{Options, by_name};

/// `fixtures/<site>/<name>.json.gz`, sorted.
fn recordings() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let mut out = Vec::new();
    let Ok(sites) = std::fs::read_dir(&root) else {
        return out;
    };
    for site in sites.flatten() {
        let Ok(files) = std::fs::read_dir(site.path()) else {
            continue;
        };
        for file in files.flatten() {
            if file.path().to_string_lossy().ends_with(".json.gz") {
                out.push(file.path());
            }
        }
    }
    out.sort();
    out
}

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

fn check(strategy: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        for path in recordings() {
            let bytes = std::fs::read(&path).unwrap();
            let recording = Recording::from_gz_bytes(&bytes, &path.to_string_lossy()).unwrap();
            let page = Page::from_recording(&recording);
            let observation = by_name(strategy)
                .unwrap()
                .observe(&page, &Options::default())
                .unwrap();
            let name = format!("{}@{strategy}", snapshot_name(&path));
            insta::assert_snapshot!(name, observation.text);
        }
    });
}

#[test]
fn flat_snapshots() {
    check("flat");
}

#[test]
fn aria_snapshots() {
    check("aria");
}
