//! The meta every observation carries: its items (ref, role, name and how strong it is, zone, states, context), counts, honesty figures, viewport and modal facts.

use crate::analyze::{Analyzed, whitespace};
use crate::analyze::{Checked, ModalKind, NameSource, Strength};
use crate::observation::{
    Claims, Counts, Honesty, Item, Meta, ModalMeta, Observation, ViewportMeta, Withheld,
};
use crate::page::{Node, NodeId, Page};
use crate::passes::budget::Fitted;
use crate::passes::{Context, Options, Target, viewport};

/// The printed states of a node (`disabled`, `checked`, `level=2`, …).
fn state_words(ctx: &Context<'_>, id: NodeId) -> Vec<String> {
    let s = &ctx.analysis.states[id.index()];
    let mut out = Vec::new();

    match s.checked {
        Some(Checked::True) => out.push("checked".to_owned()),
        Some(Checked::Mixed) => out.push("checked=mixed".to_owned()),
        _ => {}
    }
    if s.disabled {
        out.push("disabled".to_owned());
    }
    if let Some(expanded) = s.expanded {
        out.push(if expanded { "expanded" } else { "collapsed" }.to_owned());
    }
    if let Some(level) = s.level {
        out.push(format!("level={level}"));
    }
    match s.pressed {
        Some(Checked::True) => out.push("pressed".to_owned()),
        Some(Checked::Mixed) => out.push("pressed=mixed".to_owned()),
        _ => {}
    }
    if s.selected == Some(true) {
        out.push("selected".to_owned());
    }
    if s.required {
        out.push("required".to_owned());
    }
    if s.readonly {
        out.push("readonly".to_owned());
    }
    if s.invalid.is_some() {
        out.push("invalid".to_owned());
    }
    if s.focused {
        out.push("focused".to_owned());
    }
    out
}

/// Text runs in the observation's scope that no person can see, by why.
fn withheld(ctx: &Context<'_>) -> Withheld {
    let mut out = Withheld::default();
    for id in ctx.page.ids() {
        let Node::Text(text) = ctx.page.node(id) else {
            continue;
        };
        let visibility = ctx.analysis.visibility[id.index()];
        if let Some(reason) = visibility.hidden
            && ctx.in_scope(id)
            && (ctx.full_page || visibility.in_viewport)
            && !text.trim().is_empty()
        {
            out.add(reason);
        }
    }
    out
}

/// The meta item of a target, with its printed ref.
fn item(ctx: &Context<'_>, target: &Target, reference: String) -> Item {
    let id = target.id;
    let analysis = ctx.analysis;
    let name = analysis.name(id);
    let bounds = ctx.page.layout(id).bounds;
    Item {
        reference,
        node: id.index(),
        backend_id: ctx.page.layout(id).backend_id,
        role: analysis.role(id).unwrap_or("generic").to_owned(),
        name: ctx.name(id),
        name_source: name.map_or(NameSource::Unknown, |n| n.source),
        name_status: name.map_or(Strength::Unknown, |n| n.strength),
        zone: match bounds {
            // No box of its own (content Chromium skipped off screen, a
            // `display: contents` element): off screen when its content is.
            None if ctx.page.has_layout && !analysis.visibility[id.index()].in_viewport => {
                crate::observation::Zone::Offscreen
            }
            bounds => viewport::zone(ctx.page, bounds),
        },
        bounds,
        states: state_words(ctx, id),
        new: target.new,
        context: context(ctx, id),
    }
}

/// Nearby text of a node: the nearest preceding heading, then (for a
/// nameless node) its first words, then the last words of the visible
/// text just before it, stopping at the previous ref'd control (whose
/// text is its own). The walk back is bounded by [`CONTEXT_NODES`] and
/// the words by [`CONTEXT_WORDS`], so pages with many refs and long
/// texts stay linear; redacted like all shown text, not counted.
fn context(ctx: &Context<'_>, id: NodeId) -> String {
    let analysis = ctx.analysis;
    let first = id.index().saturating_sub(CONTEXT_NODES);
    // The nearest heading before the node that is not one of its ancestors.
    let mut heading_at = ctx.heading_before(id);
    while let Some(h) = heading_at.filter(|&h| ctx.page.contains(h, id)) {
        heading_at = ctx.heading_before(h);
    }
    let heading_at = heading_at.filter(|h| h.index() >= first);
    let heading = heading_at
        .and_then(|h| analysis.name(h))
        .map(|n| n.text.clone())
        .unwrap_or_default();
    // The words before the node, nearest first.
    let mut words: Vec<&str> = Vec::with_capacity(CONTEXT_WORDS);
    // Text after the heading only: its own text is the heading.
    let stop = heading_at.map_or(first, |h| ctx.page.subtree_end(h).index());
    for i in (stop..id.index()).rev() {
        if words.len() >= CONTEXT_WORDS {
            break;
        }
        let node = NodeId::from_index(i);
        if ctx.page.contains(node, id) {
            continue;
        }
        match ctx.page.node(node) {
            Node::Text(text) => {
                let parent = ctx.page.parent(node);
                if parent.is_some_and(|p| ctx.ref_number(p).is_some()) {
                    break;
                }
                // The run's own visibility: its element's, and whether a person can read it.
                let visible = parent.is_some() && analysis.visibility[i].is_visible();
                if visible {
                    // The words nearest the node: the end of this text.
                    push_last_words(text, CONTEXT_WORDS - words.len(), &mut words);
                }
            }
            Node::Element(_) if ctx.ref_number(node).is_some() => break,
            _ => {}
        }
    }
    words.reverse();
    let mut text = words.join(" ");
    if analysis.name(id).is_none_or(|n| n.text.trim().is_empty()) {
        // A nameless control (clickable div, icon button): its own text is
        // what every strategy prints for it.
        // Read only as far as the words kept: once a word follows them,
        // later text cannot change them.
        // Words are counted piece by piece (a word may run across pieces):
        // re-reading what was kept at every piece is quadratic in a control
        // holding thousands of glyph spans and no spaces (MathJax).
        let mut own = String::new();
        let mut words = 0;
        let mut in_word = false;
        'pieces: for piece in ctx.page.texts(id) {
            own.push_str(piece);
            for c in piece.chars() {
                let starts = !in_word && !c.is_whitespace();
                in_word = !c.is_whitespace();
                if starts {
                    words += 1;
                    if words > CONTEXT_WORDS {
                        break 'pieces;
                    }
                }
            }
        }
        let own: Vec<&str> = own.split_whitespace().take(CONTEXT_WORDS).collect();
        if !own.is_empty() {
            text = if text.is_empty() {
                own.join(" ")
            } else {
                format!("{} {text}", own.join(" "))
            };
        }
    }
    let mut out = heading;
    if !text.is_empty() {
        if !out.is_empty() {
            out.push_str(" | ");
        }
        out.push_str(&text);
    }
    ctx.text_again(out)
}

/// Assembles a text-only observation: refs printed by `print` in target
/// order, the shared meta, and how many lines the budget dropped.
pub(crate) fn text_observation(
    ctx: &Context<'_>,
    strategy: &str,
    options: &Options<'_>,
    fitted: Fitted,
    print: impl Fn(u32) -> String,
) -> Observation {
    let mut refs: Vec<(String, NodeId)> = ctx
        .targets
        .iter()
        .map(|t| (print(t.number), t.id))
        .collect();
    let printed: Vec<String> = refs.iter().map(|(r, _)| r.clone()).collect();
    let mut meta = meta(ctx, strategy, options, &printed);
    complete(ctx, &mut meta, fitted.dropped);
    keep_shown(ctx, &fitted.shown_refs, &mut refs, &mut meta);
    Observation {
        text: fitted.text,
        image: None,
        refs,
        meta,
    }
}

/// Keeps only the refs the text shows, in the observation's refs and its
/// meta items: one a token budget cut, or one inside an element whose
/// children are not printed (a link in an `<svg>` shown as `- img`), cannot
/// be acted on, and target recall counts only what was shown. `refs` and
/// `meta.items` are in target order.
pub(crate) fn keep_shown(
    ctx: &Context<'_>,
    shown: &[u32],
    refs: &mut Vec<(String, NodeId)>,
    meta: &mut Meta,
) {
    // Sorted and searched: a hash set of thousands of refs costs more.
    let mut shown = shown.to_vec();
    shown.sort_unstable();
    let is_shown = |number: u32| shown.binary_search(&number).is_ok();
    if ctx.targets.iter().all(|t| is_shown(t.number)) {
        return;
    }
    let kept: Vec<bool> = ctx.targets.iter().map(|t| is_shown(t.number)).collect();
    let mut at = 0;
    refs.retain(|_| {
        at += 1;
        kept.get(at - 1).copied().unwrap_or(true)
    });
    let mut at = 0;
    meta.items.retain(|_| {
        at += 1;
        kept.get(at - 1).copied().unwrap_or(true)
    });
}

/// Meta shared by every strategy; `refs` are the printed refs in target order.
pub(crate) fn meta(
    ctx: &Context<'_>,
    strategy: &str,
    options: &Options<'_>,
    refs: &[String],
) -> Meta {
    let items: Vec<Item> = ctx
        .targets
        .iter()
        .zip(refs)
        .map(|(target, reference)| item(ctx, target, reference.clone()))
        .collect();
    assemble(
        ctx,
        strategy,
        snapshot_id(ctx.page, strategy, options),
        items,
    )
}

/// The items of the nodes pagesnap gives a ref on the whole page, in
/// document order, each with its ref as `aria` prints it (`e12`): what the
/// lines of another program's ARIA text are matched against.
pub fn candidates(analyzed: &Analyzed) -> Vec<Item> {
    let Ok(ctx) = Context::new(analyzed, &Options::default(), true) else {
        // Without layers there is no selector to reject.
        return Vec::new();
    };
    ctx.targets
        .iter()
        .map(|target| item(&ctx, target, format!("e{}", target.number)))
        .collect()
}

/// The meta of an observation another program rendered (an external
/// strategy): an item per ref it gave, in its order — read from pagesnap's
/// analysis of the same state as for any ref of its own, whether or not
/// pagesnap would give the node a ref (a heading, a container) — and the
/// page's counts, honesty, viewport and modal facts. Nothing is new (the
/// program decides that), and the snapshot id is pagesnap's whole-page one.
pub fn foreign(analyzed: &Analyzed, strategy: &str, refs: &[(String, NodeId)]) -> Meta {
    let options = Options::default();
    let Ok(ctx) = Context::new(analyzed, &options, true) else {
        // Without layers there is no selector to reject.
        return Meta::default();
    };
    let items = refs
        .iter()
        .map(|(reference, id)| {
            let target = Target {
                id: *id,
                number: 0,
                new: false,
            };
            item(&ctx, &target, reference.clone())
        })
        .collect();
    assemble(
        &ctx,
        strategy,
        snapshot_id(ctx.page, strategy, &options),
        items,
    )
}

/// The meta of `items` on the context's page.
fn assemble(ctx: &Context<'_>, strategy: &str, snapshot_id: String, items: Vec<Item>) -> Meta {
    let analysis = ctx.analysis;
    let position = analysis.position;
    let mut counts = Counts {
        interactive: items.len(),
        weak: items
            .iter()
            .filter(|i| i.name_status == Strength::Weak)
            .count(),
        unknown: items
            .iter()
            .filter(|i| i.name_status == Strength::Unknown)
            .count(),
        redacted: ctx.redactions().total(),
        redacted_by: ctx.redactions(),
        ..Counts::default()
    };
    for id in ctx.page.ids() {
        let i = id.index();
        if analysis.interactive[i].is_none()
            || !analysis.visibility[i].is_visible()
            || !ctx.in_scope(id)
        {
            continue;
        }
        if analysis.obscured[i] {
            counts.obscured += 1;
        } else if !analysis.visibility[i].in_viewport && !analysis.occluded[i] {
            counts.offscreen += 1;
        }
    }
    if !ctx.show_hidden {
        counts.withheld_by = withheld(ctx);
        counts.withheld = counts.withheld_by.total();
    }
    let mut warnings = Vec::new();
    if analysis.modal.kind == ModalKind::Suspected {
        warnings.push("an overlay may cover the page".to_owned());
    }
    Meta {
        strategy: strategy.to_owned(),
        snapshot_id,
        viewport: ViewportMeta {
            scroll_y: position.scroll_y,
            doc_height: position.doc_height,
            viewport_height: position.viewport_height,
            pages_above: position.pages_above,
            pages_below: position.pages_below,
            at_top: position.at_top,
            at_bottom: position.at_bottom,
        },
        modal: ModalMeta {
            kind: analysis.modal.kind,
            node: analysis.modal.node.map(NodeId::index),
        },
        observation: honesty(&counts),
        counts,
        items,
        image: None,
        warnings,
        dialog: None,
    }
}

/// Completes the meta once the observation is rendered: the redactions made
/// while rendering, and what the budget dropped (lines, or refs cut off).
pub(crate) fn complete(ctx: &Context<'_>, meta: &mut Meta, truncated: usize) {
    meta.counts.redacted = ctx.redactions().total();
    meta.counts.redacted_by = ctx.redactions();
    meta.counts.truncated = truncated;
}

/// aimount's `exactUiClaims`: `safe` when at most 10% of the refs are weakly
/// named and none is unnamed; `unsafe` when more than half are weak or
/// unnamed, or more than 25% unnamed; `partial` otherwise.
fn honesty(counts: &Counts) -> Honesty {
    let total = counts.interactive;
    let weak_or_unknown = counts.weak + counts.unknown;
    let claims = if total == 0 {
        Claims::Unsafe
    } else if counts.unknown == 0 && counts.weak * 10 <= total {
        Claims::Safe
    } else if weak_or_unknown * 2 > total || counts.unknown * 4 > total {
        Claims::Unsafe
    } else {
        Claims::Partial
    };
    Honesty {
        total_interactive: total,
        weak_interactive: counts.weak,
        unknown_interactive: counts.unknown,
        exact_ui_claims: claims,
    }
}

/// Pushes the last `n` whitespace-separated words of `text` (as
/// `split_whitespace` splits it) onto `out`, the last word first; read
/// backwards byte by byte, decoding only the characters outside ASCII that
/// may be whitespace.
fn push_last_words<'t>(text: &'t str, n: usize, out: &mut Vec<&'t str>) {
    let bytes = text.as_bytes();
    // Where the character ending at `end` starts, and whether it is
    // whitespace.
    let before = |end: usize| -> (usize, bool) {
        let b = bytes[end - 1];
        if b.is_ascii() {
            return (end - 1, b.is_ascii_whitespace() || b == 0x0b);
        }
        let start = (0..end)
            .rev()
            .find(|&i| !(0x80..0xc0).contains(&bytes[i]))
            .unwrap_or(0);
        let space = whitespace::may_start_space(bytes[start])
            && text[start..end]
                .chars()
                .next()
                .is_some_and(char::is_whitespace);
        (start, space)
    };
    let mut pushed = 0;
    let mut end = bytes.len();
    while pushed < n && end > 0 {
        // Back over the whitespace, then over the word.
        while end > 0 {
            let (start, space) = before(end);
            if !space {
                break;
            }
            end = start;
        }
        let mut start = end;
        while start > 0 {
            let (previous, space) = before(start);
            if space {
                break;
            }
            start = previous;
        }
        if start < end {
            out.push(&text[start..end]);
            pushed += 1;
        }
        end = start;
    }
}

/// Nodes walked back from an item to find its context.
const CONTEXT_NODES: usize = 400;

/// Words of preceding text kept in an item's context.
const CONTEXT_WORDS: usize = 12;

/// A 64-bit hash of the page's content and the options: the strategy, the
/// URL and scroll, every node's tag, attributes and text, each box's
/// origin, form values and checked states, the options (scope, redaction,
/// budget, active layers with their selectors) and the previous
/// observation's id. Computed styles and box sizes are not read: a change
/// to them alone (a `:hover` rule turning `visibility` on) keeps the id.
fn snapshot_id(page: &Page, strategy: &str, options: &Options<'_>) -> String {
    // rustc's FxHash step, eight bytes at a time; the tail and the length
    // close each piece, so `ab`+`c` and `a`+`bc` differ.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut mix = |word: u64| {
        hash = (hash.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    };
    let mut feed = |bytes: &[u8]| {
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            let mut eight = [0u8; 8];
            eight.copy_from_slice(word);
            mix(u64::from_le_bytes(eight));
        }
        let mut tail = [0u8; 8];
        tail[..words.remainder().len()].copy_from_slice(words.remainder());
        mix(u64::from_le_bytes(tail));
        mix(bytes.len() as u64);
    };
    feed(strategy.as_bytes());
    feed(page.url.as_bytes());
    feed(&page.scroll.y.to_le_bytes());
    for id in page.ids() {
        match page.node(id) {
            Node::Element(e) => {
                feed(e.name.as_bytes());
                for (k, v) in e.attrs.iter() {
                    feed(k.as_bytes());
                    feed(v.as_bytes());
                }
            }
            Node::Text(t) => feed(t.as_bytes()),
            _ => feed(b"#"),
        }
        let layout = page.layout(id);
        if let Some(b) = layout.bounds {
            feed(&b.x.to_le_bytes());
            feed(&b.y.to_le_bytes());
        }
        if let Some(v) = &layout.value {
            feed(v.as_bytes());
        }
        if let Some(c) = layout.checked {
            feed(&[u8::from(c)]);
        }
    }
    let full_page = match options.full_page {
        None => 0,
        Some(false) => 1,
        Some(true) => 2,
    };
    feed(&[full_page, u8::from(options.redact)]);
    match options.max_tokens {
        Some(max) => feed(&(max as u64).to_le_bytes()),
        None => feed(b"-"),
    }
    // An active layer by its name and its definition: the same name with
    // other selectors shows other nodes.
    for name in &options.active_layers {
        feed(name.as_bytes());
        if let Some(layer) = options.layers.iter().find(|layer| layer.name == *name) {
            for selector in &layer.selectors {
                feed(selector.as_bytes());
            }
            feed(&(layer.selectors.len() as u64).to_le_bytes());
        }
    }
    feed(&(options.active_layers.len() as u64).to_le_bytes());
    if let Some(previous) = options.previous {
        feed(previous.meta.snapshot_id.as_bytes());
    }
    let mut id = String::with_capacity(16);
    crate::digits::push_hex16(&mut id, hash);
    id
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn last_words_are_split_whitespace_read_from_the_end(
            text in "[a-z1 \t\n\x0b\u{85}\u{a0}\u{3000}\u{feff}éあ—]{0,40}",
            n in 0usize..6,
        ) {
            let want: Vec<&str> = text.split_whitespace().rev().take(n).collect();
            let mut got = vec!["kept"];
            push_last_words(&text, n, &mut got);
            prop_assert_eq!(&got[..1], &["kept"]);
            prop_assert_eq!(&got[1..], &want[..]);
        }
    }
}
