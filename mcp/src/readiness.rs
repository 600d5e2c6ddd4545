//! Readiness after an action, per action (seed 001): how long the page must stay quiet, and for how long the tool waits for that, before the post-action snapshot is taken.
//!
//! A navigation waits for load (done by the browser engine) and then for a
//! quiet DOM; a click, a select or a key press for a short window without DOM
//! mutations or finished network requests (a click often starts a fetch and
//! re-renders); typing for nothing (each key's effect is already there). When
//! the budget runs out first, the snapshot is taken anyway and the result says
//! `incomplete: true` with what was still going on — never a hang.

use std::time::Duration;

use pagesnap_browser::ChromiumSession;
use pagesnap_browser::{Error, Result};
use serde::Deserialize;

/// What an action waits for after it ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Readiness {
    /// Quiet needed: no DOM mutation and no finished request for this long.
    pub quiet: Duration,
    /// The most the tool waits for it.
    pub budget: Duration,
}

impl Readiness {
    /// Nothing to wait for.
    pub const NONE: Readiness = Readiness {
        quiet: Duration::ZERO,
        budget: Duration::ZERO,
    };
    /// After a navigation (load already awaited): the page's own scripts
    /// render after load.
    pub const NAVIGATE: Readiness = Readiness {
        quiet: Duration::from_millis(300),
        budget: Duration::from_millis(3000),
    };
    /// After a click or a key press.
    pub const CLICK: Readiness = Readiness {
        quiet: Duration::from_millis(150),
        budget: Duration::from_millis(1500),
    };
    /// After choosing an option.
    pub const SELECT: Readiness = Readiness {
        quiet: Duration::from_millis(100),
        budget: Duration::from_millis(1000),
    };
    /// After a hover (a menu may open).
    pub const HOVER: Readiness = Readiness {
        quiet: Duration::from_millis(100),
        budget: Duration::from_millis(600),
    };
    /// After a scroll (lazy content may load).
    pub const SCROLL: Readiness = Readiness {
        quiet: Duration::from_millis(100),
        budget: Duration::from_millis(1000),
    };
}

/// Resolves when nothing has changed for `quiet` ms, or at `budget` ms:
/// `{quiet, waited, mutations, requests}`. DOM mutations are watched with a
/// MutationObserver, finished requests with a PerformanceObserver on
/// resource entries (a request still in flight is seen when it ends).
const QUIET_JS: &str = r#"(quiet, budget) => new Promise((resolve) => {
  const start = performance.now();
  let last = start, mutations = 0, requests = 0;
  const dom = new MutationObserver((list) => { mutations += list.length; last = performance.now(); });
  dom.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  let net = null;
  try {
    net = new PerformanceObserver((list) => { requests += list.getEntries().length; last = performance.now(); });
    net.observe({ type: 'resource', buffered: false });
  } catch (e) {}
  const done = (isQuiet) => {
    dom.disconnect(); if (net) net.disconnect();
    resolve({ quiet: isQuiet, waited: performance.now() - start, mutations, requests });
  };
  const tick = () => {
    const now = performance.now();
    if (now - last >= quiet) done(true);
    else if (now - start >= budget) done(false);
    else setTimeout(tick, 20);
  };
  setTimeout(tick, Math.min(quiet, 20));
})"#;

#[derive(Deserialize)]
struct Quiet {
    quiet: bool,
    waited: f64,
    mutations: u64,
    requests: u64,
}

/// Waits for `readiness`; `Some(what was pending)` when its budget ran out first.
pub async fn wait(session: &ChromiumSession, readiness: Readiness) -> Result<Option<String>> {
    if readiness.budget.is_zero() {
        return Ok(None);
    }
    let script = format!(
        "({QUIET_JS})({}, {})",
        readiness.quiet.as_millis(),
        readiness.budget.as_millis()
    );
    let answer = session.eval(&script).await?;
    let quiet: Quiet = serde_json::from_value(answer.clone()).map_err(|err| Error::Answer {
        url: session.url().to_owned(),
        message: format!("the readiness script answered {answer}, not a readiness report: {err}"),
    })?;
    if quiet.quiet {
        return Ok(None);
    }
    Ok(Some(format!(
        "the page was still changing after {:.0} ms ({} DOM mutations, {} finished requests; no {} ms quiet window)",
        quiet.waited,
        quiet.mutations,
        quiet.requests,
        readiness.quiet.as_millis()
    )))
}
