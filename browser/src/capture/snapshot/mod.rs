//! Converts CDP's `DOMSnapshot.captureSnapshot` (flat per-document arrays) into Recording nodes in document order.
//!
//! CDP gives one `DocumentSnapshot` per frame with parent indexes, rare-data
//! tables and a separate layout table. We join them into one tree: shadow
//! roots first under their host, then light children, then an iframe's
//! content document last under the `<iframe>`; comments, doctypes and
//! pseudo-elements other than `::before`/`::after` are dropped. The output is
//! renumbered in pre-order.
//!
//! CSS generated content: a `::before`/`::after` pseudo-element is in the
//! snapshot as a node with two layout entries, its box and then the text its
//! `content` generated. That text becomes a text node marked with the pseudo
//! (`RecNode::pseudo`), the first child of its element for `::before` and the
//! last for `::after` (CDP lists both before the element's children). It
//! costs no extra call: the layout table already holds the text. `::marker`
//! text is left out: Chromium exposes list markers as nodes of their own,
//! outside accessible names, and Playwright's snapshot omits them.

mod queries;
mod tables;

use std::collections::{HashMap, HashSet};

use chromiumoxide::cdp::browser_protocol::dom_snapshot::{CaptureSnapshotReturns, StringIndex};
use pagesnap_engine::recording::{NodeKind, Pseudo, RecNode, Rect, ScrollState, Style};

pub(crate) use queries::{alternative_text, document_url, frame_owners, scroll_candidates};
use tables::{Doc, Strings, rect};

use crate::documents::is_error_page;

/// The computed styles requested from CDP, in the order `Style` is filled.
pub(crate) const COMPUTED_STYLES: &[&str] = &[
    "display",
    "visibility",
    "opacity",
    "position",
    "z-index",
    "cursor",
    "overflow-x",
    "overflow-y",
    "pointer-events",
    "background-color",
    // Read only for `::before`/`::after`: their alternative text.
    "content",
    // Whether a person can read the text (`engine::analyze::legibility`).
    "color",
    "-webkit-text-fill-color",
    "font-size",
    "clip",
    "clip-path",
    "background-image",
    "background-clip",
    "text-shadow",
    "-webkit-text-stroke-width",
    // Content Chromium skipped off screen (`analyze::visibility`).
    "content-visibility",
];

/// The index of `content` in [`COMPUTED_STYLES`].
const CONTENT: usize = 10;

const ELEMENT_NODE: i64 = 1;
const TEXT_NODE: i64 = 3;
const CDATA_NODE: i64 = 4;
const DOCUMENT_NODE: i64 = 9;
const FRAGMENT_NODE: i64 = 11;

/// `scrollLeft`, `scrollTop`, `scrollWidth`, `scrollHeight`, then
/// `clientLeft`, `clientTop`, `clientWidth`, `clientHeight` of an element.
pub(crate) type Boxes = [f64; 8];

/// Facts gathered outside the snapshot, keyed by backend node id.
#[derive(Default)]
pub(crate) struct Extras {
    /// Scroll and client boxes of the [`scroll_candidates`].
    pub boxes: HashMap<i64, Boxes>,
    /// `<dialog>` elements matching `:modal`.
    pub modal: HashSet<i64>,
    /// Elements hosting an open shadow root (found by script), needed where
    /// a shadow tree nests inside another of the same mode.
    pub hosts: HashSet<i64>,
    /// Elements hovering which reveals content (`:hover` rules and handler attributes).
    pub hover: HashSet<i64>,
    /// Focusable elements that focusing shows (`:focus` rules on the element itself).
    pub focus: HashSet<i64>,
    /// Elements with a mousedown, pointerdown or touchstart listener.
    pub pressable: HashSet<i64>,
    /// Elements with a drop listener of their own (`dragover`, `dragenter`,
    /// `drop`).
    pub droppable: HashSet<i64>,
}

/// The joined tree: nodes in document order and a backend id → index map.
pub(crate) struct Joined {
    pub nodes: Vec<RecNode>,
    pub by_backend: HashMap<u64, u32>,
}

/// One process's snapshot and facts: the tab's own, or an out-of-process frame's.
pub(crate) struct Part<'a> {
    pub snap: &'a CaptureSnapshotReturns,
    pub extras: &'a Extras,
    /// The frame number its nodes' keys carry ([`crate::frames::node_key`]).
    pub key: u32,
}

/// Joins all documents of all parts into one pre-ordered node list. The
/// first part is the tab's; `owners` places each other part under its
/// `<iframe>`: (parent part's frame number, the element's backend id) → part.
///
/// Bounds inside an iframe document are relative to that document; they are
/// moved into the top document's coordinates by the iframe's content-box
/// origin minus the frame's own scroll offset, whether the frame is in the
/// tab's process or out of it.
pub(crate) fn join(parts: &[Part<'_>], owners: &HashMap<(u32, i64), usize>) -> Joined {
    let tables: Vec<Strings<'_>> = parts.iter().map(|p| Strings(&p.snap.strings)).collect();
    let docs: Vec<Vec<Doc<'_>>> = parts
        .iter()
        .zip(&tables)
        .map(|(part, strings)| {
            part.snap
                .documents
                .iter()
                .map(|snap| Doc::new(snap, strings, part.extras))
                .collect()
        })
        .collect();

    let mut out = Joined {
        nodes: Vec::new(),
        by_backend: HashMap::new(),
    };
    if docs.first().is_none_or(Vec::is_empty) {
        return out;
    }
    struct Frame {
        part: usize,
        doc: usize,
        virtual_id: usize,
        parent: Option<u32>,
        foreign: Option<&'static str>,
        offset: (f64, f64),
    }
    let mut stack = vec![Frame {
        part: 0,
        doc: 0,
        virtual_id: 0,
        parent: None,
        foreign: None,
        offset: (0.0, 0.0),
    }];
    let mut visited_docs = HashSet::from([(0usize, 0usize)]);
    while let Some(Frame {
        part: p,
        doc: d,
        virtual_id,
        parent,
        foreign,
        offset,
    }) = stack.pop()
    {
        let strings = &tables[p];
        let extras = parts[p].extras;
        let doc = &docs[p][d];
        let nodes = &doc.snap.nodes;
        let count = doc.snap.nodes.parent_index.as_ref().map_or(0, Vec::len);
        let mut rec = RecNode {
            parent,
            ..RecNode::default()
        };
        let mut child_foreign = foreign;
        let mut child_offset = offset;
        let mut content_doc = None;
        if virtual_id >= count {
            rec.kind = match doc.roots.get(virtual_id - count).copied() {
                Some("closed") => NodeKind::ShadowRootClosed,
                Some("user-agent") => NodeKind::ShadowRootUserAgent,
                _ => NodeKind::ShadowRootOpen,
            };
        } else {
            let i = virtual_id;
            let key = i as i64;
            if let Some(kind) = doc.pseudo.get(&key) {
                if let Some(rec) = generated_text(rec, *kind, doc, key, offset) {
                    out.nodes.push(rec);
                }
                continue;
            }
            let node_type = nodes
                .node_type
                .as_ref()
                .and_then(|t| t.get(i))
                .copied()
                .unwrap_or(0);
            let backend = nodes
                .backend_node_id
                .as_ref()
                .and_then(|b| b.get(i))
                .map_or(0, |b| *b.inner());
            rec.backend_id = if backend > 0 {
                crate::frames::node_key(parts[p].key, backend)
            } else {
                0
            };
            match node_type {
                DOCUMENT_NODE => {
                    rec.kind = if parent.is_none() {
                        NodeKind::Document
                    } else {
                        NodeKind::IframeDocument
                    };
                }
                // Shadow roots are synthesised above; other fragments do not occur.
                FRAGMENT_NODE => continue,
                ELEMENT_NODE => {
                    child_foreign = element(&mut rec, foreign, doc, i, strings, extras, backend);
                    content_doc = match doc.content_doc.get(&key) {
                        Some(&c) => usize::try_from(c).ok().map(|c| (p, c)),
                        None => owners.get(&(parts[p].key, backend)).map(|&q| (q, 0)),
                    };
                }
                TEXT_NODE | CDATA_NODE => {
                    rec.kind = NodeKind::Text;
                    let value = nodes
                        .node_value
                        .as_ref()
                        .and_then(|v| v.get(i))
                        .map_or("", |s| strings.get_static(s));
                    rec.text = Some(value.into());
                }
                _ => continue,
            }
            if let Some(&k) = doc.layout_of.get(&key) {
                let boxes = extras.boxes.get(&backend);
                let frame = content_doc.is_some();
                if let Some(content_box) = layout(&mut rec, doc, k, offset, strings, boxes, frame) {
                    child_offset = content_box;
                }
            }
        }
        let index = u32::try_from(out.nodes.len()).unwrap_or(u32::MAX);
        if rec.backend_id != 0 {
            out.by_backend.insert(rec.backend_id, index);
        }
        out.nodes.push(rec);

        // Push children reversed so they pop in order; a frame's content
        // document comes last.
        if let Some((q, content)) = content_doc {
            // A frame that failed to load shows Chromium's error page, which
            // is not page content (and not reachable from page scripts).
            let inner = docs.get(q).and_then(|docs| docs.get(content));
            let error_page =
                inner.is_some_and(|doc| is_error_page(tables[q].get(&doc.snap.document_url)));
            if let Some(inner) = inner.filter(|_| !error_page)
                && visited_docs.insert((q, content))
            {
                let scroll = (
                    inner.snap.scroll_offset_x.unwrap_or(0.0),
                    inner.snap.scroll_offset_y.unwrap_or(0.0),
                );
                stack.push(Frame {
                    part: q,
                    doc: content,
                    virtual_id: 0,
                    parent: Some(index),
                    foreign: None,
                    offset: (child_offset.0 - scroll.0, child_offset.1 - scroll.1),
                });
            }
        }
        let kids = doc.children.get(virtual_id).map_or(&[][..], Vec::as_slice);
        for &child in kids.iter().rev() {
            stack.push(Frame {
                part: p,
                doc: d,
                virtual_id: child,
                parent: Some(index),
                foreign: child_foreign,
                offset,
            });
        }
    }
    out
}

/// The text node a `::before` or `::after` (`kind`; `None` for other
/// pseudo-elements, which are left out) of `doc`'s node `key` becomes, when it
/// generates text.
fn generated_text(
    mut rec: RecNode,
    kind: Option<Pseudo>,
    doc: &Doc<'_>,
    key: i64,
    offset: (f64, f64),
) -> Option<RecNode> {
    let (Some(kind), Some(text)) = (kind, doc.generated.get(&key)) else {
        return None;
    };
    rec.kind = NodeKind::Text;
    rec.text = Some(text.as_str().into());
    rec.pseudo = Some(kind);
    rec.bounds = doc
        .layout_of
        .get(&key)
        .and_then(|&k| doc.snap.layout.bounds.get(k))
        .and_then(|r| rect(r.inner()))
        .map(|r| moved(r, offset));
    Some(rec)
}

/// `r` moved by `offset`.
fn moved(r: Rect, offset: (f64, f64)) -> Rect {
    Rect {
        x: r.x + offset.0,
        y: r.y + offset.1,
        ..r
    }
}

/// Fills in element `i` of `doc`: its name and namespace, attributes, form
/// state, and what the page's listeners and dialogs make of it (`backend`,
/// its backend node id, keys [`Extras`]). Returns the namespace its children
/// inherit (`foreign`: the one it inherits).
fn element(
    rec: &mut RecNode,
    foreign: Option<&'static str>,
    doc: &Doc<'_>,
    i: usize,
    strings: &Strings<'_>,
    extras: &Extras,
    backend: i64,
) -> Option<&'static str> {
    rec.kind = NodeKind::Element;
    let key = i as i64;
    let name = doc.name(i, strings);
    // CDP upper-cases HTML element names and keeps foreign (SVG,
    // MathML) names as written, which is how we tell them apart.
    let is_foreign = name.bytes().any(|b| b.is_ascii_lowercase());
    let inherited = if is_foreign {
        let ns = match (foreign, name) {
            (Some(ns), _) => ns,
            (None, "math") => "math",
            (None, _) => "svg",
        };
        rec.ns = Some(ns.to_owned());
        rec.tag = name.to_owned();
        Some(ns)
    } else {
        rec.tag = name.to_ascii_lowercase();
        None
    };
    if let Some(attrs) = doc.snap.nodes.attributes.as_ref().and_then(|a| a.get(i)) {
        rec.attrs = attrs
            .inner()
            .chunks_exact(2)
            .map(|pair| {
                (
                    strings.get(&pair[0]).to_owned(),
                    strings.get(&pair[1]).to_owned(),
                )
            })
            .collect();
    }
    let input_type = rec
        .attrs
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("type"))
        .map(|(_, v)| v.to_ascii_lowercase())
        .unwrap_or_default();
    match rec.tag.as_str() {
        "input" if rec.ns.is_none() => {
            if input_type == "checkbox" || input_type == "radio" {
                rec.checked = Some(doc.checked.contains(&key));
            }
            rec.value = Some(doc.input_value.get(&key).copied().unwrap_or("").to_owned());
        }
        "textarea" if rec.ns.is_none() => {
            rec.value = Some(
                doc.text_value
                    .get(&key)
                    .or_else(|| doc.input_value.get(&key))
                    .copied()
                    .unwrap_or("")
                    .to_owned(),
            );
        }
        "option" if rec.ns.is_none() => rec.selected = Some(doc.selected.contains(&key)),
        _ => {}
    }
    rec.clickable = doc.clickable.contains(&key) || extras.pressable.contains(&backend);
    rec.modal = extras.modal.contains(&backend);
    rec.hover = extras.hover.contains(&backend);
    rec.focus_reveal = extras.focus.contains(&backend);
    rec.droppable = extras.droppable.contains(&backend);
    inherited
}

/// Fills in what layout entry `k` of `doc` says of a node: its bounds,
/// moved by `offset` (its document's place on the page), and for an element
/// its style, paint order and scroll state (`boxes`: its scroll and client
/// boxes, when read). Returns where a frame element's (`frame`) content box
/// starts, which places its document.
fn layout(
    rec: &mut RecNode,
    doc: &Doc<'_>,
    k: usize,
    offset: (f64, f64),
    strings: &Strings<'_>,
    boxes: Option<&Boxes>,
    frame: bool,
) -> Option<(f64, f64)> {
    let layout = &doc.snap.layout;
    rec.bounds = layout
        .bounds
        .get(k)
        .and_then(|r| rect(r.inner()))
        .map(|r| moved(r, offset));
    if rec.kind != NodeKind::Element {
        return None;
    }
    rec.style = layout
        .styles
        .get(k)
        .map(|s| std::sync::Arc::new(style(s.inner(), strings)));
    rec.paint_order = layout
        .paint_orders
        .as_ref()
        .and_then(|p| p.get(k))
        .and_then(|&p| u32::try_from(p).ok());
    let scroll = boxes.and_then(|b| rect(&b[..4]));
    let client = boxes.and_then(|b| rect(&b[4..]));
    if let (Some(scroll), Some(client)) = (scroll, client) {
        let overflows = scroll.width > client.width + 1.0 || scroll.height > client.height + 1.0;
        let scrolled = scroll.x != 0.0 || scroll.y != 0.0;
        if (overflows || scrolled) && client.width > 0.0 && client.height > 0.0 {
            rec.scroll = Some(ScrollState {
                x: scroll.x,
                y: scroll.y,
                width: scroll.width,
                height: scroll.height,
                client_width: client.width,
                client_height: client.height,
            });
        }
    }
    if frame && let Some(bounds) = rec.bounds {
        // The frame's content box starts inside its border (clientLeft/Top).
        let (cx, cy) = client.map_or((0.0, 0.0), |c| (c.x, c.y));
        return Some((bounds.x + cx, bounds.y + cy));
    }
    None
}

fn style(values: &[StringIndex], strings: &Strings<'_>) -> Style {
    let get = |i: usize| values.get(i).map_or("", |s| strings.get(s)).to_owned();
    Style {
        display: get(0),
        visibility: get(1),
        opacity: get(2).parse().unwrap_or(1.0),
        position: get(3),
        z_index: get(4),
        cursor: get(5),
        overflow_x: get(6),
        overflow_y: get(7),
        pointer_events: get(8),
        background_color: get(9),
        color: get(11),
        text_fill: unless(get(12), &get(11)),
        font_size: get(13).strip_suffix("px").and_then(|px| px.parse().ok()),
        clip: unless(get(14), "auto"),
        clip_path: unless(get(15), "none"),
        background_image: unless(get(16), "none"),
        background_clip: unless(get(17), "border-box"),
        text_shadow: unless(get(18), "none"),
        text_stroke: unless(get(19), "0px"),
        content_visibility: unless(get(20), "visible"),
    }
}

/// The value, or empty where it is `initial` (what a recording leaves out).
fn unless(value: String, initial: &str) -> String {
    if value == initial {
        String::new()
    } else {
        value
    }
}

#[cfg(test)]
mod join_tests;

#[cfg(test)]
mod tests {
    use super::alternative_text;

    #[test]
    fn the_alternative_text_is_the_strings_after_the_top_level_slash() {
        assert_eq!(
            alternative_text(r#""★" / "Rated""#).as_deref(),
            Some("Rated")
        );
        assert_eq!(
            alternative_text(r#"url("data:image/gif;base64,R0/lG") / "Logo""#).as_deref(),
            Some("Logo")
        );
        assert_eq!(
            alternative_text(r#""a / b" / "Two " "parts""#).as_deref(),
            Some("Two parts")
        );
        assert_eq!(alternative_text(r#""x" / """#).as_deref(), Some(""));
        assert_eq!(alternative_text(r#""say \"hi\" / no""#), None);
        assert_eq!(alternative_text("normal"), None);
        assert_eq!(alternative_text(r#""★""#), None);
    }
}
