//! `page_snapshot`: what the current tab shows, in any strategy, viewport-scoped by default.

use pagesnap_engine::strategy::{self, STRATEGIES, Strategy};
use rmcp::model::{CallToolResult, JsonObject};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use serde_json::json;

use super::{Server, blocks, input_schema, snapshot_of};
use crate::answer::{DownloadReport, SnapshotAnswer};
use crate::error::{Kind, ToolError};
use crate::tabs::{Browsing, Request, Seen};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SnapshotArgs {
    /// How the page is written: `aria` (Playwright-style YAML with [ref=eN]), `flat` (indexed
    /// [N]<tag> lines), `structural` (3×3 zones with name sources), `som` (a screenshot with numbered
    /// boxes plus a legend), `html-pruned` or `html`. Default: the server's --strategy.
    pub strategy: Option<String>,
    /// true: the whole page; default: the viewport, with hints of what is above and below.
    pub full_page: Option<bool>,
    /// Cut the text to about this many tokens (least useful content first); the text says so when cut.
    pub max_tokens: Option<usize>,
    /// Named layers to show (configured on the server with --layers-config); default: its default layers.
    pub layers: Option<Vec<String>>,
    /// Show only this element's subtree (a ref from an earlier result).
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    /// Debugging: also show text no one can see.
    pub show_hidden: Option<bool>,
}

#[tool_router(router = snapshot_router, vis = "pub(super)")]
impl Server {
    #[tool(
        name = "page_snapshot",
        input_schema = input_schema::<SnapshotArgs>(),
        description = "What the current tab shows, as text an agent can act on: each interactive element with a ref (for page_action), nearby text, hints of what is above and below. Elements behind a modal are [obscured], without refs; secrets are redacted; a node keeps its ref across calls; new elements are marked. structuredContent: snapshotId, viewport, counts, items (ref, role, name, nameSource, nameStatus, zone, states), freshness (capturedAt, url, title, tab, reused: unchanged since the last capture), downloads?."
    )]
    async fn page_snapshot(&self, arguments: JsonObject) -> CallToolResult {
        self.call("page_snapshot", arguments, snapshot).await
    }
}

async fn snapshot(
    browsing: &mut Browsing,
    args: SnapshotArgs,
) -> Result<CallToolResult, ToolError> {
    let request = Request {
        strategy: args.strategy.as_deref().map(strategy_named).transpose()?,
        full_page: args.full_page,
        max_tokens: args.max_tokens,
        layers: args.layers.clone(),
        scope: args.reference.clone(),
        show_hidden: args.show_hidden.unwrap_or(false),
    };
    if args.max_tokens == Some(0) {
        return Err(ToolError::new(
            Kind::BadArgument,
            "max_tokens must be at least 1",
        ));
    }
    let seen = browsing.observe(&request).await?;
    // A download that finished after the answer of the action that began
    // it (its notes are told beside the snapshot).
    let downloads = browsing.downloads().await;
    Ok(snapshot_result(browsing, &seen, downloads))
}

/// The strategy a `strategy` argument names; the error lists the known ones.
fn strategy_named(name: &str) -> Result<&'static dyn Strategy, ToolError> {
    strategy::by_name(name).ok_or_else(|| {
        let known: Vec<&str> = STRATEGIES.iter().map(|s| s.name()).collect();
        ToolError::new(
            Kind::BadArgument,
            format!("unknown strategy {name:?} (known: {})", known.join(", ")),
        )
    })
}

/// The observation's text (and image), its [`SnapshotAnswer`] with `downloads` the structured content, masked.
fn snapshot_result(
    browsing: &Browsing,
    seen: &Seen,
    downloads: Vec<DownloadReport>,
) -> CallToolResult {
    let mut result =
        CallToolResult::success(blocks(&seen.observation, seen.observation.text.clone()));
    let answer = SnapshotAnswer {
        snapshot: snapshot_of(seen),
        downloads,
    };
    let mut structured = serde_json::to_value(answer).unwrap_or_else(|_| json!({}));
    browsing.config().secrets.mask_json(&mut structured);
    result.structured_content = Some(structured);
    result
}
