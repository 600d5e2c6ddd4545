//! The modal layer: reliable modals (aria-modal dialogs, `<dialog>` opened modal) obscure the rest; heuristic overlays only warn.
//!
//! Rules (seed 003, Pilo's "modal-aware occlusion"):
//!
//! - **Reliable**: a visible element whose role is `dialog` or
//!   `alertdialog` (the computed role, or the explicit `role` attribute read
//!   here directly) with `aria-modal="true"` (WAI-ARIA 1.2 §6.6:
//!   content outside is inert to assistive technology), or a `<dialog>`
//!   recorded as matching `:modal` (opened with `showModal()`, which makes
//!   the rest of the document inert, HTML §6.3.3). Among several, the
//!   top-most wins: highest paint order, ties and unknown paint order broken
//!   by later document order. Every node outside it is obscured, except its
//!   ancestors (they contain it) and its own subtree.
//! - **Suspected**: only when no reliable modal exists. A visible
//!   `position: fixed | absolute` element whose box covers ≥ 70% of the
//!   viewport's width and height, and that either has `z-index > 1000` or is
//!   the last element child of `<body>` (where portals put overlays) with a
//!   background that is not fully transparent. Overlays with
//!   `pointer-events: none` let clicks through and never count. The top-most such element is
//!   reported; nothing is obscured, since the heuristic is fragile and the
//!   agent must still be able to act on the page (a warning only).
//! - A "soft" dialog (`role=dialog` without `aria-modal`) is not a modal:
//!   the rest of the page stays usable. It only becomes Suspected if it is
//!   itself a large overlay as above.
//!
//! Pages parsed from HTML have no layout: only the `aria-modal` rule applies.

use super::{Role, Visibility};
use crate::page::{Element, NodeId, Page};

/// What kind of modal layer is present. Serialised as `none`, `reliable`
/// or `suspected`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ModalKind {
    /// No modal.
    #[default]
    None,
    /// `role=dialog|alertdialog` + `aria-modal="true"`, or `<dialog>` open as modal.
    Reliable,
    /// A heuristic overlay (large fixed/absolute high-z box): a warning only.
    Suspected,
}

impl ModalKind {
    /// The word for the kind in meta.
    pub fn as_str(self) -> &'static str {
        match self {
            ModalKind::None => "none",
            ModalKind::Reliable => "reliable",
            ModalKind::Suspected => "suspected",
        }
    }
}

/// The modal layer of a page.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModalLayer {
    /// Kind.
    pub kind: ModalKind,
    /// The top-most modal or suspected overlay.
    pub node: Option<NodeId>,
}

/// Share of the viewport's width and height a suspected overlay covers.
const OVERLAY_COVER: f64 = 0.7;
/// `z-index` above which a large positioned box is suspected to be an overlay.
const OVERLAY_Z: i64 = 1000;

/// The modal layer and, per node, whether it is obscured (outside a reliable modal).
pub(crate) fn compute(
    page: &Page,
    roles: &[Option<Role>],
    visibility: &[Visibility],
) -> (ModalLayer, Vec<bool>) {
    let mut obscured = vec![false; page.len()];
    if let Some(modal) = top_most(page, |id, element| {
        visibility[id.index()].is_visible() && is_reliable_modal(page, roles, id, element)
    }) {
        // Ancestors contain the modal; the modal's subtree is a contiguous range.
        let mut ancestor = vec![false; page.len()];
        for id in page.ancestors(modal) {
            ancestor[id.index()] = true;
        }
        for id in page.ids() {
            obscured[id.index()] = !ancestor[id.index()] && !page.contains(modal, id);
        }
        let layer = ModalLayer {
            kind: ModalKind::Reliable,
            node: Some(modal),
        };
        return (layer, obscured);
    }
    let suspected = page.has_layout.then(|| {
        top_most(page, |id, element| {
            visibility[id.index()].is_visible() && is_suspected_overlay(page, id, element)
        })
    });
    let layer = match suspected.flatten() {
        Some(node) => ModalLayer {
            kind: ModalKind::Suspected,
            node: Some(node),
        },
        None => ModalLayer::default(),
    };
    (layer, obscured)
}

/// The matching element painted last: highest paint order, then last in document order.
fn top_most(page: &Page, mut matches: impl FnMut(NodeId, &Element) -> bool) -> Option<NodeId> {
    page.elements()
        .filter(|element| matches(element.id(), element.value()))
        .map(|element| element.id())
        .max_by_key(|&id| {
            (
                page.layout(id).paint_order.map_or(0, |p| u64::from(p) + 1),
                id,
            )
        })
}

fn is_reliable_modal(page: &Page, roles: &[Option<Role>], id: NodeId, element: &Element) -> bool {
    if element.is("dialog") && page.layout(id).modal {
        return true;
    }
    let dialog_role = |role: &str| role == "dialog" || role == "alertdialog";
    let explicit = element
        .attr("role")
        .and_then(|roles| roles.split_ascii_whitespace().next())
        .is_some_and(|token| dialog_role(&token.to_ascii_lowercase()));
    (explicit || roles[id.index()].is_some_and(dialog_role))
        && element
            .attr("aria-modal")
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
}

fn is_suspected_overlay(page: &Page, id: NodeId, element: &Element) -> bool {
    if element.is("html") || element.is("body") {
        return false;
    }
    let layout = page.layout(id);
    let (Some(style), Some(bounds)) = (layout.style.as_ref(), layout.bounds) else {
        return false;
    };
    // An overlay that lets clicks through (decorative glass, tints) blocks nothing.
    if !matches!(style.position.as_str(), "fixed" | "absolute") || style.pointer_events == "none" {
        return false;
    }
    let viewport = page.viewport_rect();
    let covered_width = bounds.right().min(viewport.right()) - bounds.x.max(viewport.x);
    let covered_height = bounds.bottom().min(viewport.bottom()) - bounds.y.max(viewport.y);
    if !(covered_width >= OVERLAY_COVER * viewport.width
        && covered_height >= OVERLAY_COVER * viewport.height)
    {
        return false;
    }
    let high_z = style
        .z_index
        .trim()
        .parse::<i64>()
        .is_ok_and(|z| z > OVERLAY_Z);
    high_z
        || (is_last_child_of_body(page, id) && crate::color::alpha(&style.background_color) > 0.0)
}

fn is_last_child_of_body(page: &Page, id: NodeId) -> bool {
    let in_body = page
        .parent(id)
        .and_then(|p| page.element(p))
        .is_some_and(|p| p.is("body"));
    let mut next = page.next_sibling(id);
    while let Some(sibling) = next {
        if page.element(sibling).is_some() {
            return false;
        }
        next = page.next_sibling(sibling);
    }
    in_body
}
