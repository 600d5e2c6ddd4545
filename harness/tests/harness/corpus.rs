//! The shared corpus (`../shared/corpus`, real saved pages) recorded whole by `pagesnap record --each`. Its module sorts first among the long tests: the test binary starts tests in name order, and this one (minutes) would otherwise start near the end and run alone while a core idles.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::record::collect;
use crate::support::load;
use pagesnap_engine::page::{NodeId, Page};

fn pagesnap() -> Command {
    Command::new(crate::support::exe())
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus")
}

/// Pages of the corpus that cannot be recorded, with the reason. Chromium
/// itself never finishes loading these (`chromium --headless --dump-dom`
/// prints nothing either), so the recorder must report them, not hang.
const CORPUS_UNLOADABLE: &[&str] = &[
    // An image whose `onerror` sets its `src` again, failing again offline:
    // a load that never ends, so the load event never fires.
    "readability/ehow-2.html",
];

/// The corpus copied into `to`, bar [`CORPUS_UNLOADABLE`] (into a scratch
/// folder, never into the repository).
fn copy_loadable(from: &Path, to: &Path, below: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let relative = path.strip_prefix(below).unwrap();
        let target = to.join(relative);
        if path.is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_loadable(&path, to, below);
        } else if !CORPUS_UNLOADABLE
            .iter()
            .any(|page| relative == Path::new(page))
        {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

/// Every page of the shared corpus records (the known unloadable one fails
/// with a clear timeout, recorded on its own: in the whole run it would hold
/// the recorder for the whole limit), each recording's element counts (main
/// document, open shadow trees, iframes) equal what the page's own
/// `querySelectorAll('*')` reported at capture, and the engine's roles and
/// names agree with Chromium's accessibility tree above the floors; then
/// the corpus suite runs on these recordings (`corpus_suite.rs`). The
/// page limit is 90 s: the largest page (`readability/wikipedia-2.html`,
/// 5 s alone) ran out of 10 s, then of 20 s, on loaded machines (three
/// Chromium-heavy tests at once on two cores); this test bounds no time.
#[test]
fn records_the_whole_corpus_with_matching_counts_and_validates() {
    let corpus = corpus_dir();
    assert!(
        corpus.exists(),
        "the shared corpus is missing at {} (CI clones ../shared beside the repo)",
        corpus.display()
    );
    let pages = tempfile::tempdir().unwrap();
    copy_loadable(&corpus, pages.path(), &corpus);
    let dir = tempfile::tempdir().unwrap();
    let output = pagesnap()
        .args(["record", "--each"])
        .arg(pages.path())
        .arg("--out")
        .arg(dir.path())
        .args(["--timeout", "90"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains("error: "), "{stderr}");
    for page in CORPUS_UNLOADABLE {
        let output = pagesnap()
            .arg("record")
            .arg(corpus.join(page))
            .arg("--out")
            .arg(dir.path().join("unloadable"))
            .args(["--timeout", "5"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{page}: {stderr}");
        assert!(
            stderr.contains(page) && stderr.contains("timed out after 5.0 s"),
            "{stderr}"
        );
    }
    let mut recordings = Vec::new();
    collect(dir.path(), &mut recordings);
    assert!(
        recordings.len() >= 170,
        "only {} recordings",
        recordings.len()
    );
    let mut mismatches = Vec::new();
    let mut restless = Vec::new();
    for path in &recordings {
        let recording = load(path);
        let page = Page::from_recording(&recording);
        // No counts: the page's scripts changed its DOM during every capture attempt.
        let Some(counts) = recording.counts else {
            restless.push(path.display().to_string());
            continue;
        };
        if page.element_counts() != counts {
            mismatches.push(format!(
                "{}: engine {:?} vs browser {:?}",
                path.display(),
                page.element_counts(),
                counts
            ));
        }
        assert_eq!(page.len(), recording.nodes.len());
        assert!(
            page.ids()
                .all(|id| id == NodeId::ROOT || page.parent(id).is_some())
        );
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    assert!(
        restless.len() <= 3,
        "pages that never held still: {restless:?}"
    );

    let output = pagesnap()
        .arg("validate")
        .arg(dir.path())
        .args(["--min-role", "97", "--min-name", "95"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("role agreement") && stdout.contains("excluded:"),
        "{stdout}"
    );

    crate::corpus_suite::runs_on_the_recorded_corpus(dir.path());
}
