//! One open tab: the handle its parts borrow, the out-of-process frames it attached, and the public face of capture, input and navigation.

use std::time::{Duration, Instant};

use chromiumoxide::Page as CdpPage;
use chromiumoxide::cdp::browser_protocol::accessibility::GetFullAxTreeParams;
use chromiumoxide::cdp::browser_protocol::emulation::SetFocusEmulationEnabledParams;
use pagesnap_engine::analyze::is_chromium_text_role;
use pagesnap_engine::dialog::{Answered, Dialog};
use pagesnap_engine::recording::{AxNode, DomCounts};

use crate::dialogs::{DialogPolicy, Dialogs};
use crate::documents::Documents;
use crate::error::Result;
use crate::failure::Watch;
use crate::frames::{Frames, Link, Route};
use crate::tab::TabHandle;

/// One open tab.
pub struct ChromiumSession {
    tab: TabHandle,
    /// The browser's product string, written into each recording.
    version: String,
    /// The out-of-process frames attached so far.
    frames: Frames,
    /// The folder uploads are confined to ([`crate::Chromium::with_upload_dir`]).
    uploads: std::path::PathBuf,
}

/// What a session hears from its tab, from the moment it is made: its
/// JavaScript dialogs and its document changes.
pub(crate) struct Heard {
    dialogs: Dialogs,
    documents: Documents,
}

impl Heard {
    /// Starts listening to `page` (its dialogs under `policy`).
    pub(crate) async fn listen(page: &CdpPage, policy: DialogPolicy) -> Result<Heard> {
        Ok(Heard {
            dialogs: Dialogs::listen(page, policy).await?,
            documents: Documents::listen(page).await?,
        })
    }
}

const COUNTS_JS: &str = r#"(() => {
  const acc = { document: 0, shadow: 0, iframe: 0 };
  const walk = (root, where) => {
    for (const el of root.querySelectorAll('*')) {
      acc[where]++;
      if (el.shadowRoot) walk(el.shadowRoot, where === 'iframe' ? 'iframe' : 'shadow');
      if (el.tagName === 'IFRAME' || el.tagName === 'FRAME') {
        let doc = null;
        try { doc = el.contentDocument; } catch (e) {}
        if (doc) walk(doc, 'iframe');
      }
    }
  };
  walk(document, 'document');
  return JSON.stringify(acc);
})()"#;

impl ChromiumSession {
    /// The one constructor: a session on `page` showing `url` (stored as
    /// [`crate::display_url`] gives it), its calls limited to `limit` and,
    /// when recording, ending by `deadline`; uploads confined to `uploads`.
    #[expect(
        clippy::too_many_arguments,
        reason = "each is one part of the tab, given once"
    )]
    pub(crate) fn new(
        page: CdpPage,
        heard: Heard,
        version: String,
        url: String,
        watch: Watch,
        limit: Duration,
        deadline: Option<Instant>,
        uploads: std::path::PathBuf,
    ) -> ChromiumSession {
        ChromiumSession {
            tab: TabHandle::new(
                page,
                heard.dialogs,
                heard.documents,
                url,
                watch,
                limit,
                deadline,
            ),
            version,
            frames: Frames::default(),
            uploads,
        }
    }

    /// The handle every part of the session borrows.
    pub(crate) fn tab(&self) -> &TabHandle {
        &self.tab
    }

    /// The handle, for a navigation that changes the URL and limit.
    pub(crate) fn tab_mut(&mut self) -> &mut TabHandle {
        &mut self.tab
    }

    /// The browser's product string.
    pub(crate) fn version(&self) -> &str {
        &self.version
    }

    /// The out-of-process frames attached so far.
    pub(crate) fn frames(&self) -> &Frames {
        &self.frames
    }

    /// The folder uploads are confined to: a relative path names a file in
    /// it ([`crate::confine_uploads`]).
    pub fn upload_dir(&self) -> &std::path::Path {
        &self.uploads
    }

    /// The JavaScript dialog the page waits on, if any (only under
    /// [`crate::DialogPolicy::Ask`]; the other policies answer at once).
    pub fn dialog(&self) -> Option<Dialog> {
        self.tab.dialog()
    }

    /// Makes the page believe it has focus, so that input events reach its
    /// focused element while the tab is in the background (several tabs
    /// driven at once).
    pub async fn emulate_focus(&self) -> Result<()> {
        self.tab
            .call(
                "Emulation.setFocusEmulationEnabled",
                self.tab
                    .page()
                    .execute(SetFocusEmulationEnabledParams::new(true)),
            )
            .await?;
        Ok(())
    }

    /// The dialogs the tab's policy answered since the last call, oldest first.
    pub fn take_answered_dialogs(&self) -> Vec<Answered> {
        self.tab.dialogs().take_answered()
    }

    /// The page as given (`file:fixtures/…` for local files).
    pub fn display_url(&self) -> &str {
        self.tab.display_url()
    }

    /// Brings the tab to the front: a background tab runs no animation
    /// frames and paints no screenshot.
    pub async fn bring_to_front(&self) -> Result<()> {
        self.tab
            .call("Page.bringToFront", self.tab.page().bring_to_front())
            .await?;
        Ok(())
    }

    /// The tab's CDP target id.
    pub fn target_id(&self) -> &str {
        self.tab.target_id()
    }

    /// The frame number of each frame from another site this tab attached
    /// to, by CDP frame id: the high half of its nodes' keys
    /// ([`crate::node_key`]), for a client that found a node through its own
    /// session of that frame.
    pub fn frame_ids(&self) -> std::collections::HashMap<String, u32> {
        self.frames
            .links()
            .into_iter()
            .map(|link| (link.frame_id, link.key))
            .collect()
    }

    /// The URL loaded (`file:///…` for local files).
    pub fn url(&self) -> &str {
        self.tab.url()
    }

    /// Closes the tab.
    pub async fn close(self) {
        self.tab.close().await;
    }

    /// Bounds every later call by `deadline` (recording: the page's budget),
    /// or lifts the bound.
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.tab.set_deadline(deadline);
    }

    /// The moment the page's budget runs out, when recording.
    pub fn deadline(&self) -> Option<Instant> {
        self.tab.deadline()
    }

    /// Evaluates `expression` in the page's main frame (promises awaited) and returns its value as JSON.
    pub async fn eval(&self, expression: &str) -> Result<serde_json::Value> {
        self.tab.eval(expression).await
    }

    /// Waits for fonts and two animation frames so layout reflects the last
    /// change. A tab in the background runs no animation frames (a tab the
    /// page opened came to the front, or an attached browser shows another):
    /// there a timer ends the wait after a second instead.
    pub async fn settle(&self) -> Result<()> {
        self.tab.settle().await
    }

    /// Element counts as page scripts see them (main document, open shadow trees, iframes).
    pub(crate) async fn counts(&self) -> Option<DomCounts> {
        self.counts_in(&Route::TAB).await
    }

    /// Element counts as an out-of-process frame's scripts see them.
    pub(crate) async fn counts_in(&self, route: &Route) -> Option<DomCounts> {
        self.tab
            .eval_in(route, COUNTS_JS)
            .await
            .ok()
            .and_then(|v| v.as_str().and_then(|s| serde_json::from_str(s).ok()))
    }

    /// Chromium's accessibility tree of an out-of-process frame (and the
    /// frames in its process), its nodes keyed like the frame's nodes.
    pub(crate) async fn accessibility_of(&self, link: &Link) -> Result<Vec<AxNode>> {
        let route = link.route();
        let params = GetFullAxTreeParams::builder().build();
        let tree = self
            .tab
            .call_large(
                "Accessibility.getFullAXTree",
                route.execute(self.tab.page(), params),
            )
            .await?;
        Ok(tree
            .result
            .nodes
            .iter()
            .map(|node| ax_node(node, link.key))
            .collect())
    }

    pub(crate) async fn accessibility(&self) -> Result<Vec<AxNode>> {
        let mut out = Vec::new();
        let mut frames = vec![None];
        // Bounded like every call: while the client decodes a large answer
        // it answers nothing else, these included.
        if let Ok(all) = self
            .tab
            .call("Page.getFrameTree", self.tab.page().frames())
            .await
        {
            let main = self
                .tab
                .call("Page.getFrameTree", self.tab.page().mainframe())
                .await
                .ok()
                .flatten();
            frames.extend(
                all.into_iter()
                    .filter(|f| Some(f) != main.as_ref())
                    .map(Some),
            );
        }
        for frame in frames {
            let mut params = GetFullAxTreeParams::builder();
            if let Some(frame) = frame.clone() {
                params = params.frame_id(frame);
            }
            let page = self.tab.page().clone();
            let params = params.build();
            let tree = match self
                .tab
                .call_large("Accessibility.getFullAXTree", async move {
                    page.execute(params).await
                })
                .await
            {
                Ok(tree) => tree,
                Err(err) if err.is_gone() => return Err(err.into()),
                // Out-of-process frames have no tree in this session; skip them.
                Err(_) => continue,
            };
            out.extend(tree.result.nodes.iter().map(|node| ax_node(node, 0)));
        }
        Ok(out)
    }
}

/// One node of Chromium's accessibility tree, its DOM node keyed as frame `frame`'s.
fn ax_node(
    node: &chromiumoxide::cdp::browser_protocol::accessibility::AxNode,
    frame: u32,
) -> AxNode {
    let text = |value: &Option<chromiumoxide::cdp::browser_protocol::accessibility::AxValue>| {
        value
            .as_ref()
            .and_then(|v| v.value.as_ref())
            .map(|v| match v {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .unwrap_or_default()
    };
    let role = text(&node.role);
    // A text node's name is its text, which the recording holds already.
    let name = if is_chromium_text_role(&role) {
        String::new()
    } else {
        text(&node.name)
    };
    AxNode {
        backend_id: node
            .backend_dom_node_id
            .as_ref()
            .map(|b| *b.inner())
            .filter(|&b| b >= 0)
            .map(|b| crate::frames::node_key(frame, b)),
        role,
        name,
        ignored: node.ignored,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cdp_node(
        role: &str,
        name: &str,
    ) -> chromiumoxide::cdp::browser_protocol::accessibility::AxNode {
        serde_json::from_value(serde_json::json!({
            "nodeId": "7",
            "ignored": false,
            "role": {"type": "role", "value": role},
            "name": {"type": "computedString", "value": name},
            "backendDOMNodeId": 12,
        }))
        .unwrap()
    }

    /// A text node's name is its text, which the recording's nodes hold:
    /// the oracle keeps the node without it; an element keeps its name.
    #[test]
    fn the_oracle_keeps_text_nodes_without_their_text() {
        let text = ax_node(&cdp_node("StaticText", "twenty megabytes"), 0);
        assert_eq!((text.role.as_str(), text.name.as_str()), ("StaticText", ""));
        assert_eq!(text.backend_id, Some(12));
        let line = ax_node(&cdp_node("InlineTextBox", "one line"), 0);
        assert_eq!(line.name, "");
        let button = ax_node(&cdp_node("button", "Sign in"), 0);
        assert_eq!(
            (button.role.as_str(), button.name.as_str()),
            ("button", "Sign in")
        );
    }
}
