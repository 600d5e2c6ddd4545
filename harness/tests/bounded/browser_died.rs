//! A browser that dies is started again in its place (issue 58 items 2–4): the real `pagesnap` binary is run, the Chromium it launched is SIGKILLed (as the OOM killer would) or SIGSTOPped (hung) while a page loads, and the page or episode in flight is retried once on a new browser, a page that kills it twice is marked and left, and the run goes on to the end with no temp profile left behind; a killed renderer fails only its page or episode, the browser living on.
//!
//! The kill is made by the page itself, so it lands while that page is in
//! flight and nowhere else: the page loads an image from a 127.0.0.1 server
//! of the test's own, which SIGKILLs the Chromium whose parent is the
//! `pagesnap` process the test spawned before it answers.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use crate::proxy::Proxy;
use crate::support::http::{Reply, Server};
use crate::support::{exe, result_rows, root};
use crate::{alone, chromium_profiles, until, within};

/// The child processes of `pid` (of each of its threads); none when it is gone.
fn children_of(pid: u32) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok())
        .flat_map(|list| {
            list.split_whitespace()
                .filter_map(|pid| pid.parse().ok())
                .collect::<Vec<u32>>()
        })
        .collect()
}

/// The Chromium `pagesnap` (process `parent`) launched, or a tool server it
/// started launched: the nearest descendant whose arguments hold
/// `--headless` (not the watchdog shell, whose script only names flags, nor
/// Chromium's own helpers, `--type=…`).
fn chromium_of(parent: u32) -> Option<u32> {
    let is_browser = |pid: &u32| {
        std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|cmdline| {
            let args: Vec<&[u8]> = cmdline.split(|&b| b == 0).collect();
            args.first().is_some_and(|exe| !exe.ends_with(b"sh"))
                && args.iter().any(|arg| *arg == b"--headless")
                && !args.iter().any(|arg| arg.starts_with(b"--type="))
        })
    };
    let mut level = children_of(parent);
    while !level.is_empty() {
        if let Some(browser) = level.iter().find(|pid| is_browser(pid)) {
            return Some(*browser);
        }
        level = level.iter().flat_map(|&pid| children_of(pid)).collect();
    }
    None
}

/// The renderer processes of the Chromium `browser`: its descendants whose
/// arguments hold `--type=renderer`.
fn renderers_of(browser: u32) -> Vec<u32> {
    let mut all = Vec::new();
    let mut frontier = children_of(browser);
    // Chromium's zygote is between the browser and its renderers.
    while let Some(pid) = frontier.pop() {
        all.push(pid);
        frontier.extend(children_of(pid));
    }
    all.into_iter()
        .filter(|pid| {
            // A zygote's child writes its whole command line as one
            // string, so the flag is looked for, not an argument.
            std::fs::read_to_string(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|cmdline| cmdline.contains("--type=renderer"))
        })
        .collect()
}

/// The renderer of the page whose image asked for the fault: of the
/// Chromium `browser`'s renderers, the one holding the most memory, as the
/// page's [`with_ballast`] makes it. Not every renderer: Chromium keeps a spare
/// one for the next navigation (and one for its first blank tab), and a
/// next page handed a spare killed with the rest before Chromium saw it dead
/// could fail too — not the fault under test.
fn page_renderer_of(browser: u32) -> u32 {
    let resident = |pid: &u32| {
        std::fs::read_to_string(format!("/proc/{pid}/status"))
            .ok()
            .and_then(|status| {
                let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
                line.split_whitespace().nth(1)?.parse::<u64>().ok()
            })
            .unwrap_or(0)
    };
    let renderer = renderers_of(browser)
        .into_iter()
        .max_by_key(resident)
        .expect("the page's renderer runs");
    // Its ballast is resident: the pick is the page's renderer.
    assert!(
        resident(&renderer) > 256 << 10,
        "no renderer holds the ballast"
    );
    renderer
}

/// What a page whose renderer is to be killed holds before it asks for the
/// kill (256 MiB, written so that it is resident): more than twice any other
/// renderer's memory here, so that [`page_renderer_of`] finds it. Its image
/// is written by the same script, after the ballast: an `<img>` in the
/// markup would be fetched by the preload scanner before the script ran.
fn with_ballast(image: &str) -> String {
    format!(
        "<script>self.ballast = new Uint8Array(256 << 20).fill(1); \
         document.write('{image}')</script>"
    )
}

/// Sends `pid` the signal `name` (`KILL`, `STOP`).
fn signal(pid: u32, name: &str) {
    let sent = Command::new("kill")
        .args([&format!("-{name}"), &pid.to_string()])
        .status()
        .unwrap();
    assert!(sent.success(), "kill -{name} {pid}");
}

/// What a killer's request does to the browser.
#[derive(Clone)]
pub(crate) enum Fault {
    /// SIGKILL of the browser process, as the OOM killer would.
    Kill,
    /// SIGSTOP: it hangs, as a browser the machine starves or a debugger
    /// holds.
    Stop,
    /// SIGKILL of the requesting page's renderer (a crash, or the OOM
    /// killer's pick); the browser lives on.
    KillRenderer,
    /// Every connection through the proxy in front of an attached
    /// browser's endpoint is closed; the browser lives on.
    Cut(Arc<Proxy>),
}

/// When a kill was made, by the clock and by the file system's time.
#[derive(Clone, Copy)]
pub(crate) struct Kill {
    pub(crate) at: Instant,
    wall: SystemTime,
}

/// The test's image server: a request for `/NAME.png` SIGKILLs the
/// browser, for the first `plan[NAME]` requests of that name, then answers.
/// The browser is `victim` when set, else the Chromium of the `pagesnap`
/// whose pid is in `parent`.
pub(crate) struct Killer {
    server: Server,
    /// Whether its pages hold [`with_ballast`] (the fault kills their renderer).
    ballast: bool,
    parent: Arc<AtomicU32>,
    victim: Arc<AtomicU32>,
    kills: Arc<Mutex<BTreeMap<String, Vec<Kill>>>>,
}

impl Killer {
    fn start(plan: &[(&str, usize)]) -> Killer {
        Killer::start_with(plan, Fault::Kill)
    }

    /// A killer whose requests make `fault` instead of a SIGKILL.
    pub(crate) fn start_with(plan: &[(&str, usize)], fault: Fault) -> Killer {
        let plan: BTreeMap<String, usize> = plan.iter().map(|&(n, k)| (n.to_owned(), k)).collect();
        let ballast = matches!(fault, Fault::KillRenderer);
        let parent = Arc::new(AtomicU32::new(0));
        let victim = Arc::new(AtomicU32::new(0));
        let kills: Arc<Mutex<BTreeMap<String, Vec<Kill>>>> = Arc::default();
        let seen: Mutex<BTreeMap<String, usize>> = Mutex::default();
        let (pid, target, made) = (Arc::clone(&parent), Arc::clone(&victim), Arc::clone(&kills));
        let server = Server::start(move |request| {
            let name = request
                .path
                .trim_start_matches('/')
                .trim_end_matches(".png")
                .to_owned();
            let nth = {
                let mut seen = seen.lock().unwrap();
                let count = seen.entry(name.clone()).or_default();
                *count += 1;
                *count
            };
            if nth <= plan.get(&name).copied().unwrap_or(0) {
                let chromium = || match target.load(Ordering::SeqCst) {
                    0 => chromium_of(pid.load(Ordering::SeqCst))
                        .expect("the page loads in a Chromium of the pagesnap the test spawned"),
                    victim => victim,
                };
                match &fault {
                    Fault::Kill => signal(chromium(), "KILL"),
                    Fault::Stop => signal(chromium(), "STOP"),
                    Fault::KillRenderer => signal(page_renderer_of(chromium()), "KILL"),
                    Fault::Cut(proxy) => proxy.cut(),
                }
                made.lock().unwrap().entry(name).or_default().push(Kill {
                    at: Instant::now(),
                    wall: SystemTime::now(),
                });
            }
            Reply::ok("")
        });
        Killer {
            server,
            ballast,
            parent,
            victim,
            kills,
        }
    }

    /// The kills made on `name`'s requests, in order.
    pub(crate) fn kills(&self, name: &str) -> Vec<Kill> {
        self.kills
            .lock()
            .unwrap()
            .get(name)
            .cloned()
            .unwrap_or_default()
    }
}

/// A page with a button; `image` names the killer's image it loads, if any.
fn page(title: &str, image: Option<(&Killer, &str)>) -> String {
    let image = image.map_or_else(String::new, |(killer, name)| {
        let image = format!(r#"<img alt="" src="{}/{name}.png">"#, killer.server.url());
        if killer.ballast {
            with_ballast(&image)
        } else {
            image
        }
    });
    format!(
        "<!doctype html><title>{title}</title><h1>{title}</h1>{image}\
         <button onclick=\"location.hash = '#done'\">Go</button>"
    )
}

/// Spawns `pagesnap ARGS` with its temp folder in `tmp` (its profiles are
/// made there), stdout and stderr piped, and tells `killer` its pid.
fn spawn(args: &[&str], tmp: &Path, killer: &Killer) -> Child {
    let child = Command::new(exe())
        .current_dir(root())
        .args(args)
        .env("TMPDIR", tmp)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    killer.parent.store(child.id(), Ordering::SeqCst);
    child
}

/// Reads the child's stdout as it comes, each line with the time it came.
fn lines_of(child: &mut Child) -> std::thread::JoinHandle<Vec<(Instant, String)>> {
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .map(|line| (Instant::now(), line))
            .collect()
    })
}

/// Waits for the child to end, within `guard` (a guard against a hang,
/// not a bound), and returns its exit code and stderr.
fn finish(mut child: Child, guard: Duration) -> (Option<i32>, String) {
    let mut stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        stderr.read_to_string(&mut text).unwrap();
        text
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > guard {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("pagesnap ran past {guard:?}: {}", reader.join().unwrap());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (status.code(), reader.join().unwrap())
}

/// Whether a process whose command line names `tmp` (a Chromium whose
/// profile is there, or one of its helpers) still runs.
pub(crate) fn chromium_runs(tmp: &Path) -> bool {
    Command::new("pgrep")
        .args(["-f", &tmp.display().to_string()])
        .output()
        .unwrap()
        .status
        .success()
}

/// Nothing the run started is left: no Chromium naming its temp folder, no
/// `pagesnap-chromium-*` profile there.
pub(crate) fn nothing_left(tmp: &Path) {
    until("its Chromiums gone", Duration::from_secs(5), || {
        !chromium_runs(tmp)
    });
    assert!(
        chromium_profiles(tmp).is_empty(),
        "profiles left: {:?}",
        chromium_profiles(tmp)
    );
}

/// The folder `dir/pages` with the four pages of a run: `a.html`, then `b`
/// (whose image kills the browser once), `c` (twice), and `d`.
fn pages(dir: &Path, killer: &Killer) -> PathBuf {
    pages_of(
        dir,
        killer,
        &[("a", false), ("b", true), ("c", true), ("d", false)],
    )
}

/// The folder `dir/pages` with a page per `(name, image)`, those with
/// `image` loading the killer's image of their name.
pub(crate) fn pages_of(dir: &Path, killer: &Killer, named: &[(&str, bool)]) -> PathBuf {
    let pages = dir.join("pages");
    std::fs::create_dir_all(&pages).unwrap();
    for &(name, image) in named {
        let text = page(name, image.then_some((killer, name)));
        std::fs::write(pages.join(format!("{name}.html")), text).unwrap();
    }
    pages
}

/// A `record --each` run over `pages` with `--timeout SECS`, to its end:
/// recordings in `dir/out`, the run's temp folder (its profiles) `dir/tmp`.
pub(crate) struct Recorded {
    pub(crate) out: PathBuf,
    pub(crate) tmp: PathBuf,
    pub(crate) code: Option<i32>,
    pub(crate) stderr: String,
    /// Each stdout line with the time it came.
    stdout: Vec<(Instant, String)>,
    /// Stdout and stderr, for failure messages.
    pub(crate) context: String,
}

impl Recorded {
    /// `pagesnap record --each PAGES --timeout TIMEOUT EXTRA…`.
    pub(crate) fn run(
        dir: &Path,
        pages: &Path,
        killer: &Killer,
        timeout: &str,
        extra: &[&str],
    ) -> Recorded {
        let out = dir.join("out");
        let tmp = dir.join("tmp");
        std::fs::create_dir_all(&tmp).unwrap();
        let mut args = vec![
            "record",
            "--each",
            pages.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--timeout",
            timeout,
        ];
        args.extend(extra);
        let mut child = spawn(&args, &tmp, killer);
        let stdout = lines_of(&mut child);
        let (code, stderr) = finish(child, Duration::from_secs(120));
        let stdout = stdout.join().unwrap();
        let text: Vec<&str> = stdout.iter().map(|(_, line)| line.as_str()).collect();
        let context = format!("stdout:\n{}\nstderr:\n{stderr}", text.join("\n"));
        Recorded {
            out,
            tmp,
            code,
            stderr,
            stdout,
            context,
        }
    }

    /// When each line saying `name.html` was recorded came.
    pub(crate) fn recorded(&self, name: &str) -> Vec<Instant> {
        let file = format!("{name}.html →");
        self.stdout
            .iter()
            .filter(|(_, line)| line.starts_with("recorded ") && line.contains(&file))
            .map(|(at, _)| *at)
            .collect()
    }
}

/// `record --each`: the page in flight when the browser is killed is
/// recorded on the browser started in its place, a page that kills it
/// twice is named and left, the next page is recorded on a fresh browser,
/// and the count and exit status say one failed. Measured 0.9–1.2 s from
/// each kill to the next page recorded, of their 6 s bounds (the `--timeout`
/// is 20 s); the browser started again in 0.31–0.35 s and the dead one
/// closed in 0.03–0.05 s; 5.3–5.6 s the whole test (release build, alone,
/// 2026-11-28; up to 3.8 s to the next page with other builds running).
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a wall-clock bound: scripts/test-bounded runs it alone against the release build"
)]
fn record_each_starts_a_browser_in_a_killed_ones_place_and_retries_the_page_once() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let killer = Killer::start(&[("b", 1), ("c", 2)]);
    let pages = pages(dir.path(), &killer);
    let started = Instant::now();
    let run = Recorded::run(dir.path(), &pages, &killer, "20", &[]);
    let whole = started.elapsed();
    let (out, stderr, context) = (&run.out, &run.stderr, &run.context);
    assert_eq!(run.code, Some(1), "{context}");
    assert!(stderr.contains("1 of 4 recordings failed"), "{context}");
    let (b, c) = (killer.kills("b"), killer.kills("c"));
    assert_eq!((b.len(), c.len()), (1, 2), "{context}");
    // Each page recorded once: b on the second try, c never, d after it.
    for name in ["a", "b", "d"] {
        assert_eq!(run.recorded(name).len(), 1, "{name}: {context}");
        assert!(out.join(format!("{name}.json.gz")).exists(), "{name}");
    }
    assert!(run.recorded("c").is_empty(), "{context}");
    assert!(!out.join("c.json.gz").exists());
    assert!(
        stderr.contains(
            "b.html: the browser died while recording it; started again, recorded on the second try"
        ),
        "{context}"
    );
    assert!(
        stderr.contains(
            "c.html: the browser died while recording it, twice (started again after the first; \
             not retried again)"
        ),
        "{context}"
    );
    assert!(stderr.contains("the browser is gone"), "{context}");
    // What was written before the first kill was not written again.
    let a_written = std::fs::metadata(out.join("a.json.gz"))
        .unwrap()
        .modified()
        .unwrap();
    assert!(a_written < b[0].wall, "a.json.gz was written again");
    within(
        "from the kill under b to b recorded on a new browser",
        run.recorded("b")[0] - b[0].at,
        Duration::from_secs(6),
        context,
    );
    within(
        "from the second kill under c to d recorded on a new browser",
        run.recorded("d")[0] - c[1].at,
        Duration::from_secs(6),
        context,
    );
    eprintln!("the whole record: {:.2} s", whole.as_secs_f64());
    nothing_left(&run.tmp);
}

/// `record --each` with a browser that stops answering (SIGSTOP while a page
/// loads, issue 58 item 3): it is taken for dead once it missed its pulses,
/// killed (it is pagesnap's own), started again, and the page is recorded
/// on the second try; the run goes on and nothing is left behind. The
/// bound is the pulse's (about 9 s from the last answer) plus a launch.
/// Measured 9.18 s from the stop to b recorded, 10.3 s the whole test
/// (release build, alone, 2026-11-29).
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a wall-clock bound: scripts/test-bounded runs it alone against the release build"
)]
fn record_each_replaces_a_browser_that_stopped_answering_and_retries_the_page() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let killer = Killer::start_with(&[("b", 1)], Fault::Stop);
    let pages = pages_of(
        dir.path(),
        &killer,
        &[("a", false), ("b", true), ("d", false)],
    );
    let run = Recorded::run(dir.path(), &pages, &killer, "30", &[]);
    let context = &run.context;
    assert_eq!(run.code, Some(0), "{context}");
    let stopped = killer.kills("b");
    assert_eq!(stopped.len(), 1, "{context}");
    for name in ["a", "b", "d"] {
        assert!(
            run.out.join(format!("{name}.json.gz")).exists(),
            "{name}: {context}"
        );
    }
    assert!(
        run.stderr.contains(
            "b.html: the browser died while recording it; started again, recorded on the second try"
        ),
        "{context}"
    );
    let b_recorded = *run
        .recorded("b")
        .first()
        .unwrap_or_else(|| panic!("b recorded: {context}"));
    within(
        "from the stop under b to b recorded on a new browser",
        b_recorded - stopped[0].at,
        Duration::from_secs(16),
        context,
    );
    nothing_left(&run.tmp);
}

/// `record --each` when the renderer of the page in flight is killed (the
/// browser lives on): that page fails at once, its line naming the crash,
/// the browser is not started again, and the next pages are recorded.
/// Measured 0.21 s from the kill to the next page recorded, 1.0 s the
/// whole test (release build, alone, 2026-11-29).
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a wall-clock bound: scripts/test-bounded runs it alone against the release build"
)]
fn record_each_names_a_killed_renderer_and_goes_on() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let killer = Killer::start_with(&[("b", 1)], Fault::KillRenderer);
    let pages = pages_of(
        dir.path(),
        &killer,
        &[("a", false), ("b", true), ("d", false)],
    );
    let run = Recorded::run(dir.path(), &pages, &killer, "30", &[]);
    let (out, stderr, context) = (&run.out, &run.stderr, &run.context);
    let killed = killer.kills("b");
    assert_eq!(killed.len(), 1, "{context}");
    assert!(
        out.join("a.json.gz").exists() && out.join("d.json.gz").exists(),
        "{context}"
    );
    let d_recorded = *run
        .recorded("d")
        .first()
        .unwrap_or_else(|| panic!("d recorded: {context}"));
    assert_eq!(run.code, Some(1), "{context}");
    assert!(!out.join("b.json.gz").exists(), "{context}");
    assert!(
        stderr.contains("b.html: the page's renderer crashed")
            && stderr.contains("1 of 3 recordings failed"),
        "{context}"
    );
    // The browser lived on: it was not started again.
    assert!(!stderr.contains("started again"), "{context}");
    within(
        "from the renderer killed under b to d recorded",
        d_recorded - killed[0].at,
        Duration::from_secs(6),
        context,
    );
    nothing_left(&run.tmp);
}

/// A browser of its own the test launches with a DevTools port and kills
/// by its pid, for `--cdp-endpoint`.
pub(crate) struct Attachable {
    pub(crate) child: Child,
    pub(crate) endpoint: String,
    _profile: tempfile::TempDir,
}

impl Attachable {
    pub(crate) fn start() -> Attachable {
        let profile = tempfile::tempdir().unwrap();
        let command = pagesnap_browser::BrowserCommand::new(false).unwrap();
        let child = Command::new(&command.executable)
            .args(&command.flags)
            .args(["--remote-debugging-port=0", "about:blank"])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let started = Instant::now();
        let port = loop {
            let text = std::fs::read_to_string(profile.path().join("DevToolsActivePort"))
                .unwrap_or_default();
            if let Some(port) = text.lines().next().filter(|l| !l.is_empty()) {
                break port.to_owned();
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "Chromium did not listen"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        Attachable {
            child,
            endpoint: format!("http://127.0.0.1:{port}"),
            _profile: profile,
        }
    }
}

impl Drop for Attachable {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `record --each --cdp-endpoint`: when the browser attached to dies, the
/// endpoint is tried again; nothing answers there, so the page in flight and
/// every page after it fail at once, naming the endpoint, instead of each
/// waiting out its `--timeout`. Measured 0.03–0.07 s from the kill to the
/// end of the run, of its 3 s bound (release build, alone, 2026-11-28).
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a wall-clock bound: scripts/test-bounded runs it alone against the release build"
)]
fn record_each_attached_fails_the_rest_at_once_when_its_browser_dies() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let browser = Attachable::start();
    let killer = Killer::start(&[("b", 1)]);
    killer.victim.store(browser.child.id(), Ordering::SeqCst);
    let pages = pages(dir.path(), &killer);
    let out = dir.path().join("out");
    let tmp = dir.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut child = Command::new(exe())
        .current_dir(root())
        .args(["record", "--each", pages.to_str().unwrap(), "--out"])
        .arg(&out)
        .args(["--timeout", "20", "--cdp-endpoint", &browser.endpoint])
        .env("TMPDIR", &tmp)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = lines_of(&mut child);
    let (code, stderr) = finish(child, Duration::from_secs(120));
    let ended = Instant::now();
    let stdout = stdout.join().unwrap();
    let context = format!("stdout: {stdout:?}\nstderr:\n{stderr}");
    let b = killer.kills("b");
    assert_eq!(b.len(), 1, "{context}");
    assert_eq!(code, Some(1), "{context}");
    assert!(stderr.contains("3 of 4 recordings failed"), "{context}");
    assert!(out.join("a.json.gz").exists(), "{context}");
    let again = format!("{} could not be attached to again", browser.endpoint);
    assert!(
        stderr.contains(&format!(
            "b.html: the browser died while recording it; {again}"
        )),
        "{context}"
    );
    for name in ["c", "d"] {
        assert!(
            stderr.contains(&format!("{name}.html: the browser died; {again}")),
            "{name}: {context}"
        );
    }
    within(
        "from the kill of the attached browser to the end of the run",
        ended - b[0].at,
        Duration::from_secs(3),
        &context,
    );
    assert!(chromium_profiles(&tmp).is_empty());
}

/// A live suite of four one-step tasks on the pages of [`pages`]: click Go.
fn suite(dir: &Path, pages: &Path) -> PathBuf {
    let mut text = format!(
        "[suite]\nname = \"browser-died\"\nsource = \"{}\"\nmax_steps = 2\nseeds = [0]\n",
        pages.display()
    );
    for name in ["a", "b", "c", "d"] {
        text.push_str(&format!(
            "\n[[task]]\nid = \"{name}\"\npage = \"{name}.html\"\n\
             instruction = \"Click the Go button\"\nsuccess = \"location.hash === '#done'\"\n\
             tier = \"easy\"\n"
        ));
    }
    let path = dir.join("suite.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// When each of the first `count` rows of `out/results.jsonl` came,
/// polled every 10 ms while the run goes (for 120 s at most).
fn rows_as_they_come(out: &Path, count: usize) -> std::thread::JoinHandle<Vec<Instant>> {
    let rows = out.join("results.jsonl");
    std::thread::spawn(move || {
        let mut came = Vec::new();
        let started = Instant::now();
        while came.len() < count && started.elapsed() < Duration::from_secs(120) {
            let lines = std::fs::read_to_string(&rows)
                .map(|text| text.matches('\n').count())
                .unwrap_or(0);
            while came.len() < lines {
                came.push(Instant::now());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        came
    })
}

/// A `live --strategy aria` run over the four pages' suite (`pages`,
/// `suite`) with `--timeout SECS`, to its end: its rows, when each came, and
/// the run's temp folder (its profiles) `dir/tmp`.
pub(crate) struct Lived {
    pub(crate) out: PathBuf,
    pub(crate) tmp: PathBuf,
    pub(crate) code: Option<i32>,
    /// When each of the four rows came.
    pub(crate) came: Vec<Instant>,
    rows: Vec<serde_json::Value>,
    /// The exit code, stderr and rows, for failure messages.
    pub(crate) context: String,
}

impl Lived {
    /// `pagesnap live` on the four pages of [`pages`] with `--timeout
    /// TIMEOUT EXTRA…`.
    pub(crate) fn run(dir: &Path, killer: &Killer, timeout: &str, extra: &[&str]) -> Lived {
        let pages = pages(dir, killer);
        let suite = suite(dir, &pages);
        let out = dir.join("out");
        let tmp = dir.join("tmp");
        std::fs::create_dir_all(&tmp).unwrap();
        let mut args = vec![
            "live",
            "--suite",
            suite.to_str().unwrap(),
            "--strategy",
            "aria",
            "--quiet",
            "--timeout",
            timeout,
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend(extra);
        let child = spawn(&args, &tmp, killer);
        let watcher = rows_as_they_come(&out, 4);
        let (code, stderr) = finish(child, Duration::from_secs(120));
        let came = watcher.join().unwrap();
        let rows = result_rows(&out);
        let context = format!("exit {code:?}\nstderr:\n{stderr}\nrows: {rows:#?}");
        Lived {
            out,
            tmp,
            code,
            came,
            rows,
            context,
        }
    }

    /// The rows by task.
    pub(crate) fn by_task(&self) -> BTreeMap<&str, &serde_json::Value> {
        self.rows
            .iter()
            .map(|r| (r["task"].as_str().unwrap(), r))
            .collect()
    }
}

/// `live`: the episode in flight when the worker's browser is killed runs
/// again on the browser started in its place and its row says
/// `browser_died: retried`; one that kills it twice ends in error marked
/// `twice`; the episodes after run on a fresh browser, and the run ends
/// well. Measured 0.9–1.4 s from the kill under b to b's row and 1.1–1.2 s
/// from the second kill under c to d's row, of their 6 s bounds (release
/// build, alone, 2026-11-28; up to 2.1 s with other builds running).
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a wall-clock bound: scripts/test-bounded runs it alone against the release build"
)]
fn live_starts_a_browser_in_a_killed_ones_place_and_retries_the_episode_once() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let killer = Killer::start(&[("b", 1), ("c", 2)]);
    let run = Lived::run(dir.path(), &killer, "20", &[]);
    let (came, context) = (&run.came, &run.context);
    assert_eq!(run.code, Some(0), "{context}");
    let by_task = run.by_task();
    assert_eq!(by_task.len(), 4, "{context}");
    for name in ["a", "d"] {
        assert_eq!(by_task[name]["success"], true, "{name}: {context}");
        assert!(by_task[name].get("browser_died").is_none(), "{context}");
    }
    assert_eq!(by_task["b"]["success"], true, "{context}");
    assert_eq!(by_task["b"]["browser_died"], "retried", "{context}");
    assert_eq!(by_task["c"]["success"], false, "{context}");
    assert_eq!(by_task["c"]["ended_by"], "error", "{context}");
    assert_eq!(by_task["c"]["browser_died"], "twice", "{context}");
    assert!(
        by_task["c"]["error"]
            .as_str()
            .unwrap()
            .contains("the browser is gone"),
        "{context}"
    );
    // The trace holds the row as results.jsonl has it.
    let trace = crate::support::read_json(
        &run.out
            .join(by_task["b"]["trace"].as_str().unwrap())
            .join("trace.json"),
    );
    assert_eq!(trace["browser_died"], "retried");
    let (b, c) = (killer.kills("b"), killer.kills("c"));
    assert_eq!((b.len(), c.len()), (1, 2), "{context}");
    // Rows come in task order with one worker: b's is the second, d's the fourth.
    within(
        "from the kill under b to b's row, run again on a new browser",
        came[1] - b[0].at,
        Duration::from_secs(6),
        context,
    );
    within(
        "from the second kill under c to d's row, on a new browser",
        came[3] - c[1].at,
        Duration::from_secs(6),
        context,
    );
    nothing_left(&run.tmp);
}

/// `live` with a browser that stops answering (SIGSTOP while an episode's
/// page loads): taken for dead after its missed pulses, killed, started
/// again, the episode retried and marked, the others untouched, nothing
/// left behind (issue 58 item 3). Measured 8.70 s from the stop to b's row,
/// 10.7 s the whole test (release build, alone, 2026-11-29).
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a wall-clock bound: scripts/test-bounded runs it alone against the release build"
)]
fn live_replaces_a_browser_that_stopped_answering_and_retries_the_episode() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let killer = Killer::start_with(&[("b", 1)], Fault::Stop);
    let run = Lived::run(dir.path(), &killer, "30", &[]);
    let (came, context) = (&run.came, &run.context);
    assert_eq!(run.code, Some(0), "{context}");
    let by_task = run.by_task();
    assert_eq!(by_task.len(), 4, "{context}");
    for name in ["a", "b", "c", "d"] {
        assert_eq!(by_task[name]["success"], true, "{name}: {context}");
    }
    assert_eq!(by_task["b"]["browser_died"], "retried", "{context}");
    for name in ["a", "c", "d"] {
        assert!(
            by_task[name].get("browser_died").is_none(),
            "{name}: {context}"
        );
    }
    let stopped = killer.kills("b");
    assert_eq!(stopped.len(), 1, "{context}");
    within(
        "from the stop under b to b's row, run again on a new browser",
        came[1] - stopped[0].at,
        Duration::from_secs(16),
        context,
    );
    nothing_left(&run.tmp);
}

/// `live` when the renderer of an episode's page is killed (the browser
/// lives on): that episode's row is an error naming the crash, with no
/// browser started again, and the other episodes succeed. Measured 0.33 s
/// from the kill to the next episode's row, 1.7 s the whole test (release
/// build, alone, 2026-11-29).
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a wall-clock bound: scripts/test-bounded runs it alone against the release build"
)]
fn live_names_a_killed_renderer_and_goes_on() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let killer = Killer::start_with(&[("b", 1)], Fault::KillRenderer);
    let run = Lived::run(dir.path(), &killer, "30", &[]);
    let (came, context) = (&run.came, &run.context);
    let by_task = run.by_task();
    assert_eq!(by_task.len(), 4, "{context}");
    for name in ["a", "c", "d"] {
        assert_eq!(by_task[name]["success"], true, "{name}: {context}");
    }
    assert_eq!(by_task["b"]["success"], false, "{context}");
    assert!(
        by_task["b"]["error"]
            .as_str()
            .is_some_and(|e| e.contains("renderer crashed")),
        "{context}"
    );
    for name in ["a", "b", "c", "d"] {
        assert!(
            by_task[name].get("browser_died").is_none(),
            "{name}: {context}"
        );
    }
    let killed = killer.kills("b");
    assert_eq!(killed.len(), 1, "{context}");
    within(
        "from the renderer killed under b to c's row",
        came[2] - killed[0].at,
        Duration::from_secs(6),
        context,
    );
    nothing_left(&run.tmp);
}

/// A `pagesnap bench-live` run over the four pages of [`pages`] (`--runs 1
/// --json`), or a `bench-mcp --json` run, with its JSON lines as they came.
pub(crate) struct BenchLived {
    pub(crate) tmp: PathBuf,
    pub(crate) code: Option<i32>,
    pub(crate) stderr: String,
    lines: Vec<(Instant, serde_json::Value)>,
    /// Stdout and stderr, for failure messages.
    pub(crate) context: String,
}

impl BenchLived {
    /// `pagesnap bench-live PAGES --runs 1 --json --timeout TIMEOUT EXTRA…`.
    pub(crate) fn run(dir: &Path, killer: &Killer, timeout: &str, extra: &[&str]) -> BenchLived {
        let pages = pages(dir, killer);
        let tmp = dir.join("tmp");
        std::fs::create_dir_all(&tmp).unwrap();
        let mut args = vec![
            "bench-live",
            pages.to_str().unwrap(),
            "--runs",
            "1",
            "--timeout",
            timeout,
            "--json",
        ];
        args.extend(extra);
        BenchLived::spawned(spawn(&args, &tmp, killer), tmp)
    }

    /// The run of `child` (a `bench-live` or `bench-mcp --json`) to its end.
    fn spawned(mut child: Child, tmp: PathBuf) -> BenchLived {
        let stdout = lines_of(&mut child);
        let (code, stderr) = finish(child, Duration::from_secs(120));
        let stdout = stdout.join().unwrap();
        let context = format!("exit {code:?}\nstdout: {stdout:#?}\nstderr:\n{stderr}");
        let lines = stdout
            .iter()
            .map(|(at, line)| (*at, serde_json::from_str(line).unwrap()))
            .collect();
        BenchLived {
            tmp,
            code,
            stderr,
            lines,
            context,
        }
    }

    /// The line of `name.html` and when it came.
    pub(crate) fn line_of(&self, name: &str) -> &(Instant, serde_json::Value) {
        let file = format!("{name}.html");
        self.lines
            .iter()
            .find(|(_, line)| line["page"].as_str().is_some_and(|p| p.ends_with(&file)))
            .unwrap_or_else(|| panic!("no line for {name}: {}", self.context))
    }
}

/// `bench-live`: the page the browser is killed under is reported failed,
/// as before, and the next pages are measured on a browser started in its
/// place (before, each failed at once as browser-gone). Measured 1.1–1.8 s
/// from the kill to c measured, of its 6 s bound (release build, alone,
/// 2026-11-28).
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a wall-clock bound: scripts/test-bounded runs it alone against the release build"
)]
fn bench_live_measures_the_next_pages_on_a_browser_started_in_a_killed_ones_place() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let killer = Killer::start(&[("b", 1)]);
    let run = BenchLived::run(dir.path(), &killer, "20", &[]);
    let context = &run.context;
    assert_eq!(run.code, Some(1), "{context}");
    assert!(run.stderr.contains("1 of 4 pages failed"), "{context}");
    let line_of = |name| run.line_of(name);
    assert!(
        line_of("b").1["error"]
            .as_str()
            .unwrap()
            .contains("the browser is gone"),
        "{context}"
    );
    for name in ["a", "c", "d"] {
        assert!(line_of(name).1.get("error").is_none(), "{name}: {context}");
    }
    let b = killer.kills("b");
    assert_eq!(b.len(), 1, "{context}");
    within(
        "from the kill under b to c measured on a new browser",
        line_of("c").0 - b[0].at,
        Duration::from_secs(6),
        context,
    );
    nothing_left(&run.tmp);
}

/// `bench-live` with a browser that stops answering (SIGSTOP while a page
/// loads): taken for dead after its missed pulses, killed and started again;
/// the page is reported failed (its timings would mix two browsers) and the
/// next pages are measured on the new browser, nothing left behind.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a wall-clock bound: scripts/test-bounded runs it alone against the release build"
)]
fn bench_live_replaces_a_browser_that_stopped_answering() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let killer = Killer::start_with(&[("b", 1)], Fault::Stop);
    let run = BenchLived::run(dir.path(), &killer, "30", &[]);
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
    let b = killer.kills("b");
    assert_eq!(b.len(), 1, "{context}");
    within(
        "from the stop under b to c measured on a new browser",
        run.line_of("c").0 - b[0].at,
        Duration::from_secs(16),
        context,
    );
    nothing_left(&run.tmp);
}

/// A `pagesnap bench-mcp` run (pagesnap's server alone, `--runs 1 --json`)
/// over `a`, `b` (whose image makes the killer's fault once), `c` and `d`,
/// checked to have measured a, c and d and left nothing behind: the run and
/// the fault made under b.
fn bench_mcp_with(fault: Fault) -> (BenchLived, Kill) {
    let dir = tempfile::tempdir().unwrap();
    let killer = Killer::start_with(&[("b", 1)], fault);
    let pages = pages_of(
        dir.path(),
        &killer,
        &[("a", false), ("b", true), ("c", false), ("d", false)],
    );
    let tmp = dir.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let args = [
        "bench-mcp",
        pages.to_str().unwrap(),
        "--runs",
        "1",
        "--call-timeout",
        "30",
        "--json",
    ];
    let run = BenchLived::spawned(spawn(&args, &tmp, &killer), tmp);
    let b = killer.kills("b");
    assert_eq!(b.len(), 1, "{}", run.context);
    assert_eq!(run.code, Some(1), "{}", run.context);
    assert!(
        run.stderr.contains("1 of 4 pages failed"),
        "{}",
        run.context
    );
    for name in ["a", "c", "d"] {
        assert_eq!(
            run.line_of(name).1["servers"][0]["side"],
            "pagesnap",
            "{name}: {}",
            run.context
        );
    }
    nothing_left(&run.tmp);
    (run, b[0])
}

/// `bench-mcp` when the browser pagesnap's server launched is killed under
/// a page: that page is reported failed for the server (`browser-gone`),
/// the server is started afresh with a browser of its own, and the next
/// pages are measured on it; nothing is left behind.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a wall-clock bound: scripts/test-bounded runs it alone against the release build"
)]
fn bench_mcp_starts_its_server_afresh_after_its_browser_is_killed() {
    let _alone = alone();
    let (run, killed) = bench_mcp_with(Fault::Kill);
    let context = &run.context;
    assert!(
        run.line_of("b").1["error"]
            .as_str()
            .is_some_and(|e| e.contains("browser-gone")),
        "{context}"
    );
    within(
        "from the kill under b to c measured by a server started afresh",
        run.line_of("c").0 - killed.at,
        Duration::from_secs(6),
        context,
    );
}

/// `bench-mcp` when that browser stops answering (SIGSTOP): the server takes
/// it for dead after its missed pulses and the page fails naming it; the
/// next pages are measured by a server started afresh.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a wall-clock bound: scripts/test-bounded runs it alone against the release build"
)]
fn bench_mcp_starts_its_server_afresh_after_its_browser_stopped_answering() {
    let _alone = alone();
    let (run, stopped) = bench_mcp_with(Fault::Stop);
    let context = &run.context;
    assert!(
        run.line_of("b").1["error"]
            .as_str()
            .is_some_and(|e| e.contains("browser-gone")),
        "{context}"
    );
    within(
        "from the stop under b to c measured by a server started afresh",
        run.line_of("c").0 - stopped.at,
        Duration::from_secs(16),
        context,
    );
}

/// `bench-mcp` when the page's renderer is killed: that page fails naming
/// the crash (`tab-gone`), the browser lives on, the next pages are
/// measured.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a wall-clock bound: scripts/test-bounded runs it alone against the release build"
)]
fn bench_mcp_names_a_killed_renderer_and_goes_on() {
    let _alone = alone();
    let (run, killed) = bench_mcp_with(Fault::KillRenderer);
    let context = &run.context;
    assert!(
        run.line_of("b").1["error"]
            .as_str()
            .is_some_and(|e| e.contains("tab-gone")),
        "{context}"
    );
    within(
        "from the renderer killed under b to c measured",
        run.line_of("c").0 - killed.at,
        Duration::from_secs(6),
        context,
    );
}

/// `bench-live` when the page's renderer is killed: that page is reported
/// failed naming the crash, the browser lives on (not started again), the
/// next pages are measured.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a wall-clock bound: scripts/test-bounded runs it alone against the release build"
)]
fn bench_live_names_a_killed_renderer_and_goes_on() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let killer = Killer::start_with(&[("b", 1)], Fault::KillRenderer);
    let run = BenchLived::run(dir.path(), &killer, "20", &[]);
    let context = &run.context;
    assert_eq!(run.code, Some(1), "{context}");
    assert!(run.stderr.contains("1 of 4 pages failed"), "{context}");
    assert!(
        run.line_of("b").1["error"]
            .as_str()
            .is_some_and(|e| e.contains("renderer crashed")),
        "{context}"
    );
    for name in ["a", "c", "d"] {
        assert!(
            run.line_of(name).1.get("error").is_none(),
            "{name}: {context}"
        );
    }
    let killed = killer.kills("b");
    assert_eq!(killed.len(), 1, "{context}");
    within(
        "from the renderer killed under b to c measured",
        run.line_of("c").0 - killed[0].at,
        Duration::from_secs(6),
        context,
    );
    nothing_left(&run.tmp);
}

/// `live` through a tool server (`mcp:pagesnap`, attached to a browser the
/// run launched for it): when that browser is killed under an episode, the
/// server is stopped, the browser started again and the server anew on it,
/// and the episode runs once more (`browser_died: retried`). Measured 1.95 s
/// from the kill to the row, of its 6 s bound (release build, alone,
/// 2026-11-28).
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a wall-clock bound: scripts/test-bounded runs it alone against the release build"
)]
fn live_through_a_tool_server_starts_its_browser_and_server_again() {
    let _alone = alone();
    let dir = tempfile::tempdir().unwrap();
    let killer = Killer::start(&[("b", 1)]);
    let pages = pages(dir.path(), &killer);
    let suite = suite(dir.path(), &pages);
    let out = dir.path().join("out");
    let tmp = dir.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let child = spawn(
        &[
            "live",
            "--suite",
            suite.to_str().unwrap(),
            "--strategy",
            "mcp:pagesnap",
            "--agent",
            "reader",
            "--quiet",
            "--timeout",
            "20",
            "--out",
            out.to_str().unwrap(),
        ],
        &tmp,
        &killer,
    );
    let watcher = rows_as_they_come(&out, 4);
    let (code, stderr) = finish(child, Duration::from_secs(120));
    let came = watcher.join().unwrap();
    let rows = result_rows(&out);
    let context = format!("stderr:\n{stderr}\nrows: {rows:#?}");
    assert_eq!(code, Some(0), "{context}");
    let b = killer.kills("b");
    assert_eq!(b.len(), 1, "{context}");
    let by_task: BTreeMap<&str, &serde_json::Value> = rows
        .iter()
        .map(|r| (r["task"].as_str().unwrap(), r))
        .collect();
    assert_eq!(by_task.len(), 4, "{context}");
    for (task, row) in &by_task {
        assert!(row["error"].is_null(), "{task}: {context}");
        let died = row.get("browser_died");
        if *task == "b" {
            assert_eq!(died, Some(&serde_json::json!("retried")), "{context}");
        } else {
            assert!(died.is_none(), "{task}: {context}");
        }
    }
    within(
        "from the kill under b to b's row, its browser and server started again",
        came[1] - b[0].at,
        Duration::from_secs(6),
        &context,
    );
    nothing_left(&tmp);
}
