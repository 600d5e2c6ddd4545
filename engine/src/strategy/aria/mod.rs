//! The `aria` strategy: Playwright-compatible ARIA snapshot YAML with refs, `[obscured]` under a modal and a viewport comment on top.
//!
//! Built the way Playwright's `packages/injected/src/ariaSnapshot.ts` builds
//! `locator.ariaSnapshot()`: one walk turns the page into a small model tree
//! (*build*), string children are merged and whitespace-normalised
//! (*distill*), and the model is printed as YAML (*render*). The facts come
//! from the page's analysis and the shared passes; nothing is re-derived.
//!
//! Rendering rules kept from Playwright (default mode):
//! - Elements without a role (`div`, `span`, unnamed `section`, `none` /
//!   `presentation`) add no node: their children are hoisted into the
//!   parent. Block-level elements surround their content with a space so
//!   adjacent texts do not run together.
//! - Text is merged per parent and normalised (`normalizeWhiteSpace`, which
//!   also collapses non-breaking spaces); a node whose only child is text
//!   equal to its name drops the text.
//! - States in `createKey` order, `[invalid]` (`[invalid=grammar|spelling]`)
//!   included for the roles Playwright prints it on.
//! - `input`/`textarea` (not checkbox, radio, file) carry their value as a
//!   text child; links carry `/url`, textboxes a `/placeholder` differing
//!   from the name.
//! - Keys and values are YAML-escaped exactly as Playwright's `yaml.ts`.
//! - Nodes hidden from the accessibility tree (`display: none`,
//!   `visibility: hidden`, `hidden`, `aria-hidden`, `inert`) are omitted
//!   with their subtrees; merely invisible content (opacity 0, clipped
//!   screen-reader text, empty boxes) is kept, as Playwright keeps it, but
//!   never carries a ref.
//!
//! Additions for agents: `[ref=eN]` on targets (plus `[new]`), `[obscured]`
//! on interactive nodes with a role outside a reliable modal (an obscured
//! clickable `div` stays transparent, its text kept), ref'd role-less
//! elements (clickable `div`s) rendered as nodes — `- text [ref=e5]: Open`
//! when they hold only text, so that without the ref the line is
//! Playwright's, else `- generic [ref=e5]:` with the children —, same-origin
//! iframe documents and shadow trees rendered in place, `[active]` on the
//! focused element (Playwright's `mode: 'ai'` prints it, the default mode
//! does not), and `# ` comment lines on top.
//!
//! Known differences from Playwright's default mode, on purpose (measured by
//! `harness/tests/playwright_aria.rs`): rows are not named from their cells
//! (Chromium names only grid rows; Playwright's `ai` mode drops such names
//! too), `inert` subtrees are omitted, password values are never shown, and
//! facts follow the engine's Chromium-validated analysis (a `<fieldset
//! disabled>` group is `[disabled]`, `<optgroup>`s in a `<select>` are kept).

use std::borrow::Cow;

mod yaml;

use self::yaml::{json_string, yaml_escape_key, yaml_escape_value};
use super::Strategy;
use super::shared::meta;
use super::shared::text::normalize_whitespace;
use super::shared::walk::{Step, is_block, is_user_agent_root, scope_or_descendant, walk};
use crate::analyze::{Analyzed, Checked, Hidden, Invalid, ModalKind, input_type};
use crate::observation::Observation;
use crate::page::{Node, NodeId};
use crate::passes::budget::{self, Line};
use crate::passes::{Context, ObserveError, Options, viewport};

#[doc = include_str!("aria.md")]
pub struct Aria;

impl Strategy for Aria {
    fn name(&self) -> &'static str {
        "aria"
    }

    fn summary(&self) -> &'static str {
        "Playwright-compatible ARIA snapshot YAML with [ref=eN], [obscured] under a modal, viewport comments"
    }

    fn explain(&self) -> &'static str {
        include_str!("aria.md")
    }

    fn observe(
        &self,
        analyzed: &Analyzed,
        options: &Options<'_>,
    ) -> Result<Observation, ObserveError> {
        let ctx = Context::new(analyzed, options, self.full_page_by_default())?;
        let mut lines = header(&ctx);
        let tree = build(&ctx);
        render(&ctx, &tree, &mut lines);
        let (text, dropped) = budget::fit(lines, options.max_tokens);
        Ok(meta::text_observation(
            &ctx,
            self.name(),
            options,
            text,
            dropped,
            |n| format!("e{n}"),
        ))
    }
}

/// The `# ` comment lines: modal, page position (seed 003, parts A–C).
fn header(ctx: &Context<'_>) -> Vec<Line> {
    let mut lines = Vec::new();
    match ctx.analysis.modal.kind {
        ModalKind::Reliable => {
            lines.push(Line::pinned(
                "# A modal is open. Only modal elements have refs.".to_owned(),
            ));
        }
        ModalKind::Suspected => {
            lines.push(Line::pinned(
                "# Warning: an overlay may cover the page.".to_owned(),
            ));
        }
        ModalKind::None => {}
    }
    for line in viewport::position_lines(ctx.analysis) {
        lines.push(Line::pinned(format!("# {line}")));
    }
    if !ctx.full_page && viewport::interactive_below(ctx.page, ctx.analysis) > 0 {
        lines.push(Line::pinned(
            "# There are interactive elements below the viewport not shown in detail. Scroll down to see them."
                .to_owned(),
        ));
    }
    lines
}

// ---------------------------------------------------------------------------
// Shared walking and text helpers (also used by `flat`).

// ---------------------------------------------------------------------------
// Build: page → model tree.

#[derive(Debug)]
enum Child<'p> {
    /// Raw (unmerged) text, borrowed from the page until merged, and
    /// whether it is in the viewport.
    Text(Cow<'p, str>, bool),
    Node(usize),
}

#[derive(Debug)]
struct AriaNode<'p> {
    id: NodeId,
    role: &'static str,
    name: String,
    /// ` [checked]` … ` [selected]`, already rendered.
    states: String,
    reference: Option<u32>,
    new: bool,
    obscured: bool,
    /// A role-less element (implicit `generic`, `none`, `presentation`)
    /// Playwright would not print; kept only to carry its ref.
    ref_only: bool,
    props: Vec<(&'static str, String)>,
    children: Vec<Child<'p>>,
}

struct Tree<'p> {
    nodes: Vec<AriaNode<'p>>,
}

const ROOT: usize = 0;

/// Hidden from the accessibility tree: the whole subtree is skipped, as
/// Playwright's `isElementHiddenForAria` does in its default mode.
fn hidden_for_aria(reason: Option<Hidden>) -> bool {
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

/// Roles Playwright prints `[invalid]` for (`kAriaInvalidRoles`).
const INVALID_ROLES: [&str; 14] = [
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
fn states_suffix(ctx: &Context<'_>, id: NodeId, role: &str) -> String {
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
fn to_aria_node<'p>(ctx: &Context<'p>, id: NodeId) -> Option<AriaNode<'p>> {
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
        let role = ctx.analysis.role(id)?;
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
    let name = if role == "iframe" {
        String::new()
    } else {
        normalize_whitespace(&ctx.name(id))
    };
    let mut node = AriaNode {
        id,
        role,
        name,
        states: states_suffix(ctx, id, role),
        reference,
        new: reference.is_some() && ctx.is_new(id),
        obscured,
        ref_only,
        props: Vec::new(),
        children: Vec::new(),
    };
    if element.is("input") || element.is("textarea") {
        if !matches!(input_type(element), "checkbox" | "radio" | "file")
            && let Some(value) = ctx.value(id)
        {
            let in_viewport = ctx.analysis.visibility[i].in_viewport;
            node.children
                .push(Child::Text(Cow::Owned(value), in_viewport));
        }
    }
    Some(node)
}

fn build<'p>(ctx: &Context<'p>) -> Tree<'p> {
    let page = ctx.page;
    let analysis = ctx.analysis;
    let any_scope = scope_or_descendant(ctx);
    let mut tree = Tree {
        nodes: vec![AriaNode {
            id: NodeId::ROOT,
            role: "fragment",
            name: String::new(),
            states: String::new(),
            reference: None,
            ref_only: false,
            new: false,
            obscured: false,
            props: Vec::new(),
            children: Vec::new(),
        }],
    };
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
    walk(page, NodeId::ROOT, |step| match step {
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
                        && !hidden_for_aria(visibility.hidden)
                        && (ctx.full_page || visibility.in_viewport)
                        // `<textarea>AAA</textarea>`: the value child says it.
                        && tree.nodes[current].role != "textbox";
                    if shown {
                        push_text(
                            &mut tree,
                            &open,
                            Cow::Borrowed(text),
                            visibility.in_viewport,
                        );
                    }
                    false
                }
                Node::Element(_) => {
                    if hidden_for_aria(visibility.hidden) {
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
fn finish<'p>(ctx: &Context<'p>, tree: &mut Tree<'p>, index: usize) {
    let children = std::mem::take(&mut tree.nodes[index].children);
    let mut merged = Vec::with_capacity(children.len());
    let mut buffer = String::new();
    let mut buffer_in_viewport = false;
    let flush = |buffer: &mut String, in_viewport: bool, merged: &mut Vec<Child<'p>>| {
        if buffer.is_empty() {
            return;
        }
        let text = normalize_whitespace(buffer);
        buffer.clear();
        if !text.is_empty() {
            merged.push(Child::Text(Cow::Owned(ctx.text(&text)), in_viewport));
        }
    };
    for child in children {
        match child {
            Child::Text(text, in_viewport) => {
                if buffer.is_empty() {
                    buffer_in_viewport = in_viewport;
                }
                buffer_in_viewport |= in_viewport && !text.trim().is_empty();
                buffer.push_str(&text);
            }
            Child::Node(n) => {
                flush(&mut buffer, buffer_in_viewport, &mut merged);
                let node = &tree.nodes[n];
                let empty_generic = node.role == "generic"
                    && node.name.is_empty()
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
    flush(&mut buffer, buffer_in_viewport, &mut merged);
    let node = &mut tree.nodes[index];
    if let [Child::Text(text, _)] = merged.as_slice()
        && *text == node.name
    {
        merged.clear();
    }
    node.children = merged;
    // A role-less element holding only text is printed as Playwright prints
    // that text, `- text: …`, with the ref added: `- text [ref=e5]: …`.
    if node.ref_only && matches!(node.children.as_slice(), [Child::Text(..)]) {
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

// ---------------------------------------------------------------------------
// Render: model tree → YAML lines.

fn render(ctx: &Context<'_>, tree: &Tree<'_>, lines: &mut Vec<Line>) {
    enum Work<'t> {
        Node(usize, usize),
        Text(&'t str, bool, usize),
    }
    let in_viewport = |id: NodeId| ctx.analysis.visibility[id.index()].in_viewport;
    let mut stack: Vec<Work<'_>> = Vec::new();
    for child in tree.nodes[ROOT].children.iter().rev() {
        stack.push(match child {
            Child::Text(t, v) => Work::Text(t, *v, 0),
            Child::Node(n) => Work::Node(*n, 0),
        });
    }
    while let Some(work) = stack.pop() {
        match work {
            Work::Text(text, visible, depth) => {
                let escaped = yaml_escape_value(text);
                lines.push(Line {
                    text: format!("{}- text: {escaped}", indent(depth)),
                    has_ref: false,
                    in_viewport: visible,
                    depth,
                    pinned: false,
                });
            }
            Work::Node(n, depth) => {
                let node = &tree.nodes[n];
                let key = format!("{}- {}", indent(depth), yaml_escape_key(&key(node)));
                let single_text = match node.children.as_slice() {
                    [Child::Text(text, _)] if node.props.is_empty() => Some(text),
                    _ => None,
                };
                let text = if let Some(text) = single_text {
                    format!("{key}: {}", yaml_escape_value(text))
                } else if node.children.is_empty() && node.props.is_empty() {
                    key
                } else {
                    format!("{key}:")
                };
                lines.push(Line {
                    text,
                    has_ref: node.reference.is_some(),
                    in_viewport: in_viewport(node.id),
                    depth,
                    pinned: false,
                });
                if single_text.is_some() {
                    continue;
                }
                for (name, value) in &node.props {
                    lines.push(Line {
                        text: format!(
                            "{}- /{name}: {}",
                            indent(depth + 1),
                            yaml_escape_value(value)
                        ),
                        has_ref: false,
                        in_viewport: in_viewport(node.id),
                        depth: depth + 1,
                        pinned: false,
                    });
                }
                for child in node.children.iter().rev() {
                    stack.push(match child {
                        Child::Text(t, v) => Work::Text(t, *v, depth + 1),
                        Child::Node(c) => Work::Node(*c, depth + 1),
                    });
                }
            }
        }
    }
}

fn indent(depth: usize) -> String {
    "  ".repeat(depth)
}

/// Playwright's `createKey`: role, JSON-quoted name (omitted past 900
/// characters, YAML's key limit), states, then our ref and marks.
fn key(node: &AriaNode<'_>) -> String {
    let mut key = node.role.to_owned();
    if !node.name.is_empty() && node.name.chars().count() <= 900 {
        key.push(' ');
        if node.name.len() > 1 && node.name.starts_with('/') && node.name.ends_with('/') {
            key.push_str(&node.name);
        } else {
            key.push_str(&json_string(&node.name));
        }
    }
    key.push_str(&node.states);
    if let Some(number) = node.reference {
        key.push_str(&format!(" [ref=e{number}]"));
        if node.new {
            key.push_str(" [new]");
        }
    }
    if node.obscured {
        key.push_str(" [obscured]");
    }
    key
}
