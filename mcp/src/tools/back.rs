//! `page_back`: one page back in the current tab's history, answered with the page.

use std::time::Duration;

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
pub struct NoArgs {}

#[tool_router(router = back_router, vis = "pub(super)")]
impl Server {
    #[tool(
        name = "page_back",
        input_schema = input_schema::<NoArgs>(),
        description = "Go back one page in the current tab's history, then return the snapshot."
    )]
    async fn page_back(&self, arguments: JsonObject) -> CallToolResult {
        self.call("page_back", arguments, back).await
    }
}

async fn back(browsing: &mut Browsing, _args: NoArgs) -> Result<CallToolResult, ToolError> {
    let moved = browsing.back().await?;
    let acted = Acted {
        note: (!moved).then(|| "there is no earlier page in this tab's history".to_owned()),
        pending: None,
        scroll: None,
        took: Duration::ZERO,
        settled_in: Duration::ZERO,
        navigated: true,
    };
    let report = |_: &Browsing, _: &Acted, _: &Seen| ActionReport {
        op: "back".into(),
        detail: Detail::Back { moved },
    };
    act::answer(browsing, &acted, Since::Arrival, report, None).await
}
