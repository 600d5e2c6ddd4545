//! Content Chromium skipped: the descendants of an off-screen `content-visibility: auto` element, which a recording holds without boxes or styles though a person scrolling reaches them.

use crate::page::{NodeId, Page};

/// Per node, whether it lies in skipped content: below a
/// `content-visibility: auto` element none of whose descendants has a box
/// (an on-screen one is laid out as usual, and its unboxed descendants are
/// unrendered). `None` when the page has no such element (the usual case).
pub(crate) fn skipped_content(page: &Page) -> Option<Vec<bool>> {
    if !page.has_layout {
        return None;
    }
    let auto = |id: NodeId| {
        page.layout(id)
            .style
            .as_ref()
            .is_some_and(|s| s.content_visibility == "auto")
    };
    if !page.ids().any(auto) {
        return None;
    }
    // Whether any descendant has a box (reverse document order).
    let mut boxed = vec![false; page.len()];
    for id in page.ids().rev() {
        if let Some(parent) = page.parent(id)
            && (page.layout(id).bounds.is_some() || boxed[id.index()])
        {
            boxed[parent.index()] = true;
        }
    }
    let mut skipped = vec![false; page.len()];
    for id in page.ids() {
        if let Some(parent) = page.parent(id) {
            skipped[id.index()] =
                skipped[parent.index()] || (auto(parent) && !boxed[parent.index()]);
        }
    }
    Some(skipped)
}
