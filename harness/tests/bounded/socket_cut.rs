//! An attached browser's DevTools socket cut while a page is in flight (issue 58 item 4): `record --each`, `live` and `bench-live` attach through a proxy of the test's own in front of the endpoint of a Chromium the test started, and the page's image request closes every connection through it. The browser lives on and its endpoint answers, so the command attaches to it again: the page or episode in flight is retried once (`record`, `live`) or reported failed (`bench-live`), and the rest go on, no row lost, the test's browser untouched.

use std::sync::Arc;
use std::time::Duration;

use crate::browser_died::{
    Attachable, BenchLived, Fault, Killer, Lived, Recorded, chromium_runs, pages_of,
};
use crate::proxy::Proxy;
use crate::{alone, chromium_profiles, within};

/// The test's browser, a proxy in front of its endpoint and a killer whose
/// request for `b.png` cuts every connection through the proxy.
fn cut_under_b() -> (Attachable, Arc<Proxy>, Killer) {
    let browser = Attachable::start();
    let proxy = Arc::new(Proxy::start(browser.endpoint.trim_start_matches("http://")));
    let killer = Killer::start_with(&[("b", 1)], Fault::Cut(Arc::clone(&proxy)));
    (browser, proxy, killer)
}

/// The test's browser outlived the cut and the command, and the command
/// left nothing in its temp folder.
fn browser_lives(browser: &mut Attachable, tmp: &std::path::Path, context: &str) {
    assert!(
        browser.child.try_wait().unwrap().is_none(),
        "the test's browser was ended: {context}"
    );
    assert!(!chromium_runs(tmp), "{context}");
    assert!(chromium_profiles(tmp).is_empty(), "{context}");
}

/// `record --each --cdp-endpoint PROXY`: the page in flight when the socket
/// is cut is recorded on the second try over a new connection; the pages
/// before and after are recorded once.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a wall-clock bound: scripts/test-bounded runs it alone against the release build"
)]
fn record_each_attaches_again_when_its_socket_is_cut() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let (mut browser, proxy, killer) = cut_under_b();
    let pages = pages_of(
        dir.path(),
        &killer,
        &[("a", false), ("b", true), ("d", false)],
    );
    let run = Recorded::run(
        dir.path(),
        &pages,
        &killer,
        "20",
        &["--cdp-endpoint", &proxy.endpoint],
    );
    let context = &run.context;
    assert_eq!(run.code, Some(0), "{context}");
    for name in ["a", "b", "d"] {
        assert_eq!(run.recorded(name).len(), 1, "{name}: {context}");
        assert!(
            run.out.join(format!("{name}.json.gz")).exists(),
            "{context}"
        );
    }
    assert!(
        run.stderr.contains(
            "b.html: the browser died while recording it; attached to again, recorded on the \
             second try"
        ),
        "{context}"
    );
    let cut = killer.kills("b");
    assert_eq!(cut.len(), 1, "{context}");
    within(
        "from the socket cut under b to b recorded over a new connection",
        run.recorded("b")[0] - cut[0].at,
        Duration::from_secs(6),
        context,
    );
    browser_lives(&mut browser, &run.tmp, context);
}

/// `live --cdp-endpoint PROXY`: the episode in flight when the socket is cut
/// runs again over a new connection, marked `browser_died: retried`; the
/// others are untouched.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a wall-clock bound: scripts/test-bounded runs it alone against the release build"
)]
fn live_attaches_again_when_its_socket_is_cut() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let (mut browser, proxy, killer) = cut_under_b();
    let run = Lived::run(
        dir.path(),
        &killer,
        "20",
        &["--cdp-endpoint", &proxy.endpoint],
    );
    let context = &run.context;
    assert_eq!(run.code, Some(0), "{context}");
    let by_task = run.by_task();
    assert_eq!(by_task.len(), 4, "{context}");
    for name in ["a", "b", "c", "d"] {
        assert_eq!(by_task[name]["success"], true, "{name}: {context}");
    }
    assert_eq!(by_task["b"]["browser_died"], "retried", "{context}");
    for name in ["a", "c", "d"] {
        assert!(by_task[name].get("browser_died").is_none(), "{context}");
    }
    let cut = killer.kills("b");
    assert_eq!(cut.len(), 1, "{context}");
    // Rows come in task order with one worker: b's is the second.
    within(
        "from the socket cut under b to b's row, run again over a new connection",
        run.came[1] - cut[0].at,
        Duration::from_secs(6),
        context,
    );
    browser_lives(&mut browser, &run.tmp, context);
}

/// `bench-live --cdp-endpoint PROXY`: the page measured when the socket is
/// cut is reported failed (its timings would mix two connections), the next
/// pages are measured over a new one.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a wall-clock bound: scripts/test-bounded runs it alone against the release build"
)]
fn bench_live_attaches_again_when_its_socket_is_cut() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let (mut browser, proxy, killer) = cut_under_b();
    let run = BenchLived::run(
        dir.path(),
        &killer,
        "20",
        &["--cdp-endpoint", &proxy.endpoint],
    );
    let context = &run.context;
    assert_eq!(run.code, Some(1), "{context}");
    assert!(run.stderr.contains("1 of 4 pages failed"), "{context}");
    assert!(
        run.line_of("b").1["error"]
            .as_str()
            .is_some_and(|e| e.contains("the browser is gone")),
        "{context}"
    );
    for name in ["a", "c", "d"] {
        assert!(
            run.line_of(name).1.get("error").is_none(),
            "{name}: {context}"
        );
    }
    let cut = killer.kills("b");
    assert_eq!(cut.len(), 1, "{context}");
    within(
        "from the socket cut under b to c measured over a new connection",
        run.line_of("c").0 - cut[0].at,
        Duration::from_secs(6),
        context,
    );
    browser_lives(&mut browser, &run.tmp, context);
}
