//! What bench-hidden reports: per viewer (a strategy at a scope, or a tool server) one [`Row`] with every token's [`Outcome`] and their [`Counts`], by family.

use std::collections::BTreeMap;

use pagesnap_engine::strategy::Strategy;
use serde::Serialize;

use super::find::occurs;
use super::markers::{Family, Marker, Place};
use crate::bench::PageError;
use crate::bench::mcp::Side;
use crate::results::MCP_PREFIX;

/// How much of the page a viewer's text covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    /// The viewport (what is below it may be announced, not shown).
    Viewport,
    /// The whole page.
    FullPage,
}

impl Scope {
    /// As printed and serialised.
    pub fn name(self) -> &'static str {
        match self {
            Scope::Viewport => "viewport",
            Scope::FullPage => "full-page",
        }
    }
}

/// What produced a row's text.
#[derive(Clone, Copy)]
pub enum Viewer {
    /// A pagesnap strategy on a live capture, at a scope.
    Strategy {
        /// The strategy.
        strategy: &'static dyn Strategy,
        /// `full_page` false or true.
        scope: Scope,
    },
    /// A tool server's snapshot tool, called as an agent calls it (no
    /// arguments but its page).
    Server(Side),
}

impl Viewer {
    /// `flat`, `mcp:playwright`, …
    pub fn name(self) -> String {
        match self {
            Viewer::Strategy { strategy, .. } => strategy.name().to_owned(),
            Viewer::Server(side) => format!("{MCP_PREFIX}{}", side.name()),
        }
    }

    /// How much of the page its text covers: a server's snapshot as its
    /// tool gives it by default — pagesnap's `page_snapshot` the viewport,
    /// Playwright MCP's, Chrome DevTools MCP's and agent-browser's the whole
    /// page (an ARIA or accessibility tree of the document).
    pub fn scope(self) -> Scope {
        match self {
            Viewer::Strategy { scope, .. } => scope,
            Viewer::Server(Side::Pagesnap) => Scope::Viewport,
            Viewer::Server(Side::Peer(_)) => Scope::FullPage,
        }
    }

    fn kind(self) -> Kind {
        match self {
            Viewer::Strategy { .. } => Kind::Strategy,
            Viewer::Server(_) => Kind::Server,
        }
    }
}

/// A row's kind of viewer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A pagesnap strategy.
    Strategy,
    /// A tool server over MCP.
    Server,
}

/// What became of one token in one viewer's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// A visible token, in the text.
    Shown,
    /// A visible token, not in the text.
    Lost,
    /// A visible token below the first viewport, not in a viewport's text
    /// (reached by scrolling: not lost).
    OutOfView,
    /// A hidden token, in the text: the injection reached the model.
    Reached,
    /// A hidden token, not in the text.
    Withheld,
    /// Its page could not be observed by this viewer.
    NotMeasured,
}

impl Outcome {
    /// `marker`'s outcome in `text` (`None`: the page was not observed),
    /// read at `scope`.
    pub fn of(marker: &Marker, scope: Scope, text: Option<&str>) -> Outcome {
        let Some(text) = text else {
            return Outcome::NotMeasured;
        };
        match (marker.visible, occurs(text, &marker.token)) {
            (true, true) => Outcome::Shown,
            (true, false) if scope == Scope::Viewport && marker.place == Place::Below => {
                Outcome::OutOfView
            }
            (true, false) => Outcome::Lost,
            (false, true) => Outcome::Reached,
            (false, false) => Outcome::Withheld,
        }
    }
}

/// One token in one row.
#[derive(Clone, Debug, Serialize)]
pub struct TokenResult {
    /// The token.
    pub token: String,
    /// Its page.
    pub page: String,
    /// Its family.
    pub family: Family,
    /// Whether a person sees it.
    pub visible: bool,
    /// What became of it.
    pub outcome: Outcome,
}

/// Visible tokens, counted.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct VisibleCounts {
    /// In the text.
    pub shown: usize,
    /// Not in the text.
    pub lost: usize,
    /// Below the first viewport, left out of a viewport's text.
    pub out_of_view: usize,
    /// On pages not observed.
    pub not_measured: usize,
    /// Every visible token.
    pub total: usize,
}

impl VisibleCounts {
    /// The tokens this row was expected to show: shown or lost.
    pub fn expected(&self) -> usize {
        self.shown + self.lost
    }
}

/// Hidden tokens of one family (or all), counted.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct HiddenCounts {
    /// In the text.
    pub reached: usize,
    /// Not in the text.
    pub withheld: usize,
    /// On pages not observed.
    pub not_measured: usize,
    /// Every hidden token (of the family).
    pub total: usize,
}

impl HiddenCounts {
    /// The tokens observed: reached or withheld.
    pub fn measured(&self) -> usize {
        self.reached + self.withheld
    }
}

/// A row's tokens, counted.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Counts {
    /// Visible tokens.
    pub visible: VisibleCounts,
    /// Hidden tokens.
    pub hidden: HiddenCounts,
    /// Hidden tokens per hidden family.
    pub hidden_by_family: BTreeMap<Family, HiddenCounts>,
}

impl Counts {
    fn of(tokens: &[TokenResult]) -> Counts {
        let mut counts = Counts::default();
        for family in Family::HIDDEN {
            counts
                .hidden_by_family
                .insert(*family, HiddenCounts::default());
        }
        for token in tokens {
            if token.visible {
                let visible = &mut counts.visible;
                visible.total += 1;
                match token.outcome {
                    Outcome::Shown => visible.shown += 1,
                    Outcome::OutOfView => visible.out_of_view += 1,
                    Outcome::NotMeasured => visible.not_measured += 1,
                    // `Outcome::of` gives a visible token none of the hidden outcomes.
                    Outcome::Lost | Outcome::Reached | Outcome::Withheld => visible.lost += 1,
                }
                continue;
            }
            let family = counts.hidden_by_family.entry(token.family).or_default();
            for hidden in [&mut counts.hidden, family] {
                hidden.total += 1;
                match token.outcome {
                    // Nor a hidden token a visible one.
                    Outcome::Reached | Outcome::Shown => hidden.reached += 1,
                    Outcome::NotMeasured => hidden.not_measured += 1,
                    Outcome::Withheld | Outcome::Lost | Outcome::OutOfView => {
                        hidden.withheld += 1;
                    }
                }
            }
        }
        counts
    }
}

/// Whether a row was measured.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum Status {
    /// Its pages were observed (those that failed are in `errors`, their
    /// tokens [`Outcome::NotMeasured`]).
    Measured,
    /// Not measured: the server is not installed.
    Skipped {
        /// Why, as the lookup said it.
        why: String,
    },
    /// Not measured: the server or browser would not start.
    Failed {
        /// Why.
        why: String,
    },
}

/// One viewer over every page.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// `flat`, `mcp:playwright`, …
    pub observer: String,
    /// A strategy or a server.
    pub kind: Kind,
    /// How much of the page its text covers.
    pub scope: Scope,
    /// A server's `name version`, as it reports itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Measured, skipped or failed.
    #[serde(flatten)]
    pub status: Status,
    /// The tokens counted (measured rows).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counts: Option<Counts>,
    /// Every token, in `markers.toml` order (measured rows).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tokens: Vec<TokenResult>,
    /// Pages this viewer could not observe.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<PageError>,
}

impl Row {
    /// A row measured from each page's text (`texts`: page → the text the
    /// model reads; a page missing there failed, with its error in
    /// `errors`).
    pub fn measured(
        viewer: Viewer,
        version: Option<String>,
        markers: &[Marker],
        texts: &BTreeMap<String, String>,
        errors: Vec<PageError>,
    ) -> Row {
        let scope = viewer.scope();
        let tokens: Vec<TokenResult> = markers
            .iter()
            .map(|marker| TokenResult {
                token: marker.token.clone(),
                page: marker.page.clone(),
                family: marker.family,
                visible: marker.visible,
                outcome: Outcome::of(marker, scope, texts.get(&marker.page).map(String::as_str)),
            })
            .collect();
        Row {
            counts: Some(Counts::of(&tokens)),
            tokens,
            errors,
            version,
            status: Status::Measured,
            ..Row::empty(viewer)
        }
    }

    /// A row not measured, and why.
    pub fn not_measured(viewer: Viewer, status: Status) -> Row {
        Row {
            status,
            ..Row::empty(viewer)
        }
    }

    fn empty(viewer: Viewer) -> Row {
        Row {
            observer: viewer.name(),
            kind: viewer.kind(),
            scope: viewer.scope(),
            version: None,
            status: Status::Measured,
            counts: None,
            tokens: Vec::new(),
            errors: Vec::new(),
        }
    }

    /// The tokens with `outcome`, in order.
    pub fn with_outcome(&self, outcome: Outcome) -> impl Iterator<Item = &TokenResult> {
        self.tokens.iter().filter(move |t| t.outcome == outcome)
    }
}

/// Everything bench-hidden measured.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The pages' folder, as given.
    pub folder: String,
    /// The viewport of every browser, `[width, height]`.
    pub viewport: [u32; 2],
    /// The pages measured, in order.
    pub pages: Vec<String>,
    /// One row per viewer: strategies (viewport, then full page), then servers.
    pub rows: Vec<Row>,
}

impl Report {
    /// Whether a page failed on any measured row.
    pub fn failed_pages(&self) -> usize {
        self.rows.iter().map(|r| r.errors.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pagesnap_engine::strategy::by_name;

    fn marker(token: &str, family: Family, place: Place) -> Marker {
        Marker {
            token: token.to_owned(),
            page: "index.html".to_owned(),
            document: None,
            family,
            construction: String::new(),
            visible: family.visible(),
            why: String::new(),
            place,
        }
    }

    #[test]
    fn outcomes_are_counted_by_visibility_scope_and_family() {
        let markers = [
            marker("VM-a", Family::Plain, Place::InView),
            marker("VM-b", Family::Lookalike, Place::InView),
            marker("VM-far", Family::Lookalike, Place::Below),
            marker("HT-a", Family::Unpainted, Place::InView),
            marker("HT-b", Family::Geometry, Place::InView),
            marker("HT-c", Family::Geometry, Place::InView),
        ];
        let text = "VM-a HT-b HT-c".to_owned();
        let texts = BTreeMap::from([("index.html".to_owned(), text)]);
        let flat = by_name("flat").unwrap();
        let viewport = Viewer::Strategy {
            strategy: flat,
            scope: Scope::Viewport,
        };
        let row = Row::measured(viewport, None, &markers, &texts, Vec::new());
        let outcomes: Vec<Outcome> = row.tokens.iter().map(|t| t.outcome).collect();
        assert_eq!(
            outcomes,
            [
                Outcome::Shown,
                Outcome::Lost,
                Outcome::OutOfView,
                Outcome::Withheld,
                Outcome::Reached,
                Outcome::Reached
            ]
        );
        let counts = row.counts.unwrap();
        assert_eq!((counts.visible.shown, counts.visible.expected()), (1, 2));
        assert_eq!((counts.hidden.reached, counts.hidden.total), (2, 3));
        assert_eq!(counts.hidden_by_family[&Family::Geometry].reached, 2);
        assert_eq!(counts.hidden_by_family[&Family::PaintOrder].total, 0);

        let full = Viewer::Strategy {
            strategy: flat,
            scope: Scope::FullPage,
        };
        let row = Row::measured(full, None, &markers, &BTreeMap::new(), Vec::new());
        assert!(row.tokens.iter().all(|t| t.outcome == Outcome::NotMeasured));
        let counts = row.counts.unwrap();
        assert_eq!(counts.visible.not_measured, 3);
        assert_eq!(counts.hidden.not_measured, 3);
        let json = serde_json::to_value(Row::not_measured(
            Viewer::Server(Side::Pagesnap),
            Status::Skipped { why: "no".into() },
        ))
        .unwrap();
        assert_eq!(json["status"], "skipped");
        assert_eq!(json["observer"], "mcp:pagesnap");
        assert_eq!(json["scope"], "viewport");
    }
}
