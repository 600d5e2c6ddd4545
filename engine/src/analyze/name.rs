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

use super::dom::{Dom, input_type};
use super::value::{control_value, masked_control_value, selected_options};
use super::visibility::Hidden;
use super::{Role, Visibility};
use crate::page::{Element, Namespace, Node, NodeId, Page, ShadowMode};
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

/// Why the current node is being visited (accname 1.2 "traversal" context).
#[derive(Clone, Copy, Default)]
struct Opts {
    /// The node whose name is computed (`Some(true)`) or one of its
    /// descendants in a name-from-content walk (`Some(false)`).
    target: Option<bool>,
    /// Inside an `aria-labelledby` traversal; the flag says whether the
    /// directly referenced node was hidden.
    labelledby: Option<bool>,
    /// Inside an `aria-describedby` traversal.
    describedby: Option<bool>,
    /// Inside a `<label>` of the target.
    label: Option<bool>,
    /// Inside a native text alternative element (`legend`, `caption`, …).
    native: Option<bool>,
}

impl Opts {
    fn hidden_root(self) -> bool {
        [self.labelledby, self.describedby, self.label, self.native].contains(&Some(true))
    }

    fn is_descendant(self) -> bool {
        self.target == Some(false)
    }

    /// A name-from-content walk below the target and nothing else: what
    /// such a walk reads depends only on the subtree.
    fn is_plain_descendant(self) -> bool {
        self.is_descendant()
            && self.labelledby.is_none()
            && self.describedby.is_none()
            && self.label.is_none()
            && self.native.is_none()
    }

    fn child(self) -> Opts {
        Opts {
            target: self.target.map(|_| false),
            ..self
        }
    }

    fn embedded(self) -> bool {
        self.label.is_some() || self.labelledby.is_some() || self.is_descendant()
    }
}

/// The winning step of a computation.
#[derive(Clone, Copy)]
struct Found {
    source: NameSource,
    /// A user-agent default, not author text.
    fallback: bool,
}

impl Found {
    const fn new(source: NameSource) -> Found {
        Found {
            source,
            fallback: false,
        }
    }
}

const NONE_FOUND: Found = Found::new(NameSource::Unknown);

struct Namer<'a> {
    page: &'a Page,
    roles: &'a [Option<Role>],
    /// Hidden for the text alternative computation (accname 2A): not
    /// rendered, `visibility: hidden`, `hidden`, `aria-hidden`.
    hidden: Vec<bool>,
    /// Hidden by `visibility: hidden` alone: a descendant may show again.
    invisible: Vec<bool>,
    /// The nearest table-like ancestor is a `grid`/`treegrid` (rows there
    /// are named from content, as in Chromium).
    in_grid: Vec<bool>,
    /// Trees, ids and labels.
    dom: &'a Dom,
    /// Visit stamps: `visited[i] == stamp` when node `i` was visited during
    /// the current top-level computation (accname loop protection).
    visited: Vec<u32>,
    stamp: u32,
    /// Name-from-content text (accname 2F) of elements whose role names
    /// them from content, kept from the first walk that read it: nested
    /// named content (a link in a cell in a cell) is walked once, not once
    /// per enclosing name. Only walks whose result depends on nothing but
    /// the subtree are kept (see `impure`).
    content_memo: Vec<Option<Box<str>>>,
    /// Bumped whenever a walk's result may depend on more than the subtree
    /// it reads: a node found already visited, an IDREF or `<label>`
    /// traversal, slotted light-DOM children. A walk that bumped it is not
    /// kept in `content_memo`.
    impure: u64,
    /// Subtrees (`start..end` in document order) whose content came from
    /// `content_memo` during the current computation: visited as a whole,
    /// as the walk they stand for would have left them.
    reused: Vec<(usize, usize)>,
    /// `impure` when the current computation started: `content_memo` is
    /// read only while nothing impure has happened in it, so every node the
    /// computation visited so far lies outside the subtree being reused.
    impure_at_start: u64,
}

impl<'a> Namer<'a> {
    fn new(
        page: &'a Page,
        dom: &'a Dom,
        roles: &'a [Option<Role>],
        visibility: &[Visibility],
    ) -> Namer<'a> {
        let len = page.len();
        let mut hidden = vec![false; len];
        let mut invisible = vec![false; len];
        // Hidden together with every descendant (not rendered, `hidden`,
        // `aria-hidden`); `visibility: hidden` is not among them: a
        // descendant with `visibility: visible` shows again (CSS 2.2 §11.2).
        let mut subtree_hidden = vec![false; len];
        let mut in_select = vec![false; len];
        let mut in_grid = vec![false; len];
        for id in page.ids() {
            let i = id.index();
            let parent = page.parent(id);
            let inherited_hidden = parent.is_some_and(|p| subtree_hidden[p.index()]);
            // Options of a closed `<select>` have no box, yet they are not
            // hidden for names (Playwright's `isElementHiddenForAria`).
            in_select[i] = parent.is_some_and(|p| {
                in_select[p.index()]
                    || page
                        .element(p)
                        .is_some_and(|e| e.is("select") || e.is("datalist"))
            });
            // Chromium names rows from content only inside a grid or treegrid.
            in_grid[i] = parent.is_some_and(|p| match roles[p.index()] {
                Some("grid" | "treegrid") => true,
                Some("table") => false,
                _ => in_grid[p.index()],
            });
            let reason = visibility
                .get(i)
                .and_then(|v| v.hidden)
                .filter(|_| !in_select[i]);
            let subtree_reason = matches!(
                reason,
                Some(Hidden::NotRendered | Hidden::HiddenAttribute | Hidden::AriaHidden)
            );
            let own = page
                .element(id)
                .is_some_and(|e| hidden_by_attributes(page, e));
            subtree_hidden[i] = inherited_hidden || subtree_reason || own;
            // Text drawn so that no one can read it names nothing. A
            // screen-reader-only label (clipped) still names its control, and
            // so does a label an overlay happens to cover.
            invisible[i] = !subtree_hidden[i]
                && matches!(
                    reason,
                    Some(
                        Hidden::VisibilityHidden | Hidden::Unpainted | Hidden::Tiny | Hidden::Faint
                    )
                );
            hidden[i] = subtree_hidden[i] || invisible[i];
        }
        Namer {
            page,
            roles,
            hidden,
            invisible,
            in_grid,
            dom,
            visited: vec![0; len],
            stamp: 0,
            content_memo: vec![None; len],
            impure: 0,
            reused: Vec::new(),
            impure_at_start: 0,
        }
    }

    fn is_hidden(&self, id: NodeId) -> bool {
        self.hidden[id.index()]
    }

    fn visit(&mut self, id: NodeId) {
        self.visited[id.index()] = self.stamp;
    }

    /// Whether the node was visited during the current computation, itself
    /// or inside a subtree reused from `content_memo`.
    fn was_visited(&self, id: NodeId) -> bool {
        if self.visited[id.index()] == self.stamp {
            return true;
        }
        let i = id.index();
        let at = self.reused.partition_point(|&(start, _)| start <= i);
        at > 0 && i < self.reused[at - 1].1
    }

    /// Records a subtree reused from `content_memo` as visited, keeping
    /// `reused` sorted and disjoint (subtrees nest or are apart, so one
    /// that starts inside the new one lies wholly inside it).
    fn reuse(&mut self, id: NodeId) {
        let (start, end) = (id.index(), self.page.subtree_end(id).index());
        let at = self.reused.partition_point(|&(s, _)| s < start);
        let mut until = at;
        while until < self.reused.len() && self.reused[until].0 < end {
            until += 1;
        }
        self.reused.splice(at..until, [(start, end)]);
    }

    fn next_stamp(&mut self) {
        self.reused.clear();
        self.impure_at_start = self.impure;
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.visited.fill(0);
            self.stamp = 1;
        }
    }

    /// IDREFs resolved in the node's own tree; the first element with each id
    /// wins, duplicates and missing ids are dropped (WAI-ARIA 1.2 §8.6.2).
    fn idrefs(&self, id: NodeId, value: &str) -> Vec<NodeId> {
        let mut out: Vec<NodeId> = Vec::new();
        for token in value.split_ascii_whitespace() {
            if let Some(target) = self.dom.element_by_id(id, token) {
                if !out.contains(&target) {
                    out.push(target);
                }
            }
        }
        out
    }

    fn role(&self, id: NodeId) -> Role {
        self.roles[id.index()].unwrap_or("none")
    }

    /// The accessible name of an element (accname 1.2 §4.3, from step 1).
    fn name(&mut self, id: NodeId) -> AccName {
        self.next_stamp();
        let (text, found) = self.alternative(
            id,
            Opts {
                target: Some(true),
                ..Opts::default()
            },
        );
        let text = flatten(&text);
        let strength = strength(&text, found);
        let source = if text.is_empty() {
            NameSource::Unknown
        } else {
            found.source
        };
        AccName {
            text,
            source,
            strength,
        }
    }

    /// The accessible description (accname 1.2 §4.2 / HTML-AAM §5.7):
    /// `aria-describedby`, then `aria-description`, then `title` unless the
    /// name already used it.
    fn description(&mut self, id: NodeId, name_source: NameSource) -> Option<String> {
        let element = self.page.element(id)?;
        let mut text = String::new();
        if let Some(value) = element.attr("aria-describedby") {
            self.next_stamp();
            let parts: Vec<String> = self
                .idrefs(id, value)
                .into_iter()
                .map(|target| {
                    let hidden = self.is_hidden(target);
                    self.alternative(
                        target,
                        Opts {
                            describedby: Some(hidden),
                            ..Opts::default()
                        },
                    )
                    .0
                })
                .collect();
            text = flatten(&parts.join(" "));
        }
        if text.is_empty() {
            if let Some(value) = element.attr("aria-description") {
                text = flatten(value);
            }
        }
        if text.is_empty() && name_source != NameSource::Title {
            if let Some(value) = element.attr("title") {
                text = flatten(value);
            }
        }
        (!text.is_empty()).then_some(text)
    }

    /// The text alternative of a node (accname 1.2 §4.3.2 step 2).
    fn alternative(&mut self, id: NodeId, opts: Opts) -> (String, Found) {
        let mut out = String::new();
        let found = self.alternative_into(id, opts, &mut out);
        (out, found)
    }

    /// [`Namer::alternative`], appended to `out`: a name-from-content walk
    /// writes every text once into one buffer instead of copying it up
    /// through each ancestor's string.
    fn alternative_into(&mut self, id: NodeId, opts: Opts, out: &mut String) -> Found {
        if self.was_visited(id) {
            self.impure += 1;
            return NONE_FOUND;
        }
        let page = self.page;
        let Some(element) = page.element(id) else {
            return NONE_FOUND;
        };
        // 2A: hidden nodes count only inside a traversal whose root was hidden.
        if is_never_rendered(element) || (!opts.hidden_root() && self.is_hidden(id)) {
            self.visit(id);
            // `visibility: hidden` hides the element's own text, not a
            // descendant that is `visibility: visible` again: Chromium
            // names `<button>Top <span hidden-ish>gone <b visible>back</b></span>`
            // "Top back" (CSS 2.2 §11.2).
            if self.invisible[id.index()] && opts.is_descendant() {
                self.content_into(id, opts, false, out);
            }
            return NONE_FOUND;
        }
        let labelledby = element
            .attr("aria-labelledby")
            .map(|value| self.idrefs(id, value))
            .filter(|refs| !refs.is_empty());
        // 2B: aria-labelledby, unless already inside such a traversal (no
        // chains, so no loops).
        if opts.labelledby.is_none() {
            if let Some(refs) = &labelledby {
                self.impure += 1;
                let parts: Vec<String> = refs
                    .iter()
                    .map(|&target| {
                        let hidden = self.is_hidden(target);
                        self.alternative(
                            target,
                            Opts {
                                labelledby: Some(hidden),
                                ..Opts::default()
                            },
                        )
                        .0
                    })
                    .collect();
                let text = parts.join(" ");
                if !text.trim().is_empty() {
                    out.push_str(&text);
                    return Found::new(NameSource::AriaLabelledby);
                }
            }
        }
        let role = self.role(id);
        // 2C: a control embedded in a label contributes its value.
        let self_referenced = labelledby.as_ref().is_some_and(|refs| refs.contains(&id));
        if opts.embedded() && !self_referenced {
            if let Some(value) = self.embedded_value(id, element, role, opts) {
                self.visit(id);
                out.push_str(&value);
                return Found::new(NameSource::Value);
            }
        }
        // 2D: aria-label.
        if let Some(label) = element.attr("aria-label").filter(|l| !l.trim().is_empty()) {
            self.visit(id);
            out.push_str(label);
            return Found::new(NameSource::AriaLabel);
        }
        let presentational = matches!(role, "none" | "presentation");
        // 2E: host-language label (HTML-AAM §4.1 accessible name computations).
        if !presentational {
            if let Some((text, found)) = self.native(id, element, labelledby.is_some(), opts) {
                out.push_str(&text);
                return found;
            }
        }
        // 2F–2H: name from content.
        let summary = element.is("summary") && !presentational;
        let from_content = if opts.is_descendant() {
            names_from_content(role) || contributes_content(role) || (role == "row")
        } else {
            names_from_content(role) || (role == "row" && self.in_grid[id.index()])
        };
        if from_content
            || summary
            || opts.labelledby.is_some()
            || opts.describedby.is_some()
            || opts.label.is_some()
            || opts.native.is_some()
        {
            self.visit(id);
            let start = out.len();
            // A nested element's walk is kept for when its own name is
            // computed; the target's own walk only reads what was kept.
            self.content_into(id, opts.child(), opts.is_descendant(), out);
            let text = &out[start..];
            let keep = if opts.target == Some(true) {
                !text.trim_start().is_empty()
            } else {
                !text.is_empty()
            };
            if keep {
                return Found::new(NameSource::Text);
            }
            out.truncate(start);
        }
        // 2I: tooltip.
        self.visit(id);
        if !presentational || element.is("iframe") {
            if let Some(title) = element.attr("title").filter(|t| !t.trim().is_empty()) {
                out.push_str(title);
                return Found::new(NameSource::Title);
            }
        }
        NONE_FOUND
    }

    /// accname 2C: the value an embedded control contributes, if it is one.
    fn embedded_value(
        &mut self,
        id: NodeId,
        element: &Element,
        role: Role,
        opts: Opts,
    ) -> Option<String> {
        let page = self.page;
        match role {
            "textbox" | "searchbox" => Some(if element.is("input") || element.is("textarea") {
                // A password field contributes its mask, as Chromium exposes
                // it, never the password itself.
                masked_control_value(page, id, element)
            } else {
                page.text_content(id)
            }),
            "combobox" | "listbox" => {
                let selected: Vec<NodeId> = if element.is("select") {
                    selected_options(page, id)
                } else {
                    let listbox = if role == "listbox" {
                        Some(id)
                    } else {
                        page.subtree(id)
                            .skip(1)
                            .find(|&d| self.roles[d.index()] == Some("listbox"))
                    };
                    listbox.map_or_else(Vec::new, |listbox| {
                        page.subtree(listbox)
                            .filter(|&d| {
                                self.roles[d.index()] == Some("option")
                                    && page
                                        .element(d)
                                        .and_then(|e| e.attr("aria-selected"))
                                        .is_some_and(|v| v.eq_ignore_ascii_case("true"))
                            })
                            .collect()
                    })
                };
                if selected.is_empty() && element.is("input") {
                    return Some(control_value(page, id, element));
                }
                let parts: Vec<String> = selected
                    .into_iter()
                    .map(|option| self.alternative(option, opts.child()).0)
                    .collect();
                Some(parts.join(" "))
            }
            "progressbar" | "scrollbar" | "slider" | "spinbutton" | "meter" => {
                let value = element
                    .attr("aria-valuetext")
                    .or_else(|| element.attr("aria-valuenow"))
                    .map(str::to_owned)
                    .unwrap_or_else(|| control_value(page, id, element));
                Some(value)
            }
            "menu" => Some(String::new()),
            _ => None,
        }
    }

    /// accname 2E for HTML elements (HTML-AAM §4.1), `None` to fall through.
    fn native(
        &mut self,
        id: NodeId,
        element: &Element,
        has_labelledby: bool,
        opts: Opts,
    ) -> Option<(String, Found)> {
        let page = self.page;
        let title = || {
            let title = element.attr("title").unwrap_or("").to_owned();
            (title, Found::new(NameSource::Title))
        };
        if element.ns == Namespace::Svg {
            // SVG-AAM: the first `<title>` child names the element.
            let title_child = page.children(id).find(|&c| {
                page.element(c)
                    .is_some_and(|e| e.ns == Namespace::Svg && e.name == "title")
            })?;
            self.visit(id);
            let hidden = self.is_hidden(title_child);
            let text = self
                .alternative(
                    title_child,
                    Opts {
                        labelledby: Some(hidden),
                        ..opts.child()
                    },
                )
                .0;
            return (!text.trim().is_empty()).then_some((text, Found::new(NameSource::Label)));
        }
        if element.ns != Namespace::Html {
            return None;
        }
        match element.name.as_str() {
            "input" => {
                let kind = input_type(element);
                match kind {
                    // HTML-AAM: value, then the localised default; Chromium and
                    // Firefox apply this even with aria-labelledby present.
                    "button" | "submit" | "reset" => {
                        self.visit(id);
                        let value = control_value(page, id, element);
                        if !value.trim().is_empty() {
                            return Some((value, Found::new(NameSource::Value)));
                        }
                        let default = match kind {
                            "submit" => "Submit",
                            "reset" => "Reset",
                            _ => return Some(title()),
                        };
                        return Some((
                            default.to_owned(),
                            Found {
                                source: NameSource::Value,
                                fallback: true,
                            },
                        ));
                    }
                    "image" => {
                        self.visit(id);
                        if !has_labelledby {
                            if let Some(found) = self.label_text(id) {
                                return Some(found);
                            }
                        }
                        if let Some(alt) = element.attr("alt").filter(|a| !a.trim().is_empty()) {
                            return Some((alt.to_owned(), Found::new(NameSource::Alt)));
                        }
                        if element.attr("title").is_some_and(|t| !t.trim().is_empty()) {
                            return Some(title());
                        }
                        return Some((
                            "Submit".to_owned(),
                            Found {
                                source: NameSource::Value,
                                fallback: true,
                            },
                        ));
                    }
                    "file" => {
                        self.visit(id);
                        if !has_labelledby {
                            if let Some(found) = self.label_text(id) {
                                return Some(found);
                            }
                        }
                        return Some((
                            "Choose File".to_owned(),
                            Found {
                                source: NameSource::Value,
                                fallback: true,
                            },
                        ));
                    }
                    _ => {}
                }
                if has_labelledby {
                    return None;
                }
                self.visit(id);
                self.labelled_control(
                    id,
                    element,
                    matches!(
                        kind,
                        "text" | "password" | "number" | "search" | "tel" | "email" | "url"
                    ),
                )
            }
            "textarea" | "select" if !has_labelledby => {
                self.visit(id);
                self.labelled_control(id, element, element.is("textarea"))
            }
            "button" if !has_labelledby => {
                self.visit(id);
                self.label_text(id)
            }
            "output" | "meter" | "progress" if !has_labelledby => {
                self.visit(id);
                self.label_text(id)
                    .or_else(|| element.is("output").then(title))
            }
            "fieldset" if !has_labelledby => self
                .first_child_caption(id, "legend", opts)
                .or_else(|| Some(title())),
            "figure" if !has_labelledby => self
                .first_child_caption(id, "figcaption", opts)
                .or_else(|| Some(title())),
            "table" => {
                if let Some(found) = self.first_child_caption(id, "caption", opts) {
                    return Some(found);
                }
                // Not in HTML-AAM, but every browser honours `summary`.
                element
                    .attr("summary")
                    .filter(|s| !s.trim().is_empty())
                    .map(|s| (s.to_owned(), Found::new(NameSource::Label)))
            }
            "img" | "area" => {
                self.visit(id);
                if let Some(alt) = element.attr("alt").filter(|a| !a.trim().is_empty()) {
                    return Some((alt.to_owned(), Found::new(NameSource::Alt)));
                }
                Some(title())
            }
            // Chromium's `HTMLOptionElement::DisplayLabel`: the `label`
            // attribute replaces the option's text.
            "option" | "optgroup" => element
                .attr("label")
                .filter(|l| !l.trim().is_empty())
                .map(|l| (l.to_owned(), Found::new(NameSource::Label))),
            _ => None,
        }
    }

    /// HTML-AAM text inputs, `textarea`, `select` and other labelable
    /// elements: labels, then `title`, then `placeholder` where it applies.
    fn labelled_control(
        &mut self,
        id: NodeId,
        element: &Element,
        placeholder: bool,
    ) -> Option<(String, Found)> {
        if let Some(found) = self.label_text(id) {
            return Some(found);
        }
        if let Some(title) = element.attr("title").filter(|t| !t.trim().is_empty()) {
            return Some((title.to_owned(), Found::new(NameSource::Title)));
        }
        if placeholder {
            let value = element
                .attr("placeholder")
                .filter(|p| !p.trim().is_empty())
                .or_else(|| element.attr("aria-placeholder"));
            if let Some(value) = value {
                return Some((value.to_owned(), Found::new(NameSource::Placeholder)));
            }
        }
        Some((String::new(), NONE_FOUND))
    }

    /// The control's associated `<label>`s, joined; `None` when there are
    /// none or they are all empty (Chromium then falls back further).
    fn label_text(&mut self, id: NodeId) -> Option<(String, Found)> {
        let labels = self.dom.labels(id);
        if labels.is_empty() {
            return None;
        }
        self.impure += 1;
        let parts: Vec<String> = labels
            .iter()
            .copied()
            .map(|label| {
                let hidden = self.is_hidden(label);
                self.alternative(
                    label,
                    Opts {
                        label: Some(hidden),
                        ..Opts::default()
                    },
                )
                .0
            })
            .filter(|text| !text.trim().is_empty())
            .collect();
        (!parts.is_empty()).then(|| (parts.join(" "), Found::new(NameSource::Label)))
    }

    /// `fieldset`/`legend`, `figure`/`figcaption`, `table`/`caption`: the
    /// first child of that kind names the element (HTML-AAM §4.1).
    fn first_child_caption(
        &mut self,
        id: NodeId,
        name: &str,
        opts: Opts,
    ) -> Option<(String, Found)> {
        let page = self.page;
        let caption = page
            .children(id)
            .find(|&c| page.element(c).is_some_and(|e| e.is(name)))?;
        self.visit(id);
        let hidden = self.is_hidden(caption);
        let text = self
            .alternative(
                caption,
                Opts {
                    native: Some(hidden),
                    ..opts.child()
                },
            )
            .0;
        (!text.trim().is_empty()).then_some((text, Found::new(NameSource::Label)))
    }

    /// accname 2F: the text of the node's children, in flat-tree order (a
    /// shadow host's shadow tree with slots filled from its light children).
    fn content_into(&mut self, id: NodeId, opts: Opts, keep: bool, out: &mut String) {
        let page = self.page;
        let memo = opts.is_plain_descendant() && names_from_content(self.role(id));
        if memo && self.impure == self.impure_at_start {
            if let Some(text) = &self.content_memo[id.index()] {
                out.push_str(text);
                self.reuse(id);
                return;
            }
        }
        let impure = self.impure;
        let start = out.len();
        let children = self.flat_children(id);
        for child in children {
            match page.node(child) {
                Node::Text(text) if opts.hidden_root() || !self.is_hidden(child) => {
                    out.push_str(text)
                }
                Node::Element(element) => {
                    // Inline elements join without a space; others, and
                    // `<br>`, are separated (Playwright's and Chromium's
                    // reading of accname 2F.iii). A `<slot>` is
                    // `display: contents`, not inline: its nodes are set
                    // apart ("Say <slot>Light text</slot>!" is "Say Light text !").
                    if element.is("br")
                        || element.is("slot")
                        || !self.dom.display(child).is_inline()
                    {
                        out.push(' ');
                        self.alternative_into(child, opts, out);
                        out.push(' ');
                    } else {
                        self.alternative_into(child, opts, out);
                    }
                }
                _ => {}
            }
        }
        if memo && keep && self.impure == impure {
            self.content_memo[id.index()] = Some(out[start..].into());
        }
    }

    /// The children a name-from-content walk reads, in flat-tree order: a
    /// host's shadow tree, a slot's assigned nodes (else its own children),
    /// and aria-owns applied. Apart from [`Namer::content_into`] to keep its
    /// frame small: deep pages recurse through it.
    #[inline(never)]
    fn flat_children(&mut self, id: NodeId) -> Vec<NodeId> {
        let page = self.page;
        let mut children: Vec<NodeId> = match self.author_shadow_root(id) {
            Some(root) => page.children(root).collect(),
            None => {
                if page.element(id).is_some_and(|e| e.is("slot")) {
                    let assigned = self.assigned_nodes(id);
                    if assigned.is_empty() {
                        page.children(id).collect()
                    } else {
                        // Light-DOM children lie outside the slot's subtree.
                        self.impure += 1;
                        assigned
                    }
                } else {
                    page.children(id).collect()
                }
            }
        };
        if self.dom.has_owns() {
            // aria-owns: owned elements leave their parent for their owner,
            // after its own children.
            children.retain(|&c| self.dom.owner(c).is_none());
            let owned = self.dom.owned(id);
            if !owned.is_empty() {
                // Content from outside the subtree: not kept for reuse.
                self.impure += 1;
                children.extend_from_slice(owned);
            }
        }
        children
    }

    /// The open or closed shadow root hosted by `id` (user-agent shadow
    /// trees are browser internals and never walked).
    fn author_shadow_root(&self, id: NodeId) -> Option<NodeId> {
        self.page.children(id).find(|&c| {
            matches!(
                self.page.node(c),
                Node::ShadowRoot(ShadowMode::Open | ShadowMode::Closed)
            )
        })
    }

    /// Light-DOM children of the shadow host that a `<slot>` receives.
    fn assigned_nodes(&self, slot: NodeId) -> Vec<NodeId> {
        let page = self.page;
        let root = self.dom.tree_root(slot);
        if !matches!(page.node(root), Node::ShadowRoot(_)) {
            return Vec::new();
        }
        let Some(host) = page.parent(root) else {
            return Vec::new();
        };
        let name = page
            .element(slot)
            .and_then(|e| e.attr("name"))
            .unwrap_or("");
        page.children(host)
            .filter(|&c| match page.node(c) {
                Node::Element(e) => e.attr("slot").unwrap_or("") == name,
                Node::Text(_) => name.is_empty(),
                _ => false,
            })
            .collect()
    }
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
