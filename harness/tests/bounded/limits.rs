//! The live path's own limits in real Chromium: a page that never loads is named after the load limit, a closed tab and a crashed renderer are named, not waited for.

use std::io::Read as _;
use std::net::TcpListener;
use std::time::{Duration, Instant};

use chromiumoxide::cdp::browser_protocol::page::CrashParams;
use chromiumoxide::cdp::browser_protocol::target::TargetId;
use futures::StreamExt as _;
use pagesnap_browser::{self as capture, Chromium, OpenOptions, TabError};
use pagesnap_engine::strategy::Options;

use crate::support::root;
use crate::{alone, within};

/// A page that never answers is named after the 2 s load limit. Measured 2.0 s of its 10 s bound.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a wall-clock bound: scripts/test-bounded runs it alone against the release build"
)]
fn a_page_that_never_answers_is_named_after_the_load_limit() {
    let _alone = alone();
    // Accepts connections and never answers: the load event cannot fire.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            let mut stream = stream;
            let mut buffer = [0u8; 1024];
            let _ = stream.read(&mut buffer);
            held.push(stream);
        }
    });
    let url = format!("http://127.0.0.1:{port}/slow");
    let runtime = capture::runtime().unwrap();
    runtime.block_on(async {
        let chromium = Chromium::launch(false).await.unwrap();
        let started = Instant::now();
        let options = OpenOptions {
            timeout: Duration::from_secs(2),
            ..OpenOptions::default()
        };
        let err = match chromium.open(&url, &options).await {
            Ok(_) => panic!("a page that never answers must not open"),
            Err(err) => err,
        };
        within(
            "a page that never answers, with a 2 s load limit",
            started.elapsed(),
            Duration::from_secs(10),
            &url,
        );
        match err.tab() {
            Some(TabError::NeverLoaded { url: named, limit }) => {
                assert_eq!(named, &url);
                assert_eq!(*limit, Duration::from_secs(2));
            }
            _ => panic!("expected NeverLoaded, got {err:#}"),
        }
        assert!(err.to_string().contains("never fired"), "{err}");
        chromium.close().await.unwrap();
    });
}

/// A closed tab and a crashed renderer are named, not waited for. Measured 0.03 s (closed) of its
/// 10 s bound and 5.0 s (crashed) of its 15 s.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a wall-clock bound: scripts/test-bounded runs it alone against the release build"
)]
fn a_closed_tab_and_a_crashed_renderer_are_named_not_waited_for() {
    let _alone = alone();
    let page = root().join("fixtures/sites/login/index.html");
    let page = page.to_str().unwrap();
    let strategy = pagesnap_engine::strategy::by_name("aria").unwrap();
    let runtime = capture::runtime().unwrap();
    runtime.block_on(async {
        let chromium = Chromium::launch(false).await.unwrap();
        let options = OpenOptions::default();

        let session = chromium.open(page, &options).await.unwrap();
        session
            .observe(strategy, &Options::default())
            .await
            .unwrap();
        let (_other, tab) = other_client(&chromium, session.target_id()).await;
        tab.close().await.unwrap();
        let started = Instant::now();
        let err = session
            .observe(strategy, &Options::default())
            .await
            .err()
            .expect("observing a closed tab fails");
        within(
            "observing a closed tab",
            started.elapsed(),
            Duration::from_secs(10),
            page,
        );
        assert!(
            matches!(err.tab(), Some(TabError::Closed { .. })),
            "expected Closed, got {err:#}"
        );
        assert!(err.to_string().contains("the tab was closed"), "{err}");

        let session = chromium.open(page, &options).await.unwrap();
        session
            .observe(strategy, &Options::default())
            .await
            .unwrap();
        // `Page.crash` kills the renderer; its own answer never comes.
        let (_other, tab) = other_client(&chromium, session.target_id()).await;
        tokio::spawn(async move {
            let _ = tab.execute(CrashParams::default()).await;
        });
        let started = Instant::now();
        let err = loop {
            // The crash lands moments after the command is sent.
            match session.observe(strategy, &Options::default()).await {
                Ok(_) if started.elapsed() < Duration::from_secs(10) => continue,
                Ok(_) => panic!("the renderer did not crash"),
                Err(err) => break err,
            }
        };
        within(
            "observing until the crash is named",
            started.elapsed(),
            Duration::from_secs(15),
            page,
        );
        assert!(
            matches!(err.tab(), Some(TabError::Crashed { .. })),
            "expected Crashed, got {err:#}"
        );
        assert!(err.to_string().contains("renderer crashed"), "{err}");

        // The browser lives on: another tab still observes.
        let session = chromium.open(page, &options).await.unwrap();
        session
            .observe(strategy, &Options::default())
            .await
            .unwrap();
        chromium.close().await.unwrap();
    });
}

/// Another CDP client on `chromium` (as a user's own tool would be) and its
/// handle on the tab `target`: what closes or crashes a tab behind
/// pagesnap's back.
async fn other_client(
    chromium: &Chromium,
    target: &str,
) -> (chromiumoxide::Browser, chromiumoxide::Page) {
    let (mut browser, mut handler) = chromiumoxide::Browser::connect(chromium.websocket_url())
        .await
        .unwrap();
    tokio::spawn(async move { while handler.next().await.is_some() {} });
    browser.fetch_targets().await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match browser.get_page(TargetId::new(target)).await {
            Ok(page) => return (browser, page),
            Err(_) if Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(err) => panic!("the other client never saw the tab {target}: {err}"),
        }
    }
}
