//! Named failures of a live tab — a page that never loads, a closed tab, a crashed renderer, a call that never answers — and the phase a session was in when a call was cut.
//!
//! [`crate::gone`] has the watch that notices a closed tab and a crashed
//! renderer.

use std::time::Duration;

use crate::capture::{DOCUMENT_CALL, FACTS_CALL, LISTENERS_CALL};

/// Why a live tab could not be observed. Every variant names the page.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TabError {
    /// The load event did not fire within the limit.
    #[error(
        "loading {url} timed out after {:.1} s (the time limit): the load event never fired",
        limit.as_secs_f64()
    )]
    NeverLoaded {
        /// The page.
        url: String,
        /// The limit that passed.
        limit: Duration,
    },
    /// The tab was closed (by the page, the user or another client).
    #[error("{url}: the tab was closed during {call}")]
    Closed {
        /// The page.
        url: String,
        /// The CDP call that was waiting.
        call: &'static str,
    },
    /// The tab's renderer process crashed (out of memory, a killed process, a browser bug).
    #[error("{url}: the page's renderer crashed during {call}")]
    Crashed {
        /// The page.
        url: String,
        /// The CDP call that was waiting.
        call: &'static str,
    },
    /// The browser itself is gone: its process exited or was killed, or its
    /// DevTools connection closed. Every tab went with it.
    #[error(
        "{url}: the browser is gone (its process ended or its DevTools connection closed) during {call}"
    )]
    BrowserGone {
        /// The page.
        url: String,
        /// The CDP call that was waiting.
        call: &'static str,
    },
    /// A call got no answer within the limit while the tab still existed.
    #[error("{url}: {call} got no answer within {:.1} s (the time limit)", limit.as_secs_f64())]
    NoAnswer {
        /// The page.
        url: String,
        /// The CDP call.
        call: &'static str,
        /// The limit that passed.
        limit: Duration,
    },
    /// A phase of recording one page did not finish before the page's
    /// budget (`--timeout`, counted from the start of its record) ran out.
    #[error(
        "{url}: {phase} did not finish within the time limit of {:.1} s (the limit bounds the whole record of a page)",
        limit.as_secs_f64()
    )]
    OverLimit {
        /// The page.
        url: String,
        /// What was under way.
        phase: Phase,
        /// The page's whole budget.
        limit: Duration,
    },
    /// The page could not load: the browser's network error for it.
    #[error(
        "loading {url} failed: {error}{}",
        if *offline { " (the network is off: only 127.0.0.1 and localhost resolve)" } else { "" }
    )]
    LoadFailed {
        /// The page.
        url: String,
        /// The browser's error (`net::ERR_NAME_NOT_RESOLVED`).
        error: String,
        /// Whether the name did not resolve because the browser was started
        /// without the network.
        offline: bool,
    },
    /// A fixed wait after load is longer than what is left of the page's budget.
    #[error(
        "{url}: a wait of {} ms after load cannot finish within the time limit of {:.1} s \
         ({} ms of it were left after load)",
        delay.as_millis(),
        limit.as_secs_f64(),
        left.as_millis()
    )]
    WaitTooLong {
        /// The page.
        url: String,
        /// The wait asked for.
        delay: Duration,
        /// The page's whole budget.
        limit: Duration,
        /// What was left of it after load.
        left: Duration,
    },
    /// The page navigated again (a reload or redirect loop) every time it was
    /// about to be captured, until the budget ran out.
    #[error(
        "{url}: the page kept navigating (reloading or leaving) until the time limit of {:.1} s; \
         no state held still long enough to capture",
        limit.as_secs_f64()
    )]
    KeptNavigating {
        /// The page.
        url: String,
        /// The page's whole budget.
        limit: Duration,
    },
    /// The page opened a JavaScript dialog, which stops it until the dialog
    /// is answered (see [`crate::DialogPolicy::Ask`]).
    #[error("{url}: {call} was stopped by a {} dialog the page opened: {:?}", dialog.kind.name(), dialog.message)]
    DialogOpen {
        /// The page.
        url: String,
        /// The CDP call that was waiting.
        call: &'static str,
        /// The dialog.
        dialog: pagesnap_engine::dialog::Dialog,
    },
    /// The page navigated (or reloaded) while the call ran: the document it
    /// worked on is gone. Told from the protocol's navigation events, not
    /// from the browser's words ([`crate::documents`]).
    #[error("{url}: the page navigated during {call} ({message})")]
    Navigated {
        /// The page.
        url: String,
        /// The CDP call.
        call: &'static str,
        /// The browser's message for the call.
        message: String,
    },
    /// The browser answered with an error.
    #[error("{url}: {call} failed: {message}")]
    Failed {
        /// The page.
        url: String,
        /// The CDP call.
        call: &'static str,
        /// The browser's or the client's message.
        message: String,
    },
}

impl TabError {
    /// Whether the tab itself is gone (crashed or closed): every later call
    /// on it fails too, so no caller may read this as a local failure.
    pub fn is_gone(&self) -> bool {
        matches!(
            self,
            TabError::Closed { .. } | TabError::Crashed { .. } | TabError::BrowserGone { .. }
        )
    }

    /// Whether the whole browser is gone, not only the tab.
    pub fn is_browser_gone(&self) -> bool {
        matches!(self, TabError::BrowserGone { .. })
    }
}

/// A phase of recording one page, named in [`TabError::OverLimit`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Waiting for the load event.
    Load,
    /// `--wait-for`.
    Wait,
    /// Fonts and two animation frames after load or a step.
    Settle,
    /// A scripted `--then` step.
    Step,
    /// `DOMSnapshot.captureSnapshot` and the page facts read with it.
    Snapshot,
    /// `Accessibility.getFullAXTree` (the validation oracle).
    AxTree,
    /// `Page.captureScreenshot`.
    Screenshot,
    /// Encoding and writing the recording.
    Write,
}

impl std::fmt::Display for Phase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Phase::Load => "load",
            Phase::Wait => "the wait for the selector",
            Phase::Settle => "settle (fonts and two animation frames)",
            Phase::Step => "a scripted step",
            Phase::Snapshot => "the DOM snapshot",
            Phase::AxTree => "the AX tree",
            Phase::Screenshot => "the screenshot",
            Phase::Write => "the write",
        })
    }
}

impl Phase {
    /// The phase a capture call belongs to; `None` for calls made in any
    /// phase (scripts), which take the session's current phase.
    pub fn of_call(call: &str) -> Option<Phase> {
        match call {
            "DOMSnapshot.captureSnapshot"
            | "Page.getLayoutMetrics"
            | FACTS_CALL
            | DOCUMENT_CALL
            | LISTENERS_CALL
            | "DOM.describeNode"
            | "DOM.resolveNode"
            | "Runtime.callFunctionOn" => Some(Phase::Snapshot),
            "Accessibility.getFullAXTree" | "Page.getFrameTree" => Some(Phase::AxTree),
            "Page.captureScreenshot" => Some(Phase::Screenshot),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A capture call is blamed on the phase it belongs to; scripts take the
    /// session's current phase.
    #[test]
    fn capture_calls_belong_to_their_phase() {
        assert_eq!(
            Phase::of_call("DOMSnapshot.captureSnapshot"),
            Some(Phase::Snapshot)
        );
        assert_eq!(Phase::of_call("DOM.describeNode"), Some(Phase::Snapshot));
        assert_eq!(
            Phase::of_call("Accessibility.getFullAXTree"),
            Some(Phase::AxTree)
        );
        assert_eq!(Phase::of_call("Page.getFrameTree"), Some(Phase::AxTree));
        assert_eq!(
            Phase::of_call("Page.captureScreenshot"),
            Some(Phase::Screenshot)
        );
        assert_eq!(Phase::of_call("Runtime.evaluate"), None);
        assert_eq!(Phase::of_call(""), None);
    }
}
