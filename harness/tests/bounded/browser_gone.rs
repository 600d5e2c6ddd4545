//! A browser that dies is noticed at once (issue 58 item 1): killed for real (SIGKILL of the browser process pagesnap launched, as the OOM killer would), the call waiting on it ends with `TabError::BrowserGone` within a second, and every later call — on its tab or opening a new one — fails at once, naming the browser. Before, the waiting call and every later one waited out the CDP request timeout (60 s) and said `Request timed out`.

use std::time::{Duration, Instant};

use pagesnap_browser::{Chromium, OpenOptions};

use crate::support::root;
use crate::{alone, within};

/// Measured 0.03 s from the kill to the waiting call's error, of its 1 s
/// bound, and 0.00 s for the later calls, of theirs (release build, alone).
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a wall-clock bound: scripts/test-bounded runs it alone against the release build"
)]
fn a_killed_browser_ends_every_call_at_once_as_browser_gone() {
    let _alone = alone();
    let page = root().join("fixtures/sites/login/index.html");
    let page = page.to_str().unwrap();
    let runtime = pagesnap_browser::runtime().unwrap();
    runtime.block_on(async {
        let chromium = Chromium::launch(false).await.expect("Chromium starts");
        let tab = chromium
            .open(page, &OpenOptions::default())
            .await
            .expect("the page opens");
        assert_eq!(tab.eval("1 + 1").await.unwrap(), 2);
        let pid = chromium.pid().expect("a launched browser has a pid");
        // A call the page answers only after 30 s, waiting when the browser dies.
        let waiting = tab.eval("new Promise((done) => setTimeout(() => done('late'), 30000))");
        let kill = async {
            tokio::time::sleep(Duration::from_millis(300)).await;
            let killed = std::process::Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status()
                .unwrap();
            assert!(killed.success(), "kill -KILL {pid}");
            Instant::now()
        };
        let (answer, killed_at) = tokio::join!(waiting, kill);
        within(
            "a call waiting when the browser is killed",
            killed_at.elapsed(),
            Duration::from_secs(1),
            page,
        );
        let err = answer.expect_err("the browser died under the call");
        assert!(err.is_browser_gone(), "not browser-gone: {err:#}");
        assert!(
            format!("{err:#}").contains("the browser is gone"),
            "{err:#}"
        );
        assert!(chromium.is_gone());
        // Every later call fails at once, naming the browser.
        let started = Instant::now();
        let later = tab.eval("1 + 1").await.expect_err("no browser answers");
        assert!(later.is_browser_gone(), "{later:#}");
        let opened = chromium
            .open(page, &OpenOptions::default())
            .await
            .err()
            .expect("no tab opens on a dead browser");
        assert!(opened.is_browser_gone(), "{opened:#}");
        within(
            "the calls after the browser died",
            started.elapsed(),
            Duration::from_secs(1),
            page,
        );
        // What is left closes without waiting on the dead browser.
        let started = Instant::now();
        tab.close().await;
        let _ = chromium.close().await;
        within(
            "closing a dead browser",
            started.elapsed(),
            Duration::from_secs(10),
            page,
        );
    });
}
