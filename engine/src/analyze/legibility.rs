//! Legibility: whether a person can read a text run the browser renders — painted, big enough, standing apart from what is behind it, not covered.
//!
//! Visibility ([`super::visibility`]) decides whether a box shows; a box can
//! show and its text still be unreadable. Each text run (a text node with
//! something besides whitespace, whose element shows) is judged from its
//! element's computed style, the colour Chromium finds painted behind it and
//! the paint order, and marked hidden with the first reason that holds:
//!
//! - [`Hidden::Covered`]: the text's element is covered by boxes painted
//!   above it with an opaque background at every point tested
//!   ([`super::occlusion`]; images are not counted: one that did not load
//!   paints nothing).
//! - [`Hidden::Tiny`]: a computed `font-size` below [`MIN_FONT_PX`].
//! - [`Hidden::Unpainted`]: the glyphs' fill — `-webkit-text-fill-color`
//!   where set, else `color` — has an alpha below [`MIN_TEXT_ALPHA`] once
//!   multiplied by the opacity of the element and its ancestors, and nothing
//!   else draws the glyphs: not a `text-shadow`, not a
//!   `-webkit-text-stroke`, not a background image clipped to the text
//!   (`background-clip: text` on the element or an ancestor).
//! - [`Hidden::Faint`]: the fill, painted over the colour behind the text,
//!   contrasts with it less than [`MIN_CONTRAST`] (WCAG 2 ratio) and lies
//!   within a few levels of it on every channel (a hue apart is seen). The
//!   colour behind is the blend of every box under the text
//!   ([`super::backdrop`]), or Chromium's own (`blendedBackgroundColors`) in
//!   a recording that carries it; where an image, gradient or video lies
//!   under the text there is none and nothing is judged. Text drawn by
//!   shadow or stroke is not judged either.
//!
//! A recording made before colours were captured (no `color`) is judged for
//! cover only, which its paint order and backgrounds already told: its text
//! is otherwise taken as readable, as it was then.

use super::backdrop::Backdrops;
use super::visibility::Clips;
use super::{Hidden, Visibility};
use crate::color::{self, Rgba};
use crate::page::{Node, NodeId, Page};
use crate::recording::Style;

/// Text whose fill keeps less alpha than this (after opacity) is unpainted.
pub const MIN_TEXT_ALPHA: f32 = 0.1;
/// Text set smaller than this many CSS pixels is too small to read.
pub const MIN_FONT_PX: f64 = 4.0;
/// Text contrasting with what is behind it less than this (WCAG 2 ratio,
/// 1–21) cannot be made out: `#fafafa` or lighter on white. White on white
/// is 1; yellow on white, poor but readable, 1.07; WCAG AA asks 4.5.
pub const MIN_CONTRAST: f32 = 1.05;

/// Faint text is also within this many levels (of 255) of what is behind it
/// on every channel: colours further apart differ in hue a person sees,
/// however close their luminance.
const MAX_FAINT_CHANNEL_DISTANCE: f32 = 24.0;

/// Marks unreadable text runs in `visibility` (text nodes only), given each
/// node's effective `opacity`, whether it is `covered` and the `clips` on
/// each element.
pub(crate) fn compute(
    page: &Page,
    visibility: &mut [Visibility],
    clips: &Clips,
    covered: &[bool],
    opacity: &[f64],
) {
    if !page.has_layout {
        return;
    }
    // A recording that carries Chromium's blends (every capture until
    // 2026-11-30) is judged by them, a text with none by none; the others'
    // are blended here, from the boxes placed once, when first needed.
    let recorded = page.ids().any(|id| page.layout(id).backdrop.is_some());
    let mut placed: Option<Backdrops> = None;
    for id in page.ids() {
        let Node::Text(text) = page.node(id) else {
            continue;
        };
        if visibility[id.index()].hidden.is_some() {
            continue;
        }
        let Some((element, style)) = styled(page, id) else {
            continue;
        };
        if text.trim().is_empty() {
            continue;
        }
        if covered[element.index()] {
            visibility[id.index()].hidden = Some(Hidden::Covered);
            continue;
        }
        // A recording made before colours were captured judges no more.
        if style.color.is_empty() {
            continue;
        }
        let faint_over_backdrop = |faint: &dyn Fn(Rgba) -> bool| {
            if recorded {
                return page
                    .layout(element)
                    .backdrop
                    .map(Rgba::unpack)
                    .is_some_and(faint);
            }
            placed
                .get_or_insert_with(|| Backdrops::new(page, visibility, clips, opacity))
                .faint_behind(page, clips, id, element, faint)
        };
        let clipped_background = || {
            std::iter::successors(Some(element), |&a| page.parent(a)).any(|a| {
                page.layout(a)
                    .style
                    .as_deref()
                    .is_some_and(|s| s.background_clip == "text" && !s.background_image.is_empty())
            })
        };
        let faded = opacity[element.index()] as f32;
        visibility[id.index()].hidden =
            judge(style, faded, faint_over_backdrop, clipped_background);
    }
}

/// The element whose style a text node wears: its parent, or for text in a
/// shadow root or a boxless wrapper the nearest ancestor with a style.
fn styled(page: &Page, text: NodeId) -> Option<(NodeId, &Style)> {
    std::iter::successors(page.parent(text), |&a| page.parent(a))
        .find_map(|a| page.layout(a).style.as_deref().map(|style| (a, style)))
}

/// The alpha of a computed `text-shadow`'s first colour (Chromium writes it first).
fn shadow_alpha(shadow: &str) -> f64 {
    match shadow.find(')') {
        Some(end) => color::alpha(&shadow[..=end]),
        None => color::alpha(shadow.split_whitespace().next().unwrap_or_default()),
    }
}

/// The reason a run set in `style` cannot be read, if any: `opacity` is its
/// element's effective opacity, `over_backdrop` whether a test on a colour
/// holds for what is painted behind it (false when that is unknown) and
/// `clipped_background` whether a background image is clipped to its glyphs
/// (each asked only when it matters).
fn judge(
    style: &Style,
    opacity: f32,
    over_backdrop: impl FnOnce(&dyn Fn(Rgba) -> bool) -> bool,
    clipped_background: impl FnOnce() -> bool,
) -> Option<Hidden> {
    if style.color.is_empty() {
        return None;
    }
    if style.font_size.is_some_and(|size| size < MIN_FONT_PX) {
        return Some(Hidden::Tiny);
    }
    // Text drawn by its shadow or stroke is not judged by its fill.
    if (!style.text_shadow.is_empty() && shadow_alpha(&style.text_shadow) > 0.0)
        || !style.text_stroke.is_empty()
    {
        return None;
    }
    let fill = if style.text_fill.is_empty() {
        &style.color
    } else {
        &style.text_fill
    };
    let parsed = Rgba::parse(fill);
    let alpha = parsed.map_or_else(|| color::alpha(fill) as f32, |c| c.a) * opacity;
    let faint = |fill: Rgba, backdrop: Rgba| {
        let (seen, behind) = fill.faded(opacity).seen_over(backdrop);
        // Colours a channel apart by more than this are told apart whatever
        // their luminance (red on a grey as light): the contrast need not be
        // computed.
        seen.channel_distance(behind) <= MAX_FAINT_CHANNEL_DISTANCE
            && seen.contrast_over(behind) < MIN_CONTRAST
    };
    let reason = if alpha < MIN_TEXT_ALPHA {
        Hidden::Unpainted
    } else if let Some(fill) = parsed
        && over_backdrop(&|backdrop| faint(fill, backdrop))
    {
        Hidden::Faint
    } else {
        return None;
    };
    // A background image clipped to the glyphs draws them.
    (!clipped_background()).then_some(reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(color: &str) -> Style {
        Style {
            color: color.to_owned(),
            font_size: Some(13.0),
            ..Style::default()
        }
    }

    const WHITE: Option<Rgba> = Some(Rgba::WHITE);

    /// What is painted behind, as `judge` asks about it.
    fn over(backdrop: Option<Rgba>) -> impl FnOnce(&dyn Fn(Rgba) -> bool) -> bool {
        move |test| backdrop.is_some_and(test)
    }

    #[test]
    fn unpainted_tiny_and_faint_runs() {
        let judged = |style: &Style| judge(style, 1.0, over(WHITE), || false);
        assert_eq!(judged(&text("rgb(31, 41, 51)")), None);
        assert_eq!(judged(&text("rgba(0, 0, 0, 0)")), Some(Hidden::Unpainted));
        assert_eq!(judged(&text("rgb(255, 255, 255)")), Some(Hidden::Faint));
        assert_eq!(judged(&text("rgb(254, 254, 254)")), Some(Hidden::Faint));
        // The lightest grey WCAG AA accepts, and a placeholder's grey, stay.
        assert_eq!(judged(&text("rgb(118, 118, 118)")), None);
        assert_eq!(judged(&text("rgb(200, 200, 200)")), None);
        assert_eq!(judged(&text("rgb(255, 255, 0)")), None, "yellow on white");
        assert_eq!(judged(&text("rgb(250, 250, 250)")), Some(Hidden::Faint));
        // Red on a grey of the same luminance: contrast 1, yet plainly seen.
        let grey = Rgba::parse("rgb(127, 127, 127)");
        assert_eq!(
            judge(&text("rgb(255, 0, 64)"), 1.0, over(grey), || false),
            None
        );
        // A half-transparent backdrop is seen over the white canvas.
        let pink = Rgba::parse("rgba(204, 51, 0, 0.8)");
        assert_eq!(
            judge(&text("rgba(204, 51, 0, 0.75)"), 1.0, over(pink), || false),
            None
        );
        let tiny = Style {
            font_size: Some(1.0),
            ..text("rgb(0, 0, 0)")
        };
        assert_eq!(judged(&tiny), Some(Hidden::Tiny));
        let small = Style {
            font_size: Some(10.0),
            ..text("rgb(0, 0, 0)")
        };
        assert_eq!(judged(&small), None);
        let filled = Style {
            text_fill: "rgba(0, 0, 0, 0)".to_owned(),
            ..text("rgb(0, 0, 0)")
        };
        assert_eq!(judged(&filled), Some(Hidden::Unpainted));
    }

    #[test]
    fn text_drawn_another_way_is_painted() {
        let shadowed = Style {
            text_shadow: "rgb(31, 41, 51) 0px 0px 0px".to_owned(),
            ..text("rgba(0, 0, 0, 0)")
        };
        assert_eq!(judge(&shadowed, 1.0, over(WHITE), || false), None);
        let no_shadow = Style {
            text_shadow: "rgba(0, 0, 0, 0) 0px 0px 0px".to_owned(),
            ..text("rgba(0, 0, 0, 0)")
        };
        assert_eq!(
            judge(&no_shadow, 1.0, over(WHITE), || false),
            Some(Hidden::Unpainted)
        );
        let stroked = Style {
            text_stroke: "1px".to_owned(),
            ..text("rgba(0, 0, 0, 0)")
        };
        assert_eq!(judge(&stroked, 1.0, over(WHITE), || false), None);
        assert_eq!(
            judge(&text("rgba(0, 0, 0, 0)"), 1.0, over(WHITE), || true),
            None
        );
    }

    #[test]
    fn opacity_fades_the_fill_and_unknown_backdrops_judge_nothing() {
        assert_eq!(
            judge(&text("rgb(0, 0, 0)"), 0.05, over(WHITE), || false),
            Some(Hidden::Unpainted)
        );
        // White text with nothing known behind it (an image): not judged.
        assert_eq!(
            judge(&text("rgb(255, 255, 255)"), 1.0, over(None), || false),
            None
        );
        // White on a dark backdrop reads.
        let dark = Rgba::parse("rgb(31, 58, 95)");
        assert_eq!(
            judge(&text("rgb(255, 255, 255)"), 1.0, over(dark), || false),
            None
        );
        // An old recording: no colour captured, nothing judged.
        assert_eq!(judge(&Style::default(), 1.0, over(WHITE), || false), None);
    }
}
