//! Tool servers through their own snapshot tools: each named on the command line, skipped when not installed, started as bench-mcp starts it, and asked for one snapshot per page after its mapped navigation.

use std::collections::BTreeMap;

use anyhow::{Result, bail};

use super::rows::{Row, Status, Viewer};
use super::{Config, ServedPage};
use crate::bench::PageError;
use crate::bench::mcp::server::Server;
use crate::bench::mcp::{self as bench_mcp, Side};
use crate::peer::{Launch, SHIPPED};
use crate::results::MCP_PREFIX;

/// The servers `names` names (`pagesnap`, `playwright`, `mcp:chrome-devtools`,
/// …), each once, in [`Side`] order; an unknown name is refused, naming
/// the known ones.
pub fn servers_named(names: &[String]) -> Result<Vec<Side>> {
    let mut sides: Vec<Side> = Vec::new();
    for name in names {
        let bare = name.trim();
        let bare = bare.strip_prefix(MCP_PREFIX).unwrap_or(bare);
        let Some(shipped) = SHIPPED.iter().find(|s| s.name == bare) else {
            let known: Vec<&str> = SHIPPED.iter().map(|s| s.name).collect();
            bail!(
                "--server {name}: unknown tool server (known: {})",
                known.join(", ")
            );
        };
        let side = match shipped.launch {
            Launch::Pagesnap => Side::Pagesnap,
            _ => Side::Peer(shipped),
        };
        if !sides.contains(&side) {
            sides.push(side);
        }
    }
    sides.sort();
    Ok(sides)
}

/// `side`'s row: skipped when it is not installed, failed when it does not
/// start, else its snapshot of every page.
pub(super) async fn server(side: Side, config: &Config, pages: &[ServedPage]) -> Row {
    let viewer = Viewer::Server(side);
    if let Some(why) = not_installed(side) {
        return Row::not_measured(viewer, Status::Skipped { why });
    }
    let settings = settings(config);
    let mut running = match Server::start(side, &settings).await {
        Ok(server) => Some(server),
        Err(err) => {
            let why = format!("{err:#}");
            return Row::not_measured(viewer, Status::Failed { why });
        }
    };
    let version = running.as_ref().map(|s| s.running().version);
    let mut texts = BTreeMap::new();
    let mut errors = Vec::new();
    for page in pages {
        let failed = |err: anyhow::Error| PageError {
            page: page.file.clone(),
            error: format!("{}: {err:#}", page.file),
        };
        let Some(server) = &running else {
            errors.push(failed(anyhow::anyhow!(
                "not observed: the server could not be started again"
            )));
            continue;
        };
        match snapshot(server, page, config).await {
            Ok(text) => {
                texts.insert(page.file.clone(), text);
            }
            Err(err) => {
                errors.push(failed(err));
                // A server that failed may be wedged: start it afresh, as bench-mcp does.
                if let Some(old) = running.take() {
                    old.stop().await;
                }
                running = Server::start(side, &settings).await.ok();
            }
        }
    }
    if let Some(server) = running {
        server.stop().await;
    }
    Row::measured(viewer, version, &config.markers.markers, &texts, errors)
}

/// The text blocks of the server's snapshot of `page`, after its mapped
/// navigation there.
async fn snapshot(server: &Server, page: &ServedPage, config: &Config) -> Result<String> {
    server.navigate(&page.url, config.viewport).await?;
    Ok(server.snapshot().await?.text)
}

/// What bench-mcp's launcher reads of its settings: the viewport, pagesnap's
/// strategy, the call limit, and the network: off, as for pagesnap's own
/// strategies here (nothing is timed or clicked).
fn settings(config: &Config) -> bench_mcp::Config {
    bench_mcp::Config {
        pages: Vec::new(),
        targets: Vec::new(),
        runs: 0,
        viewport: config.viewport,
        strategy: config.mcp_strategy.clone(),
        versus: Vec::new(),
        click: false,
        always_capture: false,
        call_timeout: config.timeout,
        network: false,
    }
}

/// Why `side` cannot be started on this machine, if it is not installed
/// (its npm package, or Node.js for those that run under it).
fn not_installed(side: Side) -> Option<String> {
    let Side::Peer(shipped) = side else {
        return None;
    };
    let found = match shipped.launch {
        Launch::Playwright => node().and_then(|()| crate::node::playwright_mcp_cli().map(drop)),
        Launch::ChromeDevtools => {
            node().and_then(|()| crate::node::chrome_devtools_mcp_cli().map(drop))
        }
        Launch::AgentBrowser => crate::node::agent_browser_bin().map(drop),
        Launch::Pagesnap | Launch::Shell(_) => Ok(()),
    };
    found.err().map(|err| format!("{err:#}"))
}

/// Whether `node` runs.
fn node() -> Result<()> {
    let runs = std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success());
    if !runs {
        bail!("Node.js (`node`), which the server runs under, is not installed");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_are_named_with_or_without_the_prefix_pagesnap_first() {
        let names: Vec<String> = ["agent-browser", "mcp:pagesnap", "playwright", "pagesnap"]
            .map(String::from)
            .into();
        let sides: Vec<&str> = servers_named(&names)
            .unwrap()
            .iter()
            .map(|s| s.name())
            .collect();
        assert_eq!(sides, ["pagesnap", "playwright", "agent-browser"]);
        let err = servers_named(&["nope".into()]).unwrap_err().to_string();
        assert!(
            err.contains("known: playwright, chrome-devtools, agent-browser, pagesnap"),
            "{err}"
        );
    }
}
