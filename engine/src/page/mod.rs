//! The engine's page model: an arena DOM with layout, styles, paint order and form state.
//!
//! Built once per recording ([`Page::from_recording`]) or from static markup
//! ([`Page::from_html`], which has no layout: geometry is unknown, not faked).
//! Nodes live in one `Vec` in document order, so a [`NodeId`] is a
//! document-order index, a subtree is a contiguous range, and every pass over
//! the page is a linear scan.

mod build;
mod element;
mod select;

pub use element::ElementRef;
pub use select::{Selector, SelectorError};

use std::sync::Arc;

use crate::geom::{Point, Rect, Size, Viewport};
use crate::recording::{ScrollState, Style};

/// Index of a node in a [`Page`]: its position in document order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(u32);

impl NodeId {
    /// The page's document node.
    pub const ROOT: NodeId = NodeId(0);

    /// The document-order index.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// Builds an id from an index. Ids outside the page panic when used.
    pub fn from_index(index: usize) -> NodeId {
        NodeId(u32::try_from(index).unwrap_or(u32::MAX))
    }
}

/// Element namespace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Namespace {
    /// HTML.
    Html,
    /// SVG.
    Svg,
    /// MathML.
    MathMl,
}

/// Shadow root mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShadowMode {
    /// `attachShadow({mode: "open"})` or a declarative open root.
    Open,
    /// A closed root.
    Closed,
    /// The browser's own internals (`<input>`, `<video>`, …).
    UserAgent,
}

/// What a node is.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    /// The main document (`iframe == false`) or an iframe's content document.
    Document {
        /// Whether this is an iframe's content document.
        iframe: bool,
    },
    /// A shadow root; its parent is the host.
    ShadowRoot(ShadowMode),
    /// An element.
    Element(Element),
    /// A text node.
    Text(Arc<str>),
}

/// An element's name and attributes.
#[derive(Clone, Debug, PartialEq)]
pub struct Element {
    /// Local name; lowercase for HTML elements.
    pub name: String,
    /// Namespace.
    pub ns: Namespace,
    /// Attributes in source order.
    pub attrs: Arc<[(String, String)]>,
}

impl Element {
    /// The value of an attribute (names compared ASCII-case-insensitively for HTML).
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(key, _)| {
                key == name || (self.ns == Namespace::Html && key.eq_ignore_ascii_case(name))
            })
            .map(|(_, value)| value.as_str())
    }

    /// Whether the attribute is present.
    pub fn has_attr(&self, name: &str) -> bool {
        self.attr(name).is_some()
    }

    /// Whether this is the HTML element `name`.
    pub fn is(&self, name: &str) -> bool {
        self.ns == Namespace::Html && self.name == name
    }
}

/// Layout and live state of a node; all empty for pages built from HTML.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Layout {
    /// Border box in document coordinates; `None` when not rendered or unknown.
    pub bounds: Option<Rect>,
    /// Computed styles; `None` when not rendered or unknown.
    pub style: Option<Arc<Style>>,
    /// Paint order (higher paints on top).
    pub paint_order: Option<u32>,
    /// CDP `isClickable`: a click listener or a natively clickable element.
    pub clickable: bool,
    /// Live value of a form control.
    pub value: Option<String>,
    /// Live checkedness.
    pub checked: Option<bool>,
    /// Live selectedness of an option.
    pub selected: Option<bool>,
    /// Scroll state of a scroll container.
    pub scroll: Option<ScrollState>,
    /// A `<dialog>` open as modal.
    pub modal: bool,
    /// CDP backend node id (0 when unknown).
    pub backend_id: u64,
}

#[derive(Clone, Debug)]
pub(crate) struct NodeData {
    pub(crate) parent: Option<NodeId>,
    pub(crate) first_child: Option<NodeId>,
    pub(crate) last_child: Option<NodeId>,
    pub(crate) next_sibling: Option<NodeId>,
    pub(crate) prev_sibling: Option<NodeId>,
    /// One past the last descendant: the subtree is `self..subtree_end`.
    pub(crate) subtree_end: u32,
    pub(crate) node: Node,
    pub(crate) layout: Layout,
}

/// A page: the arena DOM plus the page-level facts of its recording.
#[derive(Clone, Debug)]
pub struct Page {
    pub(crate) nodes: Vec<NodeData>,
    /// URL of the page.
    pub url: String,
    /// Title of the page.
    pub title: String,
    /// Viewport; for HTML-built pages a nominal 1280×720.
    pub viewport: Viewport,
    /// Scroll position of the main document.
    pub scroll: Point,
    /// Size of the main document.
    pub document_size: Size,
    /// Focused element.
    pub focused: Option<NodeId>,
    /// Whether geometry and styles are known (false for [`Page::from_html`]).
    pub has_layout: bool,
}

impl Page {
    /// The viewport's rectangle in document coordinates (where the page is scrolled to).
    pub fn viewport_rect(&self) -> Rect {
        Rect {
            x: self.scroll.x,
            y: self.scroll.y,
            width: self.viewport.width,
            height: self.viewport.height,
        }
    }

    /// Number of nodes (all kinds).
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the page has no nodes besides… nothing: a page always has its document.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// All node ids in document order.
    pub fn ids(&self) -> impl DoubleEndedIterator<Item = NodeId> + ExactSizeIterator + use<> {
        (0..self.nodes.len() as u32).map(NodeId)
    }

    /// The node.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()].node
    }

    /// Layout and live state of the node.
    pub fn layout(&self, id: NodeId) -> &Layout {
        &self.nodes[id.index()].layout
    }

    /// The element, if the node is one.
    pub fn element(&self, id: NodeId) -> Option<&Element> {
        match &self.nodes[id.index()].node {
            Node::Element(element) => Some(element),
            _ => None,
        }
    }

    /// A typed handle on the node if it is an element.
    pub fn element_ref(&self, id: NodeId) -> Option<ElementRef<'_>> {
        ElementRef::wrap(self, id)
    }

    /// All elements in document order.
    pub fn elements(&self) -> impl Iterator<Item = ElementRef<'_>> {
        self.ids().filter_map(|id| ElementRef::wrap(self, id))
    }

    /// Parent node.
    pub fn parent(&self, id: NodeId) -> Option<NodeId> {
        self.nodes[id.index()].parent
    }

    /// First child.
    pub fn first_child(&self, id: NodeId) -> Option<NodeId> {
        self.nodes[id.index()].first_child
    }

    /// Last child.
    pub fn last_child(&self, id: NodeId) -> Option<NodeId> {
        self.nodes[id.index()].last_child
    }

    /// Next sibling.
    pub fn next_sibling(&self, id: NodeId) -> Option<NodeId> {
        self.nodes[id.index()].next_sibling
    }

    /// Previous sibling.
    pub fn prev_sibling(&self, id: NodeId) -> Option<NodeId> {
        self.nodes[id.index()].prev_sibling
    }

    /// Children in order.
    pub fn children(&self, id: NodeId) -> Children<'_> {
        Children {
            page: self,
            next: self.first_child(id),
        }
    }

    /// Ancestors, nearest first (crossing shadow roots and iframe documents).
    pub fn ancestors(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        std::iter::successors(self.parent(id), |&id| self.parent(id))
    }

    /// The node and all its descendants, in document order.
    pub fn subtree(&self, id: NodeId) -> impl Iterator<Item = NodeId> + use<> {
        (id.0..self.nodes[id.index()].subtree_end).map(NodeId)
    }

    /// One past the last descendant's index.
    pub fn subtree_end(&self, id: NodeId) -> NodeId {
        NodeId(self.nodes[id.index()].subtree_end)
    }

    /// Whether `descendant` lies in the subtree of `ancestor` (inclusive). O(1).
    pub fn contains(&self, ancestor: NodeId, descendant: NodeId) -> bool {
        ancestor <= descendant && descendant.0 < self.nodes[ancestor.index()].subtree_end
    }

    /// The document or shadow root that holds the node (the node itself for roots).
    pub fn tree_root(&self, id: NodeId) -> NodeId {
        let mut current = id;
        loop {
            match self.node(current) {
                Node::Document { .. } | Node::ShadowRoot(_) => return current,
                _ => match self.parent(current) {
                    Some(parent) => current = parent,
                    None => return current,
                },
            }
        }
    }

    /// Concatenated data of the text nodes in the subtree, in document order
    /// (the DOM's `textContent`; shadow trees and iframe documents excluded).
    pub fn text_content(&self, id: NodeId) -> String {
        self.texts(id).collect()
    }

    /// The text nodes of `textContent`, in document order, read lazily.
    pub fn texts(&self, id: NodeId) -> impl Iterator<Item = &str> + '_ {
        let end = self.subtree_end(id);
        let mut current = id;
        std::iter::from_fn(move || {
            while current < end {
                let here = current;
                current = NodeId(current.0 + 1);
                match self.node(here) {
                    Node::Text(text) => return Some(&**text),
                    Node::ShadowRoot(_) | Node::Document { .. } if here != id => {
                        current = self.subtree_end(here);
                    }
                    _ => {}
                }
            }
            None
        })
    }

    /// Elements matching a selector, in document order (all trees, including
    /// shadow roots and iframe documents).
    pub fn select<'a>(
        &'a self,
        selector: &'a Selector,
    ) -> impl Iterator<Item = ElementRef<'a>> + 'a {
        self.elements()
            .filter(move |element| selector.matches(element))
    }

    /// Counts elements by where they live: main document light DOM, inside
    /// open shadow roots, inside iframe documents — the same split the capture
    /// records in [`crate::recording::DomCounts`].
    pub fn element_counts(&self) -> crate::recording::DomCounts {
        let mut counts = crate::recording::DomCounts::default();
        // Walk once, carrying the innermost "container" context per node: a
        // node inherits its parent's context unless it is a root that changes it.
        #[derive(Clone, Copy, PartialEq)]
        enum Where {
            Document,
            Shadow,
            Iframe,
            Skipped,
        }
        let mut context = vec![Where::Document; self.nodes.len()];
        for id in self.ids() {
            let inherited = self
                .parent(id)
                .map_or(Where::Document, |p| context[p.index()]);
            let here = match self.node(id) {
                Node::Document { iframe: true } => Where::Iframe,
                Node::ShadowRoot(ShadowMode::Open) if inherited != Where::Iframe => Where::Shadow,
                Node::ShadowRoot(ShadowMode::Open) => Where::Iframe,
                Node::ShadowRoot(_) => Where::Skipped,
                _ => inherited,
            };
            context[id.index()] = here;
            if matches!(self.node(id), Node::Element(_)) {
                match here {
                    Where::Document => counts.document += 1,
                    Where::Shadow => counts.shadow += 1,
                    Where::Iframe => counts.iframe += 1,
                    Where::Skipped => {}
                }
            }
        }
        counts
    }
}

/// Iterator over a node's children.
pub struct Children<'a> {
    page: &'a Page,
    next: Option<NodeId>,
}

impl Iterator for Children<'_> {
    type Item = NodeId;

    fn next(&mut self) -> Option<NodeId> {
        let current = self.next?;
        self.next = self.page.next_sibling(current);
        Some(current)
    }
}
