//! CSS colours as Chromium computes them, and the contrast between two of them.
//!
//! Computed colours of the sRGB family come as `rgb(r, g, b)` or
//! `rgba(r, g, b, a)`; other spaces (`oklch(…)`, `color(display-p3 …)`) keep
//! their own notation, whose alpha [`alpha`] reads but whose channels are not
//! converted: [`Rgba::parse`] answers `None` for them, and a reader that
//! needs the channels then judges nothing.

/// A colour with straight (not premultiplied) alpha; channels 0–255, alpha 0–1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rgba {
    /// Red, 0–255.
    pub r: f32,
    /// Green, 0–255.
    pub g: f32,
    /// Blue, 0–255.
    pub b: f32,
    /// Alpha, 0–1.
    pub a: f32,
}

impl Rgba {
    /// Opaque white: the canvas behind a page that paints no background.
    pub const WHITE: Rgba = Rgba {
        r: 255.0,
        g: 255.0,
        b: 255.0,
        a: 1.0,
    };

    /// Reads `rgb(…)`, `rgba(…)` (comma or space syntax, alpha as a number or
    /// a percentage), `#rgb`/`#rrggbb`/`#rrggbbaa` and `transparent`.
    pub fn parse(text: &str) -> Option<Rgba> {
        if let Some(fast) = chromium_rgb(text) {
            return Some(fast);
        }
        let text = text.trim();
        if text.eq_ignore_ascii_case("transparent") {
            return Some(Rgba {
                a: 0.0,
                ..Rgba::WHITE
            });
        }
        if let Some(hex) = text.strip_prefix('#') {
            return hex_color(hex);
        }
        let (function, args) = text.split_once('(')?;
        let function = function.trim();
        if !(function.eq_ignore_ascii_case("rgb") || function.eq_ignore_ascii_case("rgba")) {
            return None;
        }
        let args = args.strip_suffix(')')?;
        let (channels, alpha) = match args.split_once('/') {
            Some((channels, alpha)) => (channels, Some(alpha)),
            None => (args, None),
        };
        let mut parts = channels
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|part| !part.is_empty());
        let r = channel(parts.next()?)?;
        let g = channel(parts.next()?)?;
        let b = channel(parts.next()?)?;
        let alpha = match (alpha, parts.next()) {
            (Some(alpha), None) => alpha_value(alpha)?,
            (None, Some(alpha)) => alpha_value(alpha)?,
            (None, None) => 1.0,
            (Some(_), Some(_)) => return None,
        };
        if parts.next().is_some() {
            return None;
        }
        Some(Rgba { r, g, b, a: alpha })
    }

    /// The colour in four bytes (alpha scaled to 0–255), as pages keep it.
    pub fn pack(self) -> [u8; 4] {
        let byte = |v: f32| v.round().clamp(0.0, 255.0) as u8;
        [
            byte(self.r),
            byte(self.g),
            byte(self.b),
            byte(self.a * 255.0),
        ]
    }

    /// A colour [`Rgba::pack`]ed.
    pub fn unpack([r, g, b, a]: [u8; 4]) -> Rgba {
        Rgba {
            r: f32::from(r),
            g: f32::from(g),
            b: f32::from(b),
            a: f32::from(a) / 255.0,
        }
    }

    /// The largest difference of one channel between two colours (alpha ignored).
    pub fn channel_distance(self, other: Rgba) -> f32 {
        (self.r - other.r)
            .abs()
            .max((self.g - other.g).abs())
            .max((self.b - other.b).abs())
    }

    /// This colour painted over `below` (source-over compositing).
    pub fn over(self, below: Rgba) -> Rgba {
        let a = self.a + below.a * (1.0 - self.a);
        if a <= 0.0 {
            return Rgba { a: 0.0, ..below };
        }
        let mix = |top: f32, bottom: f32| (top * self.a + bottom * below.a * (1.0 - self.a)) / a;
        Rgba {
            r: mix(self.r, below.r),
            g: mix(self.g, below.g),
            b: mix(self.b, below.b),
            a,
        }
    }

    /// The same colour with its alpha multiplied by `factor` (an opacity).
    pub fn faded(self, factor: f32) -> Rgba {
        Rgba {
            a: self.a * factor.clamp(0.0, 1.0),
            ..self
        }
    }

    /// This colour and `background` as they show: the background over a
    /// white canvas, this colour over that.
    pub fn seen_over(self, background: Rgba) -> (Rgba, Rgba) {
        let background = background.over(Rgba::WHITE);
        (self.over(background), background)
    }

    /// WCAG 2 relative luminance of the colour's channels (alpha ignored).
    pub fn luminance(self) -> f32 {
        let linear = |channel: f32| {
            let c = channel / 255.0;
            if c <= 0.04045 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * linear(self.r) + 0.7152 * linear(self.g) + 0.0722 * linear(self.b)
    }

    /// WCAG 2 contrast ratio (1 to 21) of this colour, painted over
    /// `background` (itself over a white canvas where not opaque), against
    /// that background.
    pub fn contrast_over(self, background: Rgba) -> f32 {
        let (text, background) = self.seen_over(background);
        let (a, b) = (text.luminance(), background.luminance());
        (a.max(b) + 0.05) / (a.min(b) + 0.05)
    }
}

/// The alpha of any computed colour, whatever its space; 1 where the text
/// names no alpha, and 0 for an empty value, `transparent` or `none`.
/// Allocation-free: it runs once per rendered element.
pub fn alpha(color: &str) -> f64 {
    // What Chromium reports for nearly every element, answered first.
    match color {
        "rgba(0, 0, 0, 0)" => return 0.0,
        "rgb(255, 255, 255)" | "rgb(0, 0, 0)" => return 1.0,
        _ => {}
    }
    let color = color.trim();
    if color.is_empty()
        || color.eq_ignore_ascii_case("transparent")
        || color.eq_ignore_ascii_case("none")
    {
        return 0.0;
    }
    let Some((function, args)) = color.split_once('(') else {
        // A named colour or a hex value.
        return color
            .strip_prefix('#')
            .and_then(hex_color)
            .map_or(1.0, |c| f64::from(c.a));
    };
    let args = args.trim_end_matches(')');
    let alpha = match args.rsplit_once('/') {
        Some((_, alpha)) => Some(alpha),
        // Legacy comma syntax: `rgba(r, g, b, a)`, `hsla(h, s, l, a)`.
        None if ["rgb", "rgba", "hsl", "hsla"]
            .iter()
            .any(|name| function.trim().eq_ignore_ascii_case(name)) =>
        {
            let mut parts = args.split(',');
            match (parts.nth(3), parts.next()) {
                (Some(alpha), None) => Some(alpha),
                _ => None,
            }
        }
        None => None,
    };
    let Some(alpha) = alpha.map(str::trim) else {
        return 1.0;
    };
    let parsed = match alpha.strip_suffix('%') {
        Some(percent) => percent.trim().parse::<f64>().map(|p| p / 100.0),
        None => alpha.parse::<f64>(),
    };
    parsed
        .ok()
        .filter(|a| a.is_finite())
        .map_or(1.0, |a| a.clamp(0.0, 1.0))
}

/// Chromium's own spelling, `rgb(r, g, b)` with integer channels (nearly
/// every computed colour), read without the general parser's float parsing.
fn chromium_rgb(text: &str) -> Option<Rgba> {
    let args = text.strip_prefix("rgb(")?.strip_suffix(')')?.as_bytes();
    let mut channels = [0u32; 3];
    let mut index = 0;
    let mut digits = 0;
    let mut bytes = args.iter();
    while let Some(&byte) = bytes.next() {
        match byte {
            b'0'..=b'9' if digits < 3 => {
                channels[index] = channels[index] * 10 + u32::from(byte - b'0');
                digits += 1;
            }
            // `, ` between channels.
            b',' if digits > 0 && index < 2 && bytes.next() == Some(&b' ') => {
                index += 1;
                digits = 0;
            }
            _ => return None,
        }
    }
    let [r, g, b] = channels;
    (index == 2 && digits > 0 && r.max(g).max(b) <= 255).then_some(Rgba {
        r: r as f32,
        g: g as f32,
        b: b as f32,
        a: 1.0,
    })
}

fn channel(text: &str) -> Option<f32> {
    let text = text.trim();
    let value = match text.strip_suffix('%') {
        Some(percent) => percent.parse::<f32>().ok()? * 2.55,
        None => text.parse::<f32>().ok()?,
    };
    value.is_finite().then_some(value.clamp(0.0, 255.0))
}

fn alpha_value(text: &str) -> Option<f32> {
    let text = text.trim();
    let value = match text.strip_suffix('%') {
        Some(percent) => percent.parse::<f32>().ok()? / 100.0,
        None => text.parse::<f32>().ok()?,
    };
    value.is_finite().then_some(value.clamp(0.0, 1.0))
}

fn hex_color(hex: &str) -> Option<Rgba> {
    let digit = |i: usize, width: usize| -> Option<f32> {
        let part = hex.get(i * width..(i + 1) * width)?;
        let value = u8::from_str_radix(part, 16).ok()?;
        Some(if width == 1 {
            f32::from(value * 17)
        } else {
            f32::from(value)
        })
    };
    let (width, count) = match hex.len() {
        3 => (1, 3),
        4 => (1, 4),
        6 => (2, 3),
        8 => (2, 4),
        _ => return None,
    };
    Some(Rgba {
        r: digit(0, width)?,
        g: digit(1, width)?,
        b: digit(2, width)?,
        a: if count == 4 {
            digit(3, width)? / 255.0
        } else {
            1.0
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alphas() {
        assert_eq!(alpha("rgba(0, 0, 0, 0)"), 0.0);
        assert_eq!(alpha("rgba(0, 0, 0, 0.5)"), 0.5);
        assert_eq!(alpha("rgb(255, 255, 255)"), 1.0);
        assert_eq!(alpha("rgb(255 255 255 / 40%)"), 0.4);
        assert_eq!(alpha("transparent"), 0.0);
        assert_eq!(alpha(""), 0.0);
        assert_eq!(alpha("oklch(0.5 0.1 200)"), 1.0);
        assert_eq!(alpha("color(srgb 1 1 1 / 0.25)"), 0.25);
        assert_eq!(alpha("white"), 1.0);
        assert_eq!(alpha("#ffffff00"), 0.0);
        assert_eq!(alpha("RGBA(1, 2, 3, 0.9)"), 0.9);
        assert_eq!(alpha("rgba(1, 2, 3)"), 1.0);
        assert_eq!(alpha("rgba(1, 2, 3, x)"), 1.0);
    }

    #[test]
    fn parses_the_computed_forms() {
        let c = Rgba::parse("rgb(31, 41, 51)").unwrap();
        assert_eq!((c.r, c.g, c.b, c.a), (31.0, 41.0, 51.0, 1.0));
        assert_eq!(Rgba::parse("rgba(0, 0, 0, 0)").unwrap().a, 0.0);
        assert_eq!(Rgba::parse("rgb(10 20 30 / 50%)").unwrap().a, 0.5);
        assert_eq!(Rgba::parse("#fefefe").unwrap().r, 254.0);
        assert_eq!(Rgba::parse("#fff").unwrap(), Rgba::WHITE);
        assert_eq!(Rgba::parse("transparent").unwrap().a, 0.0);
        assert_eq!(Rgba::parse("oklch(0.5 0.1 200)"), None);
        assert_eq!(Rgba::parse("rgb(1, 2)"), None);
        assert_eq!(Rgba::parse("rgb(255, 255, 255)"), Some(Rgba::WHITE));
        assert_eq!(Rgba::parse("rgb(256, 0, 0)").unwrap().r, 255.0);
        assert_eq!(Rgba::parse("rgb(1.5, 2, 3)").unwrap().r, 1.5);
        assert_eq!(Rgba::parse("rgb(1, 2, 3, 4, 5)"), None);
    }

    #[test]
    fn contrast_follows_wcag() {
        let black = Rgba::parse("rgb(0, 0, 0)").unwrap();
        assert!((black.contrast_over(Rgba::WHITE) - 21.0).abs() < 0.01);
        assert!((Rgba::WHITE.contrast_over(Rgba::WHITE) - 1.0).abs() < 1e-6);
        // #767676 on white is the lightest grey that passes WCAG AA (4.54:1).
        let grey = Rgba::parse("#767676").unwrap();
        assert!((grey.contrast_over(Rgba::WHITE) - 4.54).abs() < 0.01);
        // Half-transparent black over white reads as mid grey.
        let half = black.faded(0.5);
        let ratio = half.contrast_over(Rgba::WHITE);
        assert!(ratio > 3.0 && ratio < 5.0, "{ratio}");
        assert!(Rgba::parse("#fefefe").unwrap().contrast_over(Rgba::WHITE) < 1.02);
        let pink = Rgba::parse("rgba(204, 51, 0, 0.8)").unwrap();
        assert_eq!(Rgba::unpack(pink.pack()).pack(), pink.pack());
        assert_eq!(pink.pack(), [204, 51, 0, 204]);
    }
}
