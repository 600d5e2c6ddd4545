//! An external strategy's answer made into an observation pagesnap can act on: every ref resolved to a node of pagesnap's own capture of the same state (by backend node id, by CSS selector, or — for ARIA YAML without refs — by matching `- role "name"` lines to the nodes pagesnap would give a ref), with the meta items pagesnap's analysis gives those nodes.

use pagesnap_browser::node_key;
use std::collections::{BTreeMap, HashMap};

use pagesnap_engine::analyze::{Analyzed, is_widget_role};
use pagesnap_engine::observation::{Image, ImageMeta, Item, Observation};
use pagesnap_engine::page::{NodeId, Selector};
use pagesnap_engine::strategy;
use serde::{Deserialize, Serialize};

use super::protocol::{Checked, Target};

/// How the refs of one external observation resolved.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefCounts {
    /// Refs that resolved to a node.
    pub refs: usize,
    /// Refs the answer listed that name no node of pagesnap's capture.
    pub unresolved: usize,
    /// ARIA lines (`assign_refs: aria`) whose role and name several lines or
    /// several nodes share: given refs in document order when the counts
    /// agree, else none.
    pub ambiguous: usize,
    /// ARIA lines of an interactive role left without a ref (no node with
    /// that role and name, or an ambiguity the counts cannot settle).
    pub unassigned: usize,
}

/// Whether a line of this role is expected to carry a ref: the widgets
/// pagesnap gives refs, and `listbox` (a `<select multiple>`).
fn expects_ref(role: &str) -> bool {
    is_widget_role(role) || role == "listbox"
}

/// The observation of `answer` on `analyzed` (pagesnap's capture of the same
/// state), named `name`.
///
/// `frames` gives the frame number (the high half of a node's key, see
/// `pagesnap_browser::node_key`) of each out-of-process frame by its CDP
/// frame id, for refs that name their frame.
pub fn resolve(
    name: &str,
    answer: Checked,
    analyzed: &Analyzed,
    frames: &HashMap<String, u32>,
) -> (Observation, RefCounts) {
    let page = analyzed.page();
    let mut counts = RefCounts::default();
    let (text, mut refs): (String, Vec<(String, NodeId)>) = if answer.assign_aria_refs {
        // The nodes pagesnap would give a ref: what `- role "name"` lines match.
        assign(&answer.text, &strategy::candidates(analyzed), &mut counts)
    } else {
        let by_backend: HashMap<u64, NodeId> = page
            .ids()
            .map(|id| (page.layout(id).backend_id, id))
            .filter(|(backend, _)| *backend != 0)
            .collect();
        let mut refs = Vec::new();
        for (reference, target) in &answer.refs {
            let node = match target {
                Target::Backend { id, frame } => {
                    let number = match frame {
                        None => Some(0),
                        Some(frame) => frames.get(frame).copied(),
                    };
                    number
                        .and_then(|n| i64::try_from(*id).ok().map(|id| node_key(n, id)))
                        .and_then(|key| by_backend.get(&key).copied())
                }
                Target::Selector(css) => Selector::parse(css)
                    .ok()
                    .and_then(|s| page.select(&s).next().map(|e| e.id())),
            };
            match node {
                Some(id) => refs.push((reference.clone(), id)),
                None => counts.unresolved += 1,
            }
        }
        (answer.text, refs)
    };
    // Document order, then the ref: deterministic whatever order the answer used.
    refs.sort_by(|a, b| (a.1.index(), &a.0).cmp(&(b.1.index(), &b.0)));
    counts.refs = refs.len();
    let image = answer.image.and_then(|png| {
        let (width, height) = super::protocol::png_size(&png)?;
        Some(Image { png, width, height })
    });
    let mut meta = strategy::foreign(analyzed, name, &refs);
    meta.image = image.as_ref().map(|i| ImageMeta::new(i.width, i.height));
    (
        Observation {
            text,
            image,
            refs,
            meta,
        },
        counts,
    )
}

/// One element line of ARIA YAML.
#[derive(Debug, PartialEq)]
struct Line {
    /// Index of the line.
    at: usize,
    role: String,
    name: String,
    /// Byte offset in the line where the key ends (before `:` or the closing `'`).
    key_end: usize,
}

/// Reads `- role "name" [attr]…[: …]` lines (Playwright's renderer; a key
/// that needs quoting is wrapped in single quotes). `- text: …` and `- /url: …`
/// lines are no elements.
fn element_line(at: usize, line: &str) -> Option<Line> {
    let start = line.len() - line.trim_start().len();
    let body_at = start + line[start..].strip_prefix("- ").map(|_| 2)?;
    let body = &line[body_at..];
    let (key, quoted_end) = match body.strip_prefix('\'') {
        // YAML single quotes: '' is a quote; the key ends at a lone one.
        Some(inner) => {
            let mut end = None;
            let bytes = inner.as_bytes();
            let mut i = 0;
            while i < bytes.len() {
                if bytes[i] == b'\'' {
                    if bytes.get(i + 1) == Some(&b'\'') {
                        i += 2;
                        continue;
                    }
                    end = Some(i);
                    break;
                }
                i += 1;
            }
            let end = end?;
            (inner[..end].replace("''", "'"), Some(body_at + 1 + end))
        }
        None => (body.to_owned(), None),
    };
    let role_len = key
        .find(|c: char| !c.is_ascii_alphanumeric() && c != '-')
        .unwrap_or(key.len());
    let role = &key[..role_len];
    if role.is_empty() || role == "text" {
        return None;
    }
    let rest = &key[role_len..];
    let (name, after_name) = match rest.strip_prefix(" \"") {
        Some(quoted_name) => {
            // A JSON string: find its closing quote past escapes.
            let bytes = quoted_name.as_bytes();
            let mut i = 0;
            let mut close = None;
            while i < bytes.len() {
                match bytes[i] {
                    b'\\' => i += 2,
                    b'"' => {
                        close = Some(i);
                        break;
                    }
                    _ => i += 1,
                }
            }
            let close = close?;
            let json = &rest[1..close + 3];
            let name: String = serde_json::from_str(json).ok()?;
            (name, role_len + close + 3)
        }
        None => (String::new(), role_len),
    };
    // A quoted key ends at its closing quote; a plain one at its `:` (names
    // are quoted and attributes hold none, so the first after the name).
    let key_end = quoted_end.unwrap_or_else(|| {
        body_at
            + key[after_name..]
                .find(':')
                .map_or(key.len(), |i| after_name + i)
    });
    Some(Line {
        at,
        role: role.to_owned(),
        name: normalise(&name),
        key_end,
    })
}

fn normalise(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Gives refs to ARIA YAML lines by role and name (see [`RefCounts`]) and
/// writes each ` [ref=eN]` at the end of its line's key, as pagesnap's `aria` does.
fn assign(
    text: &str,
    candidates: &[Item],
    counts: &mut RefCounts,
) -> (String, Vec<(String, NodeId)>) {
    let lines: Vec<&str> = text.lines().collect();
    let parsed: Vec<Line> = lines
        .iter()
        .enumerate()
        .filter_map(|(at, line)| element_line(at, line))
        .collect();
    let mut by_key: BTreeMap<(&str, &str), Vec<&Line>> = BTreeMap::new();
    for line in &parsed {
        by_key
            .entry((&line.role, &line.name))
            .or_default()
            .push(line);
    }
    let mut nodes: HashMap<(String, String), Vec<usize>> = HashMap::new();
    for item in candidates {
        nodes
            .entry((item.role.clone(), normalise(&item.name)))
            .or_default()
            .push(item.node);
    }
    // Line index → node.
    let mut matched: BTreeMap<usize, (usize, usize)> = BTreeMap::new();
    for ((role, name), group) in &by_key {
        let found = nodes
            .get(&((*role).to_owned(), (*name).to_owned()))
            .map_or(&[][..], Vec::as_slice);
        let interactive = expects_ref(role);
        if found.is_empty() {
            if interactive {
                counts.unassigned += group.len();
            }
            continue;
        }
        if group.len() > 1 || found.len() > 1 {
            counts.ambiguous += group.len();
            if group.len() != found.len() {
                if interactive {
                    counts.unassigned += group.len();
                }
                continue;
            }
        }
        for (line, node) in group.iter().zip(found) {
            matched.insert(line.at, (line.key_end, *node));
        }
    }
    let mut out = String::with_capacity(text.len() + matched.len() * 10);
    let mut refs = Vec::with_capacity(matched.len());
    for (at, line) in lines.iter().enumerate() {
        match matched.get(&at) {
            Some(&(key_end, node)) => {
                let reference = format!("e{}", refs.len() + 1);
                out.push_str(&line[..key_end]);
                out.push_str(&format!(" [ref={reference}]"));
                out.push_str(&line[key_end..]);
                refs.push((reference, NodeId::from_index(node)));
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    if !text.ends_with('\n') {
        out.pop();
    }
    (out, refs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(node: usize, role: &str, name: &str) -> Item {
        Item {
            reference: format!("e{node}"),
            node,
            role: role.to_owned(),
            name: name.to_owned(),
            ..Item::default()
        }
    }

    #[test]
    fn lines_are_read_as_playwright_renders_them() {
        let line = |text: &str| element_line(0, text).map(|l| (l.role, l.name, l.key_end));
        assert_eq!(
            line("  - button \"Sign in\""),
            Some(("button".into(), "Sign in".into(), 20))
        );
        assert_eq!(
            line("- link \"Docs\":"),
            Some(("link".into(), "Docs".into(), 13))
        );
        assert_eq!(
            line("- checkbox \"Remember \\\"me\\\"\" [checked]"),
            Some(("checkbox".into(), "Remember \"me\"".into(), 38))
        );
        assert_eq!(
            line("- textbox \"Email\": ada@example.com"),
            Some(("textbox".into(), "Email".into(), 17))
        );
        assert_eq!(
            line("- 'button \"a: b\"'"),
            Some(("button".into(), "a: b".into(), 16))
        );
        assert_eq!(line("- text: hello"), None);
        assert_eq!(line("- /url: \"#x\""), None);
        assert_eq!(line("plain"), None);
    }

    #[test]
    fn refs_go_to_unique_matches_and_to_equal_counts_in_order() {
        let yaml = "- heading \"Form\" [level=1]\n- button \"OK\"\n- button \"Submit\"\n- 'button \"a: b\"'\n- link \"More\":\n  - /url: x\n- link \"More\":\n  - /url: y\n- button \"Gone\"\n- textbox \"Name\": Ada\n- button \"Dup\"\n";
        let candidates = vec![
            item(3, "button", "OK"),
            item(4, "button", "Submit"),
            item(5, "button", "a: b"),
            item(6, "link", "More"),
            item(7, "link", "More"),
            item(8, "textbox", "Name"),
            item(9, "button", "Dup"),
            item(10, "button", "Dup"),
        ];
        let mut counts = RefCounts::default();
        let (text, refs) = assign(yaml, &candidates, &mut counts);
        assert_eq!(
            text,
            "- heading \"Form\" [level=1]\n- button \"OK\" [ref=e1]\n- button \"Submit\" [ref=e2]\n- 'button \"a: b\" [ref=e3]'\n- link \"More\" [ref=e4]:\n  - /url: x\n- link \"More\" [ref=e5]:\n  - /url: y\n- button \"Gone\"\n- textbox \"Name\" [ref=e6]: Ada\n- button \"Dup\"\n"
        );
        let nodes: Vec<usize> = refs.iter().map(|(_, id)| id.index()).collect();
        assert_eq!(nodes, vec![3, 4, 5, 6, 7, 8]);
        // Two "More" links ↔ two nodes (by order), one "Dup" line ↔ two nodes
        // (left out), "Gone" has no node.
        assert_eq!(
            counts,
            RefCounts {
                refs: 0,
                unresolved: 0,
                ambiguous: 3,
                unassigned: 2
            }
        );
    }
}
