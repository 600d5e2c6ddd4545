//! Test support: build [`Recording`]s with layout by hand.
//!
//! Not part of the stable API. Nodes must be added in document order
//! (pre-order): a node's parent is the document, the previous node, or one of
//! the previous node's ancestors. Paint order defaults to creation order (a
//! later node paints on top), as in normal flow.
//!
//! ```
//! use pagesnap_engine::testing::RecordingBuilder;
//!
//! let mut b = RecordingBuilder::new();
//! let body = b.body();
//! let button = b.element(body, "button", &[("type", "submit")]).bounds(10.0, 10.0, 80.0, 30.0).id();
//! b.text(button, "Go");
//! let page = b.page();
//! assert_eq!(page.len(), 5);
//! ```

use std::sync::Arc;

use crate::page::Page;
use crate::recording::{
    AxOracle, NodeKind, Point, Pseudo, RecNode, Recording, Rect, SCHEMA, ScrollState, Size, Style,
    Viewport,
};

/// The computed style of an ordinary rendered block box.
pub fn default_style() -> Style {
    Style {
        display: "block".to_owned(),
        visibility: "visible".to_owned(),
        opacity: 1.0,
        position: "static".to_owned(),
        z_index: "auto".to_owned(),
        cursor: "auto".to_owned(),
        overflow_x: "visible".to_owned(),
        overflow_y: "visible".to_owned(),
        pointer_events: "auto".to_owned(),
        background_color: "rgba(0, 0, 0, 0)".to_owned(),
        // Unset legibility facts: the text reads as in a recording made before
        // they were captured; tests that judge legibility set them.
        ..Style::default()
    }
}

/// Builds a [`Recording`]; setters apply to the node added last.
#[derive(Clone, Debug)]
pub struct RecordingBuilder {
    recording: Recording,
    last: usize,
}

impl Default for RecordingBuilder {
    fn default() -> Self {
        RecordingBuilder::new()
    }
}

impl RecordingBuilder {
    /// A 1280×720 page, not scrolled, 1280×720 document: the document node
    /// (0), `<html>` (1) and `<body>` (2), both covering the document.
    pub fn new() -> RecordingBuilder {
        let mut builder = RecordingBuilder {
            recording: Recording {
                schema: SCHEMA.to_owned(),
                url: "https://example.test/".to_owned(),
                title: String::new(),
                captured_at: "2025-01-01T00:00:00Z".to_owned(),
                browser: "test".to_owned(),
                viewport: Viewport {
                    width: 1280.0,
                    height: 720.0,
                    device_scale_factor: 1.0,
                },
                scroll: Point::default(),
                document_size: Size {
                    width: 1280.0,
                    height: 720.0,
                },
                focused: None,
                nodes: vec![RecNode {
                    kind: NodeKind::Document,
                    ..RecNode::default()
                }],
                ax: AxOracle::default(),
                counts: None,
                capture: Default::default(),
            },
            last: 0,
        };
        builder
            .element(0, "html", &[])
            .bounds(0.0, 0.0, 1280.0, 720.0);
        builder
            .element(1, "body", &[])
            .bounds(0.0, 0.0, 1280.0, 720.0);
        builder
    }

    /// The `<html>` element's index.
    pub fn html(&self) -> usize {
        1
    }

    /// The `<body>` element's index.
    pub fn body(&self) -> usize {
        2
    }

    /// Index of the node added last.
    pub fn id(&self) -> usize {
        self.last
    }

    fn push(&mut self, node: RecNode) -> &mut Self {
        self.last = self.recording.nodes.len();
        let paint = u32::try_from(self.last).unwrap_or(u32::MAX);
        self.recording.nodes.push(RecNode {
            backend_id: self.last as u64 + 1,
            paint_order: node.paint_order.or(Some(paint)),
            ..node
        });
        self
    }

    /// Adds an HTML element under `parent`, rendered with [`default_style`] and no box yet.
    pub fn element(&mut self, parent: usize, tag: &str, attrs: &[(&str, &str)]) -> &mut Self {
        self.push(RecNode {
            parent: u32::try_from(parent).ok(),
            kind: NodeKind::Element,
            tag: tag.to_owned(),
            attrs: attrs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
            style: Some(Arc::new(default_style())),
            ..RecNode::default()
        })
    }

    /// Adds a text node under `parent` (no box, no paint order).
    pub fn text(&mut self, parent: usize, text: &str) -> &mut Self {
        self.push(RecNode {
            parent: u32::try_from(parent).ok(),
            kind: NodeKind::Text,
            text: Some(Arc::from(text)),
            ..RecNode::default()
        });
        self.node().paint_order = None;
        self
    }

    /// Adds the text a `::before`/`::after` pseudo-element generated under
    /// `parent` (call it where that text renders: first or last child).
    pub fn generated(&mut self, parent: usize, pseudo: Pseudo, text: &str) -> &mut Self {
        self.text(parent, text);
        self.node().pseudo = Some(pseudo);
        self
    }

    /// Adds a shadow root, an iframe document, or any other non-element node.
    pub fn node_of_kind(&mut self, parent: usize, kind: NodeKind) -> &mut Self {
        self.push(RecNode {
            parent: u32::try_from(parent).ok(),
            kind,
            ..RecNode::default()
        });
        self.node().paint_order = None;
        self
    }

    /// Makes node `index` the one the setters apply to.
    pub fn at(&mut self, index: usize) -> &mut Self {
        if index < self.recording.nodes.len() {
            self.last = index;
        }
        self
    }

    fn node(&mut self) -> &mut RecNode {
        &mut self.recording.nodes[self.last]
    }

    fn style_mut(&mut self) -> &mut Style {
        Arc::make_mut(
            self.node()
                .style
                .get_or_insert_with(|| Arc::new(default_style())),
        )
    }

    /// Sets the border box (document coordinates).
    pub fn bounds(&mut self, x: f64, y: f64, width: f64, height: f64) -> &mut Self {
        self.node().bounds = Some(Rect {
            x,
            y,
            width,
            height,
        });
        self
    }

    /// Removes the box (not rendered).
    pub fn no_bounds(&mut self) -> &mut Self {
        self.node().bounds = None;
        self
    }

    /// Removes the computed style (not rendered).
    pub fn no_style(&mut self) -> &mut Self {
        self.node().style = None;
        self
    }

    /// Edits the computed style.
    pub fn style(&mut self, edit: impl FnOnce(&mut Style)) -> &mut Self {
        edit(self.style_mut());
        self
    }

    /// `display`.
    pub fn display(&mut self, value: &str) -> &mut Self {
        self.style(|s| s.display = value.to_owned())
    }

    /// `visibility`.
    pub fn visibility(&mut self, value: &str) -> &mut Self {
        self.style(|s| s.visibility = value.to_owned())
    }

    /// `opacity` (the element's own).
    pub fn opacity(&mut self, value: f64) -> &mut Self {
        self.style(|s| s.opacity = value)
    }

    /// `position`.
    pub fn position(&mut self, value: &str) -> &mut Self {
        self.style(|s| s.position = value.to_owned())
    }

    /// `z-index`.
    pub fn z_index(&mut self, value: &str) -> &mut Self {
        self.style(|s| s.z_index = value.to_owned())
    }

    /// `cursor`.
    pub fn cursor(&mut self, value: &str) -> &mut Self {
        self.style(|s| s.cursor = value.to_owned())
    }

    /// `overflow-x` and `overflow-y`.
    pub fn overflow(&mut self, value: &str) -> &mut Self {
        self.style(|s| {
            s.overflow_x = value.to_owned();
            s.overflow_y = value.to_owned();
        })
    }

    /// `pointer-events`.
    pub fn pointer_events(&mut self, value: &str) -> &mut Self {
        self.style(|s| s.pointer_events = value.to_owned())
    }

    /// `background-color`.
    pub fn background(&mut self, value: &str) -> &mut Self {
        self.style(|s| s.background_color = value.to_owned())
    }

    /// `color`, the text's colour (setting it makes the element's text judged
    /// for legibility, as in a recording that captured it).
    pub fn color(&mut self, value: &str) -> &mut Self {
        self.style(|s| s.color = value.to_owned())
    }

    /// The colour Chromium blends behind the element's text.
    pub fn backdrop(&mut self, value: &str) -> &mut Self {
        self.node().backdrop = Some(value.to_owned());
        self
    }

    /// Paint order (overrides creation order).
    pub fn paint_order(&mut self, value: u32) -> &mut Self {
        self.node().paint_order = Some(value);
        self
    }

    /// No paint order.
    pub fn no_paint_order(&mut self) -> &mut Self {
        self.node().paint_order = None;
        self
    }

    /// A drop listener of its own ([`RecNode::droppable`]).
    pub fn droppable(&mut self) -> &mut Self {
        self.node().droppable = true;
        self
    }

    /// CDP reports a click listener.
    pub fn clickable(&mut self) -> &mut Self {
        self.node().clickable = true;
        self
    }

    /// Hovering it reveals content.
    pub fn hover(&mut self) -> &mut Self {
        self.node().hover = true;
        self
    }

    /// Focusing it shows it.
    pub fn focus_reveal(&mut self) -> &mut Self {
        self.node().focus_reveal = true;
        self
    }

    /// Scroll state of a scroll container.
    pub fn scroll_state(&mut self, state: ScrollState) -> &mut Self {
        self.node().scroll = Some(state);
        self
    }

    /// A `<dialog>` matching `:modal`.
    pub fn modal(&mut self) -> &mut Self {
        self.node().modal = true;
        self
    }

    /// Adds an attribute.
    pub fn attr(&mut self, name: &str, value: &str) -> &mut Self {
        let node = self.node();
        let mut attrs = node.attrs.to_vec();
        attrs.push((name.to_owned(), value.to_owned()));
        node.attrs = attrs.into();
        self
    }

    /// Live value of a form control.
    pub fn value(&mut self, value: &str) -> &mut Self {
        self.node().value = Some(value.to_owned());
        self
    }

    /// Live checkedness.
    pub fn checked(&mut self, checked: bool) -> &mut Self {
        self.node().checked = Some(checked);
        self
    }

    /// Viewport size.
    pub fn viewport(&mut self, width: f64, height: f64) -> &mut Self {
        self.recording.viewport.width = width;
        self.recording.viewport.height = height;
        self
    }

    /// Scroll position of the main document.
    pub fn scroll_to(&mut self, x: f64, y: f64) -> &mut Self {
        self.recording.scroll = Point { x, y };
        self
    }

    /// Document size; `<html>` and `<body>` grow to it.
    pub fn document_size(&mut self, width: f64, height: f64) -> &mut Self {
        self.recording.document_size = Size { width, height };
        for index in [1, 2] {
            self.recording.nodes[index].bounds = Some(Rect {
                x: 0.0,
                y: 0.0,
                width,
                height,
            });
        }
        self
    }

    /// Focused node.
    pub fn focused(&mut self, index: usize) -> &mut Self {
        self.recording.focused = u32::try_from(index).ok();
        self
    }

    /// Number of nodes so far.
    pub fn len(&self) -> usize {
        self.recording.nodes.len()
    }

    /// Whether only the document exists (never: `new` adds `<html>` and `<body>`).
    pub fn is_empty(&self) -> bool {
        self.recording.nodes.is_empty()
    }

    /// The recording.
    pub fn build(&self) -> Recording {
        self.recording.clone()
    }

    /// The page of the recording.
    pub fn page(&self) -> Page {
        Page::from_recording(&self.recording)
    }
}
