//! `som`: the viewport screenshot with numbered boxes around ref'd elements (set-of-marks) and a compact legend.

use super::Strategy;
use super::shared::meta;
mod canvas;
mod tokens;

pub use self::canvas::colour;
pub use self::tokens::{anthropic_tokens, gemini_tokens, openai_tokens};

use self::canvas::{Canvas, Mark};
use super::shared::text::{quote, truncate};
use crate::analyze::{Analyzed, ModalKind};
use crate::observation::{Image, ImageMeta, Observation};
use crate::passes::budget::{self, Line};
use crate::passes::{Context, ObserveError, Options, viewport};

#[doc = include_str!("som.md")]
pub struct Som;

impl Strategy for Som {
    fn name(&self) -> &'static str {
        "som"
    }

    fn summary(&self) -> &'static str {
        "screenshot with numbered boxes (set-of-marks) plus a compact legend"
    }

    fn explain(&self) -> &'static str {
        include_str!("som.md")
    }

    fn full_page_by_default(&self) -> bool {
        false
    }

    fn observe(
        &self,
        analyzed: &Analyzed,
        options: &Options<'_>,
    ) -> Result<Observation, ObserveError> {
        let page = analyzed.page();
        // The screenshot shows the viewport only, so marks can only be there.
        let options = Options {
            full_page: Some(false),
            ..options.clone()
        };
        let ctx = Context::new(analyzed, &options, false)?;
        let png = options
            .screenshot
            .ok_or(ObserveError::MissingScreenshot { strategy: "som" })?;
        let mut canvas = Canvas::decode(png)?;
        let refs: Vec<String> = ctx.targets.iter().map(|t| t.number.to_string()).collect();
        let mut meta = meta::meta(&ctx, self.name(), &options, &refs);

        let scale = page.viewport.device_scale_factor;
        let scale = if scale.is_finite() {
            scale.clamp(0.25, 8.0)
        } else {
            1.0
        };
        let view = page.viewport_rect();
        let mut marks = Vec::new();
        for target in &ctx.targets {
            let Some(b) = page.layout(target.id).bounds else {
                continue;
            };
            if !page.has_layout
                || !(b.intersects(&view) || (b.area() == 0.0 && view.contains(b.x, b.y)))
            {
                continue;
            }
            let px = |v: f64, origin: f64| ((v - origin) * scale).round() as i64;
            marks.push(Mark {
                number: target.number,
                x0: px(b.x, view.x),
                y0: px(b.y, view.y),
                x1: px(b.right(), view.x).max(px(b.x, view.x) + 1),
                y1: px(b.bottom(), view.y).max(px(b.y, view.y) + 1),
            });
        }
        // The screenshot itself shows what fields hold: paint over secret
        // fields and secret-looking text before anything else is drawn.
        if ctx.redact {
            for id in page.ids() {
                let secret = ctx.shows_secret(id);
                let Some(b) = page
                    .layout(id)
                    .bounds
                    .filter(|b| secret && b.intersects(&view))
                else {
                    continue;
                };
                let px = |v: f64, origin: f64| ((v - origin) * scale).round() as i64;
                canvas.fill(
                    px(b.x, view.x),
                    px(b.y, view.y),
                    px(b.right(), view.x),
                    px(b.bottom(), view.y),
                    REDACTION_GREY,
                );
                ctx.count_redaction();
            }
        }
        let glyph = (scale * 2.0).round().max(1.0) as i64;
        for mark in &marks {
            canvas.outline(mark, colour(mark.number));
        }
        for mark in &marks {
            canvas.tag(mark, glyph);
        }
        let (width, height) = (canvas.width, canvas.height);
        let image = Image {
            png: canvas.encode()?,
            width,
            height,
        };

        let mut lines = vec![Line::pinned(
            "Screenshot of the viewport with a numbered box around each element you can act on."
                .to_owned(),
        )];
        lines.extend(
            viewport::position_lines(ctx.analysis)
                .into_iter()
                .map(Line::pinned),
        );
        match ctx.analysis.modal.kind {
            ModalKind::Reliable => lines.push(Line::pinned(
                "A modal dialog is open: only its controls are marked; the page behind it is obscured."
                    .to_owned(),
            )),
            ModalKind::Suspected => lines.push(Line::pinned(
                "Warning: an overlay may cover the page; controls under it may not respond to clicks."
                    .to_owned(),
            )),
            ModalKind::None => {}
        }
        for item in &meta.items {
            let mark = if item.new { "*" } else { "" };
            let mut text = format!("{mark}[{}] {}", item.reference, item.role);
            if !item.name.is_empty() {
                text.push(' ');
                text.push_str(&quote(&truncate(&item.name, 100)));
            }
            if !item.states.is_empty() {
                text.push_str(&format!(" [{}]", item.states.join(", ")));
            }
            lines.push(Line {
                text,
                has_ref: true,
                in_viewport: true,
                depth: 0,
                pinned: false,
            });
        }
        if meta.items.is_empty() {
            lines.push(Line::pinned(
                "(no elements to act on in the viewport)".to_owned(),
            ));
        }
        let (text, dropped) = budget::fit(lines, options.max_tokens);
        meta::complete(&ctx, &mut meta, dropped);
        meta.image = Some(ImageMeta {
            width,
            height,
            openai_tokens: openai_tokens(width, height),
            anthropic_tokens: anthropic_tokens(width, height),
            gemini_tokens: gemini_tokens(width, height),
        });
        let refs = ctx
            .targets
            .iter()
            .zip(refs)
            .map(|(t, r)| (r, t.id))
            .collect();
        Ok(Observation {
            text,
            image: Some(image),
            refs,
            meta,
        })
    }
}

/// The solid grey painted over secret fields and text in the screenshot.
const REDACTION_GREY: [u8; 3] = [128, 128, 128];
