//! `page_tabs`: the session's tabs listed, one selected to observe and act on, or one closed.

use rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::{Server, input_schema};
use crate::error::{Kind, ToolError};
use crate::tabs::{Browsing, Isolation};

#[derive(Clone, Copy, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum TabsOp {
    List,
    Select,
    Close,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TabsArgs {
    /// `list` the tabs, `select` one (id) to observe and act on, or `close` one (id).
    pub op: TabsOp,
    /// The tab id (from `list`), for `select` and `close`.
    pub id: Option<String>,
}

#[tool_router(router = tabs_router, vis = "pub(super)")]
impl Server {
    #[tool(
        name = "page_tabs",
        input_schema = input_schema::<TabsArgs>(),
        description = "List the browser's tabs (a tab the page opens is listed here, never followed silently), select one to observe and act on, or close one."
    )]
    async fn page_tabs(&self, arguments: JsonObject) -> CallToolResult {
        self.call("page_tabs", arguments, tabs).await
    }
}

async fn tabs(browsing: &mut Browsing, args: TabsArgs) -> Result<CallToolResult, ToolError> {
    let id = || {
        args.id.clone().ok_or_else(|| {
            ToolError::new(
                Kind::BadArgument,
                "select and close need the tab's id (from list)",
            )
        })
    };
    match args.op {
        TabsOp::List => {}
        TabsOp::Select => browsing.select(&id()?).await?,
        TabsOp::Close if browsing.config().observe_only => {
            return Err(ToolError::new(
                Kind::ObserveOnly,
                "page_tabs close: this server only observes (--observe-only) and closes no tab",
            ));
        }
        TabsOp::Close => browsing.close_tab(&id()?).await?,
    }
    let tabs = browsing.list_tabs().await?;
    let lines: Vec<String> = tabs
        .iter()
        .map(|t| {
            format!(
                "{} {} {:?} {}",
                if t.current { "*" } else { "-" },
                t.id,
                t.title,
                t.url
            )
        })
        .collect();
    let context = match browsing.isolation() {
        Isolation::Default => "default",
        Isolation::Own(_) => "own",
    };
    let text = if lines.is_empty() {
        format!("no tabs (browser context: {context})")
    } else {
        format!(
            "tabs (* current; browser context: {context}):\n{}",
            lines.join("\n")
        )
    };
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(json!({ "tabs": tabs, "context": context }));
    Ok(result)
}
