//! Roles: implicit roles per HTML-AAM, explicit `role` tokens, presentational conflict resolution.
//!
//! Spelling follows Playwright's `roleUtils.ts` (`img`, `generic`, `none`,
//! `presentation`, …); where Chromium and the specs disagree on *which* role
//! an element has, Chromium wins, because roles are validated against
//! Chromium's own accessibility tree. Chromium spells some roles differently
//! in `Accessibility.getFullAXTree` (`image` for our `img`, `LabelText` for a
//! `<label>` we call `generic`, …); [`chromium_role_matches`] knows those.
//!
//! Deliberate choices:
//! - Elements without a specific implicit role (`div`, `span`, `label`, `a`
//!   without `href` or click listener, unnamed `section`/`form`, …) are `generic`, not `None`:
//!   `None` means "not in the accessibility tree at all" (`head`, `script`,
//!   `template`, `<input type=hidden>`, …).
//! - `<img alt="">` is `presentation` (HTML-AAM; Chromium ignores it), unless
//!   it has a `title`, a global ARIA attribute or a `tabindex`.
//! - The first `<summary>` of a `<details>` is `button` (Chromium's
//!   `DisclosureTriangle`, Firefox's push button): it is the toggle.
//! - `<section>` and `<form>` are `region` / `form` only with an author name
//!   (`aria-label`, `aria-labelledby`, `title`), as Chromium does.
//! - `<aside>` inside sectioning content without a name is `generic`
//!   (HTML-AAM `aside` scoping; Chromium follows it).
//! - SVG descendants of an `<svg>` root and MathML descendants of `<math>` get
//!   no role unless they carry an explicit one (children presentational).

use super::dom::{Dom, has_input_type, input_type, tabindex};
use crate::page::{Element, Namespace, Node, NodeId, Page};

/// An ARIA role name as Chromium and Playwright spell it (`button`, `generic`, `heading`, …).
///
/// Chromium's `Accessibility.getFullAXTree` differs in spelling for a few
/// roles; see [`chromium_role_matches`].
pub type Role = &'static str;

/// Every non-abstract WAI-ARIA 1.2 role (plus `mark`, `suggestion`, `comment`
/// and `image`, which Chromium also accepts). Sorted for binary search.
const VALID_ROLES: &[&str] = &[
    "alert",
    "alertdialog",
    "application",
    "article",
    "banner",
    "blockquote",
    "button",
    "caption",
    "cell",
    "checkbox",
    "code",
    "columnheader",
    "combobox",
    "comment",
    "complementary",
    "contentinfo",
    "definition",
    "deletion",
    "dialog",
    "directory",
    "document",
    "emphasis",
    "feed",
    "figure",
    "form",
    "generic",
    "grid",
    "gridcell",
    "group",
    "heading",
    "image",
    "img",
    "insertion",
    "link",
    "list",
    "listbox",
    "listitem",
    "log",
    "main",
    "mark",
    "marquee",
    "math",
    "menu",
    "menubar",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "meter",
    "navigation",
    "none",
    "note",
    "option",
    "paragraph",
    "presentation",
    "progressbar",
    "radio",
    "radiogroup",
    "region",
    "row",
    "rowgroup",
    "rowheader",
    "scrollbar",
    "search",
    "searchbox",
    "separator",
    "slider",
    "spinbutton",
    "status",
    "strong",
    "subscript",
    "suggestion",
    "superscript",
    "switch",
    "tab",
    "table",
    "tablist",
    "tabpanel",
    "term",
    "textbox",
    "time",
    "timer",
    "toolbar",
    "tooltip",
    "tree",
    "treegrid",
    "treeitem",
];

/// Whether `token` is a valid, non-abstract ARIA role (ASCII case-insensitive,
/// as Chromium matches `role` tokens).
pub fn is_valid_role(token: &str) -> bool {
    canonical_role(token).is_some()
}

/// The static spelling of a valid role token; `image` is folded into `img`
/// (ARIA 1.3 synonym).
fn canonical_role(token: &str) -> Option<Role> {
    if token.is_empty() || token.len() > 20 {
        return None;
    }
    let lower = token.to_ascii_lowercase();
    let index = VALID_ROLES.binary_search(&lower.as_str()).ok()?;
    let role = VALID_ROLES[index];
    Some(if role == "image" { "img" } else { role })
}

/// The first valid token of the element's `role` attribute (WAI-ARIA 1.2
/// §8.1 "Handling author errors": invalid and abstract tokens are skipped).
pub(crate) fn explicit_role(element: &Element) -> Option<Role> {
    element
        .attr("role")?
        .split_ascii_whitespace()
        .find_map(canonical_role)
}

/// Whether a role from Chromium's `Accessibility.getFullAXTree` is a text
/// node's (`StaticText`) or a line of one (`InlineTextBox`). Their names are
/// the text itself, which a recording already holds in its nodes, and no
/// element matches them: the capture keeps such a node without its name
/// (20 MB of text was otherwise stored three times) and `validate` leaves it
/// out.
pub fn is_chromium_text_role(chromium: &str) -> bool {
    matches!(chromium, "StaticText" | "InlineTextBox")
}

/// Whether a role name from Chromium's `Accessibility.getFullAXTree`
/// (`role.value`) denotes the same role as ours.
///
/// Spelling differences: Chromium's `image` is our `img`; internal roles
/// (`LabelText`, `Legend`, `Figcaption`, `Abbr`, `Pre`, `Section`,
/// `SectionWithoutName`, `DescriptionList`, `Iframe`, `Canvas`, `Video`,
/// `Audio`, `LineBreak`, `Ruby`, `sectionheader`/`sectionfooter`, …) are
/// containers we call `generic`; `LayoutTable*` are its table roles for
/// layout tables; `MenuListOption`/`ListBoxOption` are options,
/// `DisclosureTriangle` is the `<summary>` we call `button`; `RootWebArea`
/// and `WebArea` are the document; `Date`, `DateTime`, `InputTime`,
/// `ColorWell` are inputs we (like Playwright) call `textbox`; `none` and
/// `presentation` are one role. `StaticText`, `InlineTextBox` and
/// `ListMarker` have no element counterpart and never match.
pub fn chromium_role_matches(ours: Role, chromium: &str) -> bool {
    if ours.eq_ignore_ascii_case(chromium) {
        return true;
    }
    let chromium = chromium.to_ascii_lowercase();
    let chromium = chromium.as_str();
    match ours {
        "img" => matches!(
            chromium,
            "image" | "svgroot" | "graphics-document" | "graphics-symbol"
        ),
        "none" | "presentation" => matches!(chromium, "none" | "presentation" | "ignored"),
        "generic" => matches!(
            chromium,
            "genericcontainer"
                | "section"
                | "sectionwithoutname"
                | "sectionheader"
                | "sectionfooter"
                | "header"
                | "footer"
                | "labeltext"
                | "legend"
                | "figcaption"
                | "abbr"
                | "pre"
                | "div"
                | "descriptionlist"
                | "iframe"
                | "iframepresentational"
                | "canvas"
                | "video"
                | "audio"
                | "embeddedobject"
                | "pluginobject"
                | "linebreak"
                | "ruby"
                | "rubyannotation"
                | "none"
                | "unknown"
        ),
        "region" => matches!(chromium, "section"),
        "table" => matches!(chromium, "layouttable"),
        "row" => matches!(chromium, "layouttablerow"),
        "cell" => matches!(chromium, "layouttablecell" | "gridcell"),
        "gridcell" => matches!(chromium, "cell"),
        "option" => matches!(chromium, "menulistoption" | "listboxoption"),
        "listbox" => matches!(chromium, "menulistpopup"),
        "button" => matches!(
            chromium,
            "disclosuretriangle" | "disclosuretrianglegrouped" | "togglebutton" | "popupbutton"
        ),
        "combobox" => matches!(
            chromium,
            "comboboxselect" | "comboboxmenubutton" | "textfieldwithcombobox" | "popupbutton"
        ),
        "document" => matches!(chromium, "rootwebarea" | "webarea"),
        "textbox" => matches!(
            chromium,
            "date" | "datetime" | "inputtime" | "colorwell" | "textfield"
        ),
        "term" => matches!(chromium, "descriptionlistterm"),
        "definition" => matches!(chromium, "descriptionlistdetail"),
        "list" => matches!(chromium, "descriptionlist"),
        "math" => matches!(chromium, "mathmlmath"),
        "progressbar" => matches!(chromium, "progressindicator"),
        "radio" => matches!(chromium, "radiobutton"),
        "checkbox" => matches!(chromium, "checkbox"),
        _ => false,
    }
}

/// Context a node hands down to its descendants, so context-dependent roles
/// need no ancestor walks.
#[derive(Clone, Copy, Default)]
struct Scope {
    /// Inside `article`, `aside`, `nav`, `section` or their roles (HTML-AAM
    /// `header`/`footer`/`aside` scoping).
    sectioning: bool,
    /// Inside `main` or `role=main` (scopes `header`/`footer` only).
    main: bool,
    /// The nearest `<table>` has an explicit `grid`/`treegrid` role.
    grid: bool,
    /// Inside an `<svg>` root.
    svg: bool,
    /// Inside `<math>`.
    math: bool,
    /// Inside a non-rendered element (`head`, `template`, `noscript`, …).
    inert: bool,
}

/// Elements that are never rendered and never in the accessibility tree.
fn is_metadata(name: &str) -> bool {
    matches!(
        name,
        "head"
            | "title"
            | "meta"
            | "link"
            | "base"
            | "script"
            | "style"
            | "template"
            | "noscript"
            | "param"
            | "source"
            | "track"
    )
}

/// Role per node, and whether it is the author's (taken from the `role` attribute).
pub(crate) fn compute(page: &Page, dom: &Dom) -> (Vec<Option<Role>>, Vec<bool>) {
    let mut roles: Vec<Option<Role>> = vec![None; page.len()];
    let mut explicit = vec![false; page.len()];
    let mut scopes = vec![Scope::default(); page.len()];
    for id in page.ids() {
        let inherited = page
            .parent(id)
            .map(|p| scopes[p.index()])
            .unwrap_or_default();
        let element = match page.node(id) {
            Node::Element(element) => element,
            // An iframe document starts a fresh scope (`closest()` does not
            // cross documents); shadow roots and text inherit.
            Node::Document { .. } => {
                scopes[id.index()] = Scope::default();
                continue;
            }
            _ => {
                scopes[id.index()] = inherited;
                continue;
            }
        };
        let parent_role = page.parent(id).and_then(|p| roles[p.index()]);
        let role = element_role(page, id, element, inherited, parent_role, dom);
        roles[id.index()] = role;
        explicit[id.index()] =
            role.is_some() && element.has_attr("role") && explicit_role(element) == role;
        scopes[id.index()] = child_scope(element, role, inherited);
    }
    (roles, explicit)
}

fn child_scope(element: &Element, role: Option<Role>, mut scope: Scope) -> Scope {
    if element.ns == Namespace::Svg && element.name == "svg" {
        scope.svg = true;
    }
    if element.ns == Namespace::MathMl && element.name == "math" {
        scope.math = true;
    }
    if element.ns != Namespace::Html {
        return scope;
    }
    if is_metadata(&element.name) {
        scope.inert = true;
    }
    let explicit = element.has_attr("role");
    let by_tag = !explicit
        && matches!(
            element.name.as_str(),
            "article" | "aside" | "nav" | "section"
        );
    let by_role = explicit
        && matches!(
            role,
            Some("article" | "complementary" | "navigation" | "region")
        );
    if by_tag || by_role {
        scope.sectioning = true;
    }
    if (!explicit && element.name == "main") || (explicit && role == Some("main")) {
        scope.main = true;
    }
    if element.name == "table" {
        scope.grid = matches!(explicit_role(element), Some("grid" | "treegrid"));
    }
    scope
}

fn element_role(
    page: &Page,
    id: NodeId,
    element: &Element,
    scope: Scope,
    parent_role: Option<Role>,
    dom: &Dom,
) -> Option<Role> {
    if scope.inert {
        return None;
    }
    match element.ns {
        Namespace::Svg => {
            let explicit = explicit_role(element);
            if element.name == "svg" && !scope.svg {
                return Some(match explicit {
                    Some("none" | "presentation") if has_global_aria(element, Some("img")) => "img",
                    Some(role) => role,
                    None => "img",
                });
            }
            return explicit
                .or_else(|| (element.name == "a" && has_href(element)).then_some("link"));
        }
        Namespace::MathMl => {
            if element.name == "math" && !scope.math {
                return Some(explicit_role(element).unwrap_or("math"));
            }
            return explicit_role(element);
        }
        Namespace::Html => {}
    }
    if is_metadata(&element.name) {
        return None;
    }
    if element.name == "input" && has_input_type(element, "hidden") {
        return None;
    }
    let implicit = || implicit_role(page, id, element, scope, dom);
    match explicit_role(element) {
        // WAI-ARIA 1.2 §9.2 presentational role conflict resolution: a
        // focusable element or one with a global ARIA attribute keeps its
        // implicit role.
        Some(presentational @ ("none" | "presentation")) => {
            let implicit = implicit();
            if is_focusable(page, id, element) || has_global_aria(element, Some(implicit)) {
                Some(implicit)
            } else {
                Some(presentational)
            }
        }
        Some(role) => Some(role),
        None => {
            // WAI-ARIA 1.2 §9.2: required owned elements of a presentational
            // table or list (`tr`, `td`, `li`, `dt`, …) inherit it.
            if let Some(inherited @ ("none" | "presentation")) = parent_role {
                let parent_name = page
                    .parent(id)
                    .and_then(|p| page.element(p))
                    .map_or("", |e| e.name.as_str());
                if inherits_presentation(&element.name, parent_name) {
                    return Some(inherited);
                }
            }
            Some(implicit())
        }
    }
}

/// `kPresentationInheritanceParents` in Playwright: the child/parent pairs
/// through which a presentational role propagates.
fn inherits_presentation(child: &str, parent: &str) -> bool {
    match child {
        "dd" | "dt" => matches!(parent, "dl" | "div"),
        "div" => parent == "dl",
        "li" => matches!(parent, "ol" | "ul" | "menu"),
        "tbody" | "thead" | "tfoot" | "caption" => parent == "table",
        "td" | "th" => parent == "tr",
        "tr" => matches!(parent, "thead" | "tbody" | "tfoot" | "table"),
        _ => false,
    }
}

fn has_href(element: &Element) -> bool {
    element.has_attr("href") || element.has_attr("xlink:href")
}

/// A name from an author attribute (`aria-label`, `aria-labelledby`, `title`):
/// what Chromium requires before exposing `section` as `region` and `form` as
/// `form` (HTML-AAM: "if the element has an accessible name").
fn has_author_name(element: &Element) -> bool {
    ["aria-label", "aria-labelledby", "title"]
        .iter()
        .any(|attr| element.attr(attr).is_some_and(|v| !v.trim().is_empty()))
}

fn implicit_role(page: &Page, id: NodeId, element: &Element, scope: Scope, dom: &Dom) -> Role {
    match element.name.as_str() {
        "a" | "area" if has_href(element) => "link",
        // Chromium (`ax_node_object.cc`): an anchor without `href` but with a
        // click listener is still exposed as a link.
        "a" if page.layout(id).clickable => "link",
        "a" | "area" => "generic",
        "article" => "article",
        "aside" => {
            if scope.sectioning && !has_author_name(element) {
                "generic"
            } else {
                "complementary"
            }
        }
        "blockquote" => "blockquote",
        "button" => "button",
        "caption" => "caption",
        "code" => "code",
        "datalist" => "listbox",
        "dd" => "definition",
        "del" | "s" => "deletion",
        "details" => "group",
        "dfn" | "dt" => "term",
        "dialog" => "dialog",
        "em" => "emphasis",
        "fieldset" | "optgroup" => "group",
        "figure" => "figure",
        "footer" => {
            if scope.sectioning || scope.main {
                "generic"
            } else {
                "contentinfo"
            }
        }
        "form" if has_author_name(element) => "form",
        "form" => "generic",
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => "heading",
        "header" => {
            if scope.sectioning || scope.main {
                "generic"
            } else {
                "banner"
            }
        }
        "hr" => "separator",
        "html" => "document",
        "img" => {
            let decorative = element.attr("alt") == Some("")
                && element.attr("title").is_none_or(str::is_empty)
                && !has_global_aria(element, None)
                && tabindex(element).is_none();
            if decorative { "presentation" } else { "img" }
        }
        "input" => input_role(page, id, element, dom),
        "ins" => "insertion",
        "li" => "listitem",
        "main" => "main",
        "mark" => "mark",
        "math" => "math",
        "menu" | "ol" | "ul" => "list",
        "meter" => "meter",
        "nav" => "navigation",
        "option" => "option",
        "output" => "status",
        "p" => "paragraph",
        "progress" => "progressbar",
        "search" => "search",
        "section" if has_author_name(element) => "region",
        "section" => "generic",
        "select" => {
            let size = element
                .attr("size")
                .and_then(|s| s.trim().parse::<u32>().ok());
            if element.has_attr("multiple") || size.is_some_and(|s| s > 1) {
                "listbox"
            } else {
                "combobox"
            }
        }
        "strong" => "strong",
        "sub" => "subscript",
        "summary" if is_details_summary(page, id) => "button",
        "summary" => "generic",
        "sup" => "superscript",
        "svg" => "img",
        "table" => "table",
        "tbody" | "thead" | "tfoot" => "rowgroup",
        "td" => {
            if scope.grid {
                "gridcell"
            } else {
                "cell"
            }
        }
        "textarea" => "textbox",
        "th" => header_cell_role(page, id, element),
        "time" => "time",
        "tr" => "row",
        _ => "generic",
    }
}

fn input_role(page: &Page, id: NodeId, element: &Element, dom: &Dom) -> Role {
    match input_type(element) {
        kind @ ("text" | "email" | "tel" | "url" | "search") => {
            // HTML: an input whose `list` names a `<datalist>` is a combobox.
            let has_list = element.attr("list").is_some_and(|list| {
                dom.element_by_id(id, list.trim())
                    .and_then(|target| page.element(target))
                    .is_some_and(|target| target.is("datalist"))
            });
            if has_list {
                "combobox"
            } else if kind == "search" {
                "searchbox"
            } else {
                "textbox"
            }
        }
        "checkbox" => "checkbox",
        "radio" => "radio",
        "range" => "slider",
        "number" => "spinbutton",
        // File inputs render as buttons and every browser exposes them so.
        "button" | "submit" | "reset" | "image" | "file" => "button",
        _ => "textbox",
    }
}

/// Whether a `<summary>` is its parent `<details>`'s first summary child,
/// the one that acts as the disclosure toggle (HTML §4.11.2).
pub(crate) fn is_details_summary(page: &Page, id: NodeId) -> bool {
    let Some(parent) = page.parent(id) else {
        return false;
    };
    if !page.element(parent).is_some_and(|e| e.is("details")) {
        return false;
    }
    page.children(parent)
        .find(|&child| page.element(child).is_some_and(|e| e.is("summary")))
        == Some(id)
}

/// `th`: `scope` decides; otherwise Chromium's neighbour heuristic
/// (`ax_node_object.cc`, mirrored by Playwright).
fn header_cell_role(page: &Page, id: NodeId, element: &Element) -> Role {
    match element
        .attr("scope")
        .map(|s| s.trim().to_ascii_lowercase())
        .as_deref()
    {
        Some("col" | "colgroup") => return "columnheader",
        Some("row" | "rowgroup") => return "rowheader",
        _ => {}
    }
    let next = sibling_element(page, id, true);
    let prev = sibling_element(page, id, false);
    let is_th = |s: Option<NodeId>| s.and_then(|s| page.element(s)).is_some_and(|e| e.is("th"));
    let is_data = |s: Option<NodeId>| {
        s.is_some_and(|s| {
            page.element(s).is_some_and(|e| e.is("td"))
                && (!page.text_content(s).trim().is_empty()
                    || page.children(s).any(|c| page.element(c).is_some()))
        })
    };
    if next.is_none() && prev.is_none() {
        // A lone header in a one-row table heads nothing: Chromium gives it no
        // header role; we keep it a plain cell.
        if let Some(row) = page
            .parent(id)
            .filter(|&r| page.element(r).is_some_and(|e| e.is("tr")))
        {
            if let Some(table) = page
                .ancestors(row)
                .find(|&a| page.element(a).is_some_and(|e| e.is("table")))
            {
                if table_row_count(page, table) <= 1 {
                    return "cell";
                }
            }
        }
        return "columnheader";
    }
    if is_th(next) && is_th(prev) {
        return "columnheader";
    }
    if is_data(next) || is_data(prev) {
        return "rowheader";
    }
    "columnheader"
}

fn sibling_element(page: &Page, id: NodeId, forward: bool) -> Option<NodeId> {
    let mut current = id;
    loop {
        current = if forward {
            page.next_sibling(current)?
        } else {
            page.prev_sibling(current)?
        };
        if page.element(current).is_some() {
            return Some(current);
        }
    }
}

/// `HTMLTableElement.rows`: rows that are children of the table or of its
/// row groups.
fn table_row_count(page: &Page, table: NodeId) -> usize {
    let is = |id: NodeId, name: &str| page.element(id).is_some_and(|e| e.is(name));
    page.children(table)
        .map(|child| {
            if is(child, "tr") {
                1
            } else if is(child, "thead") || is(child, "tbody") || is(child, "tfoot") {
                page.children(child).filter(|&row| is(row, "tr")).count()
            } else {
                0
            }
        })
        .sum()
}

/// Global ARIA attributes (WAI-ARIA 1.2 §6.4), minus those deprecated as
/// global in 1.2; `aria-label(ledby)` do not count for roles that prohibit
/// naming (Playwright's `kGlobalAriaAttributes`).
pub(crate) fn has_global_aria(element: &Element, role: Option<Role>) -> bool {
    const NAMING_PROHIBITED: &[&str] = &[
        "caption",
        "code",
        "deletion",
        "emphasis",
        "generic",
        "insertion",
        "paragraph",
        "presentation",
        "strong",
        "subscript",
        "superscript",
    ];
    const GLOBAL: &[&str] = &[
        "aria-atomic",
        "aria-busy",
        "aria-controls",
        "aria-current",
        "aria-describedby",
        "aria-details",
        "aria-dropeffect",
        "aria-flowto",
        "aria-grabbed",
        "aria-hidden",
        "aria-keyshortcuts",
        "aria-live",
        "aria-owns",
        "aria-relevant",
    ];
    let role = role.unwrap_or("");
    element.attrs.iter().any(|(key, _)| {
        let key = key.as_str();
        GLOBAL.contains(&key)
            || (matches!(key, "aria-label" | "aria-labelledby")
                && !NAMING_PROHIBITED.contains(&role))
            || (key == "aria-roledescription" && role != "generic")
    })
}

/// Focusable per HTML: natively focusable controls and links, `tabindex`,
/// `contenteditable`; never when natively disabled.
fn is_focusable(page: &Page, id: NodeId, element: &Element) -> bool {
    if natively_disabled(page, id, element) {
        return false;
    }
    let native = match element.name.as_str() {
        "button" | "select" | "textarea" | "iframe" => true,
        "a" | "area" => element.has_attr("href"),
        "input" => input_type(element) != "hidden",
        "summary" => is_details_summary(page, id),
        _ => false,
    };
    native
        || tabindex(element).is_some()
        || element
            .attr("contenteditable")
            .is_some_and(|v| !v.eq_ignore_ascii_case("false"))
}

/// Disabled form controls (HTML §4.10.18.5 "actually disabled"), checked by
/// walking ancestors; for the rare elements that need it during role
/// computation. `states.rs` propagates the same facts linearly.
fn natively_disabled(page: &Page, id: NodeId, element: &Element) -> bool {
    if !matches!(
        element.name.as_str(),
        "button" | "input" | "select" | "textarea" | "option" | "optgroup" | "fieldset"
    ) {
        return false;
    }
    if element.has_attr("disabled") {
        return true;
    }
    let mut child = id;
    for ancestor in page.ancestors(id) {
        let Some(parent) = page.element(ancestor) else {
            break;
        };
        if parent.is("optgroup") && element.is("option") && parent.has_attr("disabled") {
            return true;
        }
        if parent.is("fieldset") && parent.has_attr("disabled") {
            let first_legend = page
                .children(ancestor)
                .find(|&c| page.element(c).is_some_and(|e| e.is("legend")));
            if first_legend != Some(child) {
                return true;
            }
        }
        child = ancestor;
    }
    false
}
