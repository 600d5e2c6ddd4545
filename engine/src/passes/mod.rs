//! Passes shared by every strategy: scope and layers, stable refs and new marks, redaction, viewport context, budget.
//!
//! [`Context::new`] runs the passes that decide *what* is shown (which nodes
//! get refs, which refs are new, what is secret); strategies then render
//! from the context and never re-derive those decisions.

pub mod budget;
pub mod redact;
pub mod refs;
pub mod viewport;

use std::borrow::Cow;
use std::cell::Cell;

use crate::analyze::{Analysis, Analyzed, ModalKind, NameSource, Strength};
use crate::observation::{Counts, Honesty, Item, Meta, ModalMeta, Observation, ViewportMeta};
use crate::page::{Node, NodeId, Page, Selector};

/// A named set of selectors (aimount layers): observations can be limited to
/// the subtrees the selectors match.
#[derive(Clone, Debug)]
pub struct Layer {
    /// The layer id callers use.
    pub name: String,
    /// CSS selectors of the layer's roots.
    pub selectors: Vec<String>,
}

/// Options every strategy honours.
#[derive(Clone, Debug)]
pub struct Options<'a> {
    /// `Some(true)`: whole page; `Some(false)`: viewport only; `None`: the strategy's default.
    pub full_page: Option<bool>,
    /// Token budget for the text; content is dropped least-useful first, with a notice.
    pub max_tokens: Option<usize>,
    /// Configured layers.
    pub layers: Vec<Layer>,
    /// Layer ids to show (empty: the whole page). Unknown ids are an error.
    pub active_layers: Vec<String>,
    /// The previous observation of the same page (stable refs, new marks).
    pub previous: Option<&'a Observation>,
    /// Replace secrets by `[redacted]` (on by default).
    pub redact: bool,
    /// The recording's viewport PNG (for `som`).
    pub screenshot: Option<&'a [u8]>,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Options {
            full_page: None,
            max_tokens: None,
            layers: Vec::new(),
            active_layers: Vec::new(),
            previous: None,
            redact: true,
            screenshot: None,
        }
    }
}

/// Why an observation could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ObserveError {
    /// A layer id that is not configured.
    #[error("unknown layer {name:?} (configured: {known})")]
    UnknownLayer {
        /// The id asked for.
        name: String,
        /// The configured ids, comma-separated.
        known: String,
    },
    /// A layer selector that does not parse.
    #[error("layer {layer:?}: {source}")]
    LayerSelector {
        /// The layer.
        layer: String,
        /// The parse error.
        #[source]
        source: crate::page::SelectorError,
    },
    /// The strategy needs a screenshot and none was given.
    #[error("the {strategy} strategy needs the recording's screenshot (<name>.png)")]
    MissingScreenshot {
        /// Strategy name.
        strategy: &'static str,
    },
    /// The screenshot could not be decoded or encoded.
    #[error("screenshot: {0}")]
    Image(String),
}

/// One node that gets a ref.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    /// The node.
    pub id: NodeId,
    /// Its ref number (stable across observations of one page).
    pub number: u32,
    /// New since the previous observation.
    pub new: bool,
}

/// The decisions shared by every strategy for one observation.
pub struct Context<'p> {
    /// The page.
    pub page: &'p Page,
    /// Its analysis.
    pub analysis: &'p Analysis,
    /// Whole page (true) or viewport only.
    pub full_page: bool,
    /// Whether redaction is on.
    pub redact: bool,
    /// Nodes with refs, in document order.
    pub targets: Vec<Target>,
    /// Ref number per node (0: none).
    ref_of: Vec<u32>,
    /// Per node: inside the active layers (all true without layers).
    in_scope: Vec<bool>,
    /// Per node: a secret field whose value must never be shown.
    secret: Vec<bool>,
    /// Per node: the nearest visible heading without a ref before it in
    /// document order (the chain item contexts follow).
    heading_before: Vec<Option<NodeId>>,
    redactions: Cell<usize>,
}

impl<'p> Context<'p> {
    /// Runs scope, layers, refs and redaction decisions.
    pub fn new(
        analyzed: &'p Analyzed,
        options: &Options<'_>,
        full_page_default: bool,
    ) -> Result<Context<'p>, ObserveError> {
        let page = analyzed.page();
        let analysis = analyzed.analysis();
        let full_page = options.full_page.unwrap_or(full_page_default);
        let in_scope = layer_scope(page, options)?;
        let mut candidates = Vec::new();
        for id in page.ids() {
            let i = id.index();
            if in_scope[i]
                && analysis.is_actionable(id)
                && (full_page || analysis.visibility[i].in_viewport)
            {
                candidates.push(id);
            }
        }
        let targets = refs::assign(page, analysis, &candidates, options.previous);
        let mut ref_of = vec![0; page.len()];
        for target in &targets {
            ref_of[target.id.index()] = target.number;
        }
        let secret = redact::secret_fields(page, analysis);
        let mut heading_before = Vec::with_capacity(page.len());
        let mut last = None;
        for id in page.ids() {
            heading_before.push(last);
            let i = id.index();
            if ref_of[i] == 0
                && page.element(id).is_some()
                && analysis.role(id) == Some("heading")
                && analysis.visibility[i].is_visible()
            {
                last = Some(id);
            }
        }
        Ok(Context {
            page,
            analysis,
            full_page,
            redact: options.redact,
            targets,
            ref_of,
            in_scope,
            secret,
            heading_before,
            redactions: Cell::new(0),
        })
    }

    /// The node's ref number, if it has one.
    pub fn ref_number(&self, id: NodeId) -> Option<u32> {
        match self.ref_of[id.index()] {
            0 => None,
            n => Some(n),
        }
    }

    /// Whether the node is new since the previous observation.
    pub fn is_new(&self, id: NodeId) -> bool {
        // Targets are in document order (see `targets`): a binary search keeps
        // strategies that ask per node linear overall.
        self.targets
            .binary_search_by_key(&id, |t| t.id)
            .is_ok_and(|i| self.targets[i].new)
    }

    /// Whether the node is inside the active layers.
    pub fn in_scope(&self, id: NodeId) -> bool {
        self.in_scope[id.index()]
    }

    /// Whether the node's value is secret (password, card number, token, …).
    pub fn is_secret(&self, id: NodeId) -> bool {
        self.redact && self.secret[id.index()]
    }

    /// Whether the node, as painted, shows a secret: a secret field holding a
    /// value, or text with a secret-looking run (what a screenshot must hide).
    pub fn shows_secret(&self, id: NodeId) -> bool {
        match self.page.node(id) {
            Node::Element(_) => {
                self.is_secret(id)
                    && self.analysis.states[id.index()]
                        .value
                        .as_deref()
                        .is_some_and(|v| !v.is_empty())
            }
            Node::Text(text) => redact::redact(text).1 > 0,
            _ => false,
        }
    }

    /// Text as shown: secret-looking substrings replaced by `[redacted]` (counted).
    pub fn text(&self, text: &str) -> String {
        if !self.redact {
            return text.to_owned();
        }
        let (out, n) = redact::redact(text);
        self.redactions.set(self.redactions.get() + n);
        out.into_owned()
    }

    /// A node's current value as shown: `[redacted]` for secret fields.
    pub fn value(&self, id: NodeId) -> Option<String> {
        let value = self.analysis.states[id.index()].value.clone()?;
        if value.is_empty() {
            return Some(value);
        }
        if self.is_secret(id) {
            self.redactions.set(self.redactions.get() + 1);
            return Some(redact::REDACTED.to_owned());
        }
        Some(self.text(&value))
    }

    /// An attribute value as shown (`value` of secret fields redacted).
    pub fn attr(&self, id: NodeId, name: &str) -> Option<String> {
        let element = self.page.element(id)?;
        let value = element.attr(name)?;
        if name.eq_ignore_ascii_case("value") && self.is_secret(id) && !value.is_empty() {
            self.redactions.set(self.redactions.get() + 1);
            return Some(redact::REDACTED.to_owned());
        }
        Some(self.text(value))
    }

    /// Counts a redaction made outside the text helpers (e.g. masked pixels).
    pub fn count_redaction(&self) {
        self.redactions.set(self.redactions.get() + 1);
    }

    /// Redactions made so far.
    pub fn redactions(&self) -> usize {
        self.redactions.get()
    }

    /// The accessible name as shown.
    pub fn name(&self, id: NodeId) -> String {
        self.analysis
            .name(id)
            .map(|n| self.text(&n.text))
            .unwrap_or_default()
    }

    /// The printed states of a node (`disabled`, `checked`, `level=2`, …).
    pub fn state_words(&self, id: NodeId) -> Vec<String> {
        let s = &self.analysis.states[id.index()];
        let mut out = Vec::new();
        use crate::analyze::Checked;
        match s.checked {
            Some(Checked::True) => out.push("checked".to_owned()),
            Some(Checked::Mixed) => out.push("checked=mixed".to_owned()),
            _ => {}
        }
        if s.disabled {
            out.push("disabled".to_owned());
        }
        if let Some(expanded) = s.expanded {
            out.push(if expanded { "expanded" } else { "collapsed" }.to_owned());
        }
        if let Some(level) = s.level {
            out.push(format!("level={level}"));
        }
        match s.pressed {
            Some(Checked::True) => out.push("pressed".to_owned()),
            Some(Checked::Mixed) => out.push("pressed=mixed".to_owned()),
            _ => {}
        }
        if s.selected == Some(true) {
            out.push("selected".to_owned());
        }
        if s.required {
            out.push("required".to_owned());
        }
        if s.readonly {
            out.push("readonly".to_owned());
        }
        if s.invalid.is_some() {
            out.push("invalid".to_owned());
        }
        if s.focused {
            out.push("focused".to_owned());
        }
        out
    }

    /// The meta item of a target, with its ref printed by `format_ref`.
    pub fn item(&self, target: &Target, reference: String) -> Item {
        let id = target.id;
        let analysis = self.analysis;
        let name = analysis.name(id);
        let bounds = self.page.layout(id).bounds;
        Item {
            reference,
            node: id.index(),
            backend_id: self.page.layout(id).backend_id,
            role: analysis.role(id).unwrap_or("generic").to_owned(),
            name: self.name(id),
            name_source: name_source_word(name.map_or(NameSource::Unknown, |n| n.source))
                .to_owned(),
            name_status: strength_word(name.map_or(Strength::Unknown, |n| n.strength)).to_owned(),
            zone: viewport::zone(self.page, bounds).to_owned(),
            bounds,
            states: self.state_words(id),
            new: target.new,
            context: self.context(id),
        }
    }

    /// Nearby text of a node: the nearest preceding heading, then (for a
    /// nameless node) its first words, then the last words of the visible
    /// text just before it, stopping at the previous ref'd control (whose
    /// text is its own). The walk back is bounded by [`CONTEXT_NODES`] and
    /// the words by [`CONTEXT_WORDS`], so pages with many refs and long
    /// texts stay linear; redacted like all shown text, not counted.
    fn context(&self, id: NodeId) -> String {
        let analysis = self.analysis;
        let first = id.index().saturating_sub(CONTEXT_NODES);
        // The nearest heading before the node that is not one of its ancestors.
        let mut heading_at = self.heading_before[id.index()];
        while let Some(h) = heading_at.filter(|&h| self.page.contains(h, id)) {
            heading_at = self.heading_before[h.index()];
        }
        let heading_at = heading_at.filter(|h| h.index() >= first);
        let heading = heading_at
            .and_then(|h| analysis.name(h))
            .map(|n| n.text.clone())
            .unwrap_or_default();
        let mut before: Vec<String> = Vec::new();
        let mut words = 0;
        // Text after the heading only: its own text is the heading.
        let stop = heading_at.map_or(first, |h| self.page.subtree_end(h).index());
        for i in (stop..id.index()).rev() {
            if words >= CONTEXT_WORDS {
                break;
            }
            let node = NodeId::from_index(i);
            if self.page.contains(node, id) {
                continue;
            }
            match self.page.node(node) {
                Node::Text(text) => {
                    let parent = self.page.parent(node);
                    if parent.is_some_and(|p| self.ref_of[p.index()] != 0) {
                        break;
                    }
                    let visible =
                        parent.is_some_and(|p| analysis.visibility[p.index()].is_visible());
                    if visible {
                        // The words nearest the node: the end of this text.
                        let mut last: Vec<&str> = text
                            .split_whitespace()
                            .rev()
                            .take(CONTEXT_WORDS - words)
                            .collect();
                        if !last.is_empty() {
                            words += last.len();
                            last.reverse();
                            before.push(last.join(" "));
                        }
                    }
                }
                Node::Element(_) if self.ref_of[i] != 0 => break,
                _ => {}
            }
        }
        before.reverse();
        let mut text = before.join(" ");
        if analysis.name(id).is_none_or(|n| n.text.trim().is_empty()) {
            // A nameless control (clickable div, icon button): its own text is
            // what every strategy prints for it.
            // Read only as far as the words kept: once a word follows them,
            // later text cannot change them.
            let mut own = String::new();
            for piece in self.page.texts(id) {
                own.push_str(piece);
                if own.split_whitespace().nth(CONTEXT_WORDS).is_some() {
                    break;
                }
            }
            let own: Vec<&str> = own.split_whitespace().take(CONTEXT_WORDS).collect();
            if !own.is_empty() {
                text = if text.is_empty() {
                    own.join(" ")
                } else {
                    format!("{} {text}", own.join(" "))
                };
            }
        }
        let mut out = heading;
        if !text.is_empty() {
            if !out.is_empty() {
                out.push_str(" | ");
            }
            out.push_str(&text);
        }
        if self.redact {
            match redact::redact(&out).0 {
                Cow::Borrowed(_) => out,
                Cow::Owned(redacted) => redacted,
            }
        } else {
            out
        }
    }

    /// Assembles a text-only observation: refs printed by `print` in target
    /// order, the shared meta, and how many lines the budget dropped.
    pub fn text_observation(
        &self,
        strategy: &str,
        options: &Options<'_>,
        text: String,
        dropped: usize,
        print: impl Fn(u32) -> String,
    ) -> Observation {
        let refs: Vec<(String, NodeId)> = self
            .targets
            .iter()
            .map(|t| (print(t.number), t.id))
            .collect();
        let printed: Vec<String> = refs.iter().map(|(r, _)| r.clone()).collect();
        let mut meta = self.meta(strategy, options, &printed);
        meta.counts.truncated = dropped;
        Observation {
            text,
            image: None,
            refs,
            meta,
        }
    }

    /// Meta shared by every strategy; `refs` are the printed refs in target order.
    pub fn meta(&self, strategy: &str, options: &Options<'_>, refs: &[String]) -> Meta {
        let analysis = self.analysis;
        let position = analysis.position;
        let items: Vec<Item> = self
            .targets
            .iter()
            .zip(refs)
            .map(|(target, reference)| self.item(target, reference.clone()))
            .collect();
        let mut counts = Counts {
            interactive: items.len(),
            weak: items.iter().filter(|i| i.name_status == "weak").count(),
            unknown: items.iter().filter(|i| i.name_status == "unknown").count(),
            redacted: self.redactions(),
            ..Counts::default()
        };
        for id in self.page.ids() {
            let i = id.index();
            if analysis.interactive[i].is_none()
                || !analysis.visibility[i].is_visible()
                || !self.in_scope[i]
            {
                continue;
            }
            if analysis.obscured[i] {
                counts.obscured += 1;
            } else if !analysis.visibility[i].in_viewport && !analysis.occluded[i] {
                counts.offscreen += 1;
            }
        }
        let mut warnings = Vec::new();
        if analysis.modal.kind == ModalKind::Suspected {
            warnings.push("an overlay may cover the page".to_owned());
        }
        Meta {
            strategy: strategy.to_owned(),
            snapshot_id: snapshot_id(self.page, strategy, options),
            viewport: ViewportMeta {
                scroll_y: position.scroll_y,
                doc_height: position.doc_height,
                viewport_height: position.viewport_height,
                pages_above: position.pages_above,
                pages_below: position.pages_below,
                at_top: position.at_top,
                at_bottom: position.at_bottom,
            },
            modal: ModalMeta {
                kind: match analysis.modal.kind {
                    ModalKind::None => "none",
                    ModalKind::Reliable => "reliable",
                    ModalKind::Suspected => "suspected",
                }
                .to_owned(),
                node: analysis.modal.node.map(NodeId::index),
            },
            observation: honesty(&counts),
            counts,
            items,
            image: None,
            warnings,
        }
    }
}

/// aimount's `exactUiClaims`: `safe` when at most 10% of the refs are weakly
/// named and none is unnamed; `unsafe` when more than half are weak or
/// unnamed, or more than 25% unnamed; `partial` otherwise.
pub fn honesty(counts: &Counts) -> Honesty {
    let total = counts.interactive;
    let weak_or_unknown = counts.weak + counts.unknown;
    let claims = if total == 0 {
        "unsafe"
    } else if counts.unknown == 0 && counts.weak * 10 <= total {
        "safe"
    } else if weak_or_unknown * 2 > total || counts.unknown * 4 > total {
        "unsafe"
    } else {
        "partial"
    };
    Honesty {
        total_interactive: total,
        weak_interactive: counts.weak,
        unknown_interactive: counts.unknown,
        exact_ui_claims: claims.to_owned(),
    }
}

/// Nodes walked back from an item to find its context.
const CONTEXT_NODES: usize = 400;
/// Words of preceding text kept in an item's context.
const CONTEXT_WORDS: usize = 12;

/// The word for a name source in meta and text.
pub fn name_source_word(source: NameSource) -> &'static str {
    match source {
        NameSource::Text => "text",
        NameSource::AriaLabel => "aria-label",
        NameSource::AriaLabelledby => "aria-labelledby",
        NameSource::Label => "label",
        NameSource::Title => "title",
        NameSource::Placeholder => "placeholder",
        NameSource::Alt => "alt",
        NameSource::Value => "value",
        NameSource::Unknown => "unknown",
    }
}

/// The word for a name strength.
pub fn strength_word(strength: Strength) -> &'static str {
    match strength {
        Strength::Strong => "strong",
        Strength::Weak => "weak",
        Strength::Unknown => "unknown",
    }
}

fn layer_scope(page: &Page, options: &Options<'_>) -> Result<Vec<bool>, ObserveError> {
    if options.active_layers.is_empty() {
        return Ok(vec![true; page.len()]);
    }
    let mut scope = vec![false; page.len()];
    for name in &options.active_layers {
        let Some(layer) = options.layers.iter().find(|l| &l.name == name) else {
            let known: Vec<&str> = options.layers.iter().map(|l| l.name.as_str()).collect();
            return Err(ObserveError::UnknownLayer {
                name: name.clone(),
                known: if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                },
            });
        };
        for source in &layer.selectors {
            let selector =
                Selector::parse(source).map_err(|source| ObserveError::LayerSelector {
                    layer: layer.name.clone(),
                    source,
                })?;
            for root in page.select(&selector) {
                for id in page.subtree(root.id()) {
                    scope[id.index()] = true;
                }
            }
        }
    }
    Ok(scope)
}

/// FNV-1a over the page's content and the options: equal ids mean the same
/// input, so the same observation.
fn snapshot_id(page: &Page, strategy: &str, options: &Options<'_>) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for &b in bytes {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        hash ^= 0xff;
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    };
    feed(strategy.as_bytes());
    feed(page.url.as_bytes());
    feed(&page.scroll.y.to_le_bytes());
    for id in page.ids() {
        match page.node(id) {
            Node::Element(e) => {
                feed(e.name.as_bytes());
                for (k, v) in e.attrs.iter() {
                    feed(k.as_bytes());
                    feed(v.as_bytes());
                }
            }
            Node::Text(t) => feed(t.as_bytes()),
            _ => feed(b"#"),
        }
        let layout = page.layout(id);
        if let Some(b) = layout.bounds {
            feed(&b.x.to_le_bytes());
            feed(&b.y.to_le_bytes());
        }
        if let Some(v) = &layout.value {
            feed(v.as_bytes());
        }
        if let Some(c) = layout.checked {
            feed(&[u8::from(c)]);
        }
    }
    feed(
        format!(
            "{:?}|{:?}|{:?}|{}",
            options.full_page, options.max_tokens, options.active_layers, options.redact
        )
        .as_bytes(),
    );
    if let Some(previous) = options.previous {
        feed(previous.meta.snapshot_id.as_bytes());
    }
    format!("{hash:016x}")
}
