//! `structural`: the aimount `page_snapshot` contract — `Page state:` plus `Visible structure:` in 3×3 zones, with honesty figures.

use super::Strategy;
use super::shared::meta;
use super::shared::text::{quote, truncate};
use crate::analyze::{Analyzed, ModalKind, Strength};
use crate::geom::Rect;
use crate::observation::{Item, Observation, Zone};
use crate::page::{Node, NodeId, Page};
use crate::passes::budget::{self, Line};
use crate::passes::{Context, ObserveError, Options, viewport};

#[doc = include_str!("structural.md")]
pub struct Structural;

/// Text blocks listed per zone.
const TEXT_PER_ZONE: usize = 8;
/// Characters of a text block or heading shown.
const TEXT_CHARS: usize = 120;
/// Characters of a `near "…"` context.
const NEAR_CHARS: usize = 60;
/// Largest vertical gap (CSS px) between a control and its `near` context.
const NEAR_GAP: f64 = 150.0;

/// Zones in reading order, then the bucket of pages without layout (and
/// of what lies outside the viewport).
const ZONES: [Zone; 10] = [
    Zone::TopLeft,
    Zone::TopCenter,
    Zone::TopRight,
    Zone::MiddleLeft,
    Zone::Center,
    Zone::MiddleRight,
    Zone::BottomLeft,
    Zone::BottomCenter,
    Zone::BottomRight,
    Zone::Unknown,
];

/// Inline elements: their text belongs to the enclosing block.
impl Strategy for Structural {
    fn name(&self) -> &'static str {
        "structural"
    }

    fn summary(&self) -> &'static str {
        "aimount page_snapshot: Page state + Visible structure in 3x3 zones, with honesty figures"
    }

    fn explain(&self) -> &'static str {
        include_str!("structural.md")
    }

    fn full_page_by_default(&self) -> bool {
        false
    }

    fn observe(
        &self,
        analyzed: &Analyzed,
        options: &Options<'_>,
    ) -> Result<Observation, ObserveError> {
        // Viewport-only by contract: a full-page request is ignored.
        let options = Options {
            full_page: Some(false),
            ..options.clone()
        };
        let ctx = Context::new(analyzed, &options, false)?;
        let refs: Vec<String> = ctx.targets.iter().map(|t| t.number.to_string()).collect();
        let mut meta = meta::meta(&ctx, self.name(), &options, &refs);

        let mut lines = state_lines(&ctx, &options, &meta.items, &meta);
        lines.push(Line::pinned("Visible structure:".to_owned()));
        let zones = walk(&ctx, &meta.items);
        let mut any = false;
        for (zone, zone_lines) in ZONES.iter().zip(zones) {
            if zone_lines.is_empty() {
                continue;
            }
            any = true;
            let title = if *zone == Zone::Unknown {
                "anywhere (no layout)"
            } else {
                zone.as_str()
            };
            lines.push(Line::pinned(format!("{title}:")));
            lines.extend(zone_lines);
        }
        if !any {
            lines.push(Line::pinned("(nothing visible)".to_owned()));
        }
        let fitted = budget::fit(lines, options.max_tokens);
        meta::complete(&ctx, &mut meta, fitted.dropped);
        let mut refs = ctx
            .targets
            .iter()
            .zip(refs)
            .map(|(t, r)| (r, t.id))
            .collect();
        meta::keep_shown(&ctx, &fitted.shown_refs, &mut refs, &mut meta);
        Ok(Observation {
            text: fitted.text,
            image: None,
            refs,
            meta,
        })
    }
}

fn state_lines(
    ctx: &Context<'_>,
    options: &Options<'_>,
    items: &[Item],
    meta: &crate::observation::Meta,
) -> Vec<Line> {
    let page = ctx.page;
    let analysis = ctx.analysis;
    let p = analysis.position;
    let mut out = vec!["Page state:".to_owned()];
    out.push(format!("- URL: {}", ctx.text(&page.url)));
    out.push(format!("- Title: {}", quote(&ctx.text(&page.title))));
    let mut scroll = format!(
        "- Scroll: viewport-only view at y={} of {}px; {} {} above, {} below",
        p.scroll_y.round(),
        p.doc_height.round(),
        p.pages_above,
        if p.pages_above == 1 {
            "viewport"
        } else {
            "viewports"
        },
        p.pages_below
    );
    match (p.at_top, p.at_bottom) {
        (true, true) => scroll.push_str("; the whole page fits."),
        (true, false) => scroll.push_str("; at the top."),
        (false, true) => scroll.push_str("; at the bottom."),
        (false, false) => scroll.push('.'),
    }
    if !page.has_layout {
        scroll = "- Scroll: unknown (no layout: static HTML)".to_owned();
    }
    out.push(scroll);
    out.push(match (analysis.modal.kind, analysis.modal.node) {
        (ModalKind::Reliable, node) => {
            let what = node.map_or_else(|| "a modal".to_owned(), |id| describe(ctx, id, items));
            format!(
                "- Modal: reliable — {what} is open; the page behind it is obscured and only its contents are listed ({} controls behind it)",
                meta.counts.obscured
            )
        }
        (ModalKind::Suspected, _) => "- Modal: suspected — Warning: an overlay may cover the page; controls under it may not respond to clicks".to_owned(),
        (ModalKind::None, _) => "- Modal: none".to_owned(),
    });
    out.push(match page.focused {
        Some(id) if id.index() < page.len() => format!("- Focused: {}", describe(ctx, id, items)),
        _ => "- Focused: none".to_owned(),
    });
    let h = &meta.observation;
    let strong = h.total_interactive - h.weak_interactive - h.unknown_interactive;
    let mut counts = format!(
        "- Interactive: {} visible ({strong} strong, {} weak, {} unknown)",
        h.total_interactive, h.weak_interactive, h.unknown_interactive
    );
    if meta.counts.offscreen > 0 {
        counts.push_str(&format!(", {} more off-screen", meta.counts.offscreen));
    }
    counts.push_str(&format!("; exactUiClaims: {}", h.exact_ui_claims));
    out.push(counts);
    if !options.active_layers.is_empty() {
        out.push(format!("- Layers: {}", options.active_layers.join(", ")));
    }
    out.into_iter().map(Line::pinned).collect()
}

/// `[3] textbox "Email"` for a ref'd node, `heading "Title"` otherwise.
fn describe(ctx: &Context<'_>, id: NodeId, items: &[Item]) -> String {
    if let Some(item) = items.iter().find(|i| i.node == id.index()) {
        let mut s = format!("[{}] {}", item.reference, item.role);
        if !item.name.is_empty() {
            s.push(' ');
            s.push_str(&quote(&truncate(&item.name, TEXT_CHARS)));
        }
        return s;
    }
    let role = ctx
        .analysis
        .role(id)
        .or_else(|| ctx.page.element(id).map(|e| e.name.as_str()))
        .unwrap_or("node");
    let name = ctx.name(id);
    if name.is_empty() {
        role.to_owned()
    } else {
        format!("{role} {}", quote(&truncate(&name, TEXT_CHARS)))
    }
}

/// A text block being gathered: its block element, zone, box and text.
struct Pending {
    block: NodeId,
    zone: usize,
    bounds: Option<Rect>,
    text: String,
}

/// The last readable context seen, and where it is.
struct Near {
    text: String,
    bounds: Option<Rect>,
}

/// What the walk has produced so far.
struct Walk {
    zones: Vec<Vec<Line>>,
    /// Text blocks listed per zone, and left out per zone.
    texts: [usize; 10],
    omitted: [usize; 10],
    near: Option<Near>,
    /// The `near` text last printed per zone (repeats are left out).
    last_near: Vec<Option<String>>,
    pending: Option<Pending>,
}

impl Walk {
    fn flush(&mut self, ctx: &Context<'_>) {
        let Some(pending) = self.pending.take() else {
            return;
        };
        let text = normalize(&pending.text);
        if text.chars().count() < 2 || !text.chars().any(char::is_alphanumeric) {
            return;
        }
        let text = ctx.text(&text);
        self.near = Some(Near {
            text: truncate(&text, NEAR_CHARS),
            bounds: pending.bounds,
        });
        if self.texts[pending.zone] >= TEXT_PER_ZONE {
            self.omitted[pending.zone] += 1;
            return;
        }
        self.texts[pending.zone] += 1;
        self.zones[pending.zone].push(Line {
            text: format!("- text {}", quote(&truncate(&text, TEXT_CHARS))),
            reference: None,
            in_viewport: true,
            depth: 1,
            pinned: false,
        });
    }
}

fn zone_index(page: &Page, bounds: Option<crate::geom::Rect>) -> usize {
    let zone = viewport::zone(page, bounds);
    ZONES
        .iter()
        .position(|z| *z == zone)
        .unwrap_or(ZONES.len() - 1)
}

/// One pass in document order: items, headings and text blocks per zone.
fn walk(ctx: &Context<'_>, items: &[Item]) -> Vec<Vec<Line>> {
    let page = ctx.page;
    let analysis = ctx.analysis;
    let mut item_of = vec![usize::MAX; page.len()];
    for (k, item) in items.iter().enumerate() {
        item_of[item.node] = k;
    }
    let mut state = Walk {
        zones: vec![Vec::new(); ZONES.len()],
        texts: [0; 10],
        omitted: [0; 10],
        near: None,
        last_near: vec![None; ZONES.len()],
        pending: None,
    };
    // Text up to this node is the name of a control or heading already listed.
    let mut named_until = NodeId::ROOT;
    for id in page.ids() {
        let i = id.index();
        let shown = ctx.in_scope(id)
            && analysis.visibility[i].is_visible()
            && analysis.visibility[i].in_viewport
            && !analysis.obscured[i];
        match page.node(id) {
            Node::Element(_) => {
                if let Some(item) = items.get(item_of[i]) {
                    state.flush(ctx);
                    let zone = zone_index(page, item.bounds);
                    let near = state
                        .near
                        .as_ref()
                        .filter(|n| close(n.bounds, item.bounds))
                        .map(|n| n.text.as_str())
                        .filter(|n| !n.eq_ignore_ascii_case(&item.name));
                    let repeated = near.is_some() && near == state.last_near[zone].as_deref();
                    let line = item_line(ctx, id, item, near.filter(|_| !repeated));
                    if !repeated {
                        state.last_near[zone] = near.map(str::to_owned);
                    }
                    state.zones[zone].push(line);
                    // A container's text is its content, shown in its own lines.
                    if !analysis.interactive[i].is_some_and(|r| r.is_container()) {
                        named_until = named_until.max(page.subtree_end(id));
                    }
                } else if shown && id >= named_until && analysis.role(id) == Some("heading") {
                    state.flush(ctx);
                    let name = ctx.name(id);
                    if !name.is_empty() {
                        let mut text = format!("- heading {}", quote(&truncate(&name, TEXT_CHARS)));
                        if let Some(level) = analysis.states[i].level {
                            text.push_str(&format!(" [level={level}]"));
                        }
                        let zone = zone_index(page, page.layout(id).bounds);
                        state.zones[zone].push(Line {
                            text,
                            reference: None,
                            in_viewport: true,
                            depth: 0,
                            pinned: false,
                        });
                        state.near = Some(Near {
                            text: truncate(&name, NEAR_CHARS),
                            bounds: page.layout(id).bounds,
                        });
                    }
                    named_until = named_until.max(page.subtree_end(id));
                } else if !ctx.analysis.dom.display(id).is_inline() {
                    // A new block starts: the gathered text before it is complete.
                    state.flush(ctx);
                }
            }
            Node::Text(text) if shown && id >= named_until => {
                let block = block_of(ctx, id);
                let same = state.pending.as_ref().is_some_and(|p| p.block == block);
                if !same {
                    state.flush(ctx);
                    let bounds = page.layout(block).bounds.or(page.layout(id).bounds);
                    state.pending = Some(Pending {
                        block,
                        zone: zone_index(page, bounds),
                        bounds,
                        text: String::new(),
                    });
                }
                if let Some(pending) = state.pending.as_mut() {
                    pending.text.push_str(text);
                }
            }
            _ => {}
        }
    }
    state.flush(ctx);
    for (zone, omitted) in state.omitted.iter().enumerate() {
        if *omitted > 0 {
            state.zones[zone].push(Line {
                text: format!("- … {omitted} more text blocks"),
                reference: None,
                in_viewport: true,
                depth: 1,
                pinned: false,
            });
        }
    }
    state.zones
}

/// The nearest ancestor of a text node that is not an inline element.
fn block_of(ctx: &Context<'_>, text: NodeId) -> NodeId {
    for ancestor in ctx.page.ancestors(text) {
        match ctx.page.element(ancestor) {
            Some(_) if ctx.analysis.dom.display(ancestor).is_inline() => continue,
            _ => return ancestor,
        }
    }
    NodeId::ROOT
}

/// Whether a context box is close enough above or beside a control's box to describe it.
fn close(context: Option<Rect>, item: Option<Rect>) -> bool {
    match (context, item) {
        (Some(c), Some(i)) => {
            let gap = (i.y - c.bottom()).max(c.y - i.bottom()).max(0.0);
            gap <= NEAR_GAP
        }
        _ => true,
    }
}

fn item_line(ctx: &Context<'_>, id: NodeId, item: &Item, near: Option<&str>) -> Line {
    let mark = if item.new { "*" } else { "" };
    let mut text = format!("- {mark}[{}] {}", item.reference, item.role);
    if !item.name.is_empty() {
        text.push(' ');
        text.push_str(&quote(&truncate(&item.name, TEXT_CHARS)));
    }
    if item.name_status == Strength::Unknown {
        text.push_str(" (name: unknown)");
    } else {
        text.push_str(&format!(
            " (name: {}, {})",
            item.name_source, item.name_status
        ));
    }
    if !item.states.is_empty() {
        text.push_str(&format!(" [{}]", item.states.join(", ")));
    }
    if let Some(value) = ctx.value(id).filter(|v| !v.is_empty() && *v != item.name) {
        text.push_str(&format!(" value={}", quote(&truncate(&value, TEXT_CHARS))));
    }
    if let Some(near) = near {
        text.push_str(&format!(" near {}", quote(near)));
    }
    Line {
        text,
        reference: ctx.ref_number(id),
        in_viewport: true,
        depth: 0,
        pinned: false,
    }
}

/// Collapses whitespace.
fn normalize(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
