//! Live benchmarks: per page, the first and the warm live observations, and Playwright's own `ariaSnapshot()` on the same page in the same run.
//!
//! Each page is loaded once per side. pagesnap observes it through every
//! strategy asked for (the first call, then `runs` warm calls each);
//! Playwright's helper then loads it in its own browser (the same Chromium
//! build) and times `page.locator('body').ariaSnapshot()` the same way.
//! Results stream out page by page, so an interrupted run keeps what it
//! measured.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};
use pagesnap_engine::recording::NodeKind;
use pagesnap_engine::strategy::{Options, Strategy};
use serde::Serialize;

use super::playwright::Playwright;
use super::{PageError, median, ms, p90};
use crate::external::{External, Program};
use crate::revive;
use pagesnap_browser::{Chromium, ChromiumSession, Needs, OpenOptions};

/// What to measure.
pub struct Config {
    /// Pages: local `.html` files or URLs.
    pub pages: Vec<String>,
    /// Strategies, each timed on every page.
    pub strategies: Vec<&'static dyn Strategy>,
    /// External strategies, each timed on every page in a browser of their
    /// own that their programs attach to.
    pub externals: Vec<Arc<External>>,
    /// Warm observations per page and strategy (after the first).
    pub runs: usize,
    /// Viewport and load limit.
    pub open: OpenOptions,
    /// Let pages reach the network.
    pub network: bool,
    /// Attach to this browser for pagesnap's strategies instead of launching
    /// one (external strategies keep a browser of their own).
    pub endpoint: Option<String>,
    /// Time Playwright's `ariaSnapshot()` too.
    pub vs_playwright: bool,
    /// Capture everything a recording for the archive holds (`Needs::RECORD`:
    /// accessibility oracle, stable counts, compact screenshot) instead of
    /// what the strategy needs: what recording costs, call by call.
    pub archive: bool,
    /// Cold runs per page and strategy: `pagesnap snapshot PAGE` as a whole
    /// process (and Playwright's `cold-aria.mjs` with `vs_playwright`).
    pub cold: usize,
}

/// One page × strategy.
#[derive(Clone, Debug, Serialize)]
pub struct PageResult {
    /// The page as given.
    pub page: String,
    /// The strategy.
    pub strategy: String,
    /// Elements in the captured page (every tree).
    pub elements: usize,
    /// Tokens of the first observation (o200k).
    pub tokens: usize,
    /// An external strategy: the median round trip of the warm calls, ms
    /// (`first_ms`, `warm_ms` and `capture_ms` are the program's own
    /// observation times, without resolving refs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub round_trip_ms: Option<f64>,
    /// The first observation after load, ms.
    pub first_ms: f64,
    /// The warm observations, ms, in order.
    pub warm_ms: Vec<f64>,
    /// Median capture time of the warm observations, ms.
    pub capture_ms: f64,
    /// Median engine time (analysis + render) of the warm observations, ms.
    pub engine_ms: f64,
    /// Median latency of each capture call over the warm observations, ms.
    pub calls: BTreeMap<&'static str, f64>,
    /// Playwright's first `ariaSnapshot()`, ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub playwright_first_ms: Option<f64>,
    /// Playwright's warm calls, ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub playwright_warm_ms: Option<Vec<f64>>,
    /// Median warm ms over Playwright's median warm ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ratio: Option<f64>,
    /// Cold `pagesnap snapshot` processes, ms (`--cold`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cold_ms: Vec<f64>,
    /// Cold Playwright processes, ms (`--cold --vs-playwright`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub playwright_cold_ms: Vec<f64>,
}

/// One strategy over every measured page.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// Always true: tells the summary line from page lines.
    pub summary: bool,
    /// The strategy.
    pub strategy: String,
    /// Pages measured.
    pub pages: usize,
    /// Pages that failed (listed on their own lines).
    pub failed: usize,
    /// Median over pages of each page's first observation, ms.
    pub median_first_ms: f64,
    /// Median over pages of each page's median warm observation, ms.
    pub median_warm_ms: f64,
    /// 90th percentile over pages of each page's median warm observation, ms.
    pub p90_warm_ms: f64,
    /// Median over pages of the median capture time, ms.
    pub median_capture_ms: f64,
    /// Median over pages of the median engine time, ms.
    pub median_engine_ms: f64,
    /// Median over pages of each capture call's median, ms.
    pub calls: BTreeMap<&'static str, f64>,
    /// Playwright's median first call over pages, ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub playwright_median_first_ms: Option<f64>,
    /// Playwright's median warm call over pages, ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub playwright_median_warm_ms: Option<f64>,
    /// Median of the per-page ratios.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub median_ratio: Option<f64>,
    /// 90th percentile of the per-page ratios.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p90_ratio: Option<f64>,
    /// Median over pages of the median cold process, ms (`--cold`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub median_cold_ms: Option<f64>,
    /// Playwright's median cold process over pages, ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub playwright_median_cold_ms: Option<f64>,
    /// The page with the most elements.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub largest: Option<Largest>,
    /// playwright-core's version, when compared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub playwright: Option<String>,
}

/// The largest page's figures.
#[derive(Clone, Debug, Serialize)]
pub struct Largest {
    /// The page.
    pub page: String,
    /// Its elements.
    pub elements: usize,
    /// Its median warm observation, ms.
    pub warm_ms: f64,
    /// Its ratio to Playwright, when compared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ratio: Option<f64>,
}

/// What is up when measuring starts.
pub struct Started<'a> {
    /// pagesnap's Chromium.
    pub browser: &'a str,
    /// Playwright's version and browser, when compared.
    pub playwright: Option<(&'a str, &'a str)>,
}

/// One line of output, as it is measured (a page × strategy).
pub type Event<'a> = super::Event<'a, Started<'a>, PageResult>;

/// Everything a run measured; the summary is per strategy, in the order asked for.
pub type Outcome = super::Outcome<PageResult, Vec<Summary>>;

/// Runs the benchmark, reporting each page as it is measured.
pub async fn run(config: &Config, mut report: impl FnMut(Event<'_>)) -> Result<Outcome> {
    let mut chromium = Chromium::start(config.endpoint.as_deref(), config.network).await?;
    let mut playwright = if config.vs_playwright {
        Some(tokio::task::block_in_place(Playwright::start)?)
    } else {
        None
    };
    report(Event::Started(Started {
        browser: chromium.version(),
        playwright: playwright
            .as_ref()
            .map(|p| (p.version.as_str(), p.browser.as_str())),
    }));
    let mut outcome = Outcome {
        results: Vec::new(),
        errors: Vec::new(),
        summary: Vec::new(),
    };
    // External strategies observe in their own browser (their programs
    // attach to it), so pagesnap's timings share a browser with no other client.
    let mut external_browser = if config.externals.is_empty() {
        None
    } else {
        Some(Chromium::launch(config.network).await?)
    };
    let mut externals = match &external_browser {
        Some(browser) => programs(config, browser),
        None => Vec::new(),
    };
    for page in &config.pages {
        // A browser that died (under the last page, which was reported as
        // an error) is started again in its place for this one.
        if chromium.is_gone() {
            revive::in_place(&mut chromium).await?;
        }
        if let Some(browser) = &mut external_browser
            && browser.is_gone()
        {
            for (program, _) in &mut externals {
                program.stop().await;
            }
            revive::in_place(browser).await?;
            externals = programs(config, browser);
        }
        let mut measured = measure_page(&chromium, playwright.as_mut(), page, config).await;
        if let (Ok(results), Some(browser)) = (&mut measured, &external_browser) {
            match measure_externals(browser, &mut externals, page, config).await {
                Ok(more) => results.extend(more),
                Err(err) => measured = Err(err),
            }
        }
        match measured {
            Ok(results) => {
                for result in results {
                    report(Event::Page(&result));
                    outcome.results.push(result);
                }
            }
            Err(err) => {
                let error = PageError {
                    page: page.clone(),
                    error: format!("{err:#}"),
                };
                report(Event::Failed(&error));
                outcome.errors.push(error);
            }
        }
    }
    chromium.close().await?;
    let version = playwright.as_ref().map(|p| p.version.clone());
    drop(playwright);
    for (mut program, _) in externals {
        program.stop().await;
    }
    if let Some(browser) = external_browser {
        browser.close().await?;
    }
    outcome.summary = config
        .strategies
        .iter()
        .map(|s| s.name())
        .chain(config.externals.iter().map(|e| e.name.as_str()))
        .map(|name| Summary {
            playwright: version.clone(),
            ..summarize(name, &outcome, config)
        })
        .collect();
    Ok(outcome)
}

/// A program for each external strategy, attached to `browser`, and its websocket.
fn programs(config: &Config, browser: &Chromium) -> Vec<(Program, String)> {
    config
        .externals
        .iter()
        .map(|e| {
            (
                Program::new(Arc::clone(e), browser.websocket_url()),
                browser.websocket_url().to_owned(),
            )
        })
        .collect()
}

async fn measure_page(
    chromium: &Chromium,
    playwright: Option<&mut Playwright>,
    page: &str,
    config: &Config,
) -> Result<Vec<PageResult>> {
    let session = chromium.open(page, &config.open).await?;
    let url = session.url().to_owned();
    let measured = measure_session(&session, page, config).await;
    session.close().await;
    let mut results = measured?;
    if let Some(playwright) = playwright {
        let timed = tokio::task::block_in_place(|| {
            playwright.measure(
                &url,
                config.runs,
                (config.open.width, config.open.height),
                config.open.timeout,
            )
        })?;
        let theirs = median(timed.warm_ms.iter().copied());
        for result in &mut results {
            let ours = median(result.warm_ms.iter().copied());
            result.ratio = (theirs > 0.0).then(|| (ours / theirs * 1000.0).round() / 1000.0);
            result.playwright_first_ms = Some(timed.first_ms);
            result.playwright_warm_ms = Some(timed.warm_ms.clone());
        }
    }
    if config.cold > 0 {
        tokio::task::block_in_place(|| cold(&mut results, page, &url, config))?;
    }
    Ok(results)
}

/// Times `config.cold` whole `pagesnap snapshot` processes per strategy
/// (and Playwright's cold script), alternating the two sides.
fn cold(results: &mut [PageResult], page: &str, url: &str, config: &Config) -> Result<()> {
    let exe = std::env::current_exe().context("could not find the pagesnap binary")?;
    for result in results.iter_mut() {
        for _ in 0..config.cold {
            let started = Instant::now();
            let mut command = std::process::Command::new(&exe);
            command
                .args(["snapshot", page, "--strategy", &result.strategy])
                .arg("--viewport")
                .arg(format!("{}x{}", config.open.width, config.open.height))
                .arg("--timeout")
                .arg(config.open.timeout.as_secs().to_string())
                .stdin(std::process::Stdio::null());
            if config.network {
                command.arg("--network");
            }
            let output = command
                .output()
                .with_context(|| format!("could not run {}", exe.display()))?;
            if !output.status.success() {
                anyhow::bail!(
                    "cold `pagesnap snapshot {page}` failed: {}",
                    String::from_utf8_lossy(&output.stderr).trim()
                );
            }
            result.cold_ms.push(ms(started.elapsed()));
            if config.vs_playwright
                && config.strategies.first().map(|s| s.name()) == Some(result.strategy.as_str())
            {
                result
                    .playwright_cold_ms
                    .push(ms(super::playwright::cold(url)?));
            }
        }
    }
    // Playwright's cold figure is the same for every strategy of the page.
    let theirs = results
        .first()
        .map(|r| r.playwright_cold_ms.clone())
        .unwrap_or_default();
    for result in results.iter_mut() {
        result.playwright_cold_ms.clone_from(&theirs);
    }
    Ok(())
}

async fn measure_session(
    session: &ChromiumSession,
    page: &str,
    config: &Config,
) -> Result<Vec<PageResult>> {
    let options = Options::default();
    let mut results = Vec::new();
    for &strategy in &config.strategies {
        let needs = if config.archive {
            Needs::RECORD
        } else {
            Needs::observe(strategy)
        };
        let started = Instant::now();
        let first = session.observe_with(strategy, &options, needs).await?;
        let first_ms = ms(started.elapsed());
        let elements = first
            .captured
            .recording
            .nodes
            .iter()
            .filter(|n| n.kind == NodeKind::Element)
            .count();
        let mut warm = Vec::with_capacity(config.runs);
        for _ in 0..config.runs {
            let started = Instant::now();
            let live = session.observe_with(strategy, &options, needs).await?;
            warm.push((ms(started.elapsed()), live.timings));
        }
        let mut calls: BTreeMap<&'static str, Vec<f64>> = BTreeMap::new();
        for (_, timings) in &warm {
            for call in &timings.capture.calls {
                calls.entry(call.name).or_default().push(ms(call.elapsed));
            }
        }
        results.push(PageResult {
            page: page.to_owned(),
            strategy: strategy.name().to_owned(),
            elements,
            tokens: crate::tokens::o200k(&first.observation.text),
            round_trip_ms: None,
            first_ms,
            warm_ms: warm.iter().map(|(ms, _)| *ms).collect(),
            capture_ms: median(warm.iter().map(|(_, t)| ms(t.capture.total))),
            engine_ms: median(warm.iter().map(|(_, t)| ms(t.engine()))),
            calls: calls
                .into_iter()
                .map(|(name, values)| (name, median(values)))
                .collect(),
            playwright_first_ms: None,
            playwright_warm_ms: None,
            ratio: None,
            cold_ms: Vec::new(),
            playwright_cold_ms: Vec::new(),
        });
    }
    Ok(results)
}

/// Times every external strategy on `page`: the first observation and
/// `config.runs` warm ones, each the program's own time (its round trip kept beside).
async fn measure_externals(
    browser: &Chromium,
    programs: &mut [(Program, String)],
    page: &str,
    config: &Config,
) -> Result<Vec<PageResult>> {
    let session = browser.open(page, &config.open).await?;
    let mut results = Vec::new();
    let mut failure = None;
    for (program, ws) in programs.iter_mut() {
        let viewport = (config.open.width, config.open.height);
        let mut observed = Vec::with_capacity(config.runs + 1);
        for step in 1..=config.runs + 1 {
            match crate::external::observe(program, &session, ws, step, viewport).await {
                Ok(o) => observed.push(o),
                Err(err) => {
                    failure = Some(err.context(format!("{page}: strategy {}", program.name())));
                    break;
                }
            }
        }
        if failure.is_some() {
            break;
        }
        let Some((first, warm)) = observed.split_first() else {
            continue;
        };
        let elements = first
            .captured
            .recording
            .nodes
            .iter()
            .filter(|n| n.kind == NodeKind::Element)
            .count();
        results.push(PageResult {
            page: page.to_owned(),
            strategy: program.name().to_owned(),
            elements,
            tokens: crate::tokens::o200k(&first.observation.text),
            round_trip_ms: Some(median(warm.iter().map(|o| o.step.round_trip_ms))),
            first_ms: ms(first.observe),
            warm_ms: warm.iter().map(|o| ms(o.observe)).collect(),
            capture_ms: median(warm.iter().map(|o| ms(o.observe))),
            engine_ms: 0.0,
            calls: BTreeMap::new(),
            playwright_first_ms: None,
            playwright_warm_ms: None,
            ratio: None,
            cold_ms: Vec::new(),
            playwright_cold_ms: Vec::new(),
        });
    }
    session.close().await;
    match failure {
        Some(err) => Err(err),
        None => Ok(results),
    }
}

fn summarize(strategy: &str, outcome: &Outcome, config: &Config) -> Summary {
    let rows: Vec<&PageResult> = outcome
        .results
        .iter()
        .filter(|r| r.strategy == strategy)
        .collect();
    let warm = |r: &PageResult| median(r.warm_ms.iter().copied());
    let ratios: Vec<f64> = rows.iter().filter_map(|r| r.ratio).collect();
    let compared = config.vs_playwright && !ratios.is_empty();
    let mut calls: BTreeMap<&'static str, Vec<f64>> = BTreeMap::new();
    for row in &rows {
        for (name, value) in &row.calls {
            calls.entry(name).or_default().push(*value);
        }
    }
    let largest = rows.iter().max_by_key(|r| r.elements).map(|r| Largest {
        page: r.page.clone(),
        elements: r.elements,
        warm_ms: warm(r),
        ratio: r.ratio,
    });
    Summary {
        summary: true,
        strategy: strategy.to_owned(),
        pages: rows.len(),
        failed: outcome.errors.len(),
        median_first_ms: median(rows.iter().map(|r| r.first_ms)),
        median_warm_ms: median(rows.iter().map(|r| warm(r))),
        p90_warm_ms: p90(rows.iter().map(|r| warm(r))),
        median_capture_ms: median(rows.iter().map(|r| r.capture_ms)),
        median_engine_ms: median(rows.iter().map(|r| r.engine_ms)),
        calls: calls
            .into_iter()
            .map(|(name, values)| (name, median(values)))
            .collect(),
        playwright_median_first_ms: compared
            .then(|| median(rows.iter().filter_map(|r| r.playwright_first_ms))),
        playwright_median_warm_ms: compared.then(|| {
            median(
                rows.iter()
                    .filter_map(|r| r.playwright_warm_ms.as_ref())
                    .map(|w| median(w.iter().copied())),
            )
        }),
        median_ratio: compared.then(|| median(ratios.iter().copied())),
        median_cold_ms: (config.cold > 0)
            .then(|| median(rows.iter().map(|r| median(r.cold_ms.iter().copied())))),
        playwright_median_cold_ms: (config.cold > 0 && compared).then(|| {
            median(
                rows.iter()
                    .map(|r| median(r.playwright_cold_ms.iter().copied())),
            )
        }),
        p90_ratio: compared.then(|| p90(ratios.iter().copied())),
        largest,
        playwright: None,
    }
}
