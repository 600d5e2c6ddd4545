//! Opening pages: what a target names (a URL, or a local file stored by its relative path), how a tab that loads it becomes ready (load, `--wait-for`, scroll, settling), and a session's navigation (navigate, back, the URL it shows).

use std::time::{Duration, Instant};

use chromiumoxide::cdp::browser_protocol::page::GetNavigationHistoryParams;

use crate::error::{Error, Result};

use crate::documents::is_error_page;
use crate::failure::{Phase, TabError};
use crate::readiness::{LoadProbe, Readiness, Settled, Settler};
use crate::tab::{Blank, TabHandle};
use crate::target::{BLANK, display_url, resolve_target};
use crate::waits;

/// How long a navigation's answer is awaited once the page has loaded (or
/// failed to): it names the network error behind Chromium's error page.
const NAVIGATION_GRACE: Duration = Duration::from_secs(2);

/// Navigation in one tab: it changes the URL the tab's handle names and the
/// limit its calls are held to, so it borrows the handle mutably.
pub(crate) struct Navigation<'a> {
    tab: &'a mut TabHandle,
}

impl<'a> Navigation<'a> {
    /// Navigation in `tab`.
    pub(crate) fn new(tab: &'a mut TabHandle) -> Navigation<'a> {
        Navigation { tab }
    }
}

/// Waits for load, `wait_for`, the scroll and settling, starting over after
/// the load when the page navigates again meanwhile (until the budget runs out).
pub(crate) async fn prepare(
    tab: &TabHandle,
    options: &OpenOptions,
    deadline: Instant,
    mut navigation: tokio::task::JoinHandle<Option<String>>,
    network: bool,
) -> Result<()> {
    let loaded = tab
        .wait_loaded(
            deadline.saturating_duration_since(Instant::now()),
            Blank::BeforeCommit,
        )
        .await;
    // The navigation's answer names why a page failed (ERR_NAME_NOT_RESOLVED,
    // …); on a busy machine it can arrive a moment after Chromium's error
    // page has loaded, so there it gets a short grace. (Elsewhere it is not
    // awaited: for some pages it never comes.)
    let grace = if navigation.is_finished() {
        Some(Duration::ZERO)
    } else if on_error_page(tab).await {
        Some(NAVIGATION_GRACE.min(deadline.saturating_duration_since(Instant::now())))
    } else {
        None
    };
    // (A timeout polls its future first: a finished navigation answers at once.)
    let answer = match grace {
        Some(grace) => tokio::time::timeout(grace, &mut navigation).await,
        None => Ok(Ok(None)),
    };
    if let Ok(Ok(Some(error))) = answer {
        let offline = !network && error.contains("ERR_NAME_NOT_RESOLVED");
        return Err(TabError::LoadFailed {
            url: tab.url().to_owned(),
            error,
            offline,
        }
        .into());
    }
    if !navigation.is_finished() {
        navigation.abort();
    }
    loaded?;
    loop {
        let ready = async {
            check_loaded(tab).await?;
            if let Some(wait) = &options.wait_for {
                let remaining = deadline.saturating_duration_since(Instant::now());
                wait_for(tab, wait, remaining, options.timeout).await?;
            }
            if let Some(y) = options.scroll_y {
                tab.eval(&format!("window.scrollTo(0, {y})")).await?;
            }
            tab.settle().await
        };
        match ready.await {
            Err(err) if err.is_navigated() => tab.after_navigation().await?,
            other => return other,
        }
    }
}

/// Whether the tab shows Chromium's own error page, which it loads for
/// unreachable URLs and missing files instead of failing navigation.
async fn on_error_page(tab: &TabHandle) -> bool {
    tab.eval("location.href")
        .await
        .is_ok_and(|href| href.as_str().is_some_and(is_error_page))
}

/// Refuses Chromium's error page as a failed load.
async fn check_loaded(tab: &TabHandle) -> Result<()> {
    let href = tab.eval("location.href").await?;
    if href.as_str().is_some_and(is_error_page) {
        return Err(TabError::LoadFailed {
            url: tab.url().to_owned(),
            error:
                "the browser showed its error page (the page or a redirect it made could not load)"
                    .to_owned(),
            offline: false,
        }
        .into());
    }
    Ok(())
}

/// Waits for `wait` within `limit` (what is left of the budget `configured`).
async fn wait_for(
    tab: &TabHandle,
    wait: &WaitFor,
    limit: Duration,
    configured: Duration,
) -> Result<()> {
    tab.enter(Phase::Wait);
    match wait {
        WaitFor::Delay(delay) => {
            // A delay longer than what is left of the budget cannot end
            // within it: refuse at once rather than sleep into the limit.
            if *delay > limit {
                return Err(TabError::WaitTooLong {
                    url: tab.url().to_owned(),
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
                let matched = match tab.eval(&probe).await {
                    Ok(value) => value.as_bool() == Some(true),
                    // The budget ran out during a probe: the same
                    // outcome as running out between probes.
                    Err(err) if matches!(err.tab(), Some(TabError::OverLimit { .. })) => false,
                    Err(err) => return Err(err),
                };
                if matched {
                    break;
                }
                if started.elapsed() >= limit || tab.deadline().is_some_and(|d| Instant::now() >= d)
                {
                    return Err(Error::NeverMatched {
                        url: tab.url().to_owned(),
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

/// What to wait for after load, before the first capture.
#[derive(Clone, Debug, PartialEq)]
pub enum WaitFor {
    /// Until an element matches the CSS selector.
    Selector(String),
    /// A fixed delay.
    Delay(Duration),
}

impl WaitFor {
    /// Parses `200ms`, `200` (milliseconds) or a CSS selector.
    pub fn parse(text: &str) -> WaitFor {
        let trimmed = text.trim();
        let digits = trimmed.strip_suffix("ms").unwrap_or(trimmed);
        match digits.parse::<u64>() {
            Ok(ms) => WaitFor::Delay(Duration::from_millis(ms)),
            Err(_) => WaitFor::Selector(trimmed.to_owned()),
        }
    }
}

/// The viewport every page opens in unless asked otherwise, CSS pixels (width, height).
pub const DEFAULT_VIEWPORT: (u32, u32) = (1280, 720);

/// How long loading a page (with its wait) and each browser call may take
/// unless asked otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// How to open a page.
#[derive(Clone, Debug)]
pub struct OpenOptions {
    /// Viewport width in CSS pixels.
    pub width: u32,
    /// Viewport height in CSS pixels.
    pub height: u32,
    /// Scroll the window to this y before capture.
    pub scroll_y: Option<f64>,
    /// What to wait for after load.
    pub wait_for: Option<WaitFor>,
    /// Load (and wait-for) limit.
    pub timeout: Duration,
    /// Whether a navigation ([`crate::ChromiumSession::navigate`],
    /// [`crate::Chromium::open_in`]) arms the readiness probe in the new
    /// document from its first script, so that the
    /// [`crate::ChromiumSession::settle_to`] after it ends on evidence
    /// rather than after the load's quiet time (`crate::readiness`); the
    /// probe stays armed until that wait, or for the limit plus the load's
    /// readiness budget and a spare.
    pub follow_load: bool,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            width: DEFAULT_VIEWPORT.0,
            height: DEFAULT_VIEWPORT.1,
            scroll_y: None,
            wait_for: None,
            timeout: DEFAULT_TIMEOUT,
            follow_load: false,
        }
    }
}

/// What a navigation brought to the tab.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// Another document, loaded.
    Document,
    /// The same document at another fragment.
    SameDocument,
    /// No document: the URL answered with a file, downloaded (or refused)
    /// as the tab's downloads tell ([`crate::ChromiumSession::downloads`]);
    /// the page before stays.
    Download,
}

impl Navigation<'_> {
    /// [`crate::ChromiumSession::navigate`]'s work.
    pub(crate) async fn navigate(
        &mut self,
        target: &str,
        options: &OpenOptions,
        network: bool,
    ) -> Result<Arrival> {
        let (url, display_url) = resolve_target(target)?;
        // A page still loading (a request that never ends) is stopped first:
        // the CDP client runs one navigation at a time per tab, and the old
        // one would hold the new one back until its load.
        // The old document is marked, so that its `complete` is not taken
        // for the new one's (a change of the fragment alone keeps the document).
        let old = self
            .tab
            .eval(
                "(document.readyState === 'complete' || window.stop(), \
                 window.__pagesnapOld = true, location.href.split('#')[0])",
            )
            .await
            .ok();
        let same_document = old
            .as_ref()
            .and_then(serde_json::Value::as_str)
            .is_some_and(|href| url.split('#').next() == Some(href) && url.contains('#'));
        self.tab.set_location(url.clone(), display_url);
        self.tab.set_limit(options.timeout);
        let load = match options.follow_load && !same_document {
            true => Some(LoadProbe::register(self.tab).await?),
            false => None,
        };
        let deadline = Instant::now() + options.timeout;
        self.tab.set_deadline(Some(deadline));
        self.tab.enter(Phase::Load);
        // The navigation is the page's own (`location.assign`), not
        // `Page.navigate`: the CDP client tracks one `Page.navigate` per tab
        // and drops the next one while an earlier never finished loading. A
        // failed load still shows as Chromium's error page, which `prepare`
        // names.
        let downloads = self.tab.downloads_mark();
        let assign = format!(
            "location.assign({}); true",
            serde_json::Value::String(url.clone())
        );
        if let Err(err) = self.tab.eval(&assign).await {
            self.tab.set_deadline(None);
            return Err(err);
        }
        let navigation = tokio::spawn(async { None });
        let committed = if same_document {
            Ok(Arrival::SameDocument)
        } else {
            self.wait_committed(deadline, downloads).await
        };
        let result = match committed {
            Ok(Arrival::Download) => Ok(Arrival::Download),
            Ok(arrival) => prepare(self.tab, options, deadline, navigation, network)
                .await
                .map(|()| arrival),
            Err(err) => Err(err),
        };
        // The new document, and any it was replaced by while loading, has its probe.
        if let Some(load) = load {
            load.remove(self.tab).await;
        }
        self.tab.set_deadline(None);
        result
    }

    /// Waits until the tab shows a document other than the one marked
    /// before a navigation, or the navigation became a download (one of
    /// this tab's reported after `downloads`), which is then given a
    /// moment to arrive and the old document stays.
    async fn wait_committed(&self, deadline: Instant, downloads: usize) -> Result<Arrival> {
        loop {
            match self.tab.eval("window.__pagesnapOld === true").await {
                Ok(serde_json::Value::Bool(false)) => return Ok(Arrival::Document),
                Err(err) if err.is_gone() => return Err(err),
                _ => {}
            }
            if self.tab.downloaded_since(downloads).await {
                let _ = self.tab.eval("delete window.__pagesnapOld").await;
                return Ok(Arrival::Download);
            }
            if Instant::now() >= deadline {
                return Err(TabError::NeverLoaded {
                    url: self.tab.url().to_owned(),
                    limit: self.tab.limit(),
                }
                .into());
            }
            tokio::time::sleep(waits::LOAD_POLL).await;
        }
    }

    /// [`crate::ChromiumSession::back`]'s work: the readiness probe is armed
    /// before `history.back()`, as before an action, so that what going back
    /// starts (a `popstate` handler's work, a document loading again) is
    /// followed to its end.
    pub(crate) async fn back(&mut self, limit: Duration) -> Result<Option<Settled>> {
        let history = self
            .tab
            .call(
                "Page.getNavigationHistory",
                self.tab
                    .page()
                    .execute(GetNavigationHistoryParams::default()),
            )
            .await?
            .result;
        // The tab starts on `about:blank`, the entry before its first page:
        // no page a person went back to.
        let earlier = usize::try_from(history.current_index)
            .ok()
            .and_then(|current| current.checked_sub(1))
            .and_then(|earlier| history.entries.get(earlier).map(|entry| (earlier, entry)));
        if !earlier.is_some_and(|(at, entry)| at > 0 || entry.url != BLANK) {
            return Ok(None);
        }
        let href = self.tab.eval("location.href").await?;
        let href = href.as_str().unwrap_or_default().to_owned();
        let settler = Settler::arm(self.tab, Readiness::BACK).await?;
        self.tab.eval("history.back(); true").await?;
        let started = Instant::now();
        // history.back() is asynchronous; the URL may also stay (a frame's
        // own earlier entry, or one of the same URL): taken as no move.
        let moved = loop {
            tokio::time::sleep(waits::WAIT_POLL).await;
            match self.tab.eval("location.href").await {
                Ok(now) if now.as_str() != Some(href.as_str()) => break true,
                Err(err) if err.is_dialog_open() => return Err(err),
                Ok(_) | Err(_) if started.elapsed() < waits::BACK_GRACE.min(limit) => {}
                Ok(_) => break false,
                Err(err) if err.is_navigated() => {}
                Err(err) => return Err(err),
            }
        };
        if !moved {
            settler.abandon().await;
            self.refresh_url().await;
            return Ok(None);
        }
        let settled = settler.settle().await?;
        self.refresh_url().await;
        Ok(Some(settled))
    }

    /// [`crate::ChromiumSession::refresh_url`]'s work.
    pub(crate) async fn refresh_url(&mut self) {
        if let Ok(href) = self.tab.eval("location.href").await
            && let Some(href) = href.as_str()
            && href != self.tab.url()
        {
            let shown = display_url(href);
            self.tab.set_location(href.to_owned(), shown);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wait_for_parses_delays_and_selectors() {
        assert_eq!(
            WaitFor::parse("250ms"),
            WaitFor::Delay(Duration::from_millis(250))
        );
        assert_eq!(
            WaitFor::parse("#app.ready"),
            WaitFor::Selector("#app.ready".into())
        );
    }
}
