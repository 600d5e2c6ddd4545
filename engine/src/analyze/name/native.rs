//! Host-language names (accname 2C, 2E): embedded control values and HTML-AAM/SVG-AAM labels.

use super::NameSource;
use super::namer::{Found, NONE_FOUND, Namer, Opts};
use crate::analyze::Role;
use crate::analyze::dom::input_type;
use crate::analyze::value::{control_value, masked_control_value, selected_options};
use crate::page::{Element, Namespace, NodeId};

impl Namer<'_> {
    /// accname 2C: the value an embedded control contributes, if it is one.
    pub(super) fn embedded_value(
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
    pub(super) fn native(
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
}
