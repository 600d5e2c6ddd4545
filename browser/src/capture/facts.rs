//! The page facts a DOM snapshot lacks: title, focus, modal dialogs, shadow hosts, hover, press and drop targets (one script and the listener call).

use std::collections::HashMap;

use chromiumoxide::cdp::browser_protocol::dom_debugger::{EventListener, GetEventListenersParams};
use chromiumoxide::cdp::js_protocol::runtime::{
    EvaluateParams, RemoteObjectId, SerializationOptions, SerializationOptionsSerialization,
};

use super::Capture;
use super::snapshot::Extras;
use super::timings::{Call, timed};
use crate::error::{Error, Result};
use crate::frames::Route;

/// A function of the stylesheet scan it made before (or `null`) building the
/// page facts: `[title, focused, modal count, host count, focus target
/// count, stylesheet scan, …modal dialogs, …shadow hosts, …focus targets,
/// …hover targets]`, answered deep-serialised (each element with its
/// backend node id). The stylesheet scan (JSON: the stylesheets'
/// shape and the `:hover`/`:focus` selectors found in their rules) is `null`
/// when the one given still holds: scanning every rule is most of the
/// script's time (the script on wikia 23 ms, 7 without the scan; breitbart
/// 17 and 9; youth 14 and 6), and the selectors are matched again at every
/// capture. The stylesheets are taken to be the same while the tab shows the
/// same document and every root's sheets keep their number, rule counts,
/// URLs and `<style>` text lengths (a rule edited in place, keeping all of
/// them, is not seen until the next document).
///
/// The focused element follows focus into open shadow roots and same-origin frames; dialogs,
/// hosts and hover targets are found in the document, its open shadow trees
/// and its same-origin frames.
///
/// A hover target is an element hovering which reveals content: a `:hover`
/// rule of a readable stylesheet (inside `@media`, `@supports` and `@layer`
/// too) whose subject lies past the hovered element (`.menu:hover > ul`,
/// `.tip:hover + .bubble`) and which sets a property that shows, sizes or
/// moves it ([`HOVER_REVEALS`]); or an element with an `onmouseover` or
/// `onmouseenter` handler attribute (listeners added by script are read
/// with `DOMDebugger.getEventListeners` on the document, [`HOVER_EVENTS`]). A rule styling only the hovered element
/// itself (`a:hover { color: red }`) reveals nothing. At most
/// [`HOVER_LIMIT`] targets are kept.
///
/// A focus target is a focusable element (`tabIndex >= 0`) that focusing
/// shows: the subject of a `:focus`, `:focus-visible` or `:active` rule
/// (`.skip:focus { left: 8px }`), or of one hiding it while it is not
/// focused (GOV.UK's `.govuk-skip-link:not(:active):not(:focus) { width:
/// 1px; clip: … }`), that sets one of [`HOVER_REVEALS`] or `position`. At
/// most [`HOVER_LIMIT`].
const FACTS_JS: &str = r#"((cached) => {
  const hosts = [], modals = [], roots = [document];
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) { hosts.push(el); roots.push(el.shadowRoot); walk(el.shadowRoot); }
      if (el.tagName === 'DIALOG' && el.matches(':modal')) modals.push(el);
      if (el.tagName === 'IFRAME' || el.tagName === 'FRAME') {
        let doc = null;
        try { doc = el.contentDocument; } catch (e) {}
        if (doc) { roots.push(doc); walk(doc); }
      }
    }
  };
  walk(document);
  const hovers = new Set(), focusables = new Set();
  const reveals = new Set(HOVER_REVEALS);
  const FOCUS = /:(?:focus-visible|focus|active)(?![\w-])/g;
  const NOT_FOCUS = /:not\(\s*:(?:focus-visible|focus-within|focus|active)\s*\)/g;
  // The selector with its focus pseudo-classes (and their negations, which
  // style the element while it is not focused) taken out, when they are in
  // its last compound: the element focused is the one styled.
  const subject = (selector) => {
    let depth = 0, last = -1;
    for (let i = 0; i < selector.length; i++) {
      const c = selector[i];
      if (c === '(' || c === '[') depth++;
      else if (c === ')' || c === ']') depth--;
      else if (depth === 0 && (c === ' ' || c === '>' || c === '+' || c === '~')) last = i;
    }
    const tail = selector.slice(last + 1);
    const plain = tail.replace(NOT_FOCUS, '');
    if (plain === tail && tail.search(FOCUS) < 0) return null;
    const head = selector.slice(0, last + 1).replace(NOT_FOCUS, '').replace(FOCUS, '');
    return (head + (plain.replace(FOCUS, '') || '*')).trim();
  };
  // The selector up to the end of its first compound holding `:hover`, when
  // a combinator follows it, with every `:hover` taken out.
  const trigger = (selector) => {
    const at = selector.indexOf(':hover');
    if (at < 0) return null;
    let depth = 0, end = selector.length;
    for (let i = at + 6; i < selector.length; i++) {
      const c = selector[i];
      if (c === '(' || c === '[') depth++;
      else if (c === ')' || c === ']') depth--;
      else if (depth === 0 && (c === ' ' || c === '>' || c === '+' || c === '~')) { end = i; break; }
    }
    if (!selector.slice(end).trim()) return null;
    const head = selector.slice(0, end).replaceAll(':hover', '').trim();
    return head && !/[>+~]$/.test(head) ? head : null;
  };
  const split = (list) => {
    const out = [];
    let depth = 0, start = 0;
    for (let i = 0; i < list.length; i++) {
      const c = list[i];
      if (c === '(' || c === '[') depth++;
      else if (c === ')' || c === ']') depth--;
      else if (c === ',' && depth === 0) { out.push(list.slice(start, i)); start = i + 1; }
    }
    out.push(list.slice(start));
    return out;
  };
  // What the stylesheets say, as [kind, root, selector] entries in rule
  // order (kind 1: hovering its elements reveals, 0: focusing them shows):
  // the scan of every rule is most of this script's time, so it is reused
  // while the stylesheets are the same ones (`sheets` below).
  const scan = (rules, r, entries, seen) => {
    const note = (kind, head) => {
      const key = kind + ' ' + r + ' ' + head;
      if (head && !seen.has(key)) { seen.add(key); entries.push([kind, r, head]); }
    };
    for (const rule of rules) {
      if (rule.cssRules && !rule.selectorText) { scan(rule.cssRules, r, entries, seen); continue; }
      const text = rule.selectorText;
      if (!text || !rule.style) continue;
      const hover = text.includes(':hover');
      const focus = text.includes(':focus') || text.includes(':active');
      if (!hover && !focus) continue;
      let shows = false, moves = false;
      for (let i = 0; i < rule.style.length && !shows; i++) {
        shows = reveals.has(rule.style[i]);
        moves = moves || rule.style[i] === 'position';
      }
      if (focus && (shows || moves)) {
        for (const selector of split(text)) note(0, subject(selector.trim()));
      }
      if (!hover || !shows) continue;
      for (const selector of split(text)) note(1, trigger(selector.trim()));
    }
  };
  const sheetsOf = (root) => [...(root.styleSheets || []), ...(root.adoptedStyleSheets || [])];
  // The stylesheets as they stand: per root, each sheet's rule count, its
  // URL and the length of the text it was parsed from.
  const sheets = JSON.stringify(roots.map((root) => sheetsOf(root).map((sheet) => {
    let rules = -1;
    try { rules = sheet.cssRules.length; } catch (e) {}
    const text = sheet.ownerNode && sheet.ownerNode.tagName === 'STYLE' ? sheet.ownerNode.textContent.length : 0;
    return [rules, sheet.href || '', text];
  })));
  let entries = null, scanned = null;
  if (cached && cached.sheets === sheets) {
    entries = cached.entries;
  } else {
    entries = [];
    const seen = new Set();
    roots.forEach((root, r) => {
      for (const sheet of sheetsOf(root)) {
        let rules = null;
        try { rules = sheet.cssRules; } catch (e) {}
        if (rules) scan(rules, r, entries, seen);
      }
    });
    scanned = JSON.stringify({ sheets, entries });
  }
  let at = 0;
  roots.forEach((root, r) => {
    for (; at < entries.length && entries[at][1] === r; at++) {
      if (hovers.size >= HOVER_LIMIT) return;
      const [kind, , head] = entries[at];
      const found = kind ? hovers : focusables;
      if (found.size >= HOVER_LIMIT) continue;
      try {
        for (const el of root.querySelectorAll(head)) {
          if (found.size >= HOVER_LIMIT) break;
          if (kind || el.tabIndex >= 0) found.add(el);
        }
      } catch (e) {}
    }
    for (const el of root.querySelectorAll('[onmouseover], [onmouseenter]')) {
      if (hovers.size >= HOVER_LIMIT) break;
      hovers.add(el);
    }
  });
  let el = document.activeElement;
  for (;;) {
    if (el && el.shadowRoot && el.shadowRoot.activeElement) { el = el.shadowRoot.activeElement; continue; }
    if (el && (el.tagName === 'IFRAME' || el.tagName === 'FRAME')) {
      let doc = null;
      try { doc = el.contentDocument; } catch (e) {}
      if (doc && doc.activeElement && doc.activeElement !== doc.body) { el = doc.activeElement; continue; }
    }
    break;
  }
  const focused = (el && el !== document.body && el !== document.documentElement) ? el : null;
  return [String(document.title), focused, modals.length, hosts.length, focusables.size, scanned,
    ...modals, ...hosts, ...focusables, ...hovers];
})"#;

/// The properties whose change under `:hover` reveals content (longhands, as
/// a rule's style lists them).
const HOVER_REVEALS: &[&str] = &[
    "display",
    "visibility",
    "opacity",
    "height",
    "max-height",
    "width",
    "max-width",
    "transform",
    "translate",
    "scale",
    "clip",
    "clip-path",
    "left",
    "top",
    "right",
    "bottom",
    "pointer-events",
    "content-visibility",
];

/// The events whose listener makes its element a hover target.
const HOVER_EVENTS: &[&str] = &["mouseenter", "mouseover", "pointerenter", "pointerover"];

/// The events whose listener makes its element a press target, beside the
/// click listeners Chromium reports itself (CDP `isClickable`): what drag
/// libraries (d3-drag, jQuery UI) and custom buttons listen for.
const PRESS_EVENTS: &[&str] = &["mousedown", "pointerdown", "touchstart"];

/// The events whose listener on an element makes it a drop target.
const DROP_EVENTS: &[&str] = &["dragover", "dragenter", "drop"];

/// The index of the facts array's first listed element (past the title,
/// the focused element, the counts and the stylesheet scan).
const FIRST_ELEMENT: usize = 6;

/// The most hover targets (and focus targets) one document reports.
const HOVER_LIMIT: usize = 500;

/// [`FACTS_JS`] with its constants written in.
static FACTS: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    FACTS_JS
        .replace(
            "HOVER_REVEALS",
            &serde_json::Value::from(HOVER_REVEALS).to_string(),
        )
        .replace("HOVER_LIMIT", &HOVER_LIMIT.to_string())
});

/// The facts script's call, as timings and errors name it.
pub(crate) const FACTS_CALL: &str = "page facts (Runtime.evaluate)";
/// The document's listener call.
pub(crate) const LISTENERS_CALL: &str = "DOMDebugger.getEventListeners";
/// The call asking a handle on the document, for the listener call.
pub(crate) const DOCUMENT_CALL: &str = "document (Runtime.evaluate)";

/// Title, focus, modal dialogs and shadow hosts, by backend node id.
#[derive(Default)]
pub(super) struct Facts {
    pub(super) title: String,
    pub(super) focused: Option<i64>,
    pub(super) extras: Extras,
}

impl Capture<'_> {
    /// Runs the facts script and reads the document's listeners (through
    /// `document`, a handle from [`Self::document_handle`]), both sent at once.
    pub(super) async fn facts(
        &self,
        route: &Route,
        group: &str,
        document: Option<&DocumentHandle>,
    ) -> (Result<Facts>, Vec<Call>) {
        let mut calls = Vec::new();
        let result = self.facts_inner(route, group, document, &mut calls).await;
        (result, calls)
    }
    /// Runs the facts script, its array answered deep-serialised: each
    /// element comes with its backend node id, so no call follows it.
    async fn fact_items(
        &self,
        route: &Route,
        group: &str,
        cached: Option<&str>,
    ) -> (Result<Vec<Item>>, Call) {
        let expression = format!("({})({})", FACTS.as_str(), cached.unwrap_or("null"));
        // Depth 1: the array's items; an element's own children and shadow
        // tree are left out.
        let serialization = SerializationOptions {
            serialization: SerializationOptionsSerialization::Deep,
            max_depth: Some(1),
            additional_parameters: Some(serde_json::json!({
                "maxNodeDepth": 0,
                "includeShadowTree": "none",
            })),
        };
        let params = match EvaluateParams::builder()
            .expression(expression)
            .object_group(group)
            .serialization_options(serialization)
            .build()
        {
            Ok(params) => params,
            Err(err) => {
                let call = Call {
                    name: FACTS_CALL,
                    elapsed: std::time::Duration::ZERO,
                };
                return (Err(self.tab.unbuilt("Runtime.evaluate", err)), call);
            }
        };
        let (evaluated, elapsed) = timed(
            self.tab
                .call(FACTS_CALL, route.execute(self.tab.page(), params)),
        )
        .await;
        let call = Call {
            name: FACTS_CALL,
            elapsed,
        };
        let items = evaluated.map_err(Error::from).and_then(|evaluated| {
            let evaluated = evaluated.result;
            if let Some(exception) = &evaluated.exception_details {
                return Err(Error::Script {
                    url: self.tab.url().to_owned(),
                    message: format!("the page facts script: {}", exception.text),
                });
            }
            let value = evaluated
                .result
                .deep_serialized_value
                .and_then(|deep| deep.value)
                .unwrap_or_default();
            serde_json::from_value::<Vec<Item>>(value).map_err(|err| Error::Answer {
                url: self.tab.url().to_owned(),
                message: format!("the page facts script returned no array: {err}"),
            })
        });
        (items, call)
    }

    /// The listeners of the document behind `document` (a handle from
    /// [`Self::document_handle`]) and its tree: `None` when they cannot be
    /// read (they are a hint; an error only when the tab is gone).
    async fn listeners(
        &self,
        route: &Route,
        document: &RemoteObjectId,
    ) -> (Result<Option<Vec<EventListener>>>, Call) {
        let (listeners, elapsed) = match GetEventListenersParams::builder()
            .object_id(document.clone())
            .depth(-1)
            .pierce(true)
            .build()
        {
            Ok(params) => {
                timed(
                    self.tab
                        .call(LISTENERS_CALL, route.execute(self.tab.page(), params)),
                )
                .await
            }
            Err(err) => {
                return (
                    Err(self.tab.unbuilt(LISTENERS_CALL, err)),
                    Call {
                        name: LISTENERS_CALL,
                        elapsed: std::time::Duration::ZERO,
                    },
                );
            }
        };
        let call = Call {
            name: LISTENERS_CALL,
            elapsed,
        };
        let listeners = match listeners {
            Ok(listeners) => Ok(Some(listeners.result.listeners)),
            Err(err) if err.is_gone() => Err(err.into()),
            Err(_) => Ok(None),
        };
        (listeners, call)
    }

    /// A handle on the document `route` leads to, for [`Self::facts`]'
    /// listener call, and whether it was kept from an earlier capture; `None`
    /// when it cannot be had (the listeners are a hint; an error only when the
    /// tab is gone). The tab's own document's handle is asked once per
    /// document and kept; a frame of another site's at every capture, and
    /// released after it; both in no object group. Asked before the
    /// snapshot, so that the listeners and the facts script are sent ahead of
    /// it: the renderer answers in order, and an answer queued behind the
    /// snapshot waits for it and for its megabytes to be read.
    pub(super) async fn document_handle(
        &self,
        route: &Route,
    ) -> (Result<Option<DocumentHandle>>, Option<Call>) {
        let own = *route == Route::TAB;
        let (documents, kept, stale) = self.tab.document();
        // The tab's own, whichever document this capture asks for.
        if let Some(stale) = stale {
            self.tab.release_object(&Route::TAB, stale);
        }
        if let Some(kept) = kept.filter(|_| own) {
            return (
                Ok(Some(DocumentHandle {
                    id: kept,
                    kept: true,
                })),
                None,
            );
        }
        // In no object group: the listener call wraps each listener's
        // handler functions (with their source text as descriptions) into
        // the group of the handle it is given; in the tab's kept group they
        // would pile up, a pair per listener at every capture, for as long as
        // the document lives. Without a group the answer names each
        // listener's node and no handler. A frame's handle is released after
        // its capture ([`Self::release_frame_document`]).
        let params = match EvaluateParams::builder().expression("document").build() {
            Ok(params) => params,
            Err(err) => return (Err(self.tab.unbuilt("Runtime.evaluate", err)), None),
        };
        let (evaluated, elapsed) = timed(
            self.tab
                .call(DOCUMENT_CALL, route.execute(self.tab.page(), params)),
        )
        .await;
        let call = Call {
            name: DOCUMENT_CALL,
            elapsed,
        };
        let handle = match evaluated {
            Ok(evaluated) => evaluated.result.result.object_id,
            Err(err) if err.is_gone() => return (Err(err.into()), Some(call)),
            Err(_) => None,
        };
        if own && let Some(handle) = &handle {
            self.tab.keep_document(documents, handle.clone());
        }
        (
            Ok(handle.map(|id| DocumentHandle { id, kept: false })),
            Some(call),
        )
    }

    /// Releases the document handle of a frame of another site, asked for
    /// one capture ([`Self::document_handle`]); the tab's own is kept.
    pub(super) fn release_frame_document(&self, route: &Route, document: Option<DocumentHandle>) {
        if let Some(document) = document.filter(|_| *route != Route::TAB) {
            self.tab.release_object(route, document.id);
        }
    }

    /// [`Self::facts`], its calls noted in `calls` as they end. The
    /// listeners and the facts script are sent together, on this future's
    /// first poll.
    async fn facts_inner(
        &self,
        route: &Route,
        group: &str,
        document: Option<&DocumentHandle>,
        calls: &mut Vec<Call>,
    ) -> Result<Facts> {
        // The tab's own document reuses its stylesheet scan while it shows
        // the same document; a frame of another site (its own process)
        // scans every time.
        let own = *route == Route::TAB;
        let (documents, kept) = self.tab.sheet_scan();
        let cached = kept.filter(|_| own);
        let listeners = async { Some(self.listeners(route, &document?.id).await) };
        let ((items, facts_call), listeners) =
            tokio::join!(self.fact_items(route, group, cached.as_deref()), listeners);
        calls.push(facts_call);
        let mut listeners = match listeners {
            Some((listeners, call)) => {
                calls.push(call);
                listeners?
            }
            None => None,
        };
        // A kept handle that no longer answers (its document replaced before
        // the tab heard of it) is forgotten and asked again, once.
        if listeners.is_none() && document.is_some_and(|document| document.kept) {
            self.tab.forget_document();
            let (handle, call) = self.document_handle(route).await;
            calls.extend(call);
            if let Some(handle) = handle? {
                let (again, call) = self.listeners(route, &handle.id).await;
                calls.push(call);
                listeners = again?;
            }
        }
        let items = items?;
        let mut facts = Facts {
            title: items
                .first()
                .and_then(Item::string)
                .unwrap_or_default()
                .to_owned(),
            ..Facts::default()
        };
        if own && let Some(scan) = items.get(5).and_then(Item::string) {
            self.tab.keep_sheet_scan(documents, scan.to_owned());
        }
        note_listeners(&mut facts.extras, listeners.as_deref().unwrap_or_default());
        let count = |k: usize| items.get(k).and_then(Item::count).unwrap_or(0);
        let (modals, hosts, focus) = (count(2), count(3), count(4));
        // An element met twice in the array (a focus target that is also a
        // hover target) is serialised once; its other places name it by
        // reference.
        let referenced: HashMap<i64, i64> = items
            .iter()
            .filter_map(|item| Some((item.reference?, item.backend()?)))
            .collect();
        let backend = |item: &Item| {
            item.backend()
                .or_else(|| referenced.get(&item.reference?).copied())
        };
        facts.focused = items.get(1).and_then(backend);
        for (k, item) in items.iter().enumerate().skip(FIRST_ELEMENT) {
            let Some(backend) = backend(item) else {
                continue;
            };
            let set = match k - FIRST_ELEMENT {
                k if k < modals => &mut facts.extras.modal,
                k if k < modals + hosts => &mut facts.extras.hosts,
                k if k < modals + hosts + focus => &mut facts.extras.focus,
                _ => &mut facts.extras.hover,
            };
            set.insert(backend);
        }
        Ok(facts)
    }
}

/// A handle on a document, for its listener call.
pub(super) struct DocumentHandle {
    id: RemoteObjectId,
    /// Kept from an earlier capture of the same document (asked again when
    /// it no longer answers).
    kept: bool,
}

/// One item of the facts script's array, deep-serialised.
#[derive(Debug, serde::Deserialize)]
struct Item {
    /// `string`, `number`, `null`, `node`, ….
    #[serde(rename = "type")]
    kind: String,
    /// A string's or number's value; a node's description (with its
    /// `backendNodeId`), absent where the node was serialised before.
    #[serde(default)]
    value: Option<serde_json::Value>,
    /// Names a value met more than once in the array.
    #[serde(rename = "weakLocalObjectReference", default)]
    reference: Option<i64>,
}

impl Item {
    fn string(&self) -> Option<&str> {
        self.value.as_ref()?.as_str()
    }

    fn count(&self) -> Option<usize> {
        usize::try_from(self.value.as_ref()?.as_u64()?).ok()
    }

    /// A node's backend id, when this place holds its description.
    fn backend(&self) -> Option<i64> {
        if self.kind != "node" {
            return None;
        }
        self.value.as_ref()?.get("backendNodeId")?.as_i64()
    }
}

/// Notes the hover, press and drop targets among the elements `listeners`
/// listen on.
fn note_listeners(extras: &mut Extras, listeners: &[EventListener]) {
    for listener in listeners {
        let Some(node) = listener.backend_node_id else {
            continue;
        };
        let kind = listener.r#type.as_str();
        if HOVER_EVENTS.contains(&kind) {
            extras.hover.insert(*node.inner());
        } else if PRESS_EVENTS.contains(&kind) {
            extras.pressable.insert(*node.inner());
        } else if DROP_EVENTS.contains(&kind) {
            extras.droppable.insert(*node.inner());
        }
    }
}
