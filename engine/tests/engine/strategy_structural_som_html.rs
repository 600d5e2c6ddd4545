//! The `structural`, `som`, `html` and `html-pruned` strategies on real markup and hand-built recordings.
#![allow(
    clippy::unwrap_used,
    reason = "test helpers outside #[test] functions unwrap freely"
)]

use pagesnap_engine::page::Page;
use pagesnap_engine::recording::NodeKind;
use pagesnap_engine::strategy::{Layer, ObserveError, Options, STRATEGIES, by_name};
use pagesnap_engine::testing::RecordingBuilder;

use crate::common::{observe, try_observe};

const SECRETS_SITE: &str = include_str!("../../../fixtures/sites/secrets/index.html");

/// Every secret planted in `fixtures/sites/secrets`.
const SECRETS: &[&str] = &[
    "hunter2-Secret!",
    "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c",
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
    "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
    "4242 4242 4242 4242",
    "078-05-1120",
];

const MINE: [&str; 4] = ["structural", "som", "html", "html-pruned"];

/// A solid white RGB PNG.
fn white_png(width: u32, height: u32) -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().unwrap();
    writer
        .write_image_data(&vec![255; (width * height * 3) as usize])
        .unwrap();
    writer.finish().unwrap();
    out
}

/// Decodes a PNG into (width, height, RGB bytes).
fn decode(png_bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

fn pixel(image: &(u32, u32, Vec<u8>), x: u32, y: u32) -> [u8; 3] {
    let at = ((y * image.0 + x) * 3) as usize;
    [image.2[at], image.2[at + 1], image.2[at + 2]]
}

/// A 1280×720 viewport on a 2000px document: a heading and a strongly named
/// button top-left, a title-only (weak) button in the centre, an icon
/// button without a name bottom-right, and a button below the viewport.
fn zones_page() -> RecordingBuilder {
    let mut b = RecordingBuilder::new();
    b.document_size(1280.0, 2000.0);
    let body = b.body();
    let h2 = b
        .element(body, "h2", &[])
        .bounds(20.0, 20.0, 400.0, 30.0)
        .id();
    b.text(h2, "Shipping address");
    let submit = b
        .element(body, "button", &[])
        .bounds(20.0, 60.0, 100.0, 30.0)
        .id();
    b.text(submit, "Submit");
    b.element(body, "button", &[("title", "Settings")])
        .bounds(620.0, 350.0, 40.0, 30.0);
    b.element(body, "p", &[]).bounds(20.0, 500.0, 400.0, 20.0);
    let p = b.id();
    b.text(p, "Prices include VAT");
    b.element(body, "button", &[("class", "icon")])
        .bounds(1200.0, 660.0, 40.0, 40.0);
    let below = b
        .element(body, "button", &[])
        .bounds(20.0, 1500.0, 100.0, 30.0)
        .id();
    b.text(below, "Load more");
    b
}

mod structural {
    use super::*;

    #[test]
    fn zones_items_and_honesty() {
        let page = zones_page().page();
        let obs = observe("structural", &page, &Options::default());
        let text = &obs.text;
        assert!(text.starts_with("Page state:\n"), "{text}");
        let structure = text.split("Visible structure:\n").nth(1).unwrap();
        assert_eq!(
            structure,
            "top-left:\n\
             - heading \"Shipping address\" [level=2]\n\
             - [1] button \"Submit\" (name: text, strong) near \"Shipping address\"\n\
             center:\n\
             - [2] button \"Settings\" (name: title, weak)\n\
             bottom-left:\n\
             - text \"Prices include VAT\"\n\
             bottom-right:\n\
             - [3] button (name: unknown) near \"Prices include VAT\"\n"
        );
        assert!(!text.contains("Load more"), "{text}");
        assert!(
            text.contains("- Interactive: 3 visible (1 strong, 1 weak, 1 unknown), 1 more off-screen; exactUiClaims: unsafe"),
            "{text}"
        );
        assert!(
            text.contains("0 viewports above, 1 below; at the top."),
            "{text}"
        );
        let h = &obs.meta.observation;
        assert_eq!(
            (
                h.total_interactive,
                h.weak_interactive,
                h.unknown_interactive
            ),
            (3, 1, 1)
        );
        // 2 of 3 weak or unnamed is more than half.
        assert_eq!(h.exact_ui_claims.as_str(), "unsafe");
        let statuses: Vec<(&str, &str)> = obs
            .meta
            .items
            .iter()
            .map(|i| (i.name_source.as_str(), i.name_status.as_str()))
            .collect();
        assert_eq!(
            statuses,
            [
                ("text", "strong"),
                ("title", "weak"),
                ("unknown", "unknown")
            ]
        );
        assert_eq!(obs.meta.items[1].zone.as_str(), "center");
        assert_eq!(obs.refs.len(), 3);
        assert_eq!(obs.meta.counts.offscreen, 1);
    }

    #[test]
    fn honesty_is_safe_when_every_control_is_strongly_named() {
        let page = Page::from_html("<button>Save</button><a href=/x>Docs</a>");
        let obs = observe("structural", &page, &Options::default());
        assert_eq!(obs.meta.observation.exact_ui_claims.as_str(), "safe");
        assert!(obs.text.contains("anywhere (no layout):"), "{}", obs.text);
    }

    #[test]
    fn full_page_requests_are_ignored() {
        let page = zones_page().page();
        let options = Options {
            full_page: Some(true),
            ..Options::default()
        };
        let obs = observe("structural", &page, &options);
        assert!(!obs.text.contains("Load more"), "{}", obs.text);
        assert_eq!(obs.refs.len(), 3);
    }

    #[test]
    fn unknown_layer_is_an_error() {
        let page = Page::from_html("<main id=content><button>Go</button></main>");
        let options = Options {
            layers: vec![Layer {
                name: "content".to_owned(),
                selectors: vec!["#content".to_owned()],
            }],
            active_layers: vec!["assistant".to_owned()],
            ..Options::default()
        };
        for name in MINE {
            let options = Options {
                screenshot: None,
                ..options.clone()
            };
            let err = try_observe(name, &page, &options).unwrap_err();
            assert!(
                matches!(&err, ObserveError::UnknownLayer { name, known } if name == "assistant" && known == "content"),
                "{err}"
            );
        }
    }

    #[test]
    fn layers_limit_items() {
        let page = Page::from_html(
            "<main id=content><h1>Orders</h1><button>Refund</button></main>\
             <aside id=assistant><button>Ask</button><p>How can I help?</p></aside>",
        );
        let options = Options {
            layers: vec![
                Layer {
                    name: "content".to_owned(),
                    selectors: vec!["#content".to_owned()],
                },
                Layer {
                    name: "assistant".to_owned(),
                    selectors: vec!["#assistant".to_owned()],
                },
            ],
            active_layers: vec!["content".to_owned()],
            ..Options::default()
        };
        let obs = observe("structural", &page, &options);
        assert!(obs.text.contains("[1] button \"Refund\""), "{}", obs.text);
        assert!(obs.text.contains("- Layers: content"), "{}", obs.text);
        assert!(
            !obs.text.contains("Ask") && !obs.text.contains("help"),
            "{}",
            obs.text
        );
        assert_eq!(obs.refs.len(), 1);
        for name in ["html", "html-pruned"] {
            let obs = observe(name, &page, &options);
            assert!(
                obs.text.contains("Refund") && !obs.text.contains("Ask"),
                "{name}: {}",
                obs.text
            );
        }
    }

    #[test]
    fn reliable_modal_lists_only_its_contents() {
        let page = Page::from_html(
            "<main><button>Behind</button><p>Catalogue</p></main>\
             <div role=dialog aria-modal=true aria-label=Confirm><p>Delete it?</p><button>Yes</button></div>",
        );
        let obs = observe("structural", &page, &Options::default());
        assert!(
            obs.text
                .contains("- Modal: reliable — dialog \"Confirm\" is open"),
            "{}",
            obs.text
        );
        assert!(obs.text.contains("[1] button \"Yes\""), "{}", obs.text);
        assert!(
            !obs.text.contains("Behind") && !obs.text.contains("Catalogue"),
            "{}",
            obs.text
        );
    }

    #[test]
    fn suspected_overlay_warns() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let go = b
            .element(body, "button", &[])
            .bounds(10.0, 10.0, 80.0, 30.0)
            .id();
        b.text(go, "Go");
        b.element(body, "div", &[])
            .bounds(0.0, 0.0, 1280.0, 720.0)
            .position("fixed")
            .z_index("9999")
            .background("rgb(0, 0, 0)")
            .pointer_events("none");
        // pointer-events: none never counts; make a real one.
        b.style(|s| s.pointer_events = "auto".to_owned());
        let obs = observe("structural", &b.page(), &Options::default());
        assert!(
            obs.text.contains("- Modal: suspected — Warning:"),
            "{}",
            obs.text
        );
    }

    #[test]
    fn new_elements_are_marked() {
        let first = Page::from_html("<button>A</button>");
        let before = observe("structural", &first, &Options::default());
        let second = Page::from_html("<button>A</button><button>B</button>");
        let options = Options {
            previous: Some(&before),
            ..Options::default()
        };
        let after = observe("structural", &second, &options);
        assert!(after.text.contains("- [1] button \"A\""), "{}", after.text);
        assert!(after.text.contains("- *[2] button \"B\""), "{}", after.text);
    }

    #[test]
    fn budget_truncates_with_a_notice() {
        let mut html = String::from("<main>");
        for i in 0..200 {
            html.push_str(&format!("<p>Paragraph {i}</p><button>Button {i}</button>"));
        }
        let page = Page::from_html(&html);
        let options = Options {
            max_tokens: Some(300),
            ..Options::default()
        };
        let obs = observe("structural", &page, &options);
        assert!(
            obs.text.contains("truncated to fit 300 tokens"),
            "{}",
            obs.text
        );
        assert!(obs.text.starts_with("Page state:"));
        assert!(obs.meta.counts.truncated > 0);
    }
}

mod som {
    use super::*;

    fn button_page(scroll_y: f64) -> RecordingBuilder {
        let mut b = RecordingBuilder::new();
        b.document_size(1280.0, 2000.0).scroll_to(0.0, scroll_y);
        let body = b.body();
        let go = b
            .element(body, "button", &[])
            .bounds(100.0, 100.0 + scroll_y, 200.0, 50.0)
            .id();
        b.text(go, "Go");
        let off = b
            .element(body, "button", &[])
            .bounds(100.0, 1900.0, 200.0, 50.0)
            .id();
        b.text(off, "Far away");
        b
    }

    #[test]
    fn draws_numbered_boxes_and_a_legend() {
        let screenshot = white_png(1280, 720);
        let page = button_page(300.0).page();
        let options = Options {
            screenshot: Some(&screenshot),
            ..Options::default()
        };
        let obs = observe("som", &page, &options);
        let image = obs.image.as_ref().unwrap();
        assert_eq!((image.width, image.height), (1280, 720));
        let decoded = decode(&image.png);
        assert_eq!((decoded.0, decoded.1), (1280, 720));
        // The button sits at document y=400, the page is scrolled by 300:
        // image box (100, 100)–(300, 150); ref 1 is the palette's first colour.
        let red = pagesnap_engine::strategy::som::colour(1);
        assert_eq!(pixel(&decoded, 100, 125), red, "left edge");
        assert_eq!(pixel(&decoded, 101, 125), red, "2 px outline");
        assert_eq!(pixel(&decoded, 299, 125), red, "right edge");
        assert_eq!(pixel(&decoded, 200, 149), red, "bottom edge");
        assert_eq!(
            pixel(&decoded, 200, 125),
            [255, 255, 255],
            "centre untouched"
        );
        // The tag sits above the top-left corner: 18 px high (2×7 glyphs + 2×2 padding).
        assert_eq!(pixel(&decoded, 101, 83), red, "tag background");
        assert_eq!(pixel(&decoded, 500, 500), [255, 255, 255]);
        assert_eq!(
            obs.text,
            "Screenshot of the viewport with a numbered box around each element you can act on.\n\
             Page position: 0 viewports above, 1 below.\n\
             [1] button \"Go\"\n"
        );
        assert_eq!(obs.refs.len(), 1);
        let meta = obs.meta.image.as_ref().unwrap();
        assert_eq!((meta.width, meta.height), (1280, 720));
        // OpenAI: 1280×720 fits 2048² and its short side is under 768, so
        // ceil(1280/512)=3 × ceil(720/512)=2 = 6 tiles: 6×170 + 85 = 1105.
        assert_eq!(meta.openai_tokens, 1105);
        // Anthropic: long edge 1280 ≤ 1568, 921600 px ≤ 1.15 MP: ceil(921600/750) = 1229.
        assert_eq!(meta.anthropic_tokens, 1229);
        // Gemini: larger than 384², ceil(1280/768)=2 × ceil(720/768)=1 tiles × 258 = 516.
        assert_eq!(meta.gemini_tokens, 516);
    }

    #[test]
    fn token_formulas() {
        use pagesnap_engine::strategy::som::{anthropic_tokens, gemini_tokens, openai_tokens};
        // OpenAI's own examples: 1024×1024 → 768×768, 4 tiles → 765; 2048×4096 → 768×1536, 6 tiles → 1105.
        assert_eq!(openai_tokens(1024, 1024), 765);
        assert_eq!(openai_tokens(2048, 4096), 1105);
        // 2560×1440 → 1365×768: 3×2 tiles → 1105.
        assert_eq!(openai_tokens(2560, 1440), 1105);
        // 2560×1440 → long edge 1568 gives 1568×882 = 1.38 MP > 1.15 MP, so
        // scale by sqrt(1.15e6 / 3686400): 1429×804 → ceil(1148916/750) = 1532.
        assert_eq!(anthropic_tokens(2560, 1440), 1532);
        assert_eq!(anthropic_tokens(200, 200), 54);
        assert_eq!(gemini_tokens(384, 384), 258);
        assert_eq!(gemini_tokens(385, 100), 258);
        assert_eq!(gemini_tokens(2560, 1440), 4 * 2 * 258);
    }

    #[test]
    fn device_scale_factor_scales_boxes() {
        let screenshot = white_png(2560, 1440);
        let mut recording = button_page(0.0).build();
        recording.viewport.device_scale_factor = 2.0;
        let page = Page::from_recording(&recording);
        let options = Options {
            screenshot: Some(&screenshot),
            ..Options::default()
        };
        let obs = observe("som", &page, &options);
        let decoded = decode(&obs.image.as_ref().unwrap().png);
        assert_eq!((decoded.0, decoded.1), (2560, 1440));
        let red = pagesnap_engine::strategy::som::colour(1);
        assert_eq!(pixel(&decoded, 200, 250), red, "left edge at 2×100");
        assert_eq!(pixel(&decoded, 599, 250), red, "right edge at 2×300 − 1");
        assert_eq!(pixel(&decoded, 400, 250), [255, 255, 255]);
    }

    #[test]
    fn tag_goes_below_when_the_box_touches_the_top() {
        let screenshot = white_png(1280, 720);
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let go = b
            .element(body, "button", &[])
            .bounds(10.0, 0.0, 100.0, 30.0)
            .id();
        b.text(go, "Top");
        let options = Options {
            screenshot: Some(&screenshot),
            ..Options::default()
        };
        let obs = observe("som", &b.page(), &options);
        let decoded = decode(&obs.image.as_ref().unwrap().png);
        let red = pagesnap_engine::strategy::som::colour(1);
        assert_eq!(pixel(&decoded, 11, 40), red, "tag below the box");
        assert_eq!(pixel(&decoded, 60, 15), [255, 255, 255], "centre untouched");
    }

    /// A live capture takes a screenshot only for strategies that say they
    /// need one: every other strategy must render without it.
    #[test]
    fn only_strategies_that_need_a_screenshot_fail_without_one() {
        let page = button_page(0.0).page();
        for strategy in pagesnap_engine::strategy::STRATEGIES {
            let result = try_observe(strategy.name(), &page, &Options::default());
            assert_eq!(
                matches!(result, Err(ObserveError::MissingScreenshot { .. })),
                strategy.needs_screenshot(),
                "{}",
                strategy.name()
            );
        }
    }

    #[test]
    fn missing_screenshot_is_an_error() {
        let page = button_page(0.0).page();
        let err = try_observe("som", &page, &Options::default()).unwrap_err();
        assert!(
            matches!(err, ObserveError::MissingScreenshot { strategy: "som" }),
            "{err}"
        );
        let options = Options {
            screenshot: Some(b"not a png"),
            ..Options::default()
        };
        let err = try_observe("som", &page, &options).unwrap_err();
        assert!(matches!(err, ObserveError::Image(_)), "{err}");
    }

    #[test]
    fn legend_marks_new_elements_and_states() {
        let screenshot = white_png(1280, 720);
        let first = Page::from_html("<button>A</button>");
        let options = Options {
            screenshot: Some(&screenshot),
            ..Options::default()
        };
        let before = observe("som", &first, &options);
        let second = Page::from_html("<button>A</button><button disabled>B</button>");
        let options = Options {
            previous: Some(&before),
            ..options
        };
        let after = observe("som", &second, &options);
        assert!(
            after.text.contains("\n[1] button \"A\"\n"),
            "{}",
            after.text
        );
        assert!(
            after.text.contains("\n*[2] button \"B\" [disabled]\n"),
            "{}",
            after.text
        );
    }
}

mod html {
    use super::*;

    fn count(haystack: &str, needle: &str) -> usize {
        haystack.matches(needle).count()
    }

    #[test]
    fn data_ref_on_exactly_the_refd_elements() {
        let page = Page::from_html(SECRETS_SITE);
        for name in ["html", "html-pruned"] {
            let obs = observe(name, &page, &Options::default());
            assert!(!obs.refs.is_empty());
            assert_eq!(count(&obs.text, "data-ref="), obs.refs.len(), "{name}");
            for (reference, _) in &obs.refs {
                assert_eq!(
                    count(&obs.text, &format!("data-ref=\"{reference}\"")),
                    1,
                    "{name} {reference}"
                );
            }
        }
    }

    #[test]
    fn raw_keeps_scripts_and_serializes_shadow_roots_and_iframes() {
        let page = Page::from_html(
            "<head><script>if (a < b) go();</script></head><body>\
             <x-card><template shadowrootmode=open><button>Inside</button></template><p>light &amp; day</p></x-card>\
             <input value='a&quot;b'></body>",
        );
        let obs = observe("html", &page, &Options::default());
        let text = &obs.text;
        assert!(text.contains("<script>if (a < b) go();</script>"), "{text}");
        assert!(
            text.contains("<x-card><template shadowrootmode=\"open\"><button data-ref=\"1\">Inside</button></template><p>light &amp; day</p></x-card>"),
            "{text}"
        );
        assert!(
            text.contains("<input data-ref=\"2\" value=\"a&quot;b\">"),
            "{text}"
        );
        assert!(!text.contains("</input>"));
    }

    #[test]
    fn iframe_documents_inline() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let frame = b
            .element(body, "iframe", &[("src", "frame.html")])
            .bounds(0.0, 0.0, 400.0, 300.0)
            .id();
        let doc = b.node_of_kind(frame, NodeKind::IframeDocument).id();
        let html = b
            .element(doc, "html", &[])
            .bounds(0.0, 0.0, 400.0, 300.0)
            .id();
        let inner = b
            .element(html, "body", &[])
            .bounds(0.0, 0.0, 400.0, 300.0)
            .id();
        let go = b
            .element(inner, "button", &[])
            .bounds(10.0, 10.0, 80.0, 30.0)
            .id();
        b.text(go, "Pay");
        let page = b.page();
        let obs = observe("html", &page, &Options::default());
        assert!(
            obs.text.contains("<iframe src=\"frame.html\"><html><body><button data-ref=\"1\">Pay</button></body></html></iframe>"),
            "{}",
            obs.text
        );
        let pruned = observe("html-pruned", &page, &Options::default());
        assert!(
            pruned.text.contains("<button data-ref=\"1\">Pay</button>"),
            "{}",
            pruned.text
        );
    }

    #[test]
    fn live_form_state_is_written_and_redacted() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        b.element(body, "input", &[("name", "q"), ("value", "old")])
            .bounds(0.0, 0.0, 100.0, 20.0)
            .value("typed");
        b.element(body, "input", &[("type", "password"), ("value", "")])
            .bounds(0.0, 30.0, 100.0, 20.0)
            .value("hunter2-Secret!");
        b.element(body, "input", &[("type", "checkbox")])
            .bounds(0.0, 60.0, 20.0, 20.0)
            .checked(true);
        let page = b.page();
        let obs = observe("html", &page, &Options::default());
        assert!(
            obs.text
                .contains("<input data-ref=\"1\" name=\"q\" value=\"typed\">"),
            "{}",
            obs.text
        );
        assert!(
            obs.text.contains("type=\"password\" value=\"[redacted]\""),
            "{}",
            obs.text
        );
        assert!(
            obs.text.contains("type=\"checkbox\" checked>"),
            "{}",
            obs.text
        );
        let pruned = observe("html-pruned", &page, &Options::default());
        assert!(pruned.text.contains("value=\"typed\""), "{}", pruned.text);
        assert!(!pruned.text.contains("hunter2"), "{}", pruned.text);
    }

    #[test]
    fn pruned_drops_hidden_content_and_is_smaller() {
        let html = "<head><style>.x { color: red }</style></head><body>\
            <div><div><div><button aria-label=Search><svg><path d='M0 0L10 10'/></svg></button></div></div></div>\
            <p style='display:none'>Hidden promo</p><div hidden><button>Hidden button</button></div>\
            <p aria-hidden=true>Decorative</p>\
            <p>A very long paragraph that goes on and on and on, well past the hundred characters that Mind2Web-style cleaning keeps of any text node.</p>\
            <a href='https://example.com/very/long/path/to/some/page/that/goes/on?with=query'>Link</a>\
            <script>track()</script></body>";
        let page = Page::from_html(html);
        let raw = observe("html", &page, &Options::default());
        let pruned = observe("html-pruned", &page, &Options::default());
        assert!(raw.text.contains("Hidden promo") && raw.text.contains("track()"));
        for gone in [
            "Hidden promo",
            "Hidden button",
            "Decorative",
            "track()",
            "color: red",
            "<path",
            "<svg",
            "<p",
        ] {
            assert!(!pruned.text.contains(gone), "{gone}: {}", pruned.text);
        }
        assert!(
            pruned
                .text
                .contains("<button data-ref=\"1\" aria-label=\"Search\"></button>"),
            "{}",
            pruned.text
        );
        assert!(
            pruned.text.contains("Mind2Web-sty…") && !pruned.text.contains("keeps"),
            "{}",
            pruned.text
        );
        assert!(
            pruned
                .text
                .contains("href=\"example.com/very/long/path/to/some/page/…\""),
            "{}",
            pruned.text
        );
        assert!(pruned.text.len() < raw.text.len());
        assert_eq!(pruned.refs.len(), raw.refs.len());
    }

    #[test]
    fn budget_cuts_at_a_tag_and_drops_refs_past_the_cut() {
        let mut html = String::new();
        for i in 0..100 {
            html.push_str(&format!("<button>Button number {i}</button>"));
        }
        let page = Page::from_html(&html);
        let options = Options {
            max_tokens: Some(200),
            ..Options::default()
        };
        for name in ["html", "html-pruned"] {
            let obs = observe(name, &page, &options);
            assert!(
                obs.text.contains("truncated to fit 200 tokens"),
                "{name}: {}",
                obs.text
            );
            assert!(obs.refs.len() < 100 && !obs.refs.is_empty(), "{name}");
            assert_eq!(count(&obs.text, "data-ref="), obs.refs.len(), "{name}");
            assert_eq!(obs.meta.counts.truncated, 100 - obs.refs.len());
            let body = obs.text.split("\n…").next().unwrap();
            assert!(body.ends_with('>'), "{name}: {body}");
        }
    }
}

#[test]
fn registered_and_documented() {
    for name in MINE {
        let strategy = by_name(name).unwrap();
        assert_eq!(strategy.name(), name);
        let doc = strategy.explain();
        assert!(
            doc.contains("## What it produces") && doc.contains("## Example"),
            "{name}"
        );
        assert!(STRATEGIES.iter().any(|s| s.name() == name));
    }
    assert!(!by_name("structural").unwrap().full_page_by_default());
    assert!(!by_name("som").unwrap().full_page_by_default());
    assert!(by_name("html").unwrap().full_page_by_default());
    assert!(by_name("html-pruned").unwrap().full_page_by_default());
}

#[test]
fn planted_secrets_never_appear() {
    let screenshot = white_png(1280, 720);
    let page = Page::from_html(SECRETS_SITE);
    let options = Options {
        screenshot: Some(&screenshot),
        full_page: Some(true),
        ..Options::default()
    };
    for name in MINE {
        let obs = observe(name, &page, &options);
        let meta = serde_json::to_string(&obs.meta).unwrap();
        for secret in SECRETS {
            assert!(!obs.text.contains(secret), "{name} text leaks {secret}");
            assert!(!meta.contains(secret), "{name} meta leaks {secret}");
        }
        if name != "som" {
            assert!(obs.text.contains("[redacted]"), "{name}");
            assert!(obs.meta.counts.redacted > 0, "{name}");
        }
    }
}

#[test]
fn deterministic() {
    let screenshot = white_png(1280, 720);
    let builder = zones_page();
    let pages = [builder.page(), Page::from_html(SECRETS_SITE)];
    let options = Options {
        screenshot: Some(&screenshot),
        ..Options::default()
    };
    for page in &pages {
        for name in MINE {
            let a = observe(name, page, &options);
            let b = observe(name, &Page::from_recording(&builder.build()), &options);
            let c = observe(name, page, &options);
            assert_eq!(a.text, c.text, "{name}");
            assert_eq!(a.refs, c.refs, "{name}");
            assert_eq!(a.meta, c.meta, "{name}");
            assert_eq!(
                a.image.as_ref().map(|i| &i.png),
                c.image.as_ref().map(|i| &i.png),
                "{name}"
            );
            // A fresh page from the same recording observes the same.
            if std::ptr::eq(page, &pages[0]) {
                assert_eq!(a.text, b.text, "{name}");
            }
        }
    }
}

/// Secrets a hostile probe found leaking (issue 17), each where a page
/// would hold it: free text, a link, form fields named in other words.
const MORE_SECRETS_SITE: &str = r#"<html><body><main>
<p>Wire the refund to DE89 3704 0044 0532 0130 00 today.</p>
<p>Staging DB: https://admin:hunter2pass@db.example.com/main and the card 4111.1111.1111.1111.</p>
<a href="https://example.com/login?user=bob&password=a1b2c3d4e5f6a7b8c9d0&next=/">Resume session</a>
<form>
<label>User <input name=user value="bob"></label>
<label>Pwd <input name=pwd value="Tr0ub4dor&amp;3x"></label>
<label>Phrase <input name=passphrase value="correct horse battery staple"></label>
<label>PIN <input name=pin value="8642"></label>
</form></main></body></html>"#;

const MORE_SECRETS: &[&str] = &[
    "DE89 3704 0044 0532 0130 00",
    "hunter2pass",
    "4111.1111.1111.1111",
    "a1b2c3d4e5f6a7b8c9d0",
    "Tr0ub4dor&3x",
    "Tr0ub4dor&amp;3x",
    "correct horse battery staple",
    "8642",
];

#[test]
fn ibans_url_passwords_dotted_cards_and_fields_named_otherwise_never_appear() {
    let screenshot = white_png(1280, 720);
    let page = Page::from_html(MORE_SECRETS_SITE);
    let options = Options {
        screenshot: Some(&screenshot),
        full_page: Some(true),
        ..Options::default()
    };
    for strategy in STRATEGIES {
        let name = strategy.name();
        let obs = observe(name, &page, &options);
        let meta = serde_json::to_string(&obs.meta).unwrap();
        for secret in MORE_SECRETS {
            assert!(
                !obs.text.contains(secret),
                "{name} text leaks {secret}:\n{}",
                obs.text
            );
            assert!(!meta.contains(secret), "{name} meta leaks {secret}");
        }
        // What is not secret is still there.
        if name != "som" {
            assert!(obs.text.contains("bob"), "{name}:\n{}", obs.text);
        }
    }
}

#[test]
fn the_som_mask_covers_glyphs_overhanging_their_text_box() {
    // A secret-looking text whose box is 20px tall: descenders and
    // rounding reach past it, so the grey must too (dark pixels just below
    // the box were legible before).
    let mut b = RecordingBuilder::new();
    let body = b.body();
    let p = b
        .element(body, "p", &[])
        .bounds(100.0, 100.0, 400.0, 20.0)
        .id();
    b.text(p, "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c")
        .bounds(100.0, 100.0, 400.0, 20.0);
    let page = b.page();
    let screenshot = white_png(1280, 720);
    let options = Options {
        screenshot: Some(&screenshot),
        ..Options::default()
    };
    let obs = observe("som", &page, &options);
    let image = decode(&obs.image.as_ref().unwrap().png);
    for (x, y) in [
        (100, 100),
        (499, 119),
        (300, 121),
        (300, 122),
        (300, 98),
        (99, 110),
        (500, 110),
    ] {
        assert_eq!(pixel(&image, x, y), [128, 128, 128], "({x}, {y})");
    }
    // Well away from the box, the page is untouched.
    assert_eq!(pixel(&image, 300, 140), [255, 255, 255]);
}

#[test]
fn secrets_split_across_inline_elements_never_appear() {
    // As a reader sees it, each line holds one secret; node by node, none.
    let page = Page::from_html(
        r#"<html><body><main>
        <p>Your key: <code>sk-proj-</code><code>4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c</code> (keep it safe)</p>
        <p>Card <span>4111</span> <span>1111</span> <span>1111</span> <span>1111</span> on file.</p>
        <p>Account <b>DE89</b> 3704 0044 <i>0532 0130 00</i>.</p>
        <p>Split <a href="/x">wo</a>rds stay as they are.</p>
        </main></body></html>"#,
    );
    let screenshot = white_png(1280, 720);
    let options = Options {
        screenshot: Some(&screenshot),
        full_page: Some(true),
        ..Options::default()
    };
    for strategy in STRATEGIES {
        let name = strategy.name();
        let obs = observe(name, &page, &options);
        if name == "som" {
            continue;
        }
        for piece in ["4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c", "0532 0130 00"] {
            assert!(
                !obs.text.contains(piece),
                "{name} leaks {piece}:\n{}",
                obs.text
            );
        }
        // The card's digits are gone from its line, whatever the markup.
        let card_line: String = obs
            .text
            .lines()
            .skip_while(|l| !l.contains("Card"))
            .take(6)
            .collect();
        assert!(
            card_line.matches("1111").count() < 2,
            "{name} leaks the card:\n{}",
            obs.text
        );
        assert!(obs.text.contains("keep it safe"), "{name}:\n{}", obs.text);
        assert!(
            obs.meta.counts.redacted >= 3,
            "{name}: {:?}",
            obs.meta.counts
        );
    }
}

#[test]
fn html_keeps_no_secret_assigned_in_a_script_or_held_in_a_meta_token() {
    let page = Page::from_html(
        r#"<html><head><meta name="csrf-token" content="q7Hk2pLm9xZ">
        <meta name="description" content="A shop">
        <script>var config = { dbPassword: "hunter2!", "apiKey" : 'AbCdEf12', user: "bob" };
        const token=`tok-5566`;</script></head>
        <body><p>Hello</p></body></html>"#,
    );
    let obs = observe("html", &page, &Options::default());
    for secret in ["q7Hk2pLm9xZ", "hunter2!", "AbCdEf12", "tok-5566"] {
        assert!(
            !obs.text.contains(secret),
            "html leaks {secret}:\n{}",
            obs.text
        );
    }
    // What is not a secret stays, script and all.
    for kept in ["A shop", "user: \"bob\"", "dbPassword: \"[redacted]\""] {
        assert!(obs.text.contains(kept), "{kept}:\n{}", obs.text);
    }
    assert!(obs.meta.counts.redacted >= 4, "{:?}", obs.meta.counts);
}

/// The typed meta fields are written, and read back, as the words meta has
/// always carried — every variant, so a renamed one cannot slip through.
#[test]
fn meta_words_are_the_serialised_words() {
    use pagesnap_engine::observation::{Claims, ModalKind, NameSource, Strength, Zone};
    fn check<T>(values: &[T], word: fn(&T) -> &'static str)
    where
        T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
    {
        for value in values {
            let json = serde_json::to_string(value).unwrap();
            assert_eq!(json, format!("\"{}\"", word(value)));
            assert_eq!(&serde_json::from_str::<T>(&json).unwrap(), value);
        }
    }
    let mut zones = Zone::GRID.to_vec();
    zones.extend([Zone::Offscreen, Zone::Unknown]);
    check(&zones, |z| z.as_str());
    assert_eq!(
        zones.iter().map(|z| z.as_str()).collect::<Vec<_>>(),
        [
            "top-left",
            "top-center",
            "top-right",
            "middle-left",
            "center",
            "middle-right",
            "bottom-left",
            "bottom-center",
            "bottom-right",
            "offscreen",
            "unknown"
        ]
    );
    check(
        &[Strength::Strong, Strength::Weak, Strength::Unknown],
        |s| s.as_str(),
    );
    check(
        &[
            NameSource::Text,
            NameSource::AriaLabel,
            NameSource::AriaLabelledby,
            NameSource::Label,
            NameSource::Title,
            NameSource::Placeholder,
            NameSource::Alt,
            NameSource::Value,
            NameSource::Unknown,
        ],
        |s| s.as_str(),
    );
    assert_eq!(NameSource::AriaLabelledby.as_str(), "aria-labelledby");
    check(
        &[ModalKind::None, ModalKind::Reliable, ModalKind::Suspected],
        |k| k.as_str(),
    );
    check(&[Claims::Safe, Claims::Partial, Claims::Unsafe], |c| {
        c.as_str()
    });
}
