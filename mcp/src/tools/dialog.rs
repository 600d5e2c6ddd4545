//! `page_dialog`: answers the JavaScript dialog the page waits on and returns the page after it.

use pagesnap_browser::UserAction;
use rmcp::model::{CallToolResult, JsonObject};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use super::act::{After, action_result};
use super::{Server, done, input_schema, parse};
use crate::answer::{ActionReport, Detail};
use crate::error::{Kind, ToolError};
use crate::readiness::Readiness;
use crate::tabs::Request;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DialogArgs {
    /// OK (true) or Cancel (false).
    pub accept: bool,
    /// A prompt's answer (default: its default text).
    pub text: Option<String>,
}

#[tool_router(router = dialog_router, vis = "pub(super)")]
impl Server {
    #[tool(
        name = "page_dialog",
        input_schema = input_schema::<DialogArgs>(),
        description = "Answer the JavaScript dialog (alert, confirm, prompt, beforeunload) the page waits on; until then snapshots show only it and other actions fail with dialog-pending. Returns the page after it."
    )]
    async fn page_dialog(&self, arguments: JsonObject) -> CallToolResult {
        let mut browsing = self.browsing.lock().await;
        done(
            async {
                let args: DialogArgs = parse("page_dialog", arguments)?;
                let Some(dialog) = browsing.dialog() else {
                    return Err(ToolError::new(
                        Kind::Action(pagesnap_browser::Failure::NoDialog),
                        pagesnap_browser::Failure::NoDialog.message(),
                    ));
                };
                let before = browsing.last().cloned();
                let action = UserAction::Dialog {
                    accept: args.accept,
                    text: args.text.clone(),
                };
                let acted = browsing.act(action, Readiness::CLICK).await?;
                let seen = browsing.observe(&Request::default()).await?;
                let action = ActionReport {
                    op: "dialog",
                    detail: Detail::Dialog {
                        kind: dialog.kind.name(),
                        message: browsing.mask(&dialog.message),
                        accepted: args.accept,
                    },
                };
                let pending = acted.pending.clone();
                let new_tabs = browsing.new_tabs().await;
                Ok(action_result(
                    &browsing,
                    action,
                    After {
                        acted: Some(&acted),
                        seen: &seen,
                        before: before.as_ref(),
                        pending,
                        new_tabs,
                        brief: false,
                    },
                ))
            }
            .await,
        )
    }
}
