//! A form control's value, read once for names and states: the live value or the markup's, a `<select>`'s selected options, and a password field's mask.

use super::dom::has_input_type;
use crate::page::{Element, NodeId, Page};

/// What a filled password field reports as its value.
pub const PASSWORD_MASK: &str = "••••••••";

/// The current value of a form control: live state when recorded, else the
/// markup's (`value` attribute; a `<textarea>`'s text).
pub(crate) fn control_value(page: &Page, id: NodeId, element: &Element) -> String {
    if let Some(value) = &page.layout(id).value {
        return value.clone();
    }
    if element.is("textarea") {
        return page.text_content(id);
    }
    element.attr("value").unwrap_or("").to_owned()
}

/// The selected `<option>`s of a `<select>` (HTML §4.10.7 selectedness):
/// live state when recorded; otherwise the `selected` attributes, with a
/// single-select's last selected option winning and its first option
/// selected when none is.
pub(crate) fn selected_options(page: &Page, select: NodeId) -> Vec<NodeId> {
    let options: Vec<NodeId> = page
        .subtree(select)
        .skip(1)
        .filter(|&d| page.element(d).is_some_and(|e| e.is("option")))
        .collect();
    let Some(element) = page.element(select) else {
        return Vec::new();
    };
    let live = options.iter().any(|&o| page.layout(o).selected.is_some());
    if live {
        return options
            .into_iter()
            .filter(|&o| page.layout(o).selected == Some(true))
            .collect();
    }
    let multiple = element.has_attr("multiple");
    let size = element
        .attr("size")
        .and_then(|s| s.trim().parse::<u32>().ok())
        .unwrap_or(if multiple { 4 } else { 1 });
    let marked: Vec<NodeId> = options
        .iter()
        .copied()
        .filter(|&o| page.element(o).is_some_and(|e| e.has_attr("selected")))
        .collect();
    if multiple {
        return marked;
    }
    if let Some(&last) = marked.last() {
        return vec![last];
    }
    if size > 1 {
        return Vec::new();
    }
    options
        .into_iter()
        .find(|&o| page.element(o).is_some_and(|e| !e.has_attr("disabled")))
        .into_iter()
        .collect()
}

/// [`control_value`], with a filled password field's value replaced by
/// [`PASSWORD_MASK`] (what a name that embeds the field shows).
pub(crate) fn masked_control_value(page: &Page, id: NodeId, element: &Element) -> String {
    let value = control_value(page, id, element);
    if has_input_type(element, "password") && !value.is_empty() {
        PASSWORD_MASK.to_owned()
    } else {
        value
    }
}
