//! Observing the current tab: the snapshot (a kept capture rendered again while the page still shows it), what changed since the last one, and what a ref or a point names.

use std::collections::BTreeSet;

use pagesnap_browser::{Failure, Source};
use pagesnap_engine::observation::{Item, Observation};
use pagesnap_engine::passes::{Layer, Options};

use super::{Browsing, Request, Seen, no_tab};
use crate::answer::{Changes, Freshness};
use crate::error::{Kind, ToolError};
use crate::policy;

impl Browsing {
    /// Observes the current tab.
    pub async fn observe(&mut self, request: &Request) -> Result<Seen, ToolError> {
        let strategy = request.strategy.unwrap_or(self.config().strategy);
        let mut layers: Vec<Layer> = self.config().layers.layers.clone();
        let mut active = request
            .layers
            .clone()
            .unwrap_or_else(|| self.config().layers.default.clone());
        if let Some(reference) = &request.scope {
            let item = self.item(reference)?;
            let selector = self.selector_of(item.backend_id, reference).await?;
            layers.push(Layer {
                name: SCOPE_LAYER.to_owned(),
                selectors: vec![selector],
            });
            active = vec![SCOPE_LAYER.to_owned()];
        } else if let Some(unknown) = active
            .iter()
            .find(|name| !layers.iter().any(|l| &l.name == *name))
        {
            let known: Vec<&str> = layers.iter().map(|l| l.name.as_str()).collect();
            return Err(ToolError::new(
                Kind::BadArgument,
                format!(
                    "unknown layer {unknown:?} (configured: {})",
                    if known.is_empty() {
                        "none; configure them with --layers-config FILE".to_owned()
                    } else {
                        known.join(", ")
                    }
                ),
            ));
        }
        let id = self.current.clone().ok_or_else(no_tab)?;
        let Some(tab) = self.tabs.get_mut(&id) else {
            return Err(no_tab());
        };
        if let Some(dialog) = tab.session.dialog() {
            // The page is stopped: the dialog is all there is to see. The
            // last observation stays the one changes are counted from.
            tab.kept = None;
            let mut observation = dialog.observation(strategy.name());
            observation.text = self.mask_known(&observation.text);
            let tab = self.current()?;
            let freshness = Freshness {
                captured_at: pagesnap_browser::now_rfc3339(),
                url: tab.session.url().to_owned(),
                title: String::new(),
                tab: tab.session.target_id().to_owned(),
                reused: false,
                age_ms: None,
            };
            return Ok(Seen {
                observation,
                freshness,
                present: BTreeSet::new(),
                captured: None,
            });
        }
        let options = Options {
            full_page: request.full_page.or(Some(false)),
            max_tokens: request.max_tokens,
            layers,
            active_layers: active,
            previous: tab.last.as_ref(),
            redact: true,
            show_hidden: request.show_hidden,
            screenshot: None,
        };
        let observed = if self.shared.config.tracks_changes() {
            tab.session
                .observe_kept(strategy, &options, &mut tab.kept)
                .await
        } else {
            tab.kept = None;
            tab.session
                .observe_untracked(strategy, &options, &mut tab.kept)
                .await
                .map(|observation| (observation, Source::Captured))
        };
        let (mut observation, source) = match observed {
            Ok(observed) => observed,
            Err(err) => return Err(self.failed(&err).await),
        };
        let tab = self.current()?;
        let Some(kept) = &tab.kept else {
            return Err(no_tab());
        };
        let recording = &kept.captured.recording;
        // Reused: the page has not changed since that capture (nothing in
        // its DOM, form values, scroll, size, focus or animations). Scrolled:
        // the capture moved to the page's scroll now is the page as it is.
        let age_ms = match source {
            Source::Reused { age } => Some(u64::try_from(age.as_millis()).unwrap_or(u64::MAX)),
            Source::Captured | Source::Scrolled { .. } => None,
        };
        let freshness = Freshness {
            captured_at: recording.captured_at.clone(),
            url: recording.url.clone(),
            title: self.mask(&recording.title),
            tab: tab.session.target_id().to_owned(),
            reused: age_ms.is_some(),
            age_ms,
        };
        observation.text = self.mask_known(&observation.text);
        let present = recording.nodes.iter().map(|n| n.backend_id).collect();
        let captured = match source {
            Source::Captured | Source::Scrolled { .. } => Some(kept.timings.clone()),
            Source::Reused { .. } => None,
        };
        let tab = self.current_mut()?;
        for item in &observation.meta.items {
            tab.refs.insert(item.reference.clone(), item.clone());
        }
        tab.last = Some(observation.clone());
        Ok(Seen {
            observation,
            freshness,
            present,
            captured,
        })
    }

    /// The element a ref names in the current tab.
    pub fn item(&self, reference: &str) -> Result<Item, ToolError> {
        let tab = self.current()?;
        match tab.refs.get(reference) {
            Some(item) if item.backend_id != 0 => Ok(item.clone()),
            _ => Err(ToolError::new(
                Kind::UnknownRef,
                format!(
                    "unknown ref {reference:?}: this tab has shown no such ref; take a page_snapshot and use a ref from it"
                ),
            )),
        }
    }

    /// A CSS path to the node, for scoping a snapshot to its subtree.
    async fn selector_of(&self, backend_id: u64, reference: &str) -> Result<String, ToolError> {
        self.refuse_while_dialog()?;
        let tab = self.current()?;
        let answer = tab
            .session
            .call_function_on(backend_id, SELECTOR_JS, Vec::new())
            .await
            .map_err(|err| self.browser_error(&err))?;
        match answer.as_ref().and_then(serde_json::Value::as_str) {
            Some(selector) if !selector.is_empty() => Ok(selector.to_owned()),
            _ => Err(ToolError::new(
                Kind::Action(Failure::Stale),
                format!(
                    "ref {reference:?}: the element is no longer on the page, or lives in a shadow root or frame a snapshot cannot be scoped to"
                ),
            )),
        }
    }

    /// What is at viewport point `(x, y)` of the current tab (`button "Go"`).
    pub async fn element_at(&self, x: f64, y: f64) -> Result<Option<String>, ToolError> {
        self.refuse_while_dialog()?;
        let tab = self.current()?;
        tab.session
            .element_at(x, y)
            .await
            .map_err(|err| self.browser_error(&err))
    }

    /// What changed between the tab's observation before an action and
    /// after ([`policy::changes`]).
    pub fn changes(before: Option<&Observation>, after: &Seen) -> Changes {
        policy::changes(
            before.map(|b| b.meta.items.as_slice()),
            &after.observation.meta.items,
            &after.present,
        )
    }

    /// The current tab's last observation.
    pub fn last(&self) -> Option<&Observation> {
        self.current().ok().and_then(|t| t.last.as_ref())
    }
}

/// The layer a `ref`-scoped snapshot uses.
const SCOPE_LAYER: &str = "ref";

/// A CSS path from the document to `this` by `:nth-child` (empty in a shadow root or frame).
const SELECTOR_JS: &str = r#"function () {
  if (!this.isConnected || this.nodeType !== 1 || this.getRootNode() !== document) return '';
  const parts = [];
  for (let el = this; el && el.nodeType === 1 && el !== document.documentElement; el = el.parentElement) {
    const index = [...el.parentElement.children].indexOf(el) + 1;
    parts.unshift(el.tagName.toLowerCase() + ':nth-child(' + index + ')');
  }
  return ':root > ' + parts.join(' > ');
}"#;
