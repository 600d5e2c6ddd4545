//! The decisions shared by every strategy for one observation: which nodes get refs, which refs are new, what is in scope, what is secret.

use std::borrow::Cow;
use std::cell::{Cell, OnceCell};
use std::collections::BTreeMap;

use super::layers::layer_scope;
use super::redact::{Hidden, Kind, Place, Redacted};
use super::{ObserveError, Options, redact, refs};
use crate::analyze::{Analysis, Analyzed};
use crate::page::{Node, NodeId, Page};

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
    /// Whether text no person can see is shown ([`Options::show_hidden`]).
    pub show_hidden: bool,
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
    redactions: Cell<Redacted>,
    /// Text nodes holding part of a secret that runs across nodes, as
    /// redacted (see [`redact::joined_secrets`]); computed on first use.
    joined: OnceCell<BTreeMap<NodeId, (String, Vec<Hidden>)>>,
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
            show_hidden: options.show_hidden,
            targets,
            ref_of,
            in_scope,
            secret,
            heading_before,
            redactions: Cell::new(Redacted::default()),
            joined: OnceCell::new(),
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

    /// The nearest visible heading without a ref before the node in document
    /// order (the chain item contexts follow).
    pub fn heading_before(&self, id: NodeId) -> Option<NodeId> {
        self.heading_before[id.index()]
    }

    /// Whether the node is inside the active layers.
    pub fn in_scope(&self, id: NodeId) -> bool {
        self.in_scope[id.index()]
    }

    /// Whether the node's value is secret (password, card number, token, …).
    pub fn is_secret(&self, id: NodeId) -> bool {
        self.redact && self.secret[id.index()]
    }

    /// The secrets the node shows as painted: a secret field's value, or
    /// the secret-looking runs of a text (what a screenshot must hide).
    pub fn secrets_shown(&self, id: NodeId) -> Vec<Hidden> {
        let mut out = Vec::new();
        match self.page.node(id) {
            Node::Element(_) if self.is_secret(id) => {
                let value = self.analysis.states[id.index()].value.as_deref();
                if let Some(value) = value.filter(|v| !v.is_empty()) {
                    out.push(Hidden {
                        kind: Kind::Field,
                        place: Place::Field,
                        original: value.to_owned(),
                    });
                }
            }
            Node::Text(text) => {
                redact::redact_each(text, Place::Text, &mut |original, kind, place| {
                    out.push(Hidden {
                        kind,
                        place,
                        original: original.to_owned(),
                    });
                });
            }
            _ => {}
        }
        out
    }

    /// Counts one value hidden (and shows it to a running
    /// [`redact::audit`]).
    fn hide(&self, kind: Kind, place: Place, original: &str) {
        let mut redactions = self.redactions.get();
        redactions.add(kind);
        self.redactions.set(redactions);
        redact::note(kind, place, original);
    }

    /// [`redact::redact_each`], each secret counted; a secret in plain
    /// text is said to be in `plain` (a name, an attribute, text).
    fn redact_shown<'t>(&self, text: &'t str, plain: Place) -> Cow<'t, str> {
        redact::redact_each(text, plain, &mut |original, kind, place| {
            self.hide(kind, place, original);
        })
    }

    /// Text as shown: secret-looking substrings replaced by `[redacted]` (counted).
    pub fn text(&self, text: &str) -> String {
        if !self.redact {
            return text.to_owned();
        }
        self.redact_shown(text, Place::Text).into_owned()
    }

    /// Text shown a second time (an item's context in meta, which repeats
    /// what the text shows): redacted, not counted again.
    pub fn text_again(&self, text: String) -> String {
        if !self.redact {
            return text;
        }
        match redact::redact_each(&text, Place::Text, &mut |original, kind, place| {
            redact::note(kind, place, original);
        }) {
            Cow::Borrowed(_) => text,
            Cow::Owned(redacted) => redacted,
        }
    }

    /// [`Context::text`] of a text the caller owns: returned as it is when
    /// nothing in it is redacted, without a copy.
    pub fn text_owned(&self, text: String) -> String {
        if !self.redact {
            return text;
        }
        let out = self.redact_shown(&text, Place::Text);
        let redacted = match out {
            Cow::Borrowed(_) => None,
            Cow::Owned(redacted) => Some(redacted),
        };
        redacted.unwrap_or(text)
    }

    /// A text node's text before per-text redaction: the page's, or, where
    /// a secret runs across this node and its inline neighbours, the text
    /// with that secret cut out (counted once, where it starts). Strategies
    /// that print text node by node take text from here.
    pub fn text_of(&self, id: NodeId, raw: &'p str) -> Cow<'p, str> {
        if !self.redact {
            return Cow::Borrowed(raw);
        }
        let joined = self
            .joined
            .get_or_init(|| redact::joined_secrets(self.page, self.analysis));
        match joined.get(&id) {
            Some((text, starts)) => {
                for hidden in starts {
                    self.hide(hidden.kind, hidden.place, &hidden.original);
                }
                Cow::Owned(text.clone())
            }
            None => Cow::Borrowed(raw),
        }
    }

    /// Code as shown (an inline `<script>` or `<style>`): credentials by
    /// their shape and quoted values assigned to secret keys replaced by
    /// `[redacted]` (counted); random-looking strings in code are data.
    pub fn code<'t>(&self, code: &'t str) -> Cow<'t, str> {
        if !self.redact {
            return Cow::Borrowed(code);
        }
        match self.redact_shown(code, Place::Code) {
            Cow::Borrowed(code) => self.assignments(code),
            Cow::Owned(shown) => Cow::Owned(self.assignments(&shown).into_owned()),
        }
    }

    /// Quoted values assigned to secret keys replaced by `[redacted]`
    /// (counted).
    pub fn assignments<'t>(&self, code: &'t str) -> Cow<'t, str> {
        if !self.redact {
            return Cow::Borrowed(code);
        }
        redact::redact_assignments_each(code, &mut |original| {
            self.hide(Kind::Assignment, Place::Code, original);
        })
    }

    /// A node's current value as shown: `[redacted]` for secret fields.
    pub fn value(&self, id: NodeId) -> Option<String> {
        let value = self.analysis.states[id.index()].value.clone()?;
        if value.is_empty() {
            return Some(value);
        }
        if self.is_secret(id) {
            self.hide(Kind::Field, Place::Field, &value);
            return Some(redact::REDACTED.to_owned());
        }
        Some(self.text(&value))
    }

    /// An attribute value as shown (`value` of secret fields redacted).
    pub fn attr(&self, id: NodeId, name: &str) -> Option<String> {
        let element = self.page.element(id)?;
        let value = element.attr(name)?;
        if name.eq_ignore_ascii_case("value") && self.is_secret(id) && !value.is_empty() {
            self.hide(Kind::Field, Place::Field, value);
            return Some(redact::REDACTED.to_owned());
        }
        // `<meta name="csrf-token" content="…">` and its kin.
        if self.redact
            && name.eq_ignore_ascii_case("content")
            && element.is("meta")
            && !value.is_empty()
            && redact::is_secret_meta(|key| element.attr(key))
        {
            self.hide(Kind::Meta, Place::Attribute, value);
            return Some(redact::REDACTED.to_owned());
        }
        if !self.redact {
            return Some(value.to_owned());
        }
        // An attribute named for a secret (`data-api-key`, `nonce`) holds one.
        if redact::attribute_holds_secret(name, value) {
            self.hide(Kind::KeyValue, Place::Attribute, value);
            return Some(redact::REDACTED.to_owned());
        }
        Some(self.redact_shown(value, Place::Attribute).into_owned())
    }

    /// Counts redactions made outside the text helpers (masked pixels).
    pub fn count_redactions(&self, hidden: &[Hidden]) {
        for hidden in hidden {
            self.hide(hidden.kind, hidden.place, &hidden.original);
        }
    }

    /// Redactions made so far, by kind.
    pub fn redactions(&self) -> Redacted {
        self.redactions.get()
    }

    /// [`Context::name`] borrowed from the analysis when nothing in it is
    /// redacted.
    pub fn name_ref(&self, id: NodeId) -> Cow<'p, str> {
        let Some(name) = self.analysis.name(id) else {
            return Cow::Borrowed("");
        };
        if !self.redact {
            return Cow::Borrowed(&name.text);
        }
        self.redact_shown(&name.text, Place::Name)
    }

    /// The accessible name as shown.
    pub fn name(&self, id: NodeId) -> String {
        self.name_ref(id).into_owned()
    }
}
