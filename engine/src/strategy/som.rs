//! `som`: the viewport screenshot with numbered boxes around ref'd elements (set-of-marks) and a compact legend.

use super::Strategy;
use super::structural::{quote, truncate};
use crate::analyze::{Analyzed, ModalKind};
use crate::observation::{Image, ImageMeta, Observation};
use crate::passes::budget::{self, Line};
use crate::passes::{Context, ObserveError, Options, viewport};

#[doc = include_str!("som.md")]
pub struct Som;

/// Box and tag colours, cycled by ref number (Trubetskoy's distinct colours).
const PALETTE: [[u8; 3]; 12] = [
    [230, 25, 75],
    [60, 180, 75],
    [0, 130, 200],
    [245, 130, 48],
    [145, 30, 180],
    [240, 50, 230],
    [0, 128, 128],
    [170, 110, 40],
    [128, 0, 0],
    [0, 0, 128],
    [128, 128, 0],
    [70, 240, 240],
];

/// 5×7 glyphs for 0–9, one row per byte, the low five bits left to right.
const DIGITS: [[u8; 7]; 10] = [
    [0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E],
    [0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E],
    [0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F],
    [0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E],
    [0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02],
    [0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E],
    [0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E],
    [0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
    [0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E],
    [0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C],
];
const GLYPH_W: i64 = 5;
const GLYPH_H: i64 = 7;
/// Outline thickness in image pixels.
const OUTLINE: i64 = 2;

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
        let mut meta = ctx.meta(self.name(), &options, &refs);

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
        meta.counts.redacted = ctx.redactions();
        meta.counts.truncated = dropped;
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

/// The colour of a ref number.
pub fn colour(number: u32) -> [u8; 3] {
    PALETTE[(number.saturating_sub(1) as usize) % PALETTE.len()]
}

/// OpenAI high-detail image tokens: fit within 2048×2048, shrink the
/// shortest side to 768 (images are never enlarged), then 170 per 512×512
/// tile plus 85.
pub fn openai_tokens(width: u32, height: u32) -> u32 {
    if width == 0 || height == 0 {
        return 0;
    }
    let (mut w, mut h) = (f64::from(width), f64::from(height));
    let long = w.max(h);
    if long > 2048.0 {
        w = (w * 2048.0 / long).round();
        h = (h * 2048.0 / long).round();
    }
    let short = w.min(h);
    if short > 768.0 {
        w = (w * 768.0 / short).round();
        h = (h * 768.0 / short).round();
    }
    let tiles = (w / 512.0).ceil() * (h / 512.0).ceil();
    (tiles * 170.0 + 85.0) as u32
}

/// Anthropic image tokens: shrink so the long edge is at most 1568 px and
/// the area at most 1.15 megapixels (never enlarged), then
/// `ceil(width × height / 750)`.
pub fn anthropic_tokens(width: u32, height: u32) -> u32 {
    if width == 0 || height == 0 {
        return 0;
    }
    let (w, h) = (f64::from(width), f64::from(height));
    let scale = 1.0_f64
        .min(1568.0 / w.max(h))
        .min((1_150_000.0 / (w * h)).sqrt());
    let (w, h) = ((w * scale).floor(), (h * scale).floor());
    (w * h / 750.0).ceil() as u32
}

/// Gemini image tokens: 258 when both sides are at most 384 px, else 258
/// per 768×768 tile.
pub fn gemini_tokens(width: u32, height: u32) -> u32 {
    if width == 0 || height == 0 {
        return 0;
    }
    if width <= 384 && height <= 384 {
        return 258;
    }
    width.div_ceil(768) * height.div_ceil(768) * 258
}

/// A box to draw, in image pixels (exclusive right and bottom).
struct Mark {
    number: u32,
    x0: i64,
    y0: i64,
    x1: i64,
    y1: i64,
}

/// An RGB image being drawn on.
struct Canvas {
    width: u32,
    height: u32,
    rgb: Vec<u8>,
}

impl Canvas {
    /// Decodes any PNG into 8-bit RGB (alpha composited over white).
    fn decode(png_bytes: &[u8]) -> Result<Canvas, ObserveError> {
        let image_error = |e: png::DecodingError| ObserveError::Image(e.to_string());
        let mut decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
        decoder.set_transformations(png::Transformations::normalize_to_color8());
        let mut reader = decoder.read_info().map_err(image_error)?;
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

    fn encode(&self) -> Result<Vec<u8>, ObserveError> {
        let image_error = |e: png::EncodingError| ObserveError::Image(e.to_string());
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, self.width, self.height);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Fast);
        let mut writer = encoder.write_header().map_err(image_error)?;
        writer.write_image_data(&self.rgb).map_err(image_error)?;
        writer.finish().map_err(image_error)?;
        Ok(out)
    }

    /// Fills `[x0, x1) × [y0, y1)`, clipped to the image.
    fn fill(&mut self, x0: i64, y0: i64, x1: i64, y1: i64, colour: [u8; 3]) {
        let (w, h) = (i64::from(self.width), i64::from(self.height));
        let (x0, x1) = (x0.clamp(0, w), x1.clamp(0, w));
        let (y0, y1) = (y0.clamp(0, h), y1.clamp(0, h));
        for y in y0..y1 {
            let start = ((y * w + x0) * 3) as usize;
            let end = ((y * w + x1) * 3) as usize;
            for px in self.rgb[start..end].chunks_exact_mut(3) {
                px.copy_from_slice(&colour);
            }
        }
    }

    fn outline(&mut self, m: &Mark, colour: [u8; 3]) {
        let t = OUTLINE.min((m.x1 - m.x0).max(1)).min((m.y1 - m.y0).max(1));
        self.fill(m.x0, m.y0, m.x1, m.y0 + t, colour);
        self.fill(m.x0, m.y1 - t, m.x1, m.y1, colour);
        self.fill(m.x0, m.y0, m.x0 + t, m.y1, colour);
        self.fill(m.x1 - t, m.y0, m.x1, m.y1, colour);
    }

    /// The number tag: above the top-left corner, else below the
    /// bottom-left corner, else inside the top-left corner; clamped to the image.
    fn tag(&mut self, m: &Mark, glyph: i64) {
        let digits: Vec<usize> = m
            .number
            .to_string()
            .bytes()
            .map(|b| usize::from(b - b'0'))
            .collect();
        let pad = glyph;
        let n = digits.len() as i64;
        let tag_w = 2 * pad + n * GLYPH_W * glyph + (n - 1) * glyph;
        let tag_h = 2 * pad + GLYPH_H * glyph;
        let (w, h) = (i64::from(self.width), i64::from(self.height));
        let y = if m.y0 - tag_h >= 0 {
            m.y0 - tag_h
        } else if m.y1 + tag_h <= h {
            m.y1
        } else {
            m.y0.max(0)
        };
        let x = m.x0.min(w - tag_w).max(0);
        let y = y.min(h - tag_h).max(0);
        let background = colour(m.number);
        let luminance = 299 * u32::from(background[0])
            + 587 * u32::from(background[1])
            + 114 * u32::from(background[2]);
        let ink = if luminance > 150_000 {
            [0, 0, 0]
        } else {
            [255, 255, 255]
        };
        self.fill(x, y, x + tag_w, y + tag_h, background);
        for (k, &d) in digits.iter().enumerate() {
            let gx = x + pad + k as i64 * (GLYPH_W + 1) * glyph;
            for (row, bits) in DIGITS[d].iter().enumerate() {
                for col in 0..GLYPH_W {
                    if bits & (1 << (GLYPH_W - 1 - col)) != 0 {
                        let px = gx + col * glyph;
                        let py = y + pad + row as i64 * glyph;
                        self.fill(px, py, px + glyph, py + glyph, ink);
                    }
                }
            }
        }
    }
}
