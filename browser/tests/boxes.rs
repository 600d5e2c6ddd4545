//! The scroll boxes of a document's scroll containers are read, at the next capture of the same document, through the handles the last one kept, before the snapshot (issue 59 item 6) — and still show where each box stands now; a scroller added or removed, a frame's navigation or a new document resolves the elements anew.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use pagesnap_browser::{CaptureTimings, Chromium, ChromiumSession, Needs, OpenOptions};
use pagesnap_engine::recording::{Recording, ScrollState};

/// Two lists a person can scroll (a tall one and a wide one), and a box
/// whose overflow is hidden (only script scrolls it: not read).
const PAGE: &str = r##"<!doctype html><title>boxes</title>
<style>
body { margin: 0; font: 16px sans-serif }
.scroller { overflow: auto; width: 300px; height: 100px }
.tall { height: 1000px } .wide { width: 2000px; height: 20px }
#clip { overflow: hidden; width: 100px; height: 50px }
</style>
<div id="list" class="scroller"><div class="tall">Messages</div></div>
<div id="strip" class="scroller"><div class="wide">A wide strip</div></div>
<div id="clip"><div class="tall">Clipped</div></div>"##;

/// How the scroll boxes were read in one capture: through kept handles
/// (before the snapshot) or by resolving the elements (after it).
#[derive(Debug, PartialEq)]
enum Read {
    Kept,
    Resolved,
    Neither,
}

fn read(timings: &CaptureTimings) -> Read {
    let named = |part: &str| {
        timings
            .calls
            .iter()
            .any(|call| call.name.starts_with("scroll boxes") && call.name.contains(part))
    };
    match (named("kept handles"), named("DOM.resolveNode")) {
        (true, false) => Read::Kept,
        (false, true) => Read::Resolved,
        (false, false) => Read::Neither,
        (true, true) => panic!("both reads in one capture: {:?}", timings.calls),
    }
}

async fn capture(tab: &ChromiumSession) -> (Recording, Read) {
    let needs = Needs {
        screenshot: None,
        oracle: false,
        stable_counts: false,
    };
    let (captured, timings) = tab.capture_with(needs).await.expect("the page is captured");
    (captured.recording, read(&timings))
}

/// Waits until the frame shows `text`.
async fn loaded(tab: &ChromiumSession, text: &str) {
    for _ in 0..100 {
        let shown = tab
            .eval("document.getElementById('frame')?.contentDocument?.body?.textContent ?? ''")
            .await
            .unwrap();
        if shown.as_str() == Some(text) {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("the frame never showed {text:?}");
}

/// The scroll state of the element with `id`, if it has one.
fn scroll(recording: &Recording, id: &str) -> Option<ScrollState> {
    recording
        .nodes
        .iter()
        .find(|n| {
            n.attrs
                .iter()
                .any(|(name, value)| name == "id" && value == id)
        })
        .and_then(|n| n.scroll)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scroll_boxes_are_read_through_kept_handles_until_the_scrollers_change() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("boxes.html");
    std::fs::write(&page, PAGE).unwrap();
    let chromium = Chromium::launch(false).await.expect("Chromium starts");
    let mut tab = chromium
        .open(page.to_str().unwrap(), &OpenOptions::default())
        .await
        .expect("the page opens");

    // The first capture of the document resolves its two scrollers.
    let (first, how) = capture(&tab).await;
    assert_eq!(how, Read::Resolved);
    let list = scroll(&first, "list").expect("the list's box is read");
    assert_eq!(
        (list.y, list.height, list.client_height),
        (0.0, 1000.0, 100.0)
    );
    let strip = scroll(&first, "strip").expect("the strip's box is read");
    assert_eq!(strip.width, 2000.0);
    assert_eq!(scroll(&first, "clip"), None, "overflow: hidden is not read");

    // Scrolled by the page between captures: the kept handles read where
    // the list stands now, not where it stood.
    tab.eval("document.getElementById('list').scrollTop = 300; document.getElementById('strip').scrollLeft = 150")
        .await
        .unwrap();
    let (second, how) = capture(&tab).await;
    assert_eq!(how, Read::Kept);
    assert_eq!(scroll(&second, "list").map(|s| s.y), Some(300.0));
    assert_eq!(scroll(&second, "strip").map(|s| s.x), Some(150.0));

    // A scroller added: its elements changed, so they are resolved anew,
    // and the next capture reads all three through kept handles.
    tab.eval(
        "const log = document.createElement('div'); log.id = 'log'; log.className = 'scroller'; \
         log.innerHTML = '<div class=\"tall\">Log</div>'; document.body.append(log); log.scrollTop = 40",
    )
    .await
    .unwrap();
    let (third, how) = capture(&tab).await;
    assert_eq!(how, Read::Resolved);
    assert_eq!(scroll(&third, "log").map(|s| s.y), Some(40.0));
    assert_eq!(scroll(&third, "list").map(|s| s.y), Some(300.0));
    let (fourth, how) = capture(&tab).await;
    assert_eq!(how, Read::Kept);
    assert_eq!(
        ["list", "strip", "log"].map(|id| scroll(&fourth, id).is_some()),
        [true; 3]
    );

    // A scroller removed: resolved anew, and it is gone from the capture.
    tab.eval("document.getElementById('list').remove()")
        .await
        .unwrap();
    let (fifth, how) = capture(&tab).await;
    assert_eq!(how, Read::Resolved);
    assert_eq!(scroll(&fifth, "list"), None);
    assert_eq!(scroll(&fifth, "log").map(|s| s.y), Some(40.0));

    // No scroller left: nothing read, and nothing kept.
    tab.eval("for (const el of document.querySelectorAll('.scroller')) el.remove()")
        .await
        .unwrap();
    let (_, how) = capture(&tab).await;
    assert_eq!(how, Read::Neither);

    // A frame added (its box is read too: it places its document), then
    // navigated by the page: the tab counts a new document while its own
    // stays, so the handles kept before are let go and the boxes resolved
    // anew, then kept again.
    tab.eval(
        "const f = document.createElement('iframe'); f.id = 'frame'; f.srcdoc = '<p>one</p>'; \
         document.body.append(f)",
    )
    .await
    .unwrap();
    loaded(&tab, "one").await;
    let (_, how) = capture(&tab).await;
    assert_eq!(how, Read::Resolved);
    let (_, how) = capture(&tab).await;
    assert_eq!(how, Read::Kept);
    tab.eval("document.getElementById('frame').srcdoc = '<p>two</p>'")
        .await
        .unwrap();
    loaded(&tab, "two").await;
    let (_, how) = capture(&tab).await;
    assert_eq!(how, Read::Resolved);
    let (_, how) = capture(&tab).await;
    assert_eq!(how, Read::Kept);

    // A new document: its own elements, resolved at its first capture.
    tab.navigate(page.to_str().unwrap(), &OpenOptions::default(), false)
        .await
        .expect("the page loads again");
    let (reloaded, how) = capture(&tab).await;
    assert_eq!(how, Read::Resolved);
    assert_eq!(scroll(&reloaded, "list").map(|s| s.y), Some(0.0));
    let (_, how) = capture(&tab).await;
    assert_eq!(how, Read::Kept);
}
