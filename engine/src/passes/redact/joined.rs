//! Secrets that run across text nodes (a key split over two `<code>` elements, a card in four `<span>`s).

use std::collections::BTreeMap;
use std::ops::Range;

use super::scan::{MIN_DIGIT_RUN, MIN_SECRET, token_end, token_start};
use super::{Hidden, Kind, Place, REDACTED, hides, scan};
use crate::analyze::Analysis;
use crate::page::{Node, NodeId, Page};

/// Secrets that run across text nodes: an API key split over two `<code>`
/// elements, a card number in four `<span>`s. The texts of each run of
/// inline content (text nodes under one block container, in document
/// order) are joined as a reader sees them and scanned; a secret that spans
/// more than one node is cut out of every node it touches, and `[redacted]`
/// stands where it starts. Returns, per such node, its text so redacted and
/// the secrets that start in it. Secrets inside one node are left to the
/// per-text redaction every strategy already runs.
pub fn joined_secrets(page: &Page, analysis: &Analysis) -> BTreeMap<NodeId, (String, Vec<Hidden>)> {
    let mut out = BTreeMap::new();
    // Per node: the block box its inline content flows in (a document or
    // shadow root bounds it too).
    let mut container = vec![0usize; page.len()];
    let mut group: Vec<(NodeId, &str)> = Vec::new();
    let mut group_container = usize::MAX;
    for id in page.ids() {
        let i = id.index();
        let parent = page.parent(id).map(|p| container[p.index()]);
        container[i] = match page.node(id) {
            Node::Element(_) if !analysis.dom.display(id).is_inline() => i,
            Node::Element(_) | Node::Text(_) => parent.unwrap_or(i),
            _ => i,
        };
        if let Node::Text(text) = page.node(id) {
            if container[i] != group_container {
                flush_joined(&group, &mut out);
                group.clear();
                group_container = container[i];
            }
            group.push((id, &text[..]));
        }
    }
    flush_joined(&group, &mut out);
    out
}

/// Tokens either side of a node boundary that a secret crossing it can
/// span (a card's four groups, an IBAN's nine).
pub(super) const JOINED_REACH: usize = 9;

/// [`joined_secrets`] for one run of inline texts. Only boundaries a secret
/// could cross are looked at, and only the few tokens around each.
pub(super) fn flush_joined(
    group: &[(NodeId, &str)],
    out: &mut BTreeMap<NodeId, (String, Vec<Hidden>)>,
) {
    if group.len() < 2 {
        return;
    }
    let mut joined = String::new();
    let mut spans = Vec::with_capacity(group.len());
    for (_, text) in group {
        let start = joined.len();
        joined.push_str(text);
        spans.push(start..joined.len());
    }
    let bytes = joined.as_bytes();
    let mut crossing: Vec<(Range<usize>, Kind)> = Vec::new();
    for span in &spans[..spans.len() - 1] {
        let at = span.end;
        if at == 0 || at >= bytes.len() {
            continue;
        }
        // Whitespace either side of the boundary: at most one byte in all
        // (read from the bytes next to it: whitespace-only text nodes are
        // common and long).
        let ws = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_whitespace);
        let left = usize::from(ws(at - 1));
        let right = usize::from(ws(at));
        if left + right > 1 || (left == 1 && at >= 2 && ws(at - 2)) || (right == 1 && ws(at + 1)) {
            continue;
        }
        // Just past the whitespace character at `i` (which may be wider
        // than a byte: U+00A0).
        let word_start = |end: usize| token_start(&joined, end);
        let word_end = |start: usize| token_end(&joined, start).0;
        let (token_start, token_end) = (word_start(at - left), word_end(at + right));
        let window = if left + right == 0 && token_end - token_start >= MIN_SECRET {
            // A token split between nodes (`sk-proj-` + `4f9a…`).
            token_start..token_end
        } else {
            // Digit groups a space apart (cards, IBANs, SSNs): the run of
            // such groups around the boundary.
            let group = |word: &str| {
                !word.is_empty()
                    && word.bytes().all(|b| {
                        b.is_ascii_digit() || b.is_ascii_uppercase() || b == b'-' || b == b'.'
                    })
            };
            if !(group(&joined[token_start..at - left]) && group(&joined[at + right..token_end])) {
                continue;
            }
            let mut start = token_start;
            for _ in 0..JOINED_REACH {
                let Some(before) = start.checked_sub(1).filter(|&i| bytes[i] == b' ') else {
                    break;
                };
                let previous = word_start(before);
                if !group(&joined[previous..before]) {
                    break;
                }
                start = previous;
            }
            let mut end = token_end;
            for _ in 0..JOINED_REACH {
                if bytes.get(end) != Some(&b' ') {
                    break;
                }
                let next = word_end(end + 1);
                if !group(&joined[end + 1..next]) {
                    break;
                }
                end = next;
            }
            if end - start < MIN_DIGIT_RUN {
                continue;
            }
            start..end
        };
        let (start, end) = (window.start, window.end);
        let node_of = |i: usize| spans.partition_point(|span| span.end <= i);
        scan(&joined[start..end], &mut |r, kind| {
            let r = r.start + start..r.end + start;
            if node_of(r.start) != node_of(r.end - 1)
                && hides(kind, Place::of(&joined, r.clone()), &joined[r.clone()])
            {
                crossing.push((r, kind));
            }
        });
    }
    if crossing.is_empty() {
        return;
    }
    crossing.sort_by_key(|(r, _)| (r.start, r.end));
    crossing.dedup_by(|(later, _), (earlier, _)| {
        // Windows overlap: keep one of each secret, the widest.
        if later.start < earlier.end {
            earlier.end = earlier.end.max(later.end);
            true
        } else {
            false
        }
    });
    for (k, span) in spans.iter().enumerate() {
        let first = crossing.partition_point(|(r, _)| r.end <= span.start);
        let touching = crossing[first..]
            .iter()
            .take_while(|(r, _)| r.start < span.end)
            .collect::<Vec<_>>();
        if touching.is_empty() {
            continue;
        }
        let mut text = String::new();
        let mut starts = Vec::new();
        let mut pos = span.start;
        for (r, kind) in touching {
            if r.start > pos {
                text.push_str(&joined[pos..r.start]);
            }
            if r.start >= span.start {
                text.push_str(REDACTED);
                starts.push(Hidden {
                    kind: *kind,
                    place: Place::of(&joined, r.clone()),
                    original: joined[r.clone()].to_owned(),
                });
            }
            pos = r.end.min(span.end);
        }
        text.push_str(&joined[pos..span.end]);
        out.insert(group[k].0, (text, starts));
    }
}
