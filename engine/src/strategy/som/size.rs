//! Which screenshot sizes `som` decodes: the recording's viewport × device scale factor, within a little slack, and never past a fixed cap.
//!
//! A PNG's header states its size, and decoding allocates width × height ×
//! channels bytes up front: a 4 KB file claiming 100000 × 100000 px asks for
//! 40 GB, and the allocation failure aborts the process. The size is checked
//! from the header before any pixel buffer exists.

use crate::geom::Viewport;
use crate::passes::ObserveError;

/// The widest or tallest screenshot decoded, in device pixels: Chromium's own
/// limit for a captured surface (its maximum texture size).
pub const MAX_SIDE: u32 = 16_384;

/// The most pixels decoded in one screenshot (64 Mi px, 256 MiB as RGBA).
pub const MAX_PIXELS: u64 = 64 << 20;

/// How far a side may be from viewport × scale, in device pixels, besides
/// [`SLACK_FRACTION`]: room for a rounded scale or a scrollbar.
const SLACK_PX: f64 = 16.0;

/// How far a side may be from viewport × scale, as a fraction of it.
const SLACK_FRACTION: f64 = 0.02;

/// Fails unless a `width` × `height` px screenshot is one of `viewport`
/// (each side within [`SLACK_PX`] or [`SLACK_FRACTION`], whichever is
/// larger, of the viewport's side × device scale factor) and within
/// [`MAX_SIDE`] and [`MAX_PIXELS`].
pub fn check(width: u32, height: u32, viewport: &Viewport) -> Result<(), ObserveError> {
    let pixels = u64::from(width) * u64::from(height);
    if width > MAX_SIDE || height > MAX_SIDE || pixels > MAX_PIXELS {
        return Err(ObserveError::ScreenshotSize {
            width,
            height,
            expected: format!("at most {MAX_SIDE} px a side and {MAX_PIXELS} px in all"),
        });
    }
    let scale = viewport.device_scale_factor;
    let (want_w, want_h) = (viewport.width * scale, viewport.height * scale);
    let close = |got: u32, want: f64| {
        (f64::from(got) - want).abs() <= SLACK_PX.max(want.abs() * SLACK_FRACTION)
    };
    if !(close(width, want_w) && close(height, want_h)) {
        return Err(ObserveError::ScreenshotSize {
            width,
            height,
            expected: format!(
                "{}×{} px, the recording's viewport {}×{} at device scale factor {}",
                want_w.round(),
                want_h.round(),
                viewport.width,
                viewport.height,
                scale
            ),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const VIEW: Viewport = Viewport {
        width: 1280.0,
        height: 720.0,
        device_scale_factor: 1.0,
    };

    #[test]
    fn the_viewport_size_passes_and_a_scrollbar_is_within_the_slack() {
        assert!(check(1280, 720, &VIEW).is_ok());
        assert!(check(1295, 720, &VIEW).is_ok());
        let hidpi = Viewport {
            device_scale_factor: 2.0,
            ..VIEW
        };
        assert!(check(2560, 1440, &hidpi).is_ok());
        assert!(check(1280, 720, &hidpi).is_err());
    }

    #[test]
    fn another_size_or_one_past_the_cap_is_refused_naming_both() {
        let err = check(100_000, 100_000, &VIEW).unwrap_err().to_string();
        assert_eq!(
            err,
            "screenshot is 100000×100000 px, expected at most 16384 px a side and 67108864 px in all"
        );
        let err = check(5000, 5000, &VIEW).unwrap_err().to_string();
        assert_eq!(
            err,
            "screenshot is 5000×5000 px, expected 1280×720 px, the recording's viewport \
             1280×720 at device scale factor 1"
        );
    }
}
