//! `pagesnap record`: capture a page, a scripted sequence of states, a manifest of fixtures, or a folder of pages.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde::Deserialize;

use pagesnap_browser::{Chromium, OpenOptions, WaitFor};

use super::flags::{BrowserArgs, Reach};
use crate::live::server::Server;
use crate::record::{self, Caps, Job, steps};
use crate::revive;
use crate::signals::Signals;

/// Arguments of `pagesnap record`.
#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  pagesnap record fixtures/sites/login/index.html --out fixtures/login/initial\n  \
pagesnap record page.html --out /tmp/p --then 'type #user ada; click #go'\n  \
pagesnap record --manifest fixtures/manifest.toml\n  \
pagesnap record --each ../shared/corpus --out /tmp/corpus"
)]
pub struct Args {
    /// URL or local .html file to record.
    #[arg(required_unless_present_any = ["manifest", "each"])]
    target: Option<String>,
    /// Output stem: writes <OUT>.json.gz and <OUT>.png (with --then also <OUT>.step1.json.gz, …);
    /// with --each, the output directory.
    #[arg(long, short)]
    out: Option<PathBuf>,
    /// Scripted steps separated by `;` — `click SEL`, `type SEL TEXT`, `select SEL VALUE`, `scroll PX`,
    /// `wait MS` — with a recording written after each step (<OUT>.step<K>).
    #[arg(long)]
    then: Option<String>,
    /// Re-record every fixture listed in a manifest (paths in it are relative to the manifest's folder).
    #[arg(long, conflicts_with_all = ["target", "each"])]
    manifest: Option<PathBuf>,
    /// With --manifest: only record entries whose site matches (repeatable).
    #[arg(long)]
    only: Vec<String>,
    /// Record every .html/.htm file under this folder into --out, mirroring the folder layout.
    #[arg(long, conflicts_with = "target")]
    each: Option<PathBuf>,
    /// Keep at most N nodes per recording: past it, the document-order tail (whole subtrees) is cut,
    /// counted in the recording's `capture.cut_nodes` and said on stderr.
    #[arg(long, value_name = "N", default_value_t = Caps::DEFAULT_MAX_NODES)]
    max_nodes: usize,
    /// Keep at most BYTES of text (text nodes, attribute values, form values, in document order) per
    /// recording: past it, text is truncated at a character boundary, counted in `capture.cut_text`
    /// and said on stderr.
    #[arg(long, value_name = "BYTES", default_value_t = Caps::DEFAULT_MAX_TEXT)]
    max_text: usize,
    /// Apply the engine's redaction rules before anything is written: secret field values, secret-like
    /// text, secrets in URLs and attributes become `[redacted]` in the recording, and their boxes are
    /// blanked in the screenshot. The default keeps pages as they were (lossless, for research).
    #[arg(long)]
    redact: bool,
    #[command(flatten)]
    browser: BrowserArgs,
}

/// A fixture manifest (`fixtures/manifest.toml`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    recording: Vec<ManifestEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestEntry {
    site: String,
    #[serde(default = "default_page")]
    page: String,
    name: String,
    #[serde(default)]
    viewport: Option<String>,
    #[serde(default)]
    scroll_y: Option<f64>,
    #[serde(default)]
    wait_for: Option<String>,
    #[serde(default)]
    then: Vec<String>,
    /// Served over `http://127.0.0.1:<port>/` by pagesnap's page server (as
    /// the live runner serves its pages) instead of opened as a file, so a
    /// frame the page loads from the server's other host name (`localhost`)
    /// is another site, rendered out of process.
    #[serde(default)]
    served: bool,
}

fn default_page() -> String {
    "index.html".to_owned()
}

pub fn run(args: Args) -> Result<ExitCode> {
    args.browser.check()?;
    let timeout = args.browser.timeout();
    let caps = Caps {
        max_nodes: args.max_nodes,
        max_text: args.max_text,
    };
    // `_server` lives as long as the jobs that load pages from it.
    let (mut jobs, _server) = if let Some(manifest) = &args.manifest {
        manifest_jobs(manifest, &args.only, timeout)?
    } else if let Some(dir) = &args.each {
        let out = args.out.clone().context("--each needs --out DIR")?;
        (each_jobs(dir, &out, &args)?, None)
    } else {
        let target = args
            .target
            .clone()
            .context("a target URL or file is required")?;
        let out = args
            .out
            .clone()
            .context("--out is required (e.g. --out fixtures/site/name)")?;
        let jobs = vec![Job {
            target,
            out,
            options: args.browser.open_options(),
            then: args
                .then
                .as_deref()
                .map(steps::parse_sequence)
                .transpose()?
                .unwrap_or_default(),
            caps,
            redact: args.redact,
        }];
        (jobs, None)
    };
    for job in &mut jobs {
        job.caps = caps;
        job.redact = args.redact;
    }
    check_distinct_outputs(&jobs)?;
    let runtime = pagesnap_browser::runtime()?;
    let outcome = runtime.block_on(record_all(
        jobs,
        args.each.is_some(),
        args.browser.browser_for(0),
        args.browser.network(Reach::Offline),
    ));
    // The browser is closed and its profile removed by now. What may still
    // run is the decoding of an answer the budget gave up on (see
    // `ChromiumSession::call_large`): not waited for.
    runtime.shutdown_background();
    outcome
}

/// Refuses, before anything is recorded, two jobs that would write the same
/// recording: `e.html` and `e.htm` in one `--each` folder both become
/// `e.json.gz`, and the second would silently replace the first.
fn check_distinct_outputs(jobs: &[Job]) -> Result<()> {
    let mut writers: BTreeMap<PathBuf, &str> = BTreeMap::new();
    for job in jobs {
        for stem in job.stems() {
            let (json, _) = crate::store::paths(&stem);
            if let Some(first) = writers.insert(json.clone(), &job.target) {
                bail!(
                    "{first} and {} would both be recorded to {}; rename one of them \
                     (nothing was recorded)",
                    job.target,
                    json.display()
                );
            }
        }
    }
    Ok(())
}

/// Records every job in one browser, started again in its place if it dies
/// ([`record_reviving`]). SIGINT and SIGTERM are listened for before the
/// browser starts: either stops the work, closes the browser, removes its
/// profile and ends with 130 or 143.
async fn record_all(
    jobs: Vec<Job>,
    keep_going: bool,
    endpoint: Option<&str>,
    network: bool,
) -> Result<ExitCode> {
    let mut signals = Signals::install()?;
    // Dropping a launch under way kills the browser (chromiumoxide spawns it
    // with kill-on-drop) and removes the profile.
    let mut chromium = tokio::select! {
        chromium = Chromium::start(endpoint, network) => chromium?,
        stop = signals.recv() => {
            eprintln!("interrupted by {} while launching the browser; nothing was recorded", stop.name());
            return Ok(stop.exit_code());
        }
    };
    let total = jobs.len();
    let mut done = 0usize;
    let outcome = tokio::select! {
        outcome = record_jobs(&mut chromium, &jobs, keep_going, &mut done) => Ok(outcome),
        stop = signals.recv() => Err(stop),
    };
    let closed = chromium.close().await;
    match outcome {
        Err(stop) => {
            closed?;
            eprintln!(
                "interrupted by {}: {done} of {total} pages recorded; the browser was closed and its \
                 temp profile removed",
                stop.name()
            );
            Ok(stop.exit_code())
        }
        Ok(Err(err)) => Err(err),
        Ok(Ok(failures)) => {
            closed?;
            if failures > 0 {
                eprintln!("{failures} of {total} recordings failed");
                return Ok(ExitCode::from(1));
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Records the jobs in order, counting those done; returns how many failed
/// (with `keep_going` or several jobs), or the first error. Once the
/// browser died and none could take its place, every later job fails at
/// once with the reason.
async fn record_jobs(
    chromium: &mut Chromium,
    jobs: &[Job],
    keep_going: bool,
    done: &mut usize,
) -> Result<usize> {
    let mut failures = 0usize;
    let mut lost: Option<String> = None;
    for job in jobs {
        let recorded = match &lost {
            Some(why) => Err(anyhow::anyhow!("{why}")),
            None => record_reviving(chromium, job, &mut lost).await,
        };
        match recorded {
            Ok(()) => *done += 1,
            Err(err) if keep_going || jobs.len() > 1 => {
                failures += 1;
                eprintln!("error: {}: {err:#}", job.target);
            }
            Err(err) => return Err(err),
        }
    }
    Ok(failures)
}

/// Records `job` in `chromium`, which is started again in its place when it
/// died: before the job (after the last one, or under it a second time), or
/// under the job, which is then retried once on the new browser. A job the
/// browser died under twice is not tried a third time; the next starts on a
/// browser of its own. When no browser can take the dead one's place, `lost`
/// says why and the job fails.
async fn record_reviving(
    chromium: &mut Chromium,
    job: &Job,
    lost: &mut Option<String>,
) -> Result<()> {
    if chromium.is_gone()
        && let Err(err) = revive::in_place(chromium).await
    {
        let why = format!("the browser died; {}", revive::lost(chromium, &err));
        *lost = Some(why.clone());
        bail!(why);
    }
    let first = match record_one(chromium, job).await {
        Ok(()) => return Ok(()),
        Err(err) if !chromium.is_gone() => return Err(err),
        Err(err) => err,
    };
    if let Err(err) = revive::in_place(chromium).await {
        let why = revive::lost(chromium, &err);
        *lost = Some(format!("the browser died; {why}"));
        return Err(first.context(format!("the browser died while recording it; {why}")));
    }
    let again = revive::again(chromium);
    match record_one(chromium, job).await {
        Ok(()) => {
            eprintln!(
                "warning: {}: the browser died while recording it; {again}, recorded on the \
                 second try",
                job.target
            );
            Ok(())
        }
        Err(err) if chromium.is_gone() => Err(err.context(format!(
            "the browser died while recording it, twice ({again} after the first; not retried \
             again)"
        ))),
        Err(err) => Err(err.context(format!(
            "the browser died while recording it ({again}; retried once)"
        ))),
    }
}

async fn record_one(chromium: &Chromium, job: &Job) -> Result<()> {
    let started = Instant::now();
    for written in record::record(chromium, job).await? {
        println!(
            "recorded {} → {} ({} nodes, {:.1} KiB, {} ms)",
            job.target,
            written.path.display(),
            written.nodes,
            written.bytes as f64 / 1024.0,
            started.elapsed().as_millis()
        );
        let notes = &written.notes;
        if notes.cut_nodes > 0 {
            eprintln!(
                "warning: {}: {} nodes past --max-nodes {} were cut (the document-order tail, whole \
                 subtrees); counted in capture.cut_nodes of {}",
                job.target,
                notes.cut_nodes,
                job.caps.max_nodes,
                written.path.display()
            );
        }
        if notes.cut_text > 0 {
            eprintln!(
                "warning: {}: {} bytes of text past --max-text {} were cut (truncated at a character \
                 boundary); counted in capture.cut_text of {}",
                job.target,
                notes.cut_text,
                job.caps.max_text,
                written.path.display()
            );
        }
        for frame in &notes.missing_frames {
            eprintln!(
                "warning: {}: a frame from another site was left out ({frame}); named in \
                 capture.missing_frames of {}",
                job.target,
                written.path.display()
            );
        }
        if let Some(redacted) = notes.redacted {
            eprintln!(
                "{}: --redact replaced {redacted} secret{} before writing {}",
                job.target,
                if redacted == 1 { "" } else { "s" },
                written.path.display()
            );
        }
    }
    Ok(())
}

/// The manifest's jobs, and the page server its `served` pages load from.
fn manifest_jobs(
    path: &Path,
    only: &[String],
    timeout: Duration,
) -> Result<(Vec<Job>, Option<Server>)> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("could not read {}", path.display()))?;
    let manifest: Manifest =
        toml::from_str(&text).map_err(|err| anyhow::anyhow!("{}: {err}", path.display()))?;
    let base = path.parent().unwrap_or(Path::new("."));
    let mut jobs = Vec::new();
    let mut server = None;
    for (i, entry) in manifest.recording.iter().enumerate() {
        if !only.is_empty() && !only.iter().any(|o| o == &entry.site) {
            continue;
        }
        let context = || {
            format!(
                "{}: recording #{} ({}/{})",
                path.display(),
                i + 1,
                entry.site,
                entry.name
            )
        };
        let (width, height) = match &entry.viewport {
            Some(v) => super::flags::parse_viewport(v)
                .map_err(anyhow::Error::msg)
                .with_context(context)?,
            None => pagesnap_browser::DEFAULT_VIEWPORT,
        };
        let source = base.join("sites").join(&entry.site).join(&entry.page);
        if !source.exists() {
            bail!("{}: page {} does not exist", context(), source.display());
        }
        let then = entry
            .then
            .iter()
            .map(|step| steps::parse(step))
            .collect::<Result<Vec<_>>>()
            .with_context(context)?;
        let target = if entry.served {
            if server.is_none() {
                server = Some(Server::start(&base.join("sites")).with_context(context)?);
            }
            server
                .as_ref()
                .map(|s| s.url(&format!("{}/{}", entry.site, entry.page)))
                .unwrap_or_default()
        } else {
            source.display().to_string()
        };
        jobs.push(Job {
            target,
            out: base.join(&entry.site).join(&entry.name),
            options: OpenOptions {
                width,
                height,
                scroll_y: entry.scroll_y,
                wait_for: entry.wait_for.as_deref().map(WaitFor::parse),
                timeout,
                follow_load: false,
            },
            then,
            caps: Caps::default(),
            redact: false,
        });
    }
    if jobs.is_empty() {
        bail!("{}: no recordings selected", path.display());
    }
    Ok((jobs, server))
}

fn each_jobs(dir: &Path, out: &Path, args: &Args) -> Result<Vec<Job>> {
    let pages = collect_html(dir)?;
    if pages.is_empty() {
        bail!("{}: no .html files found", dir.display());
    }
    Ok(pages
        .into_iter()
        .map(|page| {
            let rel = page.strip_prefix(dir).unwrap_or(&page);
            let stem = rel.with_extension("");
            Job {
                target: page.display().to_string(),
                out: out.join(stem),
                options: args.browser.open_options(),
                then: Vec::new(),
                caps: Caps::default(),
                redact: false,
            }
        })
        .collect())
}

/// Every `.html`/`.htm` file under `dir`, sorted, each real file once.
pub(super) fn collect_html(dir: &Path) -> Result<Vec<PathBuf>> {
    crate::store::walk_files(dir, &|path| {
        path.extension().is_some_and(|e| e == "html" || e == "htm")
    })
}
