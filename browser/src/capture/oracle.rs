//! What a capture checks itself against: element counts as page scripts see them, and Chromium's accessibility tree (the validation oracle), keyed like the recording's nodes.

use chromiumoxide::cdp::browser_protocol::accessibility::GetFullAxTreeParams;
use pagesnap_engine::analyze::is_chromium_text_role;
use pagesnap_engine::recording::{AxNode, DomCounts};

use super::Capture;
use crate::error::Result;
use crate::frames::{Link, Route};

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

impl Capture<'_> {
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
