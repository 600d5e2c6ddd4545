//! The arena `Page`: tree building from HTML, navigation, selectors across shadow roots.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use pagesnap_engine::page::{Node, Page, Selector, ShadowMode};

fn select_names(page: &Page, selector: &str) -> Vec<String> {
    let selector = Selector::parse(selector).unwrap();
    page.select(&selector)
        .map(|e| format!("{}#{}", e.name(), e.attr("id").unwrap_or("")))
        .collect()
}

#[test]
fn builds_document_order_with_contiguous_subtrees() {
    let page = Page::from_html(
        "<div id=a><p id=b>x<i id=c>y</i></p><span id=d></span></div><em id=e></em>",
    );
    let a = page
        .select(&Selector::parse("#a").unwrap())
        .next()
        .unwrap()
        .id();
    let c = page
        .select(&Selector::parse("#c").unwrap())
        .next()
        .unwrap()
        .id();
    let e = page
        .select(&Selector::parse("#e").unwrap())
        .next()
        .unwrap()
        .id();
    assert!(page.contains(a, c));
    assert!(!page.contains(a, e));
    assert_eq!(page.text_content(a), "xy");
    let children: Vec<_> = page
        .children(a)
        .filter_map(|id| page.element(id).map(|e| e.name.clone()))
        .collect();
    assert_eq!(children, ["p", "span"]);
    for id in page.ids().skip(1) {
        let parent = page.parent(id).unwrap();
        assert!(parent < id && page.contains(parent, id));
    }
    assert!(!page.has_layout);
}

#[test]
fn css_selectors_match_like_a_browser() {
    let page = Page::from_html(
        r#"<form id=f><input id=u name=user><input id=p type=password><button id=go class="btn primary">Go</button></form>
           <ul><li id=l1>a</li><li id=l2>b</li><li id=l3>c</li></ul>"#,
    );
    assert_eq!(
        select_names(&page, "form > input[type=password]"),
        ["input#p"]
    );
    assert_eq!(select_names(&page, ".btn.primary"), ["button#go"]);
    assert_eq!(
        select_names(&page, "li:nth-child(2), li:last-child"),
        ["li#l2", "li#l3"]
    );
    assert_eq!(select_names(&page, "form:has(#p) #u"), ["input#u"]);
    assert_eq!(select_names(&page, "input:not([name])"), ["input#p"]);
    assert!(Selector::parse("button:hover").is_err());
    let err = Selector::parse("a[").unwrap_err().to_string();
    assert!(err.contains("a["), "{err}");
}

#[test]
fn declarative_shadow_roots_are_shadow_roots_and_selectors_pierce_them() {
    let page = Page::from_html(
        r#"<product-card id=h><template shadowrootmode="open"><button id=add>Add</button><slot></slot></template><span id=light>x</span></product-card>"#,
    );
    let host = page
        .select(&Selector::parse("#h").unwrap())
        .next()
        .unwrap()
        .id();
    let first = page.first_child(host).unwrap();
    assert_eq!(page.node(first), &Node::ShadowRoot(ShadowMode::Open));
    assert_eq!(select_names(&page, "product-card button"), ["button#add"]);
    assert_eq!(select_names(&page, "product-card > span"), ["span#light"]);
    let counts = page.element_counts();
    assert_eq!((counts.shadow, counts.document), (2, 5));
    assert!(select_names(&page, "template").is_empty());
}

#[test]
fn svg_keeps_its_namespace_and_case() {
    let page =
        Page::from_html(r#"<svg viewBox="0 0 1 1"><linearGradient id=g></linearGradient></svg>"#);
    assert_eq!(select_names(&page, "linearGradient"), ["linearGradient#g"]);
}
