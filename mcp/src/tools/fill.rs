//! `page_fill`: several fields filled in one call, in order, stopping at the first failure; answered once.

use pagesnap_browser::UserAction;
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
    /// false: the whole viewport.
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
        self.call("page_fill", arguments, fill).await
    }
}

async fn fill(browsing: &mut Browsing, args: FillArgs) -> Result<CallToolResult, ToolError> {
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
    let report = |_: &Browsing, _: &Acted, _: &Seen| ActionReport {
        op: "fill".into(),
        detail: Detail::Fill { fields: count },
    };
    act::perform(browsing, UserAction::Fill { fields }, report, args.brief).await
}
