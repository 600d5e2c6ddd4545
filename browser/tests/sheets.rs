//! The stylesheet scan behind hover and focus targets is made once per document and reused while the stylesheets stay the same (issue 59 item 6), yet a rule inserted, a `<style>` added or replaced, and a new element matching a known rule all show at the next capture; the page counts its own rule reads.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::collections::BTreeSet;

use pagesnap_browser::{Chromium, ChromiumSession, OpenOptions};

/// A hover menu, a skip link, a plain box (no rule yet) and a counter of
/// the times a script reads a rule's selector (the scan reads each once).
const PAGE: &str = r##"<!doctype html><title>sheets</title>
<style>
.menu ul { display: none } .menu:hover > ul { display: block }
.skip { position: absolute; left: -9999px } .skip:focus { left: 8px }
</style>
<div class="menu" id="menu">Menu<ul><li>One</li></ul></div>
<a class="skip" id="skip" href="#main">Skip to content</a>
<div class="tip" id="tip">Tip<span>Shown on hover</span></div>
<p id="late">Late</p><p>After</p>
<script>
window.reads = 0;
const getter = Object.getOwnPropertyDescriptor(CSSStyleRule.prototype, 'selectorText');
Object.defineProperty(CSSStyleRule.prototype, 'selectorText', {
  get() { window.reads++; return getter.get.call(this); },
  set(value) { getter.set.call(this, value); },
});
</script>"##;

/// The ids of the elements the capture marks as hover targets, and of those
/// it marks as shown by focus.
async fn targets(tab: &ChromiumSession) -> (BTreeSet<String>, BTreeSet<String>) {
    let captured = tab.capture().await.expect("the page is captured");
    let id = |node: &pagesnap_engine::recording::RecNode| {
        node.attrs
            .iter()
            .find(|(name, _)| name == "id")
            .map(|(_, value)| value.clone())
    };
    let nodes = &captured.recording.nodes;
    (
        nodes.iter().filter(|n| n.hover).filter_map(id).collect(),
        nodes
            .iter()
            .filter(|n| n.focus_reveal)
            .filter_map(id)
            .collect(),
    )
}

async fn reads(tab: &ChromiumSession) -> f64 {
    tab.eval("window.reads")
        .await
        .expect("the page answers")
        .as_f64()
        .expect("a number")
}

fn ids(list: &[&str]) -> BTreeSet<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stylesheet_scan_is_reused_until_the_stylesheets_change() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("sheets.html");
    std::fs::write(&page, PAGE).unwrap();
    let chromium = Chromium::launch(false).await.expect("Chromium starts");
    let tab = chromium
        .open(page.to_str().unwrap(), &OpenOptions::default())
        .await
        .expect("the page opens");

    let (hover, focus) = targets(&tab).await;
    assert_eq!(hover, ids(&["menu"]));
    assert_eq!(focus, ids(&["skip"]));
    let scanned = reads(&tab).await;
    assert!(
        scanned >= 4.0,
        "the first capture reads every rule: {scanned}"
    );

    // The same stylesheets: the same targets, not one rule read again.
    assert_eq!(targets(&tab).await, (ids(&["menu"]), ids(&["skip"])));
    assert_eq!(reads(&tab).await, scanned, "the scan is reused");

    // A new element matching a known rule is matched at the next capture.
    tab.eval("const m = document.createElement('div'); m.className = 'menu'; m.id = 'menu2'; m.innerHTML = 'More<ul><li>Two</li></ul>'; document.body.append(m)")
        .await
        .unwrap();
    assert_eq!(targets(&tab).await.0, ids(&["menu", "menu2"]));
    assert_eq!(reads(&tab).await, scanned, "still no rule read again");

    // A rule inserted into a sheet: scanned again.
    tab.eval("document.styleSheets[0].insertRule('.tip:hover > span { visibility: visible }', 0)")
        .await
        .unwrap();
    assert_eq!(targets(&tab).await.0, ids(&["menu", "menu2", "tip"]));
    let rescanned = reads(&tab).await;
    assert!(rescanned > scanned, "the changed sheet is scanned again");

    // A `<style>` added.
    tab.eval("const s = document.createElement('style'); s.textContent = '#late:hover + p { opacity: 1 }'; document.head.append(s)")
        .await
        .unwrap();
    assert_eq!(
        targets(&tab).await.0,
        ids(&["late", "menu", "menu2", "tip"])
    );

    // A `<style>`'s text replaced (a new sheet with as many rules).
    tab.eval(
        "document.querySelectorAll('style')[1].textContent = '.menu:hover > ul { display: block }'",
    )
    .await
    .unwrap();
    assert_eq!(targets(&tab).await.0, ids(&["menu", "menu2", "tip"]));

    // Another document: scanned afresh, though its sheets look the same.
    let other = dir.path().join("other.html");
    std::fs::write(
        &other,
        PAGE.replace(".menu:hover > ul", ".tip:hover > span"),
    )
    .unwrap();
    let mut tab = tab;
    tab.navigate(other.to_str().unwrap(), &OpenOptions::default(), false)
        .await
        .expect("the other page opens");
    assert_eq!(targets(&tab).await, (ids(&["tip"]), ids(&["skip"])));
    tab.close().await;
}
