//! `page_click_at`: a real click at a viewport point, for what has no ref, naming what was under it.

use pagesnap_browser::{Op, UserAction};
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
pub struct ClickAtArgs {
    /// CSS pixels from the left.
    pub x: f64,
    /// CSS pixels from the top.
    pub y: f64,
    /// false: the whole viewport.
    pub brief: Option<bool>,
}

#[tool_router(router = click_at_router, vis = "pub(super)")]
impl Server {
    #[tool(
        name = "page_click_at",
        input_schema = input_schema::<ClickAtArgs>(),
        description = "A real click at a viewport point (CSS pixels, as the som screenshot), for what has no ref. Names what was under it; returns the page."
    )]
    async fn page_click_at(&self, arguments: JsonObject) -> CallToolResult {
        self.call("page_click_at", arguments, click_at).await
    }
}

async fn click_at(browsing: &mut Browsing, args: ClickAtArgs) -> Result<CallToolResult, ToolError> {
    if !(args.x.is_finite() && args.y.is_finite()) {
        return Err(ToolError::new(Kind::BadArgument, "x and y must be numbers"));
    }
    let element = browsing.element_at(args.x, args.y).await?;
    let action = UserAction::ClickAt {
        x: args.x,
        y: args.y,
    };
    let report = |browsing: &Browsing, _: &Acted, _: &Seen| ActionReport {
        op: Op::ClickAt.name().into(),
        detail: Detail::ClickAt {
            x: args.x,
            y: args.y,
            element: element.map(|e| browsing.mask(&e)),
        },
    };
    act::perform(browsing, action, report, args.brief).await
}
