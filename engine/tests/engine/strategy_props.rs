//! Invariants of every strategy, on arbitrary pages: no panic, refs unique and actionable, deterministic, secrets never leak.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

use std::collections::HashSet;

use pagesnap_engine::analyze::{Analysis, Analyzed};
use pagesnap_engine::observation::Observation;
use pagesnap_engine::page::Page;
use pagesnap_engine::strategy::{Options, STRATEGIES, Strategy as Observer};
use pagesnap_engine::testing::RecordingBuilder;
use proptest::prelude::*;

/// A white PNG of the pages' 1280×720 viewport, so `som` has a screenshot
/// to draw on (it refuses one of another size).
fn tiny_png() -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, 1280, 720);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().unwrap();
        writer
            .write_image_data(&vec![255u8; 1280 * 720 * 3])
            .unwrap();
    }
    out
}

fn observe_all(page: &Page, png: &[u8]) -> Vec<(&'static str, Observation)> {
    STRATEGIES
        .iter()
        .map(|s| {
            let options = Options {
                screenshot: Some(png),
                ..Options::default()
            };
            let observation = s
                .observe(&Analyzed::new(page.clone()), &options)
                .unwrap_or_else(|e| panic!("{}: {e}", s.name()));
            (s.name(), observation)
        })
        .collect()
}

fn check_refs(page: &Page, name: &str, observation: &Observation) {
    let analysis = Analysis::new(page);
    let mut seen = HashSet::new();
    for (reference, id) in &observation.refs {
        assert!(
            seen.insert(reference.clone()),
            "{name}: duplicate ref {reference}"
        );
        assert!(
            analysis.is_actionable(*id),
            "{name}: ref {reference} names a node that is not actionable"
        );
        assert!(
            !analysis.obscured[id.index()],
            "{name}: ref {reference} is obscured"
        );
        assert_eq!(observation.resolve(reference), Some(*id));
    }
    assert_eq!(
        observation.meta.items.len(),
        observation.refs.len(),
        "{name}"
    );
}

const TAGS: &[&str] = &[
    "div", "span", "p", "a", "button", "input", "select", "option", "textarea", "label", "form",
    "fieldset", "legend", "ul", "li", "table", "tr", "td", "th", "h1", "h2", "nav", "main",
    "header", "footer", "section", "dialog", "details", "summary", "img", "svg", "iframe",
    "template", "script", "style",
];
const ATTRS: &[&str] = &[
    "href=\"#x\"",
    "role=\"button\"",
    "role=\"dialog\" aria-modal=\"true\"",
    "aria-hidden=\"true\"",
    "hidden",
    "disabled",
    "tabindex=\"0\"",
    "aria-label=\"Go\"",
    "type=\"password\" value=\"pw-Secret-1\"",
    "type=\"checkbox\" checked",
    "id=\"a\"",
    "for=\"a\"",
    "aria-labelledby=\"a\"",
    "contenteditable",
    "style=\"display:none\"",
    "open",
    "",
];

fn arb_html() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        "[a-zA-Z ]{0,12}".prop_map(|t| t),
        Just("<br>".to_owned()),
        Just("<input name=q value=hello>".to_owned()),
    ];
    leaf.prop_recursive(6, 64, 4, |inner| {
        (
            0..TAGS.len(),
            0..ATTRS.len(),
            prop::collection::vec(inner, 0..4),
        )
            .prop_map(|(t, a, kids)| {
                let tag = TAGS[t];
                format!("<{tag} {}>{}</{tag}>", ATTRS[a], kids.join(""))
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn arbitrary_html_never_panics_and_refs_are_sound(body in arb_html()) {
        let page = Page::from_html(&format!("<!doctype html><title>t</title><body>{body}</body>"));
        let png = tiny_png();
        for (name, observation) in observe_all(&page, &png) {
            check_refs(&page, name, &observation);
        }
    }

    #[test]
    fn under_any_budget_every_ref_offered_is_in_the_text(body in arb_html(), budget in 40usize..600) {
        // A ref the budget cut from the text cannot be acted on: it must not
        // be offered (nor count for target recall).
        let page = Page::from_html(&format!(
            "<!doctype html><title>t</title><body>{body}{}</body>",
            "<button>Many</button><p>Filler text of the page</p>".repeat(40)
        ));
        for name in ["aria", "flat", "structural", "html", "html-pruned"] {
            let observer = STRATEGIES.iter().find(|s| s.name() == name).unwrap();
            let options = Options { max_tokens: Some(budget), ..Options::default() };
            let observation = observer.observe(&Analyzed::new(page.clone()), &options).unwrap();
            check_refs(&page, name, &observation);
            for (reference, _) in &observation.refs {
                let printed = match name {
                    "aria" => format!("[ref={reference}]"),
                    "html" | "html-pruned" => format!("data-ref=\"{reference}\""),
                    _ => format!("[{reference}]"),
                };
                prop_assert!(observation.text.contains(&printed), "{name}@{budget}: {printed} offered, not shown:\n{}", observation.text);
            }
            // And the other way: a ref the text shows is offered.
            if name == "aria" {
                for piece in observation.text.split("[ref=").skip(1) {
                    let reference = piece.split(']').next().unwrap_or("");
                    prop_assert!(observation.resolve(reference).is_some(), "{name}@{budget}: {reference} shown, not offered");
                }
            }
        }
    }

    #[test]
    fn arbitrary_recordings_never_panic_and_refs_are_sound(
        nodes in prop::collection::vec((0usize..64, 0..TAGS.len(), 0..ATTRS.len(), 0f64..1400.0, 0f64..2000.0, 0f64..400.0, 0f64..200.0, any::<bool>(), 0u8..4), 1..60),
        scroll in 0f64..1000.0,
    ) {
        let mut b = RecordingBuilder::new();
        let mut parents = vec![b.body()];
        for (parent, tag, attr, x, y, w, h, clickable, style) in nodes {
            let parent = parents[parent % parents.len()];
            let attrs: Vec<(String, String)> = ATTRS[attr]
                .split_whitespace()
                .map(|kv| match kv.split_once('=') {
                    Some((k, v)) => (k.to_owned(), v.trim_matches('"').to_owned()),
                    None => (kv.to_owned(), String::new()),
                })
                .collect();
            let attrs: Vec<(&str, &str)> = attrs.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            // A password value is a secret on a password field; elsewhere it is just an attribute.
            let tag = if ATTRS[attr].contains("password") { "input" } else { TAGS[tag] };
            b.element(parent, tag, &attrs).bounds(x, y, w, h);
            match style {
                1 => { b.position("fixed").z_index("5000").background("rgb(0, 0, 0)"); }
                2 => { b.cursor("pointer"); }
                3 => { b.opacity(0.0); }
                _ => {}
            }
            if clickable {
                b.clickable();
            }
            let id = b.id();
            b.text(id, "Some text sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c");
            parents.push(id);
        }
        let mut recording = b.build();
        recording.scroll.y = scroll;
        recording.document_size.height = 3000.0;
        let page = Page::from_recording(&recording);
        let png = tiny_png();
        for (name, observation) in observe_all(&page, &png) {
            check_refs(&page, name, &observation);
            let meta = serde_json::to_string(&observation.meta).unwrap();
            prop_assert!(!observation.text.contains("sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"), "{name} leaked a key");
            prop_assert!(!meta.contains("sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"), "{name} leaked a key in meta");
            prop_assert!(!observation.text.contains("pw-Secret-1"), "{name} leaked a password");
            prop_assert!(!meta.contains("pw-Secret-1"), "{name} leaked a password in meta");
        }
    }
}

/// Secrets planted in a value, an attribute, text and a label never appear
/// in any strategy's text, legend or meta.
#[test]
fn planted_secrets_never_appear() {
    const SECRETS: &[&str] = &[
        "hunter2-Secret!",
        "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "4242 4242 4242 4242",
        "078-05-1120",
        "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
    ];
    let html = format!(
        r#"<form>
          <label>Password <input type=password value="{0}"></label>
          <label for=k>API key</label><input id=k name=api_key value="{1}">
          <input name=token title="{2}" value="x">
          <label>Card <input autocomplete=cc-number value="{3}"></label>
          <p>Your SSN {4} is on file.</p>
          <button aria-label="Copy {5}">Copy</button>
          <a href="/t?k={1}">Token {5}</a>
        </form>"#,
        SECRETS[0], SECRETS[1], SECRETS[2], SECRETS[3], SECRETS[4], SECRETS[5]
    );
    let page = Page::from_html(&html);
    let png = tiny_png();
    for (name, observation) in observe_all(&page, &png) {
        let meta = serde_json::to_string(&observation.meta).unwrap();
        for secret in SECRETS {
            assert!(
                !observation.text.contains(secret),
                "{name} text leaks {secret}:\n{}",
                observation.text
            );
            assert!(!meta.contains(secret), "{name} meta leaks {secret}");
        }
        assert!(
            observation.meta.counts.redacted > 0,
            "{name} counted no redaction"
        );
    }
}

/// The same page gives byte-identical output across runs and threads.
#[test]
fn output_is_identical_across_runs_and_threads() {
    let html = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fixtures/sites/login/index.html"
    ))
    .unwrap();
    let png = tiny_png();
    let reference: Vec<(String, String)> = {
        let page = Page::from_html(&html);
        observe_all(&page, &png)
            .into_iter()
            .map(|(n, o)| (n.to_owned(), o.text))
            .collect()
    };
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|_| {
                scope.spawn(|| {
                    let page = Page::from_html(&html);
                    observe_all(&page, &png)
                        .into_iter()
                        .map(|(n, o)| (n.to_owned(), o.text))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for handle in handles {
            assert_eq!(handle.join().unwrap(), reference);
        }
    });
}

#[test]
fn registry_lists_every_strategy_once() {
    let names: Vec<&str> = STRATEGIES.iter().map(|s| s.name()).collect();
    for want in ["flat", "aria", "structural", "som", "html", "html-pruned"] {
        assert_eq!(
            names.iter().filter(|n| **n == want).count(),
            1,
            "{want} in {names:?}"
        );
        let s: &dyn Observer = pagesnap_engine::strategy::by_name(want).unwrap();
        assert!(
            s.explain().contains("Example"),
            "{want} explain() lacks an example"
        );
    }
    assert!(pagesnap_engine::strategy::by_name("nope").is_none());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Text split over inline elements at arbitrary points, wide whitespace
    /// included: the joined-text redaction never panics on a character
    /// boundary, and a card number split anywhere never appears whole.
    #[test]
    fn joined_redaction_survives_any_split(
        pieces in proptest::collection::vec("[a-zA-Z0-9 \u{a0}\u{3000}é.-]{0,12}", 1..12),
        cut in 0usize..20,
    ) {
        let card = " 4111111111111111 ";
        let (head, tail) = card.split_at(cut.min(card.len()));
        let mut html = String::from("<p>");
        for piece in &pieces {
            html.push_str(&format!("<span>{piece}</span>"));
        }
        html.push_str(&format!("<b>{head}</b><i>{tail}</i></p>"));
        let page = Page::from_html(&html);
        let analyzed = Analyzed::new(page);
        for name in ["aria", "html", "html-pruned", "flat"] {
            let strategy = pagesnap_engine::strategy::by_name(name).unwrap();
            let obs = strategy.observe(&analyzed, &Options::default()).unwrap();
            prop_assert!(!obs.text.contains("4111111111111111"), "{}: {}", name, obs.text);
        }
    }
}
