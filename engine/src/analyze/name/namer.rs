//! The accname traversal: the `Namer` that walks a page for names, descriptions and content.

use super::{
    AccName, NameSource, contributes_content, flatten, hidden_by_attributes, is_never_rendered,
    names_from_content, strength,
};
use crate::analyze::dom::Dom;
use crate::analyze::visibility::Hidden;
use crate::analyze::{Role, Visibility};
use crate::page::{Node, NodeId, Page, ShadowMode};

/// Why the current node is being visited (accname 1.2 "traversal" context).
#[derive(Clone, Copy, Default)]
pub(super) struct Opts {
    /// The node whose name is computed (`Some(true)`) or one of its
    /// descendants in a name-from-content walk (`Some(false)`).
    pub(super) target: Option<bool>,
    /// Inside an `aria-labelledby` traversal; the flag says whether the
    /// directly referenced node was hidden.
    pub(super) labelledby: Option<bool>,
    /// Inside an `aria-describedby` traversal.
    pub(super) describedby: Option<bool>,
    /// Inside a `<label>` of the target.
    pub(super) label: Option<bool>,
    /// Inside a native text alternative element (`legend`, `caption`, …).
    pub(super) native: Option<bool>,
}

impl Opts {
    fn hidden_root(self) -> bool {
        [self.labelledby, self.describedby, self.label, self.native].contains(&Some(true))
    }

    fn is_descendant(self) -> bool {
        self.target == Some(false)
    }

    /// A name-from-content walk below the target and nothing else: what
    /// such a walk reads depends only on the subtree.
    fn is_plain_descendant(self) -> bool {
        self.is_descendant()
            && self.labelledby.is_none()
            && self.describedby.is_none()
            && self.label.is_none()
            && self.native.is_none()
    }

    pub(super) fn child(self) -> Opts {
        Opts {
            target: self.target.map(|_| false),
            ..self
        }
    }

    fn embedded(self) -> bool {
        self.label.is_some() || self.labelledby.is_some() || self.is_descendant()
    }
}

/// The winning step of a computation.
#[derive(Clone, Copy)]
pub(super) struct Found {
    pub(super) source: NameSource,
    /// A user-agent default, not author text.
    pub(super) fallback: bool,
}

impl Found {
    pub(super) const fn new(source: NameSource) -> Found {
        Found {
            source,
            fallback: false,
        }
    }
}

pub(super) const NONE_FOUND: Found = Found::new(NameSource::Unknown);

pub(super) struct Namer<'a> {
    pub(super) page: &'a Page,
    pub(super) roles: &'a [Option<Role>],
    /// Hidden for the text alternative computation (accname 2A): not
    /// rendered, `visibility: hidden`, `hidden`, `aria-hidden`.
    hidden: Vec<bool>,
    /// Hidden by `visibility: hidden` alone: a descendant may show again.
    invisible: Vec<bool>,
    /// The nearest table-like ancestor is a `grid`/`treegrid` (rows there
    /// are named from content, as in Chromium).
    in_grid: Vec<bool>,
    /// Trees, ids and labels.
    pub(super) dom: &'a Dom,
    /// Visit stamps: `visited[i] == stamp` when node `i` was visited during
    /// the current top-level computation (accname loop protection).
    visited: Vec<u32>,
    stamp: u32,
    /// Name-from-content text (accname 2F) of elements whose role names
    /// them from content, kept from the first walk that read it: nested
    /// named content (a link in a cell in a cell) is walked once, not once
    /// per enclosing name. Only walks whose result depends on nothing but
    /// the subtree are kept (see `impure`).
    content_memo: Vec<Option<Box<str>>>,
    /// Bumped whenever a walk's result may depend on more than the subtree
    /// it reads: a node found already visited, an IDREF or `<label>`
    /// traversal, slotted light-DOM children. A walk that bumped it is not
    /// kept in `content_memo`.
    pub(super) impure: u64,
    /// Subtrees (`start..end` in document order) whose content came from
    /// `content_memo` during the current computation: visited as a whole,
    /// as the walk they stand for would have left them.
    reused: Vec<(usize, usize)>,
    /// `impure` when the current computation started: `content_memo` is
    /// read only while nothing impure has happened in it, so every node the
    /// computation visited so far lies outside the subtree being reused.
    impure_at_start: u64,
}

impl<'a> Namer<'a> {
    pub(super) fn new(
        page: &'a Page,
        dom: &'a Dom,
        roles: &'a [Option<Role>],
        visibility: &[Visibility],
    ) -> Namer<'a> {
        let len = page.len();
        let mut hidden = vec![false; len];
        let mut invisible = vec![false; len];
        // Hidden together with every descendant (not rendered, `hidden`,
        // `aria-hidden`); `visibility: hidden` is not among them: a
        // descendant with `visibility: visible` shows again (CSS 2.2 §11.2).
        let mut subtree_hidden = vec![false; len];
        let mut in_select = vec![false; len];
        let mut in_grid = vec![false; len];
        for id in page.ids() {
            let i = id.index();
            let parent = page.parent(id);
            let inherited_hidden = parent.is_some_and(|p| subtree_hidden[p.index()]);
            // Options of a closed `<select>` have no box, yet they are not
            // hidden for names (Playwright's `isElementHiddenForAria`).
            in_select[i] = parent.is_some_and(|p| {
                in_select[p.index()]
                    || page
                        .element(p)
                        .is_some_and(|e| e.is("select") || e.is("datalist"))
            });
            // Chromium names rows from content only inside a grid or treegrid.
            in_grid[i] = parent.is_some_and(|p| match roles[p.index()] {
                Some("grid" | "treegrid") => true,
                Some("table") => false,
                _ => in_grid[p.index()],
            });
            let reason = visibility
                .get(i)
                .and_then(|v| v.hidden)
                .filter(|_| !in_select[i]);
            let subtree_reason = matches!(
                reason,
                Some(Hidden::NotRendered | Hidden::HiddenAttribute | Hidden::AriaHidden)
            );
            let own = page
                .element(id)
                .is_some_and(|e| hidden_by_attributes(page, e));
            subtree_hidden[i] = inherited_hidden || subtree_reason || own;
            // Text drawn so that no one can read it names nothing. A
            // screen-reader-only label (clipped) still names its control, and
            // so does a label an overlay happens to cover.
            invisible[i] = !subtree_hidden[i]
                && matches!(
                    reason,
                    Some(
                        Hidden::VisibilityHidden | Hidden::Unpainted | Hidden::Tiny | Hidden::Faint
                    )
                );
            hidden[i] = subtree_hidden[i] || invisible[i];
        }
        Namer {
            page,
            roles,
            hidden,
            invisible,
            in_grid,
            dom,
            visited: vec![0; len],
            stamp: 0,
            content_memo: vec![None; len],
            impure: 0,
            reused: Vec::new(),
            impure_at_start: 0,
        }
    }

    pub(super) fn is_hidden(&self, id: NodeId) -> bool {
        self.hidden[id.index()]
    }

    pub(super) fn visit(&mut self, id: NodeId) {
        self.visited[id.index()] = self.stamp;
    }

    /// Whether the node was visited during the current computation, itself
    /// or inside a subtree reused from `content_memo`.
    fn was_visited(&self, id: NodeId) -> bool {
        if self.visited[id.index()] == self.stamp {
            return true;
        }
        let i = id.index();
        let at = self.reused.partition_point(|&(start, _)| start <= i);
        at > 0 && i < self.reused[at - 1].1
    }

    /// Records a subtree reused from `content_memo` as visited, keeping
    /// `reused` sorted and disjoint (subtrees nest or are apart, so one
    /// that starts inside the new one lies wholly inside it).
    fn reuse(&mut self, id: NodeId) {
        let (start, end) = (id.index(), self.page.subtree_end(id).index());
        let at = self.reused.partition_point(|&(s, _)| s < start);
        let mut until = at;
        while until < self.reused.len() && self.reused[until].0 < end {
            until += 1;
        }
        self.reused.splice(at..until, [(start, end)]);
    }

    fn next_stamp(&mut self) {
        self.reused.clear();
        self.impure_at_start = self.impure;
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.visited.fill(0);
            self.stamp = 1;
        }
    }

    /// IDREFs resolved in the node's own tree; the first element with each id
    /// wins, duplicates and missing ids are dropped (WAI-ARIA 1.2 §8.6.2).
    fn idrefs(&self, id: NodeId, value: &str) -> Vec<NodeId> {
        let mut out: Vec<NodeId> = Vec::new();
        for token in value.split_ascii_whitespace() {
            if let Some(target) = self.dom.element_by_id(id, token) {
                if !out.contains(&target) {
                    out.push(target);
                }
            }
        }
        out
    }

    fn role(&self, id: NodeId) -> Role {
        self.roles[id.index()].unwrap_or("none")
    }

    /// The accessible name of an element (accname 1.2 §4.3, from step 1).
    pub(super) fn name(&mut self, id: NodeId) -> AccName {
        self.next_stamp();
        let (text, found) = self.alternative(
            id,
            Opts {
                target: Some(true),
                ..Opts::default()
            },
        );
        let text = flatten(&text);
        let strength = strength(&text, found);
        let source = if text.is_empty() {
            NameSource::Unknown
        } else {
            found.source
        };
        AccName {
            text,
            source,
            strength,
        }
    }

    /// The accessible description (accname 1.2 §4.2 / HTML-AAM §5.7):
    /// `aria-describedby`, then `aria-description`, then `title` unless the
    /// name already used it.
    pub(super) fn description(&mut self, id: NodeId, name_source: NameSource) -> Option<String> {
        let element = self.page.element(id)?;
        let mut text = String::new();
        if let Some(value) = element.attr("aria-describedby") {
            self.next_stamp();
            let parts: Vec<String> = self
                .idrefs(id, value)
                .into_iter()
                .map(|target| {
                    let hidden = self.is_hidden(target);
                    self.alternative(
                        target,
                        Opts {
                            describedby: Some(hidden),
                            ..Opts::default()
                        },
                    )
                    .0
                })
                .collect();
            text = flatten(&parts.join(" "));
        }
        if text.is_empty() {
            if let Some(value) = element.attr("aria-description") {
                text = flatten(value);
            }
        }
        if text.is_empty() && name_source != NameSource::Title {
            if let Some(value) = element.attr("title") {
                text = flatten(value);
            }
        }
        (!text.is_empty()).then_some(text)
    }

    /// The text alternative of a node (accname 1.2 §4.3.2 step 2).
    pub(super) fn alternative(&mut self, id: NodeId, opts: Opts) -> (String, Found) {
        let mut out = String::new();
        let found = self.alternative_into(id, opts, &mut out);
        (out, found)
    }

    /// [`Namer::alternative`], appended to `out`: a name-from-content walk
    /// writes every text once into one buffer instead of copying it up
    /// through each ancestor's string.
    fn alternative_into(&mut self, id: NodeId, opts: Opts, out: &mut String) -> Found {
        if self.was_visited(id) {
            self.impure += 1;
            return NONE_FOUND;
        }
        let page = self.page;
        let Some(element) = page.element(id) else {
            return NONE_FOUND;
        };
        // 2A: hidden nodes count only inside a traversal whose root was hidden.
        if is_never_rendered(element) || (!opts.hidden_root() && self.is_hidden(id)) {
            self.visit(id);
            // `visibility: hidden` hides the element's own text, not a
            // descendant that is `visibility: visible` again: Chromium
            // names `<button>Top <span hidden-ish>gone <b visible>back</b></span>`
            // "Top back" (CSS 2.2 §11.2).
            if self.invisible[id.index()] && opts.is_descendant() {
                self.content_into(id, opts, false, out);
            }
            return NONE_FOUND;
        }
        let labelledby = element
            .attr("aria-labelledby")
            .map(|value| self.idrefs(id, value))
            .filter(|refs| !refs.is_empty());
        // 2B: aria-labelledby, unless already inside such a traversal (no
        // chains, so no loops).
        if opts.labelledby.is_none() {
            if let Some(refs) = &labelledby {
                self.impure += 1;
                let parts: Vec<String> = refs
                    .iter()
                    .map(|&target| {
                        let hidden = self.is_hidden(target);
                        self.alternative(
                            target,
                            Opts {
                                labelledby: Some(hidden),
                                ..Opts::default()
                            },
                        )
                        .0
                    })
                    .collect();
                let text = parts.join(" ");
                if !text.trim().is_empty() {
                    out.push_str(&text);
                    return Found::new(NameSource::AriaLabelledby);
                }
            }
        }
        let role = self.role(id);
        // 2C: a control embedded in a label contributes its value.
        let self_referenced = labelledby.as_ref().is_some_and(|refs| refs.contains(&id));
        if opts.embedded() && !self_referenced {
            if let Some(value) = self.embedded_value(id, element, role, opts) {
                self.visit(id);
                out.push_str(&value);
                return Found::new(NameSource::Value);
            }
        }
        // 2D: aria-label.
        if let Some(label) = element.attr("aria-label").filter(|l| !l.trim().is_empty()) {
            self.visit(id);
            out.push_str(label);
            return Found::new(NameSource::AriaLabel);
        }
        let presentational = matches!(role, "none" | "presentation");
        // 2E: host-language label (HTML-AAM §4.1 accessible name computations).
        if !presentational {
            if let Some((text, found)) = self.native(id, element, labelledby.is_some(), opts) {
                out.push_str(&text);
                return found;
            }
        }
        // 2F–2H: name from content.
        let summary = element.is("summary") && !presentational;
        let from_content = if opts.is_descendant() {
            names_from_content(role) || contributes_content(role) || (role == "row")
        } else {
            names_from_content(role) || (role == "row" && self.in_grid[id.index()])
        };
        if from_content
            || summary
            || opts.labelledby.is_some()
            || opts.describedby.is_some()
            || opts.label.is_some()
            || opts.native.is_some()
        {
            self.visit(id);
            let start = out.len();
            // A nested element's walk is kept for when its own name is
            // computed; the target's own walk only reads what was kept.
            self.content_into(id, opts.child(), opts.is_descendant(), out);
            let text = &out[start..];
            let keep = if opts.target == Some(true) {
                !text.trim_start().is_empty()
            } else {
                !text.is_empty()
            };
            if keep {
                return Found::new(NameSource::Text);
            }
            out.truncate(start);
        }
        // 2I: tooltip.
        self.visit(id);
        if !presentational || element.is("iframe") {
            if let Some(title) = element.attr("title").filter(|t| !t.trim().is_empty()) {
                out.push_str(title);
                return Found::new(NameSource::Title);
            }
        }
        NONE_FOUND
    }

    /// accname 2F: the text of the node's children, in flat-tree order (a
    /// shadow host's shadow tree with slots filled from its light children).
    fn content_into(&mut self, id: NodeId, opts: Opts, keep: bool, out: &mut String) {
        let page = self.page;
        let memo = opts.is_plain_descendant() && names_from_content(self.role(id));
        if memo && self.impure == self.impure_at_start {
            if let Some(text) = &self.content_memo[id.index()] {
                out.push_str(text);
                self.reuse(id);
                return;
            }
        }
        let impure = self.impure;
        let start = out.len();
        let children = self.flat_children(id);
        for child in children {
            match page.node(child) {
                Node::Text(text) if opts.hidden_root() || !self.is_hidden(child) => {
                    out.push_str(text)
                }
                Node::Element(element) => {
                    // Inline elements join without a space; others, and
                    // `<br>`, are separated (Playwright's and Chromium's
                    // reading of accname 2F.iii). A `<slot>` is
                    // `display: contents`, not inline: its nodes are set
                    // apart ("Say <slot>Light text</slot>!" is "Say Light text !").
                    if element.is("br")
                        || element.is("slot")
                        || !self.dom.display(child).is_inline()
                    {
                        out.push(' ');
                        self.alternative_into(child, opts, out);
                        out.push(' ');
                    } else {
                        self.alternative_into(child, opts, out);
                    }
                }
                _ => {}
            }
        }
        if memo && keep && self.impure == impure {
            self.content_memo[id.index()] = Some(out[start..].into());
        }
    }

    /// The children a name-from-content walk reads, in flat-tree order: a
    /// host's shadow tree, a slot's assigned nodes (else its own children),
    /// and aria-owns applied. Apart from [`Namer::content_into`] to keep its
    /// frame small: deep pages recurse through it.
    #[inline(never)]
    fn flat_children(&mut self, id: NodeId) -> Vec<NodeId> {
        let page = self.page;
        let mut children: Vec<NodeId> = match self.author_shadow_root(id) {
            Some(root) => page.children(root).collect(),
            None => {
                if page.element(id).is_some_and(|e| e.is("slot")) {
                    let assigned = self.assigned_nodes(id);
                    if assigned.is_empty() {
                        page.children(id).collect()
                    } else {
                        // Light-DOM children lie outside the slot's subtree.
                        self.impure += 1;
                        assigned
                    }
                } else {
                    page.children(id).collect()
                }
            }
        };
        if self.dom.has_owns() {
            // aria-owns: owned elements leave their parent for their owner,
            // after its own children.
            children.retain(|&c| self.dom.owner(c).is_none());
            let owned = self.dom.owned(id);
            if !owned.is_empty() {
                // Content from outside the subtree: not kept for reuse.
                self.impure += 1;
                children.extend_from_slice(owned);
            }
        }
        children
    }

    /// The open or closed shadow root hosted by `id` (user-agent shadow
    /// trees are browser internals and never walked).
    fn author_shadow_root(&self, id: NodeId) -> Option<NodeId> {
        self.page.children(id).find(|&c| {
            matches!(
                self.page.node(c),
                Node::ShadowRoot(ShadowMode::Open | ShadowMode::Closed)
            )
        })
    }

    /// Light-DOM children of the shadow host that a `<slot>` receives.
    fn assigned_nodes(&self, slot: NodeId) -> Vec<NodeId> {
        let page = self.page;
        let root = self.dom.tree_root(slot);
        if !matches!(page.node(root), Node::ShadowRoot(_)) {
            return Vec::new();
        }
        let Some(host) = page.parent(root) else {
            return Vec::new();
        };
        let name = page
            .element(slot)
            .and_then(|e| e.attr("name"))
            .unwrap_or("");
        page.children(host)
            .filter(|&c| match page.node(c) {
                Node::Element(e) => e.attr("slot").unwrap_or("") == name,
                Node::Text(_) => name.is_empty(),
                _ => false,
            })
            .collect()
    }
}
