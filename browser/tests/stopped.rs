//! A browser that stops answering — stopped for real (SIGSTOP of the browser process pagesnap launched, as a hung or frozen browser would be) — is taken for dead within its pulse's bound (issue 58 item 3): killed, the call waiting on it ended as browser-gone, and a browser started in its place answers. Before, the call waited out the CDP request timeout (60 s), and so did every later one.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::time::{Duration, Instant};

use pagesnap_browser::{Chromium, OpenOptions};

fn signal(name: &str, pid: u32) {
    let sent = std::process::Command::new("kill")
        .args([name, &pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success(), "kill {name} {pid}");
}

/// The process's state letter (`T` stopped, `Z` exited, not yet reaped), or
/// none once it is gone.
fn state(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, after) = stat.rsplit_once(") ")?;
    after.chars().next()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_browser_is_killed_and_its_calls_end_as_browser_gone() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.html");
    std::fs::write(&page, "<!doctype html><title>page</title><p>Still here</p>").unwrap();
    let chromium = Chromium::launch(false).await.expect("Chromium starts");
    let tab = chromium
        .open(page.to_str().unwrap(), &OpenOptions::default())
        .await
        .expect("the page opens");
    assert_eq!(tab.eval("1 + 1").await.unwrap(), 2);
    let pid = chromium.pid().expect("a launched browser has a pid");
    signal("-STOP", pid);
    let stopped = Instant::now();
    // A call to the stopped browser: never answered by it.
    let err = tab
        .eval("document.title")
        .await
        .expect_err("a stopped browser answers nothing");
    let waited = stopped.elapsed();
    assert!(err.is_browser_gone(), "not browser-gone: {err:#}");
    // Its pulse misses three answers (1 s apart, 2 s each): about 9 s at
    // most, against the 60 s request timeout before.
    assert!(
        waited < Duration::from_secs(20),
        "the stopped browser was taken for dead after {waited:?}"
    );
    assert!(chromium.is_gone());
    // Killed, not left stopped: the process exits (a zombie until the client
    // reaps it on close) within moments of the kill.
    let killed = Instant::now();
    while !matches!(state(pid), None | Some('Z')) && killed.elapsed() < Duration::from_secs(5) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        matches!(state(pid), None | Some('Z')),
        "the browser process {pid} is still {:?}",
        state(pid)
    );
    // A browser in its place answers.
    let fresh = chromium.restart().await.expect("a browser starts again");
    assert_ne!(fresh.pid(), Some(pid));
    let again = fresh
        .open(page.to_str().unwrap(), &OpenOptions::default())
        .await
        .expect("the page opens in the new browser");
    assert_eq!(again.eval("document.title").await.unwrap(), "page");
    again.close().await;
    fresh.close().await.expect("the new browser closes");
    tab.close().await;
    let _ = chromium.close().await;
    assert_eq!(state(pid), None, "the dead browser was reaped");
}
