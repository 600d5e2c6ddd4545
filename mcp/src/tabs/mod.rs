//! The browser the sessions share (the seed's engine, created once) and each session's browsing: its browser context, tabs, current tab, and each tab's last observation and refs, observing and acting through `pagesnap-browser`.
//!
//! A session's calls are serialised (one lock around its [`Browsing`]), so
//! an observation and an action never interleave on its tabs; the calls of
//! different sessions run side by side, each in its own browser context
//! unless the server shares one ([`Isolation`]).
//!
//! Here the session's state and its navigation, actions and tabs; the shared
//! browser in [`shared`], what a failed call becomes in [`failure`], and
//! observing in [`observe`].

mod failure;
mod observe;
mod shared;

pub use shared::Shared;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use tokio::sync::RwLockReadGuard;

use pagesnap_browser::{
    Arrival, Axis, Chromium, ChromiumSession, Failure, Kept, OpenOptions, Outcome, Performed,
    Readiness, Settled, TabError, UserAction,
};
use pagesnap_engine::dialog::Dialog;
use pagesnap_engine::observation::{Item, Observation};
use pagesnap_engine::strategy::Strategy;

use crate::answer::{DownloadReport, Freshness, Note, TabInfo};
use crate::error::{Kind, ToolError};
use crate::layers::Layers;
use crate::policy;
use crate::secrets::Secrets;
use failure::{gone_sentence, next_call};
use shared::shutting_down;

/// How long the browser gets to drop a tab this server closed (page_tabs
/// close, or a hung tab) before the answer goes: a listing after the answer
/// no longer shows it. `Page.close` is answered before the tab is gone.
const TAB_CLOSE: std::time::Duration = std::time::Duration::from_secs(2);

/// How the server was configured.
pub struct Config {
    /// The strategy a snapshot uses when it names none.
    pub strategy: &'static dyn Strategy,
    /// Viewport, load limit, wait.
    pub open: OpenOptions,
    /// Whether pages may reach hosts other than loopback.
    pub network: bool,
    /// Layers and default layers.
    pub layers: Layers,
    /// Known secrets.
    pub secrets: Secrets,
    /// Whether `file:` URLs may be opened.
    pub allow_file_urls: bool,
    /// Whether a snapshot of an unchanged page renders its last capture again
    /// (its change tracker installed in the page); off, every snapshot
    /// captures anew and the page holds nothing of pagesnap's.
    pub reuse_captures: bool,
    /// Observe only (`--observe-only`, attached to someone else's browser):
    /// the tools that act are not offered, and nothing the server does
    /// changes the page — no tab opened, none brought to the front, no
    /// dialog answered, no change tracker installed.
    pub observe_only: bool,
}

impl Config {
    /// Whether snapshots install the change tracker and reuse unchanged
    /// captures: asked for (`reuse_captures`) and not observing only.
    pub fn tracks_changes(&self) -> bool {
        self.reuse_captures && !self.observe_only
    }
}

/// One tab pagesnap has observed or acted on.
struct TabState {
    session: ChromiumSession,
    /// The last observation (stable refs, new-element marks, `changes`).
    last: Option<Observation>,
    /// Every ref this tab has shown, with its element: a node keeps its ref.
    refs: BTreeMap<String, Item>,
    /// The last capture, rendered again while the page still shows it.
    kept: Option<Kept>,
}

impl TabState {
    fn new(session: ChromiumSession) -> TabState {
        TabState {
            session,
            last: None,
            refs: BTreeMap::new(),
            kept: None,
        }
    }
}

/// Which browser context a session's tabs live in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Isolation {
    /// The browser's default context, shared with every session that uses
    /// it (stdio's one session; `--shared-context`).
    Default,
    /// A context of the session's own, made at its first tab (`None` until
    /// then) and closed with the session: its own cookies, storage and tabs.
    Own(Option<String>),
}

/// One session's browsing: its tabs, its current tab.
pub struct Browsing {
    shared: Arc<Shared>,
    isolation: Isolation,
    tabs: BTreeMap<String, TabState>,
    current: Option<String>,
    /// Tab ids already reported, so that a tab the page opens is announced once.
    known_tabs: BTreeSet<String>,
    /// The browser generation ([`Shared::revive`]) this session's tabs and
    /// context belong to.
    generation: u64,
    /// Told with the next answer: the browser was started again.
    notes: Vec<Note>,
}

/// What one observation produced.
pub struct Seen {
    /// The observation (text and meta already masked).
    pub observation: Observation,
    /// `freshness` for the meta.
    pub freshness: Freshness,
    /// Backend node ids of every node on the page (not only those shown),
    /// so that an element scrolled out of view is not reported removed.
    pub present: BTreeSet<u64>,
    /// Where the time of a fresh capture went (`None`: an earlier capture
    /// rendered again, or a dialog shown).
    pub captured: Option<pagesnap_browser::Timings>,
}

/// What a snapshot asks for.
#[derive(Default)]
pub struct Request {
    /// The strategy (none: the server's default).
    pub strategy: Option<&'static dyn Strategy>,
    /// Whole page instead of the viewport.
    pub full_page: Option<bool>,
    /// Token budget.
    pub max_tokens: Option<usize>,
    /// Layer ids (none: the configured default layers).
    pub layers: Option<Vec<String>>,
    /// Limit to one element's subtree.
    pub scope: Option<String>,
    /// Show text no person can see instead of withholding it.
    pub show_hidden: bool,
}

/// What an action did, for its result.
pub struct Acted {
    /// A note from the actuator (a scroll that could not move).
    pub note: Option<String>,
    /// What was still going on when the readiness budget ran out.
    pub pending: Option<String>,
    /// Page scroll before and after (page_scroll).
    pub scroll: Option<(f64, f64)>,
    /// How long the action and its readiness wait took.
    pub took: std::time::Duration,
    /// Of that, the readiness wait.
    pub settled_in: std::time::Duration,
    /// A new document replaced the one acted on.
    pub navigated: bool,
}

impl Browsing {
    /// Browsing on the browser's default context, with no tab selected
    /// (attached: the browser's first tab).
    pub async fn new(shared: Arc<Shared>) -> anyhow::Result<Browsing> {
        let (tabs, attached) = {
            let chromium = shared.chromium.read().await;
            match chromium.as_ref() {
                Some(chromium) => (chromium.tabs().await?, chromium.attached()),
                None => (Vec::new(), false),
            }
        };
        let mut browsing = Browsing::with(shared, Isolation::Default);
        browsing.known_tabs = tabs.iter().map(|t| t.id.clone()).collect();
        if attached && let Some(first) = tabs.first() {
            browsing.select(&first.id.clone()).await?;
        }
        Ok(browsing)
    }

    /// Browsing in a browser context of its own, made when its first tab opens.
    pub fn isolated(shared: Arc<Shared>) -> Browsing {
        Browsing::with(shared, Isolation::Own(None))
    }

    fn with(shared: Arc<Shared>, isolation: Isolation) -> Browsing {
        let generation = shared.restarts.load(Ordering::SeqCst);
        Browsing {
            shared,
            isolation,
            tabs: BTreeMap::new(),
            current: None,
            known_tabs: BTreeSet::new(),
            generation,
            notes: Vec::new(),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.shared.config
    }

    /// The current tab's downloads not yet told ([`pagesnap_browser::ChromiumSession::downloads`]),
    /// now counted as told; each is also a note for this call's answer.
    pub async fn downloads(&mut self) -> Vec<DownloadReport> {
        let downloads: Vec<DownloadReport> = match self.current() {
            Ok(state) => state.session.downloads().await,
            Err(_) => Vec::new(),
        }
        .into_iter()
        .map(DownloadReport::from)
        .collect();
        self.notes
            .extend(downloads.iter().map(DownloadReport::note));
        downloads
    }

    /// Which context this session's tabs live in.
    pub fn isolation(&self) -> &Isolation {
        &self.isolation
    }

    async fn chromium(&self) -> Result<RwLockReadGuard<'_, Chromium>, ToolError> {
        let chromium = RwLockReadGuard::try_map(self.shared.chromium.read().await, Option::as_ref)
            .map_err(|_| shutting_down())?;
        if chromium.is_gone() {
            return Err(ToolError::new(
                Kind::BrowserGone,
                format!(
                    "{}; {}",
                    gone_sentence(self.shared.endpoint.as_deref()),
                    next_call(self.shared.endpoint.as_deref())
                ),
            ));
        }
        Ok(chromium)
    }

    /// The context a new tab of this session opens in, made on first use.
    async fn context(&mut self) -> Result<Option<String>, ToolError> {
        match &self.isolation {
            Isolation::Default => Ok(None),
            Isolation::Own(Some(id)) => Ok(Some(id.clone())),
            Isolation::Own(None) => {
                let id = self
                    .chromium()
                    .await?
                    .create_context()
                    .await
                    .map_err(|err| ToolError::new(Kind::Browser, format!("{err:#}")))?;
                if let Ok(mut contexts) = self.shared.contexts.lock() {
                    contexts.insert(id.clone());
                }
                self.isolation = Isolation::Own(Some(id.clone()));
                Ok(Some(id))
            }
        }
    }

    /// Whether `tab` is this session's to see: in its own context, or (on the
    /// default context) in none another session made.
    fn is_mine(&self, tab: &pagesnap_browser::Tab) -> bool {
        match &self.isolation {
            Isolation::Default => !self.shared.owns_context(tab.context.as_deref()),
            Isolation::Own(own) => own.is_some() && tab.context == *own,
        }
    }

    /// This session's tabs as the browser lists them.
    async fn my_tabs(&self) -> Result<Vec<pagesnap_browser::Tab>, ToolError> {
        let tabs = self
            .chromium()
            .await?
            .tabs_named(|t| self.is_mine(t) && !self.known_tabs.contains(&t.id))
            .await
            .map_err(|err| ToolError::new(Kind::Browser, format!("{err:#}")))?;
        Ok(tabs.into_iter().filter(|t| self.is_mine(t)).collect())
    }

    fn current(&self) -> Result<&TabState, ToolError> {
        self.current
            .as_ref()
            .and_then(|id| self.tabs.get(id))
            .ok_or_else(no_tab)
    }

    fn current_mut(&mut self) -> Result<&mut TabState, ToolError> {
        let id = self.current.clone().ok_or_else(no_tab)?;
        self.tabs.get_mut(&id).ok_or_else(no_tab)
    }

    /// A gone tab is forgotten, so the next call says there is no tab rather
    /// than failing on it again.
    fn forget_if_gone(&mut self, err: &pagesnap_browser::Error) {
        if err.is_gone()
            && let Some(id) = self.current.take()
        {
            self.tabs.remove(&id);
        }
    }

    /// Opens `url` in the current tab (or a new one when there is none):
    /// `Some(pending)` when the load did not finish within the page limit,
    /// and what arrived (a new tab's first page counts as a document).
    pub async fn navigate(&mut self, url: &str) -> Result<(Option<String>, Arrival), ToolError> {
        policy::check_url(url, self.config().allow_file_urls)?;
        self.refuse_while_dialog()?;
        // The load settles on evidence: the probe is armed from the
        // document's start for the `settle_to` below.
        let options = OpenOptions {
            follow_load: true,
            ..self.config().open.clone()
        };
        // The browser's own offline hint names a recorder's flag; the
        // server says its own below.
        let network = true;
        let context = if self.current.is_none() {
            self.context().await?
        } else {
            None
        };
        let result = match self.current_mut() {
            Ok(tab) => {
                let last = tab.last.take();
                tab.kept = None;
                let arrival = tab.session.navigate(url, &options, network).await;
                // The document stayed: its refs and marks go on from it.
                if matches!(arrival, Ok(Arrival::SameDocument | Arrival::Download)) {
                    tab.last = last;
                }
                arrival
            }
            Err(_) => {
                let opened = self
                    .chromium()
                    .await?
                    .open_in(url, &options, context.as_deref())
                    .await;
                match opened {
                    Ok(session) => {
                        let id = session.target_id().to_owned();
                        self.known_tabs.insert(id.clone());
                        self.tabs.insert(id.clone(), TabState::new(session));
                        self.current = Some(id);
                        // A first page: nothing to compare it with.
                        Ok(Arrival::Document)
                    }
                    Err(err) => Err(err),
                }
            }
        };
        let arrival = match result {
            Ok(arrival) => arrival,
            Err(err) => match err.tab() {
                // The page is there, only not finished: show what there is.
                Some(TabError::NeverLoaded { .. } | TabError::OverLimit { .. })
                    if self.current.is_some() =>
                {
                    return Ok((Some(self.mask(&err.to_string())), Arrival::Document));
                }
                // The page asks first (beforeunload, a dialog during load):
                // the snapshot shows the dialog.
                Some(TabError::DialogOpen { .. }) if self.current.is_some() => {
                    return Ok((None, Arrival::Document));
                }
                // The browser, or the tab's renderer, died under the load:
                // `browser-gone` or `tab-gone`, the tab forgotten.
                _ if err.is_gone() => return Err(self.failed(&err).await),
                _ => {
                    return Err(ToolError::new(
                        Kind::Navigation,
                        self.mask(&format!(
                            "{err:#}{}",
                            policy::offline_hint(&err, self.config().network)
                        )),
                    ));
                }
            },
        };
        let tab = self.current()?;
        match tab.session.settle_to(Readiness::NAVIGATE).await {
            Ok(settled) => Ok((settled.pending, arrival)),
            // A dialog opened as the page settled: the snapshot shows it.
            Err(err) if err.is_dialog_open() => Ok((None, arrival)),
            Err(err) => Err(self.failed(&err).await),
        }
    }

    /// Goes back in the current tab: how the page's settling ended (a
    /// dialog that opened meanwhile counts as settled: the snapshot shows
    /// it); `None` when there was nothing to go back to.
    pub async fn back(&mut self) -> Result<Option<Settled>, ToolError> {
        self.refuse_while_dialog()?;
        let limit = self.config().open.timeout;
        let tab = self.current_mut()?;
        tab.last = None;
        tab.kept = None;
        match tab.session.back(limit).await {
            Ok(settled) => Ok(settled),
            Err(err) if err.is_dialog_open() => Ok(Some(Settled::default())),
            Err(err) => Err(self.failed(&err).await),
        }
    }

    /// The dialog the current tab's page waits on, if any.
    pub fn dialog(&self) -> Option<Dialog> {
        self.current().ok().and_then(|tab| tab.session.dialog())
    }

    /// `dialog-pending` while the current tab's page waits on a dialog:
    /// nothing but its answer runs until then.
    pub fn refuse_while_dialog(&self) -> Result<(), ToolError> {
        match self.dialog() {
            Some(dialog) => Err(ToolError::new(
                Kind::Action(Failure::DialogPending),
                self.mask(&Failure::dialog_pending(&dialog)),
            )),
            None => Ok(()),
        }
    }

    /// Performs `action` on the current tab as the live runner does, the
    /// page then given [`Readiness::of`] the action to settle.
    pub async fn act(&mut self, action: UserAction) -> Result<Acted, ToolError> {
        let started = std::time::Instant::now();
        if !matches!(action, UserAction::Dialog { .. }) {
            self.refuse_while_dialog()?;
        }
        // The action changes the page: the next observation captures it —
        // but after a scroll of the page alone, the kept capture is moved
        // to where it stands when nothing else changed (`Kept::shows`).
        if !matches!(
            action,
            UserAction::Scroll {
                backend_id: None,
                ..
            }
        ) {
            self.current_mut()?.kept = None;
        }
        let tab = self.current()?;
        // A scroll's scroller, and where it stood before.
        let before = match &action {
            UserAction::Scroll {
                backend_id, axis, ..
            } => {
                let scroller = (*backend_id, *axis);
                Some((scroller, scrolled(&tab.session, scroller).await))
            }
            _ => None,
        };
        let performed = tab
            .session
            .perform_ready(&action, Readiness::of(&action))
            .await;
        let (note, settled) = match performed {
            Ok(Performed {
                outcome: Outcome::Done { note },
                settled,
            }) => (note, settled),
            Ok(Performed {
                outcome: Outcome::Failed { kind, message },
                ..
            }) => {
                return Err(ToolError::new(Kind::Action(kind), self.mask(&message)));
            }
            Err(err) => match err.tab() {
                // A click that started a navigation that did not finish.
                Some(TabError::NeverLoaded { .. } | TabError::OverLimit { .. }) => (
                    None,
                    Settled {
                        pending: Some(err.to_string()),
                        ..Settled::default()
                    },
                ),
                _ => return Err(self.failed(&err).await),
            },
        };
        // A note may quote a field's value, and what the page was still
        // doing its text: either may hold a secret.
        let note = note.map(|note: String| self.mask(&note));
        let pending = settled.pending.map(|pending| self.mask(&pending));
        let (settled_in, navigated) = (settled.waited, settled.navigated);
        if self.dialog().is_some() {
            // The page waits on a dialog (the action opened it, or another
            // is pending after an answer): nothing more can be asked of it.
            return Ok(Acted {
                note,
                pending: None,
                scroll: None,
                took: started.elapsed(),
                settled_in,
                navigated,
            });
        }
        let tab = self.current_mut()?;
        // A tab the page opened comes to the front; the agent's tab stays
        // the one observed (a background tab paints no screenshot).
        let _ = tab.session.bring_to_front().await;
        tab.session.refresh_url().await;
        let tab = self.current()?;
        let scroll = match before {
            Some((scroller, before)) => Some((before, scrolled(&tab.session, scroller).await)),
            None => None,
        };
        Ok(Acted {
            note,
            pending,
            scroll,
            took: started.elapsed(),
            settled_in,
            navigated,
        })
    }

    /// Tabs the page opened since the last look (announced once, never followed).
    pub async fn new_tabs(&mut self) -> Vec<pagesnap_browser::Tab> {
        let Ok(tabs) = self.my_tabs().await else {
            return Vec::new();
        };
        let mut fresh = Vec::new();
        for tab in tabs {
            if self.known_tabs.insert(tab.id.clone()) {
                fresh.push(tab);
            }
        }
        fresh
    }

    /// Every tab, with which one is current.
    pub async fn list_tabs(&mut self) -> Result<Vec<TabInfo>, ToolError> {
        let tabs = self.my_tabs().await?;
        for tab in &tabs {
            self.known_tabs.insert(tab.id.clone());
        }
        Ok(tabs
            .iter()
            .filter(|t| !policy::is_browser_page(&t.url))
            .map(|t| TabInfo {
                id: t.id.clone(),
                url: self.mask(&t.url),
                title: self.mask(&t.title),
                current: self.current.as_deref() == Some(t.id.as_str()),
                opener: t.opener.clone(),
            })
            .collect())
    }

    /// Makes tab `id` the current one.
    pub async fn select(&mut self, id: &str) -> Result<(), ToolError> {
        if !self.tabs.contains_key(id) {
            if !self.my_tabs().await?.iter().any(|t| t.id == id) {
                return Err(no_such_tab(id));
            }
            let limit = self.config().open.timeout;
            let session = self
                .chromium()
                .await?
                .adopt(id, limit)
                .await
                .map_err(|err| ToolError::new(Kind::NoTab, format!("{err:#}")))?;
            self.tabs.insert(id.to_owned(), TabState::new(session));
        }
        // A background tab runs no animation frames: bring it to the front
        // (observing only, the tab at the front stays the one its owner put there).
        if let Some(tab) = self.tabs.get(id).filter(|_| !self.config().observe_only) {
            let _ = tab.session.bring_to_front().await;
        }
        self.current = Some(id.to_owned());
        Ok(())
    }

    /// Closes tab `id`; the current tab is then none.
    pub async fn close_tab(&mut self, id: &str) -> Result<(), ToolError> {
        if !self.my_tabs().await?.iter().any(|t| t.id == id) {
            return Err(no_such_tab(id));
        }
        let limit = self.config().open.timeout;
        let session = match self.tabs.remove(id) {
            Some(tab) => tab.session,
            None => self
                .chromium()
                .await?
                .adopt(id, limit)
                .await
                .map_err(|err| ToolError::new(Kind::NoTab, format!("{err:#}")))?,
        };
        session.close_within(TAB_CLOSE).await;
        if self.current.as_deref() == Some(id) {
            self.current = None;
        }
        Ok(())
    }

    /// `text` (a message, a URL, a title: not already through the engine)
    /// with secret-like values redacted, then known secrets named.
    pub fn mask(&self, text: &str) -> String {
        let redacted = pagesnap_engine::passes::redact::redact_text(text).0;
        self.config().secrets.mask(&redacted)
    }

    /// Text the engine already redacted, with known secrets named.
    pub fn mask_known(&self, text: &str) -> String {
        self.config().secrets.mask(text)
    }
}

fn no_such_tab(id: &str) -> ToolError {
    ToolError::new(
        Kind::NoTab,
        format!(
            "no tab with id {id:?} in this session (list them with page_tabs {{\"op\": \"list\"}})"
        ),
    )
}

/// A session's own context closes with it: its tabs, cookies and storage go.
impl Drop for Browsing {
    fn drop(&mut self) {
        let Isolation::Own(Some(id)) = &self.isolation else {
            return;
        };
        let (id, shared) = (id.clone(), self.shared.clone());
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                if let Some(chromium) = shared.chromium.read().await.as_ref() {
                    let _ = chromium.dispose_context(&id).await;
                }
                if let Ok(mut contexts) = shared.contexts.lock() {
                    contexts.remove(&id);
                }
            });
        }
    }
}

pub(super) fn no_tab() -> ToolError {
    ToolError::new(
        Kind::NoTab,
        "no tab is open: open a page with page_navigate {\"url\": …} (or choose one with page_tabs)",
    )
}

/// How far the page (`None`) or the scroll container is scrolled down (or
/// right); 0 where it cannot be read.
async fn scrolled(session: &ChromiumSession, (scroller, axis): (Option<u64>, Axis)) -> f64 {
    session
        .scrolled(scroller, axis)
        .await
        .ok()
        .flatten()
        .unwrap_or(0.0)
}
