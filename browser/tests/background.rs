//! A tab that is not in front — another session's, or the one a page's new tab pushed back — keeps running as a person's foreground tab does: its timers, its animation frames and its IntersectionObservers (issue 57 item 3), so a feed scrolled there still loads.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::time::Duration;

use pagesnap_browser::{Chromium, ChromiumSession, OpenOptions};

/// A feed whose sentinel loads more when it enters the viewport, with a
/// 100 ms timer and an animation-frame counter.
const FEED: &str = r#"<!doctype html><title>feed</title>
<div style="height: 3000px">Posts</div><p id="sentinel">Loading more…</p>
<script>
window.ticks = 0; setInterval(() => ticks++, 100);
window.painted = 0; (function frame() { painted++; requestAnimationFrame(frame); })();
window.loaded = 0;
new IntersectionObserver((entries) => {
  for (const entry of entries) if (entry.isIntersecting) loaded++;
}).observe(document.getElementById('sentinel'));
</script>"#;

async fn counters(tab: &ChromiumSession) -> (f64, f64, f64) {
    let value = tab
        .eval("[ticks, painted, loaded]")
        .await
        .expect("the page answers");
    let read = |i: usize| value[i].as_f64().expect("a number");
    (read(0), read(1), read(2))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tab_behind_another_keeps_its_timers_frames_and_observers() {
    let dir = tempfile::tempdir().unwrap();
    let feed = dir.path().join("feed.html");
    std::fs::write(&feed, FEED).unwrap();
    let other = dir.path().join("other.html");
    std::fs::write(&other, "<!doctype html><title>other</title><p>In front</p>").unwrap();
    let chromium = Chromium::launch(false).await.expect("Chromium starts");
    let options = OpenOptions::default();
    let behind = chromium
        .open(feed.to_str().unwrap(), &options)
        .await
        .expect("the feed opens");
    let front = chromium
        .open(other.to_str().unwrap(), &options)
        .await
        .expect("the other page opens");
    front.bring_to_front().await.expect("brought to front");
    let (ticks, painted, loaded) = counters(&behind).await;
    assert_eq!(loaded, 0.0, "the sentinel starts below the viewport");
    behind
        .eval("window.scrollTo(0, document.body.scrollHeight)")
        .await
        .expect("the feed scrolls");
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (ticks_after, painted_after, loaded_after) = counters(&behind).await;
    // Two seconds of a 100 ms timer is 20 ticks; a throttled background tab
    // runs it about once a second, and runs no frames at all.
    assert!(
        ticks_after - ticks >= 12.0,
        "timer ticks behind: {}",
        ticks_after - ticks
    );
    assert!(
        painted_after - painted >= 30.0,
        "animation frames behind: {}",
        painted_after - painted
    );
    assert!(loaded_after >= 1.0, "the sentinel's observer never fired");
    let visibility = behind.eval("document.visibilityState").await.unwrap();
    assert_eq!(
        visibility, "visible",
        "a tab in a window of its own is visible"
    );
    front.close().await;
    behind.close().await;
    chromium.close().await.expect("Chromium closes");
}
