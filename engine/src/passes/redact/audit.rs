//! The redaction audit: every value an observation hid, with its original text and kind, for the corpus precision list and `pagesnap redactions` (never part of an observation).

use std::cell::RefCell;

use serde::Serialize;

use super::Kind;

/// Where a hidden value sat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Place {
    /// A URL's userinfo (`https://user:…@host`).
    UrlUserinfo,
    /// A URL's host or path.
    UrlPath,
    /// A URL's query or fragment.
    UrlQuery,
    /// The value of a `key=value` or `"key": value` pair outside a URL.
    Value,
    /// An accessible name (of a link, a button, an image, …).
    Name,
    /// Text on the page.
    Text,
    /// An attribute's value as a strategy prints it (`href`, `alt`, …).
    Attribute,
    /// A form field's value.
    Field,
    /// Code (an inline `<script>`).
    Code,
}

impl Place {
    /// The place as reports write it (`url_query`).
    pub fn name(self) -> &'static str {
        match self {
            Place::UrlUserinfo => "url_userinfo",
            Place::UrlPath => "url_path",
            Place::UrlQuery => "url_query",
            Place::Value => "value",
            Place::Name => "name",
            Place::Text => "text",
            Place::Attribute => "attribute",
            Place::Field => "field",
            Place::Code => "code",
        }
    }

    /// Where `range` of `text` sits: in the whitespace-delimited token
    /// around it, a URL's userinfo, path or query, a key-value pair's
    /// value, or plain text (the caller says which text: a name, an
    /// attribute).
    pub fn of(text: &str, range: std::ops::Range<usize>) -> Place {
        let start = text[..range.start]
            .char_indices()
            .rfind(|(_, c)| c.is_whitespace())
            .map_or(0, |(i, c)| i + c.len_utf8());
        let end = text[range.end..]
            .find(char::is_whitespace)
            .map_or(text.len(), |i| range.end + i);
        let (before, token) = (&text[start..range.start], &text[start..end]);
        let url = token.contains("://") || token.starts_with('/') || token.starts_with("www.");
        if url {
            let authority = before.find("://").map_or(0, |i| i + 3);
            let in_authority = !before[authority..].contains(['/', '?', '#']);
            if in_authority
                && text[range.end..end]
                    .split(['/', '?', '#'])
                    .next()
                    .is_some_and(|rest| rest.contains('@'))
            {
                Place::UrlUserinfo
            } else if before.contains(['?', '#']) {
                Place::UrlQuery
            } else {
                Place::UrlPath
            }
        } else if before.ends_with(['=', ':', '"', '\'']) {
            Place::Value
        } else {
            Place::Text
        }
    }
}

/// One value an observation hid.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Hidden {
    /// Why it was hidden.
    pub kind: Kind,
    /// Where it sat.
    pub place: Place,
    /// The text that `[redacted]` replaced.
    pub original: String,
}

thread_local! {
    /// The hidden values of the [`audit`] running on this thread, if one is.
    static LOG: RefCell<Option<Vec<Hidden>>> = const { RefCell::new(None) };
}

/// Runs `f` and returns, beside its result, every value the observations
/// it made on this thread hid, in the order they were hidden. Observations
/// themselves never carry the originals; this is how a test or a report
/// sees what redaction took. Audits do not nest: an inner one takes the
/// values, the outer one keeps what came before and after it.
pub fn audit<R>(f: impl FnOnce() -> R) -> (R, Vec<Hidden>) {
    let outer = LOG.with(|log| log.borrow_mut().replace(Vec::new()));
    let result = f();
    let hidden = LOG.with(|log| {
        let mut log = log.borrow_mut();
        let hidden = log.take().unwrap_or_default();
        *log = outer;
        hidden
    });
    (result, hidden)
}

/// Records a hidden value when an audit is running (one thread-local read
/// per redaction, which is rare, when none is).
pub(crate) fn note(kind: Kind, place: Place, original: &str) {
    LOG.with(|log| {
        if let Some(log) = log.borrow_mut().as_mut() {
            log.push(Hidden {
                kind,
                place,
                original: original.to_owned(),
            });
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_audit_sees_what_was_noted_inside_it_only() {
        note(Kind::Jwt, Place::Text, "before");
        let ((), outer) = audit(|| {
            note(Kind::Card, Place::Text, "4242");
            let ((), inner) = audit(|| note(Kind::Iban, Place::Text, "GB33"));
            assert_eq!(inner.len(), 1);
            note(Kind::Ssn, Place::Text, "078");
        });
        let kinds: Vec<Kind> = outer.iter().map(|h| h.kind).collect();
        assert_eq!(kinds, [Kind::Card, Kind::Ssn]);
    }
}
