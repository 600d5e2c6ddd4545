//! Strategies on the fixtures that exist for them: modal refs, overlay warnings, page position, stable refs.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::path::Path;

use pagesnap_engine::analyze::Analyzed;
use pagesnap_engine::observation::Observation;
use pagesnap_engine::page::{Page, Selector};
use pagesnap_engine::recording::Recording;
use pagesnap_engine::strategy::Options;

fn load(relative: &str) -> Page {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures")
        .join(relative);
    let bytes = std::fs::read(&path).unwrap();
    Page::from_recording(&Recording::from_gz_bytes(&bytes, &path.display().to_string()).unwrap())
}

fn observe(strategy: &str, page: &Page, previous: Option<&Observation>) -> Observation {
    let options = Options {
        previous,
        ..Options::default()
    };
    crate::common::observe(strategy, page, &options)
}

#[test]
fn checkout_modal_refs_are_only_inside_the_dialog() {
    let page = load("checkout_modal/initial.json.gz");
    let dialog = page
        .select(&Selector::parse("#signin-dialog").unwrap())
        .next()
        .unwrap()
        .id();
    for strategy in ["aria", "flat", "structural", "html-pruned"] {
        let observation = observe(strategy, &page, None);
        assert!(!observation.refs.is_empty(), "{strategy}");
        for (reference, id) in &observation.refs {
            assert!(
                page.contains(dialog, *id),
                "{strategy}: {reference} is outside the dialog"
            );
        }
        assert_eq!(
            observation.meta.modal.kind.as_str(),
            "reliable",
            "{strategy}"
        );
        assert!(observation.meta.counts.obscured > 0, "{strategy}");
    }
    let aria = observe("aria", &page, None).text;
    assert!(
        aria.starts_with("# A modal is open. Only modal elements have refs.\n"),
        "{aria}"
    );
    assert!(aria.contains("[obscured]"), "{aria}");
    assert!(
        aria.contains("button \"Buy now\" [obscured]") || aria.contains("\"Buy now\""),
        "{aria}"
    );
}

#[test]
fn cookie_banner_warns_and_obscures_nothing() {
    let page = load("cookie_banner/initial.json.gz");
    let aria = observe("aria", &page, None);
    assert!(
        aria.text
            .contains("# Warning: an overlay may cover the page."),
        "{}",
        aria.text
    );
    assert!(!aria.text.contains("[obscured]"));
    assert_eq!(aria.meta.modal.kind.as_str(), "suspected");
    assert_eq!(aria.meta.counts.obscured, 0);
    let names: Vec<&str> = aria.meta.items.iter().map(|i| i.name.as_str()).collect();
    for button in ["Accept all", "Reject all", "Manage preferences"] {
        assert!(names.contains(&button), "{button} in {names:?}");
    }
}

#[test]
fn long_article_position_lines_match_the_scroll() {
    for (name, above_zero, at_top, at_bottom) in [
        ("top", true, true, false),
        ("middle", false, false, false),
        ("bottom", false, false, true),
    ] {
        let page = load(&format!("long_article/{name}.json.gz"));
        let vh = page.viewport.height;
        let above = (page.scroll.y / vh).floor() as u32;
        let below = ((page.document_size.height - page.scroll.y - vh) / vh)
            .floor()
            .max(0.0) as u32;
        assert_eq!(above == 0, above_zero, "{name}");
        let aria = observe("aria", &page, None);
        let plural = if above == 1 { "viewport" } else { "viewports" };
        let line = format!("# Page position: {above} {plural} above, {below} below.");
        assert!(
            aria.text.contains(&line),
            "{name}: want {line:?} in\n{}",
            &aria.text[..aria.text.len().min(400)]
        );
        assert_eq!(
            aria.text.contains("# You are at the top of the page."),
            at_top,
            "{name}"
        );
        assert_eq!(
            aria.text.contains("# You are at the bottom of the page."),
            at_bottom,
            "{name}"
        );
        assert_eq!(
            (
                aria.meta.viewport.pages_above,
                aria.meta.viewport.pages_below
            ),
            (above, below),
            "{name}"
        );
        assert_eq!(aria.meta.viewport.scroll_y, page.scroll.y, "{name}");
        let flat = observe("flat", &page, None).text;
        assert_eq!(flat.contains("[Start of page]"), at_top, "{name}");
        assert_eq!(flat.contains("[End of page]"), at_bottom, "{name}");
    }
}

#[test]
fn refs_stay_stable_and_new_tasks_are_marked_across_steps() {
    let before = load("todo_app/add_tasks.step1.json.gz");
    let after = load("todo_app/add_tasks.step2.json.gz");
    for strategy in ["aria", "flat"] {
        let first = observe(strategy, &before, None);
        let second = observe(strategy, &after, Some(&first));
        // Every element present before keeps its ref.
        for item in &first.meta.items {
            let same = second
                .meta
                .items
                .iter()
                .find(|i| i.backend_id == item.backend_id);
            if let Some(same) = same {
                assert_eq!(
                    same.reference, item.reference,
                    "{strategy}: {} changed ref",
                    item.name
                );
                assert!(!same.new, "{strategy}");
            }
        }
        let new: Vec<_> = second.meta.items.iter().filter(|i| i.new).collect();
        assert!(
            !new.is_empty(),
            "{strategy}: adding a task shows new elements"
        );
        let marker = if strategy == "aria" { "[new]" } else { "*[" };
        assert!(second.text.contains(marker), "{strategy}:\n{}", second.text);
        assert!(!first.text.contains(marker), "{strategy}");
    }
}

#[test]
fn secrets_fixture_redacts_in_every_strategy() {
    let page = load("secrets/initial.json.gz");
    let png = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/secrets/initial.png"),
    )
    .unwrap();
    for strategy in pagesnap_engine::strategy::STRATEGIES {
        let options = Options {
            screenshot: Some(&png),
            full_page: Some(true),
            ..Options::default()
        };
        let observation = strategy
            .observe(&Analyzed::new(page.clone()), &options)
            .unwrap();
        let meta = serde_json::to_string(&observation.meta).unwrap();
        for secret in [
            "hunter2-Secret!",
            "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c",
            "4242 4242 4242 4242",
            "078-05-1120",
            "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
        ] {
            assert!(
                !observation.text.contains(secret),
                "{}: {secret}",
                strategy.name()
            );
            assert!(!meta.contains(secret), "{} meta: {secret}", strategy.name());
        }
        assert!(observation.meta.counts.redacted > 0, "{}", strategy.name());
    }
}
