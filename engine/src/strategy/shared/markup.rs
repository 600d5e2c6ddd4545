//! Markup both HTML strategies write: start tags with `data-ref`, escaping, live field values, and the budget cut at a tag boundary.

use crate::analyze::input_type;
use crate::observation::{Meta, Observation};
use crate::page::{Element, NodeId};
use crate::passes::Context;
use crate::passes::budget::estimate_tokens;
use crate::passes::redact::REDACTED;

/// Elements without an end tag (HTML §13.1.2, void elements).
pub(crate) const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr",
];

/// `<input type>`s whose `value` attribute is what the user typed.
const TEXT_INPUTS: &[&str] = &[
    "",
    "text",
    "search",
    "email",
    "url",
    "tel",
    "password",
    "number",
    "date",
    "time",
    "datetime-local",
    "month",
    "week",
    "color",
    "range",
];

/// Serialized markup and where each ref'd element's start tag ends.
#[derive(Default)]
pub(crate) struct Markup {
    pub(crate) text: String,
    /// (byte offset after the start tag, node) per ref'd element.
    pub(crate) refs: Vec<(usize, NodeId)>,
}

impl Markup {
    /// Writes a start tag with `data-ref` first, then the given attributes.
    pub(crate) fn start_tag<'a>(
        &mut self,
        ctx: &Context<'_>,
        id: NodeId,
        name: &str,
        attrs: impl IntoIterator<Item = (&'a str, String)>,
    ) {
        self.text.push('<');
        self.text.push_str(name);
        let number = ctx.ref_number(id);
        if let Some(n) = number {
            self.text.push_str(&format!(" data-ref=\"{n}\""));
        }
        for (key, value) in attrs {
            self.text.push(' ');
            self.text.push_str(key);
            if !value.is_empty() || !is_boolean(key) {
                self.text.push_str("=\"");
                escape_attr(&value, &mut self.text);
                self.text.push('"');
            }
        }
        self.text.push('>');
        if number.is_some() {
            self.refs.push((self.text.len(), id));
        }
    }
}

fn is_boolean(key: &str) -> bool {
    matches!(
        key,
        "checked" | "selected" | "disabled" | "required" | "readonly" | "hidden" | "multiple"
    )
}

/// Cuts the markup to the budget at a tag boundary (with a notice), drops
/// refs past the cut, and builds the observation.
pub(crate) fn finish(
    ctx: &Context<'_>,
    markup: Markup,
    mut meta: Meta,
    max_tokens: Option<usize>,
) -> Observation {
    let Markup { mut text, refs } = markup;
    let total = text.len();
    let mut cut = total;
    if let Some(max) = max_tokens.filter(|&max| estimate_tokens(&text) + 1 > max) {
        // Leave room for the notice; walk the estimate forward to the limit.
        let budget = max.saturating_sub(24);
        let (mut ascii, mut other) = (0usize, 0usize);
        cut = 0;
        for (at, c) in text.char_indices() {
            if c.is_ascii() {
                ascii += 1;
            } else {
                other += 1;
            }
            if ascii.div_ceil(4) + other > budget {
                break;
            }
            cut = at + c.len_utf8();
        }
        // Never cut inside a tag.
        cut = text[..cut].rfind('>').map_or(0, |at| at + 1);
        text.truncate(cut);
        text.push_str(&format!(
            "\n… truncated to fit {max} tokens: {cut} of {total} bytes shown"
        ));
    }
    text.push('\n');
    let mut shown = vec![false; ctx.page.len()];
    for (end, id) in &refs {
        if *end <= cut {
            shown[id.index()] = true;
        }
    }
    let mut observation_refs = Vec::with_capacity(refs.len());
    let mut items = Vec::with_capacity(refs.len());
    let mut dropped = 0;
    for item in std::mem::take(&mut meta.items) {
        let id = NodeId::from_index(item.node);
        if !shown.get(item.node).copied().unwrap_or(false) {
            dropped += 1;
        } else {
            observation_refs.push((item.reference.clone(), id));
            items.push(item);
        }
    }
    meta.items = items;
    super::meta::complete(ctx, &mut meta, dropped);
    Observation {
        text,
        image: None,
        refs: observation_refs,
        meta,
    }
}

/// The live value of a text field as shown, when the recording has one.
pub(crate) fn live_value(ctx: &Context<'_>, id: NodeId, element: &Element) -> Option<String> {
    let raw = ctx.page.layout(id).value.as_deref()?;
    let is_text = element.is("textarea")
        || (element.is("input") && TEXT_INPUTS.contains(&input_type(element)));
    if !is_text {
        return None;
    }
    Some(match ctx.value(id) {
        Some(value) => value,
        None if ctx.is_secret(id) && !raw.is_empty() => REDACTED.to_owned(),
        None => ctx.text(raw),
    })
}

/// Closes every open element whose subtree ends at or before `id`.
pub(crate) fn close_until(open: &mut Vec<(NodeId, String)>, id: NodeId, out: &mut String) {
    while let Some((end, _)) = open.last() {
        if *end > id {
            break;
        }
        if let Some((_, tag)) = open.pop() {
            out.push_str(&tag);
        }
    }
}

/// Escapes text content (`&`, `<`, `>`, no-break space).
pub(crate) fn escape_text(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\u{a0}' => out.push_str("&nbsp;"),
            c => out.push(c),
        }
    }
}

/// Escapes an attribute value (`&`, `"`, no-break space).
pub(crate) fn escape_attr(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\u{a0}' => out.push_str("&nbsp;"),
            c => out.push(c),
        }
    }
}
