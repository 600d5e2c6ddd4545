//! CSS selectors over a [`Page`](super::Page), parsed by the `selectors` crate as scraper does.

use scraper::selector::{Parser, Simple};
use selectors::matching::{
    self, MatchingContext, MatchingForInvalidation, MatchingMode, NeedsSelectorFlags, QuirksMode,
    SelectorCaches,
};
use selectors::parser::{ParseRelative, SelectorList};

use super::ElementRef;

/// A parsed selector group (`a, b > c`). Supports type, class, id, attribute,
/// combinators and structural pseudo-classes (`:nth-child`, `:has`, `:is`,
/// `:not`); state pseudo-classes like `:hover` are rejected at parse time.
#[derive(Clone, Debug)]
pub struct Selector {
    source: String,
    list: SelectorList<Simple>,
}

/// A selector that does not parse.
#[derive(Debug, thiserror::Error)]
#[error("invalid CSS selector {selector:?}: {message}")]
pub struct SelectorError {
    /// The selector text.
    pub selector: String,
    /// The parser's complaint.
    pub message: String,
}

impl Selector {
    /// Parses a selector group.
    pub fn parse(source: &str) -> Result<Selector, SelectorError> {
        let mut parser = cssparser::Parser::new(source);
        SelectorList::parse(&Parser, &mut parser, ParseRelative::No)
            .map(|list| Selector {
                source: source.to_owned(),
                list,
            })
            .map_err(|err| SelectorError {
                selector: source.to_owned(),
                message: format!("{:?}", err.kind),
            })
    }

    /// The text it was parsed from.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Whether the element matches.
    pub fn matches(&self, element: &ElementRef<'_>) -> bool {
        let mut caches = SelectorCaches::default();
        let mut context = MatchingContext::new(
            MatchingMode::Normal,
            None,
            &mut caches,
            QuirksMode::NoQuirks,
            NeedsSelectorFlags::No,
            MatchingForInvalidation::No,
        );
        self.list
            .slice()
            .iter()
            .any(|selector| matching::matches_selector(selector, 0, None, element, &mut context))
    }
}
