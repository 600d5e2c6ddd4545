//! A browser that died (its process killed, as the OOM killer would) started again in its place, for `record` and the live runner, which then retry the page or episode it died under once.

use pagesnap_browser::{Chromium, StartError};

/// Starts a browser in the place of `browser`, which is gone, the way it was
/// started ([`Chromium::restart`]: launched anew, or attached again to the
/// same endpoint), and closes the dead one, so that its process is reaped and
/// its temp profile removed. On failure `browser` is left as it was.
pub async fn in_place(browser: &mut Chromium) -> Result<(), StartError> {
    let fresh = browser.restart().await?;
    let dead = std::mem::replace(browser, fresh);
    // Closing a dead browser kills nothing that still runs; it can only fail
    // to remove the profile, after retrying for a second (a crash handler
    // still writing there). The work goes on in the new browser either way.
    let _ = dead.close().await;
    Ok(())
}

/// What stands in the way after a browser died and [`in_place`] failed, to
/// follow "the browser died; ": no browser could be launched, or (attached)
/// its endpoint, which pagesnap only reconnects to, never replaces with a
/// browser of its own, could not be reached again.
pub fn lost(browser: &Chromium, err: &StartError) -> String {
    match browser.endpoint() {
        Some(endpoint) => format!("{endpoint} could not be attached to again ({err})"),
        None => format!("no other browser could be launched in its place ({err})"),
    }
}

/// How a browser that died was replaced, to follow "the browser died …; ":
/// started again, or (attached) its endpoint attached to again.
pub fn again(browser: &Chromium) -> &'static str {
    match browser.endpoint() {
        Some(_) => "attached to again",
        None => "started again",
    }
}
