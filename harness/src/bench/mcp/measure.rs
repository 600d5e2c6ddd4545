//! One page on every server, taking turns going first: each server's navigation and snapshots timed, the task targets' reach, and the click step.

use std::collections::BTreeMap;

use anyhow::Result;
use pagesnap_mcp::FindAnswer;
use serde_json::json;

use super::answers::{
    incomplete, items, normalise, pagesnap_item, ref_on_line, refs_of, was_reused,
};
use super::click::{click, click_target};
use super::server::Server;
use super::{Config, Measured, PageResult, Reach, Side, TargetResult};
use crate::peer::connection::Answer;
use crate::suite::PageTarget;

/// What one server gave on one page, before the click.
pub(super) struct Observed {
    measured: Measured,
    pub(super) snapshot: Answer,
}

/// Measures one page, the `index`th, on every server; a failure names the
/// server it happened on.
pub(super) async fn measure_page(
    servers: &mut [Server],
    index: usize,
    page: &str,
    url: &str,
    targets: &[&PageTarget],
    config: &Config,
) -> Result<PageResult, (Side, anyhow::Error)> {
    // Take turns going first.
    let mut order: Vec<usize> = (0..servers.len()).collect();
    if index % 2 == 1 {
        order.reverse();
    }
    let mut observed: BTreeMap<Side, Observed> = BTreeMap::new();
    for &i in &order {
        let server = &servers[i];
        let seen = observe(server, url, config)
            .await
            .map_err(|err| (server.side, err))?;
        observed.insert(server.side, seen);
    }
    let mut target_results = Vec::new();
    for target in targets {
        let mut reach = BTreeMap::new();
        for server in servers.iter() {
            let Some(seen) = observed.get(&server.side) else {
                continue;
            };
            let offered = match server.side {
                Side::Pagesnap => pagesnap_reach(server, &seen.snapshot, target)
                    .await
                    .map_err(|err| (server.side, err))?,
                Side::Peer(_) => {
                    let text = &seen.snapshot.text;
                    if ref_on_line(&server.mapping, text, &target.role, &target.name).is_some() {
                        Reach::InView
                    } else {
                        Reach::Missing
                    }
                }
            };
            reach.insert(server.side, offered);
        }
        target_results.push(TargetResult {
            task: target.task.clone(),
            target: format!("{} {:?}", target.role, target.name),
            reach,
        });
    }
    let mut click_skipped = None;
    if config.click {
        match click_target(servers, &observed) {
            Some((element, refs)) => {
                for &i in &order {
                    let server = &servers[i];
                    let Some(reference) = refs.get(&server.side) else {
                        continue;
                    };
                    let click = click(server, &element, reference)
                        .await
                        .map_err(|err| (server.side, err))?;
                    if let Some(seen) = observed.get_mut(&server.side) {
                        seen.measured.click = Some(click);
                    }
                }
            }
            None => {
                click_skipped = Some(
                    "no button or link in pagesnap's viewport snapshot that every server names alike"
                        .to_owned(),
                );
            }
        }
    }
    Ok(PageResult {
        page: page.to_owned(),
        servers: observed.into_values().map(|o| o.measured).collect(),
        targets: target_results,
        click_skipped,
    })
}

/// Navigates, then times the first and the warm snapshots.
async fn observe(server: &Server, url: &str, config: &Config) -> Result<Observed> {
    let side = server.side;
    let navigated = server.navigate(url, config.viewport).await?;
    let snapshot = server.snapshot().await?;
    let mut reused = usize::from(was_reused(&snapshot));
    let mut warm_ms = Vec::with_capacity(config.runs);
    let mut last = None;
    for _ in 0..config.runs {
        let warm = server.snapshot().await?;
        warm_ms.push(warm.ms);
        reused += usize::from(was_reused(&warm));
        last = Some(warm.text);
    }
    // A dialog the page opened while loading, measured as the page showed
    // it, is answered before anything else on the page (and the next page).
    if let Some(dialog) = server
        .mapping
        .dialog_in(last.as_deref().unwrap_or(&snapshot.text))
    {
        server.answer_dialog(&dialog).await?;
    }
    let full_page_tokens = match side {
        Side::Pagesnap => {
            let full = server
                .send(&server.mapping.snapshot.tool, json!({ "full_page": true }))
                .await?;
            Some(crate::tokens::o200k(&full.text))
        }
        Side::Peer(_) => None,
    };
    Ok(Observed {
        measured: Measured {
            side,
            navigate_ms: navigated.ms,
            navigate_incomplete: (side == Side::Pagesnap).then(|| incomplete(&navigated)),
            first_ms: snapshot.ms,
            warm_ms,
            tokens: crate::tokens::o200k(&snapshot.text),
            refs: refs_of(server, &snapshot),
            reused: (side == Side::Pagesnap).then_some(reused),
            full_page_tokens,
            click: None,
        },
        snapshot,
    })
}

/// Whether pagesnap's default snapshot offers a target: in view, or below
/// the viewport under the "scroll down" hint and found by `page_find`.
async fn pagesnap_reach(server: &Server, snapshot: &Answer, target: &PageTarget) -> Result<Reach> {
    if pagesnap_item(&items(snapshot), &target.role, &target.name).is_some() {
        return Ok(Reach::InView);
    }
    if !snapshot.text.contains("below the viewport") {
        return Ok(Reach::Missing);
    }
    let found = server
        .send("page_find", json!({ "text": target.name }))
        .await?;
    let matches = found
        .structured
        .and_then(|s| serde_json::from_value::<FindAnswer>(s).ok())
        .map(|found| found.matches)
        .unwrap_or_default();
    let (role, name) = (normalise(&target.role), normalise(&target.name));
    let offered = matches
        .iter()
        .any(|m| normalise(&m.role) == role && normalise(&m.name) == name);
    Ok(if offered {
        Reach::Announced
    } else {
        Reach::Missing
    })
}
