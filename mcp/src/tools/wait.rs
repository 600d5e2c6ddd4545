//! `page_wait`: waits for a text to appear, an element to leave, or a delay, then answers with the page.

use pagesnap_browser::{Op, UserAction, Wait};
use rmcp::model::{CallToolResult, JsonObject};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use super::act;
use super::{Server, input_schema};
use crate::answer::{ActionReport, Detail};
use crate::error::{Kind, ToolError};
use crate::tabs::{Acted, Browsing, Seen};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitArgs {
    /// A text to appear.
    pub text: Option<String>,
    /// A ref to leave.
    pub gone: Option<String>,
    /// Milliseconds.
    pub ms: Option<u64>,
    /// false: the whole viewport.
    pub brief: Option<bool>,
}

#[tool_router(router = wait_router, vis = "pub(super)")]
impl Server {
    #[tool(
        name = "page_wait",
        input_schema = input_schema::<WaitArgs>(),
        description = "Wait until `text` appears, until the element of ref `gone` leaves or hides, or `ms` milliseconds (≤ 10000); give one. Returns the page; past 10 s: wait-timeout."
    )]
    async fn page_wait(&self, arguments: JsonObject) -> CallToolResult {
        self.call("page_wait", arguments, wait).await
    }
}

async fn wait(browsing: &mut Browsing, args: WaitArgs) -> Result<CallToolResult, ToolError> {
    let (wait, until) = match (&args.text, &args.gone, args.ms) {
        (Some(text), None, None) if !text.trim().is_empty() => {
            (Wait::Text(text.clone()), format!("text {text:?} appeared"))
        }
        (None, Some(reference), None) => (
            Wait::Gone(browsing.item(reference)?.backend_id),
            format!("ref {reference} gone"),
        ),
        (None, None, Some(ms)) if ms <= 10_000 => (
            Wait::Delay(std::time::Duration::from_millis(ms)),
            format!("{ms} ms passed"),
        ),
        (None, None, Some(ms)) => {
            return Err(ToolError::new(
                Kind::BadArgument,
                format!("ms is at most 10000, not {ms}"),
            ));
        }
        _ => {
            return Err(ToolError::new(
                Kind::BadArgument,
                "give exactly one of text (non-empty), gone (a ref) and ms",
            ));
        }
    };
    let report = |_: &Browsing, acted: &Acted, _: &Seen| ActionReport {
        op: Op::Wait.name().into(),
        detail: Detail::Wait {
            until,
            waited_ms: u64::try_from(acted.took.as_millis()).unwrap_or(u64::MAX),
        },
    };
    act::perform(browsing, UserAction::Wait(wait), report, args.brief).await
}
