//! Whether a tab is still in the state of an earlier capture: an in-page change counter and a mark taken before each capture, so an unchanged page is rendered again from that capture instead of captured anew, and a page that only scrolled is moved there from it.
//!
//! The first [`crate::ChromiumSession::mark`] installs a tracker in the page (a
//! `MutationObserver` on the whole document, and capturing listeners for
//! the events that change what a capture sees without a DOM mutation:
//! input, change, the scroll of any box but the document, resize, resource
//! loads and errors, focus, transitions and animations, toggles, history),
//! and a `PerformanceObserver` of finished resources (an image loaded as a
//! scroll neared it changes the layout without a mutation, and its load
//! event never reaches the window). Each of them bumps a counter. A mark is
//! the tracker's random id (a new document has a new one), the counter, a
//! hash of every form control's value, the viewport size, the document's
//! scroll size and the focused element — its state — and apart
//! from them the document's scroll position and the elements under the
//! mouse. It is taken *before* a capture, so anything that happens during
//! the capture changes the next mark. A page still loading, or with a
//! running animation or transition, has no mark (never reused). What the
//! tracker cannot see — changes inside shadow roots and frames, CSSOM edits
//! — is why a capture of a page with shadow roots or frames is never reused
//! ([`reusable`]).
//!
//! A page whose state is unchanged but whose document scrolled is shown by
//! moving the kept capture ([`super::rescroll`]), unless the scroll may have
//! changed what `:hover` shows: the capture holds a hover target and the
//! elements under the mouse are not the same.

use std::time::{Duration, Instant};

use pagesnap_engine::analyze::Analyzed;
use pagesnap_engine::recording::{NodeKind, Point, Recording};

use super::Capture;
use super::state::Captured;
use super::state::Needs;

/// The page's state as the tracker sees it; equal marks, unchanged page.
#[derive(Clone, Debug, PartialEq)]
pub struct Mark {
    /// Everything but the scroll and the mouse: the tracker's id and count,
    /// the form values, the viewport size, the focus.
    state: String,
    /// The document's scroll position (CSS pixels).
    scroll: Point,
    /// The elements under the mouse (`:hover`), by index among the
    /// document's elements.
    hovered: Vec<u32>,
}

/// What a kept capture is to a page's mark now.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shows {
    /// The page as it is.
    Same,
    /// The page as it is but for the document's scroll, now at `to`.
    Scrolled {
        /// Where the document now stands.
        to: Point,
    },
    /// Not the page as it is, or not what the observation needs.
    Not,
}

/// Installs the tracker once per document and returns the mark, or `null`
/// when the page is loading or animating.
const MARK_JS: &str = r#"(() => {
  const key = Symbol.for('pagesnap.watch');
  let t = window[key];
  if (!t) {
    t = { id: Math.random().toString(36).slice(2) + Date.now().toString(36), epoch: 0 };
    // The document's own scroll is the mark's position, not a change.
    const bump = (e) => { if (!(e && e.type === 'scroll' && e.target === document)) t.epoch++; };
    new MutationObserver(bump).observe(document, {
      subtree: true, childList: true, attributes: true, characterData: true,
    });
    for (const type of ['input', 'change', 'scroll', 'resize', 'load', 'error', 'focusin',
      'focusout', 'transitionrun', 'transitionstart', 'transitionend', 'transitioncancel',
      'animationstart', 'animationend', 'animationiteration', 'animationcancel', 'toggle',
      'pageshow', 'popstate', 'hashchange', 'fullscreenchange']) {
      window.addEventListener(type, bump, true);
    }
    // A resource that finished (an image a scroll brought near, a font, a
    // request) can change the layout without a mutation, and an element's
    // load event never reaches the window.
    if (window.PerformanceObserver) {
      try { new PerformanceObserver(() => { t.epoch++; }).observe({ type: 'resource' }); } catch (_) {}
    }
    if (document.fonts && document.fonts.addEventListener) {
      document.fonts.addEventListener('loadingdone', bump);
    }
    Object.defineProperty(window, key, { value: t });
  }
  if (document.readyState !== 'complete') return null;
  if (document.getAnimations().some((a) => a.playState === 'running')) return null;
  let form = 0;
  for (const e of document.querySelectorAll('input, textarea, select')) {
    const v = e.tagName === 'SELECT' ? String(e.selectedIndex)
      : (e.type === 'checkbox' || e.type === 'radio') ? (e.checked ? '1' : '0') : String(e.value);
    for (let i = 0; i < v.length; i++) form = (Math.imul(form, 31) + v.charCodeAt(i)) | 0;
    form = (Math.imul(form, 31) + 7) | 0;
  }
  const all = document.getElementsByTagName('*');
  const active = document.activeElement;
  let focus = -1;
  if (active && active !== document.body) {
    focus = Array.prototype.indexOf.call(all, active);
  }
  const hovered = Array.from(document.querySelectorAll(':hover'), (e) => Array.prototype.indexOf.call(all, e));
  const root = document.documentElement;
  const size = root ? [root.scrollWidth, root.scrollHeight].join('x') : '';
  return [[t.id, t.epoch, form, innerWidth, innerHeight, size, focus].join(':'), scrollX, scrollY, hovered];
})()"#;

/// A capture kept for reuse, with the page built from it.
pub struct Kept {
    /// What was captured.
    pub captured: Captured,
    /// Its analysed page.
    pub page: Analyzed,
    /// What it captured beyond the DOM.
    pub needs: Needs,
    /// The page's mark just before the capture (`None`: not reusable).
    pub mark: Option<Mark>,
    /// When it was captured.
    pub at: Instant,
    /// Where the capture's time, and the first render's, went.
    pub timings: super::Timings,
}

impl Kept {
    /// What this capture is to the page marked `now`, for an observation
    /// that `needs` this: the page as it is, the page but for the
    /// document's scroll (never for a screenshot, which shows the pixels of
    /// its moment), or not.
    pub fn shows(&self, now: Option<&Mark>, needs: Needs) -> Shows {
        let covers = needs.screenshot.is_none() || self.needs.screenshot.is_some();
        let (Some(now), Some(then)) = (now, self.mark.as_ref()) else {
            return Shows::Not;
        };
        if !covers || needs.oracle || needs.stable_counts || now.state != then.state {
            return Shows::Not;
        }
        if now.scroll == then.scroll {
            return Shows::Same;
        }
        // The scroll moved the page under the mouse: what `:hover` shows
        // may have changed without a mutation.
        let hover_unchanged =
            now.hovered == then.hovered || !self.captured.recording.nodes.iter().any(|n| n.hover);
        if needs.screenshot.is_none() && hover_unchanged {
            Shows::Scrolled { to: now.scroll }
        } else {
            Shows::Not
        }
    }

    /// How old the capture is.
    pub fn age(&self) -> Duration {
        self.at.elapsed()
    }
}

/// Whether a capture of this recording may be reused while its page's mark
/// is unchanged: not when the page has shadow roots or frames, whose
/// changes the tracker does not see.
pub fn reusable(recording: &Recording) -> bool {
    !recording.nodes.iter().any(|node| {
        matches!(
            node.kind,
            NodeKind::IframeDocument | NodeKind::ShadowRootOpen | NodeKind::ShadowRootClosed
        )
    })
}

impl Capture<'_> {
    /// [`crate::ChromiumSession::mark`]'s work.
    pub(crate) async fn mark(&self) -> Option<Mark> {
        self.mark_unless_unanswered().await.ok().flatten()
    }

    /// The page's mark, or the failure after which no capture can follow:
    /// the page left the call unanswered within its limit (a script that
    /// never yields holds the renderer) or its tab went. Any other failure
    /// is no mark.
    pub(crate) async fn mark_unless_unanswered(&self) -> crate::Result<Option<Mark>> {
        match self.tab.eval(MARK_JS).await {
            Ok(value) if !value.is_null() => Ok(Mark::read(&value)),
            Err(err)
                if err.is_gone() || matches!(err.tab(), Some(crate::TabError::NoAnswer { .. })) =>
            {
                Err(err)
            }
            _ => Ok(None),
        }
    }
}

impl Mark {
    /// The mark [`MARK_JS`] answered: `[state, scrollX, scrollY, hovered]`.
    fn read(value: &serde_json::Value) -> Option<Mark> {
        let [state, x, y, hovered] = value.as_array()?.as_slice() else {
            return None;
        };
        Some(Mark {
            state: state.as_str()?.to_owned(),
            scroll: Point {
                x: x.as_f64()?,
                y: y.as_f64()?,
            },
            hovered: hovered
                .as_array()?
                .iter()
                .map(|i| i.as_u64().and_then(|i| u32::try_from(i).ok()))
                .collect::<Option<_>>()?,
        })
    }
}
