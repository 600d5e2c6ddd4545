//! `report.html` in real headless Chromium: no console errors, the SVG charts render, page-derived markup stays text.

use crate::support::root;

use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chromiumoxide::browser::{Browser, BrowserConfig};
use chromiumoxide::cdp::browser_protocol::log::{EnableParams as LogEnable, EventEntryAdded};
use chromiumoxide::cdp::js_protocol::runtime::{EventConsoleApiCalled, EventExceptionThrown};
use chromiumoxide::page::ScreenshotParams;
use futures::{FutureExt, StreamExt};

const IMG: &str = r#"<img src=x onerror="document.title='pwned'">"#;
const SCRIPT: &str = "</title></td><script>document.title='pwned'</script>";

/// A suite whose name, description, task id, instruction, target and value carry markup.
fn hostile_suite() -> String {
    format!(
        "[suite]\nname = '''xss {SCRIPT}'''\ndescription = '''{IMG}'''\n\n\
         [[task]]\nid = '''{IMG}'''\ninstruction = '''Click {IMG} then {SCRIPT}'''\n\
         [[task.step]]\nrecording = \"login/initial\"\nop = \"click\"\n\
         target = {{ selector = '''#sign-in:not([data-x=\"{SCRIPT}\"])''' }}\n\
         [[task.step]]\nrecording = \"login/fill\"\nop = \"type\"\n\
         target = {{ selector = \"#username\" }}\nvalue = '''{IMG}'''\n\n\
         [[task]]\nid = \"plain\"\ninstruction = \"Click the Sign in button\"\n\
         [[task.step]]\nrecording = \"login/initial\"\nop = \"click\"\n\
         target = {{ role = \"button\", name = \"Sign in\" }}\n"
    )
}

#[derive(Debug, serde::Deserialize)]
struct Dom {
    title: String,
    svgs: usize,
    charts: Vec<String>,
    images: usize,
    scripts: usize,
    text: String,
    grid_cells: usize,
    boxes: usize,
    points: usize,
}

#[derive(Debug, serde::Deserialize)]
struct StepDom {
    title: String,
    scripts: usize,
    images: Vec<String>,
    observation: String,
    raw: String,
    text: String,
}

/// What the test logs once it is done with the page.
const END: &str = "pagesnap-test: end of events";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn report_html_renders_charts_and_keeps_page_markup_inert() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("hostile.toml");
    std::fs::write(&suite, hostile_suite()).unwrap();
    let out = dir.path().join("run");
    let output = Command::new(crate::support::exe())
        .current_dir(root())
        .args(["run", "--suite"])
        .arg(&suite)
        .arg("--fixtures")
        .arg(root().join("fixtures"))
        .args(["--strategy", "aria,flat,som", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let html_path = out.join("report.html");
    let html = std::fs::read_to_string(&html_path).unwrap();
    assert!(
        !html.contains("<img") && !html.contains("<script"),
        "raw markup in report.html"
    );
    // report.md escapes too.
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        !md.contains("<img") && !md.contains("<script"),
        "raw markup in report.md"
    );

    // pagesnap's own launch, with a wide window for the screenshot.
    let command = pagesnap_browser::BrowserCommand::new(false).unwrap();
    let profile = tempfile::tempdir().unwrap();
    let config = BrowserConfig::builder()
        .chrome_executable(&command.executable)
        .user_data_dir(profile.path())
        .disable_default_args()
        .args(
            (command.flags.iter().copied())
                .chain(["--window-size=1300,1000"])
                .map(|flag| flag.trim_start_matches("--")),
        )
        .viewport(None)
        .launch_timeout(Duration::from_secs(30))
        .build()
        .unwrap();
    let (mut browser, mut handler) = Browser::launch(config).await.unwrap();
    let driver = tokio::spawn(async move { while handler.next().await.is_some() {} });

    let page = browser.new_page("about:blank").await.unwrap();
    page.execute(LogEnable::default()).await.unwrap();
    let problems: Arc<Mutex<Vec<String>>> = Arc::default();
    let mut exceptions = page.event_listener::<EventExceptionThrown>().await.unwrap();
    let mut console = page
        .event_listener::<EventConsoleApiCalled>()
        .await
        .unwrap();
    let mut log = page.event_listener::<EventEntryAdded>().await.unwrap();
    let sink = Arc::clone(&problems);
    // Collects every problem until the page logs END: CDP delivers events in
    // the order Chromium sent them, so by then every earlier one sits in its
    // stream, and is drained before the watcher ends.
    let watcher = tokio::spawn(async move {
        loop {
            let problem = tokio::select! {
                Some(e) = exceptions.next() => format!("exception: {:?}", e.exception_details),
                Some(e) = console.next() => {
                    if format!("{:?}", e.args).contains(END) {
                        break;
                    }
                    format!("console.{:?}: {:?}", e.r#type, e.args)
                }
                Some(e) = log.next() => format!("log {:?}: {}", e.entry.level, e.entry.text),
                else => break,
            };
            sink.lock().unwrap().push(problem);
        }
        let mut sink = sink.lock().unwrap();
        while let Some(Some(e)) = exceptions.next().now_or_never() {
            sink.push(format!("exception: {:?}", e.exception_details));
        }
        while let Some(Some(e)) = log.next().now_or_never() {
            sink.push(format!("log {:?}: {}", e.entry.level, e.entry.text));
        }
    });

    let url = format!("file://{}", html_path.display());
    page.goto(url).await.unwrap();
    page.wait_for_navigation().await.unwrap();
    let dom: Dom = page
        .evaluate(
            "({ title: document.title, svgs: document.querySelectorAll('svg').length,
                charts: [...document.querySelectorAll('svg[id]')].map(s => s.id),
                images: document.querySelectorAll('img').length,
                scripts: document.scripts.length,
                text: document.body.innerText,
                grid_cells: document.querySelectorAll('#task-grid td.pass, #task-grid td.part, #task-grid td.fail').length,
                boxes: document.querySelectorAll('svg g.box rect').length,
                points: document.querySelectorAll('#chart-pareto circle').length })",
        )
        .await
        .unwrap()
        .into_value()
        .unwrap();

    // Issue 18: every step is one click away, and the page it opens shows
    // what the agent saw and answered, with page markup still inert.
    let links: Vec<String> = page
        .evaluate("[...document.querySelectorAll('#task-grid a, #failed a')].map(a => a.href)")
        .await
        .unwrap()
        .into_value()
        .unwrap();
    assert!(links.len() >= 2 * 3, "{links:?}");
    for link in &links {
        let path = link.strip_prefix("file://").expect("a file link");
        assert!(Path::new(path).is_file(), "{link} is not on disk");
    }
    let som_step = links
        .iter()
        .find(|l| l.contains("/som/step-1.html") && !l.contains("/plain/"))
        .expect("a som step page")
        .clone();
    page.goto(som_step).await.unwrap();
    page.wait_for_navigation().await.unwrap();
    let step: StepDom = page
        .evaluate(
            "({ title: document.title, scripts: document.scripts.length,
                images: [...document.images].map(i => i.id + ':' + (i.naturalWidth > 0)),
                observation: document.querySelector('#observation')?.innerText ?? '',
                raw: document.querySelector('#raw')?.innerText ?? '',
                text: document.body.innerText })",
        )
        .await
        .unwrap()
        .into_value()
        .unwrap();

    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report_html.png");
    let png = page
        .screenshot(ScreenshotParams::builder().full_page(true).build())
        .await
        .unwrap();
    std::fs::write(&shot, &png).unwrap();
    eprintln!("screenshot: {}", shot.display());
    // Every event sent before END is collected before the browser closes.
    page.evaluate(format!("console.log({END:?})"))
        .await
        .unwrap();
    tokio::time::timeout(Duration::from_secs(30), watcher)
        .await
        .expect("the watcher saw END")
        .unwrap();
    browser.close().await.unwrap();
    let _ = browser.wait().await;
    driver.abort();

    assert_eq!(
        dom.title,
        format!("pagesnap run: suite xss {SCRIPT}"),
        "title unchanged"
    );
    assert_eq!(dom.images, 0, "no injected <img>");
    assert_eq!(dom.scripts, 0, "no <script> at all");
    assert_eq!(dom.svgs, 3);
    assert_eq!(
        dom.charts,
        [
            "chart-pareto",
            "chart-engine-latency",
            "chart-agent-latency"
        ]
    );
    assert_eq!(dom.points, 3, "one point per strategy");
    assert_eq!(dom.boxes, 6, "one box per strategy in each latency chart");
    assert_eq!(dom.grid_cells, 2 * 3, "tasks × strategies");
    // The markup is shown as text, once escaped (not double-escaped).
    assert!(dom.text.contains(IMG), "{}", dom.text);
    assert!(
        dom.text.contains("xss </title></td><script>"),
        "{}",
        dom.text
    );
    assert!(!dom.text.contains("&lt;"), "double-escaped");
    assert_eq!(step.scripts, 0, "no <script> in a step page");
    assert_eq!(
        step.images,
        ["screenshot:true"],
        "only the som screenshot, loaded"
    );
    assert!(step.observation.contains("[1]"), "{}", step.observation);
    assert!(step.raw.contains("\"op\""), "{}", step.raw);
    assert!(step.title.contains("som · step 1"), "{}", step.title);
    assert!(
        step.text.contains(IMG),
        "the task id shows as text: {}",
        step.text
    );
    let problems = problems.lock().unwrap();
    assert!(problems.is_empty(), "console errors: {problems:?}");
    assert!(
        png.len() > 10_000 && png.starts_with(b"\x89PNG"),
        "screenshot"
    );
}
