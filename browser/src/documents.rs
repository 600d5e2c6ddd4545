//! The documents a tab has shown, counted from the protocol: a call that fails while the count changes failed because the page navigated (or reloaded) under it.
//!
//! A navigation destroys the document a call was working on; Chromium then
//! answers the call with an error (the execution context, the node, the
//! page are gone), worded several ways. pagesnap does not read the wording:
//! each session counts the tab's `Page.frameNavigated`,
//! `Runtime.executionContextsCleared` and `DOM.documentUpdated` events, and
//! a failed call is [`crate::TabError::Navigated`] when the count moved
//! between the call's start and a moment after its failure.

use chromiumoxide::Page as CdpPage;
use chromiumoxide::cdp::browser_protocol::dom::EventDocumentUpdated;
use chromiumoxide::cdp::browser_protocol::page::EventFrameNavigated;
use chromiumoxide::cdp::js_protocol::runtime::EventExecutionContextsCleared;
use futures::StreamExt;
use tokio::sync::watch;

use crate::error::{Error, Result};

/// A tab's document count.
#[derive(Clone, Debug)]
pub(crate) struct Documents {
    count: watch::Receiver<u64>,
}

impl Documents {
    /// Starts counting `page`'s document changes; the task ends with the
    /// page's event streams.
    pub(crate) async fn listen(page: &CdpPage) -> Result<Documents> {
        let unheard = |err| Error::browser("follow the tab's navigations", err);
        let mut navigated = page
            .event_listener::<EventFrameNavigated>()
            .await
            .map_err(unheard)?;
        let mut cleared = page
            .event_listener::<EventExecutionContextsCleared>()
            .await
            .map_err(unheard)?;
        let mut updated = page
            .event_listener::<EventDocumentUpdated>()
            .await
            .map_err(unheard)?;
        let (sender, count) = watch::channel(0u64);
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    Some(_) = navigated.next() => {}
                    Some(_) = cleared.next() => {}
                    Some(_) = updated.next() => {}
                    else => break,
                }
                sender.send_modify(|count| *count += 1);
            }
        });
        Ok(Documents { count })
    }

    /// The count now.
    pub(crate) fn now(&self) -> u64 {
        *self.count.borrow()
    }

    /// Resolves when the count is no longer `seen` (at once if it is not;
    /// never, once the tab's events have ended).
    pub(crate) async fn changed_since(&self, seen: u64) {
        let mut count = self.count.clone();
        if count.wait_for(|now| *now != seen).await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// Whether a tab's `location.href` is Chromium's own error page, which it
/// loads for unreachable URLs and missing files instead of failing navigation.
pub(crate) fn is_error_page(href: &str) -> bool {
    href.starts_with("chrome-error://")
}
