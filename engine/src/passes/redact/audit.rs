//! The redaction audit: every value an observation hid, with its original text and kind, for the corpus precision list and `pagesnap redactions` (never part of an observation).

use std::cell::RefCell;

use super::Kind;

/// One value an observation hid.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Hidden {
    /// Why it was hidden.
    pub kind: Kind,
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
pub(crate) fn note(kind: Kind, original: &str) {
    LOG.with(|log| {
        if let Some(log) = log.borrow_mut().as_mut() {
            log.push(Hidden {
                kind,
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
        note(Kind::Jwt, "before");
        let ((), outer) = audit(|| {
            note(Kind::Card, "4242");
            let ((), inner) = audit(|| note(Kind::Iban, "GB33"));
            assert_eq!(inner.len(), 1);
            note(Kind::Ssn, "078");
        });
        let kinds: Vec<Kind> = outer.iter().map(|h| h.kind).collect();
        assert_eq!(kinds, [Kind::Card, Kind::Ssn]);
    }
}
