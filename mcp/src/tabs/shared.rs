//! The browser every session of the server uses, with its configuration, and the browser started in its place when it dies.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};

use pagesnap_browser::Chromium;
use tokio::sync::RwLock;

use super::Config;
use super::failure::{gone_sentence, next_call};
use crate::error::{Kind, ToolError};

/// The browser every session uses, and the server's configuration.
pub struct Shared {
    /// None once closed (the server is stopping). Each call holds a read
    /// lock; closing waits for the calls in flight.
    pub(super) chromium: RwLock<Option<Chromium>>,
    /// How many times a browser was started in a dead one's place: a
    /// session whose tabs belong to an earlier one has lost them.
    pub(super) restarts: AtomicU64,
    /// The endpoint of an attached browser (none: pagesnap launched it),
    /// the same for every browser in its place.
    pub(super) endpoint: Option<String>,
    pub(crate) config: Config,
    /// The browser contexts the sessions made (tabs in them are no other
    /// session's, not even one on the default context).
    pub(super) contexts: std::sync::Mutex<HashSet<String>>,
}

impl Shared {
    /// The browser and configuration the sessions will share.
    pub fn new(chromium: Chromium, config: Config) -> Shared {
        // Observing only, a dialog is its owner's to answer, whatever the
        // browser was given.
        let chromium = if config.observe_only {
            chromium.with_dialogs(pagesnap_browser::DialogPolicy::Ask)
        } else {
            chromium
        };
        Shared {
            endpoint: chromium.endpoint().map(str::to_owned),
            chromium: RwLock::new(Some(chromium)),
            restarts: AtomicU64::new(0),
            config,
            contexts: std::sync::Mutex::new(HashSet::new()),
        }
    }

    /// Closes the browser (attached: only the tabs pagesnap opened), after
    /// the calls in flight; later calls fail by name.
    pub async fn close(&self) -> anyhow::Result<()> {
        match self.chromium.write().await.take() {
            Some(chromium) => Ok(chromium.close().await?),
            None => Ok(()),
        }
    }

    /// The browser's generation (how many times it was started again),
    /// after starting one in its place when it is gone: launched anew with
    /// the server's settings, or attached again to the endpoint (never a
    /// browser of pagesnap's own in the place of one someone else runs). The
    /// first call of any session after the death starts it; the others find
    /// it started.
    pub(super) async fn revive(&self) -> Result<u64, ToolError> {
        {
            let chromium = self.chromium.read().await;
            match chromium.as_ref() {
                None => return Err(shutting_down()),
                Some(chromium) if !chromium.is_gone() => {
                    return Ok(self.restarts.load(Ordering::SeqCst));
                }
                Some(_) => {}
            }
        }
        // The write lock waits for the calls in flight, which end at once
        // on a dead browser.
        let mut chromium = self.chromium.write().await;
        let dead = match chromium.as_ref() {
            None => return Err(shutting_down()),
            Some(current) if !current.is_gone() => {
                return Ok(self.restarts.load(Ordering::SeqCst));
            }
            Some(dead) => dead,
        };
        let fresh = dead.restart().await.map_err(|err| {
            ToolError::new(
                Kind::BrowserGone,
                format!(
                    "{}; starting it again failed: {err:#}; {}",
                    gone_sentence(self.endpoint.as_deref()),
                    next_call(self.endpoint.as_deref())
                ),
            )
        })?;
        let dead = chromium.replace(fresh);
        if let Ok(mut contexts) = self.contexts.lock() {
            contexts.clear();
        }
        let generation = self.restarts.fetch_add(1, Ordering::SeqCst) + 1;
        drop(chromium);
        // The dead browser's process is reaped and its profile removed.
        if let Some(dead) = dead {
            let _ = dead.close().await;
        }
        Ok(generation)
    }

    pub(super) fn owns_context(&self, context: Option<&str>) -> bool {
        context.is_some_and(|c| self.contexts.lock().is_ok_and(|set| set.contains(c)))
    }
}

pub(super) fn shutting_down() -> ToolError {
    ToolError::new(Kind::Browser, "the server is shutting down")
}
