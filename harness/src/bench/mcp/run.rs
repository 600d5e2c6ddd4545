//! The run: every server started, the pages measured one by one (a server that failed started afresh for the next), each reported as it comes, then summarised.

use std::collections::BTreeMap;

use anyhow::Result;

use super::measure::measure_page;
use super::pages::{Pages, targets_on};
use super::server::Server;
use super::summary::summarize;
use super::{Config, Event, Outcome, Running, Side, Started};
use crate::bench::PageError;

/// Runs the benchmark, reporting each page as it is measured.
pub async fn run(config: &Config, mut report: impl FnMut(Event<'_>)) -> Result<Outcome> {
    let sides: Vec<Side> = std::iter::once(Side::Pagesnap)
        .chain(config.versus.iter().map(|&shipped| Side::Peer(shipped)))
        .collect();
    let pages = Pages::serve(&config.pages)?;

    let mut servers = Vec::new();
    for &side in &sides {
        servers.push(Server::start(side, config).await?);
    }
    let running: Vec<Running> = servers.iter().map(Server::running).collect();
    let definitions: BTreeMap<Side, usize> = running
        .iter()
        .map(|r| (r.side, r.definition_tokens))
        .collect();
    report(Event::Started(Started {
        servers: running,
        network: config.network,
    }));

    let mut results = Vec::new();
    let mut errors = Vec::new();
    for (index, page) in config.pages.iter().enumerate() {
        let url = pages.url(page)?;
        let targets = targets_on(&config.targets, page);
        match measure_page(&mut servers, index, page, &url, &targets, config).await {
            Ok(result) => {
                report(Event::Page(&result));
                results.push(result);
            }
            Err((side, err)) => {
                let error = PageError {
                    page: page.clone(),
                    error: format!("{page}: {err:#}"),
                };
                report(Event::Failed(&error));
                errors.push(error);
                // A server that failed may be wedged: start it afresh.
                if let Some(position) = servers.iter().position(|s| s.side == side) {
                    let fresh = Server::start(side, config).await?;
                    let old = std::mem::replace(&mut servers[position], fresh);
                    old.stop().await;
                }
            }
        }
    }
    for server in servers {
        server.stop().await;
    }
    let mut summary = summarize(&results, &sides, &definitions);
    summary.network = config.network;
    Ok(Outcome {
        results,
        errors,
        summary,
    })
}
