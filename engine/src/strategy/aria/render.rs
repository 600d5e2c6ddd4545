//! Render: the model tree printed as Playwright's YAML lines, refs and states included.

use super::build::{AriaNode, Child, MAX_NAME_CHARS, ROOT, Tree};
use super::yaml::{json_string, yaml_escape_key, yaml_escape_value};
use crate::page::NodeId;
use crate::passes::Context;
use crate::passes::budget::Line;

pub(super) fn render(ctx: &Context<'_>, tree: &Tree<'_>, lines: &mut Vec<Line>) {
    enum Work<'t> {
        Node(usize, usize),
        Text(&'t str, bool, usize),
    }
    let in_viewport = |id: NodeId| ctx.analysis.visibility[id.index()].in_viewport;
    // A line per node, prop and text child at most: reserved once, as
    // growing the lines copies them all each time.
    lines.reserve(
        tree.nodes
            .iter()
            .map(|node| 1 + node.props.len() + node.children.len())
            .sum(),
    );
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
                let mut line = indented(depth, 8 + escaped.len());
                line.push_str("- text: ");
                line.push_str(&escaped);
                lines.push(Line {
                    text: line,
                    reference: None,
                    in_viewport: visible,
                    depth,
                    pinned: false,
                });
            }
            Work::Node(n, depth) => {
                let node = &tree.nodes[n];
                let node_key = key(node);
                let escaped_key = yaml_escape_key(&node_key);
                let single_text = match node.children.as_slice() {
                    [Child::Text(text, _)] if node.props.is_empty() => Some(text),
                    _ => None,
                };
                let value = single_text.map(|text| yaml_escape_value(text));
                let mut text = indented(
                    depth,
                    4 + escaped_key.len() + value.as_ref().map_or(0, |v| v.len()),
                );
                text.push_str("- ");
                text.push_str(&escaped_key);
                if let Some(value) = &value {
                    text.push_str(": ");
                    text.push_str(value);
                } else if !(node.children.is_empty() && node.props.is_empty()) {
                    text.push(':');
                }
                lines.push(Line {
                    text,
                    reference: node.reference,
                    in_viewport: in_viewport(node.id),
                    depth,
                    pinned: false,
                });
                if single_text.is_some() {
                    continue;
                }
                for (name, value) in &node.props {
                    let value = yaml_escape_value(value);
                    let mut line = indented(depth + 1, 5 + name.len() + value.len());
                    line.push_str("- /");
                    line.push_str(name);
                    line.push_str(": ");
                    line.push_str(&value);
                    lines.push(Line {
                        text: line,
                        reference: None,
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

/// A line's start: `depth` levels of two-space indent, with room for
/// `rest` more bytes.
fn indented(depth: usize, rest: usize) -> String {
    let mut line = String::with_capacity(2 * depth + rest);
    for _ in 0..depth {
        line.push_str("  ");
    }
    line
}

/// Playwright's `createKey`: role, JSON-quoted name (omitted past 900
/// characters, YAML's key limit), states, then our ref and marks.
pub(super) fn key(node: &AriaNode<'_>) -> String {
    let mut key = String::with_capacity(node.role.len() + node.name.len() + node.states.len() + 24);
    key.push_str(node.role);
    // Fewer bytes than the limit are fewer characters: only longer names
    // are counted.
    let short = node.name.len() <= MAX_NAME_CHARS || node.name.chars().count() <= MAX_NAME_CHARS;
    if !node.name.is_empty() && short {
        key.push(' ');
        if node.name.len() > 1 && node.name.starts_with('/') && node.name.ends_with('/') {
            key.push_str(&node.name);
        } else {
            key.push_str(&json_string(&node.name));
        }
    }
    key.push_str(&node.states);
    if let Some(number) = node.reference {
        key.push_str(" [ref=e");
        crate::digits::push_decimal(&mut key, number);
        key.push(']');
        if node.new {
            key.push_str(" [new]");
        }
    }
    if node.obscured {
        key.push_str(" [obscured]");
    }
    key
}
