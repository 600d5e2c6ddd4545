//! Render: the model tree printed as Playwright's YAML lines, refs and states included.

use super::build::{AriaNode, Child, ROOT, Tree};
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

pub(super) fn indent(depth: usize) -> String {
    "  ".repeat(depth)
}

/// Playwright's `createKey`: role, JSON-quoted name (omitted past 900
/// characters, YAML's key limit), states, then our ref and marks.
pub(super) fn key(node: &AriaNode<'_>) -> String {
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
