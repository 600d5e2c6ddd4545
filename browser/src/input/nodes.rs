//! Calls on one node of a frame's document: its backend node id resolved to a handle in an object group, and a function called with `this` bound to it (`TabHandle::call_function`, which the capture's scroll boxes call too) — the actions' plumbing.

use crate::error::Result;
use chromiumoxide::cdp::js_protocol::runtime::{CallArgument, CallFunctionOnParams};

use super::Input;
use crate::failure::TabError;
use crate::frames::split_key;

impl Input<'_> {
    /// [`crate::ChromiumSession::call_function_on`]'s work.
    pub(crate) async fn call_function_on(
        &self,
        backend_id: u64,
        function: &str,
        arguments: Vec<serde_json::Value>,
    ) -> Result<Option<serde_json::Value>> {
        let (frame, id) = split_key(backend_id);
        // The frame left the page (or the tab navigated): the node is gone.
        let Some(route) = self.frames.route(frame) else {
            return Ok(None);
        };
        let group = self.tab.object_group("act");
        let object = match self.tab.resolve_node(&route, id, &group).await {
            Ok(object) => object,
            // "No node with given id found": the node left the document.
            Err(TabError::Failed { .. }) => None,
            Err(err) => return Err(err.into()),
        };
        let Some(object) = object else {
            self.tab.release_group(&route, group);
            return Ok(None);
        };
        let params = CallFunctionOnParams::builder()
            .function_declaration(function)
            .object_id(object)
            .arguments(
                arguments
                    .into_iter()
                    .map(|value| CallArgument::builder().value(value).build())
                    .collect::<Vec<_>>(),
            )
            .return_by_value(true)
            .await_promise(true)
            .build()
            .map_err(|err| self.tab.unbuilt("Runtime.callFunctionOn", err))?;
        let value = self
            .tab
            .call_function(&route, params, &format!("on node {backend_id}"))
            .await;
        self.tab.release_group(&route, group);
        value.map(Some)
    }
}
