//! Acting on a live tab as a user would, on a node named by its backend node id: scroll it into view, click its visible centre with the mouse, scroll, press keys, wait; the dispatch of every action (fields are set in `fields.rs`).
//!
//! The click point is the centre of the element's first non-empty client
//! rect, clipped to its frame's viewport, after `scrollIntoViewIfNeeded`. It
//! is hit-tested in the element's own tree (`elementFromPoint` on its root,
//! so shadow trees and frames are tested where the element lives) and then,
//! frame by frame, in each parent document, where the hit must be the frame
//! element. A point that lands on another element is *covered*: the action
//! fails with the covering element named, as page-agent reports it to its
//! model, and nothing is clicked — there is no fallback to a DOM `click()`.
//!
//! What the page does wrong (a node gone, covered, hidden, not a field) is an
//! [`Outcome::Failed`] the runner shows the agent; a tab that crashed or
//! closed, or a call with no answer, is an `Err`.

use crate::error::{Error, Result};
use chromiumoxide::cdp::browser_protocol::input::{
    DispatchMouseEventParams, DispatchMouseEventType,
};
use chromiumoxide::cdp::browser_protocol::page::HandleJavaScriptDialogParams;
use pagesnap_engine::dialog::DialogKind;
use serde::Deserialize;

use super::Input;
use crate::action::{ClickWith, Failure, MAX_WAIT, Outcome, UserAction, Wait};
use crate::failure::TabError;
use crate::frames::{node_key, split_key};
use crate::readiness::{Performed, Readiness, Settler};
use crate::waits;

/// Finds the click point of `this` (see the module docs; content skipped
/// off screen is waited for until laid out once scrolled to); returns
/// `{x, y}` in the viewport coordinates of the topmost document of its
/// process (the page's, or an out-of-process frame's), or `{error}` /
/// `{covered}`. Called on the `<iframe>` of an out-of-process frame with
/// `inner`, the point `[x, y]` found inside that frame, it places that point
/// in its own document instead, checking that the frame is what the page
/// shows there.
const POINT_JS: &str = r#"async function (inner) {
  const el = this;
  const describe = (n) => {
    if (!n) return 'nothing';
    if (n.nodeType !== 1) n = n.parentElement;
    if (!n) return 'nothing';
    let s = '<' + n.tagName.toLowerCase();
    if (n.id) s += ' id="' + n.id + '"';
    const cls = typeof n.className === 'string' ? n.className.trim() : '';
    if (cls) s += ' class="' + cls.split(/\s+/).slice(0, 3).join(' ') + '"';
    s += '>';
    const text = (n.innerText || n.textContent || '').replace(/\s+/g, ' ').trim();
    if (text) s += ' "' + (text.length > 60 ? text.slice(0, 57) + '...' : text) + '"';
    return s;
  };
  if (!el.isConnected) return { error: 'stale' };
  if (el.nodeType !== 1) return { error: 'hidden' };
  const win = el.ownerDocument.defaultView;
  // Where a frame element's document starts, in its own viewport.
  const origin = (frame) => {
    const box = frame.getBoundingClientRect();
    const style = getComputedStyle(frame);
    return [box.left + frame.clientLeft + parseFloat(style.paddingLeft || '0'),
            box.top + frame.clientTop + parseFloat(style.paddingTop || '0')];
  };
  let x, y;
  if (inner) {
    const place = () => {
      const [left, top] = origin(el);
      x = left + inner[0];
      y = top + inner[1];
    };
    place();
    if (x < 0 || y < 0 || x >= win.innerWidth || y >= win.innerHeight) {
      win.scrollBy({ left: x - win.innerWidth / 2, top: y - win.innerHeight / 2, behavior: 'instant' });
      place();
    }
    if (x < 0 || y < 0 || x >= win.innerWidth || y >= win.innerHeight) return { error: 'hidden' };
  } else {
    // Content Chromium skips off screen (`content-visibility: auto`) is laid
    // out and hit-testable only from the frame after it came into view.
    const skipped = typeof el.checkVisibility === 'function' && el.nodeType === 1
      && el.checkVisibility() && !el.checkVisibility({ contentVisibilityAuto: true });
    const reveal = () => {
      if (typeof el.scrollIntoViewIfNeeded === 'function') el.scrollIntoViewIfNeeded(true);
      else el.scrollIntoView({ block: 'center', inline: 'center' });
    };
    reveal();
    if (skipped) {
      // Laid out a frame or two later (and then at its real height, so
      // scrolled to again): waited for up to half a second.
      const until = performance.now() + 500;
      while (!el.checkVisibility({ contentVisibilityAuto: true }) && performance.now() < until) {
        await new Promise((r) => setTimeout(r, 16));
      }
      reveal();
    }
    const rect = [...el.getClientRects()].find((r) => r.width > 0 && r.height > 0);
    if (!rect) return { error: 'hidden' };
    const left = Math.max(rect.left, 0), top = Math.max(rect.top, 0);
    const right = Math.min(rect.right, win.innerWidth), bottom = Math.min(rect.bottom, win.innerHeight);
    if (right <= left || bottom <= top) return { error: 'hidden' };
    x = (left + right) / 2; y = (top + bottom) / 2;
  }
  const inside = (n) => { for (let m = n; m; m = m.parentNode || m.host) if (m === el) return true; return false; };
  const root = el.getRootNode();
  const hit = root.elementFromPoint ? root.elementFromPoint(x, y) : el.ownerDocument.elementFromPoint(x, y);
  if (!hit || !inside(hit)) return { covered: describe(hit) + ' at (' + Math.round(x) + ', ' + Math.round(y) + ')' };
  for (let w = win; w.frameElement; w = w.frameElement.ownerDocument.defaultView) {
    const frame = w.frameElement;
    const [left, top] = origin(frame);
    x += left;
    y += top;
    const parentRoot = frame.getRootNode();
    const parentHit = parentRoot.elementFromPoint(x, y);
    if (parentHit !== frame) return { covered: describe(parentHit) };
  }
  return { x, y };
}"#;

/// Selects `this`'s text (`want`: the first occurrence of it, white space
/// matching any white space), as a user's drag over it would: `{ok}`, or
/// `{error: 'no-text'}`.
const SELECT_TEXT_JS: &str = r#"function (want) {
  const el = this;
  if (!el.isConnected) return { error: 'stale' };
  const doc = el.ownerDocument;
  if (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') {
    const at = want === null ? 0 : el.value.indexOf(want);
    if (at < 0) return { error: 'no-text' };
    el.focus();
    el.setSelectionRange(at, want === null ? el.value.length : at + want.length);
    return { ok: true };
  }
  // The text with each run of white space one space (as a snapshot shows
  // it), and where each of its characters lies; scripts and styles left out.
  const walker = doc.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  let all = '', space = true;
  const at = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (n.parentElement && n.parentElement.closest('script, style, noscript, template')) continue;
    const data = n.data;
    for (let i = 0; i < data.length; i++) {
      const blank = data.charCodeAt(i) <= 32 || data[i] === '\u00a0';
      if (blank && space) continue;
      space = blank;
      all += blank ? ' ' : data[i];
      at.push([n, i]);
    }
  }
  if (space && all.length) { all = all.slice(0, -1); at.pop(); }
  const wanted = want === null ? all : want.replace(/\s+/g, ' ').trim();
  const start = all.indexOf(wanted);
  if (start < 0 || wanted.length === 0) return { error: 'no-text' };
  const [a, ao] = at[start];
  const [b, bo] = at[start + wanted.length - 1];
  const range = doc.createRange();
  range.setStart(a, ao);
  range.setEnd(b, bo + 1);
  const sel = doc.getSelection();
  sel.removeAllRanges();
  sel.addRange(range);
  el.dispatchEvent(new MouseEvent('mouseup', { bubbles: true }));
  return { ok: true };
}"#;

/// Whether `this` has left the page or has no size on screen.
const GONE_JS: &str = "function () { return !this.isConnected || (this.nodeType === 1 && this.getClientRects().length === 0); }";

/// What is at a viewport point: its role (or tag) and text, as `button "Go"`.
const ELEMENT_AT_JS: &str = r#"function (x, y) {
  let el = document.elementFromPoint(x, y);
  while (el && el.shadowRoot) { const inner = el.shadowRoot.elementFromPoint(x, y); if (!inner || inner === el) break; el = inner; }
  if (!el) return null;
  const clickable = el.closest('a, button, input, select, textarea, label, summary, [role], [onclick], [tabindex]') || el;
  const tag = clickable.tagName.toLowerCase();
  const implicit = { a: 'link', button: 'button', select: 'combobox', textarea: 'textbox', summary: 'button' };
  let role = clickable.getAttribute('role') || implicit[tag] || (tag === 'input' ? ({ checkbox: 'checkbox', radio: 'radio', submit: 'button', button: 'button' }[clickable.type] || 'textbox') : tag);
  const text = (clickable.getAttribute('aria-label') || clickable.innerText || clickable.value || '').replace(/\s+/g, ' ').trim();
  return role + ' ' + JSON.stringify(text.length > 60 ? text.slice(0, 57) + '...' : text);
}"#;

/// Focuses `this`.
/// (An element that has the focus keeps it as it is: focusing a date field
/// again would put its caret back on the first segment.)
const FOCUS_JS: &str = "function () { if (!this.isConnected) return { error: 'stale' }; \
     if (this.getRootNode().activeElement !== this) this.focus(); return { ok: true }; }";

/// What the scripts answer.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Answer {
    #[serde(default)]
    x: Option<f64>,
    #[serde(default)]
    y: Option<f64>,
    #[serde(default)]
    pub(super) error: Option<Failure>,
    #[serde(default)]
    covered: Option<String>,
    #[serde(default)]
    pub(super) options: Vec<String>,
    /// A fill's field kind: `select`, `check` or `text`.
    #[serde(default)]
    pub(crate) kind: Option<String>,
    #[serde(default)]
    pub(super) checked: Option<bool>,
    #[serde(default)]
    pub(super) radio: Option<bool>,
    /// A control set whole by value: its input type ([`super::controls::Control`]).
    #[serde(default)]
    pub(super) control: Option<String>,
    /// What a field holds (a read-back; a refused value's sanitized form).
    #[serde(default)]
    pub(super) held: Option<String>,
    /// What a select was asked to show.
    #[serde(default)]
    pub(super) want: Option<String>,
    /// The field read back is a password field.
    #[serde(default)]
    pub(super) secret: bool,
    /// The field read back is a number field.
    #[serde(default)]
    pub(super) numeric: bool,
    /// The field read back is the node itself (not the focus it moved to).
    #[serde(default)]
    pub(super) own: bool,
    /// The element is a custom slider (`role="slider"`).
    #[serde(default)]
    pub(super) slider: bool,
    /// The field's `maxlength`, if it has one.
    #[serde(default, rename = "maxLength")]
    pub(super) max_length: Option<u32>,
    /// A control's `min`, `max` and `step` attributes (empty: none).
    #[serde(default)]
    pub(super) min: Option<String>,
    #[serde(default)]
    pub(super) max: Option<String>,
    #[serde(default)]
    pub(super) step: Option<String>,
}

impl Input<'_> {
    /// [`crate::ChromiumSession::perform_ready`]'s work: the probe armed
    /// for `readiness`, the action, then the wait for the page to settle.
    pub(crate) async fn perform(
        &self,
        action: &UserAction,
        readiness: Readiness,
    ) -> Result<Performed> {
        if let UserAction::Dialog { accept, text } = action {
            return self
                .answer_dialog(*accept, text.as_deref(), readiness)
                .await;
        }
        if let Some(dialog) = self.tab.dialog() {
            return Ok(Performed::unsettled(Outcome::failed(
                Failure::DialogPending,
                Failure::dialog_pending(&dialog),
            )));
        }
        let settler = Settler::arm(self.tab, readiness).await?;
        let performed = async {
            let outcome = match action {
                UserAction::Click { backend_id, with } => {
                    self.click_with(*backend_id, *with).await?
                }
                UserAction::Type {
                    backend_id: Some(backend_id),
                    text,
                } => self.type_into(*backend_id, text).await?,
                UserAction::Type {
                    backend_id: None,
                    text,
                } => self.type_at_focus(text).await?,
                UserAction::Select { backend_id, value } => self.select(*backend_id, value).await?,
                UserAction::Scroll {
                    backend_id,
                    axis,
                    by,
                    motion,
                } => self.scroll(*backend_id, *axis, *by, *motion).await?,
                UserAction::Press { backend_id, key } => self.press(*backend_id, key).await?,
                UserAction::Hover { backend_id } => self.hover(*backend_id).await?,
                UserAction::DoubleClick { backend_id } => self.double_click(*backend_id).await?,
                UserAction::Focus { backend_id } => self.focus(*backend_id).await?,
                UserAction::Clear { backend_id } => self.type_into(*backend_id, "").await?,
                UserAction::Drag { backend_id, to } => self.drag(*backend_id, *to).await?,
                UserAction::Upload { backend_id, paths } => self.upload(*backend_id, paths).await?,
                UserAction::SelectText { backend_id, text } => {
                    self.select_text(*backend_id, text.as_deref()).await?
                }
                UserAction::ClickAt { x, y } => self.click_at(*x, *y).await?,
                UserAction::Wait(wait) => self.wait(wait).await?,
                UserAction::Fill { fields } => self.fill(fields).await?,
                UserAction::Dialog { .. } => Outcome::ok(),
            };
            let settled = settler.settle().await?;
            Ok(Performed { outcome, settled })
        };
        // A click or key may open a file chooser, which the agent is told of.
        let opens_chooser = matches!(
            action,
            UserAction::Click { .. }
                | UserAction::DoubleClick { .. }
                | UserAction::Press { .. }
                | UserAction::ClickAt { .. }
        );
        if opens_chooser {
            opened_dialog(self.noting_chooser(performed).await)
        } else {
            opened_dialog(performed.await)
        }
    }

    /// Answers the pending dialog (a prompt with `text`, or its default
    /// text), then lets the page react as after any action.
    async fn answer_dialog(
        &self,
        accept: bool,
        text: Option<&str>,
        readiness: Readiness,
    ) -> Result<Performed> {
        let Some(dialog) = self.tab.dialog() else {
            return Ok(Performed::unsettled(Outcome::failed(
                Failure::NoDialog,
                Failure::NoDialog.message(),
            )));
        };
        let mut params = HandleJavaScriptDialogParams::new(accept);
        if accept {
            params.prompt_text = text
                .map(str::to_owned)
                .or_else(|| dialog.default_prompt.clone());
        }
        // Not through `call`, which refuses every call while a dialog is pending.
        match tokio::time::timeout(self.tab.limit(), self.tab.page().execute(params)).await {
            Ok(Ok(_)) => {}
            // Closed meanwhile (by the page's navigation, another client).
            Ok(Err(_)) if self.tab.dialog().is_none() => {
                return Ok(Performed::unsettled(Outcome::failed(
                    Failure::NoDialog,
                    Failure::NoDialog.message(),
                )));
            }
            Ok(Err(err)) => {
                return Err(TabError::Failed {
                    url: self.tab.url().to_owned(),
                    call: "Page.handleJavaScriptDialog",
                    message: format!("answering the {} dialog: {err}", dialog.kind.name()),
                }
                .into());
            }
            Err(_) => {
                return Err(TabError::NoAnswer {
                    url: self.tab.url().to_owned(),
                    call: "Page.handleJavaScriptDialog",
                    limit: self.tab.limit(),
                }
                .into());
            }
        }
        self.tab.dialogs().answered_by_agent();
        let note = match (text, dialog.kind) {
            (Some(_), DialogKind::Prompt) if accept => None,
            (Some(_), DialogKind::Prompt) => {
                Some("the text was not given: a dismissed prompt returns null".to_owned())
            }
            (Some(_), kind) => Some(format!(
                "the text was not given: a {} dialog has no text field",
                kind.name()
            )),
            (None, _) => None,
        };
        // The page's script stood still until now: the probe armed by the
        // action that opened the dialog, if any, follows what it does next.
        let settled = Settler::unarmed(self.tab, readiness).settle().await;
        opened_dialog(settled.map(|settled| Performed {
            outcome: Outcome::Done { note },
            settled,
        }))
    }

    pub(crate) async fn click(&self, backend_id: u64) -> Result<Outcome> {
        let point = match self.point_of(backend_id).await? {
            Ok(point) => point,
            Err(failed) => return Ok(failed),
        };
        self.mouse().click(point).await?;
        Ok(Outcome::ok())
    }

    /// A click of `with`'s button with its modifier keys held down, as a
    /// person holds Control while clicking.
    async fn click_with(&self, backend_id: u64, with: ClickWith) -> Result<Outcome> {
        if with.is_plain() {
            return self.click(backend_id).await;
        }
        let point = match self.point_of(backend_id).await? {
            Ok(point) => point,
            Err(failed) => return Ok(failed),
        };
        self.keyboard().hold(with.modifiers).await?;
        let clicked = self.mouse().click_with(point, with).await;
        // The keys come up even when the click failed.
        let released = self.keyboard().release(with.modifiers).await;
        clicked.and(released)?;
        Ok(Outcome::ok())
    }

    async fn hover(&self, backend_id: u64) -> Result<Outcome> {
        let (x, y) = match self.point_of(backend_id).await? {
            Ok(point) => point,
            Err(failed) => return Ok(failed),
        };
        self.tab
            .call(
                "Input.dispatchMouseEvent",
                self.tab.page().execute(DispatchMouseEventParams::new(
                    DispatchMouseEventType::MouseMoved,
                    x,
                    y,
                )),
            )
            .await?;
        Ok(Outcome::ok())
    }

    async fn press(&self, backend_id: Option<u64>, name: &str) -> Result<Outcome> {
        let Some(chord) = super::keys::chord(name) else {
            return Ok(Outcome::failed(
                Failure::UnknownKey,
                format!(
                    "unknown key {name:?} (known: {}, or one character; combined with Control, Shift, Alt or Meta as Control+A)",
                    super::keys::key_names()
                ),
            ));
        };
        if let Some(id) = backend_id {
            let answer = self.call_on(id, FOCUS_JS, Vec::new()).await?;
            if let Some(failed) = failure(&answer) {
                return Ok(failed);
            }
        }
        self.keyboard().press_chord(&chord).await?;
        Ok(Outcome::ok())
    }

    async fn double_click(&self, backend_id: u64) -> Result<Outcome> {
        let point = match self.point_of(backend_id).await? {
            Ok(point) => point,
            Err(failed) => return Ok(failed),
        };
        self.mouse().click(point).await?;
        self.mouse().press(point, 2).await?;
        Ok(Outcome::ok())
    }

    pub(super) async fn focus(&self, backend_id: u64) -> Result<Outcome> {
        let answer = self.call_on(backend_id, FOCUS_JS, Vec::new()).await?;
        Ok(failure(&answer).unwrap_or_else(Outcome::ok))
    }

    async fn select_text(&self, backend_id: Option<u64>, text: Option<&str>) -> Result<Outcome> {
        let want = text.map_or(serde_json::Value::Null, serde_json::Value::from);
        let answer = match backend_id {
            Some(backend_id) => self.call_on(backend_id, SELECT_TEXT_JS, vec![want]).await?,
            None => {
                let script = format!("({SELECT_TEXT_JS}).call(document.body, {want})");
                let value = self.tab.eval(&script).await?;
                serde_json::from_value(value).map_err(|err| Error::Answer {
                    url: self.tab.url().to_owned(),
                    message: format!("the select-text script's answer: {err}"),
                })?
            }
        };
        if answer.error == Some(Failure::NoText) {
            let place = if backend_id.is_some() {
                "the element does not hold"
            } else {
                "the page does not show"
            };
            return Ok(Outcome::failed(
                Failure::NoText,
                format!("{place} the text {:?}", text.unwrap_or_default()),
            ));
        }
        Ok(failure(&answer).unwrap_or_else(Outcome::ok))
    }

    async fn click_at(&self, x: f64, y: f64) -> Result<Outcome> {
        match self.viewport_point(x, y).await? {
            Ok(point) => {
                self.mouse().click(point).await?;
                Ok(Outcome::ok())
            }
            Err(failed) => Ok(failed),
        }
    }

    /// `(x, y)` when it lies inside the viewport, else the failure naming it.
    pub(crate) async fn viewport_point(
        &self,
        x: f64,
        y: f64,
    ) -> Result<Result<(f64, f64), Outcome>> {
        let size = self.tab.eval("[innerWidth, innerHeight]").await?;
        let (width, height) = (
            size.get(0)
                .and_then(serde_json::Value::as_f64)
                .unwrap_or(0.0),
            size.get(1)
                .and_then(serde_json::Value::as_f64)
                .unwrap_or(0.0),
        );
        if !(0.0..width).contains(&x) || !(0.0..height).contains(&y) {
            return Ok(Err(Outcome::failed(
                Failure::Hidden,
                format!(
                    "the point ({x}, {y}) is outside the viewport ({width}×{height} CSS pixels)"
                ),
            )));
        }
        Ok(Ok((x, y)))
    }

    /// [`crate::ChromiumSession::element_at`]'s work.
    pub(crate) async fn element_at(&self, x: f64, y: f64) -> Result<Option<String>> {
        let script = format!("({ELEMENT_AT_JS})({x}, {y})");
        Ok(self.tab.eval(&script).await?.as_str().map(str::to_owned))
    }

    async fn wait(&self, wait: &Wait) -> Result<Outcome> {
        let started = std::time::Instant::now();
        let limit = MAX_WAIT.min(self.tab.limit());
        loop {
            let reached = match wait {
                Wait::Delay(delay) => {
                    tokio::time::sleep(*delay).await;
                    return Ok(Outcome::ok());
                }
                Wait::Text(text) => {
                    let script = format!(
                        "(document.body ? document.body.innerText : '').includes({})",
                        serde_json::Value::from(text.as_str())
                    );
                    self.tab.eval(&script).await?.as_bool() == Some(true)
                }
                Wait::Gone(backend_id) => self
                    .call_function_on(*backend_id, GONE_JS, Vec::new())
                    .await?
                    .is_none_or(|gone| gone.as_bool() == Some(true)),
            };
            if reached {
                return Ok(Outcome::ok());
            }
            if started.elapsed() >= limit {
                let what = match wait {
                    Wait::Text(text) => format!("the text {text:?} did not appear"),
                    _ => "the element did not leave the page".to_owned(),
                };
                return Ok(Outcome::failed(
                    Failure::WaitTimeout,
                    format!("{what} within {:.1} s", limit.as_secs_f64()),
                ));
            }
            tokio::time::sleep(waits::WAIT_POLL).await;
        }
    }

    /// The click point of a node, or the failure a user would meet. A node
    /// of an out-of-process frame is placed in its frame's viewport, then
    /// through each `<iframe>` up to the page's, each checked to be what the
    /// page shows at that point (a frame covered on the page is `covered`).
    pub(crate) async fn point_of(&self, backend_id: u64) -> Result<Result<(f64, f64), Outcome>> {
        let mut answer = self.call_on(backend_id, POINT_JS, Vec::new()).await?;
        let (mut frame, _) = split_key(backend_id);
        loop {
            if let Some(failed) = failure(&answer) {
                return Ok(Err(failed));
            }
            let (Some(x), Some(y)) = (answer.x, answer.y) else {
                return Err(Error::Answer {
                    url: self.tab.url().to_owned(),
                    message: "the click-point script answered no point".to_owned(),
                });
            };
            if frame == 0 {
                return Ok(Ok((x, y)));
            }
            let Some(link) = self.frames.get(frame) else {
                return Ok(Err(Outcome::failed(
                    Failure::Stale,
                    "the node's frame left the page",
                )));
            };
            let owner = node_key(link.parent, link.owner);
            answer = self
                .call_on(owner, POINT_JS, vec![serde_json::json!([x, y])])
                .await?;
            frame = link.parent;
        }
    }

    /// Calls `function` on the node, in the node's own JavaScript world.
    /// A node that no longer exists is `{error: "stale"}`; a tab that is
    /// gone, a call left unanswered and an answer that is not what the
    /// scripts return are errors, never a silent success.
    pub(crate) async fn call_on(
        &self,
        backend_id: u64,
        function: &str,
        arguments: Vec<serde_json::Value>,
    ) -> Result<Answer> {
        match self
            .call_function_on(backend_id, function, arguments)
            .await?
        {
            Some(value) => self.answer(Some(value)),
            None => Ok(Answer {
                error: Some(Failure::Stale),
                ..Answer::default()
            }),
        }
    }

    /// Calls `function` with `arguments` on the main document's root
    /// element (scripts that act on the focus or the page).
    pub(crate) async fn call_on_document(
        &self,
        function: &str,
        arguments: &[serde_json::Value],
    ) -> Result<Answer> {
        self.answer(self.call_value(None, function, arguments).await?)
    }

    /// Calls `function` with `arguments` on the node (none: the main
    /// document's root element); its answer as it is, `None` when the node
    /// no longer exists.
    pub(super) async fn call_value(
        &self,
        backend_id: Option<u64>,
        function: &str,
        arguments: &[serde_json::Value],
    ) -> Result<Option<serde_json::Value>> {
        match backend_id {
            Some(id) => {
                self.call_function_on(id, function, arguments.to_vec())
                    .await
            }
            None => {
                let arguments = serde_json::Value::Array(arguments.to_vec());
                let script = format!("({function}).apply(document.documentElement, {arguments})");
                Ok(Some(self.tab.eval(&script).await?))
            }
        }
    }

    /// [`Input::call_value`] read as `T`, or the failure a person would
    /// meet: a node gone is `stale`, an `{error}` answer its kind; an answer
    /// that is neither is a named error.
    pub(super) async fn call_typed<T: serde::de::DeserializeOwned>(
        &self,
        backend_id: Option<u64>,
        function: &str,
        arguments: &[serde_json::Value],
    ) -> Result<std::result::Result<T, Outcome>> {
        let Some(value) = self.call_value(backend_id, function, arguments).await? else {
            return Ok(Err(Outcome::failed(
                Failure::Stale,
                Failure::Stale.message(),
            )));
        };
        if value.get("error").is_some()
            && let Some(failed) = failure(&self.answer(Some(value.clone()))?)
        {
            return Ok(Err(failed));
        }
        serde_json::from_value(value.clone())
            .map(Ok)
            .map_err(|err| Error::Answer {
                url: self.tab.url().to_owned(),
                message: format!("the action script answered {value}: {err}"),
            })
    }

    /// Reads a script's answer; anything but an object of the known fields is
    /// a named error (a page that replaced `Object` or `JSON` can cause it).
    pub(super) fn answer(&self, value: Option<serde_json::Value>) -> Result<Answer> {
        match value {
            Some(value @ serde_json::Value::Object(_)) => serde_json::from_value(value.clone())
                .map_err(|err| Error::Answer {
                    url: self.tab.url().to_owned(),
                    message: format!(
                        "the action script answered {value}, which is not an action answer: {err}"
                    ),
                }),
            other => Err(Error::Answer {
                url: self.tab.url().to_owned(),
                message: format!(
                    "the action script answered {}, not an object",
                    other.map_or_else(|| "nothing".to_owned(), |v| v.to_string())
                ),
            }),
        }
    }
}

/// An action cut short by a dialog the page opened is done: the page did
/// react, and waits on the dialog, which the note names.
fn opened_dialog(acted: Result<Performed>) -> Result<Performed> {
    match acted {
        Err(err) => match err.tab() {
            Some(TabError::DialogOpen { dialog, .. }) => {
                let opened = format!("the page opened a dialog. {}", dialog.line());
                Ok(Performed::unsettled(Outcome::Done { note: Some(opened) }))
            }
            _ => Err(err),
        },
        acted => acted,
    }
}

/// The outcome a script's `{error}` or `{covered}` answer means, if any.
pub(crate) fn failure(answer: &Answer) -> Option<Outcome> {
    if let Some(by) = &answer.covered {
        return Some(Outcome::failed(
            Failure::Covered,
            format!(
                "the element is covered: a click at its centre would land on {by}; \
                 close or move what covers it first"
            ),
        ));
    }
    let kind = answer.error?;
    Some(Outcome::failed(kind, kind.message()))
}
