//! The browser crate's typed errors: why a browser could not be started or reached ([`StartError`]), and why a call on a browser or a tab failed ([`Error`]) — worded without any command's flags (callers add theirs).

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

/// Why a call on a browser or one of its tabs failed. A tab's own failures
/// (closed, crashed, a dialog, the time limit) are [`Error::Tab`]; the other
/// variants name the page, tab, file or call they are about.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The browser could not be started or reached.
    #[error(transparent)]
    Start(#[from] StartError),
    /// A call on a tab failed as tabs do: see [`crate::TabError`].
    #[error(transparent)]
    Tab(#[from] crate::TabError),
    /// A browser-wide call failed (listing tabs, contexts, opening a tab).
    #[error("could not {what}: {message}")]
    Browser {
        /// What was asked (`list the browser's tabs (Target.getTargets)`).
        what: String,
        /// The browser's or the client's message.
        message: String,
    },
    /// No tab of the browser has this target id.
    #[error("no tab with id {id:?}")]
    NoTab {
        /// The id asked for.
        id: String,
    },
    /// A script run in the page threw.
    #[error("{url}: a script failed: {message}")]
    Script {
        /// The page.
        url: String,
        /// The exception's text.
        message: String,
    },
    /// No element of the page matches a CSS selector.
    #[error("{url}: no element matches {selector:?}")]
    NoElement {
        /// The page.
        url: String,
        /// The selector.
        selector: String,
    },
    /// A scripted step could not be carried out.
    #[error("{url}: {step}: {message}")]
    Step {
        /// The page.
        url: String,
        /// The step as written.
        step: String,
        /// Why.
        message: String,
    },
    /// The browser answered in a shape pagesnap does not read (a missing
    /// object id, a value that is not what the call returns).
    #[error("{url}: {message}")]
    Answer {
        /// The page.
        url: String,
        /// What was wrong.
        message: String,
    },
    /// A local file (a page to open, a browser profile) could not be used.
    #[error("{}: {source}", path.display())]
    File {
        /// The file or folder.
        path: PathBuf,
        /// The file system's error.
        source: std::io::Error,
    },
    /// A wait for a CSS selector ran out before any element matched it.
    #[error(
        "{url}: no element matched the selector {selector:?} within the time limit of {:.1} s",
        limit.as_secs_f64()
    )]
    NeverMatched {
        /// The page.
        url: String,
        /// The selector.
        selector: String,
        /// The limit.
        limit: std::time::Duration,
    },
    /// What was given to open is neither a URL nor a local file.
    #[error("{target}: no such file (expected a URL or a local .html file): {source}")]
    NotAPage {
        /// As given.
        target: String,
        /// The file system's error.
        source: std::io::Error,
    },
    /// A strategy could not render the captured page.
    #[error("{url}: strategy {strategy}: {message}")]
    Render {
        /// The page.
        url: String,
        /// The strategy's name.
        strategy: String,
        /// Its error.
        message: String,
    },
    /// The async runtime or a thread of the client could not be started.
    #[error("could not start {what}: {source}")]
    Runtime {
        /// What (`the async runtime`).
        what: &'static str,
        /// The system's error.
        source: std::io::Error,
    },
}

/// The browser crate's result.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// The tab failure inside, if it is one.
    pub fn tab(&self) -> Option<&crate::TabError> {
        match self {
            Error::Tab(tab) => Some(tab),
            _ => None,
        }
    }

    /// Whether a JavaScript dialog the page opened stopped the call
    /// ([`crate::TabError::DialogOpen`]): the page waits on its answer.
    pub fn is_dialog_open(&self) -> bool {
        matches!(self.tab(), Some(crate::TabError::DialogOpen { .. }))
    }

    /// Whether the page navigated (or reloaded) under the call
    /// ([`crate::TabError::Navigated`]): the caller may wait for the new
    /// document and try again.
    pub fn is_navigated(&self) -> bool {
        matches!(self.tab(), Some(crate::TabError::Navigated { .. }))
    }

    /// Whether the tab itself is gone (closed, crashed, or its browser gone):
    /// every later call on it fails too.
    pub fn is_gone(&self) -> bool {
        self.tab().is_some_and(crate::TabError::is_gone)
    }

    /// Whether the browser itself is gone ([`crate::TabError::BrowserGone`]):
    /// no tab of it answers again.
    pub fn is_browser_gone(&self) -> bool {
        self.tab().is_some_and(crate::TabError::is_browser_gone)
    }

    /// A browser-wide call's failure.
    pub(crate) fn browser(what: impl Into<String>, err: impl std::fmt::Display) -> Error {
        Error::Browser {
            what: what.into(),
            message: err.to_string(),
        }
    }
}
