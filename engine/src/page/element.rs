//! `ElementRef`: a typed handle that can only hold an element, and its CSS selector matching.

use html5ever::Namespace as NsUrl;
use scraper::selector::{CssLocalName, CssString, NonTSPseudoClass, PseudoElement, Simple};
use selectors::OpaqueElement;
use selectors::attr::{AttrSelectorOperation, CaseSensitivity, NamespaceConstraint};
use selectors::bloom::BloomFilter;
use selectors::matching::{ElementSelectorFlags, MatchingContext};

use super::{Element, Layout, Namespace, Node, NodeId, Page};

/// A reference to an element of a [`Page`] (like scraper's `ElementRef`).
#[derive(Clone, Copy, Debug)]
pub struct ElementRef<'a> {
    page: &'a Page,
    id: NodeId,
    element: &'a Element,
}

impl PartialEq for ElementRef<'_> {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.page, other.page) && self.id == other.id
    }
}

impl<'a> ElementRef<'a> {
    /// Wraps the node if it is an element.
    pub fn wrap(page: &'a Page, id: NodeId) -> Option<ElementRef<'a>> {
        match &page.nodes.get(id.index())?.node {
            Node::Element(element) => Some(ElementRef { page, id, element }),
            _ => None,
        }
    }

    /// The node id.
    pub fn id(&self) -> NodeId {
        self.id
    }

    /// The page.
    pub fn page(&self) -> &'a Page {
        self.page
    }

    /// Name and attributes.
    pub fn value(&self) -> &'a Element {
        self.element
    }

    /// Local name (lowercase for HTML).
    pub fn name(&self) -> &'a str {
        &self.element.name
    }

    /// An attribute's value.
    pub fn attr(&self, name: &str) -> Option<&'a str> {
        self.element.attr(name)
    }

    /// Layout and live state.
    pub fn layout(&self) -> &'a Layout {
        self.page.layout(self.id)
    }

    /// The parent element, crossing a shadow root to its host (as Playwright's
    /// CSS engine pierces shadow DOM), but not out of an iframe document.
    pub fn parent_element(&self) -> Option<ElementRef<'a>> {
        let parent = self.page.parent(self.id)?;
        match self.page.node(parent) {
            Node::Element(_) => ElementRef::wrap(self.page, parent),
            Node::ShadowRoot(_) => ElementRef::wrap(self.page, self.page.parent(parent)?),
            _ => None,
        }
    }

    fn sibling_element(&self, forward: bool) -> Option<ElementRef<'a>> {
        let mut current = self.id;
        loop {
            current = if forward {
                self.page.next_sibling(current)?
            } else {
                self.page.prev_sibling(current)?
            };
            if let Some(element) = ElementRef::wrap(self.page, current) {
                return Some(element);
            }
        }
    }

    /// Child elements (light DOM).
    pub fn child_elements(&self) -> impl Iterator<Item = ElementRef<'a>> + 'a {
        let page = self.page;
        page.children(self.id)
            .filter_map(move |id| ElementRef::wrap(page, id))
    }
}

impl selectors::Element for ElementRef<'_> {
    type Impl = Simple;

    fn opaque(&self) -> OpaqueElement {
        OpaqueElement::new(self.element)
    }

    fn parent_element(&self) -> Option<Self> {
        ElementRef::parent_element(self)
    }

    fn parent_node_is_shadow_root(&self) -> bool {
        self.page
            .parent(self.id)
            .is_some_and(|parent| matches!(self.page.node(parent), Node::ShadowRoot(_)))
    }

    fn containing_shadow_host(&self) -> Option<Self> {
        let root = self.page.tree_root(self.id);
        match self.page.node(root) {
            Node::ShadowRoot(_) => ElementRef::wrap(self.page, self.page.parent(root)?),
            _ => None,
        }
    }

    fn is_pseudo_element(&self) -> bool {
        false
    }

    fn is_part(&self, _name: &CssLocalName) -> bool {
        false
    }

    fn is_same_type(&self, other: &Self) -> bool {
        self.element.name == other.element.name && self.element.ns == other.element.ns
    }

    fn imported_part(&self, _name: &CssLocalName) -> Option<CssLocalName> {
        None
    }

    fn prev_sibling_element(&self) -> Option<Self> {
        self.sibling_element(false)
    }

    fn next_sibling_element(&self) -> Option<Self> {
        self.sibling_element(true)
    }

    fn first_element_child(&self) -> Option<Self> {
        self.child_elements().next()
    }

    fn is_html_element_in_html_document(&self) -> bool {
        self.element.ns == Namespace::Html
    }

    fn has_local_name(&self, name: &CssLocalName) -> bool {
        self.element.name.as_str() == &*name.0
    }

    fn has_namespace(&self, namespace: &NsUrl) -> bool {
        let url: &str = namespace;
        match self.element.ns {
            Namespace::Html => url == "http://www.w3.org/1999/xhtml",
            Namespace::Svg => url == "http://www.w3.org/2000/svg",
            Namespace::MathMl => url == "http://www.w3.org/1998/Math/MathML",
        }
    }

    fn attr_matches(
        &self,
        ns: &NamespaceConstraint<&NsUrl>,
        local_name: &CssLocalName,
        operation: &AttrSelectorOperation<&CssString>,
    ) -> bool {
        if let NamespaceConstraint::Specific(url) = ns {
            if !url.is_empty() {
                return false;
            }
        }
        self.element
            .attrs
            .iter()
            .any(|(key, value)| key.as_str() == &*local_name.0 && operation.eval_str(value))
    }

    fn match_non_ts_pseudo_class(
        &self,
        pseudo: &NonTSPseudoClass,
        _context: &mut MatchingContext<'_, Self::Impl>,
    ) -> bool {
        match *pseudo {}
    }

    fn match_pseudo_element(
        &self,
        pseudo: &PseudoElement,
        _context: &mut MatchingContext<'_, Self::Impl>,
    ) -> bool {
        match *pseudo {}
    }

    fn is_link(&self) -> bool {
        matches!(self.element.name.as_str(), "a" | "area" | "link") && self.element.has_attr("href")
    }

    fn is_html_slot_element(&self) -> bool {
        self.element.is("slot")
    }

    fn has_id(&self, id: &CssLocalName, case_sensitivity: CaseSensitivity) -> bool {
        self.element
            .attr("id")
            .is_some_and(|value| case_sensitivity.eq(id.0.as_bytes(), value.as_bytes()))
    }

    fn has_class(&self, name: &CssLocalName, case_sensitivity: CaseSensitivity) -> bool {
        self.element.attr("class").is_some_and(|classes| {
            classes
                .split_ascii_whitespace()
                .any(|class| case_sensitivity.eq(name.0.as_bytes(), class.as_bytes()))
        })
    }

    fn has_custom_state(&self, _name: &CssLocalName) -> bool {
        false
    }

    fn is_empty(&self) -> bool {
        !self
            .page
            .children(self.id)
            .any(|child| match self.page.node(child) {
                Node::Element(_) => true,
                Node::Text(text) => !text.is_empty(),
                _ => false,
            })
    }

    fn is_root(&self) -> bool {
        self.page
            .parent(self.id)
            .is_some_and(|parent| matches!(self.page.node(parent), Node::Document { .. }))
    }

    fn apply_selector_flags(&self, _flags: ElementSelectorFlags) {}

    fn add_element_unique_hashes(&self, _filter: &mut BloomFilter) -> bool {
        false
    }
}
