//! `som`: the viewport screenshot with numbered boxes around ref'd elements (set-of-marks) and a compact legend.

use super::Strategy;
use super::shared::meta;
mod canvas;
pub mod size;

pub use self::canvas::colour;
pub use crate::observation::tokens::{anthropic_tokens, gemini_tokens, openai_tokens};

use self::canvas::{Canvas, Mark};
use super::shared::text::{quote, truncate};
use crate::analyze::{Analyzed, ModalKind};
use crate::geom::{Point, Rect, Viewport};
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

    fn needs_screenshot(&self) -> bool {
        true
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
        let mut canvas = decode(png, &page.viewport)?;
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
                let Some(b) = page.layout(id).bounds.filter(|b| b.intersects(&view)) else {
                    continue;
                };
                let secrets = ctx.secrets_shown(id);
                if secrets.is_empty() {
                    continue;
                }
                mask(&mut canvas, &b, &view, scale);
                ctx.count_redactions(&secrets);
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
            // Fast compression: the model reads it once.
            png: encode(&canvas, png::Compression::Fast)?,
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
        for (item, target) in meta.items.iter().zip(&ctx.targets) {
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
                reference: Some(target.number),
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
        let fitted = budget::fit(lines, options.max_tokens);
        meta::complete(&ctx, &mut meta, fitted.dropped);
        meta.image = Some(ImageMeta::new(width, height));
        // A legend line the budget cut keeps its ref: the mark is still
        // painted on the screenshot the agent reads.
        let refs = ctx
            .targets
            .iter()
            .zip(refs)
            .map(|(t, r)| (r, t.id))
            .collect();
        Ok(Observation {
            text: fitted.text,
            image: Some(image),
            refs,
            meta,
        })
    }
}

/// The solid grey painted over secret fields and text in the screenshot.
pub const REDACTION_GREY: [u8; 3] = [128, 128, 128];

/// Paints [`REDACTION_GREY`] over `b` (document coordinates) on a canvas of
/// the viewport `view`, `scale` device pixels per CSS pixel. Glyphs overhang
/// their box (descenders, italics, rounding): the mask reaches past it by a
/// fifth of its height, at least 3 CSS pixels, and 2 pixels sideways.
fn mask(canvas: &mut Canvas, b: &Rect, view: &Rect, scale: f64) {
    let px = |v: f64, origin: f64| ((v - origin) * scale).round() as i64;
    let pad_y = (b.height * 0.2).max(3.0);
    let pad_x = 2.0;
    canvas.fill(
        px(b.x - pad_x, view.x),
        px(b.y - pad_y, view.y),
        px(b.right() + pad_x, view.x),
        px(b.bottom() + pad_y, view.y),
        REDACTION_GREY,
    );
}

/// Blanks `boxes` (document coordinates, e.g. what
/// [`crate::passes::redact_recording::redact_recording`] returns) in a
/// viewport screenshot taken at `scroll`, with the same grey and margins as
/// `som`'s own mask, and encodes the result for the archive (`record
/// --redact`). A PNG whose size is not the viewport's is refused as `som`
/// refuses it ([`size::check`]).
pub fn mask_screenshot(
    png: &[u8],
    viewport: &Viewport,
    scroll: Point,
    boxes: &[Rect],
) -> Result<Vec<u8>, ObserveError> {
    let mut canvas = decode(png, viewport)?;
    let scale = viewport.device_scale_factor;
    let scale = if scale.is_finite() {
        scale.clamp(0.25, 8.0)
    } else {
        1.0
    };
    let view = Rect {
        x: scroll.x,
        y: scroll.y,
        width: viewport.width,
        height: viewport.height,
    };
    for b in boxes.iter().filter(|b| b.intersects(&view)) {
        mask(&mut canvas, b, &view, scale);
    }
    encode(&canvas, png::Compression::Balanced)
}

/// Encodes the drawn canvas as a PNG.
fn encode(canvas: &Canvas, compression: png::Compression) -> Result<Vec<u8>, ObserveError> {
    let image_error = |e: png::EncodingError| ObserveError::Image(e.to_string());
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, canvas.width, canvas.height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(compression);
    let mut writer = encoder.write_header().map_err(image_error)?;
    writer.write_image_data(&canvas.rgb).map_err(image_error)?;
    writer.finish().map_err(image_error)?;
    Ok(out)
}

/// Decodes any PNG of `viewport`'s size (see [`size::check`]) into 8-bit RGB
/// (alpha composited over white).
fn decode(png_bytes: &[u8], viewport: &Viewport) -> Result<Canvas, ObserveError> {
    let image_error = |e: png::DecodingError| ObserveError::Image(e.to_string());
    let mut decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().map_err(image_error)?;
    // From the header alone, before the pixel buffer is allocated.
    let header = reader.info();
    size::check(header.width, header.height, viewport)?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| ObserveError::Image("the image is too large".to_owned()))?;
    let mut buf = vec![0; size];
    let info = reader.next_frame(&mut buf).map_err(image_error)?;
    let (width, height) = (info.width, info.height);
    let pixels = width as usize * height as usize;
    let channels = match info.color_type {
        png::ColorType::Grayscale => 1,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        png::ColorType::Indexed => {
            return Err(ObserveError::Image(
                "indexed colour was not expanded".to_owned(),
            ));
        }
    };
    let line = info.line_size;
    if channels == 3 && line == width as usize * 3 {
        buf.truncate(pixels * 3);
        return Ok(Canvas {
            width,
            height,
            rgb: buf,
        });
    }
    let mut rgb = Vec::with_capacity(pixels * 3);
    for row in 0..height as usize {
        let Some(bytes) = buf.get(row * line..row * line + width as usize * channels) else {
            return Err(ObserveError::Image("truncated image data".to_owned()));
        };
        for px in bytes.chunks_exact(channels) {
            let (c, alpha) = match channels {
                1 => ([px[0]; 3], 255),
                2 => ([px[0]; 3], px[1]),
                3 => ([px[0], px[1], px[2]], 255),
                _ => ([px[0], px[1], px[2]], px[3]),
            };
            for v in c {
                // Over white: v·a + 255·(1 − a).
                let a = u32::from(alpha);
                rgb.push(((u32::from(v) * a + 255 * (255 - a) + 127) / 255) as u8);
            }
        }
    }
    Ok(Canvas { width, height, rgb })
}
