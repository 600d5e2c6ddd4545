//! `page_back`: one page back in the current tab's history, answered with the page.

use rmcp::model::{CallToolResult, JsonObject};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use super::act::{After, action_result};
use super::{Server, done, input_schema, parse};
use crate::answer::{ActionReport, Detail};
use crate::tabs::{Acted, Request};

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
        let mut browsing = self.browsing.lock().await;
        done(
            async {
                let _args: NoArgs = parse("page_back", arguments)?;
                let moved = browsing.back().await?;
                let seen = browsing.observe(&Request::default()).await?;
                let action = ActionReport {
                    op: "back",
                    detail: Detail::Back { moved },
                };
                let note =
                    (!moved).then(|| "there is no earlier page in this tab's history".to_owned());
                let acted = Acted {
                    element: None,
                    note,
                    pending: None,
                    scroll: None,
                };
                Ok(action_result(
                    &browsing,
                    action,
                    After {
                        acted: Some(&acted),
                        seen: &seen,
                        before: None,
                        pending: None,
                        new_tabs: Vec::new(),
                        brief: false,
                    },
                ))
            }
            .await,
        )
    }
}
