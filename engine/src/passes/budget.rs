//! Token budget: an engine-side token estimate and truncation that drops the least useful lines first, with a notice.
//!
//! The harness counts real tokens (tiktoken); the engine needs no tokenizer
//! tables, so it estimates with the rule of thumb of ~4 bytes per token for
//! English and markup, counting each non-ASCII character as one token.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Estimated tokens of a text.
pub fn estimate_tokens(text: &str) -> usize {
    let ascii = text.bytes().filter(u8::is_ascii).count();
    let other = text.chars().filter(|c| !c.is_ascii()).count();
    ascii.div_ceil(4) + other
}

/// A rendered line with what the budget needs to know about it.
#[derive(Clone, Debug)]
pub struct Line {
    /// The text (without newline).
    pub text: String,
    /// The ref this line prints (its target number), if any.
    pub reference: Option<u32>,
    /// Inside the viewport.
    pub in_viewport: bool,
    /// Nesting depth (deeper text goes first).
    pub depth: usize,
    /// Always kept (headers, notices).
    pub pinned: bool,
}

impl Line {
    /// A line that is always kept (headers, notices).
    pub fn pinned(text: impl Into<String>) -> Line {
        Line {
            text: text.into(),
            reference: None,
            in_viewport: true,
            depth: 0,
            pinned: true,
        }
    }
}

/// What a budget kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fitted {
    /// The kept lines, with the notice when any were dropped.
    pub text: String,
    /// Lines dropped.
    pub dropped: usize,
    /// Target numbers of the refs on the kept lines: the refs the text
    /// shows, so the only ones the observation may offer.
    pub shown_refs: Vec<u32>,
}

impl Fitted {
    fn new(lines: &[Line], keep: &[bool], text: String, dropped: usize) -> Fitted {
        let shown_refs = lines
            .iter()
            .zip(keep)
            .filter(|(_, kept)| **kept)
            .filter_map(|(line, _)| line.reference)
            .collect();
        Fitted {
            text,
            dropped,
            shown_refs,
        }
    }
}

/// [`fit`] for lines that form a tree by `depth` (a line's parent is the
/// nearest earlier unpinned line with a smaller depth), as `aria`'s YAML
/// does: a line is dropped only once every child of it is, so what is kept
/// stays under its true parents and parses as the same tree, cut. The order
/// among the lines that may go is [`fit`]'s. The notice is a `#` comment.
pub fn fit_tree(lines: Vec<Line>, max_tokens: Option<usize>) -> Fitted {
    let Some(max) = max_tokens else {
        let keep = vec![true; lines.len()];
        let text = join_kept(&lines, &keep);
        return Fitted::new(&lines, &keep, text, 0);
    };
    let mut total: usize = lines.iter().map(|l| estimate_tokens(&l.text) + 1).sum();
    let mut keep = vec![true; lines.len()];
    if total <= max {
        let text = join_kept(&lines, &keep);
        return Fitted::new(&lines, &keep, text, 0);
    }
    let mut parent: Vec<Option<usize>> = vec![None; lines.len()];
    let mut children = vec![0usize; lines.len()];
    let mut open: Vec<usize> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if line.pinned {
            continue;
        }
        while open
            .last()
            .is_some_and(|&top| lines[top].depth >= line.depth)
        {
            open.pop();
        }
        parent[i] = open.last().copied();
        if let Some(p) = parent[i] {
            children[p] += 1;
        }
        open.push(i);
    }
    let key = |i: usize| Reverse((class(&lines[i]), Reverse(lines[i].depth), Reverse(i)));
    let mut leaves: BinaryHeap<_> = (0..lines.len())
        .filter(|&i| !lines[i].pinned && children[i] == 0)
        .map(key)
        .collect();
    let mut dropped = 0;
    let mut cut_refs = 0;
    let budget = max.saturating_sub(16);
    while total > budget {
        let Some(Reverse((_, _, Reverse(i)))) = leaves.pop() else {
            break;
        };
        keep[i] = false;
        total -= estimate_tokens(&lines[i].text) + 1;
        dropped += 1;
        cut_refs += usize::from(lines[i].reference.is_some());
        if let Some(p) = parent[i] {
            children[p] -= 1;
            if children[p] == 0 {
                leaves.push(key(p));
            }
        }
    }
    let mut text = join_kept(&lines, &keep);
    if dropped > 0 {
        text.push_str(&format!(
            "# … {dropped} more lines ({} with refs) not shown, truncated to fit {max} tokens\n",
            cut_refs
        ));
    }
    Fitted::new(&lines, &keep, text, dropped)
}

/// Priority class, least useful first: off-screen text, off-screen refs,
/// in-viewport text, in-viewport refs.
fn class(line: &Line) -> u8 {
    match (line.in_viewport, line.reference.is_some()) {
        (false, false) => 0,
        (false, true) => 1,
        (true, false) => 2,
        (true, true) => 3,
    }
}

/// The kept lines, each ending in a newline.
fn join_kept(lines: &[Line], keep: &[bool]) -> String {
    // Sized once: growing the text would copy it again at every doubling.
    let len = lines
        .iter()
        .zip(keep)
        .filter(|(_, k)| **k)
        .map(|(line, _)| line.text.len() + 1)
        .sum();
    let mut out = String::with_capacity(len);
    for (line, &k) in lines.iter().zip(keep) {
        if k {
            out.push_str(&line.text);
            out.push('\n');
        }
    }
    out
}

/// Keeps lines within `max_tokens`, dropping in this order: off-screen text,
/// off-screen refs, deep in-viewport text, in-viewport text; refs inside the
/// viewport go last. Returns the kept text and how many lines were dropped;
/// a notice line says what was dropped.
pub fn fit(lines: Vec<Line>, max_tokens: Option<usize>) -> Fitted {
    let join = join_kept;
    let keep_all = vec![true; lines.len()];
    let Some(max) = max_tokens else {
        let text = join(&lines, &keep_all);
        return Fitted::new(&lines, &keep_all, text, 0);
    };
    let mut total: usize = lines.iter().map(|l| estimate_tokens(&l.text) + 1).sum();
    if total <= max {
        let text = join(&lines, &keep_all);
        return Fitted::new(&lines, &keep_all, text, 0);
    }
    // Priority classes, least useful first; within a class, deepest and latest first.
    let mut order: Vec<usize> = (0..lines.len()).filter(|&i| !lines[i].pinned).collect();
    order.sort_by(|&a, &b| {
        class(&lines[a])
            .cmp(&class(&lines[b]))
            .then(lines[b].depth.cmp(&lines[a].depth))
            .then(b.cmp(&a))
    });
    let mut keep = keep_all;
    let mut dropped = 0;
    let mut cut_refs = 0;
    // Leave room for the notice line.
    let budget = max.saturating_sub(16);
    for i in order {
        if total <= budget {
            break;
        }
        keep[i] = false;
        total -= estimate_tokens(&lines[i].text) + 1;
        dropped += 1;
        cut_refs += usize::from(lines[i].reference.is_some());
    }
    let mut text = join(&lines, &keep);
    if dropped > 0 {
        text.push_str(&format!(
            "… {dropped} more lines ({} with refs) not shown, truncated to fit {max} tokens\n",
            cut_refs
        ));
    }
    Fitted::new(&lines, &keep, text, dropped)
}
