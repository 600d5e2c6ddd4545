//! The capture's page facts, answered deep-serialised in one call: an element met twice (focused, shown by focus and a hover trigger) keeps every role, and the document handle kept for the listener call is asked again for each new document.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::collections::BTreeSet;

use pagesnap_browser::{Chromium, ChromiumSession, OpenOptions};
use pagesnap_engine::recording::{RecNode, Recording};

/// A link both shown by focus (a skip link) and opening a tip on hover, and
/// a box made a hover target by a listener a script adds.
const ONE: &str = r##"<!doctype html><title>one</title>
<style>
.both { position: absolute; left: -9999px } .both:focus { left: 8px }
.tip { display: none } .both:hover + .tip { display: block }
</style>
<a class="both" id="both" href="#main">Skip to content</a><div class="tip">Tip</div>
<div id="one">One</div>
<script>document.getElementById('one').addEventListener('mouseenter', () => {});</script>"##;

/// Another document, its hover target added by a listener on another element.
const TWO: &str = r##"<!doctype html><title>two</title>
<div id="one">Not listened to</div><div id="two">Two</div>
<script>document.getElementById('two').addEventListener('mouseover', () => {});</script>"##;

fn id(node: &RecNode) -> Option<String> {
    node.attrs
        .iter()
        .find(|(name, _)| name == "id")
        .map(|(_, value)| value.clone())
}

/// The ids of the nodes of `recording` that `pick` selects.
fn ids(recording: &Recording, pick: impl Fn(&RecNode) -> bool) -> BTreeSet<String> {
    recording
        .nodes
        .iter()
        .filter(|n| pick(n))
        .filter_map(id)
        .collect()
}

fn set(list: &[&str]) -> BTreeSet<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

async fn recording(tab: &ChromiumSession) -> Recording {
    tab.capture().await.expect("the page is captured").recording
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_element_met_twice_keeps_each_role_and_new_documents_get_their_listeners() {
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("one.html");
    let two = dir.path().join("two.html");
    std::fs::write(&one, ONE).unwrap();
    std::fs::write(&two, TWO).unwrap();
    let chromium = Chromium::launch(false).await.expect("Chromium starts");
    let mut tab = chromium
        .open(one.to_str().unwrap(), &OpenOptions::default())
        .await
        .expect("the page opens");

    // Focused, shown by focus and a hover trigger: three places in the
    // facts array, one element.
    tab.eval("document.getElementById('both').focus()")
        .await
        .unwrap();
    let first = recording(&tab).await;
    let focused = first.focused.map(|f| id(&first.nodes[f as usize]));
    assert_eq!(focused, Some(Some("both".to_owned())));
    assert_eq!(ids(&first, |n| n.focus_reveal), set(&["both"]));
    assert_eq!(ids(&first, |n| n.hover), set(&["both", "one"]));

    // The second capture of the same document reads the listeners through
    // the handle kept from the first.
    let again = recording(&tab).await;
    assert_eq!(ids(&again, |n| n.hover), set(&["both", "one"]));

    // A new document: its own listeners, not the first one's.
    tab.navigate(two.to_str().unwrap(), &OpenOptions::default(), false)
        .await
        .expect("the second page opens");
    let second = recording(&tab).await;
    assert_eq!(ids(&second, |n| n.hover), set(&["two"]));
    assert_eq!(second.focused, None);
    tab.close().await;
    chromium.close().await.unwrap();
}
