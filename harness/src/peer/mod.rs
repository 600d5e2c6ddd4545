//! Tool servers as observers and actors: an MCP server (`mcp:NAME`) attached to the episode's browser shows the agent its snapshot tool's text and runs the agent's actions with its own tools, so agents can be compared through the tools they would really use.
//!
//! A server is started once per worker, attached over CDP to a browser of
//! its own (`--cdp-endpoint`), and kept across episodes; per episode
//! pagesnap opens and prepares the task's tab, tells the server to work on
//! that tab (its tab tools), and reads the reward from the page as for every
//! strategy. Which tool does what is a small mapping file ([`mapping`]):
//! shipped for Playwright MCP (`mcp:playwright`), Chrome DevTools MCP
//! (`mcp:chrome-devtools`), agent-browser (`mcp:agent-browser`) and pagesnap's own server
//! (`mcp:pagesnap`, and `mcp:pagesnap-answers`: the same server read by a client that reads
//! each action's answer instead of snapshotting again, [`transcript`]); `--mcp NAME=COMMAND` with `--mcp-mapping NAME=FILE`
//! adds any other. A server that dies, hangs past its limit or answers
//! garbage fails the episode with an error naming it; the next episode
//! starts it again.

mod action_key;
pub mod connection;
pub mod mapping;
pub mod transcript;

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use pagesnap_engine::dialog::Dialog;
use pagesnap_engine::observation::{Item, Meta, Observation};

pub use connection::Connection;
pub use mapping::{AfterAction, Mapping};

use crate::results::MCP_PREFIX as PREFIX;

/// A tool server shipped with pagesnap: its name (without `mcp:`), how it
/// starts and its mapping file.
pub struct Shipped {
    /// `NAME` of `mcp:NAME`.
    pub name: &'static str,
    /// How it starts.
    pub launch: Launch,
    /// Its mapping file's text.
    pub mapping: &'static str,
    /// What the agent reads after an action, instead of what the mapping
    /// says (a second name for a server read another way).
    pub after_action: Option<AfterAction>,
    /// One line for the help.
    pub summary: &'static str,
}

/// The servers shipped with pagesnap.
pub const SHIPPED: &[Shipped] = &[
    Shipped {
        name: "playwright",
        launch: Launch::Playwright,
        mapping: include_str!("../../mcp-servers/playwright.toml"),
        after_action: None,
        summary: "Playwright MCP (npm @playwright/mcp, pinned in scripts/mcp): browser_snapshot, browser_click, browser_type, …",
    },
    Shipped {
        name: "chrome-devtools",
        launch: Launch::ChromeDevtools,
        mapping: include_str!("../../mcp-servers/chrome-devtools.toml"),
        after_action: None,
        summary: "Chrome DevTools MCP (npm chrome-devtools-mcp, pinned in scripts/mcp): take_snapshot, click, fill, …",
    },
    Shipped {
        name: "agent-browser",
        launch: Launch::AgentBrowser,
        mapping: include_str!("../../mcp-servers/agent-browser.toml"),
        after_action: None,
        summary: "agent-browser (npm agent-browser, pinned in scripts/mcp): agent_browser_snapshot, agent_browser_click, agent_browser_fill, …",
    },
    Shipped {
        name: "pagesnap",
        launch: Launch::Pagesnap,
        mapping: include_str!("../../mcp-servers/pagesnap.toml"),
        after_action: None,
        summary: "pagesnap's own tool server (pagesnap mcp): page_snapshot, page_action, page_scroll",
    },
    Shipped {
        name: "pagesnap-answers",
        launch: Launch::Pagesnap,
        mapping: include_str!("../../mcp-servers/pagesnap.toml"),
        after_action: Some(AfterAction::Answer),
        summary: "pagesnap's own tool server read as a client that reads each action's answer (the changed lines) instead of snapshotting again",
    },
];

/// The shipped server `bare` (`playwright`, `pagesnap`, …).
fn shipped(bare: &str) -> Option<&'static Shipped> {
    SHIPPED.iter().find(|s| s.name == bare)
}

/// The mapping shipped for the server `bare` (`playwright`, `pagesnap`).
pub fn shipped_mapping(bare: &str) -> Result<Mapping> {
    let Some(server) = shipped(bare) else {
        bail!("no mapping is shipped for {PREFIX}{bare}");
    };
    let origin = format!("harness/mcp-servers/{bare}.toml");
    let mapping = Mapping::parse(server.mapping, &origin)?;
    match server.after_action {
        Some(after_action) => mapping.reading(after_action, &origin),
        None => Ok(mapping),
    }
}

/// The observation of a tool server's `text` (named `strategy`): the
/// refs it offers as items, and the dialog the page waits on.
pub fn observation(
    strategy: &str,
    text: String,
    refs: Vec<String>,
    dialog: Option<Dialog>,
) -> Observation {
    let items: Vec<Item> = refs
        .into_iter()
        .map(|reference| Item {
            reference,
            ..Item::default()
        })
        .collect();
    let mut meta = Meta {
        strategy: strategy.to_owned(),
        items,
        dialog,
        ..Meta::default()
    };
    meta.counts.interactive = meta.items.len();
    Observation {
        text,
        image: None,
        refs: Vec::new(),
        meta,
    }
}

/// How a server is started; `{cdp}` in an argument is the browser's CDP endpoint.
#[derive(Clone, Debug)]
pub enum Launch {
    /// Playwright MCP's `cli.js` under Node.js.
    Playwright,
    /// Chrome DevTools MCP under Node.js, attached with `--wsEndpoint`.
    ChromeDevtools,
    /// agent-browser's binary (`mcp --tools all`), attached with `AGENT_BROWSER_CDP`.
    AgentBrowser,
    /// This binary's `mcp` command.
    Pagesnap,
    /// `sh -c COMMAND`.
    Shell(String),
}

/// A tool server an episode observes and acts through.
#[derive(Clone, Debug)]
pub struct Peer {
    /// `mcp:NAME`.
    pub name: String,
    /// How it starts.
    pub launch: Launch,
    /// Which tool does what.
    pub mapping: Mapping,
    /// How long one call (start and initialize included) may take.
    pub timeout: Duration,
}

/// A server given with `--mcp NAME=COMMAND`.
#[derive(Clone, Debug, PartialEq)]
pub struct UserServer {
    /// NAME (without `mcp:`).
    pub name: String,
    /// COMMAND, run by `sh -c`; `{cdp}` in it is the browser's CDP endpoint.
    pub command: String,
}

/// Parses `NAME=VALUE` for `flag`, without the prefix on NAME.
fn name_value(flag: &str, text: &str) -> Result<(String, String)> {
    let Some((name, value)) = text.split_once('=') else {
        bail!("{flag} {text:?}: expected NAME=VALUE");
    };
    let name = name.trim().trim_start_matches(PREFIX);
    if name.is_empty() || value.trim().is_empty() {
        bail!("{flag} {text:?}: expected NAME=VALUE with both parts");
    }
    Ok((name.to_owned(), value.trim().to_owned()))
}

impl UserServer {
    /// Parses `NAME=COMMAND`.
    pub fn parse(text: &str) -> Result<UserServer> {
        let (name, command) = name_value("--mcp", text)?;
        Ok(UserServer { name, command })
    }
}

/// Whether a strategy's name names a tool server.
pub fn is_peer(name: &str) -> bool {
    name.starts_with(PREFIX)
}

/// The tool server `mcp:NAME`: a `--mcp` server with its `--mcp-mapping`
/// file, or a shipped one (whose mapping a `--mcp-mapping` may replace).
pub fn named(
    name: &str,
    user: &[UserServer],
    mappings: &[String],
    timeout: Duration,
) -> Result<Peer> {
    let Some(bare) = name.strip_prefix(PREFIX) else {
        bail!("{name:?} is not a tool server (those are named mcp:NAME)");
    };
    let mut mapping_file: Option<PathBuf> = None;
    for text in mappings {
        let (server, file) = name_value("--mcp-mapping", text)?;
        if server == bare {
            mapping_file = Some(PathBuf::from(file));
        }
    }
    let read = |path: &Path| -> Result<Mapping> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("--mcp-mapping {bare}: could not read {}", path.display()))?;
        Mapping::parse(&text, &path.display().to_string())
    };
    if let Some(server) = user.iter().find(|s| s.name == bare) {
        let Some(file) = &mapping_file else {
            bail!(
                "--mcp {bare}=…: give its mapping file with --mcp-mapping {bare}=FILE.toml \
                 (which tool snapshots, clicks, types; see harness/mcp-servers/playwright.toml)"
            );
        };
        return Ok(Peer {
            name: name.to_owned(),
            launch: Launch::Shell(server.command.clone()),
            mapping: read(file)?,
            timeout,
        });
    }
    let Some(server) = shipped(bare) else {
        let known: Vec<String> = SHIPPED
            .iter()
            .map(|s| format!("{PREFIX}{}", s.name))
            .chain(user.iter().map(|s| format!("{PREFIX}{}", s.name)))
            .collect();
        bail!(
            "unknown tool server {name:?} (known: {}; or give one with --mcp NAME=COMMAND)",
            known.join(", ")
        );
    };
    let mapping = match &mapping_file {
        Some(file) => read(file)?,
        None => shipped_mapping(bare)?,
    };
    Ok(Peer {
        name: name.to_owned(),
        launch: server.launch.clone(),
        mapping,
        timeout,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_are_named_or_refused_by_name() {
        let timeout = Duration::from_secs(5);
        let peer = named("mcp:playwright", &[], &[], timeout).unwrap();
        assert!(matches!(peer.launch, Launch::Playwright));
        assert_eq!(peer.mapping.snapshot.tool, "browser_snapshot");
        let peer = named("mcp:pagesnap", &[], &[], timeout).unwrap();
        assert_eq!(peer.mapping.snapshot.tool, "page_snapshot");
        let err = named("mcp:nope", &[], &[], timeout)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(
                "known: mcp:playwright, mcp:chrome-devtools, mcp:agent-browser, mcp:pagesnap"
            ),
            "{err}"
        );
        let peer = named("mcp:chrome-devtools", &[], &[], timeout).unwrap();
        assert!(matches!(peer.launch, Launch::ChromeDevtools));
        assert_eq!(peer.mapping.snapshot.tool, "take_snapshot");
        let mine = [UserServer::parse("mine=my-server --cdp {cdp}").unwrap()];
        let err = named("mcp:mine", &mine, &[], timeout)
            .unwrap_err()
            .to_string();
        assert!(err.contains("--mcp-mapping mine=FILE.toml"), "{err}");
        let err = named("mcp:mine", &mine, &["mine=/no/such.toml".into()], timeout)
            .unwrap_err()
            .to_string();
        assert!(err.contains("could not read /no/such.toml"), "{err}");
        assert!(UserServer::parse("=x").is_err());
        assert!(UserServer::parse("noequals").is_err());
    }
}
