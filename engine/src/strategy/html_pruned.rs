//! `html-pruned`: Mind2Web-style cleaned HTML — visible nodes, a few attributes, wrappers collapsed, `data-ref` on actionable elements.

use super::Strategy;
use super::shared::markup::{Markup, VOID, close_until, escape_text, finish, live_value};
use super::shared::meta;
use super::shared::text::truncate;
use crate::analyze::{Analyzed, Checked, NameSource};
use crate::observation::Observation;
use crate::page::{Element, Namespace, Node, NodeId, ShadowMode};
use crate::passes::{Context, ObserveError, Options};

#[doc = include_str!("html_pruned.md")]
pub struct HtmlPruned;

/// Attributes kept as they are (Mind2Web's list, in HTML spelling).
const KEEP: &[&str] = &[
    "role",
    "aria-label",
    "aria-description",
    "alt",
    "label",
    "name",
    "placeholder",
    "title",
    "type",
];

/// Elements dropped with their whole subtree.
const DROP: &[&str] = &[
    "script", "style", "noscript", "template", "head", "meta", "link", "title", "base",
];

/// Characters of a text node shown.
const TEXT_CHARS: usize = 100;
/// Characters of a shortened `href`.
const HREF_CHARS: usize = 40;

impl Strategy for HtmlPruned {
    fn name(&self) -> &'static str {
        "html-pruned"
    }

    fn summary(&self) -> &'static str {
        "Mind2Web-style cleaned HTML: visible nodes, few attributes, data-ref attributes"
    }

    fn explain(&self) -> &'static str {
        include_str!("html_pruned.md")
    }

    fn observe(
        &self,
        analyzed: &Analyzed,
        options: &Options<'_>,
    ) -> Result<Observation, ObserveError> {
        let ctx = Context::new(analyzed, options, true)?;
        let refs: Vec<String> = ctx.targets.iter().map(|t| t.number.to_string()).collect();
        let meta = meta::meta(&ctx, self.name(), options, &refs);
        let actions = plan(&ctx);
        let mut out = Markup::default();
        render(&ctx, &actions, &mut out);
        Ok(finish(&ctx, out, meta, options.max_tokens))
    }
}

/// What happens to a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Act {
    /// Left out with its subtree.
    Drop,
    /// Left out, its children shown in its place.
    Unwrap,
    /// Shown with its children.
    Keep,
    /// Shown without its children (`<svg>`).
    Leaf,
}

fn is_svg_root(element: &Element) -> bool {
    element.ns == Namespace::Svg && element.name == "svg"
}

/// Whether the element would show any attribute (checked without redacting).
fn has_kept_attrs(ctx: &Context<'_>, id: NodeId, element: &Element) -> bool {
    let states = &ctx.analysis.states[id.index()];
    KEEP.iter()
        .any(|k| element.attr(k).is_some_and(|v| !v.trim().is_empty()))
        || element.attr("href").is_some()
        || element.attr("value").is_some_and(|v| !v.is_empty())
        || states.value.as_deref().is_some_and(|v| !v.is_empty())
        || states.disabled
        || states.checked == Some(Checked::True)
        || states.selected == Some(true)
}

/// Decides every node's fate bottom-up (reverse document order): a node's
/// children are decided before it, and `units` counts what each shows.
fn plan(ctx: &Context<'_>) -> Vec<Act> {
    let page = ctx.page;
    let analysis = ctx.analysis;
    let mut act = vec![Act::Drop; page.len()];
    let mut units = vec![0u32; page.len()];
    for id in page.ids().rev() {
        let i = id.index();
        // A control wholly covered by an opaque box is not seen either.
        let visible = analysis.visibility[i].is_visible()
            && ctx.in_scope(id)
            && (ctx.show_hidden || !analysis.covered[i]);
        let children = || -> u32 { page.children(id).map(|c| units[c.index()]).sum() };
        let (a, u) = match page.node(id) {
            Node::Text(text) => {
                // CSS-generated text is not in the page's HTML.
                if visible && !text.trim().is_empty() && !page.layout(id).generated {
                    (Act::Keep, 1)
                } else {
                    (Act::Drop, 0)
                }
            }
            Node::ShadowRoot(ShadowMode::UserAgent) => (Act::Drop, 0),
            Node::Document { .. } | Node::ShadowRoot(_) => (Act::Unwrap, children()),
            Node::Element(element) => {
                let named = ctx.ref_number(id).is_some() || has_kept_attrs(ctx, id, element);
                if element.ns == Namespace::Html && DROP.contains(&element.name.as_str()) {
                    (Act::Drop, 0)
                } else if is_svg_root(element) {
                    if visible && named {
                        (Act::Leaf, 1)
                    } else {
                        (Act::Drop, 0)
                    }
                } else {
                    let inner = children();
                    // A `<slot>` is a placeholder for its host's children
                    // (its `name` says nothing about the page).
                    let placeholder = element.ns == Namespace::Html && element.name == "slot";
                    if !visible || placeholder {
                        (if inner == 0 { Act::Drop } else { Act::Unwrap }, inner)
                    } else if named {
                        (Act::Keep, 1)
                    } else {
                        match inner {
                            0 => (Act::Drop, 0),
                            1 => (Act::Unwrap, 1),
                            _ => (Act::Keep, 1),
                        }
                    }
                }
            }
        };
        act[i] = a;
        units[i] = u;
    }
    act
}

/// The kept attributes of an element, redacted.
fn attributes(ctx: &Context<'_>, id: NodeId, element: &Element) -> Vec<(&'static str, String)> {
    let states = &ctx.analysis.states[id.index()];
    let mut out = Vec::new();
    for &key in KEEP {
        if let Some(value) = ctx.attr(id, key).filter(|v| !v.trim().is_empty()) {
            out.push((key, truncate(&value, TEXT_CHARS)));
        }
    }
    if let Some(name) = unwritten_name(ctx, id) {
        out.push(("aria-label", truncate(&name, TEXT_CHARS)));
    }
    if let Some(href) = element.attr("href") {
        out.push(("href", shorten_href(&ctx.page.url, &ctx.text(href))));
    }
    let value = live_value(ctx, id, element)
        .or_else(|| {
            let is_field = element.is("input") || element.is("textarea") || element.is("select");
            is_field.then(|| ctx.value(id)).flatten()
        })
        .or_else(|| ctx.attr(id, "value"))
        .filter(|v| !v.is_empty());
    if let Some(value) = value {
        out.push(("value", truncate(&value, TEXT_CHARS)));
    }
    if states.checked == Some(Checked::True) {
        out.push(("checked", String::new()));
    }
    if states.selected == Some(true) {
        out.push(("selected", String::new()));
    }
    if states.disabled {
        out.push(("disabled", String::new()));
    }
    out
}

/// A target's name from content its HTML here does not show: text a screen
/// reader reads and the eye does not (the visually hidden "Close" of a
/// visible × button), which the written subtree leaves out with the rest of
/// the unseen text. `aria` and `flat` print the name; written as
/// `aria-label`, it is not lost here either.
fn unwritten_name(ctx: &Context<'_>, id: NodeId) -> Option<String> {
    ctx.ref_number(id)?;
    let analysis = ctx.analysis;
    let name = analysis.name(id)?;
    if name.source != NameSource::Text || name.text.is_empty() {
        return None;
    }
    // Only text the eye does not see can be missing (most targets hold none).
    let unseen = ctx.page.subtree(id).any(|inner| {
        matches!(ctx.page.node(inner), Node::Text(_))
            && !analysis.visibility[inner.index()].is_visible()
    });
    if !unseen {
        return None;
    }
    // Letters and digits only: quotes and brackets that CSS adds around a
    // citation or a count are not a name's words.
    let words: String = name.text.chars().filter(|c| c.is_alphanumeric()).collect();
    let mut shown = String::new();
    for inner in ctx.page.subtree(id) {
        if !analysis.visibility[inner.index()].is_visible() {
            continue;
        }
        let text = match ctx.page.node(inner) {
            // CSS-generated text is seen, though not in the HTML.
            Node::Text(text) => &text[..],
            Node::Element(element) => element.attr("alt").unwrap_or_default(),
            _ => continue,
        };
        shown.extend(text.chars().filter(|c| c.is_alphanumeric()));
        // Most names are the visible text itself: shown as soon as it is.
        if shown.len() >= words.len() && shown.contains(&words) {
            return None;
        }
    }
    Some(ctx.name(id))
}

/// Drops the scheme, and the host when it is the page's own; at most 40 characters.
fn shorten_href(page_url: &str, href: &str) -> String {
    let strip_scheme = |url: &str| -> String {
        url.strip_prefix("https://")
            .or_else(|| url.strip_prefix("http://"))
            .unwrap_or(url)
            .to_owned()
    };
    let page_host = strip_scheme(page_url)
        .split('/')
        .next()
        .unwrap_or_default()
        .to_owned();
    let mut short = strip_scheme(href);
    if !page_host.is_empty() && href.contains("://") {
        if let Some(rest) = short.strip_prefix(&page_host) {
            short = if rest.is_empty() {
                "/".to_owned()
            } else {
                rest.to_owned()
            };
        }
    }
    truncate(&short, HREF_CHARS)
}

/// Writes the planned nodes in document order.
fn render(ctx: &Context<'_>, actions: &[Act], out: &mut Markup) {
    let page = ctx.page;
    let mut open: Vec<(NodeId, String)> = Vec::new();
    let mut last_text = false;
    let mut index = 0;
    while index < page.len() {
        let id = NodeId::from_index(index);
        let before = out.text.len();
        close_until(&mut open, id, &mut out.text);
        if out.text.len() != before {
            last_text = false;
        }
        index += 1;
        match (actions[id.index()], page.node(id)) {
            (Act::Drop, _) => {
                index = page.subtree_end(id).index();
                continue;
            }
            (Act::Unwrap, _) => continue,
            (Act::Keep, Node::Text(text)) => {
                let text = ctx.text_of(id, text);
                let shown = ctx.text(&text.split_whitespace().collect::<Vec<_>>().join(" "));
                if last_text {
                    out.text.push(' ');
                }
                escape_text(&truncate(&shown, TEXT_CHARS), &mut out.text);
                last_text = true;
                continue;
            }
            (Act::Keep | Act::Leaf, Node::Element(element)) => {
                out.start_tag(ctx, id, &element.name, attributes(ctx, id, element));
                let end = page.subtree_end(id);
                let void = element.ns == Namespace::Html && VOID.contains(&element.name.as_str());
                if actions[id.index()] == Act::Leaf {
                    out.text.push_str(&format!("</{}>", element.name));
                    index = end.index();
                } else if void {
                    index = end.index();
                } else {
                    open.push((end, format!("</{}>", element.name)));
                }
            }
            (Act::Keep | Act::Leaf, _) => continue,
        }
        last_text = false;
    }
    close_until(&mut open, NodeId::from_index(page.len()), &mut out.text);
}
