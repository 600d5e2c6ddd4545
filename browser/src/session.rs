//! One open tab: the handle its parts borrow, the out-of-process frames it attached, and the public face of capture, input and navigation.

use std::time::{Duration, Instant};

use chromiumoxide::cdp::browser_protocol::emulation::SetFocusEmulationEnabledParams;
use pagesnap_engine::dialog::{Answered, Dialog};
use pagesnap_engine::observation::Observation;
use pagesnap_engine::strategy::{Options, Strategy};

use crate::action::{Axis, Outcome, UserAction};
use crate::capture::{
    Capture, CaptureTimings, Captured, Kept, Live, Mark, Needs, Paints, Source, paint,
};
use crate::error::Result;
use crate::frames::Frames;
use crate::input::{Input, Step};
use crate::navigation::{Arrival, Navigation, OpenOptions};
use crate::readiness::{Performed, Readiness, Settled, Settler};
use crate::tab::TabHandle;

/// One open tab.
pub struct ChromiumSession {
    tab: TabHandle,
    /// The browser's product string, written into each recording.
    version: String,
    /// The out-of-process frames attached so far.
    frames: Frames,
    /// The folder uploads are confined to ([`crate::Chromium::with_upload_dir`]).
    uploads: std::path::PathBuf,
}

impl ChromiumSession {
    /// The one constructor: a session on `tab`, in a browser named
    /// `version`, its uploads confined to `uploads`.
    pub(crate) fn new(
        tab: TabHandle,
        version: String,
        uploads: std::path::PathBuf,
    ) -> ChromiumSession {
        ChromiumSession {
            tab,
            version,
            frames: Frames::default(),
            uploads,
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
        self.tab.dialog()
    }

    /// Makes the page believe it has focus, so that input events reach its
    /// focused element while the tab is in the background (several tabs
    /// driven at once).
    pub async fn emulate_focus(&self) -> Result<()> {
        self.tab
            .call(
                "Emulation.setFocusEmulationEnabled",
                self.tab
                    .page()
                    .execute(SetFocusEmulationEnabledParams::new(true)),
            )
            .await?;
        Ok(())
    }

    /// The dialogs the tab's policy answered since the last call, oldest first.
    pub fn take_answered_dialogs(&self) -> Vec<Answered> {
        self.tab.dialogs().take_answered()
    }

    /// The page as given (`file:fixtures/…` for local files).
    pub fn display_url(&self) -> &str {
        self.tab.display_url()
    }

    /// Brings the tab to the front: a background tab runs no animation
    /// frames and paints no screenshot.
    pub async fn bring_to_front(&self) -> Result<()> {
        self.tab
            .call("Page.bringToFront", self.tab.page().bring_to_front())
            .await?;
        Ok(())
    }

    /// The tab's CDP target id.
    pub fn target_id(&self) -> &str {
        self.tab.target_id()
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

    /// The files this tab's page downloaded, or began to, whose state was
    /// not told yet: each is told once when it begins (or as soon as it is
    /// seen), and again when it is saved, refused or canceled.
    pub async fn downloads(&self) -> Vec<crate::Download> {
        self.tab.download_news().await
    }

    /// The URL loaded (`file:///…` for local files).
    pub fn url(&self) -> &str {
        self.tab.url()
    }

    /// Closes the tab.
    pub async fn close(self) {
        self.tab.close().await;
    }

    /// Closes the tab and waits, at most `within`, until the browser says it
    /// is gone: the tab lists no more.
    pub async fn close_within(self, within: Duration) {
        self.tab.close_within(within).await;
    }

    /// Whether the tab's page answers a trivial script within `within`: a
    /// page whose script never yields (a loop) holds its renderer, and no
    /// call to it is answered until the page is closed.
    pub async fn answers(&self, within: Duration) -> bool {
        matches!(
            tokio::time::timeout(within, self.tab.eval("0")).await,
            Ok(Ok(_))
        )
    }

    /// Bounds every later call by `deadline` (recording: the page's budget),
    /// or lifts the bound.
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.tab.set_deadline(deadline);
    }

    /// The moment the page's budget runs out, when recording.
    pub fn deadline(&self) -> Option<Instant> {
        self.tab.deadline()
    }

    /// Evaluates `expression` in the page's main frame (promises awaited) and returns its value as JSON.
    pub async fn eval(&self, expression: &str) -> Result<serde_json::Value> {
        self.tab.eval(expression).await
    }

    /// Waits for fonts and two animation frames so layout reflects the last
    /// change. A tab in the background runs no animation frames (a tab the
    /// page opened came to the front, or an attached browser shows another):
    /// there a timer ends the wait after a second instead.
    pub async fn settle(&self) -> Result<()> {
        self.tab.settle().await
    }

    /// Navigation in this tab.
    fn navigation(&mut self) -> Navigation<'_> {
        Navigation::new(&mut self.tab)
    }

    /// Loads `target` in this tab, as a user typing it into the address bar
    /// would: waits for load, `options.wait_for` and settling within
    /// `options.timeout` (past it, the error names what was still under
    /// way; the tab keeps whatever it shows). What arrived: a document, the
    /// same one at another fragment, or a download (the page stays).
    pub async fn navigate(
        &mut self,
        target: &str,
        options: &OpenOptions,
        network: bool,
    ) -> Result<Arrival> {
        self.navigation().navigate(target, options, network).await
    }

    /// Goes back one entry in the tab's history, then waits for the page
    /// to settle as after an action ([`Readiness::BACK`]; a document loaded
    /// again is given a load's readiness), within `limit`: how that wait
    /// ended. `Ok(None)`: there was nothing to go back to.
    pub async fn back(&mut self, limit: Duration) -> Result<Option<Settled>> {
        self.navigation().back(limit).await
    }

    /// Re-reads the URL the tab shows (after a navigation the page made).
    pub async fn refresh_url(&mut self) {
        self.navigation().refresh_url().await
    }

    /// Input on this tab.
    fn input(&self) -> Input<'_> {
        Input::new(&self.tab, &self.frames, &self.uploads)
    }

    /// Performs `action` as a user would (see the module docs). While a
    /// JavaScript dialog is pending only [`UserAction::Dialog`] runs (any
    /// other action is `dialog-pending`); an action during which the page
    /// opened one is done, its note naming the dialog, which the session
    /// then holds ([`ChromiumSession::dialog`]).
    ///
    /// The page is then given [`Readiness::of`] the action to settle.
    pub async fn perform(&self, action: &UserAction) -> Result<Outcome> {
        let performed = self.perform_ready(action, Readiness::of(action)).await?;
        Ok(performed.outcome)
    }

    /// [`ChromiumSession::perform`] with the page given `readiness` to
    /// settle after the action (see `crate::readiness`), and how that wait
    /// ended: what was still going on if its budget ran out.
    pub async fn perform_ready(
        &self,
        action: &UserAction,
        readiness: Readiness,
    ) -> Result<Performed> {
        self.input().perform(action, readiness).await
    }

    /// Waits for the page as it is to settle, within `readiness` (after a
    /// navigation the caller made: [`Readiness::NAVIGATE`]).
    pub async fn settle_to(&self, readiness: Readiness) -> Result<Settled> {
        Settler::unarmed(&self.tab, readiness).settle().await
    }

    /// How far the page (no element) or a scroll container is scrolled
    /// along `axis` (down, or right), CSS pixels, read as the scroll op reads
    /// it; `None` when the container left the page.
    pub async fn scrolled(&self, backend_id: Option<u64>, axis: Axis) -> Result<Option<f64>> {
        self.input().scrolled(backend_id, axis).await
    }

    /// What is at viewport point `(x, y)`: `button "Go"` (its role and
    /// text), for telling an agent what a click there reaches.
    pub async fn element_at(&self, x: f64, y: f64) -> Result<Option<String>> {
        self.input().element_at(x, y).await
    }

    /// Calls `function` with `this` bound to the node (backend node id) and
    /// returns its value (promises awaited); `Ok(None)` when the node left
    /// the document. The node's handle lives in an object group of its own,
    /// released afterwards (the one object-group policy, `tab.rs`).
    pub async fn call_function_on(
        &self,
        backend_id: u64,
        function: &str,
        arguments: Vec<serde_json::Value>,
    ) -> Result<Option<serde_json::Value>> {
        self.input()
            .call_function_on(backend_id, function, arguments)
            .await
    }

    /// Applies one scripted step through the same actuator as live episodes
    /// ([`ChromiumSession::perform`]): its selector is resolved to a node,
    /// then the node is clicked at its hit-tested centre, typed into, or its
    /// option chosen as a user would. A step that a user could not perform
    /// (covered, hidden, no such option) fails, naming the step.
    pub async fn apply(&mut self, step: &Step) -> Result<()> {
        self.input().apply(step).await
    }

    /// The backend node id of the first element matching `selector` (what
    /// [`crate::UserAction`]s name), for agents that find their targets by
    /// CSS; an error when nothing matches.
    pub async fn node_of(&self, selector: &str) -> Result<u64> {
        self.input().node_of(selector).await
    }

    /// Capture on this tab.
    fn capturer(&self) -> Capture<'_> {
        Capture::new(&self.tab, &self.frames, &self.version)
    }

    /// Whether the text node `backend_id` paints any pixel (the pixel
    /// oracle of issue 56): its region screenshot twice as the page paints
    /// it (differing: [`Paints::Unstable`]), then with the run's glyphs,
    /// shadow, stroke and decorations transparent (a span around it), the
    /// page put back as it was afterwards.
    pub async fn text_paints(&self, backend_id: u64) -> Result<Paints> {
        let Some(answer) = self
            .call_function_on(backend_id, paint::RECT_JS, Vec::new())
            .await?
        else {
            return Ok(Paints::Gone);
        };
        let Some(region) = paint::Region::of(&answer) else {
            return Ok(Paints::NoBox);
        };
        let capturer = self.capturer();
        let before = capturer.region(&region).await?;
        if capturer.region(&region).await? != before {
            return Ok(Paints::Unstable);
        }
        let hidden = self
            .call_function_on(backend_id, paint::HIDE_JS, Vec::new())
            .await?;
        if hidden != Some(serde_json::Value::Bool(true)) {
            return Ok(Paints::Gone);
        }
        let after = capturer.region(&region).await;
        self.call_function_on(backend_id, paint::RESTORE_JS, Vec::new())
            .await?;
        Ok(if after? == before {
            Paints::No
        } else {
            Paints::Yes
        })
    }

    /// Captures the current state with what `needs` asks for: the tab's own
    /// documents and, issued together with them, those of the out-of-process
    /// frames it had at the last capture (`frames.rs`); frames met for
    /// the first time are attached and captured after.
    pub async fn capture_with(&self, needs: Needs) -> Result<(Captured, CaptureTimings)> {
        self.capturer().capture_with(needs).await
    }

    /// Captures the current state with everything a recording for the
    /// archive holds ([`Needs::RECORD`]), starting over when the page
    /// navigates during the capture (a reload loop is refused by name once
    /// the budget runs out).
    ///
    /// A reload between two calls of a capture leaves no error behind: the
    /// snapshot would hold the next document half-parsed. So the document's
    /// identity (an id it keeps, `DOCUMENT_JS`) is read before and after, and a capture
    /// that began on a document still loading, or ended on another one, is
    /// taken as a navigation.
    pub async fn capture(&self) -> Result<Captured> {
        self.capturer().capture().await
    }

    /// Observes the tab's current state through `strategy`, capturing only
    /// what it needs ([`Needs::observe`]). Nothing is written to disk.
    pub async fn observe(&self, strategy: &dyn Strategy, options: &Options<'_>) -> Result<Live> {
        self.capturer().observe(strategy, options).await
    }

    /// Observes with an explicit capture: `Needs::RECORD` also keeps what a
    /// recording for the archive holds (`snapshot --save`).
    pub async fn observe_with(
        &self,
        strategy: &dyn Strategy,
        options: &Options<'_>,
        needs: Needs,
    ) -> Result<Live> {
        self.capturer().observe_with(strategy, options, needs).await
    }

    /// Observes through `strategy`, rendering the capture in `kept` again
    /// when the page still shows it (its [`Mark`] is
    /// unchanged and it holds what the strategy needs), capturing anew
    /// otherwise and keeping that capture in `kept`. Whoever acts on the
    /// page should drop `kept` as well; the mark would see the change, but
    /// need not be asked.
    pub async fn observe_kept(
        &self,
        strategy: &dyn Strategy,
        options: &Options<'_>,
        kept: &mut Option<Kept>,
    ) -> Result<(Observation, Source)> {
        self.capturer()
            .observe_kept(strategy, options, kept, true)
            .await
    }

    /// A fresh capture of the page, kept in `kept` as
    /// [`ChromiumSession::observe_kept`] keeps one, without the change
    /// tracker that call installs in the page: for an observer that must
    /// leave the page as it found it (`pagesnap mcp --observe-only`).
    pub async fn observe_untracked(
        &self,
        strategy: &dyn Strategy,
        options: &Options<'_>,
        kept: &mut Option<Kept>,
    ) -> Result<Observation> {
        let (observation, _) = self
            .capturer()
            .observe_kept(strategy, options, kept, false)
            .await?;
        Ok(observation)
    }

    /// The page's current [`Mark`] (installing the tracker on first use);
    /// `None` while it loads or animates, or when the script cannot run.
    pub async fn mark(&self) -> Option<Mark> {
        self.capturer().mark().await
    }
}
