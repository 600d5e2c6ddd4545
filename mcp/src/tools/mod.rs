//! The tools (`page_navigate`, `page_snapshot`, `page_find`, `page_scroll`, `page_action`, `page_fill`, `page_wait`, `page_click_at`, `page_dialog`, `page_back`, `page_tabs`), a file each with its argument schema and handler; here the server they share, its router and the helpers every handler uses. Results carry the text an agent reads in `content` and the meta in `structuredContent`.

mod act;
mod action;
mod back;
mod click_at;
mod dialog;
mod fill;
mod find;
mod navigate;
mod op;
mod scroll;
mod snapshot;
mod tabs;
mod wait;

use std::sync::Arc;

use base64::Engine as _;
use pagesnap_engine::observation::Observation;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, JsonObject, ServerCapabilities, ServerConfig,
};
use rmcp::{ServerHandler, tool_handler};
use schemars::JsonSchema;
use tokio::sync::Mutex;

use crate::answer::{Note, Snapshot};
use crate::error::{Kind, ToolError};
use crate::tabs::{Browsing, Seen};

/// The server of one session: its calls are serialised on its browsing,
/// those of other sessions run beside them in the one browser.
#[derive(Clone)]
pub struct Server {
    browsing: Arc<Mutex<Browsing>>,
    tool_router: ToolRouter<Self>,
    /// Only the observing tools are offered ([`crate::Config::observe_only`]).
    observe_only: bool,
    /// Counts this session among the open ones while any clone lives.
    _open: Option<Arc<crate::serve::Open>>,
}

impl Server {
    /// A server on `browsing`, offering every tool, or (`observe_only`) only
    /// those that observe.
    pub fn new(browsing: Arc<Mutex<Browsing>>, observe_only: bool) -> Server {
        Server {
            browsing,
            tool_router: Self::tool_router(observe_only),
            observe_only,
            _open: None,
        }
    }

    /// This server, counted among the open sessions until it is gone.
    pub(crate) fn counted(mut self, open: crate::serve::Open) -> Server {
        self._open = Some(Arc::new(open));
        self
    }

    /// One call of `tool`: the session's browsing locked for all of it (a
    /// session's calls run one after the other), the arguments parsed, then
    /// `handle` run on them; a failure of either is an error result.
    async fn call<A: serde::de::DeserializeOwned>(
        &self,
        tool: &str,
        arguments: JsonObject,
        handle: impl AsyncFnOnce(&mut Browsing, A) -> Result<CallToolResult, ToolError>,
    ) -> CallToolResult {
        let mut browsing = self.browsing.lock().await;
        let result = match parse(tool, arguments) {
            Ok(args) => match browsing.recover().await {
                Ok(()) => handle(&mut browsing, args).await,
                Err(err) => Err(err),
            },
            Err(err) => Err(err),
        };
        // Notes an acting tool's answer did not carry (another tool's
        // answer, or a failure) are told with this one, known secrets
        // masked as in the rest of the answer (a download's URL may hold one).
        let notes = browsing.take_notes();
        match result {
            Ok(mut result) => {
                if !notes.is_empty() {
                    let text = browsing.mask_known(&notes_text(&notes));
                    result.content.insert(0, ContentBlock::text(text));
                }
                result
            }
            Err(mut err) => {
                for note in notes.iter().rev() {
                    let told = browsing.mask_known(&note.message);
                    err.message = format!("{told}; then: {}", err.message);
                }
                err.into_result()
            }
        }
    }

    /// Every tool, or only those that observe: one router per tool's file
    /// (`tools/list` sorts them by name).
    fn tool_router(observe_only: bool) -> ToolRouter<Self> {
        let observing = Self::snapshot_router() + Self::find_router() + Self::tabs_router();
        if observe_only {
            return observing;
        }
        observing
            + Self::navigate_router()
            + Self::scroll_router()
            + Self::action_router()
            + Self::fill_router()
            + Self::wait_router()
            + Self::click_at_router()
            + Self::dialog_router()
            + Self::back_router()
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let instructions = if self.observe_only {
            "pagesnap shows a browser tab someone else drives as text: read it with page_snapshot \
             (viewport only unless full_page), locate targets with page_find, choose the tab with \
             page_tabs. This server only observes: it opens, acts on and answers nothing."
        } else {
            "pagesnap shows a browser tab as text an agent can act on. Open a page with page_navigate, \
             read it with page_snapshot (viewport only; page_scroll or full_page for more), locate \
             targets with page_find, and act with page_action using the refs the snapshots show. Every \
             action answers with what it changed (the whole viewport on a new page, when most of it \
             changed, or with brief: false). A JavaScript dialog the page opens is shown, never \
             answered for you: answer it with page_dialog."
        };
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("pagesnap", env!("CARGO_PKG_VERSION")))
            .with_instructions(instructions)
    }
}

/// A tool's input schema, from its argument type (the descriptions are its doc comments).
fn input_schema<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    rmcp::handler::server::common::schema_for_input::<T>()
        .unwrap_or_else(|_| rmcp::handler::server::common::schema_for_type::<T>())
}

/// The arguments of `tool`, or a `bad-argument` error naming the field and
/// what was wrong (read here rather than by the SDK, so that malformed
/// arguments fail with a kind like every other failure).
fn parse<T: serde::de::DeserializeOwned>(
    tool: &str,
    arguments: JsonObject,
) -> Result<T, ToolError> {
    serde_path_to_error::deserialize(serde_json::Value::Object(arguments)).map_err(|err| {
        let path = err.path().to_string();
        let at = if path == "." {
            String::new()
        } else {
            format!(" at `{path}`")
        };
        ToolError::new(
            Kind::BadArgument,
            format!("{tool}: invalid arguments{at}: {}", err.into_inner()),
        )
    })
}

/// The content blocks of an observation: its text, and for `som` its PNG.
fn blocks(observation: &Observation, text: String) -> Vec<ContentBlock> {
    let mut blocks = vec![ContentBlock::text(text)];
    if let Some(image) = &observation.image {
        blocks.push(ContentBlock::image(
            base64::engine::general_purpose::STANDARD.encode(&image.png),
            "image/png",
        ));
    }
    blocks
}

/// The `### Notes` section of an answer's text.
fn notes_text(notes: &[Note]) -> String {
    let lines: Vec<String> = notes
        .iter()
        .map(|note| format!("- {}", note.message))
        .collect();
    format!("### Notes\n{}", lines.join("\n"))
}

/// The meta of an observation with its freshness (not masked).
fn snapshot_of(seen: &Seen) -> Snapshot {
    Snapshot {
        meta: seen.observation.meta.clone(),
        freshness: seen.freshness.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// page_action's description lists the kinds an agent can branch on:
    /// every [`pagesnap_browser::Failure`] and `unknown-ref`.
    #[test]
    fn page_action_names_every_failure_kind() {
        let tools = Server::tool_router(false).list_all();
        let action = tools
            .iter()
            .find(|tool| tool.name == "page_action")
            .unwrap();
        let description = action.description.as_deref().unwrap_or_default();
        let (_, listed) = description
            .split_once("Failures are errors with a kind: ")
            .unwrap();
        let listed: Vec<&str> = listed.trim_end_matches('.').split(", ").collect();
        let mut expected: Vec<&str> = pagesnap_browser::Failure::ALL
            .iter()
            .filter(|kind| **kind != pagesnap_browser::Failure::Failed) // a peer's error, never ours
            .map(|kind| kind.name())
            .collect();
        expected.push(Kind::UnknownRef.name());
        assert_eq!(listed, expected);
    }
}
