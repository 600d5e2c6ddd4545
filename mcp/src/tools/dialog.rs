//! `page_dialog`: answers the JavaScript dialog the page waits on and returns the page after it.

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
pub struct DialogArgs {
    /// OK (true) or Cancel (false).
    pub accept: bool,
    /// A prompt's answer (default: its default text).
    pub text: Option<String>,
    /// false: the whole viewport.
    pub brief: Option<bool>,
}

#[tool_router(router = dialog_router, vis = "pub(super)")]
impl Server {
    #[tool(
        name = "page_dialog",
        input_schema = input_schema::<DialogArgs>(),
        description = "Answer the JavaScript dialog (alert, confirm, prompt, beforeunload) the page waits on; until then snapshots show only it and other actions fail with dialog-pending. Returns the page after it."
    )]
    async fn page_dialog(&self, arguments: JsonObject) -> CallToolResult {
        self.call("page_dialog", arguments, dialog).await
    }
}

async fn dialog(browsing: &mut Browsing, args: DialogArgs) -> Result<CallToolResult, ToolError> {
    let Some(dialog) = browsing.dialog() else {
        return Err(ToolError::new(
            Kind::Action(pagesnap_browser::Failure::NoDialog),
            pagesnap_browser::Failure::NoDialog.message(),
        ));
    };
    let action = UserAction::Dialog {
        accept: args.accept,
        text: args.text,
    };
    let report = |browsing: &Browsing, _: &Acted, _: &Seen| ActionReport {
        op: Op::Dialog.name().into(),
        detail: Detail::Dialog {
            kind: dialog.kind.name().to_owned(),
            message: browsing.mask(&dialog.message),
            accepted: args.accept,
        },
    };
    act::perform(browsing, action, report, args.brief).await
}
