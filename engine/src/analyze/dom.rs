//! DOM facts the judgements build on — trees, ids, labels, `tabindex`, input types, display classes — each derived in one place, once per page.
//!
//! Roles, names, states, interactivity and every strategy read these facts;
//! none of them parses an attribute or a computed style these answer.

use std::collections::HashMap;

use crate::page::{Element, Namespace, Node, NodeId, Page};

/// How an element's box takes part in the text flow around it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Display {
    /// Flows inside its parent's line (`display: inline`, or no box at all on a
    /// recorded page, or an inline-by-default tag on a page without layout).
    Inline,
    /// Starts a box of its own: every other `display` value.
    Block,
    /// `display: contents`: no box of its own, yet text joined across it is
    /// separated, as Chromium and Playwright separate it (`a<div
    /// style="display:contents">b</div>c` is named "a b c").
    Contents,
}

impl Display {
    /// Whether text on either side of the element stays in one run: only
    /// inline boxes join their neighbours' words.
    pub fn is_inline(self) -> bool {
        self == Display::Inline
    }
}

/// The DOM facts of one page.
#[derive(Clone, Debug)]
pub struct Dom {
    /// The document or shadow root holding each node.
    tree_root: Vec<NodeId>,
    /// `id` value → (tree root, first element in tree order with that id in
    /// that tree), as `getElementById` answers per tree. Empty ids never match.
    ids: HashMap<String, Vec<(NodeId, NodeId)>>,
    /// Labels of each labelable control (`<label for>` and wrapping), in tree order.
    labels: HashMap<NodeId, Vec<NodeId>>,
    /// The labeled control of each `<label>` that has one.
    label_control: HashMap<NodeId, NodeId>,
    /// Display class per node (text and other non-elements: inline).
    display: Vec<Display>,
    /// `aria-owns`: each owner's owned elements, in IDREF order.
    owned: HashMap<NodeId, Vec<NodeId>>,
    /// `aria-owns`: the owner of each owned element.
    owner: HashMap<NodeId, NodeId>,
    /// Content Chromium skipped off screen, per node (`None`: the page has
    /// none; see `analyze::skipped`).
    skipped: Option<Vec<bool>>,
}

impl Dom {
    /// Derives the facts in one pass over the page (labels without `for`
    /// scan their own subtree for the first labelable element).
    pub fn new(page: &Page) -> Dom {
        let len = page.len();
        let mut tree_root = Vec::with_capacity(len);
        let mut ids: HashMap<String, Vec<(NodeId, NodeId)>> = HashMap::new();
        let mut display = Vec::with_capacity(len);
        let mut label_elements = Vec::new();
        let mut owners = Vec::new();
        let skipped = super::skipped::skipped_content(page);
        for id in page.ids() {
            let root = match page.node(id) {
                Node::Document { .. } | Node::ShadowRoot(_) => id,
                _ => page.parent(id).map_or(id, |p| tree_root[p.index()]),
            };
            tree_root.push(root);
            let Some(element) = page.element(id) else {
                display.push(Display::Inline);
                continue;
            };
            let in_skipped = skipped.as_ref().is_some_and(|s| s[id.index()]);
            display.push(display_of(page, id, element, in_skipped));
            if let Some(value) = element.attr("id").filter(|v| !v.is_empty()) {
                match ids.get_mut(value) {
                    Some(trees) => {
                        if !trees.iter().any(|&(r, _)| r == root) {
                            trees.push((root, id));
                        }
                    }
                    None => {
                        ids.insert(value.to_owned(), vec![(root, id)]);
                    }
                }
            }
            if element.is("label") {
                label_elements.push(id);
            }
            if element.has_attr("aria-owns") {
                owners.push(id);
            }
        }
        let mut dom = Dom {
            tree_root,
            ids,
            labels: HashMap::new(),
            label_control: HashMap::new(),
            display,
            owned: HashMap::new(),
            owner: HashMap::new(),
            skipped,
        };
        dom.resolve_owns(page, &owners);
        // After the pass: `for` may name an element later in the document.
        for label in label_elements {
            let control = match page.element(label).and_then(|e| e.attr("for")) {
                Some(target) => dom
                    .element_by_id(label, target)
                    .filter(|&c| page.element(c).is_some_and(is_labelable)),
                None => first_labelable_descendant(page, label),
            };
            if let Some(control) = control {
                dom.labels.entry(control).or_default().push(label);
                dom.label_control.insert(label, control);
            }
        }
        dom
    }

    /// WAI-ARIA 1.2 `aria-owns`: each IDREF in the owner's tree names an
    /// element to be read as its child, after its own children. An element
    /// has one owner (the first in document order), and an owner never owns
    /// itself or one of its ancestors, which would make a cycle.
    fn resolve_owns(&mut self, page: &Page, owners: &[NodeId]) {
        for &owner in owners {
            let Some(value) = page.element(owner).and_then(|e| e.attr("aria-owns")) else {
                continue;
            };
            for token in value.split_ascii_whitespace() {
                let Some(target) = self.element_by_id(owner, token) else {
                    continue;
                };
                if self.owner.contains_key(&target) || self.reads_under(page, owner, target) {
                    continue;
                }
                self.owner.insert(target, owner);
                self.owned.entry(owner).or_default().push(target);
            }
        }
    }

    /// Whether `node` is `ancestor` or is read under it: its parents as
    /// ownership has made them so far (an owned element's parent is its
    /// owner). Owning such an ancestor would make a cycle.
    fn reads_under(&self, page: &Page, node: NodeId, ancestor: NodeId) -> bool {
        let mut current = Some(node);
        while let Some(id) = current {
            if id == ancestor {
                return true;
            }
            current = self.owner.get(&id).copied().or_else(|| page.parent(id));
        }
        false
    }

    /// The elements `owner` owns through `aria-owns`, in IDREF order.
    pub fn owned(&self, owner: NodeId) -> &[NodeId] {
        self.owned.get(&owner).map_or(&[], Vec::as_slice)
    }

    /// The element whose `aria-owns` took `id`, if one did.
    pub fn owner(&self, id: NodeId) -> Option<NodeId> {
        if self.owner.is_empty() {
            return None;
        }
        self.owner.get(&id).copied()
    }

    /// Whether any element of the page owns another.
    pub fn has_owns(&self) -> bool {
        !self.owner.is_empty()
    }

    /// The document or shadow root holding the node.
    pub fn tree_root(&self, id: NodeId) -> NodeId {
        self.tree_root[id.index()]
    }

    /// The first element with `id` in the same tree as `from` (document or
    /// shadow root), as `getElementById` / IDREF resolution finds it.
    pub fn element_by_id(&self, from: NodeId, id: &str) -> Option<NodeId> {
        let root = self.tree_root[from.index()];
        self.ids
            .get(id)?
            .iter()
            .find(|&&(r, _)| r == root)
            .map(|&(_, element)| element)
    }

    /// The labels of a labelable control, in tree order.
    pub fn labels(&self, control: NodeId) -> &[NodeId] {
        self.labels.get(&control).map_or(&[], Vec::as_slice)
    }

    /// The labeled control of a `<label>` (HTML §4.10.4).
    pub fn labeled_control(&self, label: NodeId) -> Option<NodeId> {
        self.label_control.get(&label).copied()
    }

    /// How the node takes part in the text flow.
    pub fn display(&self, id: NodeId) -> Display {
        self.display[id.index()]
    }

    /// Whether the node lies in content Chromium skipped off screen: inside
    /// a `content-visibility: auto` element none of whose content is laid out.
    pub(crate) fn is_skipped(&self, id: NodeId) -> bool {
        self.skipped.as_ref().is_some_and(|s| s[id.index()])
    }
}

/// The display class: the computed `display` when the page was recorded with
/// layout, the HTML rendering section's default per tag otherwise.
fn display_of(page: &Page, id: NodeId, element: &Element, skipped: bool) -> Display {
    if page.has_layout {
        return match page.layout(id).style.as_ref().map(|s| s.display.as_str()) {
            // Content Chromium skipped off screen has no style: it is laid
            // out by its tags when a person scrolls to it.
            None if skipped => by_tag(element),
            // No computed style: the browser made no box for it.
            None | Some("inline") => Display::Inline,
            Some("contents") => Display::Contents,
            Some(_) => Display::Block,
        };
    }
    by_tag(element)
}

/// The HTML rendering section's display class for the element's tag.
fn by_tag(element: &Element) -> Display {
    if element.ns == Namespace::Html && is_block_by_default(&element.name) {
        Display::Block
    } else {
        Display::Inline
    }
}

/// HTML "rules for parsing integers" applied to `tabindex`: leading
/// whitespace and a sign allowed, digits up to the first non-digit
/// (`"1x"` is 1); no digits is no value.
pub fn tabindex(element: &Element) -> Option<i64> {
    let value = element.attr("tabindex")?.trim_start();
    let (sign, digits) = match value.as_bytes().first()? {
        b'-' => (-1, &value[1..]),
        b'+' => (1, &value[1..]),
        _ => (1, value),
    };
    let end = digits
        .bytes()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(digits.len());
    if end == 0 {
        return None;
    }
    digits[..end.min(18)].parse::<i64>().ok().map(|n| sign * n)
}

/// The input's type state (HTML §4.10.5): lowercase; unknown and missing
/// types are `text`.
pub fn input_type(element: &Element) -> &'static str {
    const TYPES: &[&str] = &[
        "button",
        "checkbox",
        "color",
        "date",
        "datetime-local",
        "email",
        "file",
        "hidden",
        "image",
        "month",
        "number",
        "password",
        "radio",
        "range",
        "reset",
        "search",
        "submit",
        "tel",
        "text",
        "time",
        "url",
        "week",
    ];
    let Some(value) = element.attr("type") else {
        return "text";
    };
    let value = value.trim();
    TYPES
        .iter()
        .find(|t| t.eq_ignore_ascii_case(value))
        .copied()
        .unwrap_or("text")
}

/// Whether [`input_type`] is `ty`, for a `ty` other than the default
/// `text`: the same trimmed, case-insensitive reading without searching the
/// list of types (it runs for every input of a page).
pub fn has_input_type(element: &Element, ty: &str) -> bool {
    debug_assert!(
        ty != "text",
        "input_type is also `text` when type is missing or unknown"
    );
    element
        .attr("type")
        .is_some_and(|value| value.trim().eq_ignore_ascii_case(ty))
}

/// HTML labelable elements (HTML §4.10.2).
pub fn is_labelable(element: &Element) -> bool {
    element.ns == Namespace::Html
        && match element.name.as_str() {
            "button" | "meter" | "output" | "progress" | "select" | "textarea" => true,
            "input" => !has_input_type(element, "hidden"),
            _ => false,
        }
}

/// A wrapping `<label>`'s labeled control: its first labelable descendant
/// in the same tree (HTML §4.10.4).
fn first_labelable_descendant(page: &Page, label: NodeId) -> Option<NodeId> {
    let end = page.subtree_end(label);
    let mut current = NodeId::from_index(label.index() + 1);
    while current < end {
        match page.node(current) {
            Node::ShadowRoot(_) | Node::Document { .. } => {
                current = page.subtree_end(current);
                continue;
            }
            Node::Element(element) if is_labelable(element) => return Some(current),
            _ => {}
        }
        current = NodeId::from_index(current.index() + 1);
    }
    None
}

/// Elements whose default `display` is not `inline` (HTML §15 rendering).
fn is_block_by_default(name: &str) -> bool {
    matches!(
        name,
        "address"
            | "article"
            | "aside"
            | "blockquote"
            | "body"
            | "button"
            | "caption"
            | "center"
            | "col"
            | "colgroup"
            | "dd"
            | "details"
            | "dialog"
            | "dir"
            | "div"
            | "dl"
            | "dt"
            | "fieldset"
            | "figcaption"
            | "figure"
            | "footer"
            | "form"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "header"
            | "hgroup"
            | "hr"
            | "html"
            | "input"
            | "legend"
            | "li"
            | "listing"
            | "main"
            | "marquee"
            | "menu"
            | "meter"
            | "nav"
            | "ol"
            | "optgroup"
            | "option"
            | "p"
            | "plaintext"
            | "pre"
            | "progress"
            | "search"
            | "section"
            | "select"
            | "summary"
            | "table"
            | "tbody"
            | "td"
            | "textarea"
            | "tfoot"
            | "th"
            | "thead"
            | "tr"
            | "ul"
            | "xmp"
    )
}
