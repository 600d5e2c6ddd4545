//! `page_fill`: several fields filled in one call, in order, stopping at the first failure; answered once.

use pagesnap_browser::UserAction;
use rmcp::model::{CallToolResult, JsonObject};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use super::act::answer_after;
use super::{Server, done, input_schema, parse};
use crate::answer::{ActionReport, Detail};
use crate::error::{Kind, ToolError};
use crate::readiness::Readiness;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Field {
    /// The field's ref.
    #[serde(rename = "ref")]
    pub reference: String,
    /// Its value.
    pub value: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FillArgs {
    /// The fields, filled in this order.
    pub fields: Vec<Field>,
    /// Answer with the changed lines only, not the whole page.
    pub brief: Option<bool>,
}

#[tool_router(router = fill_router, vis = "pub(super)")]
impl Server {
    #[tool(
        name = "page_fill",
        input_schema = input_schema::<FillArgs>(),
        description = "Fill several fields in one call, in order: text typed ({secret:NAME} allowed), a select's option, \"true\"/\"false\" for a checkbox or radio. Stops at the first failure, naming the field. Answers once with the page."
    )]
    async fn page_fill(&self, arguments: JsonObject) -> CallToolResult {
        let mut browsing = self.browsing.lock().await;
        done(
            async {
                let args: FillArgs = parse("page_fill", arguments)?;
                if args.fields.is_empty() {
                    return Err(ToolError::new(Kind::BadArgument, "fields is empty"));
                }
                let mut fields = Vec::new();
                for field in &args.fields {
                    let item = browsing.item(&field.reference)?;
                    let value = browsing
                        .config()
                        .secrets
                        .substitute(&field.value)
                        .map_err(|m| ToolError::new(Kind::BadArgument, m))?;
                    fields.push((item.backend_id, value));
                }
                let count = fields.len();
                let before = browsing.last().cloned();
                let acted = browsing
                    .act(UserAction::Fill { fields }, Readiness::SELECT)
                    .await?;
                let action = ActionReport {
                    op: "fill",
                    detail: Detail::Fill { fields: count },
                };
                answer_after(
                    &mut browsing,
                    action,
                    &acted,
                    before,
                    args.brief.unwrap_or(false),
                )
                .await
            }
            .await,
        )
    }
}
