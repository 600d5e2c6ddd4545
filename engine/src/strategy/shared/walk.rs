//! Walking the page in flat-tree order: the non-recursive walk, layer scope, and which nodes set text apart.

use std::collections::HashSet;

use crate::analyze::Dom;
use crate::page::{Node, NodeId, Page, ShadowMode};
use crate::passes::Context;

/// What a walk callback sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// Entering a node; return `false` to skip its subtree (no `Exit` then).
    Enter(NodeId),
    /// Leaving a node whose subtree was walked.
    Exit(NodeId),
}

/// Depth-first walk without recursion (deep DOMs cannot overflow the
/// stack) in flat-tree order, as the page renders: a host with an author
/// shadow root shows its shadow tree, where each `<slot>` shows the host's
/// children assigned to it (elements whose `slot` attribute names it; text
/// and unnamed elements for the unnamed slot), or its own children when
/// none are; host children no slot takes are not rendered, so not walked.
/// Only the first slot of a name in a shadow tree is assigned nodes, so
/// each node is entered at most once. `aria-owns` moves each owned element
/// after its owner's children (WAI-ARIA 1.2 §6.6: the owned element is read
/// as the owner's child); on such pages a node already entered is never
/// entered again, whatever cycle the attributes make. Linear: each node is
/// pushed at most twice, and a host's children are scanned once per slot.
pub(crate) fn walk(page: &Page, dom: &Dom, root: NodeId, mut visit: impl FnMut(Step) -> bool) {
    let mut stack = vec![(root, false)];
    // (host, slot name) pairs already given their nodes.
    let mut filled: HashSet<(NodeId, &str)> = HashSet::new();
    let mut assigned = Vec::new();
    let owns = dom.has_owns();
    let mut entered_once = vec![false; if owns { page.len() } else { 0 }];
    while let Some((id, entered)) = stack.pop() {
        if entered {
            visit(Step::Exit(id));
            continue;
        }
        if owns {
            if entered_once[id.index()] {
                continue;
            }
            entered_once[id.index()] = true;
        }
        if !visit(Step::Enter(id)) {
            continue;
        }
        stack.push((id, true));
        if owns {
            // Pushed first, so popped after the owner's own children.
            let owned = dom.owned(id);
            stack.extend(owned.iter().rev().map(|&c| (c, false)));
        }
        if let Some(root) = author_shadow_root(page, id) {
            stack.push((root, false));
            continue;
        }
        assigned.clear();
        if let Some((host, name)) = slot_of(page, id) {
            if filled.insert((host, name)) {
                assigned.extend(page.children(host).filter(|&c| takes(page, c, name)));
            }
        }
        if !assigned.is_empty() {
            stack.extend(
                assigned
                    .iter()
                    .rev()
                    .filter(|&&c| !owns || dom.owner(c).is_none())
                    .map(|&c| (c, false)),
            );
            continue;
        }
        let mut child = page.last_child(id);
        while let Some(c) = child {
            // An owned element is read under its owner, not here.
            if !owns || dom.owner(c).is_none() {
                stack.push((c, false));
            }
            child = page.prev_sibling(c);
        }
    }
}

/// The open or closed shadow root `id` hosts (always its first child).
/// User-agent roots are the browser's internals: their host's own children
/// are walked instead.
fn author_shadow_root(page: &Page, id: NodeId) -> Option<NodeId> {
    page.first_child(id).filter(|&c| {
        matches!(
            page.node(c),
            Node::ShadowRoot(ShadowMode::Open | ShadowMode::Closed)
        )
    })
}

/// The host and slot name of a `<slot>` in an author shadow tree.
fn slot_of(page: &Page, id: NodeId) -> Option<(NodeId, &str)> {
    let element = page.element(id).filter(|e| e.is("slot"))?;
    let root = page.tree_root(id);
    if !matches!(
        page.node(root),
        Node::ShadowRoot(ShadowMode::Open | ShadowMode::Closed)
    ) {
        return None;
    }
    Some((page.parent(root)?, element.attr("name").unwrap_or("")))
}

/// Whether a host's child goes to the slot named `name`.
fn takes(page: &Page, child: NodeId, name: &str) -> bool {
    match page.node(child) {
        Node::Element(e) => e.attr("slot").unwrap_or("") == name,
        Node::Text(_) => name.is_empty(),
        _ => false,
    }
}

/// Per node: the node or one of its descendants is in the active layers.
pub(crate) fn scope_or_descendant(ctx: &Context<'_>) -> Vec<bool> {
    let page = ctx.page;
    let mut any: Vec<bool> = page.ids().map(|id| ctx.in_scope(id)).collect();
    for id in page.ids().rev() {
        if any[id.index()]
            && let Some(parent) = page.parent(id)
        {
            any[parent.index()] = true;
        }
    }
    any
}

/// Whether a user-agent shadow root (the browser's own internals) or a node the
/// walk never renders.
pub(crate) fn is_user_agent_root(page: &Page, id: NodeId) -> bool {
    matches!(page.node(id), Node::ShadowRoot(ShadowMode::UserAgent))
}

/// Whether the element's content is set apart from its neighbours' text
/// (Playwright surrounds such elements' content with spaces): any display
/// class but inline, and `<br>`.
pub(crate) fn is_block(ctx: &Context<'_>, id: NodeId) -> bool {
    ctx.page
        .element(id)
        .is_some_and(|e| e.is("br") || !ctx.analysis.dom.display(id).is_inline())
}
