//! Where an element sits in the viewport: a 3×3 zone, offscreen or unknown, as an observation's items report it.

use serde::{Deserialize, Serialize};

/// Where an element sits in the viewport: one of its 3×3 zones, offscreen,
/// or unknown (no box, or a page without layout). Serialised, and printed,
/// as the kebab-case word (`top-left`, `center`, `offscreen`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Zone {
    /// Top third, left third.
    TopLeft,
    /// Top third, middle third.
    TopCenter,
    /// Top third, right third.
    TopRight,
    /// Middle third, left third.
    MiddleLeft,
    /// The middle of the viewport.
    Center,
    /// Middle third, right third.
    MiddleRight,
    /// Bottom third, left third.
    BottomLeft,
    /// Bottom third, middle third.
    BottomCenter,
    /// Bottom third, right third.
    BottomRight,
    /// Outside the viewport.
    Offscreen,
    /// No box, or no layout.
    #[default]
    Unknown,
}

impl Zone {
    /// The nine zones of the viewport, row by row from the top left.
    pub const GRID: [Zone; 9] = [
        Zone::TopLeft,
        Zone::TopCenter,
        Zone::TopRight,
        Zone::MiddleLeft,
        Zone::Center,
        Zone::MiddleRight,
        Zone::BottomLeft,
        Zone::BottomCenter,
        Zone::BottomRight,
    ];

    /// The word for the zone.
    pub fn as_str(self) -> &'static str {
        match self {
            Zone::TopLeft => "top-left",
            Zone::TopCenter => "top-center",
            Zone::TopRight => "top-right",
            Zone::MiddleLeft => "middle-left",
            Zone::Center => "center",
            Zone::MiddleRight => "middle-right",
            Zone::BottomLeft => "bottom-left",
            Zone::BottomCenter => "bottom-center",
            Zone::BottomRight => "bottom-right",
            Zone::Offscreen => "offscreen",
            Zone::Unknown => "unknown",
        }
    }
}

impl std::fmt::Display for Zone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
