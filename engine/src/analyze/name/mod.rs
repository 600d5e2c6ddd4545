//! Accessible names and descriptions per accname 1.2 and HTML-AAM, with their source and strength.
//!
//! The traversal follows the accname 1.2 computation steps (2A hidden, 2B
//! `aria-labelledby`, 2C embedded controls, 2D `aria-label`, 2E host-language
//! labels, 2F/2G/2H name from content, 2I tooltip), with the browser
//! deviations Playwright's `roleUtils.ts` documents and Chromium's
//! `SupportsNameFromContents` lists (which roles give or contribute content).
//! CSS generated content is read as the text nodes a recording places it in
//! (`::before` first, `::after` last); `aria-owns` moves the owned elements
//! after the owner's own children.

mod namer;
mod native;

use self::namer::{Found, Namer};
use super::dom::Dom;
use super::{Role, Visibility};
use crate::page::{Element, Namespace, Page};
use serde::{Deserialize, Serialize};

/// Where a name came from. Serialised, and printed, as the kebab-case word
/// (`aria-label`, `placeholder`, `unknown`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum NameSource {
    /// Name from content.
    Text,
    /// `aria-label`.
    AriaLabel,
    /// `aria-labelledby`.
    AriaLabelledby,
    /// A native label: `<label>`, `<legend>`, `<caption>`, `<figcaption>`,
    /// an SVG `<title>`, an `<option>`/`<optgroup>` `label` attribute.
    Label,
    /// `title`.
    Title,
    /// `placeholder` (or `aria-placeholder`).
    Placeholder,
    /// `alt`.
    Alt,
    /// A button's `value` or a default label (`Submit`, `Reset`).
    Value,
    /// No name.
    #[default]
    Unknown,
}

impl NameSource {
    /// The word for the source in meta and text.
    pub fn as_str(self) -> &'static str {
        match self {
            NameSource::Text => "text",
            NameSource::AriaLabel => "aria-label",
            NameSource::AriaLabelledby => "aria-labelledby",
            NameSource::Label => "label",
            NameSource::Title => "title",
            NameSource::Placeholder => "placeholder",
            NameSource::Alt => "alt",
            NameSource::Value => "value",
            NameSource::Unknown => "unknown",
        }
    }
}

impl std::fmt::Display for NameSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How far a name can be trusted for exact claims (aimount `nameStatus`).
///
/// Rules, applied to the final whitespace-normalised name:
/// - [`Strength::Unknown`]: the name is empty.
/// - [`Strength::Weak`]: the source is a fallback — `title`, `placeholder`,
///   or a user-agent default label (`Submit`, `Reset`, `Choose File`) — or
///   the name carries no information whatever its source: a single
///   character, or no alphabetic character at all (only digits, punctuation,
///   symbols, emoji, or icon-font glyphs from the Private Use Area).
/// - [`Strength::Strong`]: everything else — `aria-labelledby`,
///   `aria-label`, native labels, `alt`, an author-given button `value`, and
///   name from content.
///
/// Serialised, and printed, as `strong`, `weak` or `unknown`.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Strength {
    /// Author-given, specific.
    Strong,
    /// A fallback source (title, placeholder, …) or a name that says little.
    Weak,
    /// No name.
    #[default]
    Unknown,
}

impl Strength {
    /// The word for the strength in meta and text.
    pub fn as_str(self) -> &'static str {
        match self {
            Strength::Strong => "strong",
            Strength::Weak => "weak",
            Strength::Unknown => "unknown",
        }
    }
}

impl std::fmt::Display for Strength {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A computed accessible name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccName {
    /// The name, whitespace-normalised.
    pub text: String,
    /// Its source.
    pub source: NameSource,
    /// Its strength.
    pub strength: Strength,
}

/// Names and descriptions per node.
///
/// Every element whose role is not `generic`, `none`/`presentation` or one
/// that prohibits naming (WAI-ARIA 1.2 §5.2.8.6: `caption`, `code`,
/// `paragraph`, …) gets `Some` name, possibly empty with
/// [`NameSource::Unknown`]. A `generic` or name-prohibited element gets
/// `Some` only when an author named it — `aria-labelledby`, `aria-label`, or
/// `title` on `<abbr>` and `<iframe>`, never its content — as Chromium
/// exposes such names (`<div aria-label="Close dialog" onclick>`, `<abbr
/// title>`); everything else gets `None`.
pub(crate) fn compute(
    page: &Page,
    dom: &Dom,
    roles: &[Option<Role>],
    visibility: &[Visibility],
) -> (Vec<Option<AccName>>, Vec<Option<String>>) {
    let mut namer = Namer::new(page, dom, roles, visibility);
    let mut names = vec![None; page.len()];
    let mut descriptions = vec![None; page.len()];
    for id in page.ids() {
        let Some(role) = roles[id.index()] else {
            continue;
        };
        let Some(element) = page.element(id) else {
            continue;
        };
        if prohibits_name(role) {
            // `title` names only the elements Chromium gives a role of
            // their own (`Abbr`, `Iframe`): on a `<span>` or `<time>` it is
            // a tooltip, not a name (measured on the corpus).
            let authored = !matches!(role, "none" | "presentation")
                && (element.has_attr("aria-label")
                    || element.has_attr("aria-labelledby")
                    || ((element.is("abbr") || element.is("iframe")) && element.has_attr("title")));
            if !authored {
                continue;
            }
            // Names from content stay off (2F applies to none of these roles).
            let name = namer.name(id);
            if name.source != NameSource::Unknown {
                descriptions[id.index()] = namer.description(id, name.source);
                names[id.index()] = Some(name);
            }
            continue;
        }
        let name = namer.name(id);
        descriptions[id.index()] = namer.description(id, name.source);
        names[id.index()] = Some(name);
    }
    (names, descriptions)
}

/// Roles whose name is prohibited or never computed (WAI-ARIA 1.2 "Name
/// From: prohibited", plus `generic`/`none`).
fn prohibits_name(role: Role) -> bool {
    matches!(
        role,
        "generic"
            | "none"
            | "presentation"
            | "caption"
            | "code"
            | "definition"
            | "deletion"
            | "emphasis"
            | "insertion"
            | "mark"
            | "paragraph"
            | "strong"
            | "subscript"
            | "suggestion"
            | "superscript"
            | "time"
    )
}

/// Roles that take their own name from content (accname 1.2 step 2F;
/// Chromium `SupportsNameFromContents(recursive = false)`).
fn names_from_content(role: Role) -> bool {
    matches!(
        role,
        "button"
            | "cell"
            | "checkbox"
            | "columnheader"
            | "gridcell"
            | "heading"
            | "link"
            | "menuitem"
            | "menuitemcheckbox"
            | "menuitemradio"
            | "option"
            | "radio"
            | "rowheader"
            | "switch"
            | "tab"
            | "term"
            | "tooltip"
            | "treeitem"
    )
}

/// Roles that contribute their content to an ancestor's name but have none
/// of their own (Chromium `SupportsNameFromContents(recursive = true)`; the
/// roles it lists as "never" — landmarks, `group`, `table`s of data,
/// `term`, widgets with values — are absent).
fn contributes_content(role: Role) -> bool {
    matches!(
        role,
        "generic"
            | "none"
            | "presentation"
            | "caption"
            | "code"
            | "definition"
            | "deletion"
            | "emphasis"
            | "insertion"
            | "list"
            | "listitem"
            | "mark"
            | "paragraph"
            | "region"
            | "row"
            | "rowgroup"
            | "strong"
            | "subscript"
            | "superscript"
            | "table"
            | "time"
            | "math"
    )
}

/// Hidden with its whole subtree by attributes alone: `aria-hidden="true"` on
/// any page, plus the `hidden` attribute and inline `display:none` on pages
/// without layout (recordings report real styles through `Visibility`, which
/// also reads inline `visibility` on pages without layout).
fn hidden_by_attributes(page: &Page, element: &Element) -> bool {
    if element
        .attr("aria-hidden")
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
    {
        return true;
    }
    if page.has_layout {
        return false;
    }
    if element.has_attr("hidden") {
        return true;
    }
    element.attr("style").is_some_and(|style| {
        let style: String = style.to_ascii_lowercase().split_whitespace().collect();
        style.contains("display:none")
    })
}

/// Elements excluded from every text alternative (Playwright's
/// `isElementIgnoredForAria`).
fn is_never_rendered(element: &Element) -> bool {
    element.ns == Namespace::Html
        && matches!(
            element.name.as_str(),
            "script" | "style" | "noscript" | "template"
        )
}

/// accname "flat string": whitespace runs collapse to one space and the
/// ends are trimmed; zero-width spaces and soft hyphens go; no-break spaces
/// stay (as in Chromium and Playwright).
pub(crate) fn flatten(text: &str) -> String {
    super::whitespace::collapse(text, |c| c.is_whitespace() && c != '\u{a0}')
}

fn is_private_use(c: char) -> bool {
    matches!(c as u32, 0xE000..=0xF8FF | 0xF0000..=0xFFFFD | 0x100000..=0x10FFFD)
}

/// See [`Strength`].
fn strength(text: &str, found: Found) -> Strength {
    if text.is_empty() {
        return Strength::Unknown;
    }
    if found.fallback || matches!(found.source, NameSource::Title | NameSource::Placeholder) {
        return Strength::Weak;
    }
    let meaningful = text.chars().filter(|c| !c.is_whitespace()).count();
    let alphabetic = text
        .chars()
        .any(|c| c.is_alphabetic() && !is_private_use(c));
    if meaningful <= 1 || !alphabetic {
        return Strength::Weak;
    }
    Strength::Strong
}
