//! pagesnap's browser engine: launch Chromium or attach to one, keep one tab's session, capture what a strategy needs, observe through the engine, and act on nodes as a user does.
//!
//! This is the seed's "shared browser engine": the tool server (`pagesnap
//! mcp`), the live runner, `record` and any Rust agent drive pages through it.
//! It knows nothing of the CLI or of evaluation: flag names, signals, caps and
//! recording files stay in the harness.

mod action;
mod capture;
mod chromium;
mod dialogs;
pub mod discover;
mod documents;
mod endpoint;
mod error;
mod failure;
mod frames;
mod input;
mod navigation;
pub mod observe;
mod op;
mod session;
mod tab;
mod target;
mod waits;

pub use action::{
    Drop, Failure, MAX_WAIT, Outcome, Resolved, Unrunnable, UserAction, Wait, dialog_of, label,
    paths_of, resolve, scroll_of, wait_of,
};
pub use capture::{
    Call, CaptureTimings, Kept, Live, Mark, Needs, Png, Source, Timings, now_rfc3339, reusable,
};
pub use chromium::{BrowserCommand, CHROMIUM_FLAGS, Chromium, Tab};
pub use dialogs::DialogPolicy;
pub use error::{Error, Result, StartError};
pub use failure::{Phase, TabError};
pub use frames::{node_key, split_key};
pub use input::{Step, confine_uploads, key_names};
pub use navigation::{DEFAULT_TIMEOUT, DEFAULT_VIEWPORT, OpenOptions};
pub use op::Op;
pub use session::ChromiumSession;
pub use target::display_url;

use std::time::Duration;

use pagesnap_engine::recording::Recording;

/// The async runtime Chromium sessions run on: four worker threads, timers
/// and I/O enabled. Capture mostly waits on the browser, but the CDP client
/// parses each answer on a worker (seconds for a 100,000-node snapshot), and
/// the timers that end calls at the page's budget must still fire then.
pub fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .map_err(|source| Error::Runtime {
            what: "the async runtime",
            source,
        })
}

/// A captured page state: the recording and, when asked for, its viewport screenshot (PNG).
pub struct Captured {
    /// The recording.
    pub recording: Recording,
    /// PNG bytes of the viewport ([`Needs::screenshot`]).
    pub screenshot: Option<Vec<u8>>,
}

/// What to wait for after load, before the first capture.
#[derive(Clone, Debug, PartialEq)]
pub enum WaitFor {
    /// Until an element matches the CSS selector.
    Selector(String),
    /// A fixed delay.
    Delay(Duration),
}

impl WaitFor {
    /// Parses `200ms`, `200` (milliseconds) or a CSS selector.
    pub fn parse(text: &str) -> WaitFor {
        let trimmed = text.trim();
        let digits = trimmed.strip_suffix("ms").unwrap_or(trimmed);
        match digits.parse::<u64>() {
            Ok(ms) => WaitFor::Delay(Duration::from_millis(ms)),
            Err(_) => WaitFor::Selector(trimmed.to_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wait_for_parses_delays_and_selectors() {
        assert_eq!(
            WaitFor::parse("250ms"),
            WaitFor::Delay(Duration::from_millis(250))
        );
        assert_eq!(
            WaitFor::parse("#app.ready"),
            WaitFor::Selector("#app.ready".into())
        );
    }
}
