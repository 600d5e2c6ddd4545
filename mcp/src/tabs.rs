//! The browser the sessions share (the seed's engine, created once) and each session's browsing: its browser context, tabs, current tab, and each tab's last observation and refs, observing and acting through `pagesnap-browser`.
//!
//! A session's calls are serialised (one lock around its [`Browsing`]), so
//! an observation and an action never interleave on its tabs; the calls of
//! different sessions run side by side, each in its own browser context
//! unless the server shares one ([`Isolation`]).

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::{RwLock, RwLockReadGuard};

use pagesnap_browser::{
    Chromium, ChromiumSession, Failure, Kept, OpenOptions, Outcome, Source, TabError, UserAction,
};
use pagesnap_engine::dialog::Dialog;
use pagesnap_engine::observation::{Item, Observation};
use pagesnap_engine::passes::{Layer, Options};
use pagesnap_engine::strategy::Strategy;

use super::answer::{Changes, Freshness, Note, NoteKind, TabInfo};
use super::error::{Kind, ToolError};
use super::layers::Layers;
use super::policy;
use super::readiness::{self, Readiness};
use super::secrets::Secrets;

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
    /// Whether a snapshot of an unchanged page renders its last capture again.
    pub reuse_captures: bool,
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

/// The browser every session uses, and the server's configuration.
pub struct Shared {
    /// None once closed (the server is stopping). Each call holds a read
    /// lock; closing waits for the calls in flight.
    chromium: RwLock<Option<Chromium>>,
    /// How many times a browser was started in a dead one's place: a
    /// session whose tabs belong to an earlier one has lost them.
    restarts: AtomicU64,
    /// The endpoint of an attached browser (none: pagesnap launched it),
    /// the same for every browser in its place.
    endpoint: Option<String>,
    config: Config,
    /// The browser contexts the sessions made (tabs in them are no other
    /// session's, not even one on the default context).
    contexts: std::sync::Mutex<HashSet<String>>,
}

impl Shared {
    /// The browser and configuration the sessions will share.
    pub fn new(chromium: Chromium, config: Config) -> Shared {
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
    async fn revive(&self) -> Result<u64, ToolError> {
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

    fn owns_context(&self, context: Option<&str>) -> bool {
        context.is_some_and(|c| self.contexts.lock().is_ok_and(|set| set.contains(c)))
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

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.shared.config
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
            .tabs()
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

    /// Opens `url` in the current tab (or a new one when there is none).
    /// `Some(pending)` when the load did not finish within the page limit.
    pub async fn navigate(&mut self, url: &str) -> Result<Option<String>, ToolError> {
        policy::check_url(url, self.config().allow_file_urls)?;
        self.refuse_while_dialog()?;
        let options = self.config().open.clone();
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
                tab.last = None;
                tab.kept = None;
                tab.session.navigate(url, &options, network).await
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
                        Ok(())
                    }
                    Err(err) => Err(err),
                }
            }
        };
        match result {
            Ok(()) => {}
            Err(err) => match err.tab() {
                // The page is there, only not finished: show what there is.
                Some(TabError::NeverLoaded { .. } | TabError::OverLimit { .. })
                    if self.current.is_some() =>
                {
                    return Ok(Some(self.mask(&err.to_string())));
                }
                // The page asks first (beforeunload, a dialog during load):
                // the snapshot shows the dialog.
                Some(TabError::DialogOpen { .. }) if self.current.is_some() => return Ok(None),
                _ if err.is_browser_gone() => return Err(self.failed(&err).await),
                _ => {
                    self.forget_if_gone(&err);
                    return Err(ToolError::new(
                        Kind::Navigation,
                        self.mask(&format!(
                            "{err:#}{}",
                            policy::offline_hint(&err, self.config().network)
                        )),
                    ));
                }
            },
        }
        let tab = self.current()?;
        match readiness::wait(&tab.session, Readiness::NAVIGATE).await {
            Ok(pending) => Ok(pending),
            // A dialog opened as the page settled: the snapshot shows it.
            Err(err) if err.is_dialog_open() => Ok(None),
            Err(err) => Err(self.failed(&err).await),
        }
    }

    /// Goes back in the current tab; `false` when there was nothing to go back to.
    pub async fn back(&mut self) -> Result<bool, ToolError> {
        self.refuse_while_dialog()?;
        let limit = self.config().open.timeout;
        let tab = self.current_mut()?;
        tab.last = None;
        tab.kept = None;
        match tab.session.back(limit).await {
            Ok(moved) => Ok(moved),
            Err(err) if err.is_dialog_open() => Ok(true),
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

    /// Observes the current tab.
    pub async fn observe(&mut self, request: &Request) -> Result<Seen, ToolError> {
        let strategy = request.strategy.unwrap_or(self.config().strategy);
        let mut layers: Vec<Layer> = self.config().layers.layers.clone();
        let mut active = request
            .layers
            .clone()
            .unwrap_or_else(|| self.config().layers.default.clone());
        if let Some(reference) = &request.scope {
            let item = self.item(reference)?;
            let selector = self.selector_of(item.backend_id, reference).await?;
            layers.push(Layer {
                name: SCOPE_LAYER.to_owned(),
                selectors: vec![selector],
            });
            active = vec![SCOPE_LAYER.to_owned()];
        } else if let Some(unknown) = active
            .iter()
            .find(|name| !layers.iter().any(|l| &l.name == *name))
        {
            let known: Vec<&str> = layers.iter().map(|l| l.name.as_str()).collect();
            return Err(ToolError::new(
                Kind::BadArgument,
                format!(
                    "unknown layer {unknown:?} (configured: {})",
                    if known.is_empty() {
                        "none; configure them with --layers-config FILE".to_owned()
                    } else {
                        known.join(", ")
                    }
                ),
            ));
        }
        let id = self.current.clone().ok_or_else(no_tab)?;
        let Some(tab) = self.tabs.get_mut(&id) else {
            return Err(no_tab());
        };
        if let Some(dialog) = tab.session.dialog() {
            // The page is stopped: the dialog is all there is to see. The
            // last observation stays the one changes are counted from.
            tab.kept = None;
            let mut observation = dialog.observation(strategy.name());
            observation.text = self.mask_known(&observation.text);
            let tab = self.current()?;
            let freshness = Freshness {
                captured_at: pagesnap_browser::now_rfc3339(),
                url: tab.session.url().to_owned(),
                title: String::new(),
                tab: tab.session.target_id().to_owned(),
                reused: false,
                age_ms: None,
            };
            return Ok(Seen {
                observation,
                freshness,
                present: BTreeSet::new(),
            });
        }
        let options = Options {
            full_page: request.full_page.or(Some(false)),
            max_tokens: request.max_tokens,
            layers,
            active_layers: active,
            previous: tab.last.as_ref(),
            redact: true,
            screenshot: None,
        };
        if !self.shared.config.reuse_captures {
            tab.kept = None;
        }
        let observed = tab
            .session
            .observe_kept(strategy, &options, &mut tab.kept)
            .await;
        let (mut observation, source) = match observed {
            Ok(observed) => observed,
            Err(err) => return Err(self.failed(&err).await),
        };
        let tab = self.current()?;
        let Some(kept) = &tab.kept else {
            return Err(no_tab());
        };
        let recording = &kept.captured.recording;
        // Reused: the page has not changed since that capture (nothing in
        // its DOM, form values, scroll, size, focus or animations).
        let age_ms = match source {
            Source::Reused { age } => Some(u64::try_from(age.as_millis()).unwrap_or(u64::MAX)),
            Source::Captured => None,
        };
        let freshness = Freshness {
            captured_at: recording.captured_at.clone(),
            url: recording.url.clone(),
            title: self.mask(&recording.title),
            tab: tab.session.target_id().to_owned(),
            reused: age_ms.is_some(),
            age_ms,
        };
        observation.text = self.mask_known(&observation.text);
        let present = recording.nodes.iter().map(|n| n.backend_id).collect();
        let tab = self.current_mut()?;
        for item in &observation.meta.items {
            tab.refs.insert(item.reference.clone(), item.clone());
        }
        tab.last = Some(observation.clone());
        Ok(Seen {
            observation,
            freshness,
            present,
        })
    }

    /// The element a ref names in the current tab.
    pub fn item(&self, reference: &str) -> Result<Item, ToolError> {
        let tab = self.current()?;
        match tab.refs.get(reference) {
            Some(item) if item.backend_id != 0 => Ok(item.clone()),
            _ => Err(ToolError::new(
                Kind::UnknownRef,
                format!(
                    "unknown ref {reference:?}: this tab has shown no such ref; take a page_snapshot and use a ref from it"
                ),
            )),
        }
    }

    /// A CSS path to the node, for scoping a snapshot to its subtree.
    async fn selector_of(&self, backend_id: u64, reference: &str) -> Result<String, ToolError> {
        self.refuse_while_dialog()?;
        let tab = self.current()?;
        let answer = tab
            .session
            .call_function_on(backend_id, SELECTOR_JS, Vec::new())
            .await
            .map_err(|err| self.browser_error(&err))?;
        match answer.as_ref().and_then(serde_json::Value::as_str) {
            Some(selector) if !selector.is_empty() => Ok(selector.to_owned()),
            _ => Err(ToolError::new(
                Kind::Action(Failure::Stale),
                format!(
                    "ref {reference:?}: the element is no longer on the page, or lives in a shadow root or frame a snapshot cannot be scoped to"
                ),
            )),
        }
    }

    /// What is at viewport point `(x, y)` of the current tab (`button "Go"`).
    pub async fn element_at(&self, x: f64, y: f64) -> Result<Option<String>, ToolError> {
        self.refuse_while_dialog()?;
        let tab = self.current()?;
        tab.session
            .element_at(x, y)
            .await
            .map_err(|err| self.browser_error(&err))
    }

    /// The visible height of a scroll container, for scrolling it by screens.
    pub async fn client_height(&self, backend_id: u64) -> Result<f64, ToolError> {
        self.refuse_while_dialog()?;
        let tab = self.current()?;
        let answer = tab
            .session
            .call_function_on(
                backend_id,
                "function () { return this.clientHeight; }",
                Vec::new(),
            )
            .await
            .map_err(|err| self.browser_error(&err))?;
        match answer.and_then(|v| v.as_f64()) {
            Some(height) if height > 0.0 => Ok(height),
            Some(_) => Err(ToolError::new(
                Kind::Action(Failure::Hidden),
                "the element has no height on screen, so it cannot be scrolled",
            )),
            None => Err(ToolError::new(
                Kind::Action(Failure::Stale),
                Failure::Stale.message(),
            )),
        }
    }

    /// Performs `action` on the current tab as the live runner does, then
    /// waits for `readiness`.
    pub async fn act(
        &mut self,
        action: UserAction,
        readiness: Readiness,
    ) -> Result<Acted, ToolError> {
        let started = std::time::Instant::now();
        if !matches!(action, UserAction::Dialog { .. }) {
            self.refuse_while_dialog()?;
        }
        // The action changes the page: the next observation captures it.
        self.current_mut()?.kept = None;
        let tab = self.current()?;
        let before = match &action {
            UserAction::Scroll { .. } => Some(scroll_y(&tab.session).await),
            _ => None,
        };
        let outcome = tab.session.perform(&action).await;
        let mut pending = None;
        let note = match outcome {
            Ok(Outcome::Done { note }) => note,
            Ok(Outcome::Failed { kind, message }) => {
                return Err(ToolError::new(Kind::Action(kind), self.mask(&message)));
            }
            Err(err) => match err.tab() {
                // A click that started a navigation that did not finish.
                Some(TabError::NeverLoaded { .. } | TabError::OverLimit { .. }) => {
                    pending = Some(self.mask(&err.to_string()));
                    None
                }
                _ => return Err(self.failed(&err).await),
            },
        };
        if self.dialog().is_some() {
            // The page waits on a dialog (the action opened it, or another
            // is pending after an answer): nothing more can be asked of it.
            return Ok(Acted {
                note,
                pending: None,
                scroll: None,
                took: started.elapsed(),
            });
        }
        let tab = self.current_mut()?;
        // A tab the page opened comes to the front; the agent's tab stays
        // the one observed (a background tab paints no screenshot).
        let _ = tab.session.bring_to_front().await;
        tab.session.refresh_url().await;
        if pending.is_none() {
            let tab = self.current()?;
            pending = match readiness::wait(&tab.session, readiness).await {
                Ok(pending) => pending,
                Err(err) if err.is_dialog_open() => None,
                Err(err) => return Err(self.failed(&err).await),
            };
        }
        let tab = self.current()?;
        let scroll = match before {
            Some(before) => Some((before, scroll_y(&tab.session).await)),
            None => None,
        };
        Ok(Acted {
            note,
            pending,
            scroll,
            took: started.elapsed(),
        })
    }

    /// What changed between the tab's observation before an action and
    /// after ([`policy::changes`]).
    pub fn changes(before: Option<&Observation>, after: &Seen) -> Changes {
        policy::changes(
            before.map(|b| b.meta.items.as_slice()),
            &after.observation.meta.items,
            &after.present,
        )
    }

    /// The current tab's last observation.
    pub fn last(&self) -> Option<&Observation> {
        self.current().ok().and_then(|t| t.last.as_ref())
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
        // A background tab runs no animation frames: bring it to the front.
        if let Some(tab) = self.tabs.get(id) {
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
        session.close().await;
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

    /// A failed call on the current tab as a tool error: a tab that went
    /// (crashed, closed, its browser dead) is forgotten; a call the page left
    /// unanswered, when the page does not answer a trivial script either (a
    /// script that never yields holds its renderer), closes the tab — that
    /// tab's fault, not the browser's: other tabs and sessions live on — so
    /// that the next call does not wait out its limit again.
    async fn failed(&mut self, err: &pagesnap_browser::Error) -> ToolError {
        if is_unanswered(err)
            && let Some(id) = self.current.clone()
            && let Some(tab) = self.tabs.get(&id)
            && !tab.session.answers(HUNG_PROBE).await
        {
            self.current = None;
            if let Some(tab) = self.tabs.remove(&id) {
                tab.session.close_within(HUNG_CLOSE).await;
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
    fn browser_error(&self, err: &pagesnap_browser::Error) -> ToolError {
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

/// The layer a `ref`-scoped snapshot uses.
const SCOPE_LAYER: &str = "ref";

/// A CSS path from the document to `this` by `:nth-child` (empty in a shadow root or frame).
const SELECTOR_JS: &str = r#"function () {
  if (!this.isConnected || this.nodeType !== 1 || this.getRootNode() !== document) return '';
  const parts = [];
  for (let el = this; el && el.nodeType === 1 && el !== document.documentElement; el = el.parentElement) {
    const index = [...el.parentElement.children].indexOf(el) + 1;
    parts.unshift(el.tagName.toLowerCase() + ':nth-child(' + index + ')');
  }
  return ':root > ' + parts.join(' > ');
}"#;

/// How long a page that left a call unanswered gets to answer a trivial
/// script before its tab is taken for hung.
const HUNG_PROBE: std::time::Duration = std::time::Duration::from_secs(1);

/// How long the browser gets to close a hung tab before the answer goes.
const HUNG_CLOSE: std::time::Duration = std::time::Duration::from_secs(2);

/// A call the tab left unanswered within its limit.
fn is_unanswered(err: &pagesnap_browser::Error) -> bool {
    matches!(err.tab(), Some(TabError::NoAnswer { .. }))
}

fn shutting_down() -> ToolError {
    ToolError::new(Kind::Browser, "the server is shutting down")
}

/// What a dead browser was: pagesnap's own, or the one at an endpoint.
fn gone_sentence(endpoint: Option<&str>) -> String {
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
fn next_call(endpoint: Option<&str>) -> String {
    match endpoint {
        Some(endpoint) => format!(
            "the next call connects to {endpoint} again if it answers (pagesnap never starts a \
             browser in its place)"
        ),
        None => "the next call starts a new browser (the tabs are lost)".to_owned(),
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

fn no_tab() -> ToolError {
    ToolError::new(
        Kind::NoTab,
        "no tab is open: open a page with page_navigate {\"url\": …} (or choose one with page_tabs)",
    )
}

async fn scroll_y(session: &ChromiumSession) -> f64 {
    session
        .eval("window.scrollY")
        .await
        .ok()
        .and_then(|v| v.as_f64())
        .unwrap_or(0.0)
}
