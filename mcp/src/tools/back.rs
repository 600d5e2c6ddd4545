//! `page_back`: one page back in the current tab's history, answered with the page.

use std::time::Instant;

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
pub struct BackArgs {
    /// false: the whole viewport.
    pub brief: Option<bool>,
}

#[tool_router(router = back_router, vis = "pub(super)")]
impl Server {
    #[tool(
        name = "page_back",
        input_schema = input_schema::<BackArgs>(),
        description = "Go back one page in the current tab's history and wait for it to settle. Returns the page; the changed lines if the document stayed (a single-page app's own entry)."
    )]
    async fn page_back(&self, arguments: JsonObject) -> CallToolResult {
        self.call("page_back", arguments, back).await
    }
}

async fn back(browsing: &mut Browsing, args: BackArgs) -> Result<CallToolResult, ToolError> {
    let before = browsing.last().cloned();
    let started = Instant::now();
    let settled = browsing.back().await?;
    let moved = settled.is_some();
    let settled = settled.unwrap_or_default();
    let acted = Acted {
        note: (!moved).then(|| "there is no earlier page in this tab's history".to_owned()),
        pending: settled.pending.map(|pending| browsing.mask(&pending)),
        scroll: None,
        took: started.elapsed(),
        settled_in: settled.waited,
        navigated: settled.navigated,
    };
    let report = |_: &Browsing, _: &Acted, _: &Seen| ActionReport {
        op: "back".into(),
        detail: Detail::Back { moved },
    };
    // A document loaded (or restored) is a page newly opened; one that
    // stayed — a single-page app's own history entry, or no earlier page —
    // is compared with what it showed before.
    let since = match settled.navigated {
        true => Since::Arrival,
        false => Since::Before(before.as_ref()),
    };
    act::answer(browsing, &acted, since, report, args.brief).await
}
