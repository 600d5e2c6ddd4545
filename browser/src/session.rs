//! One open tab: scripts, load and selector waits, settling, and the scripted actions of `--then`.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use chromiumoxide::Page as CdpPage;
use chromiumoxide::cdp::browser_protocol::accessibility::GetFullAxTreeParams;
use chromiumoxide::cdp::browser_protocol::emulation::SetFocusEmulationEnabledParams;
use chromiumoxide::cdp::browser_protocol::target::TargetId;
use chromiumoxide::cdp::js_protocol::runtime::{EvaluateParams, ReleaseObjectGroupParams};
use pagesnap_engine::analyze::is_chromium_text_role;
use pagesnap_engine::dialog::{Answered, Dialog};
use pagesnap_engine::recording::{AxNode, DomCounts};

use crate::WaitFor;
use crate::dialogs::{DialogPolicy, Dialogs};
use crate::documents::Documents;
use crate::failure::{Gone, Phase, TabError, Watch};
use crate::frames::{Frames, Link, Route};
use crate::waits;

/// One open tab.
pub struct ChromiumSession {
    pub(crate) page: CdpPage,
    pub(crate) version: String,
    pub(crate) url: String,
    pub(crate) display_url: String,
    pub(crate) target: TargetId,
    pub(crate) watch: Watch,
    /// How long one CDP call may go unanswered; when recording, also the
    /// page's whole budget.
    pub(crate) limit: Duration,
    /// When recording: the moment the page's budget runs out. Every call
    /// waits at most until then.
    pub(crate) deadline: Option<Instant>,
    /// What the session is doing, for naming a call cut by the deadline.
    pub(crate) phase: std::sync::Mutex<Phase>,
    /// Numbers the object groups script handles live in ([`Self::object_group`]).
    pub(crate) groups: AtomicU64,
    /// The out-of-process frames attached so far.
    pub(crate) frames: Frames,
    /// The page's JavaScript dialogs.
    pub(crate) dialogs: Dialogs,
    /// The documents it has shown (a failed call's navigation).
    pub(crate) documents: Documents,
    /// The folder uploads are confined to ([`crate::Chromium::with_upload_dir`]).
    pub(crate) uploads: std::path::PathBuf,
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

const COUNTS_JS: &str = r#"(() => {
  const acc = { document: 0, shadow: 0, iframe: 0 };
  const walk = (root, where) => {
    for (const el of root.querySelectorAll('*')) {
      acc[where]++;
      if (el.shadowRoot) walk(el.shadowRoot, where === 'iframe' ? 'iframe' : 'shadow');
      if (el.tagName === 'IFRAME' || el.tagName === 'FRAME') {
        let doc = null;
        try { doc = el.contentDocument; } catch (e) {}
        if (doc) walk(doc, 'iframe');
      }
    }
  };
  walk(document, 'document');
  return JSON.stringify(acc);
})()"#;

impl ChromiumSession {
    /// The one constructor: a session on `page` showing `url` (stored as
    /// [`crate::display_url`] gives it), its calls limited to `limit` and,
    /// when recording, ending by `deadline`.
    pub(crate) fn new(
        page: CdpPage,
        heard: Heard,
        version: String,
        url: String,
        watch: Watch,
        limit: Duration,
        deadline: Option<Instant>,
    ) -> ChromiumSession {
        ChromiumSession {
            display_url: crate::navigation::display_url(&url),
            url,
            target: page.target_id().clone(),
            page,
            version,
            watch,
            limit,
            deadline,
            phase: std::sync::Mutex::new(Phase::Load),
            groups: AtomicU64::new(0),
            frames: Frames::default(),
            dialogs: heard.dialogs,
            documents: heard.documents,
            uploads: std::path::PathBuf::from("."),
        }
    }

    /// The folder uploads are confined to: a relative path names a file in
    /// it ([`crate::confine_uploads`]).
    pub fn upload_dir(&self) -> &std::path::Path {
        &self.uploads
    }

    /// The JavaScript dialog the page waits on, if any (only under
    /// [`crate::DialogPolicy::Ask`]; the other policies answer at once).
    pub fn dialog(&self) -> Option<Dialog> {
        self.dialogs.pending()
    }

    /// Makes the page believe it has focus, so that input events reach its
    /// focused element while the tab is in the background (several tabs
    /// driven at once).
    pub async fn emulate_focus(&self) -> Result<()> {
        self.call(
            "Emulation.setFocusEmulationEnabled",
            self.page.execute(SetFocusEmulationEnabledParams::new(true)),
        )
        .await?;
        Ok(())
    }

    /// The dialogs the tab's policy answered since the last call, oldest first.
    pub fn take_answered_dialogs(&self) -> Vec<Answered> {
        self.dialogs.take_answered()
    }

    /// The page as given (`file:fixtures/…` for local files).
    pub fn display_url(&self) -> &str {
        &self.display_url
    }

    /// Brings the tab to the front: a background tab runs no animation
    /// frames and paints no screenshot.
    pub async fn bring_to_front(&self) -> Result<()> {
        self.call("Page.bringToFront", self.page.bring_to_front())
            .await?;
        Ok(())
    }

    /// The tab's CDP target id.
    pub fn target_id(&self) -> &str {
        self.target.as_ref()
    }

    /// The frame number of each frame from another site this tab attached
    /// to, by CDP frame id: the high half of its nodes' keys
    /// ([`crate::node_key`]), for a client that found a node through its own
    /// session of that frame.
    pub fn frame_ids(&self) -> std::collections::HashMap<String, u32> {
        self.frames
            .links()
            .into_iter()
            .map(|link| (link.frame_id, link.key))
            .collect()
    }

    /// The URL loaded (`file:///…` for local files).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// How a URL the tab shows is stored: the target as given when it is the
    /// URL loaded, a local file under the working directory as `file:<relative>`.
    pub(crate) fn stored_url(&self, url: &str) -> String {
        let stored = crate::navigation::display_url(url);
        if url == self.url || stored == crate::navigation::display_url(&self.url) {
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
        if left.is_zero() || self.wait_loaded(left).await.is_err() {
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

    /// Closes the tab.
    pub async fn close(self) {
        let _ = self.call("Page.close", self.page.clone().close()).await;
    }

    /// Bounds every later call by `deadline` (recording: the page's budget),
    /// or lifts the bound.
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    /// The moment the page's budget runs out, when recording.
    pub fn deadline(&self) -> Option<Instant> {
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
        }
    }

    /// Evaluates `expression` in the page's main frame (promises awaited) and returns its value as JSON.
    pub async fn eval(&self, expression: &str) -> Result<serde_json::Value> {
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

    pub(crate) async fn wait_loaded(&self, limit: Duration) -> Result<()> {
        let started = Instant::now();
        loop {
            // A page that navigates away mid-poll destroys the context; retry.
            // `about:blank` is the tab before our navigation committed.
            match self
                .eval("location.href === 'about:blank' ? 'blank' : document.readyState")
                .await
            {
                Ok(state) if state.as_str() == Some("complete") => return Ok(()),
                // `about:blank` asked for: it is there.
                Ok(state) if state.as_str() == Some("blank") && self.url == "about:blank" => {
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

    /// Whether the tab shows Chromium's own error page, which it loads for
    /// unreachable URLs and missing files instead of failing navigation.
    pub(crate) async fn on_error_page(&self) -> bool {
        self.eval("location.href")
            .await
            .is_ok_and(|href| href.as_str().is_some_and(is_error_page))
    }

    pub(crate) async fn check_loaded(&self) -> Result<()> {
        let href = self.eval("location.href").await?;
        if href.as_str().is_some_and(is_error_page) {
            return Err(TabError::LoadFailed {
                url: self.url.clone(),
                error: "the browser showed its error page (the page or a redirect it made could not load)"
                    .to_owned(),
                offline: false,
            }
            .into());
        }
        Ok(())
    }

    pub(crate) async fn wait_for(
        &self,
        wait: &WaitFor,
        limit: Duration,
        configured: Duration,
    ) -> Result<()> {
        self.enter(Phase::Wait);
        match wait {
            WaitFor::Delay(delay) => {
                // A delay longer than what is left of the budget cannot end
                // within it: refuse at once rather than sleep into the limit.
                if *delay > limit {
                    return Err(TabError::WaitTooLong {
                        url: self.url.clone(),
                        delay: *delay,
                        limit: configured,
                        left: limit,
                    }
                    .into());
                }
                tokio::time::sleep(*delay).await;
            }
            WaitFor::Selector(selector) => {
                let probe = format!(
                    "!!document.querySelector({})",
                    serde_json::to_string(selector).unwrap_or_default()
                );
                let started = Instant::now();
                loop {
                    let matched = match self.eval(&probe).await {
                        Ok(value) => value.as_bool() == Some(true),
                        // The budget ran out during a probe: the same
                        // outcome as running out between probes.
                        Err(err) if matches!(err.tab(), Some(TabError::OverLimit { .. })) => false,
                        Err(err) => return Err(err),
                    };
                    if matched {
                        break;
                    }
                    if started.elapsed() >= limit
                        || self.deadline.is_some_and(|d| Instant::now() >= d)
                    {
                        return Err(Error::NeverMatched {
                            url: self.url.clone(),
                            selector: selector.to_owned(),
                            limit: configured,
                        });
                    }
                    tokio::time::sleep(waits::WAIT_POLL).await;
                }
            }
        }
        Ok(())
    }

    /// Waits for fonts and two animation frames so layout reflects the last
    /// change. A tab in the background runs no animation frames (a tab the
    /// page opened came to the front, or an attached browser shows another):
    /// there a timer ends the wait after a second instead.
    pub async fn settle(&self) -> Result<()> {
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

    /// Element counts as page scripts see them (main document, open shadow trees, iframes).
    pub(crate) async fn counts(&self) -> Option<DomCounts> {
        self.counts_in(&Route::TAB).await
    }

    /// Element counts as an out-of-process frame's scripts see them.
    pub(crate) async fn counts_in(&self, route: &Route) -> Option<DomCounts> {
        self.eval_in(route, COUNTS_JS)
            .await
            .ok()
            .and_then(|v| v.as_str().and_then(|s| serde_json::from_str(s).ok()))
    }

    /// Chromium's accessibility tree of an out-of-process frame (and the
    /// frames in its process), its nodes keyed like the frame's nodes.
    pub(crate) async fn accessibility_of(&self, link: &Link) -> Result<Vec<AxNode>> {
        let route = link.route();
        let params = GetFullAxTreeParams::builder().build();
        let tree = self
            .call_large(
                "Accessibility.getFullAXTree",
                route.execute(&self.page, params),
            )
            .await?;
        Ok(tree
            .result
            .nodes
            .iter()
            .map(|node| ax_node(node, link.key))
            .collect())
    }

    pub(crate) async fn accessibility(&self) -> Result<Vec<AxNode>> {
        let mut out = Vec::new();
        let mut frames = vec![None];
        // Bounded like every call: while the client decodes a large answer
        // it answers nothing else, these included.
        if let Ok(all) = self.call("Page.getFrameTree", self.page.frames()).await {
            let main = self
                .call("Page.getFrameTree", self.page.mainframe())
                .await
                .ok()
                .flatten();
            frames.extend(
                all.into_iter()
                    .filter(|f| Some(f) != main.as_ref())
                    .map(Some),
            );
        }
        for frame in frames {
            let mut params = GetFullAxTreeParams::builder();
            if let Some(frame) = frame.clone() {
                params = params.frame_id(frame);
            }
            let page = self.page.clone();
            let params = params.build();
            let tree = match self
                .call_large("Accessibility.getFullAXTree", async move {
                    page.execute(params).await
                })
                .await
            {
                Ok(tree) => tree,
                Err(err) if err.is_gone() => return Err(err.into()),
                // Out-of-process frames have no tree in this session; skip them.
                Err(_) => continue,
            };
            out.extend(tree.result.nodes.iter().map(|node| ax_node(node, 0)));
        }
        Ok(out)
    }
}

/// One node of Chromium's accessibility tree, its DOM node keyed as frame `frame`'s.
fn ax_node(
    node: &chromiumoxide::cdp::browser_protocol::accessibility::AxNode,
    frame: u32,
) -> AxNode {
    let text = |value: &Option<chromiumoxide::cdp::browser_protocol::accessibility::AxValue>| {
        value
            .as_ref()
            .and_then(|v| v.value.as_ref())
            .map(|v| match v {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .unwrap_or_default()
    };
    let role = text(&node.role);
    // A text node's name is its text, which the recording holds already.
    let name = if is_chromium_text_role(&role) {
        String::new()
    } else {
        text(&node.name)
    };
    AxNode {
        backend_id: node
            .backend_dom_node_id
            .as_ref()
            .map(|b| *b.inner())
            .filter(|&b| b >= 0)
            .map(|b| crate::frames::node_key(frame, b)),
        role,
        name,
        ignored: node.ignored,
    }
}

/// Whether a tab's `location.href` is Chromium's own error page.
pub(crate) fn is_error_page(href: &str) -> bool {
    href.starts_with("chrome-error://")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cdp_node(
        role: &str,
        name: &str,
    ) -> chromiumoxide::cdp::browser_protocol::accessibility::AxNode {
        serde_json::from_value(serde_json::json!({
            "nodeId": "7",
            "ignored": false,
            "role": {"type": "role", "value": role},
            "name": {"type": "computedString", "value": name},
            "backendDOMNodeId": 12,
        }))
        .unwrap()
    }

    /// A text node's name is its text, which the recording's nodes hold:
    /// the oracle keeps the node without it; an element keeps its name.
    #[test]
    fn the_oracle_keeps_text_nodes_without_their_text() {
        let text = ax_node(&cdp_node("StaticText", "twenty megabytes"), 0);
        assert_eq!((text.role.as_str(), text.name.as_str()), ("StaticText", ""));
        assert_eq!(text.backend_id, Some(12));
        let line = ax_node(&cdp_node("InlineTextBox", "one line"), 0);
        assert_eq!(line.name, "");
        let button = ax_node(&cdp_node("button", "Sign in"), 0);
        assert_eq!(
            (button.role.as_str(), button.name.as_str()),
            ("button", "Sign in")
        );
    }
}
