//! Reading CDP's flat per-document `DOMSnapshot` tables: the string table, rare-data tables and per-document lookups.

use std::collections::{HashMap, HashSet};

use chromiumoxide::cdp::browser_protocol::dom_snapshot::{
    DocumentSnapshot, RareBooleanData, RareIntegerData, RareStringData, StringIndex,
};
use pagesnap_engine::recording::{Pseudo, Rect};

use super::{CONTENT, Extras, alternative_text};

pub(super) struct Strings<'a>(pub(super) &'a [String]);

impl Strings<'_> {
    pub(super) fn get(&self, index: &StringIndex) -> &str {
        usize::try_from(*index.inner())
            .ok()
            .and_then(|i| self.0.get(i))
            .map_or("", String::as_str)
    }
}

fn rare_strings<'a>(data: Option<&RareStringData>, strings: &Strings<'a>) -> HashMap<i64, &'a str> {
    let strings: &Strings<'a> = strings;
    data.map(|d| {
        d.index
            .iter()
            .zip(&d.value)
            .map(|(&i, v)| (i, strings.get_static(v)))
            .collect()
    })
    .unwrap_or_default()
}

// `Strings::get` returns a `&str` tied to the table; restate the lifetime for the helper.
impl<'a> Strings<'a> {
    pub(super) fn get_static(&self, index: &StringIndex) -> &'a str {
        usize::try_from(*index.inner())
            .ok()
            .and_then(|i| self.0.get(i))
            .map_or("", String::as_str)
    }
}

fn rare_bools(data: Option<&RareBooleanData>) -> HashSet<i64> {
    data.map(|d| d.index.iter().copied().collect())
        .unwrap_or_default()
}

pub(super) fn rare_ints(data: Option<&RareIntegerData>) -> HashMap<i64, i64> {
    data.map(|d| {
        d.index
            .iter()
            .copied()
            .zip(d.value.iter().copied())
            .collect()
    })
    .unwrap_or_default()
}

/// Per-document lookups, built once.
pub(super) struct Doc<'a> {
    pub(super) snap: &'a DocumentSnapshot,
    /// Shadow root type of the tree each node is in (CDP `shadowRootType`).
    shadow: HashMap<i64, &'a str>,
    pub(super) input_value: HashMap<i64, &'a str>,
    pub(super) text_value: HashMap<i64, &'a str>,
    /// Every pseudo-element; `Some` for `::before`/`::after`.
    pub(super) pseudo: HashMap<i64, Option<Pseudo>>,
    /// The text each `::before`/`::after` generated (its layout entries'
    /// text), or its `content`'s alternative text when it has one.
    pub(super) generated: HashMap<i64, String>,
    pub(super) checked: HashSet<i64>,
    pub(super) selected: HashSet<i64>,
    pub(super) clickable: HashSet<i64>,
    pub(super) content_doc: HashMap<i64, i64>,
    /// Node index → first layout index.
    pub(super) layout_of: HashMap<i64, usize>,
    /// Children in the DOM tree over "virtual" ids: `0..n` are the
    /// snapshot's nodes, `n + k` is the shadow root of the k-th host.
    pub(super) children: Vec<Vec<usize>>,
    /// Mode of each synthetic shadow root (index `k` for virtual id `n + k`).
    pub(super) roots: Vec<&'a str>,
}

pub(super) fn rect(values: &[f64]) -> Option<Rect> {
    match values {
        [x, y, width, height, ..] => Some(Rect {
            x: *x,
            y: *y,
            width: *width,
            height: *height,
        }),
        _ => None,
    }
}

impl<'a> Doc<'a> {
    pub(super) fn new(
        snap: &'a DocumentSnapshot,
        strings: &Strings<'a>,
        extras: &Extras,
    ) -> Doc<'a> {
        let nodes = &snap.nodes;
        let count = nodes.parent_index.as_ref().map_or(0, Vec::len);
        let mut layout_of = HashMap::with_capacity(snap.layout.node_index.len());
        for (k, &node) in snap.layout.node_index.iter().enumerate() {
            layout_of.entry(node).or_insert(k);
        }
        let mut doc = Doc {
            snap,
            shadow: rare_strings(nodes.shadow_root_type.as_ref(), strings),
            input_value: rare_strings(nodes.input_value.as_ref(), strings),
            text_value: rare_strings(nodes.text_value.as_ref(), strings),
            pseudo: nodes
                .pseudo_type
                .as_ref()
                .map(|d| {
                    d.index
                        .iter()
                        .zip(&d.value)
                        .map(|(&i, v)| {
                            let kind = match strings.get(v) {
                                "before" => Some(Pseudo::Before),
                                "after" => Some(Pseudo::After),
                                _ => None,
                            };
                            (i, kind)
                        })
                        .collect()
                })
                .unwrap_or_default(),
            generated: HashMap::new(),
            checked: rare_bools(nodes.input_checked.as_ref()),
            selected: rare_bools(nodes.option_selected.as_ref()),
            clickable: rare_bools(nodes.is_clickable.as_ref()),
            content_doc: rare_ints(nodes.content_document_index.as_ref()),
            layout_of,
            children: vec![Vec::new(); count],
            roots: Vec::new(),
        };
        doc.collect_generated(strings);
        doc.rebuild_dom_tree(count, strings, extras);
        doc
    }

    /// The generated text of each `::before`/`::after`, from its layout
    /// entries; its `content`'s alternative text (`content: "★" / "Rated"`)
    /// instead when it has one, as Chromium's accessibility tree and
    /// Playwright read it (CSS Generated Content §2: the text after the `/`).
    fn collect_generated(&mut self, strings: &Strings<'a>) {
        if self.pseudo.is_empty() {
            return;
        }
        let layout = &self.snap.layout;
        let mut alt: HashMap<i64, String> = HashMap::new();
        for (k, node) in layout.node_index.iter().enumerate() {
            if !matches!(self.pseudo.get(node), Some(Some(_))) {
                continue;
            }
            if let Some(text) = layout
                .styles
                .get(k)
                .and_then(|s| s.inner().get(CONTENT))
                .and_then(|c| alternative_text(strings.get(c)))
            {
                alt.entry(*node).or_insert(text);
            }
            if let Some(text) = layout.text.get(k).map(|t| strings.get(t))
                && !text.is_empty()
            {
                self.generated.entry(*node).or_default().push_str(text);
            }
        }
        self.generated.extend(alt);
    }

    pub(super) fn name(&self, i: usize, strings: &Strings<'a>) -> &'a str {
        self.snap
            .nodes
            .node_name
            .as_ref()
            .and_then(|n| n.get(i))
            .map_or("", |s| strings.get_static(s))
    }

    /// DOMSnapshot walks the *flat* tree: shadow content hangs directly under
    /// its host and slotted light children under their `<slot>`. We rebuild
    /// the DOM tree: a shadow root node between a host and its shadow
    /// content, and slotted nodes moved back under their host as light
    /// children (in slot order). Light children assigned to no slot are not
    /// in the snapshot at all, so they cannot be recorded.
    fn rebuild_dom_tree(&mut self, count: usize, strings: &Strings<'a>, extras: &Extras) {
        let Some(parents) = self.snap.nodes.parent_index.as_ref() else {
            return;
        };
        let backend = |i: usize| {
            self.snap
                .nodes
                .backend_node_id
                .as_ref()
                .and_then(|b| b.get(i))
                .map_or(0, |b| *b.inner())
        };
        let types: Vec<Option<&'a str>> = (0..count)
            .map(|i| self.shadow.get(&(i as i64)).copied())
            .collect();
        let slots: Vec<bool> = (0..count)
            .map(|i| self.name(i, strings).eq_ignore_ascii_case("slot"))
            .collect();
        let tree_type = |i: usize| types[i];
        let is_slot = |i: usize| slots[i];
        // A host: script found an open shadow root on it, or a flat child
        // lives in a different shadow tree without the host being a slot.
        let mut is_host: Vec<bool> = (0..count)
            .map(|i| extras.hosts.contains(&backend(i)))
            .collect();
        let parents = parents.clone();
        for (i, &p) in parents.iter().enumerate() {
            let Ok(p) = usize::try_from(p) else { continue };
            if p < count && tree_type(i).is_some() && tree_type(i) != tree_type(p) && !is_slot(p) {
                is_host[p] = true;
            }
        }
        let mut root_of: HashMap<usize, usize> = HashMap::new();
        // Host of the shadow tree each node is in (None: the document tree).
        let mut tree_host: Vec<Option<usize>> = vec![None; count];
        let mut light: Vec<Vec<usize>> = vec![Vec::new(); count];
        let mut afters: Vec<(usize, usize)> = Vec::new();
        for (i, &p) in parents.iter().enumerate() {
            let Ok(p) = usize::try_from(p) else { continue };
            if p >= count || p >= i {
                continue;
            }
            if is_host[p] {
                let virtual_id = *root_of.entry(p).or_insert_with(|| {
                    self.roots.push(tree_type(i).unwrap_or("open"));
                    self.children.push(Vec::new());
                    count + self.roots.len() - 1
                });
                self.children[virtual_id].push(i);
                tree_host[i] = Some(p);
            } else if is_slot(p) && tree_type(i) != tree_type(p) {
                match tree_host[p] {
                    Some(host) => {
                        light[host].push(i);
                        tree_host[i] = tree_host[host];
                    }
                    None => {
                        self.children[p].push(i);
                        tree_host[i] = tree_host[p];
                    }
                }
            } else if matches!(self.pseudo.get(&(i as i64)), Some(Some(Pseudo::After))) {
                afters.push((p, i));
            } else {
                self.children[p].push(i);
                tree_host[i] = tree_host[p];
            }
        }
        for (host, virtual_id) in root_of {
            self.children[host].insert(0, virtual_id);
        }
        for (host, slotted) in light.into_iter().enumerate() {
            self.children[host].extend(slotted);
        }
        // `::after` renders after everything else in its element.
        for (element, after) in afters {
            self.children[element].push(after);
        }
    }
}
