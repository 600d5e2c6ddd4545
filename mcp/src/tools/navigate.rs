//! `page_navigate`: opens a URL in the current tab (a tab is opened when there is none) and answers with the page once it has loaded and settled.

use rmcp::model::{CallToolResult, JsonObject};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use super::act::{After, action_result};
use super::{Server, done, input_schema, parse};
use crate::answer::{ActionReport, Detail};
use crate::tabs::Request;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NavigateArgs {
    /// The URL to open in the current tab (http:// or https://). A tab is opened when none is.
    pub url: String,
}

#[tool_router(router = navigate_router, vis = "pub(super)")]
impl Server {
    #[tool(
        name = "page_navigate",
        input_schema = input_schema::<NavigateArgs>(),
        description = "Open a URL in the current tab (a tab is opened when there is none). Waits for the page to load and settle, then returns a snapshot of the viewport (as page_snapshot does, with the server's default strategy). Result: the snapshot text; structuredContent {action: {op, url}, snapshot: meta, incomplete, pending?}."
    )]
    async fn page_navigate(&self, arguments: JsonObject) -> CallToolResult {
        let mut browsing = self.browsing.lock().await;
        done(
            async {
                let args: NavigateArgs = parse("page_navigate", arguments)?;
                let pending = browsing.navigate(&args.url).await?;
                let seen = browsing.observe(&Request::default()).await?;
                let action = ActionReport {
                    op: "navigate",
                    detail: Detail::Navigate {
                        url: browsing.mask(&args.url),
                    },
                };
                Ok(action_result(
                    &browsing,
                    action,
                    After {
                        acted: None,
                        seen: &seen,
                        before: None,
                        pending,
                        new_tabs: Vec::new(),
                        brief: false,
                    },
                ))
            }
            .await,
        )
    }
}
