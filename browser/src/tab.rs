//! The tab handle every part of a session borrows: the CDP page and target, the URL it shows, the limit and deadline each call is held to, the phase that names a call cut by it, and the object-group policy.
//!
//! Capture ([`crate::capture`]), input ([`crate::input`]) and navigation
//! ([`crate::navigation`]) each borrow a [`TabHandle`] and issue their calls
//! through [`TabHandle::call`], so that a crashed or closed tab, a pending
//! dialog, a navigation under a call and a budget run out are named the same
//! way whichever part made the call.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use chromiumoxide::Page as CdpPage;
use chromiumoxide::cdp::browser_protocol::dom::{BackendNodeId, ResolveNodeParams};
use chromiumoxide::cdp::browser_protocol::target::TargetId;
use chromiumoxide::cdp::js_protocol::runtime::{
    CallFunctionOnParams, EvaluateParams, ReleaseObjectGroupParams, ReleaseObjectParams,
    RemoteObjectId,
};
use pagesnap_engine::dialog::Dialog;

use crate::capture::KeptBoxes;
use crate::dialogs::{DialogPolicy, Dialogs};
use crate::documents::Documents;
use crate::downloads::{Download, Downloads};
use crate::error::{Error, Result};
use crate::failure::{Phase, TabError};
use crate::frames::Route;
use crate::gone::{Gone, Watch};
use crate::target::BLANK;
use crate::waits;

/// What Chromium's blank page (`about:blank`) means to
/// [`TabHandle::wait_loaded`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Blank {
    /// The tab before the navigation asked for has committed (a tab
    /// starts blank): waited on, unless it is the page asked for.
    BeforeCommit,
    /// A document that replaced the one acted on: the page took itself
    /// there (`location.href = 'about:blank'`), and it is loaded.
    Loaded,
}

/// One open tab as every call sees it.
pub(crate) struct TabHandle {
    page: CdpPage,
    target: TargetId,
    /// The URL loaded (`file:///…` for local files).
    url: String,
    /// The page as given (`file:fixtures/…` for local files).
    display_url: String,
    watch: Watch,
    /// The browser's downloads (see `crate::downloads`).
    downloads: Downloads,
    /// How many the browser had reported when this handle was made: a
    /// new tab's downloads after it are its first page's.
    downloads_at_open: usize,
    /// How long one CDP call may go unanswered; when recording, also the
    /// page's whole budget.
    limit: Duration,
    /// When recording: the moment the page's budget runs out. Every call
    /// waits at most until then.
    deadline: Option<Instant>,
    /// What the session is doing, for naming a call cut by the deadline.
    phase: std::sync::Mutex<Phase>,
    /// Numbers the object groups script handles live in ([`Self::object_group`]).
    groups: AtomicU64,
    /// The page's JavaScript dialogs.
    dialogs: Dialogs,
    /// The documents it has shown (a failed call's navigation).
    documents: Documents,
    /// What the capture's facts script read of the stylesheets (their hover
    /// and focus rules): offered back to the script while the tab shows that
    /// document.
    sheet_scan: PerDocument<String>,
    /// A handle on the document (in no object group: kept across captures,
    /// where each capture's own group is released), for the capture's
    /// listener call: asked once per document.
    document: PerDocument<RemoteObjectId>,
    /// Handles on the elements whose scroll boxes the last capture read, for
    /// the next capture of the same document to read them before its snapshot.
    boxes: PerDocument<Arc<KeptBoxes>>,
}

/// A value read of one document, with the document count it was read at:
/// given back while the tab shows that document.
struct PerDocument<T>(std::sync::Mutex<Option<(u64, T)>>);

impl<T: Clone> PerDocument<T> {
    fn new() -> PerDocument<T> {
        PerDocument(std::sync::Mutex::new(None))
    }

    /// The value kept for the document shown at count `now`.
    fn get(&self, now: u64) -> Option<T> {
        let kept = self.0.lock().ok()?;
        kept.as_ref()
            .filter(|(documents, _)| *documents == now)
            .map(|(_, value)| value.clone())
    }

    /// Keeps `value`, read of the document shown at count `documents`.
    fn keep(&self, documents: u64, value: T) {
        if let Ok(mut kept) = self.0.lock() {
            *kept = Some((documents, value));
        }
    }

    /// Takes out a value kept for another document than the one shown at
    /// count `now` (to release what it holds).
    fn take_stale(&self, now: u64) -> Option<T> {
        let mut kept = self.0.lock().ok()?;
        if kept
            .as_ref()
            .is_some_and(|(documents, _)| *documents != now)
        {
            kept.take().map(|(_, value)| value)
        } else {
            None
        }
    }

    /// Forgets the kept value.
    fn forget(&self) {
        if let Ok(mut kept) = self.0.lock() {
            *kept = None;
        }
    }
}

/// What a session hears from its tab, from the moment it is made: its
/// JavaScript dialogs and its document changes.
pub(crate) struct Heard {
    dialogs: Dialogs,
    documents: Documents,
}

impl Heard {
    /// Starts listening to `page` (its dialogs under `policy`).
    pub(crate) async fn listen(page: &CdpPage, policy: DialogPolicy) -> Result<Heard> {
        Ok(Heard {
            dialogs: Dialogs::listen(page, policy).await?,
            documents: Documents::listen(page).await?,
        })
    }
}

impl TabHandle {
    /// A handle on `page` (what it heard since `heard` began listening) showing `url` (stored as [`crate::display_url`]
    /// gives it), its calls limited to `limit` and, when recording, ending by
    /// `deadline`.
    pub(crate) fn new(
        page: CdpPage,
        heard: Heard,
        url: String,
        watch: Watch,
        downloads: Downloads,
        limit: Duration,
        deadline: Option<Instant>,
    ) -> TabHandle {
        TabHandle {
            display_url: crate::target::display_url(&url),
            url,
            target: page.target_id().clone(),
            page,
            watch,
            downloads_at_open: downloads.mark(),
            downloads,
            limit,
            deadline,
            phase: std::sync::Mutex::new(Phase::Load),
            groups: AtomicU64::new(0),
            dialogs: heard.dialogs,
            documents: heard.documents,
            sheet_scan: PerDocument::new(),
            document: PerDocument::new(),
            boxes: PerDocument::new(),
        }
    }

    /// The document count now, and the stylesheet scan kept for that
    /// document, if any (a scan made from here on is kept with this count).
    pub(crate) fn sheet_scan(&self) -> (u64, Option<String>) {
        let now = self.documents.now();
        (now, self.sheet_scan.get(now))
    }

    /// Keeps `scan`, read of the document the tab showed at count `documents`.
    pub(crate) fn keep_sheet_scan(&self, documents: u64, scan: String) {
        self.sheet_scan.keep(documents, scan);
    }

    /// The document count now, the handle on that document kept, if any,
    /// and one kept at an earlier count (taken out, to be released: a frame's
    /// navigation moves the count while the document stays).
    pub(crate) fn document(&self) -> (u64, Option<RemoteObjectId>, Option<RemoteObjectId>) {
        let now = self.documents.now();
        let stale = self.document.take_stale(now);
        (now, self.document.get(now), stale)
    }

    /// Keeps `handle`, on the document the tab showed at count `documents`.
    pub(crate) fn keep_document(&self, documents: u64, handle: RemoteObjectId) {
        self.document.keep(documents, handle);
    }

    /// Forgets the kept document handle (a call through it failed).
    pub(crate) fn forget_document(&self) {
        self.document.forget();
    }

    /// The document count now, the scroll-box handles kept for that
    /// document, if any, and those kept for an earlier one (taken out, to be
    /// released: a frame's navigation moves the count while the document
    /// and its handles stay).
    pub(crate) fn kept_boxes(&self) -> (u64, Option<Arc<KeptBoxes>>, Option<Arc<KeptBoxes>>) {
        let now = self.documents.now();
        let stale = self.boxes.take_stale(now);
        (now, self.boxes.get(now), stale)
    }

    /// Keeps `boxes`, resolved in the document the tab showed at count `documents`.
    pub(crate) fn keep_boxes(&self, documents: u64, boxes: Arc<KeptBoxes>) {
        self.boxes.keep(documents, boxes);
    }

    /// Forgets the kept scroll-box handles (their elements changed, or they
    /// no longer answer).
    pub(crate) fn forget_boxes(&self) {
        self.boxes.forget();
    }

    /// The CDP page every call goes through.
    pub(crate) fn page(&self) -> &CdpPage {
        &self.page
    }

    /// The tab's CDP target id.
    pub(crate) fn target_id(&self) -> &str {
        self.target.as_ref()
    }

    /// How many downloads the browser has reported so far (see
    /// `crate::downloads`): a wait takes those after it as its action's.
    pub(crate) fn downloads_mark(&self) -> usize {
        self.downloads.mark()
    }

    /// This tab's downloads reported after `mark`, as they are now.
    pub(crate) async fn downloads_since(&self, mark: usize) -> Vec<Download> {
        self.place_downloads(mark).await;
        self.downloads.of_since(self.target_id(), mark)
    }

    /// Whether a download of this tab's began after `mark`: when one has,
    /// it is given [`waits::DOWNLOAD_ARRIVAL`] to finish arriving (a later
    /// answer tells a file still arriving then).
    pub(crate) async fn downloaded_since(&self, mark: usize) -> bool {
        let started = Instant::now();
        let mut begun = false;
        loop {
            let downloads = self.downloads_since(mark).await;
            begun |= !downloads.is_empty();
            if !begun
                || !downloads.iter().any(|d| d.state.arriving())
                || started.elapsed() >= waits::DOWNLOAD_ARRIVAL
            {
                return begun;
            }
            tokio::time::sleep(waits::LOAD_POLL).await;
        }
    }

    /// This tab's downloads whose state its answers have not told yet, now
    /// counted as told.
    pub(crate) async fn download_news(&self) -> Vec<Download> {
        self.place_downloads(0).await;
        self.downloads.news(self.target_id())
    }

    /// Takes the downloads reported after `mark` that this tab's page began
    /// as its own: by its top frame, or (looked up only while some download
    /// is no tab's yet) by a frame inside it.
    async fn place_downloads(&self, mark: usize) {
        self.downloads.place(self.target_id(), &[]);
        if !self.downloads.unplaced_since(mark) {
            return;
        }
        let frames: Vec<String> = self
            .call("Page.getFrameTree", self.page.frames())
            .await
            .unwrap_or_default()
            .into_iter()
            .map(|frame| frame.as_ref().to_owned())
            .collect();
        self.downloads.place(self.target_id(), &frames);
    }

    /// The URL loaded (`file:///…` for local files).
    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    /// The page as given (`file:fixtures/…` for local files).
    pub(crate) fn display_url(&self) -> &str {
        &self.display_url
    }

    /// Names the page the tab now shows: `url` as loaded, `display_url` as given.
    pub(crate) fn set_location(&mut self, url: String, display_url: String) {
        self.url = url;
        self.display_url = display_url;
    }

    /// How long one call may go unanswered.
    pub(crate) fn limit(&self) -> Duration {
        self.limit
    }

    /// Holds every later call to `limit`.
    pub(crate) fn set_limit(&mut self, limit: Duration) {
        self.limit = limit;
    }

    /// The page's JavaScript dialogs.
    pub(crate) fn dialogs(&self) -> &Dialogs {
        &self.dialogs
    }

    /// The JavaScript dialog the page waits on, if any.
    pub(crate) fn dialog(&self) -> Option<Dialog> {
        self.dialogs.pending()
    }

    /// Closes the tab.
    pub(crate) async fn close(&self) {
        let _ = self.call("Page.close", self.page.clone().close()).await;
    }

    /// Closes the tab and waits, at most `within`, until the browser says it
    /// is gone (a page that never yields is closed by the browser itself,
    /// a moment after it is asked).
    pub(crate) async fn close_within(&self, within: std::time::Duration) {
        self.close().await;
        let _ = tokio::time::timeout(within, self.watch.until_gone(&self.target)).await;
    }

    /// A handle on node `id` (a backend node id of `route`'s document) in
    /// object `group`; `Ok(None)` when the protocol gives the node no object.
    pub(crate) async fn resolve_node(
        &self,
        route: &Route,
        id: i64,
        group: &str,
    ) -> Result<Option<RemoteObjectId>, TabError> {
        let resolved = self
            .call(
                "DOM.resolveNode",
                route.execute(
                    &self.page,
                    ResolveNodeParams::builder()
                        .backend_node_id(BackendNodeId::new(id))
                        .object_group(group)
                        .build(),
                ),
            )
            .await?;
        Ok(resolved.result.object.object_id)
    }

    /// Calls a function on a handle (`params`, answered by value) in
    /// `route`'s session: its value (`null` when it returned nothing), or
    /// the exception it threw as [`Error::Script`], its message led by
    /// `what`.
    pub(crate) async fn call_function(
        &self,
        route: &Route,
        params: CallFunctionOnParams,
        what: &str,
    ) -> Result<serde_json::Value> {
        let result = self
            .call("Runtime.callFunctionOn", route.execute(&self.page, params))
            .await?
            .result;
        if let Some(exception) = &result.exception_details {
            return Err(Error::Script {
                url: self.url.clone(),
                message: format!("{what}: {}", exception.text),
            });
        }
        Ok(result.result.value.unwrap_or(serde_json::Value::Null))
    }

    /// How a URL the tab shows is stored: the target as given when it is the
    /// URL loaded, a local file under the working directory as `file:<relative>`.
    pub(crate) fn stored_url(&self, url: &str) -> String {
        let stored = crate::target::display_url(url);
        if url == self.url || stored == crate::target::display_url(&self.url) {
            self.display_url.clone()
        } else {
            stored
        }
    }

    /// After a call failed because the page navigated (see
    /// [`TabError::Navigated`]): waits for the new document to load and
    /// settle, so that the caller can try again. Only within a budget; past
    /// it, or without one, the page is refused as [`TabError::KeptNavigating`].
    pub(crate) async fn after_navigation(&self) -> Result<()> {
        let kept = || TabError::KeptNavigating {
            url: self.url.clone(),
            limit: self.limit,
        };
        let Some(deadline) = self.deadline else {
            return Err(kept().into());
        };
        tokio::time::sleep(waits::AFTER_NAVIGATION).await;
        let phase = self.current_phase();
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || self.wait_loaded(left, Blank::BeforeCommit).await.is_err() {
            return Err(kept().into());
        }
        match self.settle().await {
            Err(err) if !err.is_navigated() => return Err(err),
            _ => {}
        }
        self.enter(phase);
        if Instant::now() >= deadline {
            return Err(kept().into());
        }
        Ok(())
    }

    /// A fresh object group for the script handles of one capture or one
    /// action. The one policy for handles: each use takes its own group and
    /// releases it without waiting ([`Self::release_group`]), so a release
    /// still in flight can never free a handle the next call resolved.
    pub(crate) fn object_group(&self, what: &str) -> String {
        format!(
            "pagesnap-{what}-{}",
            self.groups.fetch_add(1, Ordering::Relaxed)
        )
    }

    /// Releases `group`'s handles in `route`'s session without waiting for the answer.
    pub(crate) fn release_group(&self, route: &Route, group: String) {
        let release = route.execute(&self.page, ReleaseObjectGroupParams::new(group));
        tokio::spawn(async move {
            let _ = release.await;
        });
    }

    /// Releases one handle (in no object group) in `route`'s session without
    /// waiting for the answer.
    pub(crate) fn release_object(&self, route: &Route, object: RemoteObjectId) {
        let release = route.execute(&self.page, ReleaseObjectParams::new(object));
        tokio::spawn(async move {
            let _ = release.await;
        });
    }

    /// Bounds every later call by `deadline` (recording: the page's budget),
    /// or lifts the bound.
    pub(crate) fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    /// The moment the page's budget runs out, when recording.
    pub(crate) fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// Names what the session does next, for errors of calls cut by the deadline.
    pub(crate) fn enter(&self, phase: Phase) {
        if let Ok(mut current) = self.phase.lock() {
            *current = phase;
        }
    }

    fn current_phase(&self) -> Phase {
        self.phase.lock().map_or(Phase::Load, |p| *p)
    }

    /// The budget ran out during `phase`.
    pub(crate) fn over_limit(&self, phase: Phase) -> TabError {
        TabError::OverLimit {
            url: self.url.clone(),
            phase,
            limit: self.limit,
        }
    }

    /// How long a call may wait, and whether that bound is the deadline.
    fn call_wait(&self) -> (Duration, bool) {
        match self.deadline {
            Some(deadline) => {
                let left = deadline.saturating_duration_since(Instant::now());
                if left < self.limit {
                    (left, true)
                } else {
                    (self.limit, false)
                }
            }
            None => (self.limit, false),
        }
    }

    /// Awaits one CDP call, unless the tab crashes or closes first, or the
    /// call goes unanswered past the session's limit: each gives a
    /// [`TabError`] naming the page and the call.
    pub(crate) async fn call<T>(
        &self,
        name: &'static str,
        future: impl Future<Output = chromiumoxide::error::Result<T>>,
    ) -> Result<T, TabError> {
        if let Some(gone) = self.watch.state(&self.target) {
            return Err(self.gone(gone, name));
        }
        if let Some(dialog) = self.dialogs.pending() {
            return Err(self.dialog_open(dialog, name));
        }
        let (wait, by_deadline) = self.call_wait();
        let phase = || Phase::of_call(name).unwrap_or_else(|| self.current_phase());
        if by_deadline && wait.is_zero() {
            return Err(self.over_limit(phase()));
        }
        let documents = self.documents.now();
        tokio::select! {
            result = future => match result {
                Ok(value) => Ok(value),
                Err(err) => {
                    // The error may be the first sign of a crash, a close or
                    // a navigation; the browser's report of each follows
                    // within moments.
                    let message = err.to_string();
                    let report = async {
                        tokio::select! {
                            gone = self.watch.until_gone(&self.target) => self.gone(gone, name),
                            () = self.documents.changed_since(documents) => TabError::Navigated {
                                url: self.url.clone(),
                                call: name,
                                message: message.clone(),
                            },
                        }
                    };
                    match tokio::time::timeout(waits::GONE_REPORT, report).await {
                        Ok(reported) => Err(reported),
                        Err(_) => Err(TabError::Failed {
                            url: self.url.clone(),
                            call: name,
                            message,
                        }),
                    }
                }
            },
            gone = self.watch.until_gone(&self.target) => Err(self.gone(gone, name)),
            // The renderer answers nothing until the dialog is answered.
            dialog = self.dialogs.opened() => Err(self.dialog_open(dialog, name)),
            () = tokio::time::sleep(wait) => Err(if by_deadline {
                self.over_limit(phase())
            } else {
                TabError::NoAnswer {
                    url: self.url.clone(),
                    call: name,
                    limit: self.limit,
                }
            }),
        }
    }

    /// [`Self::call`] for a call whose answer is large (the DOM snapshot, the
    /// accessibility tree of a big page): decoding it into typed structs takes
    /// seconds of CPU inside the future that awaits it. Awaited on a thread
    /// of the blocking pool, it neither delays the timer that ends the call
    /// at the budget's end nor holds one of the runtime's workers, which the
    /// client's own message parsing and the other calls of the capture need
    /// (with all workers decoding, no timer fired for 6 s past a budget). A
    /// call given up still runs to its end on that thread (the browser's
    /// close ends it), which `record` does not wait for.
    pub(crate) async fn call_large<T: Send + 'static>(
        &self,
        name: &'static str,
        future: impl Future<Output = chromiumoxide::error::Result<T>> + Send + 'static,
    ) -> Result<T, TabError> {
        let runtime = tokio::runtime::Handle::current();
        let task = tokio::task::spawn_blocking(move || runtime.block_on(future));
        self.call(name, async move {
            task.await.unwrap_or_else(|err| {
                Err(chromiumoxide::error::CdpError::ChromeMessage(format!(
                    "the task awaiting the answer failed: {err}"
                )))
            })
        })
        .await
    }

    /// A listener for the tab's `what` events could not be added.
    pub(crate) fn unheard(&self, what: &'static str, err: impl std::fmt::Display) -> Error {
        TabError::Failed {
            url: self.url.clone(),
            call: what,
            message: format!("could not listen: {err}"),
        }
        .into()
    }

    /// A call whose parameters could not be built (a required one missing):
    /// the call was never made.
    pub(crate) fn unbuilt(&self, call: &'static str, err: impl std::fmt::Display) -> Error {
        TabError::Failed {
            url: self.url.clone(),
            call,
            message: format!("its parameters could not be built: {err}"),
        }
        .into()
    }

    fn dialog_open(&self, dialog: Dialog, call: &'static str) -> TabError {
        TabError::DialogOpen {
            url: self.url.clone(),
            call,
            dialog,
        }
    }

    fn gone(&self, gone: Gone, call: &'static str) -> TabError {
        let url = self.url.clone();
        match gone {
            Gone::Crashed => TabError::Crashed { url, call },
            Gone::Closed => TabError::Closed { url, call },
            Gone::Browser => TabError::BrowserGone { url, call },
        }
    }

    /// Evaluates `expression` in the page's main frame (promises awaited) and returns its value as JSON.
    pub(crate) async fn eval(&self, expression: &str) -> Result<serde_json::Value> {
        self.eval_in(&Route::TAB, expression).await
    }

    /// [`Self::eval`] in `route`'s session: the tab's main frame or an out-of-process frame's.
    pub(crate) async fn eval_in(
        &self,
        route: &Route,
        expression: &str,
    ) -> Result<serde_json::Value> {
        let params = EvaluateParams::builder()
            .expression(expression)
            .return_by_value(true)
            .await_promise(true)
            .build()
            .map_err(|err| self.unbuilt("Runtime.evaluate", err))?;
        let result = self
            .call("Runtime.evaluate", route.execute(&self.page, params))
            .await?;
        if let Some(exception) = &result.result.exception_details {
            return Err(Error::Script {
                url: self.url.clone(),
                message: exception.text.clone(),
            });
        }
        Ok(result
            .result
            .result
            .value
            .clone()
            .unwrap_or(serde_json::Value::Null))
    }

    /// Waits until the document the tab shows has loaded, within `limit`;
    /// `blank` says what Chromium's blank page is then.
    pub(crate) async fn wait_loaded(&self, limit: Duration, blank: Blank) -> Result<()> {
        let started = Instant::now();
        loop {
            // A page that navigates away mid-poll destroys the context; retry.
            match self
                .eval("location.href === 'about:blank' ? 'blank' : document.readyState")
                .await
            {
                Ok(state) if state.as_str() == Some("complete") => return Ok(()),
                // `about:blank` asked for, or brought by the page: it is there.
                Ok(state)
                    if state.as_str() == Some("blank")
                        && (blank == Blank::Loaded || self.url == BLANK) =>
                {
                    return Ok(());
                }
                // The first page of a new tab was a file: downloaded, the
                // tab stays blank.
                Ok(state)
                    if state.as_str() == Some("blank")
                        && self.downloaded_since(self.downloads_at_open).await =>
                {
                    return Ok(());
                }
                // Gone, or waiting on a dialog's answer: polling cannot help.
                Err(err) if err.is_gone() || err.is_dialog_open() => return Err(err),
                // Not loaded yet, or a navigation replaced the context.
                Ok(_) | Err(_) => {}
            }
            if started.elapsed() >= limit {
                return Err(TabError::NeverLoaded {
                    url: self.url.clone(),
                    limit: self.limit,
                }
                .into());
            }
            tokio::time::sleep(waits::LOAD_POLL).await;
        }
    }

    /// Waits for fonts and two animation frames so layout reflects the last
    /// change. A tab in the background runs no animation frames (a tab the
    /// page opened came to the front, or an attached browser shows another):
    /// there a timer ends the wait after a second instead.
    pub(crate) async fn settle(&self) -> Result<()> {
        self.enter(Phase::Settle);
        self.eval(
            "(async () => { try { await document.fonts.ready; } catch (e) {} \
             await Promise.race([new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))), \
             new Promise(r => setTimeout(r, 1000))]); return true; })()",
        )
        .await?;
        Ok(())
    }

    /// The first element matching `selector`; a closed or crashed tab is
    /// named as such, anything else as no match.
    pub(crate) async fn find(&self, selector: &str) -> Result<chromiumoxide::Element> {
        match self
            .call("DOM.querySelector", self.page.find_element(selector))
            .await
        {
            Ok(element) => Ok(element),
            Err(err) if err.is_gone() => Err(err.into()),
            Err(_) => Err(Error::NoElement {
                url: self.url.clone(),
                selector: selector.to_owned(),
            }),
        }
    }
}
