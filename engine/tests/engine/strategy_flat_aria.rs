//! The `flat` and `aria` strategies: format rules on real markup, modal / viewport / scroll / budget / novelty on hand-built recordings.
#![allow(
    clippy::unwrap_used,
    reason = "test helpers outside #[test] fns unwrap known-good fixtures"
)]

use pagesnap_engine::analyze::Analysis;
use pagesnap_engine::observation::Observation;
use pagesnap_engine::page::{NodeId, Page};
use pagesnap_engine::recording::ScrollState;
use pagesnap_engine::strategy::{Layer, ObserveError, Options, Strategy, by_name};
use pagesnap_engine::testing::RecordingBuilder;

use crate::common::{observe as observe_with, try_observe};

fn strategy(name: &str) -> &'static dyn Strategy {
    by_name(name).unwrap()
}

fn observe(name: &str, page: &Page) -> Observation {
    observe_with(name, page, &Options::default())
}

/// Every ref is unique, printed, and names an actionable node.
fn assert_refs_sound(page: &Page, observation: &Observation, printed: impl Fn(&str) -> String) {
    let analysis = Analysis::new(page);
    let mut seen = std::collections::BTreeSet::new();
    for (reference, id) in &observation.refs {
        assert!(seen.insert(reference.clone()), "duplicate ref {reference}");
        assert!(
            analysis.is_actionable(*id),
            "ref {reference} not actionable"
        );
        assert!(!analysis.obscured[id.index()], "ref {reference} obscured");
        assert!(
            observation.text.contains(&printed(reference)),
            "ref {reference} not printed:\n{}",
            observation.text
        );
    }
    assert_eq!(observation.meta.items.len(), observation.refs.len());
}

fn aria_ref(r: &str) -> String {
    format!("[ref={r}]")
}

fn flat_ref(r: &str) -> String {
    format!("[{r}]<")
}

const LOGIN: &str = r#"<!doctype html><title>Sign in</title>
<nav aria-label="Main"><ul><li><a href="/docs">Docs</a></li><li><a href="/blog">Blog</a></li></ul></nav>
<main>
  <h1>Sign in</h1>
  <p>Welcome <b>back</b>, friend.</p>
  <label for=email>Email</label><input id=email name=email type=email value="ada@example.com" placeholder="you@example.com">
  <label for=pw>Password</label><input id=pw name=password type=password value="hunter2hunter2">
  <input type=checkbox id=remember checked aria-label="Remember me">
  <button type=submit disabled>Sign in</button>
  <p hidden>Hidden text</p>
  <div aria-hidden="true">Decoration</div>
  <p>API key: sk_live_4f9a8b7c6d5e4f3a2b1c0d9e</p>
  <img alt="Logo" src="logo.png">
  <h2>Next</h2>
</main>"#;

mod aria_format {
    use super::*;

    #[test]
    fn renders_playwright_yaml() {
        let page = Page::from_html(LOGIN);
        let text = observe("aria", &page).text;
        let expected_lines = [
            "- navigation \"Main\":",
            "  - list:",
            "    - listitem:",
            "      - link \"Docs\" [ref=e1]:",
            "        - /url: /docs",
            "- main:",
            "  - heading \"Sign in\" [level=1]",
            "  - paragraph: Welcome back, friend.",
            "  - checkbox \"Remember me\" [checked] [ref=e",
            "  - button \"Sign in\" [disabled] [ref=e",
            "  - img \"Logo\"",
            "  - heading \"Next\" [level=2]",
        ];
        for line in expected_lines {
            assert!(text.contains(line), "missing {line:?} in\n{text}");
        }
        assert!(
            text.contains("  - textbox \"Email\" [ref=e3]:\n    - /placeholder: you@example.com\n    - text: ada@example.com"),
            "{text}"
        );
        assert!(!text.contains("Hidden text"), "{text}");
        assert!(!text.contains("Decoration"), "{text}");
    }

    #[test]
    fn a_name_past_900_characters_is_not_printed_and_a_lone_text_equal_to_it_goes() {
        // Layout cells named from a whole article: the name is not printed,
        // the content is; a lone text child equal to the name is dropped as
        // Playwright drops it, however long.
        let words = "lorem ipsum dolor sit amet ".repeat(60);
        let secret = "sk_live_4f9a8b7c6d5e4f3a2b1c0d9e";
        let page = Page::from_html(&format!(
            r#"<table><tr><td>{words}<a href="/a">Next</a> {secret}</td><td>{words}</td><td>short</td></tr></table>"#
        ));
        let text = observe("aria", &page).text;
        let lines: Vec<&str> = text.lines().filter(|l| l.contains("- cell")).collect();
        assert_eq!(lines[0].trim(), "- cell:", "{text}");
        assert_eq!(lines[1].trim(), "- cell", "{text}");
        assert_eq!(lines[2].trim(), "- cell \"short\"", "{text}");
        assert!(text.contains("- link \"Next\" [ref=e1]"), "{text}");
        assert!(text.contains("lorem ipsum dolor"), "{text}");
        assert!(!text.contains(secret), "{text}");
    }

    #[test]
    fn a_nameless_control_reads_its_first_words_across_pieces() {
        // Words run across elements (glyph spans): the first twelve are kept
        // whole, however many pieces follow.
        let glyphs = "<span>x</span>".repeat(3000);
        let page = Page::from_html(&format!(
            r#"<div tabindex="0" onclick="go()"><span>qua</span><span>dratic</span> one two three four five six seven eight nine ten {glyphs} <span>never</span></div>"#
        ));
        let observation = observe("aria", &page);
        let item = observation
            .meta
            .items
            .iter()
            .find(|i| i.name.is_empty())
            .unwrap_or_else(|| panic!("no nameless item: {}", observation.text));
        assert_eq!(
            item.context,
            format!(
                "quadratic one two three four five six seven eight nine ten {}",
                "x".repeat(3000)
            )
        );
    }

    #[test]
    fn text_equal_to_name_is_not_repeated_and_text_is_inlined() {
        let page = Page::from_html(
            r#"<button>Go</button><p>Just text</p><a href="/x">Read <em>more</em></a>"#,
        );
        let text = observe("aria", &page).text;
        assert!(text.contains("- button \"Go\" [ref=e1]\n"), "{text}");
        assert!(text.contains("- paragraph: Just text"), "{text}");
        assert!(
            text.contains(
                "- link \"Read more\" [ref=e2]:\n  - /url: /x\n  - text: Read\n  - emphasis: more"
            ),
            "{text}"
        );
    }

    #[test]
    fn yaml_quoting_of_names_and_text() {
        let page = Page::from_html(
            r#"<button>Note: "quoted"</button><p>42</p><p>- dash</p><p>ok # not a comment</p>"#,
        );
        let text = observe("aria", &page).text;
        assert!(
            text.contains(r#"- 'button "Note: \"quoted\"" [ref=e1]'"#),
            "{text}"
        );
        assert!(text.contains("- paragraph: \"42\""), "{text}");
        assert!(text.contains("- paragraph: \"- dash\""), "{text}");
        assert!(
            text.contains("- paragraph: \"ok # not a comment\""),
            "{text}"
        );
    }

    #[test]
    fn select_options_and_states() {
        let page = Page::from_html(
            r#"<label>Country <select><option>France</option><option selected>Germany</option></select></label>
               <button aria-pressed="true">Bold</button><button aria-expanded="true">Menu</button>
               <input type=checkbox aria-checked="mixed" aria-label="All">"#,
        );
        let text = observe("aria", &page).text;
        assert!(text.contains("- option \"Germany\" [selected]"), "{text}");
        assert!(text.contains("- button \"Bold\" [pressed]"), "{text}");
        assert!(text.contains("- button \"Menu\" [expanded]"), "{text}");
    }

    #[test]
    fn clickable_generic_gets_a_node_with_its_ref() {
        // Text only: printed as Playwright prints the text, plus the ref.
        let page =
            Page::from_html(r#"<div tabindex="0">Open card</div><div><span>plain</span></div>"#);
        let text = observe("aria", &page).text;
        assert!(text.contains("- text [ref=e1]: Open card"), "{text}");
        assert!(text.contains("- text: plain"), "{text}");
        // With element children it stays a `generic` node holding them.
        let page =
            Page::from_html(r#"<div tabindex="0"><button>Star</button> Website redesign</div>"#);
        let text = observe("aria", &page).text;
        assert!(
            text.contains(
                "- generic [ref=e1]:\n  - button \"Star\" [ref=e2]\n  - text: Website redesign"
            ),
            "{text}"
        );
    }

    /// An SVG shape has no role (the `<svg>` is an img whose children are
    /// presentational); one an agent can act on (here focusable) is shown
    /// under the img with its ref, the others stay out.
    #[test]
    fn an_svg_shape_with_a_ref_is_shown_inside_its_img() {
        let page = Page::from_html(
            r#"<svg width="100" height="100"><circle tabindex="0" cx="50" cy="50" r="10"></circle><rect width="5" height="5"></rect></svg>"#,
        );
        let text = observe("aria", &page).text;
        assert!(text.contains("- img:\n  - generic [ref=e1]"), "{text}");
        assert_eq!(text.matches("generic").count(), 1, "{text}");
    }

    #[test]
    fn invalid_state_and_non_breaking_spaces_follow_playwright() {
        let page = Page::from_html(
            r#"<input aria-label="Amount" aria-invalid="true" value="12,5O0">
               <textarea aria-label="Notes" aria-invalid="spelling">teh</textarea>
               <p>Logged in &nbsp;|&nbsp; Log off</p>"#,
        );
        let text = observe("aria", &page).text;
        assert!(
            text.contains("- textbox \"Amount\" [invalid] [ref=e1]: 12,5O0"),
            "{text}"
        );
        assert!(
            text.contains("- textbox \"Notes\" [invalid=spelling] [ref=e2]: teh"),
            "{text}"
        );
        assert!(text.contains("- paragraph: Logged in | Log off"), "{text}");
    }
}

mod flat_format {
    use super::*;

    #[test]
    fn renders_indexed_lines() {
        let page = Page::from_html(LOGIN);
        let text = observe("flat", &page).text;
        let first = text.lines().next().unwrap();
        assert_eq!(
            first,
            "Page info: , \"Sign in\", 0.0 pages above, 0.0 pages below"
        );
        assert!(text.contains("\n[Start of page]\n"), "{text}");
        assert!(text.ends_with("[End of page]\n"), "{text}");
        for line in [
            "[1]<a href=/docs>Docs />",
            "[2]<a href=/blog>Blog />",
            "Sign in",
            "Welcome back, friend.",
            "<input name=email placeholder=you@example.com type=email value=ada@example.com />",
            "<input aria-label=\"Remember me\" type=checkbox checked=true />",
            "<button type=submit disabled>Sign in />",
        ] {
            assert!(text.contains(line), "missing {line:?} in\n{text}");
        }
        assert!(
            !text.contains("Hidden text") && !text.contains("Decoration"),
            "{text}"
        );
    }

    #[test]
    fn attribute_equal_to_text_is_dropped_and_long_values_capped() {
        let long = "x".repeat(300);
        let page = Page::from_html(&format!(
            r#"<button title="Save" class="btn" id="s">Save</button><a href="/{long}">Link</a><p>{long}</p>"#
        ));
        let text = observe("flat", &page).text;
        assert!(text.contains("[1]<button>Save />"), "{text}");
        assert!(
            text.contains(&format!("href=/{}…", "x".repeat(99))),
            "{text}"
        );
        assert!(text.contains(&format!("{}…", "x".repeat(200))), "{text}");
        assert!(!text.contains(&"x".repeat(201)), "{text}");
    }

    #[test]
    fn wrappers_collapse_and_nested_interactive_elements_indent() {
        let page = Page::from_html(
            r#"<div><div><div><label>Accept <input type=checkbox name=ok> terms</label></div></div></div>"#,
        );
        let text = observe("flat", &page).text;
        assert!(
            // The label is not a separate target: its checkbox has the ref.
            text.contains("\nAccept\n[1]<input name=ok type=checkbox checked=false />\nterms\n"),
            "{text}"
        );
    }
}

fn modal_page() -> (Page, usize, usize) {
    let mut b = RecordingBuilder::new();
    let body = b.body();
    let buy = b
        .element(body, "button", &[])
        .bounds(10.0, 10.0, 100.0, 30.0)
        .id();
    b.text(buy, "Buy now");
    let dialog = b
        .element(
            body,
            "div",
            &[
                ("role", "dialog"),
                ("aria-modal", "true"),
                ("aria-label", "Sign in"),
            ],
        )
        .bounds(300.0, 100.0, 400.0, 300.0)
        .position("fixed")
        .z_index("10")
        .id();
    let close = b
        .element(dialog, "button", &[])
        .bounds(310.0, 110.0, 80.0, 30.0)
        .id();
    b.text(close, "Close");
    (b.page(), buy, close)
}

mod modal {
    use super::*;

    #[test]
    fn reliable_modal_refs_only_inside_dialog() {
        let (page, buy, close) = modal_page();
        let aria = observe("aria", &page);
        assert!(
            aria.text
                .starts_with("# A modal is open. Only modal elements have refs.\n"),
            "{}",
            aria.text
        );
        assert!(
            aria.text.contains("- button \"Buy now\" [obscured]\n"),
            "{}",
            aria.text
        );
        assert!(
            aria.text
                .contains("- dialog \"Sign in\":\n  - button \"Close\" [ref=e1]"),
            "{}",
            aria.text
        );
        assert_eq!(
            aria.refs,
            vec![("e1".to_owned(), NodeId::from_index(close))]
        );
        assert_refs_sound(&page, &aria, aria_ref);

        let flat = observe("flat", &page);
        assert!(
            flat.text
                .starts_with("A modal dialog is open; only its elements have indexes.\n"),
            "{}",
            flat.text
        );
        assert!(
            flat.text.contains("\n<button>Buy now />\n"),
            "{}",
            flat.text
        );
        assert!(
            flat.text.contains("\n[1]<button>Close />\n"),
            "{}",
            flat.text
        );
        assert!(flat.refs.iter().all(|(_, id)| id.index() != buy));
        assert_refs_sound(&page, &flat, flat_ref);
    }

    #[test]
    fn suspected_overlay_only_warns() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let buy = b
            .element(body, "button", &[])
            .bounds(10.0, 10.0, 100.0, 30.0)
            .id();
        b.text(buy, "Buy now");
        b.element(body, "div", &[])
            .bounds(0.0, 0.0, 1280.0, 720.0)
            .position("fixed")
            .z_index("5000")
            .pointer_events("none");
        // pointer-events: none never counts; a real overlay that lets the button show:
        let overlay = b
            .element(body, "div", &[])
            .bounds(0.0, 600.0, 1280.0, 120.0)
            .id();
        b.text(overlay, "footer");
        let page = b.page();
        let analysis = Analysis::new(&page);
        if analysis.modal.kind != pagesnap_engine::analyze::ModalKind::Suspected {
            // Build a genuine suspected overlay instead.
            let mut b = RecordingBuilder::new();
            let body = b.body();
            let buy = b
                .element(body, "button", &[])
                .bounds(10.0, 10.0, 100.0, 30.0)
                .id();
            b.text(buy, "Buy now");
            let overlay = b
                .element(body, "div", &[])
                .bounds(0.0, 0.0, 1280.0, 720.0)
                .position("fixed")
                .z_index("5000")
                .background("rgba(0, 0, 0, 0.5)")
                .id();
            b.text(overlay, "Subscribe!");
            let page = b.page();
            assert_eq!(
                Analysis::new(&page).modal.kind,
                pagesnap_engine::analyze::ModalKind::Suspected
            );
            let aria = observe("aria", &page);
            assert!(
                aria.text
                    .starts_with("# Warning: an overlay may cover the page.\n"),
                "{}",
                aria.text
            );
            assert!(!aria.text.contains("[obscured]"), "{}", aria.text);
            let flat = observe("flat", &page);
            assert!(
                flat.text
                    .starts_with("Warning: an overlay may cover the page"),
                "{}",
                flat.text
            );
            assert_eq!(
                aria.meta.warnings,
                vec!["an overlay may cover the page".to_owned()]
            );
        }
    }
}

/// A 720px viewport over a 3000px document, scrolled to `y`, with one
/// button in each of three bands.
fn long_page(y: f64) -> (Page, [usize; 3]) {
    let mut b = RecordingBuilder::new();
    b.document_size(1280.0, 3000.0).scroll_to(0.0, y);
    let body = b.body();
    let mut ids = [0; 3];
    for (slot, top) in [(0, 100.0), (1, 1500.0), (2, 2900.0)] {
        let button = b
            .element(body, "button", &[])
            .bounds(10.0, top, 100.0, 30.0)
            .id();
        b.text(button, &format!("Button {slot}"));
        ids[slot] = button;
    }
    (b.page(), ids)
}

mod viewport {
    use super::*;

    #[test]
    fn page_position_lines_top_middle_bottom() {
        let (top, _) = long_page(0.0);
        let text = observe("aria", &top).text;
        assert!(
            text.starts_with(
                "# Page position: 0 viewports above, 3 below.\n# You are at the top of the page.\n"
            ),
            "{text}"
        );
        let flat = observe("flat", &top).text;
        assert!(
            flat.contains("0.0 pages above, 3.2 pages below\n[Start of page]\n"),
            "{flat}"
        );
        assert!(
            flat.ends_with("... 2280 pixels below - scroll to see more ...\n"),
            "{flat}"
        );

        let (middle, _) = long_page(1200.0);
        let text = observe("aria", &middle).text;
        assert!(
            text.starts_with("# Page position: 1 viewport above, 1 below.\n- "),
            "{text}"
        );
        let flat = observe("flat", &middle).text;
        assert!(
            flat.contains("\n... 1200 pixels above - scroll to see more ...\n"),
            "{flat}"
        );

        let (bottom, _) = long_page(2280.0);
        let text = observe("aria", &bottom).text;
        assert!(text.starts_with("# Page position: 3 viewports above, 0 below.\n# You are at the bottom of the page.\n"), "{text}");
        assert!(observe("flat", &bottom).text.ends_with("[End of page]\n"));
    }

    #[test]
    fn viewport_only_shows_viewport_and_hints_below() {
        let (page, ids) = long_page(0.0);
        let options = Options {
            full_page: Some(false),
            ..Options::default()
        };
        let aria = observe_with("aria", &page, &options);
        assert!(aria.text.contains("# There are interactive elements below the viewport not shown in detail. Scroll down to see them.\n"), "{}", aria.text);
        assert!(
            aria.text.contains("Button 0") && !aria.text.contains("Button 1"),
            "{}",
            aria.text
        );
        assert_eq!(
            aria.refs,
            vec![("e1".to_owned(), NodeId::from_index(ids[0]))]
        );
        let flat = observe_with("flat", &page, &options);
        assert!(
            flat.text.contains("[1]<button>Button 0 />") && !flat.text.contains("Button 2"),
            "{}",
            flat.text
        );
        assert!(
            flat.text
                .ends_with("... 2280 pixels below - scroll to see more ...\n")
        );

        let full = observe("aria", &page);
        assert_eq!(full.refs.len(), 3);
        assert!(!full.text.contains("There are interactive elements below"));
    }

    #[test]
    fn scroll_containers_report_their_distances() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let list = b
            .element(body, "div", &[])
            .bounds(0.0, 0.0, 300.0, 200.0)
            .overflow("auto")
            .scroll_state(ScrollState {
                x: 0.0,
                y: 100.0,
                width: 300.0,
                height: 900.0,
                client_width: 300.0,
                client_height: 200.0,
            })
            .id();
        let item = b.element(list, "p", &[]).bounds(0.0, 0.0, 300.0, 20.0).id();
        b.text(item, "Item one");
        let text = observe("flat", &b.page()).text;
        assert!(
            text.contains("<div data-scrollable=\"top=100, bottom=600\" />\n\tItem one\n"),
            "{text}"
        );
    }
}

mod novelty {
    use super::*;

    #[test]
    fn new_elements_are_marked() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let a = b
            .element(body, "button", &[])
            .bounds(10.0, 10.0, 100.0, 30.0)
            .id();
        b.text(a, "Old");
        let before = b.page();
        let new = b
            .element(body, "button", &[])
            .bounds(10.0, 50.0, 100.0, 30.0)
            .id();
        b.text(new, "Fresh");
        let after = b.page();
        for (name, old_mark, new_mark) in [
            (
                "aria",
                "- button \"Old\" [ref=e1]\n",
                "- button \"Fresh\" [ref=e2] [new]",
            ),
            ("flat", "\n[1]<button>Old />", "\n*[2]<button>Fresh />"),
        ] {
            let first = observe(name, &before);
            let options = Options {
                previous: Some(&first),
                ..Options::default()
            };
            let second = observe_with(name, &after, &options);
            assert!(second.text.contains(old_mark), "{}", second.text);
            assert!(second.text.contains(new_mark), "{}", second.text);
            assert_eq!(
                second.resolve(if name == "aria" { "e2" } else { "2" }),
                Some(NodeId::from_index(new))
            );
        }
    }
}

mod redaction {
    use super::*;

    #[test]
    fn secrets_never_appear() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        b.element(
            body,
            "input",
            &[
                ("type", "password"),
                ("name", "pw"),
                ("value", "attr-secret-pw"),
            ],
        )
        .bounds(10.0, 10.0, 200.0, 30.0)
        .value("hunter2-live-secret");
        let key = b
            .element(body, "p", &[])
            .bounds(10.0, 50.0, 600.0, 20.0)
            .id();
        b.text(key, "Your key: sk_live_4f9a8b7c6d5e4f3a2b1c0d9e8f");
        b.element(
            body,
            "input",
            &[("name", "api_key"), ("aria-label", "API key")],
        )
        .bounds(10.0, 80.0, 200.0, 30.0)
        .value("plainlookingvalue");
        let page = b.page();
        for name in ["aria", "flat"] {
            let o = observe(name, &page);
            for secret in [
                "hunter2",
                "attr-secret-pw",
                "sk_live_4f9a8b7c6d5e4f3a2b1c0d9e8f",
                "plainlookingvalue",
            ] {
                assert!(
                    !o.text.contains(secret),
                    "{name} leaks {secret}:\n{}",
                    o.text
                );
                let meta = serde_json::to_string(&o.meta).unwrap();
                assert!(!meta.contains(secret), "{name} meta leaks {secret}");
            }
            assert!(o.text.contains("[redacted]"), "{}", o.text);
            assert!(o.meta.counts.redacted >= 2, "{name}: {:?}", o.meta.counts);
        }
        let from_html = Page::from_html(LOGIN);
        for name in ["aria", "flat"] {
            let text = observe(name, &from_html).text;
            assert!(
                !text.contains("hunter2hunter2")
                    && !text.contains("sk_live_4f9a8b7c6d5e4f3a2b1c0d9e"),
                "{text}"
            );
        }
    }
}

mod budget {
    use super::*;

    #[test]
    fn truncation_says_so_and_keeps_viewport_refs() {
        let mut b = RecordingBuilder::new();
        b.document_size(1280.0, 20000.0);
        let body = b.body();
        let first = b
            .element(body, "button", &[])
            .bounds(10.0, 10.0, 100.0, 30.0)
            .id();
        b.text(first, "In view");
        for i in 0..200 {
            let p = b
                .element(body, "p", &[])
                .bounds(0.0, 1000.0 + 60.0 * f64::from(i), 800.0, 20.0)
                .id();
            b.text(
                p,
                &format!("Paragraph number {i} with some words to spend tokens on"),
            );
            let a = b
                .element(body, "a", &[("href", "/x")])
                .bounds(0.0, 1020.0 + 60.0 * f64::from(i), 80.0, 20.0)
                .id();
            b.text(a, &format!("link {i}"));
        }
        let page = b.page();
        for (name, kept) in [
            ("aria", "- button \"In view\" [ref=e1]"),
            ("flat", "[1]<button>In view />"),
        ] {
            let options = Options {
                max_tokens: Some(300),
                ..Options::default()
            };
            let o = observe_with(name, &page, &options);
            assert!(
                o.text.contains("not shown, truncated to fit 300 tokens"),
                "{}",
                o.text
            );
            assert!(o.text.contains(kept), "{}", o.text);
            assert!(o.meta.counts.truncated > 0);
            assert!(
                pagesnap_engine::passes::budget::estimate_tokens(&o.text) <= 330,
                "{}",
                o.text.len()
            );
        }
    }
}

mod layers {
    use super::*;

    fn layered() -> Page {
        Page::from_html(
            r#"<header><a href="/">Home</a></header><form id=f aria-label="Search"><input name=q aria-label="Query"><button>Go</button></form><p>Outside</p>"#,
        )
    }

    #[test]
    fn only_the_active_layer_is_rendered() {
        let page = layered();
        let options = Options {
            layers: vec![Layer {
                name: "search".to_owned(),
                selectors: vec!["#f".to_owned()],
            }],
            active_layers: vec!["search".to_owned()],
            ..Options::default()
        };
        for name in ["aria", "flat"] {
            let o = observe_with(name, &page, &options);
            assert!(
                !o.text.contains("Home") && !o.text.contains("Outside"),
                "{}",
                o.text
            );
            assert!(o.text.contains("Go"), "{}", o.text);
            assert_eq!(o.refs.len(), 2, "{}", o.text);
        }
    }

    #[test]
    fn unknown_layer_is_an_error() {
        let page = layered();
        let options = Options {
            active_layers: vec!["nope".to_owned()],
            ..Options::default()
        };
        for name in ["aria", "flat"] {
            let err = try_observe(name, &page, &options).unwrap_err();
            assert!(matches!(err, ObserveError::UnknownLayer { .. }), "{err}");
        }
    }
}

mod trees {
    use super::*;
    use pagesnap_engine::recording::NodeKind;

    #[test]
    fn shadow_roots_and_iframes_render_in_place_user_agent_roots_skipped() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let host = b
            .element(body, "x-card", &[])
            .bounds(0.0, 0.0, 300.0, 100.0)
            .id();
        let root = b.node_of_kind(host, NodeKind::ShadowRootOpen).id();
        let inner = b
            .element(root, "button", &[])
            .bounds(10.0, 10.0, 80.0, 30.0)
            .id();
        b.text(inner, "Shadow button");
        let input = b
            .element(body, "input", &[("aria-label", "Name")])
            .bounds(0.0, 120.0, 200.0, 30.0)
            .value("Ada")
            .id();
        let ua = b.node_of_kind(input, NodeKind::ShadowRootUserAgent).id();
        let ua_div = b
            .element(ua, "div", &[])
            .bounds(0.0, 120.0, 200.0, 30.0)
            .id();
        b.text(ua_div, "UA internals");
        let frame = b
            .element(body, "iframe", &[])
            .bounds(0.0, 200.0, 400.0, 200.0)
            .id();
        let doc = b.node_of_kind(frame, NodeKind::IframeDocument).id();
        let html = b
            .element(doc, "html", &[])
            .bounds(0.0, 200.0, 400.0, 200.0)
            .id();
        let fbody = b
            .element(html, "body", &[])
            .bounds(0.0, 200.0, 400.0, 200.0)
            .id();
        let link = b
            .element(fbody, "a", &[("href", "/in-frame")])
            .bounds(10.0, 210.0, 80.0, 20.0)
            .id();
        b.text(link, "Frame link");
        let page = b.page();
        let aria = observe("aria", &page);
        assert!(
            aria.text.contains("- button \"Shadow button\" [ref=e1]"),
            "{}",
            aria.text
        );
        assert!(
            aria.text.contains("- textbox \"Name\" [ref=e2]: Ada"),
            "{}",
            aria.text
        );
        assert!(
            aria.text
                .contains("- iframe:\n  - link \"Frame link\" [ref=e3]:\n    - /url: /in-frame"),
            "{}",
            aria.text
        );
        assert!(!aria.text.contains("UA internals"), "{}", aria.text);
        let flat = observe("flat", &page);
        assert!(
            flat.text.contains("[1]<button>Shadow button />"),
            "{}",
            flat.text
        );
        assert!(
            flat.text.contains("[3]<a href=/in-frame>Frame link />"),
            "{}",
            flat.text
        );
        assert!(!flat.text.contains("UA internals"), "{}", flat.text);
        assert_refs_sound(&page, &aria, aria_ref);
        assert_refs_sound(&page, &flat, flat_ref);
    }
}

mod invariants {
    use super::*;

    #[test]
    fn deterministic_and_refs_sound_on_every_page() {
        let (modal, _, _) = modal_page();
        let (long, _) = long_page(1200.0);
        let pages = [Page::from_html(LOGIN), modal, long];
        for page in &pages {
            for name in ["aria", "flat"] {
                let a = observe(name, page);
                let b = observe(name, page);
                assert_eq!(a.text, b.text);
                assert_eq!(a.refs, b.refs);
                assert_eq!(a.meta, b.meta);
                let printed = if name == "aria" { aria_ref } else { flat_ref };
                assert_refs_sound(page, &a, printed);
                // Refs are in target (document) order.
                assert!(a.refs.windows(2).all(|w| w[0].1 < w[1].1));
            }
        }
    }

    #[test]
    fn explain_has_what_and_example() {
        for name in ["aria", "flat"] {
            let s = strategy(name);
            assert!(s.explain().contains("What it produces") && s.explain().contains("Example"));
            assert_eq!(s.name(), name);
        }
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let html = format!(
            "{}<button>deep</button>{}",
            "<div>".repeat(3000),
            "</div>".repeat(3000)
        );
        let page = Page::from_html(&html);
        for name in ["aria", "flat"] {
            let o = observe(name, &page);
            assert!(o.text.contains("deep"));
        }
    }
}

/// Depth of a YAML line of `aria` (two spaces per level), `None` for comments.
fn yaml_depth(line: &str) -> Option<usize> {
    let trimmed = line.trim_start();
    (!trimmed.starts_with('#')).then(|| (line.len() - trimmed.len()) / 2)
}

/// Per line, the index of its parent line (nearest earlier line less deep).
fn yaml_parents(lines: &[&str]) -> Vec<Option<usize>> {
    let mut open: Vec<(usize, usize)> = Vec::new();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(depth) = yaml_depth(line) else {
            out.push(None);
            continue;
        };
        while open.last().is_some_and(|&(_, d)| d >= depth) {
            open.pop();
        }
        out.push(open.last().map(|&(at, _)| at));
        open.push((i, depth));
    }
    out
}

#[test]
fn aria_under_a_token_budget_is_valid_yaml_and_keeps_every_line_under_its_parent() {
    for path in crate::common::fixture_recordings() {
        let page = Page::from_recording(
            &pagesnap_engine::recording::Recording::from_gz_bytes(
                &std::fs::read(&path).unwrap(),
                &path.display().to_string(),
            )
            .unwrap(),
        );
        let full = observe("aria", &page).text;
        for max_tokens in [60, 200, 800] {
            let options = Options {
                max_tokens: Some(max_tokens),
                ..Options::default()
            };
            let cut = observe_with("aria", &page, &options).text;
            let docs = yaml_rust2::YamlLoader::load_from_str(&cut);
            assert!(
                docs.is_ok(),
                "{} at {max_tokens} tokens is not YAML ({:?}):\n{cut}",
                path.display(),
                docs.err()
            );
            // Every kept line with a ref (refs make lines unique) has the
            // same chain of ancestors as in the full output.
            let chains = |text: &str| {
                let lines: Vec<&str> = text.lines().collect();
                let parents = yaml_parents(&lines);
                let mut out = std::collections::BTreeMap::new();
                for (i, line) in lines.iter().enumerate() {
                    if !line.contains("[ref=") {
                        continue;
                    }
                    let mut chain = Vec::new();
                    let mut at = parents[i];
                    while let Some(p) = at {
                        chain.push(lines[p].to_owned());
                        at = parents[p];
                    }
                    out.insert(line.to_string(), chain);
                }
                out
            };
            let full_chains = chains(&full);
            for (line, chain) in chains(&cut) {
                assert_eq!(
                    Some(&chain),
                    full_chains.get(&line),
                    "{} at {max_tokens} tokens: {line:?} moved to other parents:\n{cut}",
                    path.display()
                );
            }
        }
    }
}

mod snapshot_ids {
    use super::*;

    /// The meta's snapshot id: 16 lowercase hex digits, equal for equal
    /// input, and changed by the page, the strategy and every option that
    /// changes the observation.
    #[test]
    fn equal_inputs_share_an_id_and_any_difference_changes_it() {
        let page = Page::from_html(r#"<p>Hello</p><a href="/x">Go</a>"#);
        let other = Page::from_html(r#"<p>Hello!</p><a href="/x">Go</a>"#);
        let id = |name: &str, page: &Page, options: &Options<'_>| {
            observe_with(name, page, options).meta.snapshot_id
        };
        let base = Options::default();
        let first = id("aria", &page, &base);
        assert_eq!(first.len(), 16, "{first}");
        assert!(
            first
                .bytes()
                .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')),
            "{first}"
        );
        assert_eq!(first, id("aria", &page, &base));
        fn layers() -> Vec<Layer> {
            vec![
                Layer {
                    name: "main".to_owned(),
                    selectors: vec!["p".to_owned()],
                },
                Layer {
                    name: "links".to_owned(),
                    selectors: vec!["a".to_owned()],
                },
            ]
        }
        let with = |change: fn(&mut Options<'_>)| {
            let mut options = Options::default();
            change(&mut options);
            id("aria", &page, &options)
        };
        let mut all = vec![
            first,
            id("flat", &page, &base),
            id("aria", &other, &base),
            with(|o| o.full_page = Some(true)),
            with(|o| o.full_page = Some(false)),
            with(|o| o.max_tokens = Some(500)),
            with(|o| o.redact = false),
            with(|o| {
                o.layers = layers();
                o.active_layers = vec!["main".to_owned()];
            }),
            with(|o| {
                o.layers = layers();
                o.active_layers = vec!["links".to_owned()];
            }),
            with(|o| {
                o.layers = layers();
                o.layers[0].selectors = vec!["a".to_owned()];
                o.active_layers = vec!["main".to_owned()];
            }),
        ];
        let count = all.len();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), count, "{all:?}");
    }
}
