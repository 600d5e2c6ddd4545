//! Roles, accessible names and states from real markup: one test per rule family.
#![allow(
    clippy::unwrap_used,
    reason = "a fixture that does not parse or match should fail the test loudly"
)]

use pagesnap_engine::analyze::{
    Analysis, Checked, Invalid, NameSource, Strength, chromium_role_matches, is_valid_role,
};
use pagesnap_engine::page::{NodeId, Page, Selector};
use pagesnap_engine::recording::{
    AxOracle, NodeKind, Point, RecNode, Recording, Rect, Size, Style, Viewport,
};
use proptest::prelude::*;

struct Fixture {
    page: Page,
    analysis: Analysis,
}

impl Fixture {
    fn new(html: &str) -> Fixture {
        let page = Page::from_html(html);
        let analysis = Analysis::new(&page);
        Fixture { page, analysis }
    }

    fn id(&self, css: &str) -> NodeId {
        let selector = Selector::parse(css).unwrap();
        let found: Vec<NodeId> = self.page.select(&selector).map(|e| e.id()).collect();
        assert_eq!(
            found.len(),
            1,
            "selector {css:?} should match exactly one element"
        );
        found[0]
    }

    fn role(&self, css: &str) -> Option<&'static str> {
        self.analysis.role(self.id(css))
    }

    fn name(&self, css: &str) -> String {
        self.analysis
            .name(self.id(css))
            .map(|n| n.text.clone())
            .unwrap_or_default()
    }

    fn source(&self, css: &str) -> (NameSource, Strength) {
        let name = self.analysis.name(self.id(css)).unwrap();
        (name.source, name.strength)
    }

    fn description(&self, css: &str) -> Option<String> {
        self.analysis.descriptions[self.id(css).index()].clone()
    }

    fn states(&self, css: &str) -> &pagesnap_engine::analyze::States {
        &self.analysis.states[self.id(css).index()]
    }
}

fn roles_of(html: &str, cases: &[(&str, Option<&str>)]) {
    let fx = Fixture::new(html);
    for (css, expected) in cases {
        assert_eq!(fx.role(css), *expected, "role of {css:?} in {html}");
    }
}

#[test]
fn implicit_roles_of_plain_elements() {
    roles_of(
        r#"<body>
        <nav id=n></nav><main id=m></main><aside id=as></aside><article id=ar></article>
        <h1 id=h1>T</h1><h6 id=h6>T</h6><p id=p>x</p><blockquote id=bq></blockquote>
        <ul id=ul><li id=li>a</li></ul><ol id=ol></ol><menu id=menu></menu>
        <dl><dt id=dt>t</dt><dd id=dd>d</dd></dl><dfn id=dfn>d</dfn>
        <hr id=hr><progress id=pr></progress><meter id=me></meter><output id=out></output>
        <textarea id=ta></textarea><dialog id=dl></dialog><details id=de><summary id=su>s</summary></details>
        <fieldset id=fs></fieldset><figure id=fi></figure><code id=co>c</code>
        <em id=em>e</em><strong id=st>s</strong><del id=del>d</del><ins id=ins>i</ins>
        <sub id=sub>1</sub><sup id=sup>2</sup><mark id=mark>m</mark><time id=time>t</time>
        <div id=div></div><span id=span></span><label id=label>l</label><b id=b>b</b>
        <button id=btn>b</button><svg id=svg></svg><my-widget id=custom></my-widget>
        <search id=search></search><br id=br>
        </body>"#,
        &[
            ("#n", Some("navigation")),
            ("#m", Some("main")),
            ("#as", Some("complementary")),
            ("#ar", Some("article")),
            ("#h1", Some("heading")),
            ("#h6", Some("heading")),
            ("#p", Some("paragraph")),
            ("#bq", Some("blockquote")),
            ("#ul", Some("list")),
            ("#li", Some("listitem")),
            ("#ol", Some("list")),
            ("#menu", Some("list")),
            ("#dt", Some("term")),
            ("#dd", Some("definition")),
            ("#dfn", Some("term")),
            ("#hr", Some("separator")),
            ("#pr", Some("progressbar")),
            ("#me", Some("meter")),
            ("#out", Some("status")),
            ("#ta", Some("textbox")),
            ("#dl", Some("dialog")),
            ("#de", Some("group")),
            ("#su", Some("button")),
            ("#fs", Some("group")),
            ("#fi", Some("figure")),
            ("#co", Some("code")),
            ("#em", Some("emphasis")),
            ("#st", Some("strong")),
            ("#del", Some("deletion")),
            ("#ins", Some("insertion")),
            ("#sub", Some("subscript")),
            ("#sup", Some("superscript")),
            ("#mark", Some("mark")),
            ("#time", Some("time")),
            ("#div", Some("generic")),
            ("#span", Some("generic")),
            ("#label", Some("generic")),
            ("#b", Some("generic")),
            ("#btn", Some("button")),
            ("#svg", Some("img")),
            ("#custom", Some("generic")),
            ("#search", Some("search")),
            ("#br", Some("generic")),
        ],
    );
}

#[test]
fn metadata_elements_have_no_role() {
    let fx = Fixture::new(
        "<head><title>t</title><meta charset=utf-8><link rel=x><style>p{}</style></head>\
         <body><script>1</script><template id=t><p>x</p></template><noscript id=ns>n</noscript>\
         <input type=hidden id=hid></body>",
    );
    for css in [
        "head", "title", "meta", "link", "style", "script", "#t", "#hid",
    ] {
        assert_eq!(fx.role(css), None, "{css}");
    }
}

#[test]
fn links_and_areas_need_href() {
    roles_of(
        r#"<a id=a1 href="/x">x</a><a id=a2>x</a><map><area id=ar1 href="/y" alt=y><area id=ar2 alt=z></map>"#,
        &[
            ("#a1", Some("link")),
            ("#a2", Some("generic")),
            ("#ar1", Some("link")),
            ("#ar2", Some("generic")),
        ],
    );
}

#[test]
fn img_with_empty_alt_is_presentational() {
    roles_of(
        r#"<img id=i1 src=a alt=""><img id=i2 src=a alt="Logo"><img id=i3 src=a>
           <img id=i4 src=a alt="" title="t"><img id=i5 src=a alt="" aria-describedby=x><img id=i6 src=a alt="" tabindex=0>"#,
        &[
            ("#i1", Some("presentation")),
            ("#i2", Some("img")),
            ("#i3", Some("img")),
            ("#i4", Some("img")),
            ("#i5", Some("img")),
            ("#i6", Some("img")),
        ],
    );
}

#[test]
fn header_footer_are_landmarks_only_outside_sectioning_content() {
    roles_of(
        r#"<header id=h1></header><footer id=f1></footer>
           <article><header id=h2></header><footer id=f2></footer></article>
           <main><header id=h3></header></main>
           <section><div><footer id=f3></footer></div></section>
           <div role=navigation><header id=h4></header></div>
           <section role=none><header id=h5></header></section>"#,
        &[
            ("#h1", Some("banner")),
            ("#f1", Some("contentinfo")),
            ("#h2", Some("generic")),
            ("#f2", Some("generic")),
            ("#h3", Some("generic")),
            ("#f3", Some("generic")),
            ("#h4", Some("generic")),
            ("#h5", Some("banner")),
        ],
    );
}

#[test]
fn aside_inside_sectioning_content_needs_a_name() {
    roles_of(
        r#"<main><aside id=a1></aside></main><article><aside id=a2></aside><aside id=a3 aria-label=Related></aside></article>"#,
        &[
            ("#a1", Some("complementary")),
            ("#a2", Some("generic")),
            ("#a3", Some("complementary")),
        ],
    );
}

#[test]
fn section_and_form_need_an_author_name() {
    roles_of(
        r#"<section id=s1></section><section id=s2 aria-label=News></section>
           <section id=s3 aria-labelledby=h><h2 id=h>H</h2></section><section id=s4 title=T></section>
           <form id=f1></form><form id=f2 aria-label=Login></form>"#,
        &[
            ("#s1", Some("generic")),
            ("#s2", Some("region")),
            ("#s3", Some("region")),
            ("#s4", Some("region")),
            ("#f1", Some("generic")),
            ("#f2", Some("form")),
        ],
    );
}

#[test]
fn input_roles_by_type() {
    roles_of(
        r#"<input id=none><input id=text type=text><input id=email type=email><input id=tel type=tel>
           <input id=url type=url><input id=search type=search><input id=cb type=checkbox>
           <input id=radio type=radio><input id=range type=range><input id=num type=number>
           <input id=button type=button><input id=submit type=submit><input id=reset type=reset>
           <input id=image type=image><input id=file type=file><input id=pw type=password>
           <input id=bogus type=bogus><input id=upper type=CHECKBOX>
           <input id=listed list=dl><datalist id=dl><option value=a></datalist><input id=dangling list=nothing>"#,
        &[
            ("#none", Some("textbox")),
            ("#text", Some("textbox")),
            ("#email", Some("textbox")),
            ("#tel", Some("textbox")),
            ("#url", Some("textbox")),
            ("#search", Some("searchbox")),
            ("#cb", Some("checkbox")),
            ("#radio", Some("radio")),
            ("#range", Some("slider")),
            ("#num", Some("spinbutton")),
            ("#button", Some("button")),
            ("#submit", Some("button")),
            ("#reset", Some("button")),
            ("#image", Some("button")),
            ("#file", Some("button")),
            ("#pw", Some("textbox")),
            ("#bogus", Some("textbox")),
            ("#upper", Some("checkbox")),
            ("#listed", Some("combobox")),
            ("#dangling", Some("textbox")),
        ],
    );
}

#[test]
fn select_option_optgroup_roles() {
    roles_of(
        r#"<select id=s1><optgroup id=og label=G><option id=o>a</option></optgroup></select>
           <select id=s2 multiple></select><select id=s3 size=4></select><select id=s4 size=1></select>"#,
        &[
            ("#s1", Some("combobox")),
            ("#og", Some("group")),
            ("#o", Some("option")),
            ("#s2", Some("listbox")),
            ("#s3", Some("listbox")),
            ("#s4", Some("combobox")),
        ],
    );
}

#[test]
fn table_roles_including_header_cells_and_grids() {
    roles_of(
        r#"<table id=t><thead id=thead><tr id=tr><th id=c1>A</th><th id=c2>B</th><th id=c3>C</th></tr></thead>
           <tbody><tr><th id=r1>Row</th><td id=td>1</td><td>2</td></tr>
           <tr><th id=sc scope=col>x</th><th id=sr scope=row>y</th><td></td></tr></tbody></table>
           <table role=grid><tr><td id=gc>1</td></tr></table>
           <table><tr><th id=lone>Only</th></tr></table>
           <table><caption id=cap>C</caption><tfoot id=tf></tfoot></table>"#,
        &[
            ("#t", Some("table")),
            ("#thead", Some("rowgroup")),
            ("#tr", Some("row")),
            ("#c1", Some("columnheader")),
            ("#c2", Some("columnheader")),
            ("#r1", Some("rowheader")),
            ("#td", Some("cell")),
            ("#sc", Some("columnheader")),
            ("#sr", Some("rowheader")),
            ("#gc", Some("gridcell")),
            ("#lone", Some("cell")),
            ("#cap", Some("caption")),
            ("#tf", Some("rowgroup")),
        ],
    );
}

#[test]
fn roles_inside_shadow_roots_and_svg() {
    let fx = Fixture::new(
        r#"<div id=host><template shadowrootmode=open><button id=inner>Go</button><header id=sh></header></template></div>
           <article><div id=host2><template shadowrootmode=open><header id=scoped></header></template></div></article>
           <svg id=icon><g id=g><path id=path d="M0"></path></g><a id=svglink href="/x"><text>t</text></a></svg>"#,
    );
    assert_eq!(fx.role("#inner"), Some("button"));
    assert_eq!(fx.role("#sh"), Some("banner"));
    assert_eq!(
        fx.role("#scoped"),
        Some("generic"),
        "sectioning scope crosses shadow boundaries"
    );
    assert_eq!(fx.role("#icon"), Some("img"));
    assert_eq!(fx.role("#g"), None);
    assert_eq!(fx.role("#path"), None);
    assert_eq!(fx.role("#svglink"), Some("link"));
}

#[test]
fn explicit_role_first_valid_token_wins() {
    roles_of(
        r#"<div id=a role="button"></div><div id=b role="foo tab button"></div>
           <div id=c role="widget"></div><div id=d role="landmark navigation"></div>
           <span id=e role="BUTTON"></span><div id=f role="image"></div><div id=g role=""></div>
           <button id=h role="link">x</button>"#,
        &[
            ("#a", Some("button")),
            ("#b", Some("tab")),
            ("#c", Some("generic")),
            ("#d", Some("navigation")),
            ("#e", Some("button")),
            ("#f", Some("img")),
            ("#g", Some("generic")),
            ("#h", Some("link")),
        ],
    );
    assert!(is_valid_role("button"));
    assert!(!is_valid_role("widget"));
    assert!(!is_valid_role("structure"));
}

#[test]
fn presentational_role_conflict_resolution() {
    roles_of(
        r#"<h2 id=a role=none>x</h2><h2 id=b role=presentation tabindex=0>x</h2>
           <h2 id=c role=none aria-describedby=z>x</h2><button id=d role=none>x</button>
           <button id=e role=none disabled>x</button><a id=f role=none href="/">x</a>
           <div id=g role=none aria-label=named>x</div><nav id=h role=none aria-live=polite></nav>
           <ul role=none><li id=li>x</li></ul>
           <table role=presentation><tr id=tr><td id=td>x</td></tr></table>"#,
        &[
            ("#a", Some("none")),
            ("#b", Some("heading")),
            ("#c", Some("heading")),
            ("#d", Some("button")),
            ("#e", Some("none")),
            ("#f", Some("link")),
            // aria-label is prohibited on generic, so it does not count.
            ("#g", Some("none")),
            ("#h", Some("navigation")),
            ("#li", Some("none")),
            ("#tr", Some("presentation")),
            ("#td", Some("presentation")),
        ],
    );
}

#[test]
fn chromium_spellings_map_to_ours() {
    assert!(chromium_role_matches("img", "image"));
    assert!(chromium_role_matches("generic", "LabelText"));
    assert!(chromium_role_matches("generic", "SectionWithoutName"));
    assert!(chromium_role_matches("region", "Section"));
    assert!(chromium_role_matches("document", "RootWebArea"));
    assert!(chromium_role_matches("button", "DisclosureTriangle"));
    assert!(chromium_role_matches("option", "MenuListOption"));
    assert!(chromium_role_matches("paragraph", "paragraph"));
    assert!(!chromium_role_matches("button", "link"));
    assert!(!chromium_role_matches("generic", "StaticText"));
}

#[test]
fn labelledby_resolves_hidden_nodes_and_stops_loops() {
    let fx = Fixture::new(
        r#"<span id=l1>Billing</span><span id=l2 hidden>address</span>
           <input id=a aria-labelledby="l1 l2 missing" aria-label="ignored">
           <div id=x aria-labelledby=y role=button>X text</div><div id=y aria-labelledby=x role=button>Y text</div>
           <button id=self aria-labelledby="self l1">Pay</button>
           <span id=outer>Outer <span aria-labelledby=l1>inner</span></span><button id=chain aria-labelledby=outer>b</button>
           <button id=empty aria-labelledby="nothing">Fallback</button>"#,
    );
    assert_eq!(fx.name("#a"), "Billing address");
    assert_eq!(
        fx.source("#a"),
        (NameSource::AriaLabelledby, Strength::Strong)
    );
    assert_eq!(fx.name("#x"), "Y text");
    assert_eq!(fx.name("#y"), "X text");
    assert_eq!(fx.name("#self"), "Pay Billing");
    // A node reached through aria-labelledby does not follow its own.
    assert_eq!(fx.name("#chain"), "Outer inner");
    assert_eq!(fx.name("#empty"), "Fallback");
}

#[test]
fn labelledby_stays_in_its_tree() {
    let fx = Fixture::new(
        r#"<span id=l>Outside</span><div><template shadowrootmode=open><span id=l>Inside</span>
           <button id=b aria-labelledby=l>x</button></template></div><button id=d aria-labelledby=l>y</button>"#,
    );
    let buttons: Vec<NodeId> = fx
        .page
        .select(&Selector::parse("button").unwrap())
        .map(|e| e.id())
        .collect();
    assert_eq!(fx.analysis.name(buttons[0]).unwrap().text, "Inside");
    assert_eq!(fx.analysis.name(buttons[1]).unwrap().text, "Outside");
}

#[test]
fn label_for_and_wrapping_label() {
    let fx = Fixture::new(
        r#"<label for=e>Email</label><input id=e type=email>
           <label>Name <input id=n></label>
           <label for=p1>First</label><label for=p1>second</label><input id=p1>
           <label>Agree <input id=cb type=checkbox> to terms</label>
           <label for=b>Label for button</label><button id=b>Content</button>"#,
    );
    assert_eq!(fx.name("#e"), "Email");
    assert_eq!(fx.source("#e"), (NameSource::Label, Strength::Strong));
    assert_eq!(fx.name("#n"), "Name");
    assert_eq!(fx.name("#p1"), "First second");
    assert_eq!(fx.name("#cb"), "Agree to terms");
    assert_eq!(fx.name("#b"), "Label for button");
}

#[test]
fn alt_names_images_areas_and_image_buttons() {
    let fx = Fixture::new(
        r#"<img id=i src=a alt="Company logo"><img id=t src=a title="Tip">
           <map><area id=ar href="/" alt="Home"></map><input id=ib type=image alt="Search" src=x>
           <input id=ib2 type=image src=x><a id=l href="/"><img src=x alt="Cart"></a>"#,
    );
    assert_eq!(fx.name("#i"), "Company logo");
    assert_eq!(fx.source("#i"), (NameSource::Alt, Strength::Strong));
    assert_eq!(fx.name("#t"), "Tip");
    assert_eq!(fx.source("#t"), (NameSource::Title, Strength::Weak));
    assert_eq!(fx.name("#ar"), "Home");
    assert_eq!(fx.name("#ib"), "Search");
    assert_eq!(fx.name("#ib2"), "Submit");
    assert_eq!(fx.source("#ib2"), (NameSource::Value, Strength::Weak));
    assert_eq!(fx.name("#l"), "Cart");
    assert_eq!(fx.source("#l"), (NameSource::Text, Strength::Strong));
}

#[test]
fn title_is_the_last_fallback() {
    let fx = Fixture::new(
        r#"<a id=a href="/" title="Settings"><svg></svg></a><button id=b title="Close">Shut</button>
           <input id=c title="Query" placeholder="Search…">"#,
    );
    assert_eq!(fx.name("#a"), "Settings");
    assert_eq!(fx.source("#a"), (NameSource::Title, Strength::Weak));
    assert_eq!(fx.name("#b"), "Shut");
    assert_eq!(fx.description("#b").as_deref(), Some("Close"));
    assert_eq!(fx.name("#c"), "Query");
    assert_eq!(
        fx.description("#a"),
        None,
        "title used for the name is not repeated as description"
    );
}

#[test]
fn placeholder_names_unlabelled_text_inputs() {
    let fx = Fixture::new(
        r#"<input id=a placeholder="Search products"><textarea id=b placeholder="Message"></textarea>
           <input id=c type=checkbox placeholder="nope"><label for=d>Real</label><input id=d placeholder="Hint">"#,
    );
    assert_eq!(fx.name("#a"), "Search products");
    assert_eq!(fx.source("#a"), (NameSource::Placeholder, Strength::Weak));
    assert_eq!(fx.name("#b"), "Message");
    assert_eq!(fx.name("#c"), "");
    assert_eq!(fx.source("#c"), (NameSource::Unknown, Strength::Unknown));
    assert_eq!(fx.name("#d"), "Real");
}

#[test]
fn fieldset_legend_caption_figcaption() {
    let fx = Fixture::new(
        r#"<fieldset id=f><legend>Shipping <b>method</b></legend><input></fieldset>
           <table id=t><caption>Prices 2024</caption><tr><td>1</td></tr></table>
           <figure id=g><img src=x alt=""><figcaption>Figure 1. Growth</figcaption></figure>
           <table id=s summary="Summary text"><tr><td>1</td></tr></table>"#,
    );
    assert_eq!(fx.name("#f"), "Shipping method");
    assert_eq!(fx.source("#f"), (NameSource::Label, Strength::Strong));
    assert_eq!(fx.name("#t"), "Prices 2024");
    assert_eq!(fx.name("#g"), "Figure 1. Growth");
    assert_eq!(fx.name("#s"), "Summary text");
}

#[test]
fn input_buttons_use_value_or_defaults() {
    let fx = Fixture::new(
        r#"<input id=a type=submit value="Place order"><input id=b type=submit><input id=c type=reset>
           <input id=d type=button value="Go"><input id=e type=button>"#,
    );
    assert_eq!(fx.name("#a"), "Place order");
    assert_eq!(fx.source("#a"), (NameSource::Value, Strength::Strong));
    assert_eq!(fx.name("#b"), "Submit");
    assert_eq!(fx.source("#b"), (NameSource::Value, Strength::Weak));
    assert_eq!(fx.name("#c"), "Reset");
    assert_eq!(fx.name("#d"), "Go");
    assert_eq!(fx.name("#e"), "");
}

#[test]
fn embedded_controls_contribute_their_values() {
    let fx = Fixture::new(
        r#"<input id=cb type=checkbox><label for=cb>Remind me every <select><option>day</option><option selected>week</option></select></label>
           <label for=target>Quantity <input value="3"></label><input id=target type=checkbox>
           <span id=lbl>Per <input value="page"></span><div id=d role=checkbox aria-labelledby=lbl></div>"#,
    );
    assert_eq!(fx.name("#cb"), "Remind me every week");
    assert_eq!(fx.name("#target"), "Quantity 3");
    assert_eq!(fx.name("#d"), "Per page");
}

#[test]
fn visibility_visible_inside_visibility_hidden_still_names() {
    // CSS 2.2 §11.2: `visibility` inherits, so a descendant may show again;
    // Chromium names the button from its content. `aria-hidden` and
    // `display: none` hide whole subtrees, whatever the descendants say.
    let fx = Fixture::new(
        "<div style='visibility: hidden'><span>gone</span>\
           <button id=a style='visibility: visible'>Shown <i>again</i></button>\
           <button id=b>Still <b style='visibility: visible'>half</b></button></div>\
         <div aria-hidden=true><button id=c style='visibility: visible'>Aria</button></div>\
         <button id=d aria-labelledby=h>x</button><div style='visibility: hidden' id=h>Hidden label</div>",
    );
    assert_eq!(fx.name("#a"), "Shown again");
    assert_eq!(
        fx.name("#b"),
        "",
        "a hidden target has no name (accname 2A)"
    );
    assert_eq!(
        fx.name("#c"),
        "",
        "visibility: visible does not undo aria-hidden"
    );
    assert_eq!(
        fx.name("#d"),
        "Hidden label",
        "aria-labelledby reads hidden targets"
    );
}

#[test]
fn a_visible_descendant_of_a_hidden_descendant_counts_in_the_name_and_shows() {
    // Chromium: `<button>Top <span hidden-by-visibility>gone <b visible>back</b></span>`
    // is "Top back", and a visible button inside a hidden block is in the
    // tree (Playwright's ariaSnapshot leaves both out; Chromium is the oracle).
    let fx = Fixture::new(
        "<button id=v>Top <span style='visibility: hidden'>gone \
           <b style='visibility: visible'>back</b></span></button>\
         <div style='visibility: hidden'>Veiled <button id=w style='visibility: visible'>Shown</button></div>\
         <button id=x>Kept <span aria-hidden=true>no <b style='visibility: visible'>never</b></span></button>",
    );
    assert_eq!(fx.name("#v"), "Top back");
    assert_eq!(fx.name("#x"), "Kept", "aria-hidden still hides the subtree");
    let aria = crate::common::observe("aria", &fx.page, &Default::default()).text;
    assert!(aria.contains("button \"Shown\""), "{aria}");
    assert!(!aria.contains("Veiled") && !aria.contains("gone"), "{aria}");
}

#[test]
fn slotted_content_is_set_apart_in_names() {
    // A `<slot>` is `display: contents`: Chromium and Playwright name
    // `<button>Say <slot></slot>!</button>` filled with "Light text" as
    // "Say Light text !".
    let fx = Fixture::new(
        "<my-btn id=h><template shadowrootmode=open><button id=in>Say <slot></slot>!</button></template>Light text</my-btn>",
    );
    let page = &fx.page;
    let button = page
        .elements()
        .find(|e| e.name() == "button")
        .map(|e| e.id())
        .unwrap();
    let name = pagesnap_engine::analyze::Analysis::new(page)
        .name(button)
        .map(|n| n.text.clone());
    assert_eq!(name.as_deref(), Some("Say Light text !"));
}

#[test]
fn name_from_content_normalises_whitespace_and_nesting() {
    let fx = Fixture::new(
        "<button id=a>\n  Add <em>to</em>\n\t<strong>cart</strong>  </button>\
         <a id=b href=/>Read<span>more</span></a>\
         <a id=c href=/><div>Block</div><div>level</div></a>\
         <h2 id=d>Title<br>Sub</h2>\
         <button id=e>Save <span aria-hidden=true>★</span><span hidden>secret</span><span style=\"display: none\">x</span></button>\
         <a id=f href=/><nav>in nav</nav>ok</a>\
         <button id=g>a\u{a0}b\u{200b}c</button>",
    );
    assert_eq!(fx.name("#a"), "Add to cart");
    assert_eq!(fx.name("#b"), "Readmore");
    assert_eq!(fx.name("#c"), "Block level");
    assert_eq!(fx.name("#d"), "Title Sub");
    assert_eq!(fx.name("#e"), "Save");
    assert_eq!(
        fx.name("#f"),
        "ok",
        "navigation does not contribute content (Chromium)"
    );
    assert_eq!(fx.name("#g"), "a\u{a0}bc");
}

#[test]
fn name_from_content_through_shadow_slots() {
    let fx = Fixture::new(
        r#"<button id=b><template shadowrootmode=open><span>Buy </span><slot></slot><slot name=x>fallback</slot></template>now</button>"#,
    );
    // Slots are `display: contents`: Chromium sets their nodes apart.
    assert_eq!(fx.name("#b"), "Buy now fallback");
}

#[test]
fn roles_that_do_not_name_from_content() {
    let fx = Fixture::new(
        r#"<nav id=n>Links here</nav><div id=d>text</div><table><tr id=r><td>a</td><td>b</td></tr></table>
           <div role=grid><div id=gr role=row><div role=gridcell>x</div><div role=gridcell>y</div></div></div>"#,
    );
    assert_eq!(fx.name("#n"), "");
    assert!(
        fx.analysis.name(fx.id("#d")).is_none(),
        "generic gets no name"
    );
    assert_eq!(
        fx.name("#r"),
        "",
        "Chromium names rows from content only in grids"
    );
    assert_eq!(fx.name("#gr"), "x y");
}

#[test]
fn describedby_then_title() {
    let fx = Fixture::new(
        r#"<p id=h1>Must be 8+ characters.</p><p id=h2 hidden>Hidden hint</p>
           <input id=a aria-describedby="h1 h2" title="ignored"><button id=b title="More">Go</button>
           <button id=c aria-description="Inline">Go</button>"#,
    );
    assert_eq!(
        fx.description("#a").as_deref(),
        Some("Must be 8+ characters. Hidden hint")
    );
    assert_eq!(fx.description("#b").as_deref(), Some("More"));
    assert_eq!(fx.description("#c").as_deref(), Some("Inline"));
}

#[test]
fn sources_and_strengths() {
    let fx = Fixture::new(
        r#"<button id=al aria-label="Close dialog">x</button><button id=x>×</button>
           <button id=one>X</button><button id=digits>42</button><button id=pua>&#xe900;</button>
           <button id=txt>Continue</button><button id=empty></button><span id=l>Named</span>
           <button id=lb aria-labelledby=l></button><button id=ti title="Help"></button>"#,
    );
    assert_eq!(fx.source("#al"), (NameSource::AriaLabel, Strength::Strong));
    assert_eq!(fx.source("#x"), (NameSource::Text, Strength::Weak));
    assert_eq!(fx.source("#one"), (NameSource::Text, Strength::Weak));
    assert_eq!(fx.source("#digits"), (NameSource::Text, Strength::Weak));
    assert_eq!(fx.source("#pua"), (NameSource::Text, Strength::Weak));
    assert_eq!(fx.source("#txt"), (NameSource::Text, Strength::Strong));
    assert_eq!(
        fx.source("#empty"),
        (NameSource::Unknown, Strength::Unknown)
    );
    assert_eq!(
        fx.source("#lb"),
        (NameSource::AriaLabelledby, Strength::Strong)
    );
    assert_eq!(fx.source("#ti"), (NameSource::Title, Strength::Weak));
}

#[test]
fn option_and_select_names() {
    let fx = Fixture::new(
        r#"<label for=s>Country</label><select id=s><option id=o1 label="France (FR)">France</option><option id=o2>  Spain </option></select>"#,
    );
    assert_eq!(fx.name("#s"), "Country");
    assert_eq!(fx.name("#o1"), "France (FR)");
    assert_eq!(fx.name("#o2"), "Spain");
    assert_eq!(fx.states("#s").value.as_deref(), Some("France (FR)"));
}

#[test]
fn disabled_fieldset_spares_its_first_legend() {
    let fx = Fixture::new(
        r#"<fieldset disabled><legend><input id=inlegend></legend><legend><input id=second></legend>
           <input id=a><div><button id=b>b</button></div>
           <fieldset><legend><input id=nested></legend></fieldset></fieldset>
           <select><optgroup disabled><option id=o>x</option></optgroup></select>
           <button id=native disabled>n</button><input id=enabled>"#,
    );
    assert!(!fx.states("#inlegend").disabled);
    assert!(fx.states("#second").disabled);
    assert!(fx.states("#a").disabled);
    assert!(fx.states("#b").disabled);
    assert!(
        fx.states("#nested").disabled,
        "the inner legend is still inside the outer disabled fieldset"
    );
    assert!(fx.states("#o").disabled);
    assert!(fx.states("#native").disabled);
    assert!(!fx.states("#enabled").disabled);
}

#[test]
fn aria_disabled_on_node_and_ancestor() {
    let fx = Fixture::new(
        r#"<div role=button id=a aria-disabled=true>a</div>
           <div role=toolbar aria-disabled=true><div role=button id=b>b</div><div id=c>c</div>
           <span aria-disabled=false><a id=d href=/>d</a></span></div>"#,
    );
    assert!(fx.states("#a").disabled);
    assert!(fx.states("#b").disabled);
    assert!(
        !fx.states("#c").disabled,
        "generic does not support aria-disabled"
    );
    assert!(
        !fx.states("#d").disabled,
        "nearest aria-disabled=false wins"
    );
}

#[test]
fn checked_and_mixed() {
    let fx = Fixture::new(
        r#"<input id=a type=checkbox checked><input id=b type=checkbox><input id=c type=radio checked>
           <div id=d role=checkbox aria-checked=mixed></div><div id=e role=switch aria-checked=true></div>
           <div id=f role=checkbox></div><div id=g role=menuitemradio aria-checked=false></div><button id=h>x</button>"#,
    );
    assert_eq!(fx.states("#a").checked, Some(Checked::True));
    assert_eq!(fx.states("#b").checked, Some(Checked::False));
    assert_eq!(fx.states("#c").checked, Some(Checked::True));
    assert_eq!(fx.states("#d").checked, Some(Checked::Mixed));
    assert_eq!(fx.states("#e").checked, Some(Checked::True));
    assert_eq!(fx.states("#f").checked, Some(Checked::False));
    assert_eq!(fx.states("#g").checked, Some(Checked::False));
    assert_eq!(fx.states("#h").checked, None);
}

#[test]
fn selected_options_and_aria_selected() {
    let fx = Fixture::new(
        r#"<select><option id=a>1</option><option id=b>2</option></select>
           <select><option id=c>1</option><option id=d selected>2</option></select>
           <select multiple><option id=e>1</option></select>
           <div role=tablist><div role=tab id=t1 aria-selected=true>A</div><div role=tab id=t2>B</div></div>"#,
    );
    assert_eq!(
        fx.states("#a").selected,
        Some(true),
        "first option of a single select is selected by default"
    );
    assert_eq!(fx.states("#b").selected, Some(false));
    assert_eq!(fx.states("#c").selected, Some(false));
    assert_eq!(fx.states("#d").selected, Some(true));
    assert_eq!(fx.states("#e").selected, Some(false));
    assert_eq!(fx.states("#t1").selected, Some(true));
    assert_eq!(fx.states("#t2").selected, None);
}

#[test]
fn expanded_from_aria_and_details() {
    let fx = Fixture::new(
        r#"<button id=a aria-expanded=true>a</button><button id=b aria-expanded=false>b</button><button id=c>c</button>
           <details open id=d><summary id=s>More</summary>x</details><details><summary id=s2>Less</summary></details>
           <div id=g aria-expanded=true>generic</div>"#,
    );
    assert_eq!(fx.states("#a").expanded, Some(true));
    assert_eq!(fx.states("#b").expanded, Some(false));
    assert_eq!(fx.states("#c").expanded, None);
    assert_eq!(fx.states("#d").expanded, Some(true));
    assert_eq!(fx.states("#s").expanded, Some(true));
    assert_eq!(fx.states("#s2").expanded, Some(false));
    assert_eq!(fx.states("#g").expanded, None);
    assert_eq!(fx.name("#s"), "More");
}

#[test]
fn pressed_including_mixed() {
    let fx = Fixture::new(
        r#"<button id=a aria-pressed=true>B</button><button id=b aria-pressed=mixed>I</button>
           <button id=c aria-pressed=false>U</button><button id=d>x</button><a id=e href=/ aria-pressed=true>l</a>"#,
    );
    assert_eq!(fx.states("#a").pressed, Some(Checked::True));
    assert_eq!(fx.states("#b").pressed, Some(Checked::Mixed));
    assert_eq!(fx.states("#c").pressed, Some(Checked::False));
    assert_eq!(fx.states("#d").pressed, None);
    assert_eq!(fx.states("#e").pressed, None);
}

#[test]
fn heading_and_aria_levels() {
    let fx = Fixture::new(
        r#"<h1 id=a>a</h1><h4 id=b>b</h4><div id=c role=heading aria-level=3>c</div><div id=d role=heading>d</div>
           <h2 id=e aria-level=5>e</h2><div id=f role=treeitem aria-level=2>f</div><p id=g aria-level=2>g</p>"#,
    );
    assert_eq!(fx.states("#a").level, Some(1));
    assert_eq!(fx.states("#b").level, Some(4));
    assert_eq!(fx.states("#c").level, Some(3));
    assert_eq!(fx.states("#d").level, Some(2));
    assert_eq!(fx.states("#e").level, Some(5));
    assert_eq!(fx.states("#f").level, Some(2));
    assert_eq!(fx.states("#g").level, None);
}

#[test]
fn required_readonly_invalid() {
    let fx = Fixture::new(
        r#"<input id=a required><div id=b role=textbox aria-required=true></div><input id=c readonly>
           <div id=d role=textbox aria-readonly=true></div><input id=e aria-invalid=true>
           <input id=f aria-invalid=spelling><input id=g aria-invalid=false><input id=h>"#,
    );
    assert!(fx.states("#a").required);
    assert!(fx.states("#b").required);
    assert!(fx.states("#c").readonly);
    assert!(fx.states("#d").readonly);
    assert_eq!(fx.states("#e").invalid, Some(Invalid::True));
    assert_eq!(fx.states("#f").invalid, Some(Invalid::Spelling));
    assert_eq!(fx.states("#g").invalid, None);
    let h = fx.states("#h");
    assert!(!h.required && !h.readonly && h.invalid.is_none());
}

#[test]
fn values_of_fields_sliders_and_selects() {
    let fx = Fixture::new(
        r#"<input id=a value="hello"><textarea id=b>multi
line</textarea><input id=c type=range min=0 max=10><input id=d type=number value=7>
           <div id=e role=slider aria-valuenow=30 aria-valuetext="30 percent"></div><div id=f role=slider aria-valuenow=4></div>
           <select id=g><option>One</option><option selected>Two</option></select>
           <input id=h type=password value="hunter2"><input id=i type=checkbox value=on><input id=j>"#,
    );
    assert_eq!(fx.states("#a").value.as_deref(), Some("hello"));
    assert_eq!(fx.states("#b").value.as_deref(), Some("multi\nline"));
    assert_eq!(fx.states("#c").value.as_deref(), Some("5"));
    assert_eq!(fx.states("#d").value.as_deref(), Some("7"));
    assert_eq!(fx.states("#e").value.as_deref(), Some("30 percent"));
    assert_eq!(fx.states("#f").value.as_deref(), Some("4"));
    assert_eq!(fx.states("#g").value.as_deref(), Some("Two"));
    assert_ne!(
        fx.states("#h").value.as_deref(),
        Some("hunter2"),
        "password values never leak"
    );
    assert_eq!(fx.states("#i").value, None);
    assert_eq!(fx.states("#j").value.as_deref(), Some(""));
}

#[test]
fn large_pages_stay_fast() {
    // 3,000 grid rows named from their cells plus ~20,000 nodes of nesting.
    let mut html = String::from("<table role=grid>");
    for i in 0..3000 {
        html.push_str(&format!(
            "<tr><td>Item {i}</td><td><a href=/{i}>Open <b>{i}</b></a></td></tr>"
        ));
    }
    html.push_str("</table>");
    for _ in 0..200 {
        html.push_str("<ul>");
        for j in 0..20 {
            html.push_str(&format!(
                "<li><div><span>Entry {j}</span><button>Do {j}</button></div></li>"
            ));
        }
        html.push_str("</ul>");
    }
    let page = Page::from_html(&html);
    let start = std::time::Instant::now();
    let analysis = Analysis::new(&page);
    let elapsed = start.elapsed();
    assert!(elapsed.as_secs_f64() < 5.0, "analysis took {elapsed:?}");
    let rows: Vec<NodeId> = page
        .select(&Selector::parse("tr").unwrap())
        .map(|e| e.id())
        .collect();
    assert_eq!(analysis.name(rows[42]).unwrap().text, "Item 42 Open 42");
}

const TAGS: &[&str] = &[
    "div",
    "span",
    "p",
    "a",
    "button",
    "input",
    "select",
    "option",
    "optgroup",
    "textarea",
    "label",
    "form",
    "fieldset",
    "legend",
    "table",
    "thead",
    "tbody",
    "tr",
    "td",
    "th",
    "caption",
    "ul",
    "ol",
    "li",
    "dl",
    "dt",
    "dd",
    "nav",
    "main",
    "header",
    "footer",
    "section",
    "article",
    "aside",
    "h1",
    "h3",
    "img",
    "figure",
    "figcaption",
    "details",
    "summary",
    "dialog",
    "em",
    "strong",
    "code",
    "svg",
    "progress",
    "meter",
    "output",
    "hr",
    "br",
    "blockquote",
    "iframe",
    "my-element",
];
const ROLES: &[&str] = &[
    "button",
    "none",
    "presentation",
    "grid",
    "row",
    "foo bar",
    "tab link",
    "heading",
    "",
    "widget",
];
const ATTRS: &[&str] = &[
    "aria-label",
    "aria-labelledby",
    "aria-describedby",
    "aria-hidden",
    "aria-disabled",
    "aria-checked",
    "id",
    "for",
    "href",
    "tabindex",
    "disabled",
    "title",
    "alt",
    "type",
    "scope",
    "multiple",
    "placeholder",
    "value",
];

#[derive(Debug, Clone)]
struct Tree {
    tag: usize,
    role: Option<usize>,
    attrs: Vec<(usize, u8)>,
    text: Option<String>,
    children: Vec<Tree>,
}

fn tree() -> impl Strategy<Value = Tree> {
    let leaf = (
        0..TAGS.len(),
        proptest::option::of(0..ROLES.len()),
        proptest::collection::vec((0..ATTRS.len(), 0u8..6), 0..4),
        proptest::option::of("[a-z ]{0,8}"),
    )
        .prop_map(|(tag, role, attrs, text)| Tree {
            tag,
            role,
            attrs,
            text,
            children: Vec::new(),
        });
    leaf.prop_recursive(30, 300, 4, |inner| {
        (
            0..TAGS.len(),
            proptest::option::of(0..ROLES.len()),
            proptest::collection::vec((0..ATTRS.len(), 0u8..6), 0..4),
            proptest::collection::vec(inner, 0..4),
        )
            .prop_map(|(tag, role, attrs, children)| Tree {
                tag,
                role,
                attrs,
                text: None,
                children,
            })
    })
}

fn render(tree: &Tree, out: &mut String) {
    let tag = TAGS[tree.tag];
    out.push('<');
    out.push_str(tag);
    if let Some(role) = tree.role {
        out.push_str(&format!(" role=\"{}\"", ROLES[role]));
    }
    for &(attr, value) in &tree.attrs {
        let value = match ATTRS[attr] {
            "aria-hidden" | "aria-disabled" | "aria-checked" => {
                ["true", "false", "mixed"][usize::from(value % 3)].to_owned()
            }
            "type" => ["text", "checkbox", "submit", "hidden", "image", "range"]
                [usize::from(value)]
            .to_owned(),
            _ => format!("n{value} n{}", value / 2),
        };
        out.push_str(&format!(" {}=\"{}\"", ATTRS[attr], value));
    }
    out.push('>');
    if let Some(text) = &tree.text {
        out.push_str(text);
    }
    for child in &tree.children {
        render(child, out);
    }
    out.push_str(&format!("</{tag}>"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn arbitrary_trees_never_panic_and_every_rendered_element_has_a_role(tree in tree()) {
        let mut html = String::from("<!doctype html><body>");
        render(&tree, &mut html);
        let page = Page::from_html(&html);
        let analysis = Analysis::new(&page);
        prop_assert_eq!(analysis.roles.len(), page.len());
        prop_assert_eq!(analysis.names.len(), page.len());
        let body = page.select(&Selector::parse("body").unwrap()).next().map(|b| b.id());
        let Some(body) = body else { return Ok(()); };
        for element in page.elements() {
            let id = element.id();
            if !page.contains(body, id) {
                continue;
            }
            let value = element.value();
            let in_svg = page.ancestors(id).any(|a| page.element(a).is_some_and(|e| e.name == "svg"));
            let hidden_input = value.is("input") && element.attr("type").is_some_and(|t| t.eq_ignore_ascii_case("hidden"));
            if in_svg || hidden_input || value.ns != pagesnap_engine::page::Namespace::Html {
                continue;
            }
            prop_assert!(analysis.role(id).is_some(), "no role for <{}> in {}", value.name, html);
            if page.element(id).is_some() {
                if let Some(name) = analysis.name(id) {
                    prop_assert_eq!(name.text.trim(), name.text.as_str());
                }
            }
        }
    }
}

/// A minimal recording: every element rendered as a block, with the given
/// live form state.
struct Rec {
    nodes: Vec<RecNode>,
}

impl Rec {
    fn new() -> Rec {
        Rec {
            nodes: vec![RecNode {
                kind: NodeKind::Document,
                ..RecNode::default()
            }],
        }
    }

    fn element(&mut self, parent: u32, tag: &str, attrs: &[(&str, &str)]) -> u32 {
        self.nodes.push(RecNode {
            parent: Some(parent),
            kind: NodeKind::Element,
            tag: tag.to_owned(),
            attrs: attrs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
            bounds: Some(Rect {
                x: 0.0,
                y: 0.0,
                width: 100.0,
                height: 20.0,
            }),
            style: Some(std::sync::Arc::new(Style {
                display: "block".to_owned(),
                visibility: "visible".to_owned(),
                opacity: 1.0,
                ..Style::default()
            })),
            ..RecNode::default()
        });
        (self.nodes.len() - 1) as u32
    }

    fn text(&mut self, parent: u32, text: &str) {
        self.nodes.push(RecNode {
            parent: Some(parent),
            kind: NodeKind::Text,
            text: Some(text.into()),
            ..RecNode::default()
        });
    }

    fn finish(self, focused: Option<u32>) -> Page {
        Page::from_recording(&Recording {
            schema: pagesnap_engine::recording::SCHEMA.to_owned(),
            url: "https://example.test/".to_owned(),
            title: String::new(),
            captured_at: "2025-01-01T00:00:00Z".to_owned(),
            browser: "Chrome/156".to_owned(),
            viewport: Viewport {
                width: 1280.0,
                height: 720.0,
                device_scale_factor: 1.0,
            },
            scroll: Point::default(),
            document_size: Size::default(),
            focused,
            nodes: self.nodes,
            ax: AxOracle::default(),
            counts: None,
            capture: Default::default(),
        })
    }
}

#[test]
fn live_form_state_wins_over_markup() {
    let mut rec = Rec::new();
    let html = rec.element(0, "html", &[]);
    let body = rec.element(html, "body", &[]);
    let input = rec.element(body, "input", &[("value", "markup")]);
    rec.nodes[input as usize].value = Some("typed".to_owned());
    let checkbox = rec.element(body, "input", &[("type", "checkbox"), ("checked", "")]);
    rec.nodes[checkbox as usize].checked = Some(false);
    let select = rec.element(body, "select", &[]);
    let first = rec.element(select, "option", &[("selected", "")]);
    rec.text(first, "First");
    rec.nodes[first as usize].selected = Some(false);
    let second = rec.element(select, "option", &[]);
    rec.text(second, "Second");
    rec.nodes[second as usize].selected = Some(true);
    let label = rec.element(body, "label", &[]);
    rec.text(label, "Pick ");
    let embedded = rec.element(label, "select", &[]);
    let only = rec.element(embedded, "option", &[]);
    rec.text(only, "Live");
    rec.nodes[only as usize].selected = Some(true);
    let anchor = rec.element(body, "a", &[]);
    rec.nodes[anchor as usize].clickable = true;
    rec.text(anchor, "Scripted link");
    let page = rec.finish(Some(input));
    let analysis = Analysis::new(&page);
    let state = |i: u32| &analysis.states[i as usize];
    let id = |i: u32| NodeId::from_index(i as usize);
    assert_eq!(state(input).value.as_deref(), Some("typed"));
    assert!(state(input).focused);
    assert_eq!(state(checkbox).checked, Some(Checked::False));
    assert_eq!(state(first).selected, Some(false));
    assert_eq!(state(second).selected, Some(true));
    assert_eq!(state(select).value.as_deref(), Some("Second"));
    assert_eq!(analysis.name(id(embedded)).unwrap().text, "Pick");
    assert_eq!(
        analysis.role(id(anchor)),
        Some("link"),
        "Chromium exposes clickable anchors as links"
    );
    assert_eq!(analysis.name(id(anchor)).unwrap().text, "Scripted link");
}

#[test]
fn nested_named_content_is_read_once_and_named_alike_at_every_level() {
    // Layout tables nested 300 deep: every cell is named from all the text
    // below it, and an inner cell's text is walked once, then reused.
    let depth = 300;
    let mut html = String::new();
    for level in 0..depth {
        html.push_str(&format!("<table><tr><td id=c{level}>w{level} "));
    }
    for _ in 0..depth {
        html.push_str("</td></tr></table>");
    }
    let fx = Fixture::new(&html);
    for level in [0, 1, 150, depth - 1] {
        let expected: Vec<String> = (level..depth).map(|l| format!("w{l}")).collect();
        assert_eq!(
            fx.name(&format!("#c{level}")),
            expected.join(" "),
            "cell {level}"
        );
    }
}

#[test]
fn reused_content_still_counts_as_visited_for_later_references() {
    // The link's text is kept from the outer cell's walk. When the inner
    // cell reuses it, the reference that follows must find `#t` visited,
    // as a walk without reuse would (accname's loop protection), and fall
    // back to its own content.
    let fx = Fixture::new(
        r##"<table><tr><td id=outer><table><tr><td id=inner><a id=l href="#"><span id=t>Target</span></a>
           <span aria-labelledby=t>ref</span></td></tr></table></td></tr></table>"##,
    );
    assert_eq!(fx.name("#outer"), "Target ref");
    assert_eq!(fx.name("#inner"), "Target ref");
    assert_eq!(fx.name("#l"), "Target");
}
