//! Walking the page in document order: the non-recursive walk, layer scope, and which nodes set text apart.

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

/// Depth-first walk in document order without recursion (deep DOMs cannot
/// overflow the stack). Linear: each node is pushed at most twice.
pub(crate) fn walk(page: &Page, root: NodeId, mut visit: impl FnMut(Step) -> bool) {
    let mut stack = vec![(root, false)];
    while let Some((id, entered)) = stack.pop() {
        if entered {
            visit(Step::Exit(id));
            continue;
        }
        if !visit(Step::Enter(id)) {
            continue;
        }
        stack.push((id, true));
        let mut child = page.last_child(id);
        while let Some(c) = child {
            stack.push((c, false));
            child = page.prev_sibling(c);
        }
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
