//! Builds a [`Page`] from a [`Recording`] or from static HTML (html5ever via scraper).

use std::sync::Arc;

use ego_tree::NodeRef;
use scraper::Html;

use super::{Element, Layout, Namespace, Node, NodeData, NodeId, Page, ShadowMode};
use crate::geom::{Point, Size, Viewport};
use crate::recording::{NodeKind, Recording};

/// Appends nodes in document order and links them; the tree links and subtree
/// ends are derived in two linear passes at the end.
struct Builder {
    nodes: Vec<NodeData>,
}

impl Builder {
    fn with_capacity(capacity: usize) -> Builder {
        Builder {
            nodes: Vec::with_capacity(capacity),
        }
    }

    fn push(&mut self, parent: Option<NodeId>, node: Node, layout: Layout) -> NodeId {
        let id = NodeId::from_index(self.nodes.len());
        self.nodes.push(NodeData {
            parent,
            first_child: None,
            last_child: None,
            next_sibling: None,
            prev_sibling: None,
            subtree_end: id.0 + 1,
            node,
            layout,
        });
        id
    }

    /// Derives sibling links and subtree ends. Requires every parent to
    /// precede its children and subtrees to be contiguous (document order),
    /// which both builders guarantee.
    fn finish(mut self) -> Vec<NodeData> {
        for index in 1..self.nodes.len() {
            let id = NodeId::from_index(index);
            let Some(parent) = self.nodes[index].parent else {
                continue;
            };
            match self.nodes[parent.index()].last_child {
                Some(last) => {
                    self.nodes[last.index()].next_sibling = Some(id);
                    self.nodes[index].prev_sibling = Some(last);
                }
                None => self.nodes[parent.index()].first_child = Some(id),
            }
            self.nodes[parent.index()].last_child = Some(id);
        }
        for index in (0..self.nodes.len()).rev() {
            let end = self.nodes[index].subtree_end;
            if let Some(parent) = self.nodes[index].parent {
                let parent_end = &mut self.nodes[parent.index()].subtree_end;
                *parent_end = (*parent_end).max(end);
            }
        }
        self.nodes
    }
}

fn namespace_of(ns: Option<&str>) -> Namespace {
    match ns {
        Some("svg") => Namespace::Svg,
        Some("math") => Namespace::MathMl,
        _ => Namespace::Html,
    }
}

impl Page {
    /// Builds the page of a recording. Linear in the number of nodes.
    ///
    /// The recording's structure was checked when it was decoded (node 0 is
    /// the document, parents precede children, subtrees are contiguous).
    pub fn from_recording(recording: &Recording) -> Page {
        let mut builder = Builder::with_capacity(recording.nodes.len());
        // Backdrops repeat (most text is on the page's one background): the
        // last one read is not read again.
        let mut last_backdrop: Option<(&str, Option<[u8; 4]>)> = None;
        for (index, rec) in recording.nodes.iter().enumerate() {
            let node = match rec.kind {
                NodeKind::Document => Node::Document { iframe: false },
                NodeKind::IframeDocument => Node::Document { iframe: true },
                NodeKind::ShadowRootOpen => Node::ShadowRoot(ShadowMode::Open),
                NodeKind::ShadowRootClosed => Node::ShadowRoot(ShadowMode::Closed),
                NodeKind::ShadowRootUserAgent => Node::ShadowRoot(ShadowMode::UserAgent),
                NodeKind::Element => Node::Element(Element {
                    name: rec.tag.clone(),
                    ns: namespace_of(rec.ns.as_deref()),
                    attrs: rec.attrs.clone(),
                }),
                NodeKind::Text => Node::Text(rec.text.clone().unwrap_or_default()),
            };
            let layout = Layout {
                bounds: rec.bounds,
                style: rec.style.clone(),
                paint_order: rec.paint_order,
                backdrop: rec
                    .backdrop
                    .as_deref()
                    .and_then(|text| match last_backdrop {
                        Some((last, packed)) if last == text => packed,
                        _ => {
                            let packed =
                                crate::color::Rgba::parse(text).map(crate::color::Rgba::pack);
                            last_backdrop = Some((text, packed));
                            packed
                        }
                    }),
                clickable: rec.clickable,
                hover: rec.hover,
                focus_reveal: rec.focus_reveal,
                droppable: rec.droppable,
                value: rec.value.clone(),
                checked: rec.checked,
                selected: rec.selected,
                scroll: rec.scroll,
                modal: rec.modal,
                backend_id: rec.backend_id,
                generated: rec.pseudo.is_some(),
            };
            // A decoded recording has parents before children; a hand-built one
            // that breaks this is treated as a detached root rather than panicking.
            let parent = rec
                .parent
                .map(|p| p as usize)
                .filter(|&p| p < index)
                .map(NodeId::from_index);
            builder.push(parent, node, layout);
        }
        Page {
            nodes: builder.finish(),
            url: recording.url.clone(),
            title: recording.title.clone(),
            viewport: recording.viewport,
            scroll: recording.scroll,
            document_size: recording.document_size,
            focused: recording.focused.map(|f| NodeId::from_index(f as usize)),
            has_layout: true,
        }
    }

    /// Parses static HTML. There is no layout: bounds, styles and paint order
    /// are `None`, and [`Page::has_layout`] is false. Declarative shadow roots
    /// (`<template shadowrootmode>`) become shadow roots, as in a browser;
    /// other `<template>` contents are inert and left out; comments and
    /// doctypes are dropped (a recording drops them too).
    pub fn from_html(html: &str) -> Page {
        let document = Html::parse_document(html);
        let mut builder = Builder::with_capacity(256);
        let root = builder.push(None, Node::Document { iframe: false }, Layout::default());
        // Explicit stack of (scraper node, parent id) to survive deep trees.
        let mut stack: Vec<(NodeRef<'_, scraper::Node>, NodeId)> = Vec::new();
        push_children(&mut stack, document.tree.root(), root);
        while let Some((node, parent)) = stack.pop() {
            match node.value() {
                scraper::Node::Element(element) => {
                    let ns = match &*element.name.ns {
                        "http://www.w3.org/2000/svg" => Namespace::Svg,
                        "http://www.w3.org/1998/Math/MathML" => Namespace::MathMl,
                        _ => Namespace::Html,
                    };
                    let attrs = element
                        .attrs()
                        .map(|(key, value)| (key.to_owned(), value.to_owned()))
                        .collect();
                    let id = builder.push(
                        Some(parent),
                        Node::Element(Element {
                            name: element.name().to_owned(),
                            ns,
                            attrs,
                        }),
                        Layout::default(),
                    );
                    if element.name() == "template" && ns == Namespace::Html {
                        continue;
                    }
                    push_children(&mut stack, node, id);
                }
                scraper::Node::Text(text) => {
                    builder.push(
                        Some(parent),
                        Node::Text(Arc::from(&**text)),
                        Layout::default(),
                    );
                }
                scraper::Node::Fragment => {
                    // A declarative shadow root's contents, queued by `push_children`.
                    let mode = node
                        .parent()
                        .and_then(|template| {
                            template
                                .value()
                                .as_element()
                                .and_then(|e| e.attr("shadowrootmode"))
                        })
                        .map_or(ShadowMode::Open, |mode| {
                            if mode.eq_ignore_ascii_case("closed") {
                                ShadowMode::Closed
                            } else {
                                ShadowMode::Open
                            }
                        });
                    let id = builder.push(Some(parent), Node::ShadowRoot(mode), Layout::default());
                    push_children(&mut stack, node, id);
                }
                _ => {}
            }
        }
        let title = document
            .select(
                &scraper::Selector::parse("title")
                    .unwrap_or_else(|_| unreachable!("static selector")),
            )
            .next()
            .map(|title| {
                title
                    .text()
                    .collect::<String>()
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_default();
        Page {
            nodes: builder.finish(),
            url: String::new(),
            title,
            viewport: Viewport {
                width: 1280.0,
                height: 720.0,
                device_scale_factor: 1.0,
            },
            scroll: Point::default(),
            document_size: Size::default(),
            focused: None,
            has_layout: false,
        }
    }
}

fn is_declarative_shadow_template(node: NodeRef<'_, scraper::Node>) -> bool {
    node.value().as_element().is_some_and(|e| {
        e.name() == "template"
            && e.attr("shadowrootmode")
                .is_some_and(|m| m.eq_ignore_ascii_case("open") || m.eq_ignore_ascii_case("closed"))
    })
}

/// Queues the children of `node` so they pop in document order. A
/// declarative shadow template is replaced by its content fragment, placed
/// before the host's light children (our order for shadow roots); only the
/// first such template counts, as in the HTML spec.
fn push_children<'a>(
    stack: &mut Vec<(NodeRef<'a, scraper::Node>, NodeId)>,
    node: NodeRef<'a, scraper::Node>,
    parent: NodeId,
) {
    let shadow = node
        .children()
        .find(|child| is_declarative_shadow_template(*child));
    let start = stack.len();
    if let Some(template) = shadow {
        if let Some(fragment) = template
            .children()
            .find(|c| matches!(c.value(), scraper::Node::Fragment))
        {
            stack.push((fragment, parent));
        }
    }
    for child in node.children() {
        if Some(child) == shadow {
            continue;
        }
        stack.push((child, parent));
    }
    stack[start..].reverse();
}
