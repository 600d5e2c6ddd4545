//! Every poll interval and fixed time limit of the browser crate, named once (the page's own limit is the caller's `OpenOptions::timeout`).

use std::time::Duration;

/// How long Chromium may take to start and open its DevTools socket.
pub(crate) const LAUNCH: Duration = Duration::from_secs(30);

/// The CDP client's own cap on one request: a backstop only. Every call
/// pagesnap makes has a limit of its own (the page's, `--timeout`, or a
/// fixed one here), and a cap below it would cut short a call its caller
/// allows longer (a 30,000-element page's `DOMSnapshot` in the debug build
/// on a loaded machine failed with the client's "Request timed out." inside
/// a limit of 120 s: the client's fixed 30 s per command, patched to follow
/// this setting, vendor/chromiumoxide/PAGESNAP.md).
pub(crate) const REQUEST: Duration = Duration::from_secs(600);

/// How long a browser given by endpoint may take to answer `/json/version`
/// and to accept the websocket.
pub(crate) const ATTACH: Duration = Duration::from_secs(10);

/// How often, and how many times, a tab just listed is asked for until
/// the CDP client hands it out (2 s in all).
pub(crate) const ADOPT_POLL: Duration = Duration::from_millis(50);
/// See [`ADOPT_POLL`].
pub(crate) const ADOPT_TRIES: usize = 40;

/// How long, and how often, the tab list waits for a tab another opened
/// to name its URL: Chromium lists a tab whose first document has not
/// committed yet with none (a `target=_blank` link's tab just after the
/// click). A tab `window.open()` opened on no URL keeps none: the list
/// then answers after this long.
pub(crate) const OPENED_URL: Duration = Duration::from_secs(2);
/// See [`OPENED_URL`].
pub(crate) const OPENED_URL_POLL: Duration = Duration::from_millis(25);

/// How long closing a tab that failed to open may take.
pub(crate) const TAB_CLOSE: Duration = Duration::from_secs(2);

/// How long the browser may take to acknowledge `Browser.close`.
pub(crate) const BROWSER_CLOSE: Duration = Duration::from_secs(1);

/// How long the browser process may take to exit once closed or killed.
pub(crate) const BROWSER_EXIT: Duration = Duration::from_secs(5);

/// How often, and how many times, a profile folder the browser's helpers
/// are still writing into is removed again (1 s in all).
pub(crate) const PROFILE_REMOVE_POLL: Duration = Duration::from_millis(50);
/// See [`PROFILE_REMOVE_POLL`].
pub(crate) const PROFILE_REMOVE_TRIES: usize = 20;

/// How often `readyState` (and the commit of a navigation) is polled.
pub(crate) const LOAD_POLL: Duration = Duration::from_millis(25);

/// How often a `--wait-for` selector, and the URL after `history.back()`, are polled.
pub(crate) const WAIT_POLL: Duration = Duration::from_millis(50);

/// How long a navigation that became a download waits for the file to
/// arrive before it is answered (as a click's readiness budget).
pub(crate) const DOWNLOAD_ARRIVAL: Duration = Duration::from_millis(1500);

/// How long `history.back()` is given to change the URL before the tab is
/// taken to have had no earlier entry (at most the call's limit).
pub(crate) const BACK_GRACE: Duration = Duration::from_millis(1500);

/// The pause before a capture is tried again after the page navigated.
pub(crate) const AFTER_NAVIGATION: Duration = Duration::from_millis(50);

/// How long a failed call waits for the browser's report that the tab
/// crashed or closed, which follows the error within moments.
pub(crate) const GONE_REPORT: Duration = Duration::from_millis(250);

/// The pause between snapshot attempts of a page whose DOM changed during one.
pub(crate) const RESNAPSHOT: Duration = Duration::from_millis(100);

/// How often a browser is asked whether it still answers (`crate::pulse`).
pub(crate) const PULSE: Duration = Duration::from_secs(1);

/// How long it may take to answer.
pub(crate) const PULSE_ANSWER: Duration = Duration::from_secs(2);

/// How many answers in a row it may miss before it is taken for dead
/// (stopped or hung): about 9 s from its last answer at most.
pub(crate) const PULSE_MISSES: u32 = 3;

/// How often a readiness probe is asked whether the page has settled
/// (`crate::readiness`).
pub(crate) const SETTLE_POLL: Duration = Duration::from_millis(8);

/// How long past its budget an armed readiness probe lives should no wait
/// end it (its wrappers then put themselves back).
pub(crate) const SETTLE_PROBE_SPARE: Duration = Duration::from_secs(5);
