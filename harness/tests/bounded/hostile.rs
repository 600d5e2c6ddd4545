//! `pagesnap record` against hostile pages (`fixtures/hostile/`, issues 14 and 17): every record ends within its limit, names what failed, and leaves no Chromium process or temp profile behind.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::MutexGuard;
use std::time::{Duration, Instant};

use crate::support::http;
use crate::support::{load, root, stderr};
use crate::{alone, chromium_profiles, within};
use pagesnap_engine::analyze::is_chromium_text_role;
use pagesnap_engine::recording::Recording;

/// One `pagesnap` process in a sandbox: its own `TMPDIR` (so the Chromium
/// profiles it makes can be counted) and an environment tag every process it
/// starts inherits (so the Chromium processes it leaves can be found).
struct Sandbox {
    tmp: tempfile::TempDir,
    tag: String,
    /// One sandbox at a time: each runs a browser through a page built to
    /// exhaust it, and two at once on two cores measure each other, not
    /// the limit.
    _alone: MutexGuard<'static, ()>,
}

impl Sandbox {
    fn new() -> Sandbox {
        let alone = alone();
        let tmp = tempfile::tempdir().unwrap();
        let tag = format!(
            "{}-{}",
            std::process::id(),
            tmp.path().file_name().unwrap().to_string_lossy()
        );
        Sandbox {
            tmp,
            tag,
            _alone: alone,
        }
    }

    fn command(&self) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_pagesnap"));
        command
            .current_dir(root())
            .env("TMPDIR", self.tmp.path())
            .env("PAGESNAP_TEST_SANDBOX", &self.tag);
        command
    }

    /// `pagesnap record TARGET --out OUT EXTRA…`, timed.
    fn record(&self, target: &str, out: &Path, extra: &[&str]) -> (Output, Duration) {
        let started = Instant::now();
        let output = self
            .command()
            .args(["record", target, "--out"])
            .arg(out)
            .args(extra)
            .output()
            .unwrap();
        (output, started.elapsed())
    }

    fn spawn_record(&self, target: &str, out: &Path, extra: &[&str]) -> Child {
        self.command()
            .args(["record", target, "--out"])
            .arg(out)
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// Processes still running that this sandbox's `pagesnap` started
    /// (Chromium's browser, zygotes, renderers, crash handler).
    fn processes(&self) -> Vec<String> {
        let needle = format!("PAGESNAP_TEST_SANDBOX={}", self.tag);
        let mut found = Vec::new();
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
                continue;
            };
            if environ
                .split(|&b| b == 0)
                .any(|var| var == needle.as_bytes())
            {
                let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
                found.push(format!(
                    "{}: {}",
                    entry.file_name().to_string_lossy(),
                    String::from_utf8_lossy(&cmdline).replace('\0', " ")
                ));
            }
        }
        found
    }

    /// Temp profiles (`pagesnap-chromium-*`) left in the sandbox's `TMPDIR`.
    fn profiles(&self) -> Vec<PathBuf> {
        chromium_profiles(self.tmp.path())
    }

    /// No process and no profile left, allowing the processes a moment to exit.
    fn assert_clean(&self) {
        let started = Instant::now();
        let mut left = self.processes();
        while !left.is_empty() && started.elapsed() < Duration::from_secs(3) {
            std::thread::sleep(Duration::from_millis(100));
            left = self.processes();
        }
        assert!(left.is_empty(), "processes left behind: {left:#?}");
        let profiles = self.profiles();
        assert!(
            profiles.is_empty(),
            "temp profiles left behind: {profiles:?}"
        );
    }
}

fn hostile(name: &str) -> String {
    format!("fixtures/hostile/{name}")
}

/// The most a record with `--timeout limit` may take as a whole process:
/// 1.2 × the limit for the page, plus launching and closing the browser.
fn process_bound(limit: Duration) -> Duration {
    limit.mul_f64(1.2) + Duration::from_secs(3)
}

/// Issue 17: `--wait-for 60000 --timeout 2` waited the whole minute.
///
/// Measured 0.95 s of its 5.4 s bound.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a wall-clock bound: scripts/test-bounded runs it alone against the release build"
)]
fn a_wait_for_delay_past_the_timeout_is_refused_within_it() {
    let sandbox = Sandbox::new();
    let out = sandbox.tmp.path().join("out/w");
    let (output, elapsed) = sandbox.record(
        &hostile("plain.html"),
        &out,
        &["--wait-for", "60000", "--timeout", "2"],
    );
    let stderr = stderr(&output);
    assert!(!output.status.success(), "{stderr}");
    within(
        "--wait-for 60000 with --timeout 2",
        elapsed,
        process_bound(Duration::from_secs(2)),
        &stderr,
    );
    assert!(
        stderr.contains("a wait of 60000 ms")
            && stderr.contains("2.0 s")
            && stderr.contains("--wait-for sets the wait"),
        "{stderr}"
    );
    sandbox.assert_clean();
}

/// A page that tells the test when it has loaded (so `record` is in its
/// `--wait-for` delay, with the page open in a tab): its URL, and the
/// channel the news comes on.
fn page_that_says_loaded() -> (String, std::sync::mpsc::Receiver<()>) {
    let (tell, loaded) = std::sync::mpsc::channel();
    let tell = std::sync::Mutex::new(tell);
    let server = http::Server::start(move |request| {
        if request.path == "/loaded" {
            let _ = tell.lock().unwrap().send(());
            return http::Reply::empty_for_pages();
        }
        http::Reply {
            status: 200,
            headers: "content-type: text/html\r\n".to_owned(),
            body: "<!doctype html><title>Plain</title><h1>Plain</h1>\
                   <script>addEventListener('load', () => fetch('/loaded'))</script>"
                .to_owned(),
        }
    });
    (format!("{}/", server.url()), loaded)
}

/// Sends `signal` (`INT`, `TERM`) to `child` with kill(1) once its page has
/// loaded (`loaded` says so), then waits for it.
fn interrupt(
    child: Child,
    loaded: &std::sync::mpsc::Receiver<()>,
    signal: &str,
) -> (Output, Duration) {
    let mut child = child;
    loaded
        .recv_timeout(Duration::from_secs(30))
        .expect("the page never loaded");
    assert!(
        child.try_wait().unwrap().is_none(),
        "record ended before the signal"
    );
    let sent = Instant::now();
    let status = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert!(status.success());
    let output = child.wait_with_output().unwrap();
    (output, sent.elapsed())
}

/// Issue 17: SIGINT or SIGTERM to `record` left `pagesnap-chromium-*`
/// profiles (and Chromium processes) behind. Each closes the browser,
/// removes the profile and exits with 128 + the signal's number.
///
/// Measured teardown 0.17 s (SIGINT) and 0.22 s (SIGTERM) of its 10 s bound.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a wall-clock bound: scripts/test-bounded runs it alone against the release build"
)]
fn an_interrupted_record_closes_chromium_and_removes_its_profile() {
    for (signal, code) in [("INT", 130), ("TERM", 143)] {
        let sandbox = Sandbox::new();
        let out = sandbox.tmp.path().join("out/s");
        let (url, loaded) = page_that_says_loaded();
        let child = sandbox.spawn_record(&url, &out, &["--wait-for", "20000", "--timeout", "30"]);
        let (output, teardown) = interrupt(child, &loaded, signal);
        let stderr = stderr(&output);
        assert_eq!(output.status.code(), Some(code), "SIG{signal}: {stderr}");
        assert!(
            stderr.contains(&format!("interrupted by SIG{signal}")),
            "{stderr}"
        );
        within(
            &format!("teardown after SIG{signal}"),
            teardown,
            Duration::from_secs(10),
            &stderr,
        );
        sandbox.assert_clean();
    }
}

/// Issue 17: a page that navigated away during load (a script setting
/// `location`, a meta refresh) was stored with the first URL and the second
/// page's DOM. The recording names the document it holds.
///
/// No bound of its own but the `--timeout 20` of each record.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a wall-clock bound: scripts/test-bounded runs it alone against the release build"
)]
fn a_page_that_navigates_during_load_is_stored_with_the_url_captured() {
    let server =
        pagesnap_harness::live::server::Server::start(&root().join("fixtures/hostile/navigate"))
            .unwrap();
    let sandbox = Sandbox::new();
    for page in ["script.html", "refresh.html"] {
        let out = sandbox
            .tmp
            .path()
            .join("out")
            .join(page.replace(".html", ""));
        let (output, _) = sandbox.record(&server.url(page), &out, &["--timeout", "20"]);
        assert!(output.status.success(), "{page}: {}", stderr(&output));
        let recording = load(&out.with_extension("json.gz"));
        let heading = recording
            .nodes
            .iter()
            .filter_map(|n| n.text.as_deref())
            .find(|t| t.starts_with("Page "))
            .unwrap_or_default()
            .to_owned();
        // The document captured decides: B's DOM under B's URL (or, had the
        // refresh not happened yet, A's under A's).
        if recording.title == "B" {
            assert_eq!(recording.url, server.url("b.html"), "{page}");
            assert_eq!(heading, "Page B", "{page}");
        } else {
            assert_eq!(recording.url, server.url(page), "{page}");
            assert_eq!(heading, "Page A", "{page}");
        }
        if page == "script.html" {
            assert_eq!(
                recording.title, "B",
                "a script navigation completes during load"
            );
        }
    }
    sandbox.assert_clean();
}

/// Issue 14: a lone UTF-16 surrogate in the page (`el.textContent =
/// "bad\uD800pair"`) made `DOMSnapshot.captureSnapshot` time out: CDP's JSON
/// held `\ud800`, which no UTF-8 string can, and the answer was dropped. Text,
/// attributes, title and URLs are captured with U+FFFD, and counted.
///
/// Measured 1.1 s of its 21 s bound.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a wall-clock bound: scripts/test-bounded runs it alone against the release build"
)]
fn lone_surrogates_are_captured_as_replacement_characters_and_counted() {
    let sandbox = Sandbox::new();
    let out = sandbox.tmp.path().join("out/lone");
    let limit = Duration::from_secs(15);
    let (output, elapsed) =
        sandbox.record(&hostile("lone_surrogate.html"), &out, &["--timeout", "15"]);
    assert!(output.status.success(), "{}", stderr(&output));
    within(
        "lone_surrogate.html with --timeout 15",
        elapsed,
        process_bound(limit),
        &stderr(&output),
    );
    let recording = load(&out.with_extension("json.gz"));
    assert_eq!(recording.title, "title\u{fffd}");
    assert!(
        recording
            .nodes
            .iter()
            .any(|n| n.text.as_deref() == Some("bad\u{fffd}pair")),
        "no repaired text node"
    );
    let link = recording
        .nodes
        .iter()
        .find(|n| n.tag == "a")
        .expect("the link");
    let attr = |name: &str| {
        link.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(attr("title").as_deref(), Some("attr\u{fffd}lone"));
    assert_eq!(attr("href").as_deref(), Some("#frag\u{fffd}x"));
    assert!(
        recording.capture.replaced_surrogates >= 4,
        "{:?}",
        recording.capture
    );
    sandbox.assert_clean();
}

/// Records `fixtures/hostile/NAME` with `--timeout SECS` and checks what
/// every hostile page must give: an end within 1.2 × the limit (plus the
/// browser's launch and close), either a recording or an error naming the
/// page and the limit, and nothing left behind. Returns the outcome.
fn record_bounded(name: &str, secs: u64, extra: &[&str]) -> Result<Recording, String> {
    record_bounded_saying(name, secs, extra).map(|(recording, _)| recording)
}

/// [`record_bounded`], with what a successful record said on stderr.
fn record_bounded_saying(
    name: &str,
    secs: u64,
    extra: &[&str],
) -> Result<(Recording, String), String> {
    let sandbox = Sandbox::new();
    let out = sandbox.tmp.path().join("out/page");
    let mut args = vec!["--timeout".to_owned(), secs.to_string()];
    args.extend(extra.iter().map(|a| (*a).to_owned()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (output, elapsed) = sandbox.record(&hostile(name), &out, &args);
    let stderr = stderr(&output);
    let limit = Duration::from_secs(secs);
    within(
        &format!("{name} with --timeout {secs}"),
        elapsed,
        process_bound(limit),
        &stderr,
    );
    sandbox.assert_clean();
    if output.status.success() {
        return Ok((load(&out.with_extension("json.gz")), stderr));
    }
    assert!(
        stderr.contains(name) && stderr.contains(&format!("{secs}.0 s")),
        "{name}: the error names neither the page nor the limit: {stderr}"
    );
    Err(stderr)
}

/// Issue 14: `<script>while(true){}</script>` was named, but after twice the limit.
///
/// Measured 9.0 s of its 12.6 s bound.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a wall-clock bound: scripts/test-bounded runs it alone against the release build"
)]
fn a_busy_loop_is_refused_within_the_limit_naming_load() {
    let err = record_bounded("busy_loop.html", 8, &[]).expect_err("a busy page cannot load");
    assert!(err.contains("load event never fired"), "{err}");
}

/// Issue 14: `setTimeout(() => location.reload(), 10)` failed after 31 s
/// with `Page.captureScreenshot failed …: Request timed out.` A page that
/// keeps navigating is refused by name at the limit: as such, or naming the
/// capture call a navigation left unanswered.
///
/// Measured 8.5 s of its 12.6 s bound.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a wall-clock bound: scripts/test-bounded runs it alone against the release build"
)]
fn a_reload_loop_is_refused_by_name_at_the_limit() {
    let err = record_bounded("reload_loop.html", 8, &[]).expect_err("nothing holds still");
    assert!(
        err.contains("kept navigating") || err.contains("did not finish within"),
        "{err}"
    );
}

/// Issue 14: 1,000 `srcdoc` iframes: load never fired within 15 s. Chromium's
/// browser process needs longer than that for them on this machine (busy at
/// 100 % with the frames); the record ends within the limit either way,
/// recorded or refused naming the phase.
///
/// Measured 17.2 s of its 21 s bound: the limit itself, then closing a browser busy with the
/// frames.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a wall-clock bound: scripts/test-bounded runs it alone against the release build"
)]
fn a_thousand_iframes_end_within_the_limit() {
    match record_bounded("iframes_1000.html", 15, &[]) {
        Ok(recording) => {
            let frames = recording.nodes.iter().filter(|n| n.tag == "iframe").count();
            assert_eq!(frames, 1000);
        }
        Err(err) => assert!(
            err.contains("load") || err.contains("did not finish within"),
            "{err}"
        ),
    }
}

/// Issue 14: 20 MB of text in one node is recorded within the limit.
///
/// Measured 17.6 s of its 39 s bound (it failed at 33.8 s against the debug build beside the other
/// tests: the debug build spent 15 s decoding the 60 MB of CDP answers and 3 s encoding the
/// recording, which then held the text three times).
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a wall-clock bound: scripts/test-bounded runs it alone against the release build"
)]
fn twenty_megabytes_of_text_are_recorded_within_the_limit() {
    let recording =
        record_bounded("text_20mb.html", 30, &[]).expect("20 MB of text records within 30 s");
    let longest = recording
        .nodes
        .iter()
        .filter_map(|n| n.text.as_deref())
        .map(str::len)
        .max()
        .unwrap_or(0);
    assert!(longest >= 20_000_000, "longest text {longest}");
    // The oracle keeps its text nodes without their names (the text itself):
    // the 20 MB are stored once, not three times.
    let oracle = recording.ax.nodes("text_20mb.html").unwrap();
    let text_nodes: Vec<_> = oracle
        .iter()
        .filter(|n| is_chromium_text_role(&n.role))
        .collect();
    assert!(!text_nodes.is_empty());
    assert!(
        text_nodes.iter().all(|n| n.name.is_empty()),
        "{text_nodes:?}"
    );
    assert!(
        oracle
            .iter()
            .any(|n| n.name == "20 MB of text" && n.role == "heading")
    );
}

/// Issue 14: a page of 101,000 nodes (1,000 sections of a heading and 49
/// paragraphs, built by script) is recorded whole within the limit, under
/// the default caps, and nothing is noted as cut. It takes 10–13 s here
/// alone; the limit leaves room for a machine busy with other builds.
///
/// Measured 11.2 s of its 75 s bound.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a wall-clock bound: scripts/test-bounded runs it alone against the release build"
)]
fn a_hundred_thousand_nodes_are_recorded_whole_within_the_limit() {
    let (recording, stderr) = record_bounded_saying("nodes_100k.html", 60, &[])
        .expect("100,000 nodes record within 60 s");
    assert!(
        recording.nodes.len() >= 101_000,
        "{}",
        recording.nodes.len()
    );
    assert!(recording.capture.is_empty(), "{:?}", recording.capture);
    assert!(!stderr.contains("cut"), "{stderr}");
    let last = recording
        .nodes
        .iter()
        .rev()
        .filter_map(|n| n.text.as_deref())
        .find(|t| t.starts_with("Paragraph "));
    assert_eq!(last, Some("Paragraph 999.48"));
}

/// Issue 14: `--max-nodes` cuts the document-order tail, whole subtrees,
/// keeps the tree consistent (the recording decodes, which checks it),
/// counts the cut in `capture.cut_nodes` and says so on stderr.
///
/// Measured 10.6 s of its 75 s bound.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a wall-clock bound: scripts/test-bounded runs it alone against the release build"
)]
fn the_node_cap_cuts_the_document_order_tail_and_says_so() {
    let (recording, stderr) =
        record_bounded_saying("nodes_100k.html", 60, &["--max-nodes", "20000"])
            .expect("a capped page is recorded");
    assert_eq!(recording.nodes.len(), 20_000);
    let cut = recording.capture.cut_nodes;
    assert!(cut >= 81_000, "{:?}", recording.capture);
    assert!(
        stderr.contains(&format!("{cut} nodes past --max-nodes 20000 were cut"))
            && stderr.contains("capture.cut_nodes"),
        "{stderr}"
    );
    // What is kept is the page's beginning: the title, the first sections.
    let texts: Vec<&str> = recording
        .nodes
        .iter()
        .filter_map(|n| n.text.as_deref())
        .collect();
    assert!(texts.contains(&"100,000 nodes") && texts.contains(&"Section 0"));
    assert!(!texts.contains(&"Section 999"));
}

/// Issue 14: `--max-text` truncates text at a character boundary, counts the
/// bytes cut in `capture.cut_text` and says so on stderr.
///
/// Measured 1.2 s of its 21 s bound.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a wall-clock bound: scripts/test-bounded runs it alone against the release build"
)]
fn the_text_cap_truncates_text_and_says_so() {
    let (recording, stderr) =
        record_bounded_saying("plain.html", 15, &["--max-text", "12"]).expect("recorded");
    let kept: usize = recording
        .nodes
        .iter()
        .map(|n| {
            n.text.as_deref().map_or(0, str::len)
                + n.attrs.iter().map(|(_, v)| v.len()).sum::<usize>()
                + n.value.as_deref().map_or(0, str::len)
        })
        .sum();
    assert!(kept <= 12, "{kept} bytes kept");
    let cut = recording.capture.cut_text;
    assert!(cut > 0, "{:?}", recording.capture);
    assert!(
        stderr.contains(&format!("{cut} bytes of text past --max-text 12 were cut")),
        "{stderr}"
    );
}

/// Issue 14: 10,000 open shadow roots (one button each, attached by script)
/// are recorded within the limit, each root between its host and its content.
///
/// Measured 6.1 s of its 39 s bound.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a wall-clock bound: scripts/test-bounded runs it alone against the release build"
)]
fn ten_thousand_shadow_roots_are_recorded_within_the_limit() {
    let recording =
        record_bounded("shadow_roots_10k.html", 30, &[]).expect("10,000 shadow roots record");
    let roots: Vec<usize> = recording
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.kind == pagesnap_engine::recording::NodeKind::ShadowRootOpen)
        .map(|(i, _)| i)
        .collect();
    assert_eq!(roots.len(), 10_000);
    for &root in &roots {
        let host = recording.nodes[root].parent.unwrap() as usize;
        assert_eq!(recording.nodes[host].tag, "x-item");
        let button = &recording.nodes[root + 1];
        assert_eq!(
            (button.tag.as_str(), button.parent),
            ("button", Some(root as u32))
        );
    }
    assert!(recording.capture.is_empty(), "{:?}", recording.capture);
}

/// Issue 14: the 100,000-node page under a limit it cannot meet was refused
/// after 17.5 s at `--timeout 9` (1.9× the limit): the snapshot's answer was
/// decoded inside the awaiting future, where no timer cuts in, and the
/// browser was then given 8 s to close. It ends within the limit's bound.
///
/// Measured 7.4 s of its 10.2 s bound.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a wall-clock bound: scripts/test-bounded runs it alone against the release build"
)]
fn a_hundred_thousand_nodes_cut_short_by_the_limit_end_within_it() {
    let err = record_bounded("nodes_100k.html", 6, &[]).expect_err("10 s of work in 6");
    assert!(
        err.contains("did not finish within") || err.contains("load event never fired"),
        "{err}"
    );
}
