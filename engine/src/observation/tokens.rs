//! Image token counts per provider for a screenshot of a given size.

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
