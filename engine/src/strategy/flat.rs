//! The `flat` strategy: page-agent / browser-use indexed text, `[12]<button …>Submit />`, with a page-info header and scroll footer.
//!
//! One walk over the page keeps three kinds of things and collapses the rest:
//! interactive elements (with an index when they are targets, without one
//! when a modal obscures or something covers them), scroll containers, and
//! the visible text between them. Tab indentation counts kept ancestors
//! only, so wrapper `div`s do not inflate the depth. An interactive
//! element's text is the text of its descendants up to the next interactive
//! element, as page-agent's `getAllTextTillNextClickableElement` does.

use super::Strategy;
use super::shared::meta;
use super::shared::text::normalize_whitespace;
use super::shared::walk::{Step, is_block, is_user_agent_root, scope_or_descendant, walk};
use crate::analyze::{Analyzed, Checked, ModalKind, NameSource, input_type};
use crate::observation::Observation;
use crate::page::{Node, NodeId};
use crate::passes::budget::{self, Line};
use crate::passes::{Context, ObserveError, Options};

/// Attributes shown on kept elements, as glob patterns (`*` matches any
/// run of characters), in the spirit of browser-use's `include_attributes`
/// and page-agent's default set. `value`, `checked`, `selected` and
/// `disabled` are not read from markup but from the live form state and the
/// computed states (the value redacted for secret fields); the others are
/// read from the element's attributes in source order. Values are
/// whitespace-normalised, capped at [`MAX_ATTRIBUTE_CHARS`] and dropped
/// when they repeat the element's text.
pub const DEFAULT_ATTRIBUTES: &[&str] = &[
    "title",
    "type",
    "name",
    "role",
    "placeholder",
    "alt",
    "href",
    "for",
    "aria-*",
    "data-state",
    "contenteditable",
    "value",
    "checked",
    "selected",
    "disabled",
];

/// Longest attribute value shown, in characters (then `…`).
pub const MAX_ATTRIBUTE_CHARS: usize = 100;

/// Longest text shown per line or element, in characters (then `…`).
pub const MAX_TEXT_CHARS: usize = 200;

#[doc = include_str!("flat.md")]
pub struct Flat;

impl Strategy for Flat {
    fn name(&self) -> &'static str {
        "flat"
    }

    fn summary(&self) -> &'static str {
        "page-agent / browser-use indexed text: [N]<tag attrs>text />, page info header, scroll footer"
    }

    fn explain(&self) -> &'static str {
        include_str!("flat.md")
    }

    fn observe(
        &self,
        analyzed: &Analyzed,
        options: &Options<'_>,
    ) -> Result<Observation, ObserveError> {
        let ctx = Context::new(analyzed, options, self.full_page_by_default())?;
        let mut lines = header(&ctx);
        body(&ctx, &mut lines);
        lines.push(Line::pinned(footer(&ctx)));
        let fitted = budget::fit(lines, options.max_tokens);
        Ok(meta::text_observation(
            &ctx,
            self.name(),
            options,
            fitted,
            |n| n.to_string(),
        ))
    }
}

fn header(ctx: &Context<'_>) -> Vec<Line> {
    let mut lines = Vec::new();
    match ctx.analysis.modal.kind {
        ModalKind::Reliable => lines.push(Line::pinned(
            "A modal dialog is open; only its elements have indexes.".to_owned(),
        )),
        ModalKind::Suspected => lines.push(Line::pinned(
            "Warning: an overlay may cover the page; elements under it may not respond.".to_owned(),
        )),
        ModalKind::None => {}
    }
    let p = ctx.analysis.position;
    let pages = |pixels: f64| {
        if p.viewport_height > 0.0 {
            pixels / p.viewport_height
        } else {
            0.0
        }
    };
    lines.push(Line::pinned(format!(
        "Page info: {}, \"{}\", {:.1} pages above, {:.1} pages below",
        ctx.text(&ctx.page.url),
        ctx.text(&normalize_whitespace(&ctx.page.title)),
        pages(p.pixels_above),
        pages(p.pixels_below),
    )));
    lines.push(Line::pinned(if p.at_top {
        "[Start of page]".to_owned()
    } else {
        format!(
            "... {} pixels above - scroll to see more ...",
            p.pixels_above.round()
        )
    }));
    lines
}

fn footer(ctx: &Context<'_>) -> String {
    let p = ctx.analysis.position;
    if p.at_bottom {
        "[End of page]".to_owned()
    } else {
        format!(
            "... {} pixels below - scroll to see more ...",
            p.pixels_below.round()
        )
    }
}

/// Caps a text at `max` characters, marking the cut with `…`.
fn cap(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", text[..at].trim_end()),
        None => text.to_owned(),
    }
}

/// `*` matches any run of characters; everything else matches itself (ASCII case-insensitive).
fn glob(pattern: &str, name: &str) -> bool {
    let pattern = pattern.as_bytes();
    let name = name.as_bytes();
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        if p < pattern.len() && pattern[p] == b'*' {
            star = Some((p, n));
            p += 1;
        } else if p < pattern.len() && pattern[p].eq_ignore_ascii_case(&name[n]) {
            p += 1;
            n += 1;
        } else if let Some((sp, sn)) = star {
            p = sp + 1;
            n = sn + 1;
            star = Some((sp, sn + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

fn wanted(name: &str) -> bool {
    DEFAULT_ATTRIBUTES.iter().any(|pattern| glob(pattern, name))
}

fn format_attr(out: &mut String, key: &str, value: &str) {
    out.push(' ');
    out.push_str(key);
    if value.is_empty() {
        return;
    }
    out.push('=');
    if value
        .chars()
        .any(|c| c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>' | '='))
    {
        out.push('"');
        out.push_str(&value.replace('"', "&quot;"));
        out.push('"');
    } else {
        out.push_str(value);
    }
}

/// `<tag attr=value …` (without the closing `>`), for element `id` whose text is `text`.
fn element_open(ctx: &Context<'_>, id: NodeId, text: &str, scroll: Option<String>) -> String {
    let Some(element) = ctx.page.element(id) else {
        return String::new();
    };
    let mut out = format!("<{}", element.name);
    let live = matches!(element.name.as_str(), "input" | "textarea" | "select");
    let dup = |value: &str| !text.is_empty() && value == text;
    for (key, raw) in element.attrs.iter() {
        let key = key.to_ascii_lowercase();
        if matches!(key.as_str(), "value" | "checked" | "selected" | "disabled") || !wanted(&key) {
            continue;
        }
        if key == "role" && raw.eq_ignore_ascii_case(&element.name) {
            continue;
        }
        let Some(value) = ctx.attr(id, &key) else {
            continue;
        };
        let value = cap(&normalize_whitespace(&value), MAX_ATTRIBUTE_CHARS);
        if dup(&value) {
            continue;
        }
        format_attr(&mut out, &key, &value);
    }
    let states = &ctx.analysis.states[id.index()];
    let checkable = element.is("input") && matches!(input_type(element), "checkbox" | "radio");
    let value = if live && !checkable {
        ctx.value(id)
    } else if !live && element.has_attr("value") {
        ctx.attr(id, "value")
    } else {
        None
    };
    if let Some(value) = value {
        let value = cap(&normalize_whitespace(&value), MAX_ATTRIBUTE_CHARS);
        if !value.is_empty() && !dup(&value) {
            format_attr(&mut out, "value", &value);
        }
    }
    match states.checked {
        Some(Checked::True) => format_attr(&mut out, "checked", "true"),
        Some(Checked::False) => format_attr(&mut out, "checked", "false"),
        Some(Checked::Mixed) => format_attr(&mut out, "checked", "mixed"),
        None => {}
    }
    if states.selected == Some(true) {
        format_attr(&mut out, "selected", "true");
    }
    if states.disabled {
        format_attr(&mut out, "disabled", "");
    }
    if let Some(scroll) = scroll {
        format_attr(&mut out, "data-scrollable", &scroll);
    }
    out
}

/// An element kept on its own line.
struct Kept {
    id: NodeId,
    /// Index of its line in `lines`.
    line: usize,
    depth: usize,
    /// Interactive elements collect their descendants' text.
    text: Option<String>,
    scroll: Option<String>,
}

/// Plain text waiting for the next kept element boundary.
#[derive(Default)]
struct Pending {
    text: String,
    in_viewport: bool,
}

fn scroll_hints(ctx: &Context<'_>) -> Vec<Option<String>> {
    let mut out = vec![None; ctx.page.len()];
    for c in &ctx.analysis.scroll_containers {
        // Only the axes with somewhere to go; a vertical hint when neither has.
        let vertical = format!("top={}, bottom={}", c.above.round(), c.below.round());
        let horizontal = format!("left={}, right={}", c.left.round(), c.right.round());
        let hint = match (c.above + c.below > 0.0, c.left + c.right > 0.0) {
            (true, true) => format!("{vertical}, {horizontal}"),
            (false, true) => horizontal,
            _ => vertical,
        };
        out[c.node.index()] = Some(hint);
    }
    out
}

fn body(ctx: &Context<'_>, lines: &mut Vec<Line>) {
    let page = ctx.page;
    let analysis = ctx.analysis;
    let any_scope = scope_or_descendant(ctx);
    let mut scroll = scroll_hints(ctx);
    let mut kept: Vec<Kept> = Vec::new();
    let mut is_kept = vec![false; page.len()];
    let mut block = vec![false; page.len()];
    let mut pending = Pending::default();

    let flush = |pending: &mut Pending, lines: &mut Vec<Line>, depth: usize| {
        let text = normalize_whitespace(&pending.text);
        if !text.is_empty() {
            lines.push(Line {
                text: format!(
                    "{}{}",
                    "\t".repeat(depth),
                    cap(&ctx.text(&text), MAX_TEXT_CHARS)
                ),
                reference: None,
                in_viewport: pending.in_viewport,
                depth,
                pinned: false,
            });
        }
        *pending = Pending::default();
    };
    // Where text goes: the innermost kept element if it collects, else plain lines.
    let sink =
        |kept: &mut Vec<Kept>, pending: &mut Pending, text: &str, in_viewport: bool| match kept
            .last_mut()
            .and_then(|k| k.text.as_mut())
        {
            Some(buffer) => buffer.push_str(text),
            None => {
                pending.text.push_str(text);
                pending.in_viewport |= in_viewport && !text.trim().is_empty();
            }
        };
    // A block boundary separates words inside an element's text and starts a
    // new line between plain texts.
    let boundary = |kept: &mut Vec<Kept>, pending: &mut Pending, lines: &mut Vec<Line>| match kept
        .last_mut()
        .and_then(|k| k.text.as_mut())
    {
        Some(buffer) => buffer.push(' '),
        None => flush(pending, lines, kept.len()),
    };

    walk(page, &ctx.analysis.dom, NodeId::ROOT, |step| match step {
        Step::Enter(id) => {
            let i = id.index();
            if !any_scope[i] || is_user_agent_root(page, id) {
                return false;
            }
            let visibility = analysis.visibility[i];
            let shown = ctx.in_scope(id)
                && visibility.is_visible()
                && (ctx.full_page || visibility.in_viewport);
            match page.node(id) {
                Node::Text(text) => {
                    if shown {
                        sink(&mut kept, &mut pending, text, visibility.in_viewport);
                    }
                    false
                }
                Node::Element(_) => {
                    if !shown {
                        return true;
                    }
                    let reference = ctx.ref_number(id);
                    // A control wholly covered by an opaque box is not seen:
                    // not listed (its text, covered too, is withheld).
                    let interactive = analysis.interactive[i].is_some()
                        && (ctx.show_hidden || !analysis.covered[i]);
                    let hint = scroll[i].take();
                    if reference.is_some() || interactive || hint.is_some() {
                        let depth = kept.len();
                        flush(&mut pending, lines, depth);
                        is_kept[i] = true;
                        kept.push(Kept {
                            id,
                            line: lines.len(),
                            depth,
                            // A scroll container's content reads as lines under it.
                            text: (hint.is_none() && (reference.is_some() || interactive))
                                .then(String::new),
                            scroll: hint,
                        });
                        // Filled in on exit, when the text is known.
                        lines.push(Line {
                            text: String::new(),
                            reference,
                            in_viewport: visibility.in_viewport,
                            depth,
                            pinned: false,
                        });
                    }
                    if is_block(ctx, id) {
                        block[i] = true;
                        boundary(&mut kept, &mut pending, lines);
                    }
                    true
                }
                Node::Document { .. } | Node::ShadowRoot(_) => true,
            }
        }
        Step::Exit(id) => {
            let i = id.index();
            if block[i] {
                boundary(&mut kept, &mut pending, lines);
            }
            if is_kept[i] {
                flush(&mut pending, lines, kept.len());
                if let Some(k) = kept.pop() {
                    let mut text = k
                        .text
                        .as_deref()
                        .map(|t| cap(&ctx.text(&normalize_whitespace(t)), MAX_TEXT_CHARS))
                        .unwrap_or_default();
                    // A control named by text no one sees (a screen-reader-only
                    // "Close" in an icon button) keeps that name: a person sees the control.
                    if text.is_empty()
                        && k.text.is_some()
                        && ctx
                            .analysis
                            .name(k.id)
                            .is_some_and(|n| n.source == NameSource::Text)
                    {
                        text = cap(&normalize_whitespace(&ctx.name_ref(k.id)), MAX_TEXT_CHARS);
                    }
                    let open = element_open(ctx, k.id, &text, k.scroll);
                    let mark = match ctx.ref_number(k.id) {
                        Some(n) if ctx.is_new(k.id) => format!("*[{n}]"),
                        Some(n) => format!("[{n}]"),
                        None => String::new(),
                    };
                    let tabs = "\t".repeat(k.depth);
                    lines[k.line].text = if text.is_empty() {
                        format!("{tabs}{mark}{open} />")
                    } else {
                        format!("{tabs}{mark}{open}>{text} />")
                    };
                }
            }
            true
        }
    });
    flush(&mut pending, lines, 0);
}
