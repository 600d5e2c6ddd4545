//! The RGB canvas `som` draws on: filled and outlined boxes, numbered tags in 5×7 digit glyphs, a colour per ref.

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

/// An RGB image being drawn on.
pub(super) struct Canvas {
    pub(super) width: u32,
    pub(super) height: u32,
    pub(super) rgb: Vec<u8>,
}

impl Canvas {
    /// Fills `[x0, x1) × [y0, y1)`, clipped to the image.
    pub(super) fn fill(&mut self, x0: i64, y0: i64, x1: i64, y1: i64, colour: [u8; 3]) {
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

    pub(super) fn outline(&mut self, m: &Mark, colour: [u8; 3]) {
        let t = OUTLINE.min((m.x1 - m.x0).max(1)).min((m.y1 - m.y0).max(1));
        self.fill(m.x0, m.y0, m.x1, m.y0 + t, colour);
        self.fill(m.x0, m.y1 - t, m.x1, m.y1, colour);
        self.fill(m.x0, m.y0, m.x0 + t, m.y1, colour);
        self.fill(m.x1 - t, m.y0, m.x1, m.y1, colour);
    }

    /// The number tag: above the top-left corner, else below the
    /// bottom-left corner, else inside the top-left corner; clamped to the image.
    pub(super) fn tag(&mut self, m: &Mark, glyph: i64) {
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

/// Outline thickness in image pixels.
const OUTLINE: i64 = 2;

/// The colour of a ref number.
pub fn colour(number: u32) -> [u8; 3] {
    PALETTE[(number.saturating_sub(1) as usize) % PALETTE.len()]
}

/// A box to draw, in image pixels (exclusive right and bottom).
pub(super) struct Mark {
    pub(super) number: u32,
    pub(super) x0: i64,
    pub(super) y0: i64,
    pub(super) x1: i64,
    pub(super) y1: i64,
}
