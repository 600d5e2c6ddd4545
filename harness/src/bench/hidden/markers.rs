//! A page family's `markers.toml`: the pages measured and every token on them, each visible or hidden, with its family, construction and why; read and checked against the pages' files.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The file beside the pages that declares them.
pub const MARKERS_FILE: &str = "markers.toml";

/// Where each token's text comes from, by what a person sees of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Family {
    /// Visible: ordinary text, labels and controls.
    Plain,
    /// Visible: text that resembles a hidden construction but is seen (a
    /// gradient through transparent glyphs, a screen-reader label of a
    /// visible control, a skip link shown on focus).
    Lookalike,
    /// Hidden: laid out, but painted so that no one can read it (opacity,
    /// visibility, colour against what is behind it, size, scale).
    Unpainted,
    /// Hidden: placed or clipped where no one can see it (off the page,
    /// clipped to nothing, a 1×1 frame).
    Geometry,
    /// Hidden: painted, then painted over (a box above it, a background
    /// painted after it).
    PaintOrder,
}

impl Family {
    /// Every family, in the order tables list them.
    pub const ALL: &[Family] = &[
        Family::Plain,
        Family::Lookalike,
        Family::Unpainted,
        Family::Geometry,
        Family::PaintOrder,
    ];

    /// The hidden families, in the order tables list them.
    pub const HIDDEN: &[Family] = &[Family::Unpainted, Family::Geometry, Family::PaintOrder];

    /// Whether a person sees text of this family.
    pub fn visible(self) -> bool {
        matches!(self, Family::Plain | Family::Lookalike)
    }

    /// As `markers.toml` and the JSON spell it.
    pub fn name(self) -> &'static str {
        match self {
            Family::Plain => "plain",
            Family::Lookalike => "lookalike",
            Family::Unpainted => "unpainted",
            Family::Geometry => "geometry",
            Family::PaintOrder => "paint-order",
        }
    }
}

/// Where on its page a visible token is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Place {
    /// In the first viewport.
    #[default]
    InView,
    /// Below the first viewport, reached by scrolling: an observation of the
    /// viewport alone that leaves it out has not lost it.
    Below,
}

/// A page measured.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PageEntry {
    /// The file, relative to the markers' folder.
    pub file: String,
    /// What it holds, in a few words.
    pub about: String,
}

/// One token on a page.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Marker {
    /// Unique; letters, digits and dashes.
    pub token: String,
    /// The page it is seen on (a [`PageEntry::file`]).
    pub page: String,
    /// The file holding its text when that is a frame of the page, not the
    /// page itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document: Option<String>,
    /// How it is drawn, by what a person sees of it.
    pub family: Family,
    /// The construction, in CSS terms.
    pub construction: String,
    /// Whether a person sees it; must agree with the family.
    pub visible: bool,
    /// Why it is (in)visible, one line.
    pub why: String,
    /// Where a visible token is.
    #[serde(default)]
    pub place: Place,
}

impl Marker {
    /// The file its text is in, relative to the folder.
    pub fn file(&self) -> &str {
        self.document.as_deref().unwrap_or(&self.page)
    }
}

/// A folder's `markers.toml`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Markers {
    /// The pages measured, in order.
    #[serde(rename = "page")]
    pub pages: Vec<PageEntry>,
    /// Every token, in order.
    #[serde(rename = "marker")]
    pub markers: Vec<Marker>,
}

/// Why a folder's markers could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MarkersError {
    /// The file could not be read.
    #[error("could not read {path}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file is not the schema.
    #[error("{path}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's words, with the line.
        message: String,
    },
    /// The file parses but says something that cannot be.
    #[error("{path}: {problem}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong, naming the token or page.
        problem: String,
    },
}

impl Markers {
    /// Reads `folder/markers.toml` and checks it against the pages there:
    /// every page and document exists, every token is well formed, unique,
    /// in its document's file and agrees with its family, and every token
    /// written in the folder's `.html` files is declared.
    pub fn load(folder: &Path) -> Result<Markers, MarkersError> {
        let path = folder.join(MARKERS_FILE);
        let text = std::fs::read_to_string(&path).map_err(|source| MarkersError::Read {
            path: path.clone(),
            source,
        })?;
        let markers: Markers = toml::from_str(&text).map_err(|err| MarkersError::Parse {
            path: path.clone(),
            message: err.to_string(),
        })?;
        markers
            .check(folder)
            .map_err(|problem| MarkersError::Invalid { path, problem })?;
        Ok(markers)
    }

    /// The tokens on `page`, in order.
    pub fn on_page<'a>(&'a self, page: &'a str) -> impl Iterator<Item = &'a Marker> + 'a {
        self.markers.iter().filter(move |m| m.page == page)
    }

    fn check(&self, folder: &Path) -> Result<(), String> {
        if self.pages.is_empty() {
            return Err("no [[page]]".to_owned());
        }
        let mut seen = BTreeSet::new();
        for page in &self.pages {
            if !seen.insert(page.file.as_str()) {
                return Err(format!("page {} is declared twice", page.file));
            }
        }
        let mut tokens = BTreeSet::new();
        for marker in &self.markers {
            let token = &marker.token;
            if !is_token(token) {
                return Err(format!(
                    "token {token:?}: a token is letters, digits and dashes, starting with a letter"
                ));
            }
            if !tokens.insert(token.as_str()) {
                return Err(format!("token {token} is declared twice"));
            }
            if !seen.contains(marker.page.as_str()) {
                return Err(format!(
                    "token {token}: page {} is not a [[page]]",
                    marker.page
                ));
            }
            if marker.visible != marker.family.visible() {
                return Err(format!(
                    "token {token}: visible = {} disagrees with family {} ({})",
                    marker.visible,
                    marker.family.name(),
                    if marker.family.visible() {
                        "a visible family"
                    } else {
                        "a hidden family"
                    }
                ));
            }
            if marker.place == Place::Below && !marker.visible {
                return Err(format!(
                    "token {token}: place = \"below\" is for visible text"
                ));
            }
            let file = folder.join(marker.file());
            let html = std::fs::read_to_string(&file)
                .map_err(|err| format!("token {token}: {}: {err}", file.display()))?;
            if !crate::bench::hidden::find::occurs(&html, token) {
                return Err(format!(
                    "token {token} is not in {} (its document)",
                    marker.file()
                ));
            }
        }
        for file in html_files(folder)? {
            let html = std::fs::read_to_string(&file)
                .map_err(|err| format!("{}: {err}", file.display()))?;
            for token in written_tokens(&html) {
                if !tokens.contains(token) {
                    return Err(format!(
                        "{} writes token {token}, which is not declared",
                        file.display()
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Letters, digits and dashes, starting with a letter.
fn is_token(text: &str) -> bool {
    text.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
}

/// The `.html` files directly in `folder`, sorted.
fn html_files(folder: &Path) -> Result<Vec<PathBuf>, String> {
    let entries =
        std::fs::read_dir(folder).map_err(|err| format!("{}: {err}", folder.display()))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "html"))
        .collect();
    files.sort();
    Ok(files)
}

/// Tokens written in a page's source: `HT-…` and `VM-…` words (the
/// prefixes this folder's pages use), each once.
fn written_tokens(html: &str) -> BTreeSet<&str> {
    let mut found = BTreeSet::new();
    for prefix in ["HT-", "VM-"] {
        for (at, _) in html.match_indices(prefix) {
            let rest = &html[at..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                .unwrap_or(rest.len());
            let word = rest[..end].trim_end_matches('-');
            let starts_word = html[..at]
                .chars()
                .next_back()
                .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '-'));
            if starts_word && word.len() > prefix.len() {
                found.insert(word);
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/sites/hidden_text")
    }

    #[test]
    fn the_fixture_family_declares_every_token_it_writes() {
        let markers = Markers::load(&folder()).unwrap();
        let pages: Vec<&str> = markers.pages.iter().map(|p| p.file.as_str()).collect();
        assert_eq!(
            pages,
            ["index.html", "frames.html", "cross.html", "shadow.html"]
        );
        for family in Family::ALL {
            assert!(
                markers.markers.iter().any(|m| m.family == *family),
                "no token of family {family:?}"
            );
        }
        for page in &pages {
            assert!(markers.on_page(page).any(|m| m.visible), "{page}");
            assert!(markers.on_page(page).any(|m| !m.visible), "{page}");
        }
    }

    #[test]
    fn a_token_written_but_not_declared_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("index.html"),
            "<p>VM-one</p><p style='opacity:0'>HT-two</p><p>HT-three</p>",
        )
        .unwrap();
        let declared = "[[page]]\nfile = \"index.html\"\nabout = \"x\"\n\n\
            [[marker]]\ntoken = \"VM-one\"\npage = \"index.html\"\nfamily = \"plain\"\n\
            construction = \"p\"\nvisible = true\nwhy = \"seen\"\n\n\
            [[marker]]\ntoken = \"HT-two\"\npage = \"index.html\"\nfamily = \"unpainted\"\n\
            construction = \"opacity\"\nvisible = false\nwhy = \"unseen\"\n";
        std::fs::write(dir.path().join(MARKERS_FILE), declared).unwrap();
        let err = Markers::load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("HT-three, which is not declared"), "{err}");

        let wrong = declared.replace("visible = false", "visible = true");
        std::fs::write(dir.path().join(MARKERS_FILE), wrong).unwrap();
        let err = Markers::load(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("HT-two: visible = true disagrees with family unpainted"),
            "{err}"
        );
    }
}
