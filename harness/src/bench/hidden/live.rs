//! pagesnap's strategies on live pages: each page opened in a headless Chromium (offline: only loopback resolves) and captured once, then rendered by every strategy at both scopes, the text of each observation kept.

use std::collections::BTreeMap;

use anyhow::{Context, Result};
use pagesnap_browser::{Chromium, Needs, OpenOptions, observe};
use pagesnap_engine::strategy::{Options, Strategy};

use super::rows::{Row, Scope, Status, Viewer};
use super::{Config, ServedPage};
use crate::bench::PageError;

/// Both scopes, in the order rows list them.
const SCOPES: [Scope; 2] = [Scope::Viewport, Scope::FullPage];

/// One row per strategy and scope, strategy by strategy.
pub(super) async fn strategies(config: &Config, pages: &[ServedPage]) -> Vec<Row> {
    let viewers: Vec<(&'static dyn Strategy, Scope)> = config
        .strategies
        .iter()
        .flat_map(|&strategy| SCOPES.map(|scope| (strategy, scope)))
        .collect();
    let viewer =
        |&(strategy, scope): &(&'static dyn Strategy, Scope)| Viewer::Strategy { strategy, scope };
    if viewers.is_empty() {
        return Vec::new();
    }
    let chromium = match Chromium::launch(false).await {
        Ok(chromium) => chromium,
        Err(err) => {
            let why = format!("could not launch Chromium: {err:#}");
            return viewers
                .iter()
                .map(|v| Row::not_measured(viewer(v), Status::Failed { why: why.clone() }))
                .collect();
        }
    };
    let mut texts: Vec<BTreeMap<String, String>> = vec![BTreeMap::new(); viewers.len()];
    let mut errors: Vec<Vec<PageError>> = vec![Vec::new(); viewers.len()];
    for page in pages {
        let failed = |error: String| PageError {
            page: page.file.clone(),
            error: format!("{}: {error}", page.file),
        };
        match observe_page(&chromium, page, &viewers, config).await {
            Ok(rendered) => {
                for (i, text) in rendered.into_iter().enumerate() {
                    match text {
                        Ok(text) => {
                            texts[i].insert(page.file.clone(), text);
                        }
                        Err(error) => errors[i].push(failed(error)),
                    }
                }
            }
            Err(err) => {
                for row in &mut errors {
                    row.push(failed(format!("{err:#}")));
                }
            }
        }
    }
    let _ = chromium.close().await;
    viewers
        .iter()
        .zip(texts.iter().zip(errors))
        .map(|(v, (texts, errors))| {
            Row::measured(viewer(v), None, &config.markers.markers, texts, errors)
        })
        .collect()
}

/// Opens `page`, captures it once (with a screenshot when a strategy reads
/// one) and renders every viewer from that capture: each one's text, or why
/// it could not render.
async fn observe_page(
    chromium: &Chromium,
    page: &ServedPage,
    viewers: &[(&'static dyn Strategy, Scope)],
    config: &Config,
) -> Result<Vec<Result<String, String>>> {
    let options = OpenOptions {
        width: config.viewport.0,
        height: config.viewport.1,
        timeout: config.timeout,
        ..OpenOptions::default()
    };
    let session = chromium
        .open(&page.url, &options)
        .await
        .with_context(|| format!("could not open {}", page.url))?;
    let needs = viewers
        .iter()
        .map(|(strategy, _)| Needs::observe(*strategy))
        .reduce(|found, next| {
            if found.screenshot.is_some() {
                found
            } else {
                next
            }
        });
    let Some(needs) = needs else {
        return Ok(Vec::new());
    };
    let captured = session.capture_with(needs).await;
    session.close().await;
    let (captured, _) = captured.with_context(|| format!("could not capture {}", page.url))?;
    let analysed = observe::analyze(&captured.recording);
    Ok(viewers
        .iter()
        .map(|&(strategy, scope)| {
            let options = Options {
                full_page: Some(scope == Scope::FullPage),
                screenshot: captured.screenshot.as_deref(),
                ..Options::default()
            };
            observe::render(&analysed.page, strategy, &options)
                .observation
                .map(|observation| observation.text)
                .map_err(|err| format!("{} could not render it: {err}", strategy.name()))
        })
        .collect())
}
