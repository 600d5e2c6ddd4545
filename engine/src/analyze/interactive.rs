//! Interactivity: which nodes an agent can act on, and why.
//!
//! Only visible elements can be interactive. The first reason that applies
//! wins, in the order of [`InteractiveReason`]:
//!
//! 1. Native controls (HTML §3.2.5.2.7 interactive content): `a[href]`,
//!    `area[href]`, `button`, `input` other than `type=hidden`, `select`,
//!    `textarea`, `video[controls]`, `audio[controls]`. `<details>` and
//!    `<iframe>` are containers, not targets; `<summary>` has its own reason.
//! 2. ARIA widget roles (WAI-ARIA 1.2 §5.3.2), from the computed role and,
//!    so the rule holds on its own, from the explicit `role` attribute. The
//!    implicit role of a `<summary>` does not count: rule 4 says more.
//! 3. Editing hosts: `contenteditable` other than `false`; descendants of a
//!    host inherit editability (HTML §6.8.1) but only the host is a target.
//! 4. `<summary>` of a `<details>`.
//! 5. `<label>` with a labeled control (its `for` target, else its first
//!    labelable descendant, HTML §4.10.4): clicking it activates the control,
//!    and custom checkboxes often hide the input and show only the label.
//!    Skipped when the label's box lies inside the control's box: then both
//!    are the same click target.
//! 6. `tabindex >= 0`: the author put it in the focus order.
//! 7. A click listener reported by the browser (CDP `isClickable`), except on
//!    `<html>`/`<body>` and on containers covering ≥ 90% of the viewport on
//!    both axes: frameworks delegate events from such roots, which says
//!    nothing about the element being a target.
//! 8. A hover target: hovering it reveals content (a stylesheet's `:hover`
//!    rule on it shows or moves a descendant or sibling, or an
//!    `onmouseover`/`onmouseenter` handler), as recorded by the browser; the
//!    same page-container exception as rule 7. A CSS hover menu's trigger is
//!    often a plain `<span>`, and `hover` needs a ref to aim at. Not when
//!    a target inside it covers ≥ 80% of its box (a `<li>` around its
//!    link): pointing at that one hovers it too.
//! 9. A drag source: `draggable="true"` (HTML's drag and drop), the class
//!    jQuery UI gives the items it makes draggable or sortable
//!    (`ui-draggable`, `ui-sortable-handle`), or `cursor: move`/`grab` at
//!    the top of its subtree: `drag` needs a ref to start from, and a
//!    sortable list's items are also where a dragged item is dropped.
//! 10. `cursor: pointer` at the top of a pointer subtree, as browser-use does:
//!     `cursor` inherits (CSS UI 4 §5.1), so a child whose parent element
//!     already shows the pointer is part of the same target. A pointer
//!     element inside a native control, ARIA widget or `<summary>` (an icon
//!     `<span>` in a `<button>`) is also part of that target.
//!
//! Disabled controls stay interactive: [`States::disabled`] reports them, and
//! an agent may need to see that the submit button exists but is disabled.

use super::dom::{Dom, input_type, tabindex};
use super::{Role, States, Visibility};
use crate::page::{Element, Node, NodeId, Page};

/// Why a node was judged interactive (the first reason that applies, in this order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum InteractiveReason {
    /// A native control: `a[href]`, `button`, `input`, `select`, `textarea`, …
    NativeControl,
    /// An ARIA widget role (`button`, `checkbox`, `option`, `tab`, …).
    AriaWidget,
    /// `contenteditable`.
    ContentEditable,
    /// `<summary>` of a `<details>`.
    Summary,
    /// A `<label>` wrapping or pointing at a control.
    Label,
    /// `tabindex >= 0`.
    Tabindex,
    /// A click listener reported by the browser.
    ClickListener,
    /// Hovering it reveals content.
    Hover,
    /// It can be dragged.
    Draggable,
    /// Drops land on it: a drop listener of its own, `aria-dropeffect`, or a
    /// drag library's droppable marker ([`DROP_MARKERS`]).
    DropTarget,
    /// A scroll container the user can scroll (its content overflows where
    /// `overflow` is `auto` or `scroll`): the ref `page_scroll` takes to
    /// scroll it rather than the page.
    ScrollContainer,
    /// `cursor: pointer` at the top of a pointer subtree.
    CursorPointer,
}

impl InteractiveReason {
    /// A target that holds content rather than names it: a drop target or a
    /// scroll container, whose text is its content's, not its name.
    pub fn is_container(self) -> bool {
        matches!(
            self,
            InteractiveReason::DropTarget | InteractiveReason::ScrollContainer
        )
    }
}

/// Roles of widgets an agent acts on directly. Composite containers
/// (`listbox`, `menu`, `grid`, `tablist`, `tree`) are not targets; their items are.
const WIDGET_ROLES: &[&str] = &[
    "button",
    "checkbox",
    "combobox",
    "link",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "radio",
    "searchbox",
    "slider",
    "spinbutton",
    "switch",
    "tab",
    "textbox",
    "treeitem",
];

/// Whether `role` is a widget an agent acts on directly (not a composite
/// container such as `listbox` or `menu`).
pub fn is_widget_role(role: &str) -> bool {
    WIDGET_ROLES.contains(&role)
}

/// The explicit role: the first token of `role` that is a known role (WAI-ARIA 1.2 §7.1).
fn explicit_widget_role(element: &Element) -> bool {
    element
        .attr("role")
        .and_then(|roles| {
            roles
                .split_ascii_whitespace()
                .map(str::to_ascii_lowercase)
                .find(|token| is_widget_role(token) || super::is_valid_role(token))
        })
        .is_some_and(|role| is_widget_role(&role))
}

fn is_native_control(element: &Element) -> bool {
    match element.name.as_str() {
        _ if element.ns != crate::page::Namespace::Html => false,
        "a" | "area" => element.has_attr("href"),
        "button" | "select" | "textarea" => true,
        "input" => input_type(element) != "hidden",
        "video" | "audio" => element.has_attr("controls"),
        _ => false,
    }
}

/// Editability per HTML's `contenteditable` states: `true`/empty/`plaintext-only`
/// start an editing host, `false` stops it, anything else inherits.
fn editable_state(element: &Element) -> Option<bool> {
    let value = element.attr("contenteditable")?.trim().to_ascii_lowercase();
    match value.as_str() {
        "" | "true" | "plaintext-only" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// Interactivity per node.
pub(crate) fn compute(
    page: &Page,
    dom: &Dom,
    roles: &[Option<Role>],
    visibility: &[Visibility],
    states: &[States],
) -> Vec<Option<InteractiveReason>> {
    // Disabled controls stay interactive; `states` reports `disabled`.
    let _ = states;
    let len = page.len();
    let mut out = vec![None; len];
    let mut editable = vec![false; len];
    // Strictly inside a native control or ARIA widget.
    let mut in_widget = vec![false; len];
    for id in page.ids() {
        let i = id.index();
        let parent = page.parent(id);
        in_widget[i] = parent.is_some_and(|p| {
            in_widget[p.index()]
                || matches!(
                    out[p.index()],
                    Some(
                        InteractiveReason::NativeControl
                            | InteractiveReason::AriaWidget
                            | InteractiveReason::Summary
                    )
                )
        });
        let parent_editable = parent.is_some_and(|p| editable[p.index()]);
        let Some(element) = page.element(id) else {
            editable[i] = parent_editable && !matches!(page.node(id), Node::Document { .. });
            continue;
        };
        editable[i] = editable_state(element).unwrap_or(parent_editable);
        if !visibility[i].is_visible() {
            continue;
        }
        let summary = element.is("summary")
            && parent
                .and_then(|p| page.element(p))
                .is_some_and(|p| p.is("details"));
        out[i] = if is_native_control(element) {
            Some(InteractiveReason::NativeControl)
        } else if explicit_widget_role(element)
            || (!summary && roles[i].is_some_and(is_widget_role))
        {
            Some(InteractiveReason::AriaWidget)
        } else if editable[i] && !parent_editable {
            Some(InteractiveReason::ContentEditable)
        } else if summary {
            Some(InteractiveReason::Summary)
        } else if element.is("label") {
            // A label is its own target only when its control cannot be
            // clicked directly (a visually hidden input behind a styled
            // label); otherwise clicking it is clicking the control, which
            // has its own ref, and a second, unnamed ref would only add noise.
            match dom.labeled_control(id) {
                Some(control) if !visibility[control.index()].is_visible() => {
                    Some(InteractiveReason::Label)
                }
                Some(_) => None,
                None => plain_reason(page, element, id, in_widget[i]),
            }
        } else {
            plain_reason(page, element, id, in_widget[i])
        };
    }
    drop_filled_hover_targets(page, &mut out);
    out
}

/// A hover target filled by one of its own targets (a `<li>` around its
/// link) adds nothing: pointing at the inner target hovers it too.
fn drop_filled_hover_targets(page: &Page, out: &mut [Option<InteractiveReason>]) {
    for id in page.ids() {
        if out[id.index()] != Some(InteractiveReason::Hover) {
            continue;
        }
        let Some(own) = page.layout(id).bounds.filter(|b| b.area() > 0.0) else {
            continue;
        };
        let filled = page.subtree(id).skip(1).any(|inner| {
            out[inner.index()].is_some()
                && page
                    .layout(inner)
                    .bounds
                    .is_some_and(|b| overlap(&own, &b) >= FILLED * own.area())
        });
        if filled {
            out[id.index()] = None;
        }
    }
}

/// The share of a hover target's box an inner target must cover to stand for it.
const FILLED: f64 = 0.8;

/// The area two boxes share.
fn overlap(a: &crate::geom::Rect, b: &crate::geom::Rect) -> f64 {
    let w = a.right().min(b.right()) - a.x.max(b.x);
    let h = a.bottom().min(b.bottom()) - a.y.max(b.y);
    w.max(0.0) * h.max(0.0)
}

/// The reasons that apply to any element: tabindex, click listener, hover
/// target, pointer cursor, drag source.
fn plain_reason(
    page: &Page,
    element: &Element,
    id: NodeId,
    in_widget: bool,
) -> Option<InteractiveReason> {
    if tabindex(element).is_some_and(|t| t >= 0) {
        Some(InteractiveReason::Tabindex)
    } else if page.layout(id).clickable && !is_page_container(page, element, id) {
        Some(InteractiveReason::ClickListener)
    } else if page.layout(id).hover && !is_page_container(page, element, id) {
        Some(InteractiveReason::Hover)
    } else if !in_widget && is_drag_source(page, element, id) {
        Some(InteractiveReason::Draggable)
    } else if is_drop_target(page, element, id) {
        Some(InteractiveReason::DropTarget)
    } else if is_scroll_container(page, element, id) {
        Some(InteractiveReason::ScrollContainer)
    } else if starts_pointer_subtree(page, id) && !in_widget {
        Some(InteractiveReason::CursorPointer)
    } else {
        None
    }
}

/// A box the user scrolls apart from the page (the document's own
/// scrolling is the page's: `<html>`, `<body>`).
fn is_scroll_container(page: &Page, element: &Element, id: NodeId) -> bool {
    let (vertical, horizontal) = super::scroll::overflows(page.layout(id));
    (vertical || horizontal) && !element.is("html") && !element.is("body")
}

/// The markers drag libraries put on the containers that accept drops:
/// react-beautiful-dnd's and its fork @hello-pangea/dnd's droppable ids,
/// and jQuery UI's droppable class.
const DROP_MARKERS: &[&str] = &["data-rbd-droppable-id", "data-rfd-droppable-id"];

/// A drop target: a drop listener of its own (not the page's container, whose
/// listener would make everything a target), `aria-dropeffect` other than
/// `none`, or a drag library's marker. A container that merely holds
/// draggables is none of these.
fn is_drop_target(page: &Page, element: &Element, id: NodeId) -> bool {
    (page.layout(id).droppable && !is_page_container(page, element, id))
        || element
            .attr("aria-dropeffect")
            .is_some_and(|effect| !effect.trim().eq_ignore_ascii_case("none"))
        || DROP_MARKERS.iter().any(|marker| element.has_attr(marker))
        || element
            .attr("class")
            .is_some_and(|class| class.split_ascii_whitespace().any(|c| c == "ui-droppable"))
}

/// The jQuery UI classes of draggable and sortable items.
const DRAG_CLASSES: &[&str] = &["ui-draggable", "ui-sortable-handle", "ui-draggable-handle"];

/// `draggable="true"`, a jQuery UI drag class, or a move/grab cursor its
/// parent element does not show. One pass over the attributes, their names
/// told apart by length first: it runs for most elements of a page.
fn is_drag_source(page: &Page, element: &Element, id: NodeId) -> bool {
    let marked = element.attrs.iter().any(|(key, value)| match key.len() {
        9 if key.eq_ignore_ascii_case("draggable") => value.eq_ignore_ascii_case("true"),
        5 if key.eq_ignore_ascii_case("class") => {
            value.contains("ui-")
                && value
                    .split_ascii_whitespace()
                    .any(|t| DRAG_CLASSES.contains(&t))
        }
        _ => false,
    });
    if marked {
        return true;
    }
    let grabs = |id: NodeId| {
        page.layout(id)
            .style
            .as_ref()
            .is_some_and(|style| matches!(style.cursor.as_str(), "move" | "grab"))
    };
    grabs(id)
        && !page
            .parent(id)
            .is_some_and(|p| page.element(p).is_some() && grabs(p))
}

/// `<html>`, `<body>`, or a box covering ≥ 90% of the viewport on both axes.
fn is_page_container(page: &Page, element: &Element, id: NodeId) -> bool {
    if element.is("html") || element.is("body") {
        return true;
    }
    page.layout(id).bounds.is_some_and(|bounds| {
        page.has_layout
            && bounds.width >= 0.9 * page.viewport.width
            && bounds.height >= 0.9 * page.viewport.height
    })
}

fn has_pointer(page: &Page, id: NodeId) -> bool {
    page.layout(id)
        .style
        .as_ref()
        .is_some_and(|style| style.cursor == "pointer")
}

/// `cursor: pointer` here and not on the parent element (crossing shadow roots,
/// through which `cursor` inherits; not out of an iframe document).
fn starts_pointer_subtree(page: &Page, id: NodeId) -> bool {
    if !has_pointer(page, id) {
        return false;
    }
    let mut parent = page.parent(id);
    while let Some(p) = parent {
        match page.node(p) {
            Node::Element(_) => return !has_pointer(page, p),
            Node::ShadowRoot(_) => parent = page.parent(p),
            _ => return true,
        }
    }
    true
}
