//! `pagesnap record` against real headless Chromium: tree shape, element counts, scripted steps, errors.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{load, root};
use pagesnap_engine::page::{Node, Page};
use pagesnap_engine::recording::Recording;

fn pagesnap() -> Command {
    Command::new(crate::support::exe())
}

fn record(target: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    pagesnap()
        .arg("record")
        .arg(target)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

/// (depth, kind, tag) for every node, skipping whitespace-only text: the
/// shape two builders must agree on.
fn shape(page: &Page) -> Vec<String> {
    let mut out = Vec::new();
    for id in page.ids() {
        let depth = page.ancestors(id).count();
        let label = match page.node(id) {
            Node::Document { .. } => "#document".to_owned(),
            Node::ShadowRoot(mode) => format!("#shadow-root({mode:?})"),
            Node::Element(element) => element.name.clone(),
            Node::Text(text) if text.trim().is_empty() => continue,
            Node::Text(text) => format!("#text {}", text.trim()),
        };
        out.push(format!("{}{label}", "  ".repeat(depth)));
    }
    out
}

const STATIC_PAGE: &str = r##"<!doctype html>
<html lang="en"><head><title>Shape</title><meta charset="utf-8"></head>
<body>
  <header><nav><a href="#a">A</a> <a href="#b">B</a></nav></header>
  <main>
    <h1>Title <small>sub</small></h1>
    <p>Some <b>bold</b> and <i>italic</i> text.</p>
    <table><tr><td>1</td><td>2</td></tr><tr><td>3</td><td>4</td></tr></table>
    <form><label>Name <input name="n" value="x"></label><select><option>a<option selected>b</select><textarea>t</textarea><button>Go</button></form>
    <svg viewBox="0 0 10 10" width="10" height="10"><circle cx="5" cy="5" r="4"></circle></svg>
    <ul><li>one<li>two</ul>
    <x-widget><template shadowrootmode="open"><button>inside</button></template></x-widget>
  </main>
</body></html>"##;

#[test]
fn from_html_and_from_recording_agree_on_tree_shape() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("shape.html");
    std::fs::write(&html, STATIC_PAGE).unwrap();
    let out = dir.path().join("rec/shape");
    let output = record(&html, &out, &[]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let recording = load(&out.with_extension("json.gz"));
    assert!(out.with_extension("png").exists());
    let recorded = Page::from_recording(&recording);
    let parsed = Page::from_html(STATIC_PAGE);
    assert_eq!(shape(&recorded), shape(&parsed));
    assert_eq!(recording.title, "Shape");
    // Live form state is captured.
    let select = recorded
        .elements()
        .find(|e| e.name() == "option" && e.layout().selected == Some(true))
        .unwrap();
    assert_eq!(recorded.text_content(select.id()), "b");
    let input = recorded.elements().find(|e| e.name() == "input").unwrap();
    assert_eq!(input.layout().value.as_deref(), Some("x"));
    assert!(input.layout().bounds.is_some() && input.layout().paint_order.is_some());
}

#[test]
fn then_sequence_records_each_state() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("todo.html");
    std::fs::write(
        &html,
        r#"<input id=t><button id=add onclick="const li=document.createElement('li');li.textContent=document.getElementById('t').value;document.getElementById('l').append(li)">Add</button><ul id=l></ul>
           <div style="height:3000px"></div>"#,
    )
    .unwrap();
    let out = dir.path().join("todo");
    let output = record(
        &html,
        &out,
        &["--then", "type #t milk; click #add; scroll 500"],
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let initial = load(&dir.path().join("todo.json.gz"));
    let typed = load(&dir.path().join("todo.step1.json.gz"));
    let added = load(&dir.path().join("todo.step2.json.gz"));
    let scrolled = load(&dir.path().join("todo.step3.json.gz"));
    let items = |r: &Recording| r.nodes.iter().filter(|n| n.tag == "li").count();
    assert_eq!((items(&initial), items(&added)), (0, 1));
    let value = |r: &Recording| {
        r.nodes
            .iter()
            .find(|n| n.tag == "input")
            .and_then(|n| n.value.clone())
    };
    assert_eq!(value(&initial).as_deref(), Some(""));
    assert_eq!(value(&typed).as_deref(), Some("milk"));
    assert_eq!((initial.scroll.y, scrolled.scroll.y), (0.0, 500.0));
    // The same element keeps its backend id across states (stable refs rely on it).
    let button = |r: &Recording| {
        r.nodes
            .iter()
            .find(|n| n.tag == "button")
            .map(|n| n.backend_id)
    };
    assert_eq!(button(&initial), button(&scrolled));
    // The focused element is recorded after typing.
    let focused = typed.focused.map(|f| typed.nodes[f as usize].tag.clone());
    assert_eq!(focused.as_deref(), Some("input"));
}

/// No agent acts in `record`: a dialog is accepted as a user clicking OK
/// would, and the recording lists it in its notes — one during load, one
/// a `--then` click opened (a prompt gets its default text).
#[test]
fn dialogs_are_accepted_and_listed_in_the_notes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("editor");
    let page = root().join("fixtures/sites/dialogs/onload.html");
    let output = record(&page, &out, &[]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let loaded = load(&out.with_extension("json.gz"));
    let listed: Vec<_> = loaded
        .capture
        .dialogs
        .iter()
        .map(|d| (d.dialog.kind.name(), d.dialog.message.as_str(), d.accepted))
        .collect();
    assert_eq!(
        listed,
        [("alert", "Welcome back! Your session was restored.", true)]
    );
    let status = |r: &Recording| {
        let page = Page::from_recording(r);
        let status = page
            .elements()
            .find(|e| e.attr("id") == Some("status"))
            .unwrap();
        page.text_content(status.id())
    };
    assert_eq!(status(&loaded), "loaded");

    let out = dir.path().join("rename");
    let page = root().join("fixtures/sites/dialogs/editor.html");
    let output = record(&page, &out, &["--then", "click #rename"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let initial = load(&out.with_extension("json.gz"));
    assert!(initial.capture.dialogs.is_empty());
    let renamed = load(&dir.path().join("rename.step1.json.gz"));
    assert_eq!(renamed.capture.dialogs.len(), 1);
    let prompt = &renamed.capture.dialogs[0];
    assert_eq!(prompt.dialog.default_prompt.as_deref(), Some("Untitled"));
    assert!(prompt.accepted);
    assert_eq!(status(&renamed), "renamed: \"Untitled\"");
}

#[test]
fn bad_targets_fail_with_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let output = record(
        Path::new("/nonexistent/page.html"),
        &dir.path().join("x"),
        &[],
    );
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("/nonexistent/page.html") && stderr.contains("no such file"),
        "{stderr}"
    );

    let output = pagesnap()
        .args(["record", "http://127.0.0.1:9/", "--out"])
        .arg(dir.path().join("y"))
        .args(["--timeout", "20"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("http://127.0.0.1:9/"), "{stderr}");

    // A public host cannot resolve offline: the error says how to allow it.
    let output = pagesnap()
        .args(["record", "https://example.com/", "--out"])
        .arg(dir.path().join("net"))
        .args(["--timeout", "20"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("ERR_NAME_NOT_RESOLVED")
            && stderr.contains("the network is off")
            && stderr.contains("--network lets pages reach the network"),
        "{stderr}"
    );

    let html = dir.path().join("p.html");
    std::fs::write(&html, "<p>hi</p>").unwrap();
    // The limit covers the load too: 8 s, so that a loaded machine still
    // loads the one-line page within it and the wait is what runs out (with
    // 1 s, a run of three tests at once on two cores timed out in the load).
    let output = record(
        &html,
        &dir.path().join("z"),
        &["--wait-for", "#never", "--timeout", "8"],
    );
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("#never") && stderr.contains("8.0 s"),
        "{stderr}"
    );

    let output = record(&html, &dir.path().join("z"), &["--then", "hover #x"]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown action"));

    let output = record(&html, &dir.path().join("z"), &["--viewport", "12x"]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("12x"));
}

/// The committed fixtures meet the agreement floors, and `validate` fails
/// with status 1 when a floor is not met.
#[test]
fn fixtures_validate_above_the_floors() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let output = pagesnap()
        .arg("validate")
        .arg(&fixtures)
        .args(["--min-role", "97", "--min-name", "95", "--json"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(report["compared"].as_u64().unwrap() > 50_000, "{report}");
    assert!(report["role_pct"].as_f64().unwrap() >= 97.0);
    assert!(report["name_pct"].as_f64().unwrap() >= 95.0);
    assert!(report["mismatches"].as_array().unwrap().len() <= 20);

    let output = pagesnap()
        .arg("validate")
        .arg(fixtures.join("bank_form"))
        .args(["--min-role", "100.1"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("below threshold"));
}

#[test]
fn inspect_summarises_a_recording() {
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/checkout_modal/initial.json.gz");
    let output = pagesnap().arg("inspect").arg(&fixture).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    for needle in [
        "url:",
        "viewport:",
        "1280x720",
        "element",
        "interactive candidates",
        "modal layer: Reliable",
        "AX oracle",
    ] {
        assert!(stdout.contains(needle), "{needle} missing in\n{stdout}");
    }
}

/// Decoding leaves the AX oracle unparsed, so a malformed one no longer
/// fails every reader: `snapshot` renders the page, while `validate` and
/// `inspect`, which read the oracle, fail naming the file and the field.
#[test]
fn a_malformed_oracle_fails_only_the_commands_that_read_it() {
    use std::io::{Read, Write};

    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/login/initial.json.gz");
    let mut json = Vec::new();
    flate2::read::GzDecoder::new(&std::fs::read(&fixture).unwrap()[..])
        .read_to_end(&mut json)
        .unwrap();
    let mut value: serde_json::Value = serde_json::from_slice(&json).unwrap();
    value["ax"][3]["role"] = 7.into();
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken.json.gz");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&serde_json::to_vec(&value).unwrap()).unwrap();
    std::fs::write(&broken, gz.finish().unwrap()).unwrap();

    let output = pagesnap()
        .args(["snapshot", "--strategy", "aria"])
        .arg(&broken)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for command in ["validate", "inspect"] {
        let output = pagesnap().arg(command).arg(&broken).output().unwrap();
        assert!(
            !output.status.success(),
            "{command} accepted a broken oracle"
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(&format!(
                "{}: field `ax[3].role`: invalid type: integer `7`, expected a string",
                broken.display()
            )),
            "{command}: {stderr}"
        );
    }
}

pub(crate) fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.to_string_lossy().ends_with(".json.gz") {
            out.push(path);
        }
    }
}

/// Issue 17: a folder holding a link to itself (`s1 -> .`) made every folder
/// walker recurse until the kernel refused (one recording counted 41 times;
/// two such links never ended). Each real folder and file is visited once.
#[test]
fn a_symlink_loop_visits_each_real_file_once() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/login/initial.json.gz");
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(&fixture, dir.path().join("a.json.gz")).unwrap();
    std::fs::write(dir.path().join("page.html"), "<button>Go</button>").unwrap();
    std::os::unix::fs::symlink(".", dir.path().join("s1")).unwrap();

    let output = pagesnap()
        .arg("validate")
        .arg(dir.path())
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["recordings"], 1, "{report}");

    let output = pagesnap().arg("inspect").arg(dir.path()).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert_eq!(stdout.matches("url:").count(), 1, "{stdout}");

    let out = tempfile::tempdir().unwrap();
    let output = pagesnap()
        .args(["record", "--each"])
        .arg(dir.path())
        .arg("--out")
        .arg(out.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let mut recorded = Vec::new();
    collect(out.path(), &mut recorded);
    assert_eq!(recorded, [out.path().join("page.json.gz")], "{stderr}");
}

/// Issue 17: `e.html` and `e.htm` in one `--each` folder were both recorded
/// to `e.json.gz`, the second over the first. The collision is refused
/// before anything is recorded, naming both inputs and the output.
#[test]
fn each_refuses_two_pages_with_one_output_name() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("e.html"), "<button>One</button>").unwrap();
    std::fs::write(dir.path().join("e.htm"), "<button>Two</button>").unwrap();
    std::fs::write(dir.path().join("f.html"), "<button>Three</button>").unwrap();
    let out = tempfile::tempdir().unwrap();
    let output = pagesnap()
        .args(["record", "--each"])
        .arg(dir.path())
        .arg("--out")
        .arg(out.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    let html = dir.path().join("e.html");
    let htm = dir.path().join("e.htm");
    let json = out.path().join("e.json.gz");
    assert!(
        stderr.contains(&format!(
            "{} and {} would both be recorded to {}",
            htm.display(),
            html.display(),
            json.display()
        )),
        "{stderr}"
    );
    let mut recorded = Vec::new();
    collect(out.path(), &mut recorded);
    assert!(recorded.is_empty(), "nothing recorded: {recorded:?}");
}

/// Issue 17: `validate --min-role 99` passed an empty folder, or a recording
/// of a bare document, as `100.00% (0/0)`. Nothing compared fails any floor,
/// saying so and where.
#[test]
fn validate_with_nothing_compared_fails_any_floor() {
    use std::io::{Read, Write};

    let empty = tempfile::tempdir().unwrap();
    let bare_dir = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/login/initial.json.gz");
    let mut json = Vec::new();
    flate2::read::GzDecoder::new(&std::fs::read(&fixture).unwrap()[..])
        .read_to_end(&mut json)
        .unwrap();
    let mut value: serde_json::Value = serde_json::from_slice(&json).unwrap();
    value["nodes"].as_array_mut().unwrap().truncate(1);
    value["focused"] = serde_json::Value::Null;
    let bare = bare_dir.path().join("bare.json.gz");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&serde_json::to_vec(&value).unwrap()).unwrap();
    std::fs::write(&bare, gz.finish().unwrap()).unwrap();

    for (input, recordings) in [(empty.path(), 0), (bare.as_path(), 1)] {
        let output = pagesnap()
            .arg("validate")
            .arg(input)
            .args(["--min-role", "99"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.code(),
            Some(1),
            "{}: {stderr}",
            input.display()
        );
        assert!(
            stderr.contains(&format!(
                "nothing was compared in {} ({recordings} recordings",
                input.display()
            )),
            "{stderr}"
        );
        // Without a floor there is nothing to fail.
        let output = pagesnap().arg("validate").arg(input).output().unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

/// Issue 17: a gzip bomb (17 MB inflating to 4 GB) took `inspect` to 3.9 GB
/// of memory. A recording may inflate to 512 MiB; inflating stops there
/// with an error naming the file and the limit.
#[test]
fn a_gzip_bomb_is_refused_at_the_decoded_size_limit() {
    use std::io::Write;

    let dir = tempfile::tempdir().unwrap();
    let bomb = dir.path().join("bomb.json.gz");
    let mut gz = flate2::write::GzEncoder::new(
        std::fs::File::create(&bomb).unwrap(),
        flate2::Compression::fast(),
    );
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..600 {
        gz.write_all(&zeros).unwrap();
    }
    gz.finish().unwrap();
    assert!(std::fs::metadata(&bomb).unwrap().len() < 8 << 20);
    for command in ["inspect", "validate"] {
        let output = pagesnap().arg(command).arg(&bomb).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{command}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "{}: inflates to more than 536870912 bytes, the most a recording may hold",
                bomb.display()
            )),
            "{command}: {stderr}"
        );
    }
}

#[test]
fn generated_content_slots_and_display_contents_are_captured_as_chromium_renders_them() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("names.html");
    std::fs::write(
        &html,
        r#"<!doctype html><html><head><style>
        .req::after { content: " *" } .icon::before { content: "Search" }
        li::marker { content: "> " } .empty::before { content: "" }
        </style></head><body>
        <label class="req" for="email">Email</label><input id="email">
        <button class="icon" title="Find"></button>
        <ol><li>one</li></ol><p class="empty">plain</p>
        <div style="display: contents"><button>Inside contents</button></div>
        <my-btn>Buy now</my-btn>
        <script>customElements.define('my-btn', class extends HTMLElement {
          constructor() { super(); this.attachShadow({mode: 'open'}).innerHTML = '<button><slot></slot></button>'; }
        });</script></body></html>"#,
    )
    .unwrap();
    let out = dir.path().join("names");
    let output = record(&html, &out, &[]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let file = dir.path().join("names.json.gz");
    let recording = load(&file);
    use pagesnap_engine::recording::{NodeKind, Pseudo};
    let generated: Vec<(Pseudo, &str, &str)> = recording
        .nodes
        .iter()
        .filter_map(|n| {
            let parent = &recording.nodes[n.parent? as usize];
            Some((n.pseudo?, n.text.as_deref()?, parent.tag.as_str()))
        })
        .collect();
    assert_eq!(
        generated,
        [
            (Pseudo::After, " *", "label"),
            (Pseudo::Before, "Search", "button")
        ],
        "markers and empty content are not text"
    );
    // ::after is the label's last child, after "Email".
    let label = recording
        .nodes
        .iter()
        .position(|n| n.tag == "label")
        .unwrap();
    let kids: Vec<&str> = recording
        .nodes
        .iter()
        .filter(|n| n.parent == Some(label as u32) && n.kind == NodeKind::Text)
        .filter_map(|n| n.text.as_deref())
        .collect();
    assert_eq!(kids, ["Email", " *"]);

    // Chromium's accessibility tree agrees with every name on the page.
    let output = pagesnap()
        .args(["validate", "--min-name", "100", "--min-role", "100"])
        .arg(&file)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let aria = pagesnap()
        .args(["snapshot", "--strategy", "aria"])
        .arg(&file)
        .output()
        .unwrap();
    let aria = String::from_utf8_lossy(&aria.stdout);
    for line in [
        "textbox \"Email *\"",
        "button \"Search\"",
        "button \"Inside contents\"",
        "button \"Buy now\"",
    ] {
        assert!(aria.contains(line), "{line} missing:\n{aria}");
    }
    assert_eq!(aria.matches("Buy now").count(), 1, "{aria}");
}

/// The planted-secrets corpus (`fixtures/sites/planted_secrets/secrets.txt`),
/// with a 12-character middle piece of each long secret.
fn planted_needles() -> Vec<String> {
    let list =
        std::fs::read_to_string(repo_root().join("fixtures/sites/planted_secrets/secrets.txt"))
            .unwrap();
    let mut out = Vec::new();
    for secret in list.lines().filter(|l| !l.is_empty()) {
        out.push(secret.to_owned());
        if secret.len() >= 24 {
            let mid = secret.len() / 2;
            out.push(secret[mid - 6..mid + 6].to_owned());
        }
    }
    out
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Decodes a PNG to 8-bit RGB: (width, height, pixels).
fn rgb(path: &Path) -> (usize, usize, Vec<u8>) {
    let mut decoder =
        png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let (width, height) = (info.width as usize, info.height as usize);
    let channels = info.line_size / width;
    let mut out = Vec::with_capacity(width * height * 3);
    for row in 0..height {
        let line = &buf[row * info.line_size..row * info.line_size + width * channels];
        for px in line.chunks_exact(channels) {
            out.extend_from_slice(&px[..3]);
        }
    }
    (width, height, out)
}

/// Issue 14: `record --redact` applies the engine's redaction rules before
/// anything is written: no planted secret is in the recording, and the
/// boxes of the redacted text and fields are blanked in the screenshot;
/// the recording says it was redacted. Without the flag the recording is
/// lossless: every secret is there, and so are its pixels.
#[test]
fn record_redact_keeps_planted_secrets_off_disk_and_out_of_the_screenshot() {
    let dir = tempfile::tempdir().unwrap();
    let page = repo_root().join("fixtures/sites/planted_secrets/index.html");
    let redacted_out = dir.path().join("redacted");
    let output = record(&page, &redacted_out, &["--redact"]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    assert!(output.status.success(), "{stderr}");
    let needles = planted_needles();
    let json = {
        let bytes = std::fs::read(redacted_out.with_extension("json.gz")).unwrap();
        let mut text = String::new();
        std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut text)
            .unwrap();
        text
    };
    for needle in &needles {
        for (what, text) in [
            ("the recording", &json[..]),
            ("stdout", &stdout),
            ("stderr", &stderr),
        ] {
            assert!(!text.contains(needle.as_str()), "{what} leaks {needle:?}");
        }
    }
    let recording = load(&redacted_out.with_extension("json.gz"));
    let redacted = recording
        .capture
        .redacted
        .expect("the recording says it was redacted");
    // 16 replacements cover the 21 planted secrets (some are replaced
    // together); the oracle's text nodes, which repeated them (20 and more
    // before), keep no names.
    assert!(redacted >= 16, "{redacted}");
    assert!(
        stderr.contains(&format!("--redact replaced {redacted} secrets")),
        "{stderr}"
    );
    let inspected = pagesnap()
        .arg("inspect")
        .arg(redacted_out.with_extension("json.gz"))
        .output()
        .unwrap();
    let inspected = String::from_utf8_lossy(&inspected.stdout);
    assert!(
        inspected.contains(&format!(
            "capture:    redacted ({redacted} secrets replaced)"
        )),
        "{inspected}"
    );
    for kept in [
        "Deploy settings",
        "Open my profile",
        "db.internal.example.com",
        "Card on file",
    ] {
        assert!(json.contains(kept), "the redacted recording lost {kept:?}");
    }

    // The lossless default, for comparison: the same page, secrets and all.
    let plain_out = dir.path().join("plain");
    let output = record(&page, &plain_out, &[]);
    assert!(output.status.success());
    let plain = load(&plain_out.with_extension("json.gz"));
    assert!(plain.capture.redacted.is_none());
    let plain_json = serde_json::to_string(&plain).unwrap();
    for needle in &needles {
        assert!(
            plain_json.contains(needle.as_str()),
            "lossless: {needle:?} is kept"
        );
    }

    // Every box whose content was redacted is solid grey in the redacted
    // screenshot, and held glyphs (dark pixels) in the plain one.
    let (width, height, blanked) = rgb(&redacted_out.with_extension("png"));
    let (_, _, original) = rgb(&plain_out.with_extension("png"));
    let mut boxes = 0;
    for node in &recording.nodes {
        let shows = node
            .text
            .as_deref()
            .is_some_and(|t| t.contains("[redacted]"))
            || node.value.as_deref() == Some("[redacted]");
        let Some(b) = node.bounds.filter(|b| shows && b.width > 0.0) else {
            continue;
        };
        boxes += 1;
        let mut inked = false;
        for y in b.y.ceil() as usize..(b.bottom().floor() as usize).min(height) {
            for x in b.x.ceil() as usize..(b.right().floor() as usize).min(width) {
                let at = (y * width + x) * 3;
                assert_eq!(blanked[at..at + 3], [128, 128, 128], "({x}, {y}) in {b:?}");
                inked |= original[at] < 100;
            }
        }
        assert!(
            inked,
            "no glyph was painted in {b:?} of the plain screenshot"
        );
    }
    assert!(boxes >= 12, "{boxes} redacted boxes");
    // Away from the secrets the screenshot is the page's: the heading.
    let heading = (25 * width + 100) * 3;
    assert_eq!(
        blanked[heading..heading + 3],
        original[heading..heading + 3]
    );
    assert!(
        blanked[heading] < 100,
        "the heading's glyphs are still there"
    );
}
