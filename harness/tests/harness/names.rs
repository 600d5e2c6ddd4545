//! Names where pages hide what they say, checked against Chromium itself: a page of accname 1.2 / CSS / HTML-AAM cases (generated content with alternative text, inline-block words, controls embedded in labels and `aria-owns`, `visibility: visible` inside `visibility: hidden`, slotted shadow content) is recorded and `validate` must agree on every role and name.

use crate::support::{pagesnap, stderr, stdout};

/// Each case names its element by `id`; the comment says what Chromium answers.
const CASES: &str = r##"<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>names</title>
<style>
  .star::before { content: "★" / "Rated"; }
  .logo::before { content: url(data:image/gif;base64,R0lGODlhAQABAAAAACw=) / "Logo"; }
  .plain::after { content: " ★"; }
  .ib { display: inline-block; }
  .hid { visibility: hidden; }
  .vis { visibility: visible; }
</style></head><body>
<!-- CSS generated content with alternative text: "Rated", "Logo", "Rated five"; none: "Stars ★" -->
<button id="g1" class="star"></button>
<a id="g2" href="#x" class="logo"></a>
<button id="g3"><span class="star"></span> five</button>
<button id="g4" class="plain">Stars</button>
<!-- inline-block boundaries separate words: "This is a label", "Save draft", "one two three" -->
<label for="i1">This<span class="ib">is</span><span class="ib">a</span>label</label><input id="i1">
<button id="i2">Save<span class="ib">draft</span></button>
<div role="link" tabindex="0" id="i3">one<div class="ib">two</div>three</div>
<!-- embedded controls give their value: "Flash the screen 3 times", "Volume 7 now", … -->
<label for="c1">Flash the screen <select id="c0"><option>1</option><option selected>3</option></select> times</label><input type="checkbox" id="c1">
<label for="c2">Volume <input type="range" id="c2r" min="0" max="10" value="7"> now</label><input type="checkbox" id="c2">
<label for="c3">Repeat <input type="number" id="c3n" value="4"> times</label><input type="checkbox" id="c3">
<label for="c4">Pick <input role="combobox" id="c4c" value="red"> color</label><input type="checkbox" id="c4">
<div role="checkbox" aria-checked="false" id="c5" aria-owns="c5s" tabindex="0">Send</div><select id="c5s"><option>2</option><option selected>5</option></select>
<label for="c6">Choose <span role="listbox" id="c6l"><span role="option" aria-selected="true">Blue</span><span role="option">Green</span></span> tone</label><input type="checkbox" id="c6">
<!-- visibility: visible inside visibility: hidden: "Shown again", "Top back" -->
<div class="hid"><button id="v1" class="vis">Shown again</button></div>
<button id="v3">Top <span class="hid">gone <b class="vis">back</b></span></button>
<!-- slotted content: "Label: Slotted label", "By fallback text", "Say Light text !" -->
<my-el><span slot="label">Slotted label</span></my-el>
<my-fb></my-fb>
<my-btn>Light text</my-btn>
<script>
customElements.define('my-el', class extends HTMLElement { constructor() { super(); this.attachShadow({mode: 'open'}).innerHTML = '<label for="x">Label: <slot name="label">fallback</slot></label><input id="x">'; } });
customElements.define('my-fb', class extends HTMLElement { constructor() { super(); this.attachShadow({mode: 'open'}).innerHTML = '<span id="l">By <slot>fallback text</slot></span><button aria-labelledby="l">x</button>'; } });
customElements.define('my-btn', class extends HTMLElement { constructor() { super(); this.attachShadow({mode: 'open'}).innerHTML = '<button>Say <slot></slot>!</button>'; } });
</script>
</body></html>
"##;

#[test]
fn names_agree_with_chromium_on_the_cases_pages_hide() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("names.html");
    std::fs::write(&page, CASES).unwrap();
    let stem = dir.path().join("names");
    let output = pagesnap(&[
        "record",
        page.to_str().unwrap(),
        "--out",
        stem.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let recording = dir.path().join("names.json.gz");
    let output = pagesnap(&[
        "validate",
        recording.to_str().unwrap(),
        "--min-role",
        "100",
        "--min-name",
        "100",
    ]);
    assert!(
        output.status.success(),
        "{}{}",
        stdout(&output),
        stderr(&output)
    );
    assert!(stdout(&output).contains("name agreement: 100.00%"));
    // What a model reads says it too.
    let output = pagesnap(&["snapshot", recording.to_str().unwrap(), "--full-page"]);
    let aria = stdout(&output);
    for line in [
        "button \"Rated\"",
        "link \"Logo\"",
        "button \"Rated five\"",
        "button \"Stars ★\"",
        "button \"Shown again\"",
        "button \"Top back\"",
        "button \"Say Light text !\"",
    ] {
        assert!(aria.contains(line), "{line} missing:\n{aria}");
    }
}
