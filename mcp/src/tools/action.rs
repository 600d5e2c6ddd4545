//! `page_action`: an op (click, type, select, press, drag, upload, …) on an element by ref, performed as a user would, answered with the page after it.

use pagesnap_browser::{Op, UserAction};
use rmcp::model::{CallToolResult, JsonObject};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use super::act;
use super::op;
use super::{Server, input_schema};
use crate::answer::{ActionReport, Detail};
use crate::error::{Kind, ToolError};
use crate::tabs::{Acted, Browsing, Seen};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ActionArgs {
    /// The element: a ref from a snapshot of this tab (`e12` in aria, `12`
    /// in flat). Optional for press, type and select_text.
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    /// The action.
    #[serde(deserialize_with = "op::offered")]
    #[schemars(with = "op::Offered")]
    pub op: Op,
    /// Text to type, option, key, text to select, or a click's button.
    pub value: Option<String>,
    /// drag: the drop target's ref, or a point "X,Y".
    pub to: Option<String>,
    /// upload: file paths, inside the server's --upload-dir.
    pub paths: Option<Vec<String>>,
    /// false: the whole viewport.
    pub brief: Option<bool>,
}

#[tool_router(router = action_router, vis = "pub(super)")]
impl Server {
    #[tool(
        name = "page_action",
        input_schema = input_schema::<ActionArgs>(),
        description = "Act on an element by ref as a user would, with real input at its visible centre (nothing is done if something covers it; the error names it): click (`value`: right, middle, Control+left…), dblclick, type (`value` replaces the text and is read back; {secret:NAME}: a server-side secret; date, time, color, range inputs take 2026-12-24, 14:30, #ff8800, 70), clear, select (option `value`), press (key `value`: Enter, Control+A, …), hover, focus, drag (onto ref or point `X,Y` `to`), upload (`paths`), select_text (`value`, or all). Without ref, type and press act at the focus; select_text finds `value` on the page. Returns {action, snapshot, changes, incomplete}. Failures are errors with a kind: stale, covered, hidden, not-editable, not-select, no-option, unknown-key, dialog-pending, wait-timeout, upload-refused, not-file-input, no-text, no-dialog, bad-value, value-mismatch, unknown-ref."
    )]
    async fn page_action(&self, arguments: JsonObject) -> CallToolResult {
        self.call("page_action", arguments, action).await
    }
}

async fn action(browsing: &mut Browsing, args: ActionArgs) -> Result<CallToolResult, ToolError> {
    let item = match &args.reference {
        Some(reference) => Some(browsing.item(reference)?),
        None => None,
    };
    let value = match (args.op, &args.value) {
        (Op::Type, Some(value)) => Some(
            browsing
                .config()
                .secrets
                .substitute(value)
                .map_err(|m| ToolError::new(Kind::BadArgument, m))?,
        ),
        (_, value) => value.clone(),
    };
    let mut items: Vec<_> = item.iter().cloned().collect();
    let value = match (args.op, &args.to, &args.paths) {
        (Op::Drag, Some(to), _) => {
            // A ref, or a point X,Y the resolver reads itself.
            if !to.contains(',') {
                items.push(browsing.item(to)?);
            }
            Some(to.clone())
        }
        (Op::Drag, None, _) => {
            return Err(ToolError::new(
                Kind::BadArgument,
                "drag needs `to`: the ref of the element to drop onto",
            ));
        }
        // The paths are set below, whole (a name may hold a comma).
        (Op::Upload, _, Some(_)) => Some(String::new()),
        (Op::Upload, _, None) => {
            return Err(ToolError::new(
                Kind::BadArgument,
                "upload needs `paths`: the files to give, inside the server's --upload-dir",
            ));
        }
        _ => value,
    };
    let action =
        pagesnap_browser::resolve(args.op, args.reference.as_deref(), value.as_deref(), &items)
            .map_err(|unrunnable| ToolError::new(Kind::BadArgument, unrunnable.to_string()))?
            .action;
    let action = match (action, &args.paths) {
        (UserAction::Upload { backend_id, .. }, Some(paths)) => UserAction::Upload {
            backend_id,
            paths: paths.clone(),
        },
        (action, _) => action,
    };
    let element = match (&item, args.op) {
        (Some(item), _) => pagesnap_browser::label(item),
        (None, Op::SelectText) => "the page".to_owned(),
        (None, _) => "the focus".to_owned(),
    };
    let report = |_: &Browsing, acted: &Acted, _: &Seen| ActionReport {
        op: args.op.name().to_owned(),
        detail: Detail::Element {
            reference: args.reference,
            element,
            outcome: "done".into(),
            // A typed value is never echoed (it may hold a secret).
            value: args.value.filter(|_| args.op != Op::Type),
            to: args.to,
            note: acted.note.clone(),
        },
    };
    act::perform(browsing, action, report, args.brief).await
}
