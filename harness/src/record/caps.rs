//! The caps of `record` (`--max-nodes`, `--max-text`): what a recording may hold at most, cut after capture and before writing, and counted.
//!
//! The cut happens on the joined recording (after DOMSnapshot is decoded and
//! rebuilt into document order), so it keeps the tree consistent by
//! construction: nodes are in pre-order, every parent precedes its children,
//! so keeping the first `max_nodes` keeps every kept node's ancestors and
//! leaves out whole subtrees (the document-order tail), never a node without
//! its parent. Text is counted in UTF-8 bytes over text nodes, attribute
//! values and form values, in document order; the string that crosses the
//! cap is truncated at a character boundary and later ones are emptied.
//! Whatever a cap cuts is counted in [`CaptureNotes`] (`cut_nodes`,
//! `cut_text`): a cut is never silent.

use std::sync::Arc;

use pagesnap_engine::recording::{CaptureNotes, Recording};

/// What one recording may hold at most.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caps {
    /// Nodes (`--max-nodes`).
    pub max_nodes: usize,
    /// UTF-8 bytes of text node data, attribute values and form values (`--max-text`).
    pub max_text: usize,
}

impl Caps {
    /// 200,000 nodes: twice the 100,000-node hostile page (which records in
    /// about 12 s and 1.5 GB of memory, debug build); a recording this size
    /// inflates to about 70 MB, well inside what decoding accepts
    /// (`recording::MAX_DECODED_BYTES`, 512 MiB).
    pub const DEFAULT_MAX_NODES: usize = 200_000;
    /// 64 MiB of text: three times the 20 MB hostile page.
    pub const DEFAULT_MAX_TEXT: usize = 64 << 20;
}

impl Default for Caps {
    fn default() -> Caps {
        Caps {
            max_nodes: Caps::DEFAULT_MAX_NODES,
            max_text: Caps::DEFAULT_MAX_TEXT,
        }
    }
}

/// Cuts `recording` to `caps` and counts what was cut in its
/// [`CaptureNotes`] (added to what is counted there already). Returns the
/// counts of this cut alone.
pub fn apply(recording: &mut Recording, caps: Caps) -> (u64, u64) {
    // The document node is kept whatever the cap: a recording needs it.
    let keep = caps.max_nodes.max(1);
    let mut cut_nodes = 0u64;
    if recording.nodes.len() > keep {
        cut_nodes = (recording.nodes.len() - keep) as u64;
        recording.nodes.truncate(keep);
        if recording.focused.is_some_and(|f| f as usize >= keep) {
            recording.focused = None;
        }
    }
    let mut budget = caps.max_text;
    let mut cut_text = 0u64;
    for node in &mut recording.nodes {
        if let Some(text) = &node.text
            && let Some(kept) = fit(text, &mut budget, &mut cut_text)
        {
            node.text = Some(Arc::from(kept));
        }
        let attrs = &node.attrs;
        let mut changed: Option<Vec<(String, String)>> = None;
        for (k, (name, value)) in attrs.iter().enumerate() {
            if let Some(kept) = fit(value, &mut budget, &mut cut_text) {
                let all = changed.get_or_insert_with(|| attrs.to_vec());
                all[k] = (name.clone(), kept.to_owned());
            }
        }
        if let Some(all) = changed {
            node.attrs = Arc::from(all);
        }
        if let Some(value) = &node.value
            && let Some(kept) = fit(value, &mut budget, &mut cut_text)
        {
            node.value = Some(kept.to_owned());
        }
    }
    add_counts(&mut recording.capture, cut_nodes, cut_text);
    (cut_nodes, cut_text)
}

fn add_counts(notes: &mut CaptureNotes, nodes: u64, text: u64) {
    notes.cut_nodes += nodes;
    notes.cut_text += text;
}

/// Takes `text` out of `budget`: `None` when it fits whole, else the part
/// that fits (the longest prefix ending on a character boundary), with the
/// bytes left out added to `cut`.
fn fit<'t>(text: &'t str, budget: &mut usize, cut: &mut u64) -> Option<&'t str> {
    if text.len() <= *budget {
        *budget -= text.len();
        return None;
    }
    let mut end = *budget;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    *budget = 0;
    *cut += (text.len() - end) as u64;
    Some(&text[..end])
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests fail loudly")]

    use super::*;
    use pagesnap_engine::recording::NodeKind;
    use pagesnap_engine::testing::RecordingBuilder;

    /// body > (div > p > "one", div > p > "two", p > "three").
    fn page() -> Recording {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        for word in ["one", "two"] {
            let div = b.element(body, "div", &[("class", "box")]).id();
            let p = b.element(div, "p", &[]).id();
            b.text(p, word);
        }
        let p = b.element(body, "p", &[("title", "café")]).id();
        b.text(p, "three");
        b.build()
    }

    fn roundtrip(recording: &Recording) -> Recording {
        let bytes = recording.to_gz_bytes().unwrap();
        Recording::from_gz_bytes(&bytes, "cut").unwrap()
    }

    #[test]
    fn nothing_is_cut_within_the_caps_and_nothing_is_noted() {
        let mut recording = page();
        let before = recording.clone();
        assert_eq!(apply(&mut recording, Caps::default()), (0, 0));
        assert_eq!(recording, before);
        assert!(recording.capture.is_empty());
    }

    #[test]
    fn the_node_cap_keeps_a_consistent_document_order_prefix() {
        let full = page();
        for keep in 1..full.nodes.len() {
            let mut recording = full.clone();
            let caps = Caps {
                max_nodes: keep,
                ..Caps::default()
            };
            let (nodes, text) = apply(&mut recording, caps);
            assert_eq!(nodes as usize, full.nodes.len() - keep);
            assert_eq!(text, 0);
            assert_eq!(recording.nodes.len(), keep);
            assert_eq!(recording.nodes[..], full.nodes[..keep]);
            assert_eq!(recording.capture.cut_nodes, nodes);
            // Decoding checks the tree: every parent kept, in document order.
            let back = roundtrip(&recording);
            assert_eq!(back.capture.cut_nodes, nodes);
        }
        let mut recording = full.clone();
        apply(
            &mut recording,
            Caps {
                max_nodes: 0,
                ..Caps::default()
            },
        );
        assert_eq!(recording.nodes.len(), 1, "the document stays");
        assert_eq!(recording.nodes[0].kind, NodeKind::Document);
    }

    #[test]
    fn a_focused_node_past_the_cap_is_no_longer_focused() {
        let mut recording = page();
        let last = recording.nodes.len() - 1;
        recording.focused = Some(last as u32);
        apply(
            &mut recording,
            Caps {
                max_nodes: last,
                ..Caps::default()
            },
        );
        assert_eq!(recording.focused, None);
        roundtrip(&recording);
    }

    #[test]
    fn the_text_cap_truncates_at_a_character_boundary_and_empties_the_rest() {
        let mut recording = page();
        // Attribute values count too: "box" (3) "one" (3) "box" (3) "two"
        // (3) = 12 bytes, then "café" (5 bytes, é is two): a cap of 16 ends
        // inside the é, which is left out whole.
        let (nodes, text) = apply(
            &mut recording,
            Caps {
                max_text: 16,
                ..Caps::default()
            },
        );
        assert_eq!(nodes, 0);
        let texts: Vec<&str> = recording
            .nodes
            .iter()
            .filter_map(|n| n.text.as_deref())
            .collect();
        assert_eq!(texts, ["one", "two", ""]);
        let title = recording
            .nodes
            .iter()
            .flat_map(|n| n.attrs.iter())
            .find(|(k, _)| k == "title")
            .map(|(_, v)| v.as_str());
        assert_eq!(title, Some("caf"));
        // "é" (2 bytes) and "three" (5).
        assert_eq!(text, 7);
        assert_eq!(recording.capture.cut_text, 7);
        let back = roundtrip(&recording);
        assert_eq!(back.capture.cut_text, 7);
    }
}
