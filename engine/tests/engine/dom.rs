//! DOM facts with one home (`analyze::Dom`): display classes, ids per tree, labels, `tabindex` — and every consumer agreeing on them.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use pagesnap_engine::analyze::{Analysis, Display, InteractiveReason, tabindex};
use pagesnap_engine::page::{NodeId, Page, Selector};
use pagesnap_engine::strategy::Options;
use pagesnap_engine::testing::RecordingBuilder;

use crate::common::observe;

fn one(page: &Page, css: &str) -> NodeId {
    page.select(&Selector::parse(css).unwrap())
        .next()
        .unwrap_or_else(|| panic!("{css}"))
        .id()
}

/// `<button>a<X>b</X>c</button>` recorded with X's computed `display`.
fn button_around(display: Option<&str>) -> Page {
    let mut b = RecordingBuilder::new();
    let body = b.body();
    let button = b
        .element(body, "button", &[])
        .bounds(10.0, 10.0, 100.0, 30.0)
        .display("inline-block")
        .id();
    b.text(button, "a");
    let inner = b.element(button, "div", &[]).bounds(20.0, 10.0, 10.0, 30.0);
    match display {
        Some(value) => inner.display(value),
        None => inner.no_style(),
    };
    let inner = inner.id();
    b.text(inner, "b");
    b.text(button, "c");
    b.page()
}

#[test]
fn display_classes_from_computed_style() {
    for (display, want) in [
        (Some("inline"), Display::Inline),
        (Some("block"), Display::Block),
        (Some("inline-block"), Display::Block),
        (Some("contents"), Display::Contents),
        (None, Display::Inline),
    ] {
        let page = button_around(display);
        let analysis = Analysis::new(&page);
        assert_eq!(analysis.dom.display(one(&page, "div")), want, "{display:?}");
    }
}

/// `display: contents` separates the text around it in the accessible name
/// and in every strategy's text, as Chromium names `a<div
/// style="display:contents">b</div>c` "a b c"; inline joins it.
#[test]
fn display_contents_separates_text_in_names_and_strategies() {
    for (display, name) in [("contents", "a b c"), ("block", "a b c"), ("inline", "abc")] {
        let page = button_around(Some(display));
        let analysis = Analysis::new(&page);
        let button = one(&page, "button");
        assert_eq!(analysis.name(button).unwrap().text, name, "{display}");
        let aria = observe("aria", &page, &Options::default()).text;
        assert!(
            aria.contains(&format!("button \"{name}\"")),
            "{display}: {aria}"
        );
    }
}

/// Without layout, one table of default displays (HTML §15) serves every consumer.
#[test]
fn pages_without_layout_use_the_html_default_display() {
    let page = Page::from_html(
        "<p id=p>x</p><span id=s>y</span><custom-el id=c>z</custom-el><img id=i alt=i>",
    );
    let analysis = Analysis::new(&page);
    assert_eq!(analysis.dom.display(one(&page, "#p")), Display::Block);
    assert_eq!(analysis.dom.display(one(&page, "#s")), Display::Inline);
    assert_eq!(analysis.dom.display(one(&page, "#c")), Display::Inline);
    assert_eq!(analysis.dom.display(one(&page, "#i")), Display::Inline);
}

#[test]
fn ids_resolve_per_tree_and_empty_ids_never_match() {
    let page = Page::from_html(
        "<div id=host><template shadowrootmode=open><span id=x>inside</span>\
         <button aria-labelledby=x></button></template></div>\
         <span id=x>outside</span><button id=b aria-labelledby=x></button><p id=''>empty</p>",
    );
    let analysis = Analysis::new(&page);
    let outside = one(&page, "#b");
    assert_eq!(analysis.name(outside).unwrap().text, "outside");
    let x = analysis.dom.element_by_id(outside, "x").unwrap();
    assert_eq!(page.texts(x).collect::<String>(), "outside");
    assert_eq!(analysis.dom.element_by_id(outside, ""), None);
    let shadow_button = page
        .ids()
        .find(|&id| page.element(id).is_some_and(|e| e.is("button")) && id != outside)
        .unwrap();
    assert_eq!(analysis.name(shadow_button).unwrap().text, "inside");
}

/// A label's control is its first labelable element (HTML §4.10.4): for the
/// name of the control and for whether the label is a target of its own.
#[test]
fn a_label_controls_its_first_labelable_element() {
    let page = Page::from_html(
        "<label id=l>Level <meter id=m value=1></meter><input id=i></label>\
         <label id=f for=t>Email</label><input id=t>",
    );
    let analysis = Analysis::new(&page);
    let label = one(&page, "#l");
    assert_eq!(analysis.dom.labeled_control(label), Some(one(&page, "#m")));
    assert_eq!(analysis.dom.labels(one(&page, "#i")), &[] as &[NodeId]);
    assert_eq!(analysis.dom.labels(one(&page, "#t")), &[one(&page, "#f")]);
    assert_eq!(analysis.name(one(&page, "#t")).unwrap().text, "Email");
}

/// `tabindex` follows HTML's rules for parsing integers in roles and in
/// interactivity alike: `"1x"` is 1, `" -1"` is -1, `"x"` is nothing.
#[test]
fn tabindex_follows_html_integer_parsing_everywhere() {
    let page = Page::from_html(
        "<div id=a tabindex=1x>a</div><div id=b tabindex=' -1'>b</div><div id=c tabindex=x>c</div>",
    );
    let analysis = Analysis::new(&page);
    let value = |css: &str| tabindex(page.element(one(&page, css)).unwrap());
    assert_eq!(value("#a"), Some(1));
    assert_eq!(value("#b"), Some(-1));
    assert_eq!(value("#c"), None);
    assert_eq!(
        analysis.interactive[one(&page, "#a").index()],
        Some(InteractiveReason::Tabindex)
    );
    assert_eq!(analysis.interactive[one(&page, "#b").index()], None);
    assert_eq!(analysis.interactive[one(&page, "#c").index()], None);
}
