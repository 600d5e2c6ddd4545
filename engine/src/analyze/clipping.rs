//! Whether an element's own `clip` or `clip-path` leaves nothing of it to see.
//!
//! Read from the computed values Chromium reports:
//! - `clip: rect(top, right, bottom, left)` (CSS 2.1 §11.1.2) applies to
//!   absolutely positioned boxes only; offsets are from the border box's top
//!   left corner, `auto` is the box's own edge. Nothing shows when
//!   `right <= left` or `bottom <= top`.
//! - `clip-path: inset(…)` (CSS Shapes 1 §3.1.1) shows nothing when the
//!   insets of one axis meet (`inset(100%)`, `inset(50%)`); `circle(0px …)`
//!   and an `ellipse` with a zero radius show nothing. Other shapes
//!   (`polygon`, `path`, `url(#…)`) are not judged: they show something.
//!
//! Percentages resolve against the border box (the default reference box).

use crate::geom::Rect;
use crate::recording::Style;

/// Whether the element's `clip` or `clip-path` hides all of it.
pub(crate) fn clips_everything(style: &Style, bounds: &Rect) -> bool {
    clip_rect_is_empty(style, bounds) || clip_path_is_empty(&style.clip_path, bounds)
}

fn clip_rect_is_empty(style: &Style, bounds: &Rect) -> bool {
    if style.clip.is_empty() || !matches!(style.position.as_str(), "absolute" | "fixed") {
        return false;
    }
    let Some(args) = style
        .clip
        .trim()
        .strip_prefix("rect(")
        .and_then(|rest| rest.strip_suffix(')'))
    else {
        return false;
    };
    let values: Vec<&str> = args
        .split([',', ' '])
        .filter(|part| !part.is_empty())
        .collect();
    let [top, right, bottom, left] = values[..] else {
        return false;
    };
    let edge = |value: &str, auto: f64| -> Option<f64> {
        if value == "auto" {
            Some(auto)
        } else {
            length(value, auto)
        }
    };
    let (Some(top), Some(right), Some(bottom), Some(left)) = (
        edge(top, 0.0),
        edge(right, bounds.width),
        edge(bottom, bounds.height),
        edge(left, 0.0),
    ) else {
        return false;
    };
    right <= left || bottom <= top
}

fn clip_path_is_empty(clip_path: &str, bounds: &Rect) -> bool {
    let Some((function, args)) = clip_path.trim().split_once('(') else {
        return false;
    };
    let Some(args) = args.rsplit_once(')').map(|(args, _)| args) else {
        return false;
    };
    // The shape's own arguments, before `round …` or `at …`.
    let shape = args
        .split(" round ")
        .next()
        .unwrap_or_default()
        .split(" at ")
        .next()
        .unwrap_or_default();
    let values: Vec<&str> = shape.split_whitespace().collect();
    match function.trim() {
        "inset" => {
            let (top, right, bottom, left) = match values[..] {
                [all] => (all, all, all, all),
                [vertical, horizontal] => (vertical, horizontal, vertical, horizontal),
                [top, horizontal, bottom] => (top, horizontal, bottom, horizontal),
                [top, right, bottom, left] => (top, right, bottom, left),
                _ => return false,
            };
            let resolve = |value: &str, of: f64| length(value, of);
            match (
                resolve(top, bounds.height),
                resolve(right, bounds.width),
                resolve(bottom, bounds.height),
                resolve(left, bounds.width),
            ) {
                (Some(top), Some(right), Some(bottom), Some(left)) => {
                    top + bottom >= bounds.height || left + right >= bounds.width
                }
                _ => false,
            }
        }
        "circle" => {
            matches!(values[..], [radius] if length(radius, bounds.width.min(bounds.height)) == Some(0.0))
        }
        "ellipse" => match values[..] {
            [rx, ry] => {
                length(rx, bounds.width) == Some(0.0) || length(ry, bounds.height) == Some(0.0)
            }
            _ => false,
        },
        _ => false,
    }
}

/// A computed length: `12px`, `50%` of `of`, or a bare `0`.
fn length(value: &str, of: f64) -> Option<f64> {
    let value = value.trim();
    if let Some(px) = value.strip_suffix("px") {
        return px.parse::<f64>().ok().filter(|v| v.is_finite());
    }
    if let Some(percent) = value.strip_suffix('%') {
        return percent
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .map(|p| p / 100.0 * of);
    }
    (value == "0").then_some(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn style(position: &str, clip: &str, clip_path: &str) -> Style {
        Style {
            position: position.to_owned(),
            clip: clip.to_owned(),
            clip_path: clip_path.to_owned(),
            ..Style::default()
        }
    }

    const BOX: Rect = Rect {
        x: 10.0,
        y: 10.0,
        width: 200.0,
        height: 20.0,
    };

    #[test]
    fn clip_rect_applies_to_absolute_boxes_only() {
        let nothing = "rect(0px, 0px, 0px, 0px)";
        assert!(clips_everything(&style("absolute", nothing, ""), &BOX));
        assert!(clips_everything(&style("fixed", nothing, ""), &BOX));
        assert!(!clips_everything(&style("static", nothing, ""), &BOX));
        assert!(!clips_everything(
            &style("absolute", "rect(0px, 50px, 10px, 0px)", ""),
            &BOX
        ));
        assert!(!clips_everything(
            &style("absolute", "rect(auto, auto, auto, auto)", ""),
            &BOX
        ));
        assert!(clips_everything(
            &style("absolute", "rect(auto, 0px, auto, auto)", ""),
            &BOX
        ));
    }

    #[test]
    fn clip_path_shapes_of_nothing() {
        let hides = |clip_path: &str| clips_everything(&style("static", "", clip_path), &BOX);
        assert!(hides("inset(100%)"));
        assert!(hides("inset(50%)"));
        assert!(hides("inset(0px 100px)"));
        assert!(hides("inset(10px 0px 10px 0px round 4px)"));
        assert!(!hides("inset(0px)"));
        assert!(!hides("inset(2px 4px)"));
        assert!(hides("circle(0px at 50% 50%)"));
        assert!(hides("circle(0)"));
        assert!(!hides("circle(10px at 50% 50%)"));
        assert!(!hides("circle(at 50% 50%)"));
        assert!(hides("ellipse(0px 5px at 50% 50%)"));
        assert!(!hides("ellipse(5px 5px)"));
        assert!(!hides("polygon(0px 0px, 10px 0px, 10px 10px)"));
        assert!(!hides("url(\"#mask\")"));
        assert!(!hides(""));
    }
}
