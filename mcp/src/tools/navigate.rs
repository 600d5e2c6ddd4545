//! `page_navigate`: opens a URL in the current tab (a tab is opened when there is none) and answers with the page once it has loaded and settled.

use std::time::Duration;

use pagesnap_browser::Arrival;
use rmcp::model::{CallToolResult, JsonObject};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use super::act::{self, Since};
use super::{Server, input_schema};
use crate::answer::{ActionReport, Detail};
use crate::error::ToolError;
use crate::tabs::{Acted, Browsing, Seen};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NavigateArgs {
    /// The URL to open (http:// or https://).
    pub url: String,
}

#[tool_router(router = navigate_router, vis = "pub(super)")]
impl Server {
    #[tool(
        name = "page_navigate",
        input_schema = input_schema::<NavigateArgs>(),
        description = "Open a URL in the current tab (opening one if there is none), wait for it to load and settle, and return the viewport's snapshot (the changed lines if the page stayed: a fragment, a download); structuredContent {action: {op, url}, snapshot: meta, incomplete, pending?, downloads?}."
    )]
    async fn page_navigate(&self, arguments: JsonObject) -> CallToolResult {
        self.call("page_navigate", arguments, navigate).await
    }
}

async fn navigate(
    browsing: &mut Browsing,
    args: NavigateArgs,
) -> Result<CallToolResult, ToolError> {
    let started = std::time::Instant::now();
    let (pending, arrival) = browsing.navigate(&args.url).await?;
    let acted = Acted {
        note: None,
        pending,
        scroll: None,
        took: started.elapsed(),
        settled_in: Duration::ZERO,
        navigated: arrival == Arrival::Document,
    };
    let report = |browsing: &Browsing, _: &Acted, _: &Seen| ActionReport {
        op: "navigate".into(),
        detail: Detail::Navigate {
            url: browsing.mask(&args.url),
        },
    };
    // The same document (another fragment, or the URL was a file that
    // downloaded): answered with what changed, as an action is, from the
    // observation the tab kept (`Browsing::navigate` drops it otherwise).
    let kept = match arrival {
        Arrival::Document => None,
        Arrival::SameDocument | Arrival::Download => Some(browsing.last().cloned()),
    };
    let since = match &kept {
        None => Since::Arrival,
        Some(before) => Since::Before(before.as_ref()),
    };
    act::answer(browsing, &acted, since, report, None).await
}
