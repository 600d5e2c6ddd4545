//! Names as browsers compute them where pages hide what they say: CSS generated content, slots, named generic elements, `aria-owns`, iframe titles (accname 1.2, HTML-AAM).
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use pagesnap_engine::analyze::{Analysis, NameSource};
use pagesnap_engine::page::{NodeId, Page, Selector};
use pagesnap_engine::recording::{NodeKind, Pseudo};
use pagesnap_engine::strategy::Options;
use pagesnap_engine::testing::RecordingBuilder;

use crate::common::observe;

fn name_of(page: &Page, id: NodeId) -> Option<String> {
    Analysis::new(page).name(id).map(|n| n.text.clone())
}

fn by_css(page: &Page, css: &str) -> NodeId {
    let selector = Selector::parse(css).unwrap();
    let found: Vec<NodeId> = page.select(&selector).map(|e| e.id()).collect();
    assert_eq!(found.len(), 1, "{css} should match one element");
    found[0]
}

fn text(strategy: &str, page: &Page) -> String {
    observe(strategy, page, &Options::default()).text
}

mod generated_content {
    use super::*;

    /// A label whose "required" marker is `::after { content: " *" }` and a
    /// search button whose only text is `::before { content: "Search" }`.
    fn page() -> (Page, NodeId, NodeId) {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let label = b
            .element(body, "label", &[("for", "email")])
            .bounds(10.0, 10.0, 60.0, 20.0)
            .id();
        b.text(label, "Email").bounds(10.0, 10.0, 40.0, 20.0);
        b.generated(label, Pseudo::After, " *")
            .bounds(50.0, 10.0, 10.0, 20.0);
        let input = b
            .element(body, "input", &[("id", "email")])
            .bounds(80.0, 10.0, 200.0, 20.0)
            .id();
        // accname 2F.ii: generated content counts before `title` (2I).
        let button = b
            .element(body, "button", &[("title", "Find")])
            .bounds(10.0, 40.0, 80.0, 24.0)
            .id();
        b.generated(button, Pseudo::Before, "Search")
            .bounds(12.0, 42.0, 60.0, 20.0);
        (
            b.page(),
            NodeId::from_index(input),
            NodeId::from_index(button),
        )
    }

    #[test]
    fn names_include_before_and_after_text_in_rendering_order() {
        let (page, input, button) = page();
        assert_eq!(name_of(&page, input).as_deref(), Some("Email *"));
        let name = Analysis::new(&page).name(button).cloned().unwrap();
        assert_eq!(
            (name.text.as_str(), name.source),
            ("Search", NameSource::Text)
        );
    }

    #[test]
    fn text_strategies_print_it_and_html_strategies_do_not() {
        let (page, _, _) = page();
        let aria = text("aria", &page);
        assert!(aria.contains("text: Email *"), "{aria}");
        assert!(aria.contains("button \"Search\""), "{aria}");
        let flat = text("flat", &page);
        assert!(
            flat.contains("Email *") && flat.contains("Search"),
            "{flat}"
        );
        // The page's HTML has no such text: CSS generated it.
        for strategy in ["html", "html-pruned"] {
            let html = text(strategy, &page);
            assert!(
                html.contains("Email") && !html.contains("Search") && !html.contains(" *"),
                "{strategy}: {html}"
            );
        }
    }
}

mod slots {
    use super::*;

    /// `<my-btn>Buy now</my-btn>` whose shadow root is `<button><slot>`, as
    /// recorded: the `<slot>` is `display: contents`, so DOMSnapshot gives it
    /// no layout entry, and the light text lies under the host.
    fn recorded() -> (Page, NodeId) {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let host = b
            .element(body, "my-btn", &[])
            .bounds(10.0, 10.0, 80.0, 24.0)
            .id();
        let root = b.node_of_kind(host, NodeKind::ShadowRootOpen).id();
        let button = b
            .element(root, "button", &[])
            .bounds(10.0, 10.0, 80.0, 24.0)
            .id();
        b.element(button, "slot", &[]).no_style().no_bounds();
        b.text(host, "Buy now").bounds(12.0, 12.0, 60.0, 20.0);
        (b.page(), NodeId::from_index(button))
    }

    #[test]
    fn a_slotted_label_names_the_shadow_button() {
        let (page, button) = recorded();
        assert_eq!(name_of(&page, button).as_deref(), Some("Buy now"));
    }

    #[test]
    fn text_strategies_read_slotted_content_where_the_slot_is() {
        let (page, _) = recorded();
        let aria = text("aria", &page);
        assert!(aria.contains("button \"Buy now\""), "{aria}");
        // Read once, inside the button: not again as the host's own text.
        assert_eq!(aria.matches("Buy now").count(), 1, "{aria}");
        let flat = text("flat", &page);
        assert!(flat.contains("<button>Buy now />"), "{flat}");
    }

    #[test]
    fn named_slots_fallback_and_unassigned_children_follow_the_flat_tree() {
        let page = Page::from_html(
            r##"<info-box><template shadowrootmode=open><h2><slot name=title>Notice</slot></h2>
               <p><slot></slot></p><footer><slot name=action>No action</slot></footer><slot></slot></template>
               <a href="#more" slot=action>Read more</a>Body text<span slot=nowhere>Never shown</span></info-box>"##,
        );
        let flat = text("flat", &page);
        let order: Vec<usize> = ["Notice", "Body text", "Read more"]
            .iter()
            .map(|t| {
                flat.find(t)
                    .unwrap_or_else(|| panic!("{t} missing: {flat}"))
            })
            .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{flat}");
        assert!(
            !flat.contains("No action"),
            "an assigned slot hides its fallback: {flat}"
        );
        assert!(!flat.contains("Never shown"), "no slot takes it: {flat}");
        // The second unnamed slot gets nothing: Body text is read once.
        assert_eq!(flat.matches("Body text").count(), 1, "{flat}");
    }
}

mod generic_names {
    use super::*;

    const PAGE: &str = r#"<div id=close aria-label="Close dialog" onclick="x()" tabindex=0>X</div>
        <span id=count aria-label="Unread messages">5</span>
        <abbr id=who title="World Health Organization">WHO</abbr>
        <kbd id=key title="Control key">Ctrl</kbd>
        <span id=req title="This field is required.">*</span>
        <div id=plain>Just text</div>
        <p id=para aria-label="Summary">Long paragraph</p>"#;

    #[test]
    fn authors_names_on_generic_elements_are_exposed_never_their_content() {
        let page = Page::from_html(PAGE);
        let a = Analysis::new(&page);
        let name = |css| {
            a.name(by_css(&page, css))
                .map(|n| (n.text.clone(), n.source))
        };
        assert_eq!(
            name("#close"),
            Some(("Close dialog".into(), NameSource::AriaLabel))
        );
        assert_eq!(
            name("#count"),
            Some(("Unread messages".into(), NameSource::AriaLabel))
        );
        assert_eq!(
            name("#who"),
            Some(("World Health Organization".into(), NameSource::Title))
        );
        // Elsewhere `title` is a tooltip, not a name (Chromium, measured).
        assert_eq!(name("#key"), None);
        assert_eq!(name("#req"), None);
        assert_eq!(
            name("#para"),
            Some(("Summary".into(), NameSource::AriaLabel))
        );
        // Generic elements never name themselves from content.
        assert_eq!(name("#plain"), None);
    }

    #[test]
    fn an_interactive_generic_element_shows_its_name() {
        let page = Page::from_html(PAGE);
        let aria = text("aria", &page);
        assert!(
            aria.contains("- generic \"Close dialog\" [ref=e1]: X"),
            "{aria}"
        );
        // Not interactive: transparent, its text kept as Playwright keeps it.
        assert!(!aria.contains("Unread messages"), "{aria}");
        let structural = text("structural", &page);
        assert!(
            structural.contains("generic \"Close dialog\""),
            "{structural}"
        );
    }
}

mod aria_owns {
    use super::*;

    #[test]
    fn owned_elements_are_read_after_the_owners_children() {
        // accname 1.2 test "name from content of owned element".
        let page = Page::from_html(
            r#"<div id=b role=button aria-owns=n>Flash the screen</div><div id=n>3 times</div>"#,
        );
        assert_eq!(
            name_of(&page, by_css(&page, "#b")).as_deref(),
            Some("Flash the screen 3 times")
        );
        let aria = text("aria", &page);
        assert!(
            aria.contains("button \"Flash the screen 3 times\""),
            "{aria}"
        );
        // Read under its owner, not again where the DOM has it.
        assert_eq!(aria.matches("3 times").count(), 1, "{aria}");
    }

    #[test]
    fn an_owned_element_in_the_middle_of_a_name() {
        let page = Page::from_html(
            r#"<div id=b role=button>Flash the screen <span aria-owns=n></span> times.</div><div id=n>1</div>"#,
        );
        assert_eq!(
            name_of(&page, by_css(&page, "#b")).as_deref(),
            Some("Flash the screen 1 times.")
        );
    }

    #[test]
    fn cycles_and_ancestors_are_refused() {
        // A owns B and B owns A; C owns its own ancestor.
        let page = Page::from_html(
            r#"<div id=a role=button aria-owns=b>A</div><div id=b role=button aria-owns=a>B</div>
               <div id=outer><div id=c role=button aria-owns=outer>C</div></div>"#,
        );
        let a = Analysis::new(&page);
        assert_eq!(a.name(by_css(&page, "#a")).unwrap().text, "A B");
        assert_eq!(a.name(by_css(&page, "#c")).unwrap().text, "C");
        let aria = text("aria", &page);
        assert_eq!(aria.matches('C').count(), 1, "{aria}");
        let flat = text("flat", &page);
        assert_eq!(flat.matches("B").count(), 1, "{flat}");
    }
}

#[test]
fn an_iframe_is_named_by_its_title() {
    let page = Page::from_html(r#"<iframe id=f title="Payment form" srcdoc="<p>hi</p>"></iframe>"#);
    assert_eq!(
        name_of(&page, by_css(&page, "#f")).as_deref(),
        Some("Payment form")
    );
    let aria = text("aria", &page);
    assert!(aria.contains("iframe \"Payment form\""), "{aria}");
}

#[test]
fn a_term_is_named_from_content_as_chromium_does_and_printed_as_playwright_does() {
    let page = Page::from_html("<dl><dt id=t>Subtotal</dt><dd>$5</dd></dl>");
    assert_eq!(
        name_of(&page, by_css(&page, "#t")).as_deref(),
        Some("Subtotal")
    );
    let aria = text("aria", &page);
    assert!(aria.contains("- term: Subtotal"), "{aria}");
}
