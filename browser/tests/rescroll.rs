//! After a scroll of the page alone, the kept capture is moved to where the page stands instead of captured anew (issue 59 item 3), and shows what a fresh capture shows; content the scroll loads, and a capture holding `content-visibility: auto`, are captured anew.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use pagesnap_browser::{
    Axis, Chromium, ChromiumSession, Kept, Motion, OpenOptions, ScrollBy, Source, UserAction,
};
use pagesnap_engine::strategy::{self, Options};

/// A fixed header, a sticky bar inside the article, a fixed button in a
/// corner over the text, and sixty paragraphs with a link each.
const PAGE: &str = r##"<!doctype html><title>rescroll</title>
<style>
body { margin: 0; font: 16px sans-serif; background: #fff; color: #1f2933 }
header { position: fixed; top: 0; left: 0; right: 0; height: 48px; background: #1f3a5f; color: #fff }
header a { color: #fff }
.bar { position: sticky; top: 48px; background: #eef; height: 32px }
main { padding-top: 48px }
.help { position: fixed; right: 16px; bottom: 16px; width: 220px; height: 80px; background: #fff; border: 1px solid #888 }
p { margin: 0; height: 60px }
</style>
<header><a href="#top">Home</a> <button>Search</button></header>
<main><div class="bar">Section bar <button>Filter</button></div>
<script>
for (let i = 1; i <= 60; i++) {
  document.write(`<p>Paragraph ${i} of the article <a href="#p${i}">link ${i}</a></p>`);
}
</script>
</main>
<aside class="help">Help <button>Chat</button></aside>"##;

/// The same page, whose end loads more paragraphs once scrolled near.
const FEED: &str = r##"<!doctype html><title>feed</title>
<style>body { margin: 0; font: 16px sans-serif } p { margin: 0; height: 60px }</style>
<main id="feed"></main>
<script>
const feed = document.getElementById('feed');
let n = 0;
const more = () => { for (let i = 0; i < 20; i++) { n++; const p = document.createElement('p'); p.textContent = `Item ${n}`; feed.append(p); } };
more();
addEventListener('scroll', () => { if (scrollY + innerHeight > document.body.scrollHeight - 200 && n < 60) more(); });
</script>"##;

/// A section laid out only as it nears the viewport.
const SKIPPED: &str = r##"<!doctype html><title>skipped</title>
<style>body { margin: 0 } p { margin: 0; height: 60px } section { content-visibility: auto }</style>
<script>for (let i = 1; i <= 30; i++) document.write(`<p>Line ${i}</p>`);</script>
<section><p>Far section</p></section>"##;

/// A page whose image, far below, loads only as a scroll nears it
/// (`loading=lazy`) and pushes the text after it 600 px down.
const LAZY: &str = r##"<!doctype html><title>lazy</title>
<style>body { margin: 0; font: 16px sans-serif } p { margin: 0; height: 60px }</style>
<script>for (let i = 1; i <= 100; i++) document.write(`<p>Line ${i}</p>`);</script>
<img loading="lazy" src="/tall.svg" alt="">
<p>After the image <a href="#a">after link</a></p>
<script>for (let i = 101; i <= 130; i++) document.write(`<p>Line ${i}</p>`);</script>"##;

const TALL_SVG: &str = r##"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="600"><rect width="10" height="600" fill="#888"/></svg>"##;

/// Serves [`LAZY`] at `/lazy.html` and [`TALL_SVG`] at `/tall.svg` over
/// 127.0.0.1 (a lazy image's load shows in resource timing, as on the web);
/// returns the port.
fn serve_lazy() -> u16 {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(&stream);
            let mut line = String::new();
            if reader.read_line(&mut line).is_err() {
                continue;
            }
            // The rest of the request head.
            let mut header = String::new();
            while reader.read_line(&mut header).is_ok_and(|n| n > 2) {
                header.clear();
            }
            let (status, kind, body) = if line.contains("/lazy.html") {
                ("200 OK", "text/html", LAZY)
            } else if line.contains("/tall.svg") {
                ("200 OK", "image/svg+xml", TALL_SVG)
            } else {
                ("404 Not Found", "text/plain", "")
            };
            let _ = write!(
                &stream,
                "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    port
}

fn scroll_down(screens: f64) -> UserAction {
    UserAction::Scroll {
        backend_id: None,
        axis: Axis::Vertical,
        by: ScrollBy::Screens(screens),
        motion: Motion::Wheel,
    }
}

/// What `strategy` shows of the page's viewport through `kept`, and where
/// it came from.
async fn kept_view(tab: &ChromiumSession, name: &str, kept: &mut Option<Kept>) -> (String, Source) {
    kept_scope(tab, name, kept, false).await
}

/// [`kept_view`] of the viewport or the whole page.
async fn kept_scope(
    tab: &ChromiumSession,
    name: &str,
    kept: &mut Option<Kept>,
    full_page: bool,
) -> (String, Source) {
    let strategy = strategy::by_name(name).expect("a strategy");
    let options = Options {
        full_page: Some(full_page),
        ..Options::default()
    };
    let (observation, source) = tab
        .observe_kept(strategy, &options, kept)
        .await
        .expect("the page is observed");
    (observation.text, source)
}

/// What `strategy` shows of a fresh capture.
async fn fresh_view(tab: &ChromiumSession, name: &str) -> String {
    let mut none = None;
    let strategy = strategy::by_name(name).expect("a strategy");
    let options = Options {
        full_page: Some(false),
        ..Options::default()
    };
    tab.observe_untracked(strategy, &options, &mut none)
        .await
        .expect("the page is captured")
        .text
}

async fn open(
    chromium: &Chromium,
    dir: &std::path::Path,
    name: &str,
    html: &str,
) -> ChromiumSession {
    let page = dir.join(name);
    std::fs::write(&page, html).unwrap();
    chromium
        .open(page.to_str().unwrap(), &OpenOptions::default())
        .await
        .expect("the page opens")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scroll_alone_moves_the_kept_capture_and_shows_what_a_capture_shows() {
    let dir = tempfile::tempdir().unwrap();
    let chromium = Chromium::launch(false).await.expect("Chromium starts");
    let tab = open(&chromium, dir.path(), "page.html", PAGE).await;

    let mut kept = None;
    let (first, source) = kept_view(&tab, "aria", &mut kept).await;
    assert_eq!(source, Source::Captured);
    assert!(first.contains("link 1"), "{first}");
    for step in 1..=3 {
        tab.perform(&scroll_down(1.5))
            .await
            .expect("the page scrolls");
        let scroll_y = tab.eval("scrollY").await.unwrap().as_f64().unwrap();
        assert!(scroll_y > 0.0, "step {step}: the page scrolled");
        // The first observation moves the capture; the second strategy
        // renders the moved capture again.
        for (name, moves) in [("aria", true), ("flat", false)] {
            let (moved, source) = kept_view(&tab, name, &mut kept).await;
            if moves {
                assert!(
                    matches!(source, Source::Scrolled { .. }),
                    "step {step}, {name}: {source:?}"
                );
            } else {
                assert!(
                    matches!(source, Source::Reused { .. }),
                    "step {step}, {name}: {source:?}"
                );
            }
            let fresh = fresh_view(&tab, name).await;
            assert_eq!(moved, fresh, "step {step}, {name}: moved and fresh differ");
            assert!(
                !moved.contains("link 1\""),
                "step {step}: the first link scrolled away"
            );
            for fixed in ["Home", "Chat", "Filter"] {
                assert!(
                    moved.contains(fixed),
                    "step {step}, {name}: {fixed} is in view: {moved}"
                );
            }
        }
    }
    // Nothing moved since: the capture is rendered again as it was.
    let (_, source) = kept_view(&tab, "aria", &mut kept).await;
    assert!(matches!(source, Source::Reused { .. }), "{source:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn content_the_scroll_loads_and_skipped_sections_are_captured_anew() {
    let dir = tempfile::tempdir().unwrap();
    let chromium = Chromium::launch(false).await.expect("Chromium starts");

    let feed = open(&chromium, dir.path(), "feed.html", FEED).await;
    let mut kept = None;
    let (_, source) = kept_view(&feed, "flat", &mut kept).await;
    assert_eq!(source, Source::Captured);
    feed.perform(&scroll_down(3.0))
        .await
        .expect("the feed scrolls");
    let loaded = feed.eval("n").await.unwrap().as_f64().unwrap();
    assert!(loaded > 20.0, "the page loaded more: {loaded}");
    let (_, source) = kept_view(&feed, "flat", &mut kept).await;
    assert_eq!(source, Source::Captured, "new content: a capture");
    let (full, _) = kept_scope(&feed, "flat", &mut kept, true).await;
    assert!(
        full.contains(&format!("Item {loaded}")),
        "the loaded items are shown"
    );

    let skipped = open(&chromium, dir.path(), "skipped.html", SKIPPED).await;
    let mut kept = None;
    let (_, source) = kept_view(&skipped, "flat", &mut kept).await;
    assert_eq!(source, Source::Captured);
    skipped
        .perform(&scroll_down(1.0))
        .await
        .expect("the page scrolls");
    let (_, source) = kept_view(&skipped, "flat", &mut kept).await;
    assert_eq!(
        source,
        Source::Captured,
        "content-visibility: auto: a capture"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_image_the_scroll_loads_is_captured_anew() {
    let port = serve_lazy();
    let chromium = Chromium::launch(false).await.expect("Chromium starts");
    let tab = chromium
        .open(
            &format!("http://127.0.0.1:{port}/lazy.html"),
            &OpenOptions::default(),
        )
        .await
        .expect("the page opens");
    let loaded = "document.images[0].complete && document.images[0].naturalHeight > 0";
    let mut kept = None;
    let (_, source) = kept_view(&tab, "aria", &mut kept).await;
    assert_eq!(source, Source::Captured);
    assert_eq!(
        tab.eval(loaded).await.unwrap(),
        false,
        "far from the viewport, not loaded"
    );
    tab.eval("window.scrollTo(0, 5600)").await.unwrap();
    for _ in 0..100 {
        if tab.eval(loaded).await.unwrap() == true {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(
        tab.eval(loaded).await.unwrap(),
        true,
        "scrolled near, loaded"
    );
    let (moved, source) = kept_view(&tab, "aria", &mut kept).await;
    assert_eq!(source, Source::Captured, "the image moved what follows it");
    assert_eq!(moved, fresh_view(&tab, "aria").await);
}
