//! The run: the folder served over 127.0.0.1, the strategies' rows, then each server's, each reported as it is done.

use anyhow::Result;

use super::rows::{Report, Row};
use super::{Config, ServedPage, live, servers};
use crate::live::server::Server as PageServer;

/// Measures every viewer on every page, reporting each row when it is done.
pub async fn run(config: &Config, mut done: impl FnMut(&Row)) -> Result<Report> {
    let served = PageServer::start(&config.folder)?;
    let pages: Vec<ServedPage> = config
        .markers
        .pages
        .iter()
        .map(|page| ServedPage {
            file: page.file.clone(),
            url: served.url(&page.file),
        })
        .collect();
    let mut rows = Vec::new();
    for row in live::strategies(config, &pages).await {
        done(&row);
        rows.push(row);
    }
    for &side in &config.servers {
        let row = servers::server(side, config, &pages).await;
        done(&row);
        rows.push(row);
    }
    Ok(Report {
        folder: config.folder.display().to_string(),
        viewport: [config.viewport.0, config.viewport.1],
        pages: pages.into_iter().map(|p| p.file).collect(),
        rows,
    })
}
