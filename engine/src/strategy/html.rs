//! `html`: the raw serialized DOM (shadow roots as declarative templates, iframes inline) with `data-ref` on actionable elements.

use super::Strategy;
use super::shared::markup::{Markup, VOID, close_until, escape_text, finish, live_value};
use super::shared::meta;
use crate::analyze::Analyzed;
use crate::observation::Observation;
use crate::page::{Namespace, Node, NodeId, ShadowMode};
use crate::passes::{Context, ObserveError, Options, redact};

#[doc = include_str!("html.md")]
pub struct Html;

impl Strategy for Html {
    fn name(&self) -> &'static str {
        "html"
    }

    fn summary(&self) -> &'static str {
        "raw serialized DOM with data-ref attributes (baseline)"
    }

    fn explain(&self) -> &'static str {
        include_str!("html.md")
    }

    fn observe(
        &self,
        analyzed: &Analyzed,
        options: &Options<'_>,
    ) -> Result<Observation, ObserveError> {
        let ctx = Context::new(analyzed, options, true)?;
        let refs: Vec<String> = ctx.targets.iter().map(|t| t.number.to_string()).collect();
        let meta = meta::meta(&ctx, self.name(), options, &refs);
        let mut out = Markup::default();
        serialize(&ctx, &mut out);
        Ok(finish(&ctx, out, meta, options.max_tokens))
    }
}

/// Serializes the page in document order with an explicit stack.
fn serialize(ctx: &Context<'_>, out: &mut Markup) {
    let page = ctx.page;
    let mut open: Vec<(NodeId, String)> = Vec::new();
    let mut index = 0;
    while index < page.len() {
        let id = NodeId::from_index(index);
        close_until(&mut open, id, &mut out.text);
        index += 1;
        let scoped = ctx.in_scope(id);
        match page.node(id) {
            Node::Document { .. } => {}
            Node::ShadowRoot(ShadowMode::UserAgent) => index = page.subtree_end(id).index(),
            Node::ShadowRoot(mode) => {
                if scoped {
                    let mode = if *mode == ShadowMode::Closed {
                        "closed"
                    } else {
                        "open"
                    };
                    out.text
                        .push_str(&format!("<template shadowrootmode=\"{mode}\">"));
                    open.push((page.subtree_end(id), "</template>".to_owned()));
                }
            }
            Node::Element(element) => {
                if !scoped {
                    continue;
                }
                let live = live_value(ctx, id, element);
                let layout = page.layout(id);
                let mut attrs: Vec<(&str, String)> = Vec::with_capacity(element.attrs.len() + 1);
                for (key, _) in element.attrs.iter() {
                    let key = key.as_str();
                    if key.eq_ignore_ascii_case("data-ref")
                        || (live.is_some() && element.is("input") && key == "value")
                        || (layout.checked.is_some() && key == "checked")
                        || (layout.selected.is_some() && key == "selected")
                    {
                        continue;
                    }
                    attrs.push((key, ctx.attr(id, key).unwrap_or_default()));
                }
                if element.is("input") {
                    if let Some(value) = &live {
                        attrs.push(("value", value.clone()));
                    }
                }
                if layout.checked == Some(true) {
                    attrs.push(("checked", String::new()));
                }
                if layout.selected == Some(true) {
                    attrs.push(("selected", String::new()));
                }
                out.start_tag(ctx, id, &element.name, attrs);
                let end = page.subtree_end(id);
                if element.ns == Namespace::Html && VOID.contains(&element.name.as_str()) {
                    index = end.index();
                } else if element.is("textarea") && live.is_some() {
                    escape_text(live.as_deref().unwrap_or_default(), &mut out.text);
                    out.text.push_str("</textarea>");
                    index = end.index();
                } else {
                    open.push((end, format!("</{}>", element.name)));
                }
            }
            Node::Text(text) => {
                // CSS-generated text is not in the page's HTML.
                if !scoped || page.layout(id).generated {
                    continue;
                }
                let raw = page
                    .parent(id)
                    .and_then(|p| page.element(p))
                    .is_some_and(|p| {
                        p.ns == Namespace::Html && redact::RAW_TEXT.contains(&p.name.as_str())
                    });
                let text = ctx.text_of(id, text);
                if raw {
                    // Scripts assign secrets in code (`password = "…"`).
                    out.text.push_str(&ctx.code(&text));
                } else {
                    escape_text(&ctx.text(&text), &mut out.text);
                }
            }
        }
    }
    close_until(&mut open, NodeId::from_index(page.len()), &mut out.text);
}
