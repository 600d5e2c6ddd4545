//! Build and distill: one walk turns the page into the model tree (`toAriaNode`), then text children are merged and normalised.

use std::borrow::Cow;

use crate::analyze::{Checked, Hidden, Invalid, NameSource, input_type, whitespace};
use crate::page::{Node, NodeId};
use crate::passes::{Context, redact};
use crate::strategy::shared::text::normalize_whitespace;
use crate::strategy::shared::walk::{
    Step, is_block, is_user_agent_root, scope_or_descendant, walk,
};

#[derive(Debug)]
pub(super) enum Child<'p> {
    /// Raw (unmerged) text, borrowed from the page until merged, and
    /// whether it is in the viewport.
    Text(Cow<'p, str>, bool),
    Node(usize),
}

#[derive(Debug)]
pub(super) struct AriaNode<'p> {
    pub(super) id: NodeId,
    pub(super) role: &'static str,
    pub(super) name: String,
    /// The name surely runs past the [`MAX_NAME_CHARS`] Playwright prints, so
    /// it was neither redacted nor normalised (`name` is empty): a layout
    /// cell named from a whole article. [`shown_name`] gives it when a lone
    /// text child must be compared with it.
    pub(super) long_name: bool,
    /// ` [checked]` … ` [selected]`, already rendered.
    pub(super) states: String,
    pub(super) reference: Option<u32>,
    pub(super) new: bool,
    pub(super) obscured: bool,
    /// A role-less element (implicit `generic`, `none`, `presentation`)
    /// Playwright would not print; kept only to carry its ref.
    pub(super) ref_only: bool,
    pub(super) props: Vec<(&'static str, String)>,
    pub(super) children: Vec<Child<'p>>,
}

pub(super) struct Tree<'p> {
    pub(super) nodes: Vec<AriaNode<'p>>,
}

pub(super) const ROOT: usize = 0;

/// Playwright prints a name of at most this many characters.
pub(super) const MAX_NAME_CHARS: usize = 900;

/// The name as printed: redacted, then whitespace normalised.
fn shown_name(ctx: &Context<'_>, id: NodeId) -> String {
    normalize_whitespace(&ctx.name_ref(id))
}

/// Hidden from the accessibility tree: the whole subtree is skipped, as
/// Playwright's `isElementHiddenForAria` does in its default mode.
pub(super) fn hidden_for_aria(reason: Option<Hidden>) -> bool {
    matches!(
        reason,
        Some(
            Hidden::NotRendered
                | Hidden::VisibilityHidden
                | Hidden::HiddenAttribute
                | Hidden::AriaHidden
                | Hidden::Inert
        )
    )
}

/// Skipped, subtree and all: hidden for aria, or — unless the caller asked
/// to see everything ([`Context::show_hidden`]) — hidden from a person
/// (transparent, clipped, of no area, unreadable text: [`Hidden::WITHHELD`]).
/// Content scrolled out of a scroll container stays, as Playwright shows it:
/// a person reaches it by scrolling.
fn skipped(ctx: &Context<'_>, reason: Option<Hidden>) -> bool {
    hidden_for_aria(reason)
        || (!ctx.show_hidden && reason.is_some_and(|r| Hidden::WITHHELD.contains(&r)))
}

/// An element skipped, subtree and all: as [`skipped`], or (unless showing
/// everything) wholly covered by an opaque box. An element of no area stays:
/// it shows nothing itself, but still separates the text around it (`<br>`),
/// and its text, of no area too, is withheld run by run.
fn element_skipped(ctx: &Context<'_>, id: NodeId) -> bool {
    let reason = ctx.analysis.visibility[id.index()].hidden;
    if reason == Some(Hidden::ZeroArea) {
        return false;
    }
    skipped(ctx, reason) || (!ctx.show_hidden && ctx.analysis.covered[id.index()])
}

/// Roles Playwright prints `[invalid]` for (`kAriaInvalidRoles`).
pub(super) const INVALID_ROLES: [&str; 14] = [
    "application",
    "checkbox",
    "columnheader",
    "combobox",
    "gridcell",
    "listbox",
    "radiogroup",
    "rowheader",
    "searchbox",
    "slider",
    "spinbutton",
    "switch",
    "textbox",
    "tree",
];

/// The states in Playwright's `createKey` order: checked, disabled,
/// expanded, active, invalid, level, pressed, selected.
pub(super) fn states_suffix(ctx: &Context<'_>, id: NodeId, role: &str) -> String {
    let s = &ctx.analysis.states[id.index()];
    let mut out = String::new();
    match s.checked {
        Some(Checked::Mixed) => out.push_str(" [checked=mixed]"),
        Some(Checked::True) => out.push_str(" [checked]"),
        _ => {}
    }
    if s.disabled {
        out.push_str(" [disabled]");
    }
    if s.expanded == Some(true) {
        out.push_str(" [expanded]");
    }
    if s.focused {
        out.push_str(" [active]");
    }
    if let Some(kind) = s.invalid.filter(|_| INVALID_ROLES.contains(&role)) {
        // `aria-invalid="grammar"` / `"spelling"` keep their kind.
        out.push_str(match kind {
            Invalid::True => " [invalid]",
            Invalid::Grammar => " [invalid=grammar]",
            Invalid::Spelling => " [invalid=spelling]",
        });
    }
    if let Some(level) = s.level.filter(|&l| l > 0) {
        out.push_str(&format!(" [level={level}]"));
    }
    match s.pressed {
        Some(Checked::Mixed) => out.push_str(" [pressed=mixed]"),
        Some(Checked::True) => out.push_str(" [pressed]"),
        _ => {}
    }
    if s.selected == Some(true) {
        out.push_str(" [selected]");
    }
    out
}

/// The node an element contributes, if any (Playwright's `toAriaNode`).
pub(super) fn to_aria_node<'p>(ctx: &Context<'p>, id: NodeId) -> Option<AriaNode<'p>> {
    let page = ctx.page;
    let element = page.element(id)?;
    let i = id.index();
    let reference = ctx.ref_number(id);
    let obscured = ctx.analysis.obscured[i]
        && ctx.analysis.interactive[i].is_some()
        && ctx.analysis.visibility[i].is_visible();
    let mut ref_only = false;
    let role = if element.is("iframe") {
        "iframe"
    } else {
        // An element with no role at all (an SVG shape inside its `<svg>`)
        // is shown only when it has a ref, like a role-less generic.
        let role = ctx.analysis.role(id).or(reference.map(|_| "none"))?;
        let explicit_generic = ctx.analysis.explicit_roles[i];
        match role {
            // Without a ref, role-less elements stay transparent even when
            // obscured: their text is kept, as Playwright keeps it.
            "none" | "presentation" if reference.is_none() => return None,
            "none" | "presentation" => {
                ref_only = true;
                "generic"
            }
            // `<html>` is the document the snapshot is of, not a node in it.
            "document" if element.is("html") => return None,
            "generic" if !explicit_generic && reference.is_none() => return None,
            "generic" if !explicit_generic => {
                ref_only = true;
                "generic"
            }
            role => role,
        }
    };
    // An iframe is named by its `title` (HTML-AAM), like any named generic.
    // Chromium names a `<dt>` from its content, Playwright's YAML does not
    // (`- term: Subtotal`): the line keeps Playwright's form.
    let computed = ctx.analysis.name(id);
    let from_content = computed.is_some_and(|n| n.source == NameSource::Text);
    // Redacting and normalising a name of a whole article's text costs more
    // than printing the article; one surely too long to print is left.
    let long_name = from_content
        && computed.is_some_and(|n| {
            n.text.len() > MAX_NAME_CHARS && redact::keeps_more_than(&n.text, MAX_NAME_CHARS)
        });
    let name = if (role == "term" && from_content) || long_name {
        String::new()
    } else {
        shown_name(ctx, id)
    };
    let mut node = AriaNode {
        id,
        role,
        name,
        long_name,
        states: states_suffix(ctx, id, role),
        reference,
        new: reference.is_some() && ctx.is_new(id),
        obscured,
        ref_only,
        props: Vec::new(),
        children: Vec::new(),
    };
    if (element.is("input") || element.is("textarea"))
        && !matches!(input_type(element), "checkbox" | "radio" | "file")
        && let Some(value) = ctx.value(id)
    {
        let in_viewport = ctx.analysis.visibility[i].in_viewport;
        node.children
            .push(Child::Text(Cow::Owned(value), in_viewport));
    }
    Some(node)
}

pub(super) fn build<'p>(ctx: &Context<'p>) -> Tree<'p> {
    let page = ctx.page;
    let analysis = ctx.analysis;
    let any_scope = scope_or_descendant(ctx);
    // At most one model node per element and the root: room for them all
    // up front, as growing a vector of nodes this size copies it each time.
    let elements = page.ids().filter(|&id| page.element(id).is_some()).count();
    let mut nodes = Vec::with_capacity(elements + 1);
    nodes.push(AriaNode {
        id: NodeId::ROOT,
        role: "fragment",
        name: String::new(),
        long_name: false,
        states: String::new(),
        reference: None,
        ref_only: false,
        new: false,
        obscured: false,
        props: Vec::new(),
        children: Vec::new(),
    });
    let mut tree = Tree { nodes };
    // Open model nodes; `opened[i]` says whether element i opened one.
    let mut open = vec![ROOT];
    let mut opened = vec![false; page.len()];
    let mut block = vec![false; page.len()];
    let push_text = |tree: &mut Tree<'p>, open: &[usize], text: Cow<'p, str>, in_viewport: bool| {
        let current = open.last().copied().unwrap_or(ROOT);
        tree.nodes[current]
            .children
            .push(Child::Text(text, in_viewport));
    };
    walk(page, &analysis.dom, NodeId::ROOT, |step| match step {
        Step::Enter(id) => {
            let i = id.index();
            if !any_scope[i] || is_user_agent_root(page, id) {
                return false;
            }
            let visibility = analysis.visibility[i];
            match page.node(id) {
                Node::Text(text) => {
                    let current = open.last().copied().unwrap_or(ROOT);
                    let shown = ctx.in_scope(id)
                        && !skipped(ctx, visibility.hidden)
                        && (ctx.full_page || visibility.in_viewport)
                        // `<textarea>AAA</textarea>`: the value child says it.
                        && tree.nodes[current].role != "textbox";
                    if shown {
                        push_text(
                            &mut tree,
                            &open,
                            ctx.text_of(id, text),
                            visibility.in_viewport,
                        );
                    }
                    false
                }
                Node::Element(_) => {
                    // `visibility: hidden` hides the element and its own
                    // text, not a descendant that is `visibility: visible`
                    // again (CSS 2.2 §11.2; Chromium's tree shows it).
                    if visibility.hidden == Some(Hidden::VisibilityHidden) {
                        return true;
                    }
                    if element_skipped(ctx, id) {
                        return false;
                    }
                    let contributes = ctx.in_scope(id) && (ctx.full_page || visibility.in_viewport);
                    if !contributes {
                        return true;
                    }
                    if let Some(node) = to_aria_node(ctx, id) {
                        let index = tree.nodes.len();
                        let parent = open.last().copied().unwrap_or(ROOT);
                        tree.nodes.push(node);
                        tree.nodes[parent].children.push(Child::Node(index));
                        open.push(index);
                        opened[i] = true;
                    }
                    if is_block(ctx, id) {
                        block[i] = true;
                        push_text(&mut tree, &open, Cow::Borrowed(" "), visibility.in_viewport);
                    }
                    true
                }
                Node::Document { .. } | Node::ShadowRoot(_) => true,
            }
        }
        Step::Exit(id) => {
            let i = id.index();
            if block[i] {
                let in_viewport = analysis.visibility[i].in_viewport;
                push_text(&mut tree, &open, Cow::Borrowed(" "), in_viewport);
            }
            if opened[i] {
                let current = open.pop().unwrap_or(ROOT);
                finish(ctx, &mut tree, current);
            }
            true
        }
    });
    finish(ctx, &mut tree, ROOT);
    tree
}

/// Merges and normalises string children, drops text equal to the name,
/// adds `/url` and `/placeholder` (Playwright's `processElement` tail and
/// `normalizeStringChildren`), and removes empty unnamed generics
/// (`normalizeGenericRoles`).
pub(super) fn finish<'p>(ctx: &Context<'p>, tree: &mut Tree<'p>, index: usize) {
    let children = std::mem::take(&mut tree.nodes[index].children);
    let mut merged = Vec::with_capacity(children.len());
    // The texts since the last node: joined only when there are several.
    let mut pending: Vec<Cow<'p, str>> = Vec::new();
    let mut buffer_in_viewport = false;
    let flush =
        |pending: &mut Vec<Cow<'p, str>>, in_viewport: bool, merged: &mut Vec<Child<'p>>| {
            let text = match pending.as_slice() {
                [] => return,
                [one] => normalize_whitespace(one),
                several => normalize_whitespace(&several.concat()),
            };
            pending.clear();
            if !text.is_empty() {
                merged.push(Child::Text(Cow::Owned(ctx.text_owned(text)), in_viewport));
            }
        };
    for child in children {
        match child {
            Child::Text(text, in_viewport) => {
                if pending.is_empty() {
                    buffer_in_viewport = in_viewport;
                }
                buffer_in_viewport |= in_viewport && !whitespace::is_blank(&text);
                pending.push(text);
            }
            Child::Node(n) => {
                flush(&mut pending, buffer_in_viewport, &mut merged);
                let node = &tree.nodes[n];
                let empty_generic = node.role == "generic"
                    && node.name.is_empty()
                    && !node.long_name
                    && node.reference.is_none()
                    && !node.obscured
                    && node.children.is_empty()
                    && node.props.is_empty();
                if !empty_generic {
                    merged.push(Child::Node(n));
                }
            }
        }
    }
    flush(&mut pending, buffer_in_viewport, &mut merged);
    let node = &mut tree.nodes[index];
    if let [Child::Text(text, _)] = merged.as_slice()
        && ((node.long_name && *text == shown_name(ctx, node.id)) || *text == node.name)
    {
        merged.clear();
    }
    node.children = merged;
    // A role-less element holding only text is printed as Playwright prints
    // that text, `- text: …`, with the ref added: `- text [ref=e5]: …`; one
    // an author named keeps its name, as Playwright's AI mode prints it:
    // `- generic "Close dialog" [ref=e5]: X`.
    if node.ref_only
        && node.name.is_empty()
        && !node.long_name
        && matches!(node.children.as_slice(), [Child::Text(..)])
    {
        node.role = "text";
    }
    if index == ROOT {
        return;
    }
    let id = node.id;
    let role = node.role;
    let name = node.name.clone();
    if role == "link"
        && let Some(href) = ctx.attr(id, "href")
    {
        tree.nodes[index].props.push(("url", href));
    }
    if role == "textbox"
        && let Some(placeholder) = ctx.attr(id, "placeholder")
        && placeholder != name
    {
        tree.nodes[index].props.push(("placeholder", placeholder));
    }
}
