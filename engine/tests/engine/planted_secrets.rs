//! The planted-secrets corpus (`fixtures/sites/planted_secrets`, issue 14): one credential of each common format, in no strategy's text or meta, nor in a recording redacted for `record --redact`.
#![allow(
    clippy::unwrap_used,
    reason = "test helpers outside #[test] functions unwrap known-good fixtures"
)]

use pagesnap_engine::page::Page;
use pagesnap_engine::passes::redact_recording::redact_recording;
use pagesnap_engine::recording::Recording;
use pagesnap_engine::strategy::som::{REDACTION_GREY, mask_screenshot};
use pagesnap_engine::strategy::{Options, STRATEGIES};

use crate::common::{fixtures_dir, observe};

const SITE: &str = include_str!("../../../fixtures/sites/planted_secrets/index.html");
const SECRETS: &str = include_str!("../../../fixtures/sites/planted_secrets/secrets.txt");

/// What is not secret and must still be shown: a redaction that blanks
/// everything fails here.
const KEPT: &[&str] = &[
    "Deploy settings",
    "AWS secret access key",
    "Open my profile",
    "db.internal.example.com",
    "Card on file",
    "Refunds go to IBAN",
    "Rotate every key above after the audit",
];

/// Each planted secret, and for the long ones a 12-character piece from
/// their middle too: a secret cut short (a truncated name) still leaks.
fn needles() -> Vec<&'static str> {
    let mut out = Vec::new();
    for secret in SECRETS.lines().filter(|l| !l.is_empty()) {
        out.push(secret);
        if secret.len() >= 24 {
            let mid = secret.len() / 2;
            out.push(&secret[mid - 6..mid + 6]);
        }
    }
    assert!(out.len() > 30, "secrets.txt lists every format");
    out
}

fn assert_clean(what: &str, text: &str) {
    for needle in needles() {
        assert!(!text.contains(needle), "{what} leaks {needle:?}:\n{text}");
    }
}

fn recording() -> (Recording, Vec<u8>) {
    let path = fixtures_dir().join("planted_secrets/initial.json.gz");
    let bytes = std::fs::read(&path).unwrap();
    let recording = Recording::from_gz_bytes(&bytes, &path.display().to_string()).unwrap();
    let png = std::fs::read(fixtures_dir().join("planted_secrets/initial.png")).unwrap();
    (recording, png)
}

#[test]
fn the_fixture_holds_every_planted_secret() {
    // Otherwise the tests below would pass for want of secrets.
    let (recording, _) = recording();
    let json = serde_json::to_string(&recording).unwrap();
    for secret in SECRETS.lines().filter(|l| !l.is_empty()) {
        let flat = secret.replace('\n', " ");
        assert!(
            SITE.contains(secret) && json.contains(&flat),
            "{secret} is not planted"
        );
    }
}

#[test]
fn no_strategy_shows_a_planted_secret() {
    let (recording, png) = recording();
    let pages = [
        ("recording", Page::from_recording(&recording)),
        ("html", Page::from_html(SITE)),
    ];
    for (source, page) in &pages {
        for full_page in [Some(true), None] {
            let options = Options {
                screenshot: Some(&png),
                full_page,
                ..Options::default()
            };
            for strategy in STRATEGIES {
                let name = strategy.name();
                let obs = observe(name, page, &options);
                let what = format!("{name} of the {source} (full page: {full_page:?})");
                assert_clean(&format!("{what}: text"), &obs.text);
                assert_clean(
                    &format!("{what}: meta"),
                    &serde_json::to_string(&obs.meta).unwrap(),
                );
                // `som` and `structural` list the controls, not the text.
                if name == "som" || name == "structural" {
                    for kept in ["Open my profile", "Company", "Rotate keys"] {
                        assert!(
                            obs.text.contains(kept),
                            "{what} lost {kept:?}:\n{}",
                            obs.text
                        );
                    }
                } else if full_page == Some(true) {
                    for kept in KEPT {
                        assert!(
                            obs.text.contains(kept),
                            "{what} lost {kept:?}:\n{}",
                            obs.text
                        );
                    }
                }
                if name != "som" {
                    assert!(
                        obs.meta.counts.redacted >= 1,
                        "{what}: {:?}",
                        obs.meta.counts
                    );
                }
            }
        }
    }
}

#[test]
fn a_redacted_recording_holds_no_planted_secret_and_its_screenshot_is_blanked() {
    let (mut recording, png) = recording();
    let masks = redact_recording(&mut recording);
    let json = serde_json::to_string(&recording).unwrap();
    assert_clean("the redacted recording", &json);
    for kept in KEPT {
        assert!(json.contains(kept), "the redacted recording lost {kept:?}");
    }
    let redacted = recording.capture.redacted.unwrap();
    assert!(redacted >= 20, "{redacted}");
    // Each text node or field that showed a secret: the key code blocks,
    // the session, the database URL, the cards, the IBAN, the Stripe
    // field and the PEM block at least.
    assert!(masks.len() >= 12, "{masks:?}");

    let blanked = mask_screenshot(&png, &recording.viewport, recording.scroll, &masks).unwrap();
    let (width, pixels) = decode(&blanked);
    let (_, original) = decode(&png);
    for mask in &masks {
        let (x0, y0) = (mask.x.ceil() as usize, mask.y.ceil() as usize);
        let (x1, y1) = (
            mask.right().floor() as usize,
            mask.bottom().floor() as usize,
        );
        let mut inked = false;
        for y in y0..y1.min(720) {
            for x in x0..x1.min(width) {
                let at = (y * width + x) * 3;
                assert_eq!(pixels[at..at + 3], REDACTION_GREY, "({x}, {y}) in {mask:?}");
                inked |= original[at..at + 3] != [255, 255, 255] && original[at] < 128;
            }
        }
        // Where a secret was painted, there were dark glyph pixels before.
        assert!(inked, "nothing was painted in {mask:?} to begin with");
    }
    // Far from any secret, the page is as it was (the heading).
    let heading = (30 * width + 100) * 3;
    assert_eq!(pixels[heading..heading + 3], original[heading..heading + 3]);
}

/// Decodes a PNG to 8-bit RGB: (width, pixels).
fn decode(png_bytes: &[u8]) -> (usize, Vec<u8>) {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let (width, height) = (info.width as usize, info.height as usize);
    let channels = info.line_size / width;
    let mut rgb = Vec::with_capacity(width * height * 3);
    for px in buf[..info.line_size * height].chunks_exact(channels) {
        rgb.extend_from_slice(&px[..3]);
    }
    (width, rgb)
}

/// `type=" PassWord "` is a password field to every reader (issue 30): the
/// field's value shows in no strategy — not as its value, not inside a
/// label's name (which embeds the value of a text field), not as an
/// attribute of the HTML baselines.
#[test]
fn a_password_type_with_spaces_and_capitals_is_a_password_to_every_reader() {
    let secret = "s3cr3t-Value-xyz";
    let html = format!(
        r#"<label>Pass <input type=" PassWord " value="{secret}"></label>
           <label for=p2>Again</label><input id=p2 type="password " value="{secret}">
           <button aria-labelledby="l1 p3">Go</button><span id=l1>Use</span>
           <input id=p3 type=" password" value="{secret}">"#
    );
    let page = Page::from_html(&html);
    for full_page in [Some(true), None] {
        let options = Options {
            full_page,
            ..Options::default()
        };
        for strategy in STRATEGIES {
            let name = strategy.name();
            if name == "som" {
                continue; // needs a screenshot; its legend is the flat text
            }
            let obs = observe(name, &page, &options);
            assert!(
                !obs.text.contains(secret),
                "{name} (full page {full_page:?}) shows the password:\n{}",
                obs.text
            );
            let meta = serde_json::to_string(&obs.meta).unwrap();
            assert!(
                !meta.contains(secret),
                "{name} meta shows the password: {meta}"
            );
        }
    }
}

/// Each redaction says what hid it: the planted page's secrets come out of
/// `html` (which shows every attribute and script) under the recogniser
/// or rule of their kind, and the kinds add up to the count; an audit sees
/// every original behind them.
#[test]
fn each_redaction_is_counted_by_its_kind_and_audited() {
    use pagesnap_engine::passes::redact::{Kind, audit};
    let page = Page::from_html(SITE);
    let options = Options {
        full_page: Some(true),
        ..Options::default()
    };
    let (obs, hidden) = audit(|| observe("html", &page, &options));
    let by = obs.meta.counts.redacted_by;
    assert_eq!(by.total(), obs.meta.counts.redacted, "{by:?}");
    for kind in [
        Kind::Field,
        Kind::KeyValue,
        Kind::UrlPassword,
        Kind::VendorKey,
        Kind::Jwt,
        Kind::PrivateKey,
        Kind::Card,
        Kind::Iban,
        Kind::Random,
    ] {
        assert!(by.get(kind) >= 1, "no {kind:?} in {by:?}");
    }
    // Item contexts in meta repeat what the text shows: audited, not counted again.
    assert!(
        hidden.len() >= by.total(),
        "{} < {}",
        hidden.len(),
        by.total()
    );
    for secret in SECRETS
        .lines()
        .filter(|l| !l.is_empty() && !l.contains('\n'))
    {
        let single = !secret.starts_with("-----") && secret.len() < 60;
        if single {
            assert!(
                hidden.iter().any(|h| h.original.contains(secret)),
                "the audit misses {secret}"
            );
        }
    }
    // As meta writes it: kinds by name, none that did not occur.
    let json = serde_json::to_value(obs.meta.counts).unwrap();
    assert_eq!(json["redactedBy"]["card"], 2, "{json}");
    assert!(json["redactedBy"].get("ssn").is_none(), "{json}");
}
