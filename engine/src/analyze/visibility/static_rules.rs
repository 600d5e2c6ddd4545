//! Visibility on a page parsed from HTML (no layout): attributes, elements that never render and inline `style` declarations.

use crate::page::{Element, Namespace, Node, NodeId, Page, ShadowMode};

use super::{Hidden, Inherited, SUBTREE_REASONS, Visibility, first_reason, is_true};

/// Elements that never render, whatever their styles (HTML §15.3.1).
fn never_rendered(element: &Element) -> bool {
    (element.ns == Namespace::Html
        && matches!(
            element.name.as_str(),
            "head"
                | "script"
                | "style"
                | "template"
                | "noscript"
                | "title"
                | "meta"
                | "link"
                | "base"
        ))
        || (element.is("input") && crate::analyze::dom::has_input_type(element, "hidden"))
        || (element.is("dialog") && !element.has_attr("open"))
}

/// Content of a closed `<details>` other than its first `<summary>` is not rendered.
fn in_closed_details(page: &Page, id: NodeId) -> bool {
    let Some(parent) = page.parent(id) else {
        return false;
    };
    if !page
        .element(parent)
        .is_some_and(|e| e.is("details") && !e.has_attr("open"))
    {
        return false;
    }
    let first_summary = page
        .children(parent)
        .find(|&child| page.element(child).is_some_and(|e| e.is("summary")));
    first_summary != Some(id)
}

/// The inline declarations the static rules read.
#[derive(Default)]
struct InlineStyle {
    display_none: bool,
    visibility: Option<bool>,
    opacity: Option<f64>,
}

/// Reads `display`, `visibility` and `opacity` from a `style` attribute; the
/// last declaration wins, as in CSS.
fn inline_style(style: &str) -> InlineStyle {
    let mut out = InlineStyle::default();
    for declaration in style.split(';') {
        let Some((property, value)) = declaration.split_once(':') else {
            continue;
        };
        let value = value.trim();
        let value = value
            .strip_suffix("!important")
            .unwrap_or(value)
            .trim()
            .to_ascii_lowercase();
        match property.trim().to_ascii_lowercase().as_str() {
            "display" => out.display_none = value == "none",
            "visibility" => {
                out.visibility = match value.as_str() {
                    "hidden" | "collapse" => Some(true),
                    "visible" => Some(false),
                    _ => out.visibility,
                };
            }
            "opacity" => {
                let parsed = match value.strip_suffix('%') {
                    Some(percent) => percent.trim().parse::<f64>().ok().map(|p| p / 100.0),
                    None => value.parse::<f64>().ok(),
                };
                if let Some(opacity) = parsed.filter(|o| o.is_finite()) {
                    out.opacity = Some(opacity.clamp(0.0, 1.0));
                }
            }
            _ => {}
        }
    }
    out
}

/// Visibility per node of a page without layout; every node counts as in the viewport.
pub(super) fn compute_static(page: &Page) -> Vec<Visibility> {
    let len = page.len();
    let mut out = vec![
        Visibility {
            hidden: None,
            in_viewport: true,
        };
        len
    ];
    let mut passed = vec![Inherited::ROOT; len];
    for id in page.ids() {
        let i = id.index();
        let from = page
            .parent(id)
            .map_or(Inherited::ROOT, |p| passed[p.index()]);
        let mut flags = from.flags;
        let mut visibility_hidden = from.visibility_hidden;
        let mut opacity = from.opacity;
        if in_closed_details(page, id) {
            flags |= Hidden::NotRendered.bit();
        }
        match page.node(id) {
            Node::ShadowRoot(ShadowMode::UserAgent) => flags |= Hidden::NotRendered.bit(),
            Node::Element(element) => {
                if never_rendered(element) {
                    flags |= Hidden::NotRendered.bit();
                }
                if element.has_attr("hidden") {
                    flags |= Hidden::HiddenAttribute.bit();
                }
                if is_true(element.attr("aria-hidden")) {
                    flags |= Hidden::AriaHidden.bit();
                }
                if element.has_attr("inert") {
                    flags |= Hidden::Inert.bit();
                }
                if let Some(style) = element.attr("style") {
                    let inline = inline_style(style);
                    if inline.display_none {
                        flags |= Hidden::NotRendered.bit();
                    }
                    visibility_hidden = inline.visibility.unwrap_or(visibility_hidden);
                    opacity *= inline.opacity.unwrap_or(1.0);
                }
            }
            _ => {}
        }
        let mut own = flags;
        if visibility_hidden {
            own |= Hidden::VisibilityHidden.bit();
        }
        if opacity <= 0.0 {
            own |= Hidden::Transparent.bit();
        }
        out[i].hidden = first_reason(own);
        passed[i] = Inherited {
            flags: flags & SUBTREE_REASONS,
            opacity,
            visibility_hidden,
            ..Inherited::ROOT
        };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::visibility::compute;

    fn hidden_of(html: &str, selector: &str) -> Option<Hidden> {
        let page = Page::from_html(html);
        let (visibility, _) = compute(&page, &crate::analyze::dom::Dom::new(&page));
        let selector = crate::page::Selector::parse(selector).unwrap();
        let element = page.select(&selector).next().unwrap();
        visibility[element.id().index()].hidden
    }

    #[test]
    fn static_rules() {
        assert_eq!(
            hidden_of("<div hidden><p>x</p></div>", "p"),
            Some(Hidden::HiddenAttribute)
        );
        assert_eq!(
            hidden_of("<div aria-hidden=TRUE><p>x</p></div>", "p"),
            Some(Hidden::AriaHidden)
        );
        assert_eq!(
            hidden_of("<div inert><p>x</p></div>", "p"),
            Some(Hidden::Inert)
        );
        assert_eq!(
            hidden_of("<div style='display: none !important'><p>x</p></div>", "p"),
            Some(Hidden::NotRendered)
        );
        assert_eq!(
            hidden_of("<div style='visibility:hidden'><p>x</p></div>", "p"),
            Some(Hidden::VisibilityHidden)
        );
        assert_eq!(
            hidden_of(
                "<div style='visibility:hidden'><p style='visibility:visible'>x</p></div>",
                "p"
            ),
            None
        );
        assert_eq!(
            hidden_of("<div style='opacity:0'><p>x</p></div>", "p"),
            Some(Hidden::Transparent)
        );
        assert_eq!(
            hidden_of("<details><summary>s</summary><p>x</p></details>", "p"),
            Some(Hidden::NotRendered)
        );
        assert_eq!(
            hidden_of("<details><summary>s</summary><p>x</p></details>", "summary"),
            None
        );
        assert_eq!(
            hidden_of("<details open><summary>s</summary><p>x</p></details>", "p"),
            None
        );
        assert_eq!(
            hidden_of("<dialog><p>x</p></dialog>", "p"),
            Some(Hidden::NotRendered)
        );
        assert_eq!(
            hidden_of("<input type=hidden name=t>", "input"),
            Some(Hidden::NotRendered)
        );
        assert_eq!(hidden_of("<main><p>x</p></main>", "p"), None);
    }

    #[test]
    fn inline_style_last_declaration_wins() {
        let style = inline_style("display:none; DISPLAY: block; opacity: 50%");
        assert!(!style.display_none);
        assert_eq!(style.opacity, Some(0.5));
    }
}
