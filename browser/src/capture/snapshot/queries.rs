//! What the rest of the crate reads straight from a `DOMSnapshot`: the document URL, scroll candidates, out-of-process frame owners, `content` alternative text.

use chromiumoxide::cdp::browser_protocol::dom_snapshot::CaptureSnapshotReturns;

use super::tables::{Strings, rare_ints};
use super::{COMPUTED_STYLES, ELEMENT_NODE};

/// The alternative text of a computed `content` value: the strings after
/// its top-level `/` (`"★" / "Rated"` → `Rated`, `url(x.png) / "Logo"` →
/// `Logo`), or `None` when it has none.
pub(crate) fn alternative_text(content: &str) -> Option<String> {
    let mut depth = 0usize;
    let mut quote = None;
    let mut escaped = false;
    let mut slash = None;
    for (i, c) in content.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match (quote, c) {
            (_, '\\') => escaped = true,
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '(') => depth += 1,
            (None, ')') => depth = depth.saturating_sub(1),
            (None, '/') if depth == 0 => {
                slash = Some(i);
                break;
            }
            _ => {}
        }
    }
    let rest = &content[slash? + 1..];
    let mut out = String::new();
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        if c != '"' && c != '\'' {
            continue;
        }
        while let Some(d) = chars.next() {
            match d {
                '\\' => {
                    if let Some(e) = chars.next() {
                        out.push(e);
                    }
                }
                d if d == c => break,
                d => out.push(d),
            }
        }
    }
    Some(out)
}

/// The URL of the main document the snapshot holds: the page actually
/// captured, which differs from the one loaded when the page navigated away
/// (a script setting `location`, a meta refresh, `history.pushState`).
pub(crate) fn document_url(snapshot: &CaptureSnapshotReturns) -> Option<String> {
    let strings = Strings(&snapshot.strings);
    snapshot
        .documents
        .first()
        .map(|doc| strings.get(&doc.document_url).to_owned())
        .filter(|url| !url.is_empty())
}

/// Elements whose scroll and client boxes a recording needs, by backend node
/// id: the boxes a person can scroll (computed `overflow-x` or `overflow-y`
/// of `auto`, `scroll` or `overlay`) and frames, whose content box places
/// their document. Asking for these few instead of every element's DOM rects
/// (`includeDOMRects`) halves the snapshot's cost. `overflow: hidden` boxes
/// are not asked for: only script scrolls them, the engine reads no scroll
/// state of theirs (`analyze::scroll`), and pages hold hundreds of them (the
/// 24-page spread: 208 on wikia, 155 on breitbart, of which 8 and 0 a person
/// can scroll; one `DOM.resolveNode` each). One list per document: a script
/// can read the elements of one document (one JavaScript world) at once.
pub(crate) fn scroll_candidates(snapshot: &CaptureSnapshotReturns) -> Vec<Vec<i64>> {
    let strings = Strings(&snapshot.strings);
    let position = |name: &str| COMPUTED_STYLES.iter().position(|s| *s == name);
    let (Some(overflow_x), Some(overflow_y)) = (position("overflow-x"), position("overflow-y"))
    else {
        return Vec::new();
    };
    let scrolls = |value: &str| matches!(value, "auto" | "scroll" | "overlay");
    let mut out = Vec::new();
    for doc in &snapshot.documents {
        let mut ids = Vec::new();
        let nodes = &doc.nodes;
        let frames = rare_ints(nodes.content_document_index.as_ref());
        for (k, &node) in doc.layout.node_index.iter().enumerate() {
            let Some(styles) = doc.layout.styles.get(k) else {
                continue;
            };
            let styles = styles.inner();
            let value = |i: usize| styles.get(i).map_or("", |s| strings.get(s));
            let owner = usize::try_from(node)
                .ok()
                .and_then(|i| nodes.node_name.as_ref()?.get(i))
                .is_some_and(|n| is_frame(strings.get(n)));
            if !(scrolls(value(overflow_x))
                || scrolls(value(overflow_y))
                || frames.contains_key(&node)
                || owner)
            {
                continue;
            }
            let backend = usize::try_from(node)
                .ok()
                .and_then(|i| nodes.backend_node_id.as_ref()?.get(i))
                .map(|b| *b.inner());
            let is_element = usize::try_from(node)
                .ok()
                .and_then(|i| nodes.node_type.as_ref()?.get(i))
                == Some(&ELEMENT_NODE);
            if let (Some(backend), true) = (backend, is_element) {
                ids.push(backend);
            }
        }
        ids.sort_unstable();
        ids.dedup();
        if !ids.is_empty() {
            out.push(ids);
        }
    }
    out
}

/// The `<iframe>`/`<frame>` elements with a box whose document the snapshot
/// lacks, by backend node id, with their `src`: frames rendered out of
/// process (or not loaded at all), each to be asked for in a session of its own.
pub(crate) fn frame_owners(snapshot: &CaptureSnapshotReturns) -> Vec<(i64, String)> {
    let strings = Strings(&snapshot.strings);
    let mut out: Vec<(i64, String)> = Vec::new();
    for doc in &snapshot.documents {
        let nodes = &doc.nodes;
        let frames = rare_ints(nodes.content_document_index.as_ref());
        let (Some(names), Some(backends)) = (&nodes.node_name, &nodes.backend_node_id) else {
            continue;
        };
        // The layout table lists the nodes with a box, in document order.
        for &node in &doc.layout.node_index {
            let Ok(i) = usize::try_from(node) else {
                continue;
            };
            if !names.get(i).is_some_and(|n| is_frame(strings.get(n))) || frames.contains_key(&node)
            {
                continue;
            }
            let Some(backend) = backends.get(i).map(|b| *b.inner()) else {
                continue;
            };
            if out.last().is_some_and(|(last, _)| *last == backend) {
                continue;
            }
            let src = nodes
                .attributes
                .as_ref()
                .and_then(|a| a.get(i))
                .and_then(|attrs| {
                    attrs
                        .inner()
                        .chunks_exact(2)
                        .find(|pair| strings.get(&pair[0]).eq_ignore_ascii_case("src"))
                        .map(|pair| strings.get(&pair[1]).to_owned())
                })
                .unwrap_or_default();
            out.push((backend, src));
        }
    }
    out
}

/// Whether a DOMSnapshot node name (HTML upper-cased) is a frame's owner element.
fn is_frame(name: &str) -> bool {
    matches!(name, "IFRAME" | "FRAME")
}
