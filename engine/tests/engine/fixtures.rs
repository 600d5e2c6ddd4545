//! Every committed fixture recording: loads, keeps the browser's element counts, and shows what its site is for.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::path::Path;

use pagesnap_engine::analyze::{Analysis, Hidden, ModalKind};
use pagesnap_engine::page::{NodeId, Page, Selector};
use pagesnap_engine::recording::{AxNode, Recording};

use crate::common::{fixture_recordings as all_recordings, fixtures_dir};

fn load(relative: &str) -> (Recording, Page) {
    let path = fixtures_dir().join(relative);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let recording = Recording::from_gz_bytes(&bytes, &path.display().to_string()).unwrap();
    let page = Page::from_recording(&recording);
    (recording, page)
}

fn one(page: &Page, selector: &str) -> NodeId {
    let selector = Selector::parse(selector).unwrap();
    let found: Vec<_> = page.select(&selector).map(|e| e.id()).collect();
    assert_eq!(found.len(), 1, "{}", selector.as_str());
    found[0]
}

#[test]
fn every_fixture_keeps_the_browsers_element_counts() {
    let recordings = all_recordings();
    assert!(
        recordings.len() >= 18,
        "only {} fixture recordings",
        recordings.len()
    );
    let sites: std::collections::BTreeSet<_> = recordings
        .iter()
        .filter_map(|p| p.parent().and_then(|d| d.file_name()))
        .collect();
    assert!(sites.len() >= 19, "{sites:?}");
    for path in &recordings {
        let bytes = std::fs::read(path).unwrap();
        let recording = Recording::from_gz_bytes(&bytes, &path.display().to_string()).unwrap();
        let page = Page::from_recording(&recording);
        assert_eq!(
            Some(page.element_counts()),
            recording.counts,
            "{}: engine counts vs querySelectorAll('*') at capture",
            path.display()
        );
        let png = path.to_string_lossy().replace(".json.gz", ".png");
        assert!(Path::new(&png).exists(), "{png} missing");
    }
}

/// Fixtures written before the oracle was parsed lazily decode to the same
/// AX nodes, and a decoded recording is written back byte for byte.
#[test]
fn every_fixtures_oracle_reads_as_before_and_writes_back_unchanged() {
    use std::io::Read;

    for path in &all_recordings() {
        let origin = path.display().to_string();
        let bytes = std::fs::read(path).unwrap();
        let mut json = Vec::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_end(&mut json)
            .unwrap();
        let recording = Recording::from_json_bytes(&json, &origin).unwrap();
        let value: serde_json::Value = serde_json::from_slice(&json).unwrap();
        let before: Vec<AxNode> = serde_json::from_value(value["ax"].clone()).unwrap();
        assert!(!before.is_empty(), "{origin}: no AX nodes");
        assert_eq!(*recording.ax.nodes(&origin).unwrap(), before, "{origin}");
        assert!(
            serde_json::to_vec(&recording).unwrap() == json,
            "{origin}: re-encoded JSON differs"
        );
    }
}

#[test]
fn the_large_page_is_large() {
    let (recording, page) = load("data_table/initial.json.gz");
    assert!(recording.nodes.len() > 20_000, "{}", recording.nodes.len());
    assert_eq!(
        page.select(&Selector::parse("tbody tr").unwrap()).count(),
        3000
    );
}

#[test]
fn iframe_and_shadow_content_are_in_the_tree() {
    let (_, page) = load("iframe_form/initial.json.gz");
    let pay = page
        .elements()
        .find(|e| e.name() == "button" && page.text_content(e.id()).trim() == "Pay")
        .unwrap();
    assert!(page.ancestors(pay.id()).any(|a| matches!(
        page.node(a),
        pagesnap_engine::page::Node::Document { iframe: true }
    )));
    // Bounds of iframe content are in top-document coordinates: inside the iframe's box.
    let frame = one(&page, "iframe");
    let fb = page.layout(frame).bounds.unwrap();
    let pb = pay.layout().bounds.unwrap();
    assert!(
        pb.x >= fb.x && pb.y >= fb.y && pb.right() <= fb.right() + 1.0,
        "{pb:?} in {fb:?}"
    );

    let (recording, page) = load("shadow_dom/initial.json.gz");
    assert!(recording.counts.unwrap().shadow > 0);
    let add = page
        .select(&Selector::parse("product-card button").unwrap())
        .count();
    assert!(add >= 6, "{add}");
}

#[test]
fn scripted_steps_change_the_page() {
    let (_, before) = load("checkout_modal/close_dialog.json.gz");
    let (_, after) = load("checkout_modal/close_dialog.step1.json.gz");
    assert_eq!(Analysis::new(&before).modal.kind, ModalKind::Reliable);
    assert_eq!(Analysis::new(&after).modal.kind, ModalKind::None);
    let (first, _) = load("todo_app/add_tasks.json.gz");
    let (last, _) = load("todo_app/add_tasks.step5.json.gz");
    assert!(last.nodes.len() > first.nodes.len());
}

#[test]
fn long_article_positions_match_the_scroll() {
    for (name, at_top, at_bottom) in [
        ("top", true, false),
        ("middle", false, false),
        ("bottom", false, true),
    ] {
        let (recording, page) = load(&format!("long_article/{name}.json.gz"));
        let p = Analysis::new(&page).position;
        let vh = recording.viewport.height;
        assert_eq!(p.scroll_y, recording.scroll.y, "{name}");
        assert_eq!(
            p.pages_above,
            (recording.scroll.y / vh).floor() as u32,
            "{name}"
        );
        let below = ((recording.document_size.height - recording.scroll.y - vh) / vh)
            .floor()
            .max(0.0) as u32;
        assert_eq!(p.pages_below, below, "{name}");
        assert_eq!((p.at_top, p.at_bottom), (at_top, at_bottom), "{name}");
    }
}

#[test]
fn hidden_content_is_hidden_for_each_reason() {
    let (_, page) = load("hidden_content/initial.json.gz");
    let a = Analysis::new(&page);
    let hidden = |sel: &str| a.visibility[one(&page, sel).index()].hidden;
    assert_eq!(hidden("#show-visibility-override"), None);
    assert!(a.is_actionable(one(&page, "#show-visibility-override")));
    for (sel, want) in [
        ("#btn-display-none", Hidden::NotRendered),
        ("#btn-visibility-hidden", Hidden::VisibilityHidden),
        ("#btn-visibility-collapse", Hidden::VisibilityHidden),
        ("#btn-opacity-zero", Hidden::Transparent),
        ("#link-opacity-ancestor", Hidden::Transparent),
        ("#btn-hidden-attr", Hidden::NotRendered),
        ("#btn-aria-hidden", Hidden::AriaHidden),
        ("#btn-inert", Hidden::Inert),
    ] {
        assert_eq!(hidden(sel), Some(want), "{sel}");
    }
    let visible_controls = one(&page, "#visible-controls");
    assert!(a.visibility[visible_controls.index()].is_visible());
}
