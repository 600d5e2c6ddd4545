//! The live path in real Chromium: live observations equal rendering a recording of the same state on every fixture site, `bench-live --json` has its documented shape (a page that never loads, a closed tab and a crashed renderer are in `tests/bounded/limits.rs`).

use std::path::Path;
use std::time::Duration;

use pagesnap_browser::{
    self as capture, Chromium, ChromiumSession, Needs, OpenOptions, Source, WaitFor,
};
use pagesnap_engine::observation::Observation;
use pagesnap_engine::strategy::{Options, STRATEGIES};
use pagesnap_harness::{observe, store};

use crate::support::{install_playwright, pagesnap, require_tool, root, stderr, stdout};

/// Renders every strategy from what `record` writes for the tab's current
/// state, then observes the same state live, and compares text, refs and meta.
/// Live, `flat` and `som` are observed afresh (a capture without and with a
/// screenshot, as the live runner takes them), the others as the tool server
/// observes them: rendering a capture the page still shows again. Returns how
/// many of those were rendered from a kept capture.
async fn compare_state(session: &mut ChromiumSession, label: &str, dir: &Path) -> usize {
    let captured = session.capture().await.unwrap();
    let stem = dir.join(label.replace('/', "_"));
    let screenshot = captured.screenshot.as_deref().unwrap();
    let (path, _) = store::write(&stem, &captured.recording, screenshot).unwrap();
    let loaded = store::load(&path).unwrap();
    let analysed = observe::analyze(&loaded.recording);
    let mut kept = None;
    let mut reused = 0;
    for strategy in STRATEGIES {
        let options = Options {
            screenshot: loaded.screenshot.as_deref(),
            ..Options::default()
        };
        let recorded: Observation = observe::render(&analysed.page, *strategy, &options)
            .observation
            .unwrap();
        let fail =
            |err: pagesnap_browser::Error| -> ! { panic!("{label} {}: {err:#}", strategy.name()) };
        let live = if matches!(strategy.name(), "flat" | "som") {
            let live = session
                .observe(*strategy, &Options::default())
                .await
                .unwrap_or_else(|err| fail(err));
            assert_eq!(
                live.captured.screenshot.is_some(),
                strategy.needs_screenshot(),
                "{label} {}: a screenshot only when the strategy reads one",
                strategy.name()
            );
            assert!(
                live.captured.recording.ax.nodes(label).unwrap().is_empty(),
                "{label}: a live observation does not fetch the accessibility oracle"
            );
            live.observation
        } else {
            let (observation, source) = session
                .observe_kept(*strategy, &Options::default(), &mut kept)
                .await
                .unwrap_or_else(|err| fail(err));
            reused += usize::from(matches!(source, Source::Reused { .. }));
            observation
        };
        assert_eq!(
            live.text,
            recorded.text,
            "{label} {}: live text differs from the recorded render",
            strategy.name()
        );
        let refs = |o: &Observation| -> Vec<String> {
            o.meta
                .items
                .iter()
                .map(|item| item.reference.clone())
                .collect()
        };
        assert_eq!(
            refs(&live),
            refs(&recorded),
            "{label} {}: refs",
            strategy.name()
        );
        assert_eq!(
            serde_json::to_value(&live.meta).unwrap(),
            serde_json::to_value(&recorded.meta).unwrap(),
            "{label} {}: meta",
            strategy.name()
        );
    }
    reused
}

#[test]
fn live_observations_equal_recorded_renders_on_every_fixture_site() {
    let root = root();
    let manifest: toml::Value = std::fs::read_to_string(root.join("fixtures/manifest.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    // Pages with frames from another site are served, as `record` serves them.
    let server =
        pagesnap_harness::live::server::Server::start(&root.join("fixtures/sites")).unwrap();
    let runtime = capture::runtime().unwrap();
    let mut sites = std::collections::BTreeSet::new();
    let mut states = 0;
    let mut reused = 0;
    runtime.block_on(async {
        let chromium = Chromium::launch(false).await.unwrap();
        for entry in manifest["recording"].as_array().unwrap() {
            let field = |key: &str| entry.get(key).and_then(toml::Value::as_str);
            let site = field("site").unwrap();
            let page = field("page").unwrap_or("index.html");
            let name = field("name").unwrap();
            let (width, height) = field("viewport")
                .and_then(|v| v.split_once('x'))
                .map_or((1280, 720), |(w, h)| {
                    (w.parse().unwrap(), h.parse().unwrap())
                });
            let options = OpenOptions {
                width,
                height,
                scroll_y: entry.get("scroll_y").and_then(toml::Value::as_float),
                wait_for: field("wait_for").map(WaitFor::parse),
                // This test bounds no time: in the debug build, on a loaded
                // machine, data_table's capture (27,000 rows) took over 30 s.
                timeout: Duration::from_secs(120),
                ..OpenOptions::default()
            };
            let target = if entry.get("served").and_then(toml::Value::as_bool) == Some(true) {
                server.url(&format!("{site}/{page}"))
            } else {
                root.join("fixtures/sites")
                    .join(site)
                    .join(page)
                    .display()
                    .to_string()
            };
            let mut session = chromium.open(&target, &options).await.unwrap();
            let label = format!("{site}/{name}");
            reused += compare_state(&mut session, &label, dir.path()).await;
            states += 1;
            let steps = entry.get("then").and_then(toml::Value::as_array);
            for (k, step) in steps.into_iter().flatten().enumerate() {
                let action =
                    pagesnap_harness::record::steps::parse(step.as_str().unwrap()).unwrap();
                session.apply(&action).await.unwrap();
                reused +=
                    compare_state(&mut session, &format!("{label}.step{}", k + 1), dir.path())
                        .await;
                states += 1;
            }
            session.close().await;
            sites.insert(site.to_owned());
        }
        chromium.close().await.unwrap();
    });
    // The pages of `dialogs`, `actions` and `sessions` exist to be acted on
    // (their dialogs, drags, uploads and cookies are what the MCP and live
    // tests check), and `hidden_text`'s are measured live by `bench-hidden`
    // (tests/harness/hidden.rs); they have no recordings.
    const ACTED_ON_ONLY: [&str; 4] = ["actions", "dialogs", "sessions", "hidden_text"];
    let fixture_sites = std::fs::read_dir(root.join("fixtures/sites"))
        .unwrap()
        .filter(|entry| {
            let name = entry.as_ref().unwrap().file_name();
            !ACTED_ON_ONLY.contains(&name.to_str().unwrap())
        })
        .count();
    assert_eq!(sites.len(), fixture_sites, "every fixture site is compared");
    assert!(
        states > sites.len(),
        "steps are compared too ({states} states)"
    );
    // The kept capture is rendered again where the page held still (not
    // on every state: a page that animates is captured anew).
    assert!(
        reused > states,
        "{reused} renders of a kept capture in {states} states"
    );
}

#[test]
fn bench_live_json_has_one_object_per_page_and_a_summary_per_strategy() {
    let root = root();
    require_tool("node");
    require_tool("npm");
    install_playwright(&root.join("scripts/playwright"));
    let pages = [
        "fixtures/sites/login/index.html",
        "fixtures/sites/selects/index.html",
    ];
    let mut args = vec!["bench-live"];
    args.extend(pages);
    args.extend([
        "--strategy",
        "aria,som",
        "--runs",
        "2",
        "--json",
        "--vs-playwright",
        "--cold",
        "1",
    ]);
    let output = pagesnap(&args);
    assert!(output.status.success(), "{}", stderr(&output));
    let lines: Vec<serde_json::Value> = stdout(&output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), pages.len() * 2 + 2, "{lines:#?}");
    let number = |v: &serde_json::Value, key: &str| {
        v[key]
            .as_f64()
            .unwrap_or_else(|| panic!("{key} is not a number in {v}"))
    };
    for (k, line) in lines[..pages.len() * 2].iter().enumerate() {
        assert_eq!(line["page"], pages[k / 2]);
        assert_eq!(line["strategy"], ["aria", "som"][k % 2]);
        assert!(line["elements"].as_u64().unwrap() > 10);
        for key in [
            "first_ms",
            "capture_ms",
            "engine_ms",
            "playwright_first_ms",
            "ratio",
        ] {
            assert!(number(line, key) > 0.0, "{key} in {line}");
        }
        for (key, runs) in [
            ("warm_ms", 2),
            ("playwright_warm_ms", 2),
            ("cold_ms", 1),
            ("playwright_cold_ms", 1),
        ] {
            let runs_found = line[key].as_array().unwrap();
            assert_eq!(runs_found.len(), runs, "{key} in {line}");
            let runs = runs_found;
            assert!(runs.iter().all(|v| v.as_f64().unwrap() > 0.0));
        }
        let calls = line["calls"].as_object().unwrap();
        assert!(calls.contains_key("DOMSnapshot.captureSnapshot"));
        assert_eq!(
            calls.contains_key("Page.captureScreenshot"),
            line["strategy"] == "som",
            "only som takes a screenshot: {line}"
        );
        assert!(!calls.contains_key("Accessibility.getFullAXTree"));
    }
    for (line, strategy) in lines[pages.len() * 2..].iter().zip(["aria", "som"]) {
        assert_eq!(line["summary"], true);
        assert_eq!(line["strategy"], strategy);
        assert_eq!(line["pages"], 2);
        assert_eq!(line["failed"], 0);
        for key in [
            "median_first_ms",
            "median_warm_ms",
            "p90_warm_ms",
            "playwright_median_warm_ms",
            "median_ratio",
            "p90_ratio",
            "median_cold_ms",
            "playwright_median_cold_ms",
        ] {
            assert!(number(line, key) > 0.0, "{key} in {line}");
        }
        assert_eq!(line["largest"]["page"], "fixtures/sites/selects/index.html");
        assert!(line["playwright"].as_str().unwrap().starts_with("1."));
    }
}

#[test]
fn bench_live_names_a_page_that_fails_and_keeps_the_others() {
    let output = pagesnap(&[
        "bench-live",
        "fixtures/sites/login/index.html",
        "http://127.0.0.1:9/",
        "--runs",
        "1",
        "--json",
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let lines: Vec<serde_json::Value> = stdout(&output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines[0]["page"], "fixtures/sites/login/index.html");
    assert_eq!(lines[1]["page"], "http://127.0.0.1:9/");
    assert!(
        lines[1]["error"].as_str().unwrap().contains("127.0.0.1:9"),
        "{}",
        lines[1]
    );
    assert_eq!(lines[2]["summary"], true);
    assert_eq!(lines[2]["pages"], 1);
    assert_eq!(lines[2]["failed"], 1);
}

#[test]
fn snapshot_observes_a_live_page_like_its_saved_recording() {
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().to_str().unwrap();
    let live = pagesnap(&[
        "snapshot",
        "fixtures/sites/selects/index.html",
        "--strategy",
        "flat",
        "--save",
        save,
    ]);
    assert!(live.status.success(), "{}", stderr(&live));
    assert!(stderr(&live).contains("saved"), "{}", stderr(&live));
    let saved = dir.path().join("index.json.gz");
    let recorded = pagesnap(&["snapshot", saved.to_str().unwrap(), "--strategy", "flat"]);
    assert!(recorded.status.success(), "{}", stderr(&recorded));
    assert_eq!(stdout(&live), stdout(&recorded));
    assert!(stdout(&live).contains("[1]"), "{}", stdout(&live));
    let recording = store::read(&saved).unwrap();
    assert!(
        !recording.ax.nodes("saved").unwrap().is_empty(),
        "--save keeps the accessibility oracle"
    );
    assert!(dir.path().join("index.png").is_file());

    let missing = pagesnap(&["snapshot", "fixtures/sites/nope.html"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        stderr(&missing).contains("fixtures/sites/nope.html"),
        "{}",
        stderr(&missing)
    );
}

/// `Needs::observe` follows the strategy (`snapshot --save` shows what recording takes).
#[test]
fn needs_follow_the_strategy() {
    for strategy in STRATEGIES {
        let needs = Needs::observe(*strategy);
        assert_eq!(needs.screenshot.is_some(), strategy.name() == "som");
        assert!(!needs.oracle && !needs.stable_counts);
    }
}

/// `record --then` steps and live episodes act through one actuator: the same
/// steps, given as selectors to [`ChromiumSession::apply`] and as nodes to
/// [`ChromiumSession::perform`], leave two tabs in the same state; a step a
/// user could not perform (a covered button) fails naming what covers it.
#[test]
fn scripted_steps_and_live_actions_act_alike() {
    use pagesnap_browser::{Outcome, Step, UserAction};
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("form.html");
    std::fs::write(
        &html,
        r#"<input id=t value=old><select id=c><option value=fr>France</option><option value=de>Germany</option></select>
           <button id=add onclick="const li=document.createElement('li');li.textContent=document.getElementById('t').value+'/'+document.getElementById('c').value;document.getElementById('l').append(li)">Add</button><ul id=l></ul>
           <div style="position:relative"><button id=hidden-behind>Behind</button><div id=veil style="position:absolute;inset:0;background:#fff">veil</div></div>
           <div style="height:3000px"></div>"#,
    )
    .unwrap();
    let page = html.to_str().unwrap();
    let steps = [
        Step::Type("#t".into(), "milk".into()),
        // The live actuator's select is forgiving of spacing and case.
        Step::Select("#c".into(), " germany ".into()),
        Step::Click("#add".into()),
        Step::Scroll(400.0),
    ];
    let aria = pagesnap_engine::strategy::by_name("aria").unwrap();
    let runtime = capture::runtime().unwrap();
    runtime.block_on(async {
        let chromium = Chromium::launch(false).await.unwrap();
        let options = OpenOptions::default();
        let mut scripted = chromium.open(page, &options).await.unwrap();
        for step in &steps {
            scripted.apply(step).await.unwrap();
        }
        let mut live = chromium.open(page, &options).await.unwrap();
        for step in &steps {
            let node = |selector: &str| {
                let live = &live;
                let selector = selector.to_owned();
                async move { live.node_of(&selector).await.unwrap() }
            };
            let action = match step {
                Step::Type(s, text) => UserAction::Type {
                    backend_id: Some(node(s).await),
                    text: text.clone(),
                },
                Step::Select(s, value) => UserAction::Select {
                    backend_id: node(s).await,
                    value: value.clone(),
                },
                Step::Click(s) => UserAction::click(node(s).await),
                Step::Scroll(px) => {
                    UserAction::scroll(None, pagesnap_browser::ScrollBy::Pixels(*px))
                }
                Step::Wait(_) => unreachable!(),
            };
            assert!(
                matches!(live.perform(&action).await.unwrap(), Outcome::Done { .. }),
                "{step}"
            );
        }
        // (Observed without a screenshot: a background tab does not paint.)
        let a = scripted.observe(aria, &Options::default()).await.unwrap();
        let b = live.observe(aria, &Options::default()).await.unwrap();
        let (text_a, text_b) = (a.observation.text, b.observation.text);
        assert_eq!(text_a, text_b);
        let (a, b) = (a.captured.recording, b.captured.recording);
        // Typing replaced the field's content; the option chosen is Germany.
        assert!(text_a.contains("milk/de"), "{text_a}");
        assert_eq!((a.scroll.y, b.scroll.y), (400.0, 400.0));

        // (On the front tab: a background tab runs no animation frames.)
        let err = live
            .apply(&Step::Click("#hidden-behind".into()))
            .await
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("covered") && err.contains("veil") && err.contains("#hidden-behind"),
            "{err}"
        );
        chromium.close().await.unwrap();
    });
}

async fn kept_observation(
    session: &ChromiumSession,
    strategy: &'static dyn pagesnap_engine::strategy::Strategy,
    kept: &mut Option<pagesnap_browser::Kept>,
) -> (Observation, pagesnap_browser::Source) {
    session
        .observe_kept(strategy, &Options::default(), kept)
        .await
        .unwrap()
}

/// An unchanged page is rendered again from its last capture; anything that
/// changes what a capture sees — a DOM edit, a value set by script, a focus
/// change — makes the next observation capture anew and show the change, a
/// scroll of the page alone moves the capture there and shows it; a page
/// with a shadow root or a running animation is never reused.
#[test]
fn an_unchanged_page_reuses_its_capture_and_any_change_captures_anew() {
    use pagesnap_browser::{Kept, Source};
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain.html");
    std::fs::write(
        &plain,
        r##"<h1>Cart</h1><input id=q aria-label="Quantity" value="1"><button id=b>Buy</button><ul id=l></ul><div style="height:3000px"></div><a href="#end">End</a>"##,
    )
    .unwrap();
    let shadow = dir.path().join("shadow.html");
    std::fs::write(
        &shadow,
        r#"<div id=host></div><script>document.getElementById('host').attachShadow({mode:'open'}).innerHTML='<button>Inside</button>'</script>"#,
    )
    .unwrap();
    let spinning = dir.path().join("spinning.html");
    std::fs::write(
        &spinning,
        r#"<style>@keyframes spin{to{transform:rotate(360deg)}} #s{animation:spin 1s linear infinite;width:20px;height:20px}</style><div id=s></div><button>Go</button>"#,
    )
    .unwrap();
    let aria = pagesnap_engine::strategy::by_name("aria").unwrap();
    let flat = pagesnap_engine::strategy::by_name("flat").unwrap();
    let runtime = capture::runtime().unwrap();
    runtime.block_on(async {
        let chromium = Chromium::launch(false).await.unwrap();
        let options = OpenOptions::default();
        let session = chromium
            .open(plain.to_str().unwrap(), &options)
            .await
            .unwrap();
        let mut kept: Option<Kept> = None;
        let (first, source) = kept_observation(&session, aria, &mut kept).await;
        assert_eq!(source, Source::Captured);
        let (again, source) = kept_observation(&session, aria, &mut kept).await;
        assert!(matches!(source, Source::Reused { .. }), "{source:?}");
        assert_eq!(again.text, first.text);
        // Another strategy renders the same capture.
        let (_, source) = kept_observation(&session, flat, &mut kept).await;
        assert!(matches!(source, Source::Reused { .. }), "{source:?}");
        // Each change, and whether the capture is moved (a scroll alone).
        let changes = [
            ("a DOM edit", "document.getElementById('l').append(Object.assign(document.createElement('li'), {textContent: 'Added by script'}))", "Added by script", false),
            ("a value set by script", "document.getElementById('q').value = '7'", "7", false),
            ("a scroll", "window.scrollTo(0, 2500)", "End", true),
            ("a focus change", "document.getElementById('b').focus()", "button \"Buy\" [active]", false),
        ];
        for (what, script, shows, moved) in changes {
            session.eval(script).await.unwrap();
            let (after, source) = kept_observation(&session, aria, &mut kept).await;
            if moved {
                assert!(matches!(source, Source::Scrolled { .. }), "{what} moves the capture: {source:?}");
            } else {
                assert_eq!(source, Source::Captured, "{what} must capture anew");
            }
            assert!(after.text.contains(shows), "{what}: {}", after.text);
            // Events the change queued (a scroll after a focus) may still
            // arrive once; then the page is still and its capture reused.
            let mut sources = Vec::new();
            for _ in 0..3 {
                let (_, source) = kept_observation(&session, aria, &mut kept).await;
                sources.push(source);
                if source != Source::Captured {
                    break;
                }
            }
            assert!(
                matches!(sources.last(), Some(Source::Reused { .. })),
                "{what}, then nothing: {sources:?}"
            );
        }
        for page in [&shadow, &spinning] {
            let session = chromium.open(page.to_str().unwrap(), &options).await.unwrap();
            let mut kept = None;
            for _ in 0..2 {
                let (_, source) = session
                    .observe_kept(aria, &Options::default(), &mut kept)
                    .await
                    .unwrap();
                assert_eq!(source, Source::Captured, "{}", page.display());
            }
        }
        let _ = chromium.close().await;
    });
}
