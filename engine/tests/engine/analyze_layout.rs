//! Layout-dependent analysis (visibility, interactivity, occlusion, modal layer, scrolling) on hand-built recordings.

use pagesnap_engine::analyze::{Analysis, Hidden, InteractiveReason, ModalKind};
use pagesnap_engine::page::{NodeId, Page};
use pagesnap_engine::recording::{NodeKind, ScrollState};
use pagesnap_engine::testing::RecordingBuilder;

fn analyze(builder: &RecordingBuilder) -> (Page, Analysis) {
    let page = builder.page();
    let analysis = Analysis::new(&page);
    (page, analysis)
}

fn id(index: usize) -> NodeId {
    NodeId::from_index(index)
}

fn hidden(analysis: &Analysis, index: usize) -> Option<Hidden> {
    analysis.visibility[index].hidden
}

fn reason(analysis: &Analysis, index: usize) -> Option<InteractiveReason> {
    analysis.interactive[index]
}

mod visibility {
    use super::*;

    #[test]
    fn not_rendered_without_style_or_box_and_inherited() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let unstyled = b.element(body, "div", &[]).no_style().id();
        let none = b.element(body, "div", &[]).display("none").id();
        let child = b.element(none, "p", &[]).bounds(0.0, 0.0, 10.0, 10.0).id();
        let text = b.text(child, "secret").id();
        let boxless = b.element(body, "div", &[]).id();
        let shown = b
            .element(body, "div", &[])
            .bounds(0.0, 0.0, 10.0, 10.0)
            .id();
        let shown_text = b.text(shown, "hello").id();
        let (_, a) = analyze(&b);
        assert_eq!(hidden(&a, unstyled), Some(Hidden::NotRendered));
        assert_eq!(hidden(&a, none), Some(Hidden::NotRendered));
        assert_eq!(hidden(&a, child), Some(Hidden::NotRendered));
        assert_eq!(hidden(&a, text), Some(Hidden::NotRendered));
        assert_eq!(hidden(&a, boxless), Some(Hidden::NotRendered));
        assert_eq!(hidden(&a, shown), None);
        assert_eq!(hidden(&a, shown_text), None);
        assert!(a.visibility[shown_text].in_viewport);
    }

    #[test]
    fn display_contents_elements_have_no_layout_entry_but_show_their_children() {
        // DOMSnapshot gives `display: contents` elements (author wrappers,
        // every `<slot>`) no layout entry, hence no style and no box.
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let wrapper = b.element(body, "div", &[]).no_style().no_bounds().id();
        let button = b
            .element(wrapper, "button", &[])
            .bounds(0.0, 0.0, 80.0, 20.0)
            .id();
        let text = b.text(button, "Inside").bounds(2.0, 2.0, 40.0, 16.0).id();
        let host = b
            .element(body, "my-card", &[])
            .bounds(0.0, 40.0, 200.0, 40.0)
            .id();
        let root = b.node_of_kind(host, NodeKind::ShadowRootOpen).id();
        let slot = b.element(root, "slot", &[]).no_style().no_bounds().id();
        // An element without style and nothing rendered below it is not rendered.
        let empty = b.element(body, "div", &[]).no_style().no_bounds().id();
        let (_, a) = analyze(&b);
        assert_eq!(hidden(&a, wrapper), None);
        assert_eq!(hidden(&a, button), None);
        assert_eq!(hidden(&a, text), None);
        assert_eq!(hidden(&a, slot), None);
        assert_eq!(hidden(&a, empty), Some(Hidden::NotRendered));
    }

    #[test]
    fn an_off_screen_content_visibility_auto_section_is_reachable() {
        // Chromium lays out none of an off-screen `content-visibility: auto`
        // section's content: DOMSnapshot gives it no box and no style. A
        // person scrolling reaches it, so it shows (off screen); a
        // `content-visibility: hidden` section's content never does.
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let auto = b
            .element(body, "section", &[])
            .bounds(0.0, 3000.0, 800.0, 500.0)
            .style(|s| s.content_visibility = "auto".to_owned())
            .id();
        let heading = b.element(auto, "h2", &[]).no_style().no_bounds().id();
        let text = b.text(heading, "Later section").id();
        let button = b.element(auto, "button", &[]).no_style().no_bounds().id();
        let hidden_section = b
            .element(body, "section", &[])
            .bounds(0.0, 3500.0, 800.0, 500.0)
            .style(|s| s.content_visibility = "hidden".to_owned())
            .id();
        let never = b
            .element(hidden_section, "p", &[])
            .no_style()
            .no_bounds()
            .id();
        // On screen, an `auto` section is laid out as usual: what has no
        // box there is unrendered.
        let shown = b
            .element(body, "section", &[])
            .bounds(0.0, 0.0, 800.0, 300.0)
            .style(|s| s.content_visibility = "auto".to_owned())
            .id();
        let laid_out = b
            .element(shown, "p", &[])
            .bounds(0.0, 0.0, 800.0, 20.0)
            .id();
        let unrendered = b.element(shown, "p", &[]).no_style().no_bounds().id();
        let (_, a) = analyze(&b);
        assert_eq!(hidden(&a, laid_out), None);
        assert_eq!(hidden(&a, unrendered), Some(Hidden::NotRendered));
        for node in [auto, heading, text, button] {
            assert_eq!(hidden(&a, node), None, "node {node}");
            assert!(
                !a.visibility[node].in_viewport,
                "node {node} is below the viewport"
            );
        }
        assert_eq!(hidden(&a, never), Some(Hidden::NotRendered));
    }

    #[test]
    fn visibility_hidden_is_read_per_node() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let outer = b
            .element(body, "div", &[])
            .bounds(0.0, 0.0, 100.0, 100.0)
            .visibility("hidden")
            .id();
        let inner = b
            .element(outer, "span", &[])
            .bounds(0.0, 0.0, 10.0, 10.0)
            .visibility("hidden")
            .id();
        let text = b.text(inner, "x").id();
        let again = b
            .element(outer, "button", &[])
            .bounds(0.0, 20.0, 10.0, 10.0)
            .id();
        let collapsed = b
            .element(body, "tr", &[])
            .bounds(0.0, 0.0, 10.0, 10.0)
            .visibility("collapse")
            .id();
        let (_, a) = analyze(&b);
        assert_eq!(hidden(&a, outer), Some(Hidden::VisibilityHidden));
        assert_eq!(hidden(&a, inner), Some(Hidden::VisibilityHidden));
        assert_eq!(hidden(&a, text), Some(Hidden::VisibilityHidden));
        assert_eq!(
            hidden(&a, again),
            None,
            "visibility: visible inside a hidden parent shows again"
        );
        assert_eq!(hidden(&a, collapsed), Some(Hidden::VisibilityHidden));
    }

    #[test]
    fn opacity_multiplies_down_the_tree() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let zero = b
            .element(body, "div", &[])
            .bounds(0.0, 0.0, 100.0, 100.0)
            .opacity(0.0)
            .id();
        let child = b.element(zero, "p", &[]).bounds(0.0, 0.0, 10.0, 10.0).id();
        let half = b
            .element(body, "div", &[])
            .bounds(0.0, 0.0, 100.0, 100.0)
            .opacity(0.5)
            .id();
        let quarter = b
            .element(half, "p", &[])
            .bounds(0.0, 0.0, 10.0, 10.0)
            .opacity(0.5)
            .id();
        let (_, a) = analyze(&b);
        assert_eq!(hidden(&a, zero), Some(Hidden::Transparent));
        assert_eq!(hidden(&a, child), Some(Hidden::Transparent));
        assert_eq!(hidden(&a, half), None);
        assert_eq!(hidden(&a, quarter), None);
    }

    #[test]
    fn aria_hidden_and_inert_subtrees() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let aria = b
            .element(body, "div", &[("aria-hidden", "true")])
            .bounds(0.0, 0.0, 100.0, 100.0)
            .id();
        let aria_child = b
            .element(aria, "button", &[("aria-hidden", "false")])
            .bounds(0.0, 0.0, 10.0, 10.0)
            .id();
        let not_aria = b
            .element(body, "div", &[("aria-hidden", "false")])
            .bounds(0.0, 0.0, 10.0, 10.0)
            .id();
        let inert = b
            .element(body, "div", &[("inert", "")])
            .bounds(0.0, 0.0, 100.0, 100.0)
            .id();
        let inert_child = b
            .element(inert, "a", &[("href", "/")])
            .bounds(0.0, 0.0, 10.0, 10.0)
            .id();
        let (_, a) = analyze(&b);
        assert_eq!(hidden(&a, aria), Some(Hidden::AriaHidden));
        assert_eq!(
            hidden(&a, aria_child),
            Some(Hidden::AriaHidden),
            "a descendant cannot undo aria-hidden"
        );
        assert_eq!(hidden(&a, not_aria), None);
        assert_eq!(hidden(&a, inert), Some(Hidden::Inert));
        assert_eq!(hidden(&a, inert_child), Some(Hidden::Inert));
        assert_eq!(reason(&a, inert_child), None);
    }

    #[test]
    fn hidden_attribute_defers_to_the_recorded_style() {
        // `[hidden] { display: block }` in author CSS: the browser shows it.
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let overridden = b
            .element(body, "div", &[("hidden", "")])
            .bounds(0.0, 0.0, 10.0, 10.0)
            .id();
        let (_, a) = analyze(&b);
        assert_eq!(hidden(&a, overridden), None);
        let page = Page::from_html("<div hidden><p>x</p></div>");
        let a = Analysis::new(&page);
        let p = page
            .elements()
            .find(|e| e.name() == "p")
            .map(|e| e.id().index());
        assert_eq!(
            p.map(|p| hidden(&a, p)),
            Some(Some(Hidden::HiddenAttribute))
        );
        assert!(
            a.visibility.iter().all(|v| v.in_viewport),
            "no layout: everything counts as in view"
        );
    }

    #[test]
    fn zero_area_unless_content_overflows_visibly() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let empty = b
            .element(body, "div", &[])
            .bounds(0.0, 0.0, 100.0, 0.0)
            .id();
        let floats = b
            .element(body, "div", &[])
            .bounds(0.0, 0.0, 100.0, 0.0)
            .id();
        let floated = b
            .element(floats, "a", &[("href", "/")])
            .bounds(0.0, 0.0, 50.0, 20.0)
            .id();
        let clipped = b
            .element(body, "div", &[])
            .bounds(0.0, 0.0, 0.0, 100.0)
            .overflow("hidden")
            .id();
        let clipped_child = b
            .element(clipped, "a", &[("href", "/")])
            .bounds(0.0, 0.0, 50.0, 20.0)
            .id();
        let (_, a) = analyze(&b);
        assert_eq!(hidden(&a, empty), Some(Hidden::ZeroArea));
        assert_eq!(hidden(&a, floats), None);
        assert!(a.visibility[floats].in_viewport, "its content decides");
        assert_eq!(hidden(&a, floated), None);
        assert_eq!(hidden(&a, clipped), Some(Hidden::ZeroArea));
        assert_eq!(hidden(&a, clipped_child), Some(Hidden::Clipped));
    }

    #[test]
    fn clipped_by_overflow_ancestor_offscreen_and_sr_only() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let scroller = b
            .element(body, "div", &[])
            .bounds(0.0, 0.0, 200.0, 100.0)
            .overflow("auto")
            .id();
        let inside = b
            .element(scroller, "p", &[])
            .bounds(0.0, 50.0, 200.0, 40.0)
            .id();
        let below = b
            .element(scroller, "p", &[])
            .bounds(0.0, 150.0, 200.0, 40.0)
            .id();
        let below_text = b.text(below, "scrolled away").id();
        let below_child = b
            .element(below, "span", &[])
            .bounds(0.0, 150.0, 20.0, 10.0)
            .id();
        let fixed = b
            .element(scroller, "div", &[])
            .bounds(0.0, 300.0, 50.0, 50.0)
            .position("fixed")
            .id();
        let escaped = b
            .element(scroller, "div", &[])
            .bounds(0.0, 300.0, 50.0, 50.0)
            .position("absolute")
            .id();
        let positioned = b
            .element(body, "div", &[])
            .bounds(0.0, 0.0, 200.0, 100.0)
            .overflow("hidden")
            .position("relative")
            .id();
        let kept = b
            .element(positioned, "div", &[])
            .bounds(0.0, 300.0, 50.0, 50.0)
            .position("absolute")
            .id();
        let offscreen = b
            .element(body, "a", &[("href", "#main")])
            .bounds(-9999.0, 0.0, 100.0, 20.0)
            .id();
        let sr_only = b
            .element(body, "span", &[])
            .bounds(5.0, 5.0, 1.0, 1.0)
            .overflow("hidden")
            .position("absolute")
            .id();
        let sr_text = b.text(sr_only, "Opens in a new tab").id();
        let x_only = b
            .element(body, "div", &[])
            .bounds(0.0, 400.0, 100.0, 50.0)
            .style(|s| s.overflow_x = "hidden".into())
            .id();
        let tall = b
            .element(x_only, "p", &[])
            .bounds(0.0, 460.0, 100.0, 50.0)
            .id();
        let (_, a) = analyze(&b);
        assert_eq!(hidden(&a, scroller), None);
        assert_eq!(hidden(&a, inside), None);
        // Below what an `overflow: auto` box shows: reached by scrolling it.
        assert_eq!(hidden(&a, below), Some(Hidden::ScrolledOut));
        assert_eq!(hidden(&a, below_text), Some(Hidden::ScrolledOut));
        assert_eq!(hidden(&a, below_child), Some(Hidden::ScrolledOut));
        assert_eq!(hidden(&a, fixed), None, "fixed boxes escape overflow clips");
        assert_eq!(
            hidden(&a, escaped),
            None,
            "the containing block is outside the non-positioned scroller"
        );
        assert_eq!(
            hidden(&a, kept),
            Some(Hidden::Clipped),
            "a positioned clipper contains its absolute children"
        );
        assert_eq!(hidden(&a, offscreen), Some(Hidden::Clipped));
        assert_eq!(hidden(&a, sr_only), Some(Hidden::Clipped));
        assert_eq!(hidden(&a, sr_text), Some(Hidden::Clipped));
        assert_eq!(hidden(&a, tall), None, "overflow-x clips only horizontally");
    }

    #[test]
    fn focusing_shows_a_skip_link_off_the_document_or_clipped_to_one_pixel() {
        let mut b = RecordingBuilder::new();
        b.document_size(1280.0, 3000.0);
        let body = b.body();
        // `.skip { left: -9999px } .skip:focus { left: 8px }`
        let offscreen = b
            .element(body, "a", &[("href", "#main")])
            .bounds(-9999.0, 0.0, 100.0, 20.0)
            .position("absolute")
            .focus_reveal()
            .id();
        let offscreen_text = b.text(offscreen, "Skip to main content").id();
        b.at(offscreen_text).bounds(-9999.0, 0.0, 90.0, 16.0);
        // GOV.UK's `.govuk-skip-link`: 1×1, overflow hidden, until focused.
        let sr_only = b
            .element(body, "a", &[("href", "#content")])
            .bounds(0.0, 0.0, 1.0, 1.0)
            .overflow("hidden")
            .position("absolute")
            .focus_reveal()
            .id();
        let sr_text = b.text(sr_only, "Skip to content").id();
        b.at(sr_text).bounds(0.0, 0.0, 100.0, 16.0);
        // The same link further down: shown, but not in the first viewport.
        let below = b
            .element(body, "a", &[("href", "#footer")])
            .bounds(-9999.0, 2000.0, 100.0, 20.0)
            .position("absolute")
            .focus_reveal()
            .id();
        // Not revealed by focus: still hidden.
        let plain = b
            .element(body, "a", &[("href", "#main")])
            .bounds(-9999.0, 0.0, 100.0, 20.0)
            .position("absolute")
            .id();
        // Inside a clip of no area: focusing it shows nothing.
        let closed = b
            .element(body, "div", &[])
            .bounds(0.0, 100.0, 200.0, 0.0)
            .overflow("hidden")
            .id();
        let enclosed = b
            .element(closed, "a", &[("href", "/")])
            .bounds(0.0, 100.0, 1.0, 1.0)
            .overflow("hidden")
            .focus_reveal()
            .id();
        let (_, a) = analyze(&b);
        for shown in [offscreen, offscreen_text, sr_only, sr_text] {
            assert_eq!(hidden(&a, shown), None, "node {shown}");
            assert!(a.visibility[shown].in_viewport, "node {shown}");
        }
        assert_eq!(hidden(&a, below), None);
        assert!(!a.visibility[below].in_viewport, "its rows are below");
        assert_eq!(hidden(&a, plain), Some(Hidden::Clipped));
        assert_eq!(hidden(&a, enclosed), Some(Hidden::Clipped));
    }

    #[test]
    fn body_overflow_hidden_does_not_clip() {
        // `body { overflow: hidden }` while a modal is open propagates to the viewport.
        let mut b = RecordingBuilder::new();
        let body = b.body();
        b.at(body).overflow("hidden");
        let below = b
            .element(body, "p", &[])
            .bounds(0.0, 2000.0, 100.0, 20.0)
            .id();
        let (_, a) = analyze(&b);
        assert_eq!(hidden(&a, below), None);
        assert!(!a.visibility[below].in_viewport);
    }

    #[test]
    fn in_viewport_after_scrolling() {
        let mut b = RecordingBuilder::new();
        b.document_size(1280.0, 3000.0).scroll_to(0.0, 1000.0);
        let body = b.body();
        let top = b
            .element(body, "h1", &[])
            .bounds(0.0, 100.0, 500.0, 40.0)
            .id();
        let middle = b
            .element(body, "p", &[])
            .bounds(0.0, 1200.0, 500.0, 40.0)
            .id();
        let edge = b
            .element(body, "p", &[])
            .bounds(0.0, 1710.0, 500.0, 40.0)
            .id();
        let after = b
            .element(body, "p", &[])
            .bounds(0.0, 1720.0, 500.0, 40.0)
            .id();
        // A fixed header is captured in document coordinates at the scroll offset.
        let header = b
            .element(body, "header", &[])
            .bounds(0.0, 1000.0, 1280.0, 60.0)
            .position("fixed")
            .id();
        let contents = b.element(body, "div", &[]).display("contents").id();
        let in_contents = b
            .element(contents, "p", &[])
            .bounds(0.0, 1300.0, 100.0, 20.0)
            .id();
        let (_, a) = analyze(&b);
        assert!(!a.visibility[top].in_viewport);
        assert!(a.visibility[middle].in_viewport);
        assert!(a.visibility[edge].in_viewport);
        assert!(!a.visibility[after].in_viewport);
        assert!(a.visibility[header].in_viewport);
        assert_eq!(
            hidden(&a, contents),
            None,
            "display: contents has no box but shows its children"
        );
        assert!(a.visibility[contents].in_viewport);
        assert!(a.visibility[in_contents].in_viewport);
    }

    #[test]
    fn options_follow_their_select() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let select = b
            .element(body, "select", &[])
            .bounds(0.0, 0.0, 100.0, 20.0)
            .id();
        let option = b.element(select, "option", &[]).no_style().id();
        let group = b.element(select, "optgroup", &[]).no_style().id();
        let grouped = b.element(group, "option", &[]).no_style().id();
        let none = b.element(select, "option", &[]).display("none").id();
        let (_, a) = analyze(&b);
        assert_eq!(hidden(&a, option), None);
        assert!(a.visibility[option].in_viewport);
        assert_eq!(hidden(&a, grouped), None);
        assert_eq!(hidden(&a, none), Some(Hidden::NotRendered));
    }

    #[test]
    fn shadow_roots_and_iframes_inherit_from_their_host() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let host = b
            .element(body, "my-card", &[])
            .bounds(0.0, 0.0, 100.0, 100.0)
            .id();
        let root = b.node_of_kind(host, NodeKind::ShadowRootOpen).id();
        let shadow_button = b
            .element(root, "button", &[])
            .bounds(0.0, 0.0, 50.0, 20.0)
            .id();
        let input = b
            .element(body, "input", &[])
            .bounds(0.0, 200.0, 100.0, 20.0)
            .id();
        let ua = b.node_of_kind(input, NodeKind::ShadowRootUserAgent).id();
        let ua_div = b
            .element(ua, "div", &[])
            .bounds(0.0, 200.0, 100.0, 20.0)
            .id();
        let hidden_host = b
            .element(body, "my-card", &[("aria-hidden", "true")])
            .bounds(0.0, 0.0, 100.0, 100.0)
            .id();
        let hidden_root = b.node_of_kind(hidden_host, NodeKind::ShadowRootOpen).id();
        let hidden_button = b
            .element(hidden_root, "button", &[])
            .bounds(0.0, 0.0, 50.0, 20.0)
            .id();
        let iframe = b
            .element(body, "iframe", &[])
            .bounds(0.0, 2000.0, 300.0, 200.0)
            .id();
        let document = b.node_of_kind(iframe, NodeKind::IframeDocument).id();
        let frame_html = b
            .element(document, "html", &[])
            .bounds(0.0, 0.0, 300.0, 200.0)
            .id();
        let (_, a) = analyze(&b);
        assert_eq!(hidden(&a, root), None);
        assert_eq!(hidden(&a, shadow_button), None);
        assert_eq!(
            reason(&a, shadow_button),
            Some(InteractiveReason::NativeControl)
        );
        assert_eq!(hidden(&a, ua), Some(Hidden::NotRendered));
        assert_eq!(hidden(&a, ua_div), Some(Hidden::NotRendered));
        assert_eq!(hidden(&a, hidden_button), Some(Hidden::AriaHidden));
        assert!(!a.visibility[document].in_viewport);
        assert!(
            !a.visibility[frame_html].in_viewport,
            "an off-screen iframe's content is off-screen"
        );
    }
}

mod interactive {
    use super::*;

    #[test]
    fn native_controls() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let mut at = 0.0;
        let mut add = |b: &mut RecordingBuilder, tag: &str, attrs: &[(&str, &str)]| {
            at += 30.0;
            b.element(body, tag, attrs)
                .bounds(0.0, at, 100.0, 20.0)
                .id()
        };
        let link = add(&mut b, "a", &[("href", "/x")]);
        let anchor = add(&mut b, "a", &[("name", "x")]);
        let button = add(&mut b, "button", &[]);
        let input = add(&mut b, "input", &[("type", "text")]);
        let hidden_input = add(&mut b, "input", &[("type", "hidden")]);
        let select = add(&mut b, "select", &[]);
        let textarea = add(&mut b, "textarea", &[]);
        let video = add(&mut b, "video", &[("controls", "")]);
        let silent = add(&mut b, "video", &[]);
        let area = add(&mut b, "area", &[("href", "/a")]);
        let details = add(&mut b, "details", &[]);
        let summary = b
            .element(details, "summary", &[])
            .bounds(0.0, 0.0, 100.0, 20.0)
            .id();
        let (_, a) = analyze(&b);
        assert_eq!(reason(&a, link), Some(InteractiveReason::NativeControl));
        assert_eq!(reason(&a, anchor), None);
        assert_eq!(reason(&a, button), Some(InteractiveReason::NativeControl));
        assert_eq!(reason(&a, input), Some(InteractiveReason::NativeControl));
        assert_eq!(reason(&a, hidden_input), None);
        assert_eq!(reason(&a, select), Some(InteractiveReason::NativeControl));
        assert_eq!(reason(&a, textarea), Some(InteractiveReason::NativeControl));
        assert_eq!(reason(&a, video), Some(InteractiveReason::NativeControl));
        assert_eq!(reason(&a, silent), None);
        assert_eq!(reason(&a, area), Some(InteractiveReason::NativeControl));
        assert_eq!(reason(&a, details), None);
        assert_eq!(reason(&a, summary), Some(InteractiveReason::Summary));
    }

    #[test]
    fn aria_widgets_by_explicit_role() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let button = b
            .element(body, "div", &[("role", "button")])
            .bounds(0.0, 0.0, 50.0, 20.0)
            .id();
        let tab = b
            .element(body, "li", &[("role", "TAB")])
            .bounds(0.0, 30.0, 50.0, 20.0)
            .id();
        let fallback = b
            .element(body, "div", &[("role", "bogus switch")])
            .bounds(0.0, 60.0, 50.0, 20.0)
            .id();
        let list = b
            .element(body, "div", &[("role", "listbox")])
            .bounds(0.0, 90.0, 50.0, 60.0)
            .id();
        let option = b
            .element(list, "div", &[("role", "option")])
            .bounds(0.0, 90.0, 50.0, 20.0)
            .id();
        let hidden = b
            .element(body, "div", &[("role", "button")])
            .bounds(0.0, 0.0, 50.0, 20.0)
            .display("none")
            .id();
        let (_, a) = analyze(&b);
        assert_eq!(reason(&a, button), Some(InteractiveReason::AriaWidget));
        assert_eq!(reason(&a, tab), Some(InteractiveReason::AriaWidget));
        assert_eq!(reason(&a, fallback), Some(InteractiveReason::AriaWidget));
        assert_eq!(
            reason(&a, list),
            None,
            "a composite container is not itself a target"
        );
        assert_eq!(reason(&a, option), Some(InteractiveReason::AriaWidget));
        assert_eq!(reason(&a, hidden), None);
    }

    #[test]
    fn contenteditable_host_only() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let host = b
            .element(body, "div", &[("contenteditable", "")])
            .bounds(0.0, 0.0, 300.0, 100.0)
            .id();
        let paragraph = b.element(host, "p", &[]).bounds(0.0, 0.0, 300.0, 20.0).id();
        let off = b
            .element(host, "p", &[("contenteditable", "false")])
            .bounds(0.0, 20.0, 300.0, 20.0)
            .id();
        let nested = b
            .element(off, "span", &[("contenteditable", "true")])
            .bounds(0.0, 20.0, 30.0, 20.0)
            .id();
        let plain = b
            .element(body, "div", &[("contenteditable", "false")])
            .bounds(0.0, 200.0, 30.0, 20.0)
            .id();
        let (_, a) = analyze(&b);
        assert_eq!(reason(&a, host), Some(InteractiveReason::ContentEditable));
        assert_eq!(reason(&a, paragraph), None);
        assert_eq!(reason(&a, off), None);
        assert_eq!(reason(&a, nested), Some(InteractiveReason::ContentEditable));
        assert_eq!(reason(&a, plain), None);
    }

    #[test]
    fn labels_with_a_control() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let pointing = b
            .element(body, "label", &[("for", "email")])
            .bounds(0.0, 0.0, 100.0, 20.0)
            .id();
        b.element(body, "input", &[("id", "email")])
            .bounds(110.0, 0.0, 100.0, 20.0);
        let wrapping = b
            .element(body, "label", &[])
            .bounds(0.0, 30.0, 200.0, 20.0)
            .id();
        // The custom-checkbox pattern: the real input is visually hidden.
        let hidden_box = b
            .element(wrapping, "input", &[("type", "checkbox")])
            .bounds(0.0, 30.0, 1.0, 1.0)
            .opacity(0.0)
            .id();
        let dangling = b
            .element(body, "label", &[("for", "nowhere")])
            .bounds(0.0, 60.0, 100.0, 20.0)
            .id();
        let plain = b
            .element(body, "label", &[])
            .bounds(0.0, 90.0, 100.0, 20.0)
            .id();
        // A label drawn inside its control's box is the same target.
        let covering = b
            .element(body, "button", &[("id", "go")])
            .bounds(0.0, 120.0, 100.0, 40.0)
            .id();
        let inner = b
            .element(covering, "label", &[("for", "go")])
            .bounds(10.0, 130.0, 50.0, 20.0)
            .id();
        let (_, a) = analyze(&b);
        // The control is visible and has its own ref: the label adds nothing.
        assert_eq!(reason(&a, pointing), None);
        assert_eq!(reason(&a, wrapping), Some(InteractiveReason::Label));
        assert_eq!(reason(&a, hidden_box), None);
        assert_eq!(reason(&a, dangling), None);
        assert_eq!(reason(&a, plain), None);
        assert_eq!(reason(&a, covering), Some(InteractiveReason::NativeControl));
        assert_eq!(reason(&a, inner), None);
    }

    #[test]
    fn tabindex_and_click_listeners() {
        let mut b = RecordingBuilder::new();
        b.document_size(1280.0, 5000.0);
        let body = b.body();
        b.at(body).clickable();
        let focusable = b
            .element(body, "div", &[("tabindex", "0")])
            .bounds(0.0, 0.0, 50.0, 20.0)
            .id();
        let programmatic = b
            .element(body, "div", &[("tabindex", "-1")])
            .bounds(0.0, 30.0, 50.0, 20.0)
            .id();
        let root = b
            .element(body, "div", &[("id", "root")])
            .bounds(0.0, 0.0, 1280.0, 5000.0)
            .clickable()
            .id();
        let card = b
            .element(root, "div", &[])
            .bounds(0.0, 100.0, 300.0, 200.0)
            .clickable()
            .id();
        let (_, a) = analyze(&b);
        assert_eq!(reason(&a, focusable), Some(InteractiveReason::Tabindex));
        assert_eq!(reason(&a, programmatic), None);
        assert_eq!(
            reason(&a, body),
            None,
            "listeners on body are delegation, not targets"
        );
        assert_eq!(
            reason(&a, root),
            None,
            "a page-sized container is not a target"
        );
        assert_eq!(reason(&a, card), Some(InteractiveReason::ClickListener));
    }

    /// A CSS hover menu's trigger (a `<span tabindex="-1">` the stylesheet
    /// opens on `:hover`) is a target; a page-sized hover container is not,
    /// a plain span beside it stays text, and a hover target its own link
    /// fills is left to the link.
    #[test]
    fn hover_targets() {
        let mut b = RecordingBuilder::new();
        b.document_size(1280.0, 5000.0);
        let body = b.body();
        b.at(body).hover();
        let trigger = b
            .element(body, "span", &[("tabindex", "-1")])
            .bounds(1100.0, 10.0, 80.0, 20.0)
            .hover()
            .id();
        let page = b
            .element(body, "div", &[("id", "app")])
            .bounds(0.0, 0.0, 1280.0, 5000.0)
            .hover()
            .id();
        let plain = b
            .element(body, "span", &[])
            .bounds(0.0, 10.0, 80.0, 20.0)
            .id();
        let wrapper = b
            .element(body, "li", &[])
            .bounds(0.0, 100.0, 100.0, 20.0)
            .hover()
            .id();
        let link = b
            .element(wrapper, "a", &[("href", "/save")])
            .bounds(0.0, 100.0, 95.0, 20.0)
            .id();
        let story = b
            .element(body, "li", &[])
            .bounds(0.0, 200.0, 600.0, 100.0)
            .hover()
            .id();
        let title = b
            .element(story, "a", &[("href", "/story")])
            .bounds(0.0, 200.0, 300.0, 20.0)
            .id();
        let (_, a) = analyze(&b);
        assert_eq!(reason(&a, link), Some(InteractiveReason::NativeControl));
        assert_eq!(reason(&a, wrapper), None, "filled by its link");
        assert_eq!(reason(&a, title), Some(InteractiveReason::NativeControl));
        assert_eq!(reason(&a, story), Some(InteractiveReason::Hover));
        assert_eq!(reason(&a, trigger), Some(InteractiveReason::Hover));
        assert_eq!(reason(&a, body), None);
        assert_eq!(reason(&a, page), None);
        assert_eq!(reason(&a, plain), None);
    }

    /// Drag sources: `draggable="true"`, jQuery UI's sortable items, a move
    /// cursor at the top of its subtree (not its children); a plain item is not.
    #[test]
    fn drag_sources() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let list = b
            .element(body, "ul", &[])
            .bounds(0.0, 0.0, 300.0, 100.0)
            .id();
        let sortable = b
            .element(
                list,
                "li",
                &[("class", "ui-state-default ui-sortable-handle")],
            )
            .bounds(0.0, 0.0, 300.0, 20.0)
            .id();
        let plain = b
            .element(list, "li", &[])
            .bounds(0.0, 20.0, 300.0, 20.0)
            .id();
        let native = b
            .element(body, "div", &[("draggable", "true")])
            .bounds(0.0, 200.0, 50.0, 50.0)
            .id();
        let card = b
            .element(body, "div", &[])
            .bounds(0.0, 300.0, 100.0, 50.0)
            .cursor("move")
            .id();
        let inside = b
            .element(card, "span", &[])
            .bounds(0.0, 300.0, 100.0, 20.0)
            .cursor("move")
            .id();
        let (_, a) = analyze(&b);
        assert_eq!(reason(&a, sortable), Some(InteractiveReason::Draggable));
        assert_eq!(reason(&a, native), Some(InteractiveReason::Draggable));
        assert_eq!(reason(&a, card), Some(InteractiveReason::Draggable));
        assert_eq!(reason(&a, inside), None, "part of the card's target");
        assert_eq!(reason(&a, plain), None);
    }

    /// Drop targets: a drop listener of its own, `aria-dropeffect`, a drag
    /// library's droppable marker; not the body with the page's listener,
    /// not a board that merely holds draggables, not `aria-dropeffect="none"`.
    #[test]
    fn drop_targets() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        b.at(body).droppable();
        let board = b
            .element(body, "div", &[])
            .bounds(0.0, 0.0, 700.0, 200.0)
            .id();
        let column = b
            .element(board, "div", &[("aria-label", "Done")])
            .bounds(0.0, 0.0, 200.0, 200.0)
            .droppable()
            .id();
        let card = b
            .element(column, "div", &[("draggable", "true")])
            .bounds(0.0, 40.0, 200.0, 30.0)
            .id();
        let bin = b
            .element(body, "div", &[("aria-dropeffect", "move")])
            .bounds(0.0, 300.0, 100.0, 50.0)
            .id();
        let none = b
            .element(body, "div", &[("aria-dropeffect", "none")])
            .bounds(0.0, 400.0, 100.0, 50.0)
            .id();
        let library = b
            .element(body, "div", &[("data-rbd-droppable-id", "backlog")])
            .bounds(200.0, 300.0, 100.0, 50.0)
            .id();
        let jquery = b
            .element(body, "div", &[("class", "bin ui-droppable")])
            .bounds(300.0, 300.0, 100.0, 50.0)
            .id();
        let (_, a) = analyze(&b);
        for target in [column, bin, library, jquery] {
            assert_eq!(reason(&a, target), Some(InteractiveReason::DropTarget));
        }
        assert_eq!(reason(&a, card), Some(InteractiveReason::Draggable));
        assert_eq!(reason(&a, board), None, "it only holds draggables");
        assert_eq!(reason(&a, body), None, "the page's own listener");
        assert_eq!(reason(&a, none), None);
    }

    #[test]
    fn cursor_pointer_subtree_counted_once() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let card = b
            .element(body, "div", &[])
            .bounds(0.0, 0.0, 300.0, 100.0)
            .cursor("pointer")
            .id();
        let title = b
            .element(card, "h3", &[])
            .bounds(0.0, 0.0, 300.0, 20.0)
            .cursor("pointer")
            .id();
        let listener = b
            .element(card, "span", &[])
            .bounds(0.0, 30.0, 20.0, 20.0)
            .cursor("pointer")
            .clickable()
            .id();
        let nested_button = b
            .element(card, "button", &[])
            .bounds(0.0, 60.0, 50.0, 20.0)
            .cursor("pointer")
            .id();
        let button = b
            .element(body, "button", &[])
            .bounds(0.0, 200.0, 100.0, 30.0)
            .id();
        let icon = b
            .element(button, "span", &[])
            .bounds(5.0, 205.0, 20.0, 20.0)
            .cursor("pointer")
            .id();
        let (_, a) = analyze(&b);
        assert_eq!(reason(&a, card), Some(InteractiveReason::CursorPointer));
        assert_eq!(reason(&a, title), None);
        assert_eq!(reason(&a, listener), Some(InteractiveReason::ClickListener));
        assert_eq!(
            reason(&a, nested_button),
            Some(InteractiveReason::NativeControl),
            "real nested controls stay"
        );
        assert_eq!(
            reason(&a, icon),
            None,
            "an icon inside a button is part of the button"
        );
    }

    #[test]
    fn disabled_controls_stay_interactive() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let button = b
            .element(body, "button", &[("disabled", "")])
            .bounds(0.0, 0.0, 50.0, 20.0)
            .id();
        let aria = b
            .element(
                body,
                "div",
                &[("role", "button"), ("aria-disabled", "true")],
            )
            .bounds(0.0, 30.0, 50.0, 20.0)
            .id();
        let fieldset = b
            .element(body, "fieldset", &[("disabled", "")])
            .bounds(0.0, 60.0, 200.0, 50.0)
            .id();
        let input = b
            .element(fieldset, "input", &[])
            .bounds(0.0, 70.0, 100.0, 20.0)
            .id();
        let (_, a) = analyze(&b);
        assert_eq!(reason(&a, button), Some(InteractiveReason::NativeControl));
        assert_eq!(reason(&a, aria), Some(InteractiveReason::AriaWidget));
        assert_eq!(reason(&a, input), Some(InteractiveReason::NativeControl));
        assert!(a.is_actionable(id(button)));
    }
}

mod occlusion {
    use super::*;

    /// A button at (100, 100, 100×40) and the builder, for occluders to be added after it.
    fn button_page() -> (RecordingBuilder, usize) {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let button = b
            .element(body, "button", &[])
            .bounds(100.0, 100.0, 100.0, 40.0)
            .id();
        (b, button)
    }

    #[test]
    fn covered_by_an_opaque_later_box() {
        let (mut b, button) = button_page();
        let body = b.body();
        let cover = b
            .element(body, "div", &[])
            .bounds(50.0, 50.0, 300.0, 300.0)
            .background("rgb(255, 255, 255)")
            .id();
        let (_, a) = analyze(&b);
        assert!(a.occluded[button]);
        assert!(!a.occluded[cover]);
        assert!(!a.is_actionable(id(button)));
    }

    #[test]
    fn covered_by_several_boxes_together() {
        let (mut b, button) = button_page();
        let body = b.body();
        b.element(body, "div", &[])
            .bounds(50.0, 50.0, 100.0, 300.0)
            .background("#fff");
        b.element(body, "div", &[])
            .bounds(150.0, 50.0, 100.0, 300.0)
            .background("rgba(0, 0, 0, 0.9)");
        let (_, a) = analyze(&b);
        assert!(a.occluded[button]);
    }

    #[test]
    fn partly_covered_is_not_occluded() {
        let (mut b, button) = button_page();
        let body = b.body();
        b.element(body, "div", &[])
            .bounds(50.0, 50.0, 100.0, 300.0)
            .background("rgb(255, 255, 255)");
        let (_, a) = analyze(&b);
        assert!(!a.occluded[button]);
    }

    #[test]
    fn earlier_painted_box_does_not_occlude() {
        let (mut b, button) = button_page();
        let body = b.body();
        b.element(body, "div", &[])
            .bounds(50.0, 50.0, 300.0, 300.0)
            .background("rgb(255, 255, 255)")
            .paint_order(1);
        let (_, a) = analyze(&b);
        assert!(!a.occluded[button]);
    }

    #[test]
    fn see_through_overlays_do_not_occlude() {
        for (what, edit) in [
            (
                "transparent background",
                Box::new(|b: &mut RecordingBuilder| {
                    b.background("rgba(0, 0, 0, 0)");
                }) as Box<dyn Fn(&mut RecordingBuilder)>,
            ),
            (
                "semi-transparent backdrop",
                Box::new(|b: &mut RecordingBuilder| {
                    b.background("rgba(0, 0, 0, 0.5)");
                }),
            ),
            (
                "pointer-events: none",
                Box::new(|b: &mut RecordingBuilder| {
                    b.background("rgb(0, 0, 0)").pointer_events("none");
                }),
            ),
            (
                "low opacity",
                Box::new(|b: &mut RecordingBuilder| {
                    b.background("rgb(0, 0, 0)").opacity(0.5);
                }),
            ),
            (
                "visibility: hidden",
                Box::new(|b: &mut RecordingBuilder| {
                    b.background("rgb(0, 0, 0)").visibility("hidden");
                }),
            ),
        ] {
            let (mut b, button) = button_page();
            let body = b.body();
            b.element(body, "div", &[]).bounds(0.0, 0.0, 1280.0, 720.0);
            edit(&mut b);
            let (_, a) = analyze(&b);
            assert!(!a.occluded[button], "{what}");
        }
    }

    #[test]
    fn replaced_content_occludes_without_background() {
        let (mut b, button) = button_page();
        let body = b.body();
        b.element(body, "img", &[("src", "ad.png")])
            .bounds(90.0, 90.0, 200.0, 100.0);
        let (_, a) = analyze(&b);
        assert!(a.occluded[button]);
    }

    #[test]
    fn ancestors_and_descendants_never_occlude() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        // A parent painted after its child, as stacking contexts can order it.
        let parent = b
            .element(body, "div", &[])
            .bounds(0.0, 0.0, 400.0, 400.0)
            .background("white")
            .paint_order(100)
            .id();
        let child = b
            .element(parent, "a", &[("href", "/")])
            .bounds(10.0, 10.0, 100.0, 20.0)
            .paint_order(50)
            .id();
        let button = b
            .element(body, "button", &[])
            .bounds(500.0, 0.0, 100.0, 40.0)
            .id();
        b.element(button, "img", &[])
            .bounds(500.0, 0.0, 100.0, 40.0);
        let (_, a) = analyze(&b);
        assert!(!a.occluded[child]);
        assert!(!a.occluded[button], "its own image is part of it");
    }

    #[test]
    fn twenty_thousand_elements_run() {
        // A long feed: 4,000 cards with a background, each with four children, and
        // a sticky opaque header painted last over the first viewport.
        let mut b = RecordingBuilder::new();
        let cards = 4000;
        b.document_size(1280.0, cards as f64 * 120.0);
        let body = b.body();
        for index in 0..cards {
            let y = index as f64 * 120.0;
            let card = b
                .element(body, "article", &[])
                .bounds(20.0, y, 1240.0, 110.0)
                .background("rgb(255, 255, 255)")
                .id();
            b.element(card, "h2", &[])
                .bounds(30.0, y + 5.0, 600.0, 30.0);
            b.element(card, "p", &[])
                .bounds(30.0, y + 40.0, 1200.0, 40.0);
            b.element(card, "a", &[("href", "/more")])
                .bounds(30.0, y + 85.0, 100.0, 20.0);
            b.element(card, "button", &[])
                .bounds(1100.0, y + 85.0, 100.0, 20.0)
                .background("rgb(0, 0, 255)");
        }
        let header = b
            .element(body, "header", &[])
            .bounds(0.0, 0.0, 1280.0, 720.0)
            .position("fixed")
            .background("white")
            .id();
        assert!(b.len() > 20_000);
        let (_, a) = analyze(&b);
        let occluded = a.occluded.iter().filter(|&&o| o).count();
        assert!(a.occluded[3], "the first card lies under the header");
        assert!(!a.occluded[header]);
        assert!(!a.occluded[b.len() - 2], "the last card's button is clear");
        assert_eq!(
            occluded,
            6 * 5,
            "the six cards under the header and their children"
        );
    }
}

mod modal {
    use super::*;

    /// Page content, a portal root, and a modal `dialog` (role given by `attrs`).
    fn modal_page(attrs: &[(&str, &str)]) -> (RecordingBuilder, [usize; 5]) {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let main = b
            .element(body, "main", &[])
            .bounds(0.0, 0.0, 1280.0, 720.0)
            .id();
        let buy = b
            .element(main, "button", &[])
            .bounds(100.0, 100.0, 100.0, 40.0)
            .id();
        let portal = b
            .element(body, "div", &[("id", "portal")])
            .bounds(0.0, 0.0, 1280.0, 0.0)
            .id();
        let dialog = b
            .element(portal, "div", attrs)
            .bounds(400.0, 200.0, 480.0, 300.0)
            .position("fixed")
            .id();
        let sign_in = b
            .element(dialog, "button", &[])
            .bounds(420.0, 440.0, 100.0, 40.0)
            .id();
        (b, [main, buy, portal, dialog, sign_in])
    }

    #[test]
    fn aria_modal_dialog_obscures_everything_outside() {
        let (b, [main, buy, portal, dialog, sign_in]) =
            modal_page(&[("role", "dialog"), ("aria-modal", "true")]);
        let (_, a) = analyze(&b);
        assert_eq!(a.modal.kind, ModalKind::Reliable);
        assert_eq!(a.modal.node, Some(id(dialog)));
        assert!(a.obscured[main] && a.obscured[buy]);
        assert!(!a.obscured[dialog] && !a.obscured[sign_in]);
        for ancestor in [0, b.html(), b.body(), portal] {
            assert!(
                !a.obscured[ancestor],
                "ancestor {ancestor} contains the modal"
            );
        }
        assert!(!a.is_actionable(id(buy)));
        assert!(a.is_actionable(id(sign_in)));
    }

    #[test]
    fn alertdialog_counts_too() {
        let (b, [_, buy, _, dialog, _]) =
            modal_page(&[("role", "alertdialog"), ("aria-modal", "TRUE")]);
        let (_, a) = analyze(&b);
        assert_eq!(a.modal.node, Some(id(dialog)));
        assert!(a.obscured[buy]);
    }

    #[test]
    fn native_modal_dialog() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let buy = b
            .element(body, "button", &[])
            .bounds(100.0, 100.0, 100.0, 40.0)
            .id();
        let dialog = b
            .element(body, "dialog", &[("open", "")])
            .bounds(400.0, 200.0, 480.0, 300.0)
            .modal()
            .id();
        let ok = b
            .element(dialog, "button", &[])
            .bounds(420.0, 440.0, 100.0, 40.0)
            .id();
        let (_, a) = analyze(&b);
        assert_eq!(a.modal.kind, ModalKind::Reliable);
        assert_eq!(a.modal.node, Some(id(dialog)));
        assert!(a.obscured[buy]);
        assert!(!a.obscured[ok]);
        // Opened with `show()`: not modal.
        let mut b = RecordingBuilder::new();
        let body = b.body();
        b.element(body, "dialog", &[("open", "")])
            .bounds(400.0, 200.0, 480.0, 300.0);
        let (_, a) = analyze(&b);
        assert_eq!(a.modal.kind, ModalKind::None);
    }

    #[test]
    fn the_top_most_modal_wins() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let upper = b
            .element(body, "div", &[("role", "dialog"), ("aria-modal", "true")])
            .bounds(0.0, 0.0, 400.0, 300.0)
            .paint_order(500)
            .id();
        let lower = b
            .element(body, "div", &[("role", "dialog"), ("aria-modal", "true")])
            .bounds(0.0, 0.0, 600.0, 400.0)
            .paint_order(400)
            .id();
        let (_, a) = analyze(&b);
        assert_eq!(a.modal.node, Some(id(upper)));
        assert!(a.obscured[lower]);
    }

    #[test]
    fn hidden_modal_is_ignored() {
        let (mut b, _) = modal_page(&[]);
        let body = b.body();
        b.element(body, "div", &[("role", "dialog"), ("aria-modal", "true")])
            .display("none");
        let (_, a) = analyze(&b);
        assert_eq!(a.modal.kind, ModalKind::None);
        assert!(a.obscured.iter().all(|&o| !o));
    }

    #[test]
    fn soft_dialog_obscures_nothing() {
        let (b, [_, buy, _, _, _]) = modal_page(&[("role", "dialog")]);
        let (_, a) = analyze(&b);
        assert_eq!(a.modal.kind, ModalKind::None);
        assert_eq!(a.modal.node, None);
        assert!(!a.obscured[buy]);
    }

    #[test]
    fn big_high_z_overlay_is_only_suspected() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let buy = b
            .element(body, "button", &[])
            .bounds(100.0, 100.0, 100.0, 40.0)
            .id();
        let overlay = b
            .element(body, "div", &[])
            .bounds(0.0, 0.0, 1280.0, 720.0)
            .position("fixed")
            .z_index("9999")
            .id();
        b.element(body, "footer", &[])
            .bounds(0.0, 700.0, 1280.0, 20.0);
        let (_, a) = analyze(&b);
        assert_eq!(a.modal.kind, ModalKind::Suspected);
        assert_eq!(a.modal.node, Some(id(overlay)));
        assert!(a.obscured.iter().all(|&o| !o));
        assert!(a.is_actionable(id(buy)));
    }

    #[test]
    fn portal_backdrop_is_suspected() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        b.element(body, "main", &[]).bounds(0.0, 0.0, 1280.0, 720.0);
        let backdrop = b
            .element(body, "div", &[])
            .bounds(0.0, 0.0, 1280.0, 720.0)
            .position("fixed")
            .background("rgba(0, 0, 0, 0.4)")
            .id();
        let (_, a) = analyze(&b);
        assert_eq!(a.modal.kind, ModalKind::Suspected);
        assert_eq!(a.modal.node, Some(id(backdrop)));
    }

    #[test]
    fn click_through_overlay_is_not_suspected() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let like = b
            .element(body, "button", &[])
            .bounds(100.0, 100.0, 100.0, 40.0)
            .id();
        b.element(body, "div", &[])
            .bounds(0.0, 0.0, 1280.0, 720.0)
            .position("fixed")
            .z_index("9999")
            .pointer_events("none");
        let (_, a) = analyze(&b);
        assert_eq!(a.modal.kind, ModalKind::None);
        assert!(a.is_actionable(id(like)));
    }

    #[test]
    fn small_or_low_overlays_are_not_suspected() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        b.element(body, "div", &[])
            .bounds(0.0, 0.0, 1280.0, 100.0)
            .position("fixed")
            .z_index("9999");
        b.element(body, "div", &[])
            .bounds(0.0, 0.0, 1280.0, 720.0)
            .position("fixed")
            .z_index("10");
        b.element(body, "div", &[])
            .bounds(0.0, 0.0, 1280.0, 720.0)
            .z_index("5000");
        b.element(body, "footer", &[])
            .bounds(0.0, 700.0, 1280.0, 20.0);
        let (_, a) = analyze(&b);
        assert_eq!(a.modal.kind, ModalKind::None);
    }
}

mod scroll {
    use super::*;

    fn state(y: f64, height: f64, client_height: f64) -> ScrollState {
        ScrollState {
            x: 0.0,
            y,
            width: 300.0,
            height,
            client_width: 300.0,
            client_height,
        }
    }

    #[test]
    fn scroll_container_figures() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        b.at(body)
            .scroll_state(state(0.0, 5000.0, 720.0))
            .overflow("auto");
        let list = b
            .element(body, "ul", &[])
            .bounds(0.0, 0.0, 300.0, 400.0)
            .overflow("auto")
            .scroll_state(state(250.0, 1000.0, 400.0))
            .id();
        let wide = b
            .element(body, "div", &[])
            .bounds(0.0, 400.0, 300.0, 100.0)
            .style(|s| s.overflow_x = "scroll".into())
            .scroll_state(ScrollState {
                x: 100.0,
                y: 0.0,
                width: 1000.0,
                height: 100.0,
                client_width: 300.0,
                client_height: 100.0,
            })
            .id();
        let clipped = b
            .element(body, "div", &[])
            .bounds(0.0, 500.0, 300.0, 100.0)
            .overflow("hidden")
            .scroll_state(state(0.0, 1000.0, 100.0))
            .id();
        let fits = b
            .element(body, "div", &[])
            .bounds(0.0, 600.0, 300.0, 100.0)
            .overflow("auto")
            .scroll_state(state(0.0, 100.0, 100.0))
            .id();
        b.element(body, "div", &[])
            .bounds(0.0, 700.0, 300.0, 100.0)
            .overflow("auto")
            .scroll_state(state(0.0, 1000.0, 100.0))
            .display("none");
        let (_, a) = analyze(&b);
        assert_eq!(a.scroll_containers.len(), 2, "{:?}", a.scroll_containers);
        let first = a.scroll_containers[0];
        assert_eq!(first.node, id(list));
        assert_eq!(
            (first.above, first.below, first.left, first.right),
            (250.0, 350.0, 0.0, 0.0)
        );
        let second = a.scroll_containers[1];
        assert_eq!(second.node, id(wide));
        assert_eq!(
            (second.above, second.below, second.left, second.right),
            (0.0, 0.0, 100.0, 600.0)
        );
        // What the user scrolls is a target (page_scroll's ref); what only a
        // script scrolls, what fits, and the page's own scrolling are not.
        for scroller in [list, wide] {
            assert_eq!(
                reason(&a, scroller),
                Some(InteractiveReason::ScrollContainer)
            );
        }
        for other in [clipped, fits, body] {
            assert_eq!(reason(&a, other), None);
        }
    }

    fn position_at(scroll_y: f64) -> pagesnap_engine::analyze::PagePosition {
        let mut b = RecordingBuilder::new();
        b.viewport(1280.0, 1000.0)
            .document_size(1280.0, 4500.0)
            .scroll_to(0.0, scroll_y);
        Analysis::new(&b.page()).position
    }

    #[test]
    fn page_position_top_middle_bottom() {
        let top = position_at(0.0);
        assert_eq!((top.pages_above, top.pages_below), (0, 3));
        assert_eq!((top.pixels_above, top.pixels_below), (0.0, 3500.0));
        assert!(top.at_top && !top.at_bottom);
        assert_eq!((top.doc_height, top.viewport_height), (4500.0, 1000.0));

        let middle = position_at(2100.0);
        assert_eq!((middle.pages_above, middle.pages_below), (2, 1));
        assert_eq!((middle.pixels_above, middle.pixels_below), (2100.0, 1400.0));
        assert!(!middle.at_top && !middle.at_bottom);

        let bottom = position_at(3499.5);
        assert_eq!((bottom.pages_above, bottom.pages_below), (3, 0));
        assert!(!bottom.at_top && bottom.at_bottom);

        let short = Analysis::new(&RecordingBuilder::new().page()).position;
        assert!(short.at_top && short.at_bottom);
        assert_eq!((short.pages_above, short.pages_below), (0, 0));
    }
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    #[derive(Clone, Debug)]
    struct Spec {
        /// How many levels to climb from the previous node before attaching.
        up: usize,
        tag: usize,
        attrs: usize,
        rect: Option<(i16, i16, u16, u16)>,
        display: usize,
        visibility: usize,
        opacity: u8,
        position: usize,
        overflow: usize,
        background: usize,
        pointer: bool,
        paint: Option<u16>,
        clickable: bool,
        modal: bool,
        text: bool,
        scroll: Option<(u16, u16, u16)>,
    }

    const TAGS: &[&str] = &[
        "div", "button", "a", "input", "dialog", "span", "img", "label", "select", "option",
        "summary",
    ];
    const ATTRS: &[&[(&str, &str)]] = &[
        &[],
        &[("role", "dialog"), ("aria-modal", "true")],
        &[("role", "alertdialog"), ("aria-modal", "true")],
        &[("role", "dialog")],
        &[("aria-hidden", "true")],
        &[("inert", "")],
        &[("href", "/")],
        &[("tabindex", "0")],
        &[("contenteditable", "")],
        &[("hidden", ""), ("id", "x")],
        &[("for", "x")],
    ];
    const DISPLAYS: &[&str] = &["block", "none", "contents", "inline"];
    const VISIBILITIES: &[&str] = &["visible", "hidden", "collapse"];
    const POSITIONS: &[&str] = &["static", "relative", "absolute", "fixed", "sticky"];
    const OVERFLOWS: &[&str] = &["visible", "hidden", "auto", "scroll", "clip"];
    const BACKGROUNDS: &[&str] = &[
        "rgba(0, 0, 0, 0)",
        "rgb(255, 255, 255)",
        "rgba(0, 0, 0, 0.5)",
        "",
        "bogus(",
        "color(srgb 1 1 1 / 1)",
    ];

    fn spec() -> impl Strategy<Value = Spec> {
        (
            (
                0usize..4,
                0..TAGS.len(),
                0..ATTRS.len(),
                proptest::option::weighted(
                    0.9,
                    (any::<i16>(), any::<i16>(), 0u16..2000, 0u16..2000),
                ),
            ),
            (
                0..DISPLAYS.len(),
                0..VISIBILITIES.len(),
                0u8..=10,
                0..POSITIONS.len(),
                0..OVERFLOWS.len(),
                0..BACKGROUNDS.len(),
            ),
            (
                any::<bool>(),
                proptest::option::weighted(0.9, 0u16..400),
                any::<bool>(),
                proptest::bool::weighted(0.1),
                proptest::bool::weighted(0.2),
            ),
            proptest::option::weighted(0.2, (0u16..3000, 0u16..3000, 0u16..3000)),
        )
            .prop_map(
                |(
                    (up, tag, attrs, rect),
                    (display, visibility, opacity, position, overflow, background),
                    (pointer, paint, clickable, modal, text),
                    scroll,
                )| Spec {
                    up,
                    tag,
                    attrs,
                    rect,
                    display,
                    visibility,
                    opacity,
                    position,
                    overflow,
                    background,
                    pointer,
                    paint,
                    clickable,
                    modal,
                    text,
                    scroll,
                },
            )
    }

    fn build(specs: &[Spec], scroll_y: u16) -> RecordingBuilder {
        let mut b = RecordingBuilder::new();
        b.document_size(1280.0, 4000.0)
            .scroll_to(0.0, f64::from(scroll_y));
        // The open chain: the previous node and its ancestors.
        let mut chain = vec![b.body()];
        for spec in specs {
            for _ in 0..spec.up.min(chain.len() - 1) {
                chain.pop();
            }
            let parent = *chain.last().unwrap_or(&2);
            if spec.text {
                b.text(parent, "text");
                continue;
            }
            b.element(parent, TAGS[spec.tag], ATTRS[spec.attrs]);
            match spec.rect {
                Some((x, y, w, h)) => {
                    b.bounds(f64::from(x), f64::from(y), f64::from(w), f64::from(h))
                }
                None => b.no_bounds(),
            };
            b.display(DISPLAYS[spec.display])
                .visibility(VISIBILITIES[spec.visibility])
                .opacity(f64::from(spec.opacity) / 10.0)
                .position(POSITIONS[spec.position])
                .overflow(OVERFLOWS[spec.overflow])
                .background(BACKGROUNDS[spec.background])
                .z_index(if spec.pointer { "2000" } else { "auto" })
                .cursor(if spec.pointer { "pointer" } else { "auto" });
            match spec.paint {
                Some(paint) => b.paint_order(u32::from(paint)),
                None => b.no_paint_order(),
            };
            if spec.clickable {
                b.clickable();
            }
            if spec.modal {
                b.modal();
            }
            if let Some((y, height, client)) = spec.scroll {
                b.scroll_state(ScrollState {
                    x: 0.0,
                    y: f64::from(y),
                    width: 100.0,
                    height: f64::from(height),
                    client_width: 100.0,
                    client_height: f64::from(client),
                });
            }
            chain.push(b.id());
        }
        b
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn random_recordings_keep_the_invariants(specs in proptest::collection::vec(spec(), 0..60), scroll_y in 0u16..4000) {
            let b = build(&specs, scroll_y);
            let page = b.page();
            let a = Analysis::new(&page);
            prop_assert_eq!(a.visibility.len(), page.len());
            prop_assert_eq!(a.interactive.len(), page.len());
            prop_assert_eq!(a.occluded.len(), page.len());
            prop_assert_eq!(a.obscured.len(), page.len());
            for node in page.ids() {
                let i = node.index();
                if a.obscured[i] {
                    prop_assert_eq!(a.modal.kind, ModalKind::Reliable);
                    let modal = a.modal.node.unwrap_or(NodeId::ROOT);
                    prop_assert!(!page.contains(modal, node), "obscured node {} inside the modal", i);
                    prop_assert!(!page.contains(node, modal), "obscured node {} contains the modal", i);
                }
                if a.occluded[i] {
                    prop_assert!(page.layout(node).bounds.is_some());
                    prop_assert!(a.visibility[i].is_visible());
                }
                if a.interactive[i].is_some() {
                    prop_assert!(a.visibility[i].is_visible());
                    prop_assert!(page.element(node).is_some());
                }
            }
            if let Some(modal) = a.modal.node {
                prop_assert!(a.visibility[modal.index()].is_visible());
                prop_assert!(!a.obscured[modal.index()]);
            }
            for container in &a.scroll_containers {
                prop_assert!(container.above >= 0.0 && container.below >= 0.0);
                prop_assert!(container.left >= 0.0 && container.right >= 0.0);
            }
            let deterministic = Analysis::new(&page);
            prop_assert_eq!(&deterministic.visibility, &a.visibility);
            prop_assert_eq!(&deterministic.occluded, &a.occluded);
        }
    }
}

/// Recorded pages from `fixtures/` (made by `pagesnap record --manifest fixtures/manifest.toml`).
mod fixtures {
    use super::*;
    use pagesnap_engine::recording::Recording;

    fn load(relative: &str) -> Option<Page> {
        let path = format!("{}/../fixtures/{relative}", env!("CARGO_MANIFEST_DIR"));
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(err) => panic!(
                "{path}: {err} (re-record with `pagesnap record --manifest fixtures/manifest.toml`)"
            ),
        };
        match Recording::from_gz_bytes(&bytes, &path) {
            Ok(recording) => Some(Page::from_recording(&recording)),
            Err(err) => panic!("{err}"),
        }
    }

    fn by_id(page: &Page, value: &str) -> NodeId {
        match page.elements().find(|e| e.attr("id") == Some(value)) {
            Some(element) => element.id(),
            None => panic!("no element with id {value:?}"),
        }
    }

    #[test]
    fn checkout_modal_obscures_the_checkout() {
        let Some(page) = load("checkout_modal/initial.json.gz") else {
            return;
        };
        let a = Analysis::new(&page);
        assert_eq!(a.modal.kind, ModalKind::Reliable);
        assert_eq!(a.modal.node, Some(by_id(&page, "signin-dialog")));
        for outside in [
            "buy-now",
            "continue-payment",
            "promo-link",
            "modal-backdrop",
        ] {
            let node = by_id(&page, outside);
            assert!(a.obscured[node.index()], "{outside} is outside the modal");
            assert!(!a.is_actionable(node), "{outside}");
        }
        for inside in [
            "signin-email",
            "signin-password",
            "signin-submit",
            "signin-close",
            "signin-close-x",
        ] {
            let node = by_id(&page, inside);
            assert!(
                a.is_actionable(node),
                "{inside}: {:?}",
                a.visibility[node.index()]
            );
        }
    }

    #[test]
    fn cookie_banner_is_suspected_and_covers_the_article() {
        let Some(page) = load("cookie_banner/initial.json.gz") else {
            return;
        };
        let a = Analysis::new(&page);
        assert_eq!(a.modal.kind, ModalKind::Suspected);
        assert_eq!(a.modal.node, Some(by_id(&page, "cookie-banner")));
        assert!(
            a.obscured.iter().all(|&o| !o),
            "a suspected overlay obscures nothing"
        );
        for button in ["cookie-accept", "cookie-reject", "cookie-manage"] {
            assert!(a.is_actionable(by_id(&page, button)), "{button}");
        }
        let covered = page
            .elements()
            .filter(|e| e.name() == "p" && a.occluded[e.id().index()])
            .count();
        assert!(covered > 0, "the opaque banner covers the first paragraphs");
    }

    #[test]
    fn transparent_overlay_occludes_nothing() {
        let Some(page) = load("cookie_banner/transparent.json.gz") else {
            return;
        };
        let a = Analysis::new(&page);
        assert_eq!(a.modal.kind, ModalKind::None);
        for button in ["like-1", "like-2", "like-3", "download-all", "share-album"] {
            let node = by_id(&page, button);
            assert!(!a.occluded[node.index()], "{button}");
        }
    }
}
