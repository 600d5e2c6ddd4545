//! Readiness after an action, the one mechanism the tool server, the live runner and every agent share: the page counts as settled when it shows it is done — quiet, with nothing the action started still running — not after a fixed window.
//!
//! Before the action a probe is armed in the page: a MutationObserver and
//! a resource-timing observer note when the page last changed, and the work
//! the action itself starts is followed to its end — the timers it sets (up
//! to the budget's length, and the timers those set), the `fetch` and
//! `XMLHttpRequest` calls it makes, the scripts it inserts, the CSS
//! animations and transitions it starts (finite ones), the web fonts it
//! loads and a navigation it begins (`beforeunload`). After the action the
//! probe is polled from here (not by the page's own timers, which a tab in
//! the background runs once a second): the page is settled when none of
//! that is open and nothing changed for the readiness's quiet time — two
//! frames for an action, 300 ms after a load no probe saw from its start
//! (whose own work began before one could see it). When the budget runs out first, the page is
//! taken as it is and the wait says what was still going on: never a hang.
//! A document that replaced the probed one (the action navigated) is
//! waited for until loaded and then given a load's readiness. A navigation
//! the action began that turned into a download (`crate::downloads`) ends
//! there, the page staying; the file is given the rest of the budget to
//! arrive, and one still arriving then does not make the wait incomplete.
//!
//! A load settles on evidence too when the probe was there from the
//! document's first script: while an action (or a navigation asked to)
//! waits, a [`LoadProbe`] arms the probe in each new document of the tab
//! before its own scripts run, following their timers (those of at most
//! [`LOAD_TIMERS`]), requests, inserted scripts, animations and fonts; such
//! a document is settled once loaded, with none of that open and two quiet
//! frames, instead of after the load's 300 ms quiet time. Each probe has its
//! own id, so a document that replaced the probed one is told apart even
//! when it carries a probe of its own.
//!
//! The probe wraps `setTimeout`, `clearTimeout`, `fetch` and
//! `XMLHttpRequest.prototype.send` only while it is armed, puts back
//! whatever it wrapped when the wait ends, and stops itself should no one
//! end it, or when its page is left (one kept in the back-forward cache
//! would come back with a probe of a wait long over).

use std::time::{Duration, Instant};

use serde::Deserialize;

use chromiumoxide::Page as CdpPage;
use chromiumoxide::cdp::browser_protocol::page::{
    AddScriptToEvaluateOnNewDocumentParams, RemoveScriptToEvaluateOnNewDocumentParams,
    ScriptIdentifier,
};

use crate::action::{Outcome, UserAction};
use crate::error::Result;
use crate::failure::Phase;
use crate::tab::{Blank, TabHandle};
use crate::waits;

/// What the page is given time for after an action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Readiness {
    /// How long nothing may happen (no DOM mutation, no request finishing,
    /// none of the followed work ending) before the page counts as settled.
    pub quiet: Duration,
    /// The most the wait takes.
    pub budget: Duration,
    /// Whether the work the action starts is followed to its end (see the
    /// module docs); without it, only quiet counts.
    pub follow: bool,
}

impl Readiness {
    /// Nothing to wait for beyond layout: fonts and two animation frames.
    pub const NONE: Readiness = Readiness {
        quiet: Duration::ZERO,
        budget: Duration::ZERO,
        follow: false,
    };
    /// After a load: the page's own scripts render after it, and what they
    /// started before the probe was armed cannot be followed, so a longer
    /// quiet time stands in for it.
    pub const NAVIGATE: Readiness = Readiness {
        quiet: Duration::from_millis(300),
        budget: Duration::from_millis(3000),
        follow: false,
    };
    /// After a click, a key press, a drag or a dialog's answer: a click
    /// often starts a fetch and re-renders.
    pub const CLICK: Readiness = Readiness {
        quiet: ACTION_QUIET,
        budget: Duration::from_millis(1500),
        follow: true,
    };
    /// After going back in the tab's history: the page returned to may
    /// restore its view by script (a `popstate` handler's request) or load
    /// again, and is then given a load's readiness.
    pub const BACK: Readiness = Readiness {
        quiet: ACTION_QUIET,
        budget: Duration::from_millis(1500),
        follow: true,
    };
    /// After choosing an option, uploading or filling a form.
    pub const SELECT: Readiness = Readiness {
        quiet: ACTION_QUIET,
        budget: Duration::from_millis(1000),
        follow: true,
    };
    /// After a hover (a menu may open, or fade in).
    pub const HOVER: Readiness = Readiness {
        quiet: ACTION_QUIET,
        budget: Duration::from_millis(600),
        follow: true,
    };
    /// After a scroll (lazy content may load).
    pub const SCROLL: Readiness = Readiness {
        quiet: ACTION_QUIET,
        budget: Duration::from_millis(1000),
        follow: true,
    };
    /// After typing, clearing, focusing or selecting text: a search box
    /// may fetch suggestions after a debounce timer.
    pub const TYPE: Readiness = Readiness {
        quiet: ACTION_QUIET,
        budget: Duration::from_millis(1000),
        follow: true,
    };

    /// What `action` waits for.
    pub fn of(action: &UserAction) -> Readiness {
        match action {
            UserAction::Click { .. }
            | UserAction::DoubleClick { .. }
            | UserAction::Press { .. }
            | UserAction::ClickAt { .. }
            | UserAction::Drag { .. }
            | UserAction::Dialog { .. } => Readiness::CLICK,
            UserAction::Select { .. } | UserAction::Upload { .. } | UserAction::Fill { .. } => {
                Readiness::SELECT
            }
            UserAction::Hover { .. } => Readiness::HOVER,
            UserAction::Scroll { .. } => Readiness::SCROLL,
            UserAction::Type { .. }
            | UserAction::Clear { .. }
            | UserAction::Focus { .. }
            | UserAction::SelectText { .. } => Readiness::TYPE,
            // A wait is its own readiness.
            UserAction::Wait(_) => Readiness::NONE,
        }
    }

    /// Whether there is anything to wait for beyond layout.
    fn waits(&self) -> bool {
        !self.budget.is_zero()
    }
}

/// Two frames at 60 Hz: an action's effects that a frame or two later have
/// not gone on are over.
const ACTION_QUIET: Duration = Duration::from_millis(34);

/// The longest timer of a loading page's own scripts a probe armed at the
/// document's start follows: what the load's quiet time covered without one.
pub(crate) const LOAD_TIMERS: Duration = Readiness::NAVIGATE.quiet;

/// How a wait ended.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settled {
    /// How long it took.
    pub waited: Duration,
    /// What was still going on when the budget ran out; `None` when the
    /// page settled.
    pub pending: Option<String>,
    /// Whether a new document replaced the one acted on.
    pub navigated: bool,
}

/// An action's outcome and how the wait after it ended.
#[derive(Clone, Debug, PartialEq)]
pub struct Performed {
    /// What the action did.
    pub outcome: Outcome,
    /// How the page settled after it.
    pub settled: Settled,
}

impl Performed {
    /// An outcome with no wait after it (the action could not run, or the
    /// page waits on a dialog).
    pub(crate) fn unsettled(outcome: Outcome) -> Performed {
        Performed {
            outcome,
            settled: Settled::default(),
        }
    }
}

/// Arms the probe (see the module docs): `(follow, max_delay_ms,
/// lifetime_ms, early)`, `early` when armed at the document's start; returns
/// the probe's id.
const ARM_JS: &str = r#"(follow, maxDelay, lifetime, early) => {
  const key = '__pagesnapSettle';
  if (window[key]) window[key].stop();
  const w = window, now = () => performance.now();
  const origSet = w.setTimeout, origClear = w.clearTimeout;
  const p = { id: Math.random().toString(36).slice(2) + now().toString(36), early, start: now(), last: now(), mutations: 0, requests: 0, open: 0, timers: new Set(), leaving: false, stopped: false };
  const touch = () => { p.last = now(); };
  const undo = [];
  const script = (node) => {
    if (node.nodeName !== 'SCRIPT' || !node.src) return;
    p.open++;
    const end = () => { node.removeEventListener('load', end); node.removeEventListener('error', end); p.open--; touch(); };
    node.addEventListener('load', end); node.addEventListener('error', end);
  };
  const dom = new MutationObserver((list) => {
    p.mutations += list.length; touch();
    if (follow) for (const record of list) for (const node of record.addedNodes) script(node);
  });
  dom.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  undo.push(() => dom.disconnect());
  try {
    const net = new PerformanceObserver((list) => { p.requests += list.getEntries().length; touch(); });
    net.observe({ type: 'resource', buffered: false });
    undo.push(() => net.disconnect());
  } catch (e) {}
  // A page left for the back-forward cache keeps its script state: a probe
  // restored with it would report a wait long over.
  const hide = () => p.stop();
  w.addEventListener('pagehide', hide, true);
  undo.push(() => w.removeEventListener('pagehide', hide, true));
  const before = new WeakSet(document.getAnimations ? document.getAnimations() : []);
  if (follow) {
    let generation = 0;
    const set = function (fn, delay, ...rest) {
      const ms = Number(delay) || 0;
      if (p.stopped || typeof fn !== 'function' || ms > maxDelay || generation > 1) return origSet.apply(w, arguments);
      const mine = generation + 1;
      const id = origSet.call(w, function () {
        p.timers.delete(id); touch();
        const outer = generation; generation = mine;
        try { return fn.apply(this, arguments); } finally { generation = outer; }
      }, ms, ...rest);
      p.timers.add(id);
      return id;
    };
    const clear = function (id) { p.timers.delete(id); return origClear.apply(w, arguments); };
    w.setTimeout = set; w.clearTimeout = clear;
    undo.push(() => { if (w.setTimeout === set) w.setTimeout = origSet; if (w.clearTimeout === clear) w.clearTimeout = origClear; });
    const origFetch = w.fetch;
    if (typeof origFetch === 'function') {
      const fetch = function () {
        const answer = origFetch.apply(w, arguments);
        if (!p.stopped) {
          p.open++; p.requests++; touch();
          const end = () => { p.open--; touch(); };
          Promise.resolve(answer).then(end, end);
        }
        return answer;
      };
      w.fetch = fetch;
      undo.push(() => { if (w.fetch === fetch) w.fetch = origFetch; });
    }
    const proto = w.XMLHttpRequest && w.XMLHttpRequest.prototype, origSend = proto && proto.send;
    if (origSend) {
      const send = function () {
        if (p.stopped) return origSend.apply(this, arguments);
        const xhr = this;
        p.open++; p.requests++; touch();
        let ended = false;
        const end = () => { if (ended) return; ended = true; xhr.removeEventListener('loadend', end); p.open--; touch(); };
        xhr.addEventListener('loadend', end);
        try { return origSend.apply(this, arguments); } catch (e) { end(); throw e; }
      };
      proto.send = send;
      undo.push(() => { if (proto.send === send) proto.send = origSend; });
    }
    const leave = () => { p.leaving = true; touch(); };
    w.addEventListener('beforeunload', leave, true);
    undo.push(() => w.removeEventListener('beforeunload', leave, true));
  }
  p.report = () => {
    let animations = 0;
    if (document.getAnimations) for (const a of document.getAnimations()) {
      if (before.has(a) || a.playState !== 'running') continue;
      const timing = a.effect && a.effect.getComputedTiming ? a.effect.getComputedTiming() : null;
      if (timing && Number.isFinite(timing.endTime)) animations++;
    }
    const t = now();
    return { id: p.id, early: p.early, loaded: document.readyState === 'complete',
      age: t - p.last, waited: t - p.start, mutations: p.mutations, requests: p.requests,
      open: p.open, timers: p.timers.size, animations, leaving: p.leaving,
      fonts: !!(document.fonts && document.fonts.status === 'loading') };
  };
  p.stop = () => {
    if (p.stopped) return;
    p.stopped = true;
    for (const f of undo) { try { f(); } catch (e) {} }
    if (w[key] === p) delete w[key];
  };
  Object.defineProperty(w, key, { value: p, configurable: true, enumerable: false, writable: true });
  origSet.call(w, p.stop, lifetime);
  return p.id;
}"#;

/// The armed probe's report, or `null` when this document has none.
const REPORT_JS: &str =
    "(() => { const p = window.__pagesnapSettle; return p ? p.report() : null; })()";

/// Ends the probe's watch, putting back what it wrapped.
const STOP_JS: &str =
    "(() => { const p = window.__pagesnapSettle; if (p) p.stop(); return true; })()";

/// The probe's report.
#[derive(Debug, Deserialize)]
struct Report {
    /// Which probe answered (each document's is another).
    id: String,
    /// Armed at the document's start (see [`LoadProbe`]).
    early: bool,
    /// The document has loaded.
    loaded: bool,
    /// Milliseconds since the page last changed or followed work ended.
    age: f64,
    mutations: u64,
    requests: u64,
    /// Requests and inserted scripts still loading.
    open: u64,
    /// Followed timers not yet run.
    timers: u64,
    /// Animations and transitions started since arming, still running.
    animations: u64,
    /// A navigation began (`beforeunload`).
    leaving: bool,
    /// Web fonts still loading.
    fonts: bool,
}

impl Report {
    /// The quiet time a document asks of the readiness `quiet`: a probe
    /// that saw the page's own work from its start needs only the frames.
    fn quiet(&self, quiet: Duration) -> Duration {
        if self.early {
            quiet.min(ACTION_QUIET)
        } else {
            quiet
        }
    }

    fn settled(&self, quiet: Duration) -> bool {
        let quiet = self.quiet(quiet);
        (self.loaded || !self.early)
            && self.age >= quiet.as_secs_f64() * 1000.0
            && self.open == 0
            && self.timers == 0
            && self.animations == 0
            && !self.leaving
            && !self.fonts
    }

    /// What kept the page from settling.
    fn pending(&self, quiet: Duration, waited: Duration) -> String {
        let quiet = self.quiet(quiet);
        let mut still = Vec::new();
        if self.early && !self.loaded {
            still.push("the document had not loaded".to_owned());
        }
        if self.leaving {
            still.push("a navigation had begun and not arrived".to_owned());
        }
        if self.open > 0 {
            still.push(format!("{} requests open", self.open));
        }
        if self.timers > 0 {
            still.push(format!("{} timers the action set not yet run", self.timers));
        }
        if self.animations > 0 {
            still.push(format!("{} animations running", self.animations));
        }
        if self.fonts {
            still.push("fonts loading".to_owned());
        }
        if self.age < quiet.as_secs_f64() * 1000.0 {
            still.push(format!(
                "no {} ms quiet window: {} DOM mutations, {} finished requests",
                quiet.as_millis(),
                self.mutations,
                self.requests
            ));
        }
        format!(
            "the page was still changing after {} ms ({})",
            waited.as_millis(),
            still.join("; ")
        )
    }
}

/// How many documents in a row a wait follows (a navigation, then its
/// redirects by script) before it takes the page as it is.
const DOCUMENTS: usize = 3;

/// A wait for readiness on one tab, armed before the action it follows.
pub(crate) struct Settler<'a> {
    tab: &'a TabHandle,
    readiness: Readiness,
    /// The id of the probe this wait follows: one it armed, or the first it
    /// found (another id, or none, then means a new document).
    probe: Option<String>,
    /// Arms the probe in documents the action brings, from their start.
    load: Option<LoadProbe>,
    /// The browser's downloads before the action (see `crate::downloads`).
    downloads: usize,
}

impl<'a> Settler<'a> {
    /// Arms the probe on `tab` for `readiness` before an action, and in any
    /// document the action brings from its start; a readiness that follows
    /// nothing arms nothing here (its quiet window starts after the action).
    pub(crate) async fn arm(tab: &'a TabHandle, readiness: Readiness) -> Result<Settler<'a>> {
        let mut settler = Settler::unarmed(tab, readiness);
        if readiness.follow {
            let (probe, load) = tokio::join!(settler.install(readiness), LoadProbe::register(tab));
            settler.probe = Some(probe?);
            settler.load = Some(load?);
        }
        Ok(settler)
    }

    /// A wait that arms nothing before the action: answering a dialog
    /// (the page's script stands still until then, so nothing can be
    /// evaluated) polls the probe the action that opened it armed, if any;
    /// after a navigation, the probe a [`LoadProbe`] armed.
    pub(crate) fn unarmed(tab: &'a TabHandle, readiness: Readiness) -> Settler<'a> {
        Settler {
            tab,
            readiness,
            probe: None,
            load: None,
            downloads: tab.downloads_mark(),
        }
    }

    /// Arms a probe for `readiness` now; its id.
    async fn install(&self, readiness: Readiness) -> Result<String> {
        let lifetime = readiness.budget + waits::SETTLE_PROBE_SPARE;
        let id = self
            .tab
            .eval(&format!(
                "({ARM_JS})({}, {}, {}, false)",
                readiness.follow,
                readiness.budget.as_millis(),
                lifetime.as_millis()
            ))
            .await?;
        Ok(id.as_str().unwrap_or_default().to_owned())
    }

    /// Waits until the page has settled or the budget ran out.
    pub(crate) async fn settle(mut self) -> Result<Settled> {
        let settled = self.wait().await;
        self.unregister().await;
        settled
    }

    /// Ends the wait without waiting: the action did nothing (going back
    /// with no earlier page), so the probe is stopped and unregistered.
    pub(crate) async fn abandon(mut self) {
        self.stop().await;
        self.unregister().await;
    }

    /// No longer arms the probe in new documents (see [`LoadProbe`]).
    async fn unregister(&mut self) {
        if let Some(load) = self.load.take() {
            load.remove(self.tab).await;
        }
    }

    async fn wait(&mut self) -> Result<Settled> {
        let started = Instant::now();
        if !self.readiness.waits() {
            self.tab
                .wait_loaded(self.tab.limit(), Blank::Loaded)
                .await?;
            self.tab.settle().await?;
            return Ok(Settled {
                waited: started.elapsed(),
                ..Settled::default()
            });
        }
        self.tab.enter(Phase::Settle);
        let mut navigated = false;
        for _ in 0..DOCUMENTS {
            match self.poll().await? {
                Poll::Settled => {
                    return Ok(Settled {
                        waited: started.elapsed(),
                        pending: None,
                        navigated,
                    });
                }
                Poll::Pending(pending) => {
                    return Ok(Settled {
                        waited: started.elapsed(),
                        pending: Some(pending),
                        navigated,
                    });
                }
                Poll::NewDocument => {
                    navigated = true;
                    self.tab
                        .wait_loaded(self.tab.limit(), Blank::Loaded)
                        .await?;
                    self.tab.enter(Phase::Settle);
                    // The new document's own probe, armed at its start, is
                    // taken up by the next poll; without one, a load's quiet
                    // time is armed there. A document replaced again
                    // meanwhile is found by the poll after.
                    self.readiness = Readiness::NAVIGATE;
                    self.probe = None;
                }
            }
        }
        Ok(Settled {
            waited: started.elapsed(),
            pending: Some(format!(
                "the page went on replacing its document ({DOCUMENTS} in a row)"
            )),
            navigated,
        })
    }

    /// Polls the probe until this document settles, its budget runs out or
    /// another document replaces it.
    async fn poll(&mut self) -> Result<Poll> {
        let started = Instant::now();
        loop {
            let report = match self.tab.eval(REPORT_JS).await {
                Ok(serde_json::Value::Null) if self.probe.is_some() => {
                    return Ok(Poll::NewDocument);
                }
                // Nothing armed (a dialog's answer, an unarmed quiet window,
                // a new document without a probe of its own): arm now and
                // count quiet from here.
                Ok(serde_json::Value::Null) => {
                    let id = self
                        .install(Readiness {
                            follow: false,
                            ..self.readiness
                        })
                        .await?;
                    self.probe = Some(id);
                    continue;
                }
                Ok(value) => serde_json::from_value::<Report>(value).ok(),
                Err(err) if err.is_gone() || err.is_dialog_open() => return Err(err),
                // The probed document went away mid-call.
                Err(_) => return Ok(Poll::NewDocument),
            };
            if let Some(report) = &report {
                match &self.probe {
                    Some(id) if *id != report.id => return Ok(Poll::NewDocument),
                    Some(_) => {}
                    None => self.probe = Some(report.id.clone()),
                }
            }
            // A navigation the action began that became a download ends
            // there: the page stays. The file is given the budget to arrive
            // (told as still arriving after it, not as a page unsettled).
            let downloads = self.tab.downloads_since(self.downloads).await;
            let arriving = downloads.iter().any(|d| d.state.arriving());
            let report = report.map(|report| Report {
                leaving: report.leaving && downloads.is_empty(),
                ..report
            });
            let waited = started.elapsed();
            match report {
                Some(report) if report.settled(self.readiness.quiet) && !arriving => {
                    self.stop().await;
                    return Ok(Poll::Settled);
                }
                Some(report) if waited >= self.readiness.budget => {
                    self.stop().await;
                    if report.settled(self.readiness.quiet) {
                        return Ok(Poll::Settled);
                    }
                    return Ok(Poll::Pending(report.pending(self.readiness.quiet, waited)));
                }
                // An answer that is no report: a page that replaced the
                // probe's name; it is taken as it is.
                None => return Ok(Poll::Settled),
                Some(_) => tokio::time::sleep(waits::SETTLE_POLL).await,
            }
        }
    }

    async fn stop(&self) {
        let _ = self.tab.eval(STOP_JS).await;
    }
}

/// Arms the readiness probe in every new document of a tab from its first
/// script (`Page.addScriptToEvaluateOnNewDocument`, the top frame only)
/// while it is registered: a load that follows an action or a navigation
/// then settles on evidence (see the module docs). Removed when the wait
/// ends, or, should it be dropped on an error, soon after.
pub(crate) struct LoadProbe {
    page: CdpPage,
    identifier: Option<ScriptIdentifier>,
}

impl LoadProbe {
    /// Registers the probe on `tab`, for documents loading within its limit.
    pub(crate) async fn register(tab: &TabHandle) -> Result<LoadProbe> {
        let lifetime = tab.limit() + Readiness::NAVIGATE.budget + waits::SETTLE_PROBE_SPARE;
        let source = format!(
            "(() => {{ try {{ if (window !== window.top) return; }} catch (e) {{ return; }} \
             ({ARM_JS})(true, {}, {}, true); }})()",
            LOAD_TIMERS.as_millis(),
            lifetime.as_millis()
        );
        let identifier = tab
            .call(
                "Page.addScriptToEvaluateOnNewDocument",
                tab.page()
                    .execute(AddScriptToEvaluateOnNewDocumentParams::new(source)),
            )
            .await?
            .result
            .identifier;
        Ok(LoadProbe {
            page: tab.page().clone(),
            identifier: Some(identifier),
        })
    }

    /// No longer armed in new documents of `tab` (a probe armed stays until
    /// stopped or its lifetime ends).
    pub(crate) async fn remove(mut self, tab: &TabHandle) {
        if let Some(identifier) = self.identifier.take() {
            let _ = tab
                .call(
                    "Page.removeScriptToEvaluateOnNewDocument",
                    tab.page()
                        .execute(RemoveScriptToEvaluateOnNewDocumentParams::new(identifier)),
                )
                .await;
        }
    }
}

impl Drop for LoadProbe {
    fn drop(&mut self) {
        let Some(identifier) = self.identifier.take() else {
            return;
        };
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let page = self.page.clone();
            runtime.spawn(async move {
                let _ = page
                    .execute(RemoveScriptToEvaluateOnNewDocumentParams::new(identifier))
                    .await;
            });
        }
    }
}

/// How one document's wait ended.
enum Poll {
    Settled,
    Pending(String),
    NewDocument,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(age: f64) -> Report {
        Report {
            id: "p".to_owned(),
            early: false,
            loaded: true,
            age,
            mutations: 3,
            requests: 1,
            open: 0,
            timers: 0,
            animations: 0,
            leaving: false,
            fonts: false,
        }
    }

    #[test]
    fn settled_needs_quiet_and_nothing_open() {
        let quiet = Duration::from_millis(34);
        assert!(report(34.0).settled(quiet));
        assert!(!report(20.0).settled(quiet));
        for open in [
            Report {
                open: 1,
                ..report(100.0)
            },
            Report {
                timers: 1,
                ..report(100.0)
            },
            Report {
                animations: 1,
                ..report(100.0)
            },
            Report {
                leaving: true,
                ..report(100.0)
            },
            Report {
                fonts: true,
                ..report(100.0)
            },
        ] {
            assert!(!open.settled(quiet), "{open:?}");
        }
    }

    /// A probe armed at the document's start saw the page's own work: its
    /// load needs two quiet frames, not the load's quiet time, but the load.
    #[test]
    fn an_early_probe_settles_a_load_on_evidence() {
        let quiet = Readiness::NAVIGATE.quiet;
        assert!(!report(100.0).settled(quiet));
        let early = Report {
            early: true,
            ..report(40.0)
        };
        assert!(early.settled(quiet));
        assert!(!Report { age: 20.0, ..early }.settled(quiet));
        let loading = Report {
            loaded: false,
            ..report(400.0)
        };
        assert!(loading.settled(quiet), "a late probe does not ask for load");
        let loading = Report {
            early: true,
            ..loading
        };
        assert!(!loading.settled(quiet));
        assert!(
            loading
                .pending(quiet, Duration::from_millis(3000))
                .contains("the document had not loaded")
        );
    }

    #[test]
    fn pending_names_what_was_open() {
        let quiet = Duration::from_millis(34);
        let still = Report {
            open: 2,
            timers: 1,
            ..report(5.0)
        };
        assert_eq!(
            still.pending(quiet, Duration::from_millis(1500)),
            "the page was still changing after 1500 ms (2 requests open; 1 timers the action set \
             not yet run; no 34 ms quiet window: 3 DOM mutations, 1 finished requests)"
        );
    }

    #[test]
    fn each_action_has_its_readiness() {
        assert_eq!(Readiness::of(&UserAction::click(7)), Readiness::CLICK);
        assert_eq!(
            Readiness::of(&UserAction::Wait(crate::action::Wait::Delay(
                Duration::from_millis(10)
            ))),
            Readiness::NONE
        );
        assert_eq!(
            Readiness::of(&UserAction::Type {
                backend_id: None,
                text: "a".into()
            }),
            Readiness::TYPE
        );
        assert_eq!(
            Readiness::of(&UserAction::Dialog {
                accept: true,
                text: None
            }),
            Readiness::CLICK
        );
    }
}
