//! A tool's failure as the agent reads it: a kind it can branch on and a message it can act on, returned as an `isError` result, never a dead server.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::json;

/// Why a tool call failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The actuator could not act as a user would.
    Action(pagesnap_browser::Failure),
    /// The ref was never shown in this tab.
    UnknownRef,
    /// An argument is wrong (unknown strategy or layer, a value missing).
    BadArgument,
    /// The URL is not one the server opens.
    RefusedUrl,
    /// Loading the page failed.
    Navigation,
    /// No tab is open, or no tab has that id.
    NoTab,
    /// The tab crashed or was closed.
    TabGone,
    /// The browser itself is gone: its process ended or its DevTools
    /// connection closed, and every tab with it.
    BrowserGone,
    /// The browser failed otherwise (no answer within the limit, …).
    Browser,
    /// The server only observes (`--observe-only`): what was asked would
    /// change the browser.
    ObserveOnly,
}

impl Kind {
    /// The kind as results spell it.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Action(failure) => failure.name(),
            Kind::UnknownRef => "unknown-ref",
            Kind::BadArgument => "bad-argument",
            Kind::RefusedUrl => "refused-url",
            Kind::Navigation => "navigation",
            Kind::NoTab => "no-tab",
            Kind::TabGone => "tab-gone",
            Kind::BrowserGone => "browser-gone",
            Kind::Browser => "browser",
            Kind::ObserveOnly => "observe-only",
        }
    }
}

/// A failed tool call.
#[derive(Clone, Debug)]
pub struct ToolError {
    /// Why.
    pub kind: Kind,
    /// What to tell the agent (already masked).
    pub message: String,
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.kind.name(), self.message)
    }
}

impl std::error::Error for ToolError {}

impl ToolError {
    /// A failure of `kind`.
    pub fn new(kind: Kind, message: impl Into<String>) -> ToolError {
        ToolError {
            kind,
            message: message.into(),
        }
    }

    /// The `isError` result: `<kind>: <message>` as text, `{error: {kind, message}}` as structured content.
    pub fn into_result(self) -> CallToolResult {
        let mut result = CallToolResult::error(vec![ContentBlock::text(format!(
            "{}: {}",
            self.kind.name(),
            self.message
        ))]);
        result.structured_content = Some(json!({
            "error": { "kind": self.kind.name(), "message": self.message }
        }));
        result
    }
}
