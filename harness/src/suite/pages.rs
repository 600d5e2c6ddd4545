//! Recording a suite's source pages at run time (`[suite] pages = "…"`), once each, into a cache folder.
//!
//! A suite that names a `pages` folder refers to HTML files, not recordings:
//! `recording = "readability/bbc-1"` means `<pages>/readability/bbc-1.html`.
//! Before the suite is checked, every page it names that is not yet in the
//! cache is recorded with the harness's own capture, exactly as `pagesnap
//! record PAGE --out STEM` does with its defaults (1280×720 viewport, offline:
//! only 127.0.0.1 resolves, 30 s load limit), into `<cache>/<key>.json.gz` and
//! `<cache>/<key>.png`. A page whose recording and screenshot are both in the
//! cache is not recorded again, so `--resume` and later runs reuse them.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Result, bail};

use pagesnap_browser::{Chromium, OpenOptions};

use crate::record::{self, Job};
use crate::store;

/// One page to record: its key, the HTML file, and where the suite names it
/// first (`suites/corpus.toml:12: task "x" step 1`) for error messages.
pub struct Wanted {
    /// Recording key (`readability/bbc-1`).
    pub key: String,
    /// Where the suite first names it.
    pub at: String,
}

/// The HTML file a key names under `pages`: `<pages>/<key>.html` (or `.htm`).
pub fn source_of(pages: &Path, key: &str) -> Option<PathBuf> {
    ["html", "htm"]
        .iter()
        .map(|ext| pages.join(format!("{key}.{ext}")))
        .find(|path| path.is_file())
}

/// Whether `key` is complete in the cache (recording and screenshot).
fn cached(cache: &Path, key: &str) -> bool {
    let (json, png) = store::paths(&cache.join(key));
    json.is_file() && png.is_file()
}

/// Records every wanted page that is not in `cache` yet. Pages are checked
/// first (a missing HTML file fails before Chromium starts); a capture that
/// fails stops the run with an error naming the page and where the suite uses it.
/// Returns how many pages were recorded.
pub fn record_missing(pages: &Path, cache: &Path, wanted: &[Wanted]) -> Result<usize> {
    let mut jobs = Vec::new();
    for page in wanted {
        let Some(source) = source_of(pages, &page.key) else {
            bail!(
                "{}: page {:?} not found ({} or .htm)",
                page.at,
                page.key,
                pages.join(format!("{}.html", page.key)).display()
            );
        };
        if !cached(cache, &page.key) {
            jobs.push((page, source));
        }
    }
    if jobs.is_empty() {
        return Ok(0);
    }
    eprintln!(
        "recording {} page{} from {} into {}",
        jobs.len(),
        if jobs.len() == 1 { "" } else { "s" },
        pages.display(),
        cache.display()
    );
    let started = Instant::now();
    pagesnap_browser::runtime()?.block_on(async {
        let chromium = Chromium::launch(false).await?;
        let mut result = Ok(());
        for (page, source) in &jobs {
            if let Err(err) = record_one(&chromium, source, &cache.join(&page.key)).await {
                result = Err(err.context(format!(
                    "{}: could not record page {}",
                    page.at,
                    source.display()
                )));
                break;
            }
        }
        chromium.close().await?;
        result
    })?;
    eprintln!(
        "recorded {} page{} in {:.1} s",
        jobs.len(),
        if jobs.len() == 1 { "" } else { "s" },
        started.elapsed().as_secs_f64()
    );
    Ok(jobs.len())
}

async fn record_one(chromium: &Chromium, source: &Path, stem: &Path) -> Result<()> {
    let job = Job {
        target: source.display().to_string(),
        out: stem.to_path_buf(),
        options: OpenOptions::default(),
        then: Vec::new(),
        caps: record::Caps::default(),
        redact: false,
    };
    // The screenshot is written last: a recording counts as cached only when
    // both files exist, so a run killed in between records the page again.
    record::record(chromium, &job).await?;
    Ok(())
}
