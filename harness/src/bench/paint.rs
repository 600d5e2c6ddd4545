//! `bench-paint`: the precision of what pagesnap withholds, with Chromium as the oracle (issue 56 item 4) — every text run the engine withholds on a page (transparent, clipped, of no area, unpainted, tiny, faint, covered) is asked of the browser: does hiding it change a pixel of its region? One that does is visible text withheld, a false positive, named with its reason and text.

use std::time::Duration;

use anyhow::{Context, Result};
use pagesnap_browser::{Chromium, ChromiumSession, Needs, OpenOptions, Paints};
use pagesnap_engine::analyze::{Analyzed, Hidden};
use pagesnap_engine::page::{Node, Page};
use serde::Serialize;

/// What to measure.
pub struct Config {
    /// Pages: files or URLs.
    pub pages: Vec<String>,
    /// Viewport, load limit.
    pub open: OpenOptions,
    /// At most this many withheld runs asked of the browser per page (in
    /// document order); the rest are counted as not checked.
    pub max_runs: usize,
    /// Visible runs asked too, per page (the first ones in the viewport, not
    /// drawn by a form control): a control of the oracle itself, each
    /// expected to paint.
    pub controls: usize,
}

/// One withheld run the browser was asked about.
#[derive(Clone, Debug, Serialize)]
pub struct Run {
    /// Why the engine withholds it; `None` for a visible run (a control).
    pub reason: Option<Hidden>,
    /// Its text, whitespace collapsed, at most 80 characters.
    pub text: String,
    /// What the browser said.
    pub paints: Paints,
}

/// One page's figures.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PageReport {
    /// The page as given.
    pub page: String,
    /// Text runs with visible characters that a person could be shown
    /// (visible, or withheld for a reason the oracle judges).
    pub runs: usize,
    /// Of them, withheld.
    pub withheld: usize,
    /// Withheld runs the browser was asked about, with its answers.
    pub checked: Vec<Run>,
    /// Withheld runs past `--max-runs`, or in a frame of another site (not asked).
    pub not_checked: usize,
    /// Visible runs in the viewport asked as a control, with the answers.
    pub controls: Vec<Run>,
    /// Why the page could not be measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl PageReport {
    /// Withheld runs that paint: visible text withheld.
    pub fn visible(&self) -> impl Iterator<Item = &Run> {
        self.checked.iter().filter(|run| run.paints == Paints::Yes)
    }

    /// How many checked runs got `answer`.
    pub fn count(&self, answer: Paints) -> usize {
        self.checked
            .iter()
            .filter(|run| run.paints == answer)
            .count()
    }
}

/// Measures every page in one browser launched offline, calling `report`
/// with each page's figures as they come.
pub async fn run(config: &Config, mut report: impl FnMut(&PageReport)) -> Result<Vec<PageReport>> {
    let chromium = Chromium::launch(false).await?;
    let mut reports = Vec::new();
    for page in &config.pages {
        let measured = match chromium.open(page, &config.open).await {
            Ok(session) => {
                let measured = measure(&session, page, config).await;
                session.close_within(Duration::from_secs(2)).await;
                measured
            }
            Err(err) => Err(anyhow::Error::new(err)),
        };
        let page_report = measured.unwrap_or_else(|err| PageReport {
            page: page.clone(),
            error: Some(format!("{err:#}")),
            ..PageReport::default()
        });
        report(&page_report);
        reports.push(page_report);
    }
    chromium.close().await?;
    Ok(reports)
}

/// One page: captured and analysed as an observation is, then each withheld
/// run (of the tab's own documents and the frames in its process) asked of
/// the browser.
async fn measure(session: &ChromiumSession, page: &str, config: &Config) -> Result<PageReport> {
    let (captured, _) = session
        .capture_with(Needs {
            screenshot: None,
            oracle: false,
            stable_counts: false,
        })
        .await
        .with_context(|| format!("{page}: capture"))?;
    let analyzed = Analyzed::new(Page::from_recording(&captured.recording));
    let (dom, analysis) = (analyzed.page(), analyzed.analysis());
    let mut report = PageReport {
        page: page.to_owned(),
        ..PageReport::default()
    };
    for id in dom.ids() {
        let Node::Text(text) = dom.node(id) else {
            continue;
        };
        if text.trim().is_empty() {
            continue;
        }
        let visibility = analysis.visibility[id.index()];
        let backend_id = dom.layout(id).backend_id;
        let asked = backend_id != 0 && pagesnap_browser::split_key(backend_id).0 == 0;
        match visibility.hidden {
            None => {
                report.runs += 1;
                if asked
                    && visibility.in_viewport
                    && report.controls.len() < config.controls
                    && !drawn_by_a_control(dom, id)
                    && !shown_by_focus(dom, id)
                {
                    let paints = session
                        .text_paints(backend_id)
                        .await
                        .with_context(|| format!("{page}: asking whether a visible run paints"))?;
                    report.controls.push(Run {
                        reason: None,
                        text: excerpt(text),
                        paints,
                    });
                }
            }
            Some(reason) if Hidden::WITHHELD.contains(&reason) => {
                report.runs += 1;
                report.withheld += 1;
                // Out of process (another site's frame) or unknown: not asked.
                if report.checked.len() >= config.max_runs || !asked {
                    report.not_checked += 1;
                    continue;
                }
                let paints = session
                    .text_paints(backend_id)
                    .await
                    .with_context(|| format!("{page}: asking whether a {reason:?} run paints"))?;
                report.checked.push(Run {
                    reason: Some(reason),
                    text: excerpt(text),
                    paints,
                });
            }
            Some(_) => {}
        }
    }
    Ok(report)
}

/// Text a form control or a frame draws itself, not as the page's text: an
/// option's label (the select paints it), a textarea's default value, an
/// iframe's fallback. Visible to the engine (an agent needs options), but
/// hiding the text node paints nothing: no control of the oracle.
fn drawn_by_a_control(dom: &Page, id: pagesnap_engine::page::NodeId) -> bool {
    dom.ancestors(id).any(|ancestor| {
        dom.element(ancestor).is_some_and(|element| {
            ["option", "optgroup", "select", "textarea", "iframe"].contains(&element.name.as_str())
        })
    })
}

/// Text inside an element that focusing shows (a skip link off screen
/// until a keyboard user tabs to it): visible to the engine, but it paints
/// nothing until then — no control of the oracle either.
fn shown_by_focus(dom: &Page, id: pagesnap_engine::page::NodeId) -> bool {
    dom.ancestors(id)
        .any(|ancestor| dom.layout(ancestor).focus_reveal)
}

/// `text` with its whitespace collapsed, at most 80 characters.
fn excerpt(text: &str) -> String {
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match collapsed.char_indices().nth(80) {
        Some((cut, _)) => format!("{}…", &collapsed[..cut]),
        None => collapsed,
    }
}
