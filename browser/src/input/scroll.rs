//! Scrolling as a person's wheel scrolls: wheel events, a notch at a time, at a point of what is to scroll whose own scroller it is (not a nested scroller, a frame or a map at its centre); answered once the position has stopped moving and, at the end, once what the scroll set off has loaded (the document grew) or did not come within [`GROWTH_WAIT`].
//!
//! `wheel`, `scroll`, IntersectionObservers and scroll-linked animations see
//! every position on the way, as they do for a person. What no point takes
//! the wheel for (a container hidden behind another, one in a frame of
//! another process) and what the page stops the wheel on is scrolled by
//! `scrollBy`, which the answer says.

use std::time::{Duration, Instant};

use chromiumoxide::cdp::browser_protocol::input::{
    DispatchMouseEventParams, DispatchMouseEventType,
};
use serde::Deserialize;

use super::Input;
use crate::action::{Axis, Motion, Outcome, ScrollBy};
use crate::error::Result;
use crate::frames::split_key;

/// What one wheel notch scrolls in Chromium, CSS pixels.
const NOTCH: f64 = 100.0;

/// Between two notches: a frame, as a hand turning a wheel sends them.
const NOTCH_GAP: Duration = Duration::from_millis(16);

/// How often the position and the document's height are read.
const POLL: Duration = Duration::from_millis(50);

/// The longest a wheel's scroll may take to come to rest.
const SETTLE_LIMIT: Duration = Duration::from_millis(1_000);

/// At the end, how long to wait for the document to grow (a feed loading
/// its next items when its end comes into view).
pub(crate) const GROWTH_WAIT: Duration = Duration::from_millis(1_500);

/// Within a screen of the end, the same wait, shorter (a feed that loads
/// ahead, on wheel input near its end).
const GROWTH_WAIT_NEAR: Duration = Duration::from_millis(600);

/// Once it grows, the quiet that ends the wait, and the longest wait in all.
const GROWTH_QUIET: Duration = Duration::from_millis(250);
const GROWTH_LIMIT: Duration = Duration::from_millis(4_000);

/// Plans a scroll of `this` (the document's root: the page) by `by`
/// (`screens`: in heights of what scrolls; `x`: across, in widths):
/// `{step, position, max, extent, point}`, `point` the viewport point where
/// the wheel reaches it (null when none does).
const PLAN_JS: &str = r#"function (by, screens, x) {
  const el = this;
  if (!el.isConnected) return { error: 'stale' };
  const doc = el.ownerDocument, win = doc.defaultView;
  const root = doc.scrollingElement || doc.documentElement;
  const page = el === doc.documentElement || el === doc.body || el === root;
  const client = (n) => x ? n.clientWidth : n.clientHeight;
  if (!page && client(el) <= 0) return { error: 'hidden' };
  const step = screens ? by * (page ? (x ? win.innerWidth : win.innerHeight) : client(el)) : by;
  const scrolls = (n) => {
    const style = getComputedStyle(n);
    return /(auto|scroll|overlay)/.test(x ? style.overflowX : style.overflowY) && (x ? n.scrollWidth : n.scrollHeight) > client(n);
  };
  // The element the wheel over `n` scrolls first (crossing shadow roots).
  const owner = (n) => {
    for (let m = n; m; m = m.parentElement || (m.getRootNode() instanceof ShadowRoot ? m.getRootNode().host : null)) {
      if (m === doc.documentElement || m === doc.body) return root;
      if (scrolls(m)) return m;
    }
    return root;
  };
  const want = page ? root : el;
  const box = page ? { left: 0, top: 0, right: win.innerWidth, bottom: win.innerHeight } : el.getBoundingClientRect();
  const left = Math.max(box.left, 0), top = Math.max(box.top, 0);
  const right = Math.min(box.right, win.innerWidth), bottom = Math.min(box.bottom, win.innerHeight);
  let point = null;
  if (right > left && bottom > top) {
    search: for (const fy of [0.5, 0.3, 0.7, 0.15, 0.85]) {
      for (const fx of [0.5, 0.25, 0.75, 0.1, 0.9]) {
        const px = left + (right - left) * fx, py = top + (bottom - top) * fy;
        let hit = doc.elementFromPoint(px, py);
        while (hit && hit.shadowRoot) { const inner = hit.shadowRoot.elementFromPoint(px, py); if (!inner || inner === hit) break; hit = inner; }
        if (!hit || /^(IFRAME|FRAME|EMBED|OBJECT)$/.test(hit.tagName)) continue;
        if (owner(hit) === want) { point = [px, py]; break search; }
      }
    }
  }
  return { step, point, ...STATE.call(el, x) };
}"#;

/// Where `this` (the document's root: the page) stands along its axis (`x`:
/// across): `{position, max, extent}`.
const STATE_JS: &str = r#"function (x) {
  const el = this;
  const doc = el.ownerDocument, win = doc.defaultView;
  const root = doc.scrollingElement || doc.documentElement;
  const page = el === doc.documentElement || el === doc.body || el === root;
  if (page) {
    return x ? { position: win.scrollX, max: root.scrollWidth - win.innerWidth, extent: root.scrollWidth }
      : { position: win.scrollY, max: root.scrollHeight - win.innerHeight, extent: root.scrollHeight };
  }
  return x ? { position: el.scrollLeft, max: el.scrollWidth - el.clientWidth, extent: el.scrollWidth }
    : { position: el.scrollTop, max: el.scrollHeight - el.clientHeight, extent: el.scrollHeight };
}"#;

/// Scrolls `this` (the document's root: the page) by `d` at once (`x`:
/// across).
const JUMP_JS: &str = r#"function (d, x) {
  const el = this;
  const doc = el.ownerDocument, win = doc.defaultView;
  const root = doc.scrollingElement || doc.documentElement;
  const by = x ? { left: d, behavior: 'instant' } : { top: d, behavior: 'instant' };
  if (el === doc.documentElement || el === doc.body || el === root) win.scrollBy(by);
  else el.scrollBy(by);
  return true;
}"#;

/// [`PLAN_JS`] with [`STATE_JS`] written in.
static PLAN: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| PLAN_JS.replace("STATE", &format!("({STATE_JS})")));

/// A scroller's state along the scroll's axis ([`STATE_JS`]).
#[derive(Clone, Copy, Debug, Default, Deserialize)]
struct State {
    position: f64,
    max: f64,
    /// What it holds: its scroll height (width, across).
    extent: f64,
}

/// A scroll's plan ([`PLAN_JS`]).
#[derive(Debug, Deserialize)]
struct Plan {
    step: f64,
    point: Option<(f64, f64)>,
    #[serde(flatten)]
    state: State,
}

/// What scrolls, and which way.
#[derive(Clone, Copy, Debug)]
struct Scroller {
    /// The container; none: the page.
    backend_id: Option<u64>,
    axis: Axis,
}

impl Scroller {
    fn across(self) -> serde_json::Value {
        serde_json::Value::Bool(self.axis == Axis::Horizontal)
    }
}

impl Input<'_> {
    /// [`crate::UserAction::Scroll`]: see the module docs.
    pub(super) async fn scroll(
        &self,
        backend_id: Option<u64>,
        axis: Axis,
        by: ScrollBy,
        motion: Motion,
    ) -> Result<Outcome> {
        let scroller = Scroller { backend_id, axis };
        let (amount, screens) = match by {
            ScrollBy::Pixels(px) => (px, false),
            ScrollBy::Screens(n) => (n, true),
        };
        let args = [
            serde_json::Value::from(amount),
            serde_json::Value::Bool(screens),
            scroller.across(),
        ];
        let plan: Plan = match self.call_typed(backend_id, &PLAN, &args).await? {
            Ok(plan) => plan,
            Err(failed) => return Ok(failed),
        };
        let before = plan.state;
        let mut notes = Vec::new();
        let could_move = if plan.step > 0.0 {
            before.position < before.max - 0.5
        } else {
            before.position > 0.5
        };
        // A node of an out-of-process frame is placed in its own viewport, not the page's.
        let in_page = backend_id.is_none_or(|id| split_key(id).0 == 0);
        // The wheel over a container at its end would scroll the page
        // instead; at the page's end it still reaches the page's listeners
        // (a feed that loads on the wheel).
        let wheel_point = plan
            .point
            .filter(|_| in_page && motion == Motion::Wheel && (could_move || backend_id.is_none()));
        let mut now = match wheel_point {
            Some(point) => {
                self.wheel(point, axis, plan.step).await?;
                self.at_rest(scroller, before).await?
            }
            None => before,
        };
        if (now.position - before.position).abs() < 0.5 && could_move {
            self.call_value(
                backend_id,
                JUMP_JS,
                &[serde_json::Value::from(plan.step), scroller.across()],
            )
            .await?;
            now = self.state(scroller, now).await?;
            if motion == Motion::Wheel {
                notes.push("scrolled without the wheel (no point of it takes the wheel, or the page stops the wheel there)".to_owned());
            }
        }
        if (now.position - before.position).abs() < 0.5 {
            notes.push(
                "the scroll did not move: already at that end (or not scrollable)".to_owned(),
            );
        }
        // Near the end, a feed loads its next items: wait for them.
        let left = now.max - now.position;
        let near = plan.step > 0.0 && left < plan.step.abs().max(1.0) / ScrollBy::STEP;
        if near {
            let wait = if left < 1.0 {
                GROWTH_WAIT
            } else {
                GROWTH_WAIT_NEAR
            };
            let (grown, settled) = self.growth(scroller, before, now, wait).await?;
            now = grown;
            if !settled {
                notes.push(format!(
                    "still loading when the {:.1} s limit ran out: scroll again or wait for more",
                    GROWTH_LIMIT.as_secs_f64()
                ));
            }
        }
        if now.extent > before.extent + 0.5 {
            notes.push(format!(
                "the page grew by {} px: more content loaded",
                (now.extent - before.extent).round()
            ));
        } else if near && now.max - now.position < 1.0 {
            notes.push(format!(
                "reached the end: nothing more loaded within {:.1} s",
                GROWTH_WAIT.as_secs_f64()
            ));
        }
        let note = (!notes.is_empty()).then(|| notes.join("; "));
        Ok(Outcome::Done { note })
    }

    /// Wheel notches at `point` adding up to `d` along `axis`.
    async fn wheel(&self, point: (f64, f64), axis: Axis, d: f64) -> Result<()> {
        let notches = (d.abs() / NOTCH).ceil().max(1.0);
        let delta = d / notches;
        let (dx, dy) = match axis {
            Axis::Vertical => (0.0, delta),
            Axis::Horizontal => (delta, 0.0),
        };
        for n in 0..notches as u32 {
            if n > 0 {
                tokio::time::sleep(NOTCH_GAP).await;
            }
            let mut params =
                DispatchMouseEventParams::new(DispatchMouseEventType::MouseWheel, point.0, point.1);
            params.delta_x = Some(dx);
            params.delta_y = Some(dy);
            self.tab
                .call("Input.dispatchMouseEvent", self.tab.page().execute(params))
                .await?;
        }
        Ok(())
    }

    /// The scroller's state once two reads [`POLL`] apart agree (a smooth
    /// scroll has come to rest), within [`SETTLE_LIMIT`].
    async fn at_rest(&self, scroller: Scroller, before: State) -> Result<State> {
        let started = Instant::now();
        let mut last = before;
        loop {
            tokio::time::sleep(POLL).await;
            let now = self.state(scroller, last).await?;
            let moved_once = (now.position - before.position).abs() >= 0.5;
            if (moved_once && (now.position - last.position).abs() < 0.5)
                || started.elapsed() >= SETTLE_LIMIT
            {
                return Ok(now);
            }
            last = now;
        }
    }

    /// Near the end: waits up to `wait` for the scroller to grow past its
    /// extent `before` the scroll, then, while it grows, until it has not
    /// for [`GROWTH_QUIET`]; whether it settled within [`GROWTH_LIMIT`].
    async fn growth(
        &self,
        scroller: Scroller,
        before: State,
        at: State,
        wait: Duration,
    ) -> Result<(State, bool)> {
        let started = Instant::now();
        let mut last = at;
        let mut grew_at = (at.extent > before.extent + 0.5).then(Instant::now);
        loop {
            tokio::time::sleep(POLL).await;
            let now = self.state(scroller, last).await?;
            if now.extent > last.extent + 0.5 {
                grew_at = Some(Instant::now());
            }
            last = now;
            let done = match grew_at {
                Some(at) => at.elapsed() >= GROWTH_QUIET,
                None => started.elapsed() >= wait,
            };
            if done {
                return Ok((last, true));
            }
            if started.elapsed() >= GROWTH_LIMIT {
                return Ok((last, false));
            }
        }
    }

    /// How far the page (no element) or the container is scrolled along
    /// `axis` (down, or right); `None` when the container left the page.
    pub(crate) async fn scrolled(
        &self,
        backend_id: Option<u64>,
        axis: Axis,
    ) -> Result<Option<f64>> {
        let state = self.read_state(Scroller { backend_id, axis }).await?;
        Ok(state.map(|state| state.position))
    }

    /// The scroller's state now; `last` where it cannot be read (the
    /// container left the page meanwhile).
    async fn state(&self, scroller: Scroller, last: State) -> Result<State> {
        Ok(self.read_state(scroller).await?.unwrap_or(last))
    }

    /// [`STATE_JS`] on the scroller; `None` when it cannot be read.
    async fn read_state(&self, scroller: Scroller) -> Result<Option<State>> {
        let value = self
            .call_value(scroller.backend_id, STATE_JS, &[scroller.across()])
            .await?;
        Ok(value.and_then(|v| serde_json::from_value(v).ok()))
    }
}
