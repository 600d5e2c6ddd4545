//! Which servers bench-mcp measures: [`Side`] (pagesnap, the reference, or a shipped server beside it), named on the command line through [`peers_named`].

use std::cmp::Ordering;

use anyhow::{Result, bail};
use serde::{Serialize, Serializer};

use crate::peer::mapping::Mapping;
use crate::peer::{Launch, SHIPPED, Shipped};
use crate::results::MCP_PREFIX;

/// The shipped servers `names` names (`playwright` or `mcp:playwright`, …),
/// each once, in the order given; pagesnap itself is always measured, as
/// the reference, and is refused here, as is an unknown name (the error
/// lists the known ones).
pub fn peers_named(names: &[String]) -> Result<Vec<&'static Shipped>> {
    let others = || {
        SHIPPED
            .iter()
            .filter(|s| !matches!(s.launch, Launch::Pagesnap))
    };
    let mut peers: Vec<&'static Shipped> = Vec::new();
    for name in names {
        let bare = name.trim();
        let bare = bare.strip_prefix(MCP_PREFIX).unwrap_or(bare);
        match SHIPPED.iter().find(|s| s.name == bare) {
            Some(server) if matches!(server.launch, Launch::Pagesnap) => bail!(
                "--vs {name}: pagesnap is always measured, as the reference; name the servers to measure beside it ({})",
                others().map(|s| s.name).collect::<Vec<_>>().join(", ")
            ),
            Some(server) => {
                if !peers.iter().any(|p| p.name == server.name) {
                    peers.push(server);
                }
            }
            None => bail!(
                "--vs {name}: unknown tool server (known: {})",
                others().map(|s| s.name).collect::<Vec<_>>().join(", ")
            ),
        }
    }
    Ok(peers)
}

/// A tool server under test: pagesnap's own, or a shipped one
/// ([`SHIPPED`]) measured beside it.
#[derive(Clone, Copy)]
pub enum Side {
    /// `pagesnap mcp`, the reference.
    Pagesnap,
    /// A shipped server (`mcp:NAME`), named by its entry.
    Peer(&'static Shipped),
}

impl Side {
    /// Its name: `pagesnap`, or the shipped server's `NAME` (as `--vs`
    /// takes it, and as the JSON output writes it).
    pub fn name(self) -> &'static str {
        match self {
            Side::Pagesnap => "pagesnap",
            Side::Peer(shipped) => shipped.name,
        }
    }

    /// As printed.
    pub fn label(self) -> &'static str {
        self.name()
    }

    /// Where it sorts: pagesnap first, then the shipped servers in
    /// [`SHIPPED`] order.
    fn rank(self) -> usize {
        match self {
            Side::Pagesnap => 0,
            Side::Peer(shipped) => {
                1 + SHIPPED
                    .iter()
                    .position(|s| s.name == shipped.name)
                    .unwrap_or(SHIPPED.len())
            }
        }
    }

    /// The shipped mapping file naming its tools (`harness/mcp-servers/`).
    pub(super) fn mapping(self) -> Result<Mapping> {
        crate::peer::shipped_mapping(self.name())
    }
}

impl PartialEq for Side {
    fn eq(&self, other: &Side) -> bool {
        self.rank() == other.rank()
    }
}

impl Eq for Side {}

impl PartialOrd for Side {
    fn partial_cmp(&self, other: &Side) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Side {
    fn cmp(&self, other: &Side) -> Ordering {
        self.rank().cmp(&other.rank())
    }
}

impl std::fmt::Debug for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Side {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_are_named_with_or_without_the_prefix_and_pagesnap_first() {
        let names: Vec<String> = [
            "mcp:agent-browser",
            "playwright",
            "chrome-devtools",
            "playwright",
        ]
        .map(String::from)
        .into();
        let peers = peers_named(&names).unwrap();
        let named: Vec<&str> = peers.iter().map(|p| p.name).collect();
        assert_eq!(named, ["agent-browser", "playwright", "chrome-devtools"]);
        let mut sides: Vec<Side> = peers.iter().map(|&p| Side::Peer(p)).collect();
        sides.push(Side::Pagesnap);
        sides.sort();
        assert_eq!(sides[0], Side::Pagesnap);
        assert_eq!(serde_json::to_value(sides[1]).unwrap(), "playwright");
        let Err(err) = peers_named(&["nope".into()]) else {
            panic!("an unknown server was accepted");
        };
        let err = err.to_string();
        assert!(
            err.contains("known: playwright, chrome-devtools, agent-browser"),
            "{err}"
        );
        assert!(peers_named(&["pagesnap".into()]).is_err());
    }
}
