//! `page_scroll`: scrolls the page, or a scroll container, by viewport heights (widths, left and right) as a wheel turns, or at once, and answers with the new viewport.

use pagesnap_browser::{Axis, Motion, Op, ScrollBy, UserAction};
use rmcp::model::{CallToolResult, JsonObject};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use super::act;
use super::{Server, input_schema};
use crate::answer::{ActionReport, Detail, Direction};
use crate::error::{Kind, ToolError};
use crate::tabs::{Acted, Browsing, Seen};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScrollArgs {
    // Down, up, right or left (the enum says so in the schema).
    pub direction: Direction,
    /// How far, in viewport heights (widths, across).
    pub screens: Option<f64>,
    /// A scroll container to scroll instead of the page.
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    /// Jump at once, not as a wheel turns.
    #[serde(default)]
    pub instant: bool,
    /// false: the whole viewport.
    pub brief: Option<bool>,
}

#[tool_router(router = scroll_router, vis = "pub(super)")]
impl Server {
    #[tool(
        name = "page_scroll",
        input_schema = input_schema::<ScrollArgs>(),
        description = "Scroll the page (or the container `ref` names) by `screens` viewports (default 0.75) as a wheel does, wait for lazy content, and return the new viewport's snapshot. structuredContent {action: {scrolled_px, at_top, at_bottom}, snapshot: meta, incomplete}."
    )]
    async fn page_scroll(&self, arguments: JsonObject) -> CallToolResult {
        self.call("page_scroll", arguments, scroll).await
    }
}

async fn scroll(browsing: &mut Browsing, args: ScrollArgs) -> Result<CallToolResult, ToolError> {
    let screens = args.screens.unwrap_or(ScrollBy::STEP);
    if !(screens.is_finite() && screens > 0.0 && screens <= 100.0) {
        return Err(ToolError::new(
            Kind::BadArgument,
            format!("screens must be a number above 0 and at most 100, not {screens}"),
        ));
    }
    let backend_id = match &args.reference {
        Some(reference) => Some(browsing.item(reference)?.backend_id),
        None => None,
    };
    let (axis, sign) = match args.direction {
        Direction::Down => (Axis::Vertical, 1.0),
        Direction::Up => (Axis::Vertical, -1.0),
        Direction::Right => (Axis::Horizontal, 1.0),
        Direction::Left => (Axis::Horizontal, -1.0),
    };
    // The page scrolls by its own viewport's heights, a container by its own.
    let action = UserAction::Scroll {
        backend_id,
        axis,
        by: ScrollBy::Screens(sign * screens),
        motion: if args.instant {
            Motion::Instant
        } else {
            Motion::Wheel
        },
    };
    let report = |_: &Browsing, acted: &Acted, seen: &Seen| {
        let viewport = seen.observation.meta.viewport;
        let scrolled = acted.scroll.map_or(0.0, |(a, b)| b - a);
        ActionReport {
            op: Op::Scroll.name().into(),
            detail: Detail::Scroll {
                direction: args.direction,
                screens,
                instant: args.instant,
                scrolled_px: scrolled.round(),
                at_top: viewport.at_top,
                at_bottom: viewport.at_bottom,
                reference: args.reference,
                note: acted.note.clone(),
            },
        }
    };
    act::perform(browsing, action, report, args.brief).await
}
