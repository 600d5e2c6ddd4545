//! States: disabled, checked, selected, expanded, pressed, level, required, readonly, invalid, value, focused.
//!
//! HTML-AAM §4.4 (attribute/state mappings) for native elements, WAI-ARIA 1.2
//! §6.6 for `aria-*` states, restricted to the roles that support each state
//! as Playwright's `roleUtils.ts` does. Live form state from a recording
//! (`Layout::value`/`checked`/`selected`) wins over markup. One linear pass,
//! with inherited facts (disabled fieldsets, `aria-disabled`) handed down.

use super::Role;
use super::dom::input_type;
use super::name::flatten;
use super::value::{PASSWORD_MASK, control_value, selected_options};
use crate::page::{Element, Namespace, Node, NodeId, Page};

/// A tri-state value (`aria-checked`, `aria-pressed`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checked {
    /// Checked / pressed.
    True,
    /// Not checked.
    False,
    /// `mixed` / indeterminate.
    Mixed,
}

/// States of one node.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct States {
    /// Disabled (native, inherited from a disabled fieldset, or `aria-disabled`).
    pub disabled: bool,
    /// Checkedness of checkboxes, radios, switches, menuitemcheckbox…
    pub checked: Option<Checked>,
    /// Selected (options, tabs, rows).
    pub selected: Option<bool>,
    /// Expanded / collapsed.
    pub expanded: Option<bool>,
    /// Toggle buttons.
    pub pressed: Option<Checked>,
    /// Heading level, tree item level.
    pub level: Option<u32>,
    /// Required.
    pub required: bool,
    /// Read-only.
    pub readonly: bool,
    /// Invalid (`aria-invalid` other than empty or `false`), and how.
    pub invalid: Option<Invalid>,
    /// Current value of textboxes, sliders, comboboxes, spinbuttons.
    /// Password fields report [`PASSWORD_MASK`] when filled, never the value.
    pub value: Option<String>,
    /// Has focus.
    pub focused: bool,
}

/// Facts handed from a node to its descendants.
#[derive(Clone, Copy, Default)]
struct Inherited {
    /// Inside a `<fieldset disabled>` and not inside its first `<legend>`.
    fieldset_disabled: bool,
    /// At a fieldset's children: whether the fieldset itself sits in a
    /// disabled context (what its first legend's contents inherit).
    outer_fieldset_disabled: bool,
    /// Nearest `aria-disabled` in the ancestor chain (`true`/`false`), if any.
    aria_disabled: Option<bool>,
    /// Inside an `<optgroup disabled>`.
    optgroup_disabled: bool,
}

/// Roles that support `aria-disabled` (Playwright `kAriaDisabledRoles`).
fn supports_disabled(role: Role) -> bool {
    matches!(
        role,
        "application"
            | "button"
            | "checkbox"
            | "columnheader"
            | "combobox"
            | "grid"
            | "gridcell"
            | "group"
            | "link"
            | "listbox"
            | "menu"
            | "menubar"
            | "menuitem"
            | "menuitemcheckbox"
            | "menuitemradio"
            | "option"
            | "radio"
            | "radiogroup"
            | "row"
            | "rowheader"
            | "scrollbar"
            | "searchbox"
            | "separator"
            | "slider"
            | "spinbutton"
            | "switch"
            | "tab"
            | "tablist"
            | "textbox"
            | "toolbar"
            | "tree"
            | "treegrid"
            | "treeitem"
    )
}

fn is_form_control(element: &Element) -> bool {
    element.ns == Namespace::Html
        && matches!(
            element.name.as_str(),
            "button" | "input" | "select" | "textarea" | "option" | "optgroup" | "fieldset"
        )
}

fn aria_bool(element: &Element, attr: &str) -> Option<bool> {
    let value = element.attr(attr)?.trim();
    if value.eq_ignore_ascii_case("true") {
        Some(true)
    } else if value.eq_ignore_ascii_case("false") {
        Some(false)
    } else {
        None
    }
}

fn aria_tristate(element: &Element, attr: &str) -> Option<Checked> {
    let value = element.attr(attr)?.trim();
    if value.eq_ignore_ascii_case("mixed") {
        Some(Checked::Mixed)
    } else {
        aria_bool(element, attr).map(|b| if b { Checked::True } else { Checked::False })
    }
}

fn positive_int(element: &Element, attr: &str) -> Option<u32> {
    element
        .attr(attr)?
        .trim()
        .parse::<u32>()
        .ok()
        .filter(|&n| n >= 1)
}

/// States per node.
pub(crate) fn compute(page: &Page, roles: &[Option<Role>]) -> Vec<States> {
    let mut states = vec![States::default(); page.len()];
    let mut inherited = vec![Inherited::default(); page.len()];
    // A single-select's options are selected per the select as a whole, so
    // work that out once per select.
    let mut option_selected: Vec<Option<bool>> = vec![None; page.len()];
    for id in page.ids() {
        let from_parent = page
            .parent(id)
            .map(|p| inherited[p.index()])
            .unwrap_or_default();
        let element = match page.node(id) {
            Node::Element(element) => element,
            // `closest()` does not leave an iframe document.
            Node::Document { .. } => continue,
            _ => {
                inherited[id.index()] = from_parent;
                continue;
            }
        };
        let role = roles[id.index()];
        if element.is("select") {
            let selected = selected_options(page, id);
            for option in page.subtree(id).skip(1) {
                if page.element(option).is_some_and(|e| e.is("option")) {
                    option_selected[option.index()] = Some(selected.contains(&option));
                }
            }
        }
        let state = &mut states[id.index()];
        let own_aria_disabled = aria_bool(element, "aria-disabled");
        let aria_disabled = own_aria_disabled.or(from_parent.aria_disabled);
        let native_disabled = is_form_control(element)
            && (element.has_attr("disabled")
                || from_parent.fieldset_disabled
                || (element.is("option") && from_parent.optgroup_disabled));
        state.disabled =
            native_disabled || (role.is_some_and(supports_disabled) && aria_disabled == Some(true));
        if let Some(role) = role {
            fill_states(page, id, element, role, state, option_selected[id.index()]);
        }
        state.focused = page.focused == Some(id);
        // Hand down: a disabled fieldset disables everything but its first
        // legend's contents (HTML §4.10.18.5); `aria-disabled` applies to
        // descendants (WAI-ARIA 1.2 §6.6).
        let mut next = Inherited {
            fieldset_disabled: from_parent.fieldset_disabled,
            outer_fieldset_disabled: from_parent.outer_fieldset_disabled,
            aria_disabled,
            optgroup_disabled: from_parent.optgroup_disabled
                || (element.is("optgroup") && element.has_attr("disabled")),
        };
        if element.is("fieldset") {
            next.outer_fieldset_disabled = from_parent.fieldset_disabled;
            next.fieldset_disabled = from_parent.fieldset_disabled || element.has_attr("disabled");
        } else if element.is("legend") && is_first_legend_of_fieldset(page, id) {
            next.fieldset_disabled = from_parent.outer_fieldset_disabled;
        }
        inherited[id.index()] = next;
    }
    states
}

fn is_first_legend_of_fieldset(page: &Page, legend: NodeId) -> bool {
    let Some(parent) = page.parent(legend) else {
        return false;
    };
    page.element(parent).is_some_and(|e| e.is("fieldset"))
        && page
            .children(parent)
            .find(|&c| page.element(c).is_some_and(|e| e.is("legend")))
            == Some(legend)
}

fn fill_states(
    page: &Page,
    id: NodeId,
    element: &Element,
    role: Role,
    state: &mut States,
    option_selected: Option<bool>,
) {
    let layout = page.layout(id);
    let html = element.ns == Namespace::Html;
    let kind = if element.is("input") {
        Some(input_type(element))
    } else {
        None
    };

    // checked: HTML-AAM maps the checkedness of checkbox/radio inputs;
    // `indeterminate` is script state a recording cannot see.
    if matches!(kind, Some("checkbox" | "radio")) {
        let checked = layout
            .checked
            .unwrap_or_else(|| element.has_attr("checked"));
        state.checked = Some(if checked {
            Checked::True
        } else {
            Checked::False
        });
    } else if matches!(
        role,
        "checkbox"
            | "radio"
            | "switch"
            | "menuitemcheckbox"
            | "menuitemradio"
            | "option"
            | "treeitem"
    ) {
        state.checked = aria_tristate(element, "aria-checked");
        if state.checked.is_none()
            && matches!(
                role,
                "checkbox" | "radio" | "switch" | "menuitemcheckbox" | "menuitemradio"
            )
        {
            state.checked = Some(Checked::False);
        }
    }

    // selected: an option's selectedness, else aria-selected.
    if html && element.is("option") {
        state.selected = Some(
            layout
                .selected
                .or(option_selected)
                .unwrap_or_else(|| element.has_attr("selected")),
        );
    } else if matches!(
        role,
        "gridcell" | "option" | "row" | "tab" | "rowheader" | "columnheader" | "treeitem"
    ) {
        state.selected = aria_bool(element, "aria-selected");
    }

    // expanded: <details open> (on the details and its summary), else aria-expanded.
    if html && element.is("details") {
        state.expanded = Some(element.has_attr("open"));
    } else if html
        && element.is("summary")
        && role == "button"
        && element.attr("aria-expanded").is_none()
    {
        state.expanded = page
            .parent(id)
            .and_then(|p| page.element(p))
            .filter(|p| p.is("details"))
            .map(|p| p.has_attr("open"));
    } else if matches!(
        role,
        "application"
            | "button"
            | "checkbox"
            | "combobox"
            | "gridcell"
            | "link"
            | "listbox"
            | "menuitem"
            | "row"
            | "rowheader"
            | "tab"
            | "treeitem"
            | "columnheader"
            | "menuitemcheckbox"
            | "menuitemradio"
            | "switch"
    ) {
        state.expanded = aria_bool(element, "aria-expanded");
    }

    if role == "button" {
        state.pressed = aria_tristate(element, "aria-pressed");
    }

    // level: aria-level overrides the tag, as in Chromium; role=heading
    // defaults to 2 (WAI-ARIA 1.2 heading).
    state.level = match role {
        "heading" => positive_int(element, "aria-level").or_else(|| {
            let native = match element.name.as_str() {
                "h1" => 1,
                "h2" => 2,
                "h3" => 3,
                "h4" => 4,
                "h5" => 5,
                "h6" => 6,
                _ => 2,
            };
            Some(if html { native } else { 2 })
        }),
        "listitem" | "row" | "treeitem" => positive_int(element, "aria-level"),
        _ => None,
    };

    let native_field = html && matches!(element.name.as_str(), "input" | "select" | "textarea");
    state.required = (native_field && element.has_attr("required"))
        || aria_bool(element, "aria-required") == Some(true);
    state.readonly = if html && matches!(element.name.as_str(), "input" | "textarea") {
        element.has_attr("readonly") || aria_bool(element, "aria-readonly") == Some(true)
    } else {
        aria_bool(element, "aria-readonly") == Some(true)
    };
    state.invalid = element
        .attr("aria-invalid")
        .map(str::trim)
        .filter(|v| !v.is_empty() && !v.eq_ignore_ascii_case("false"))
        .map(|v| {
            if v.eq_ignore_ascii_case("grammar") {
                Invalid::Grammar
            } else if v.eq_ignore_ascii_case("spelling") {
                Invalid::Spelling
            } else {
                Invalid::True
            }
        });

    state.value = value(page, id, element, role, kind);
}

/// The kinds of `aria-invalid` (WAI-ARIA 1.2 §6.6): any value but the
/// listed ones means `true`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Invalid {
    /// Invalid.
    True,
    /// A grammatical error was detected.
    Grammar,
    /// A spelling error was detected.
    Spelling,
}

/// The value HTML-AAM / WAI-ARIA exposes for value-bearing roles.
fn value(
    page: &Page,
    id: NodeId,
    element: &Element,
    role: Role,
    kind: Option<&str>,
) -> Option<String> {
    let html = element.ns == Namespace::Html;
    if html && element.is("select") {
        if role != "combobox" {
            return None;
        }
        let option = selected_options(page, id).into_iter().next()?;
        let option_element = page.element(option)?;
        let text = option_element
            .attr("label")
            .filter(|l| !l.trim().is_empty())
            .map_or_else(|| flatten(&page.text_content(option)), flatten);
        return Some(text);
    }
    if html && (element.is("input") || element.is("textarea")) {
        if !matches!(
            role,
            "textbox" | "searchbox" | "spinbutton" | "slider" | "combobox"
        ) {
            return None;
        }
        let mut value = control_value(page, id, element);
        if kind == Some("range") && value.is_empty() {
            // HTML: a range input's default value is the midpoint.
            let min = element
                .attr("min")
                .and_then(|v| v.trim().parse::<f64>().ok())
                .unwrap_or(0.0);
            let max = element
                .attr("max")
                .and_then(|v| v.trim().parse::<f64>().ok())
                .unwrap_or(100.0);
            let mid = if max < min {
                min
            } else {
                min + (max - min) / 2.0
            };
            value = format!("{mid}");
        }
        if kind == Some("password") {
            return (!value.is_empty()).then(|| PASSWORD_MASK.to_owned());
        }
        return Some(value);
    }
    if html && matches!(element.name.as_str(), "progress" | "meter") {
        return element.attr("value").map(str::to_owned);
    }
    if matches!(
        role,
        "slider" | "spinbutton" | "progressbar" | "meter" | "scrollbar" | "separator"
    ) {
        return element
            .attr("aria-valuetext")
            .or_else(|| element.attr("aria-valuenow"))
            .map(flatten);
    }
    if matches!(role, "textbox" | "searchbox" | "combobox") {
        if let Some(value) = &page.layout(id).value {
            return Some(value.clone());
        }
        if element
            .attr("contenteditable")
            .is_some_and(|v| !v.eq_ignore_ascii_case("false"))
        {
            return Some(flatten(&page.text_content(id)));
        }
    }
    None
}
