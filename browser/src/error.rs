//! Why a browser could not be started or reached — the typed error of [`crate::Chromium::launch`], [`crate::Chromium::attach`] and [`crate::Chromium::executable`] — worded without any command's flags (callers add theirs).

use std::path::PathBuf;
use std::time::Duration;

/// Why no browser could be launched or attached to.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StartError {
    /// No Chrome or Chromium was found (every place looked at, and what to do).
    #[error(transparent)]
    NotFound(#[from] crate::discover::NotFound),
    /// The fresh profile folder could not be made.
    #[error("could not create a browser profile folder in {}: {source}", dir.display())]
    Profile {
        /// Where it was to be made.
        dir: PathBuf,
        /// The file system's error.
        source: std::io::Error,
    },
    /// The browser binary did not start, or did not open its DevTools port.
    #[error("could not launch {}: {message}", executable.display())]
    Launch {
        /// The binary.
        executable: PathBuf,
        /// The client's message.
        message: String,
    },
    /// The endpoint is neither `http://HOST:PORT` nor a DevTools websocket.
    #[error(
        "the CDP endpoint {endpoint:?} is not one: expected http://HOST:PORT (a browser's \
         --remote-debugging-port) or ws://HOST:PORT/devtools/browser/ID"
    )]
    BadEndpoint {
        /// As given.
        endpoint: String,
    },
    /// The endpoint answered, but not as a Chromium DevTools port does.
    #[error("the CDP endpoint {endpoint}: {what}")]
    NotDevtools {
        /// As given.
        endpoint: String,
        /// What was wrong with its answer.
        what: String,
    },
    /// Nothing could be reached at the endpoint.
    #[error("the CDP endpoint {endpoint}: could not connect to {address}: {message}")]
    Unreachable {
        /// As given.
        endpoint: String,
        /// The address or websocket tried.
        address: String,
        /// The connection's error.
        message: String,
    },
    /// The endpoint did not answer in time.
    #[error("the CDP endpoint {endpoint}: {waiting} within {} s", limit.as_secs())]
    NoAnswer {
        /// As given.
        endpoint: String,
        /// What did not happen (`/json/version did not answer`).
        waiting: &'static str,
        /// The limit.
        limit: Duration,
    },
    /// Connected, the client could not start following the browser.
    #[error("connected to the browser, could not {what}: {message}")]
    Session {
        /// What it could not do.
        what: &'static str,
        /// The client's message.
        message: String,
    },
}
