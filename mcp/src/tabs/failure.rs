//! What a failed call becomes: a browser that died started again before the next call (and the session told), a tab that went forgotten, a tab whose page never yields closed, and each failure a tool error of its kind.

use pagesnap_browser::TabError;

use super::{Browsing, Isolation};
use crate::answer::{Note, NoteKind};
use crate::error::{Kind, ToolError};

impl Browsing {
    /// Before each call: a browser that died is started again (or, attached,
    /// connected to again), and a session whose tabs went with it starts
    /// afresh — no tab, its own context made anew at its next tab — with a
    /// note for its next answer. Fails (`browser-gone`) only when no browser
    /// could be started or reached.
    pub async fn recover(&mut self) -> Result<(), ToolError> {
        let generation = self.shared.revive().await?;
        if generation == self.generation {
            return Ok(());
        }
        self.generation = generation;
        self.tabs.clear();
        self.current = None;
        self.known_tabs.clear();
        if let Isolation::Own(own) = &mut self.isolation {
            *own = None;
        }
        let attached = self.shared.endpoint.as_deref();
        let what = match attached {
            Some(endpoint) => {
                format!("the connection to the browser at {endpoint} had ended and was made again")
            }
            None => "the browser had crashed and was started again".to_owned(),
        };
        self.notes.push(Note {
            kind: NoteKind::BrowserRestarted,
            message: format!(
                "{what}; the tabs open before were lost (open a page with page_navigate; \
                 page_tabs lists what is open)"
            ),
        });
        // Attached on the default context, the browser's own first tab is
        // the current one again, as when the session began.
        if attached.is_some() && self.isolation == Isolation::Default {
            let first = self.my_tabs().await?.into_iter().next();
            if let Some(first) = first {
                self.known_tabs.insert(first.id.clone());
                self.select(&first.id).await?;
            }
        }
        Ok(())
    }

    /// The notes not yet told (taken: each is told once).
    pub fn take_notes(&mut self) -> Vec<Note> {
        std::mem::take(&mut self.notes)
    }

    /// A failed call on the current tab as a tool error: a tab that went
    /// (crashed, closed, its browser dead) is forgotten; a call the page left
    /// unanswered, when the page does not answer a trivial script either (a
    /// script that never yields holds its renderer), closes the tab — that
    /// tab's fault, not the browser's: other tabs and sessions live on — so
    /// that the next call does not wait out its limit again.
    pub(super) async fn failed(&mut self, err: &pagesnap_browser::Error) -> ToolError {
        if is_unanswered(err)
            && let Some(id) = self.current.clone()
            && let Some(tab) = self.tabs.get(&id)
            && !tab.session.answers(HUNG_PROBE).await
        {
            self.current = None;
            if let Some(tab) = self.tabs.remove(&id) {
                tab.session.close_within(super::TAB_CLOSE).await;
            }
            let mut message = self.mask(&format!("{err:#}"));
            message.push_str(
                "; the page does not answer (a script that never yields?), so its tab was closed \
                 (other tabs live on): open a page with page_navigate or choose another tab with \
                 page_tabs",
            );
            return ToolError::new(Kind::TabGone, message);
        }
        let error = self.browser_error(err);
        self.forget_if_gone(err);
        error
    }

    /// A browser failure as a tool error (its message masked).
    pub(super) fn browser_error(&self, err: &pagesnap_browser::Error) -> ToolError {
        let kind = if err.is_browser_gone() {
            Kind::BrowserGone
        } else if err.is_gone() {
            Kind::TabGone
        } else {
            Kind::Browser
        };
        let mut message = self.mask(&format!("{err:#}"));
        match kind {
            Kind::TabGone => message
                .push_str("; open a page with page_navigate or choose another tab with page_tabs"),
            Kind::BrowserGone => {
                message.push_str("; every tab went with it: ");
                message.push_str(&next_call(self.shared.endpoint.as_deref()));
            }
            _ => {}
        }
        ToolError::new(kind, message)
    }
}

/// How long a page that left a call unanswered gets to answer a trivial
/// script before its tab is taken for hung.
const HUNG_PROBE: std::time::Duration = std::time::Duration::from_secs(1);

/// A call the tab left unanswered within its limit.
fn is_unanswered(err: &pagesnap_browser::Error) -> bool {
    matches!(err.tab(), Some(TabError::NoAnswer { .. }))
}

/// What a dead browser was: pagesnap's own, or the one at an endpoint.
pub(super) fn gone_sentence(endpoint: Option<&str>) -> String {
    match endpoint {
        Some(endpoint) => format!(
            "the browser at {endpoint} is gone (its process ended or its DevTools connection \
             closed) and every tab with it"
        ),
        None => "the browser is gone (its process ended or its DevTools connection closed) and \
                 every tab with it"
            .to_owned(),
    }
}

/// What the next call does about a dead browser.
pub(super) fn next_call(endpoint: Option<&str>) -> String {
    match endpoint {
        Some(endpoint) => format!(
            "the next call connects to {endpoint} again if it answers (pagesnap never starts a \
             browser in its place)"
        ),
        None => "the next call starts a new browser (the tabs are lost)".to_owned(),
    }
}
