//! Redaction of a whole recording before it is written (`pagesnap record --redact`), with the rules every strategy applies when it renders.
//!
//! Strategies redact what they print; this pass redacts what is stored, with
//! the same predicates ([`redact::secret_fields`], [`redact::redact`],
//! [`redact::joined_secrets`], [`redact::redact_assignments`],
//! [`redact::is_secret_meta_name`]) rather than rules of its own:
//!
//! - the live value and the `value` attribute of a secret field (a password,
//!   a field named or labelled as a token, card number, …) become `[redacted]`;
//! - secret-looking text in text nodes (a secret split across inline
//!   elements included), in every attribute value (URLs with `user:pass@`,
//!   `?access_token=…`), in other fields' values, in the title, the URL and
//!   the accessibility oracle's names is replaced by `[redacted]`;
//! - quoted values assigned to secret keys in `<script>`/`<style>` text, and
//!   the content of a `<meta>` named like a token, become `[redacted]`.
//!
//! It returns the boxes (document coordinates) of what a screenshot would
//! show of them: redacted text nodes and fields, so that the caller can blank
//! those pixels ([`crate::strategy::som::mask_screenshot`]).

use std::borrow::Cow;
use std::sync::Arc;

use super::redact::{self, REDACTED};
use crate::analyze::Analysis;
use crate::geom::Rect;
use crate::page::{Namespace, NodeId, Page};
use crate::recording::{AxNode, AxOracle, NodeKind, Recording};

/// Attributes a page paints inside the element's box: a changed one blanks it.
const PAINTED_ATTRS: &[&str] = &["value", "placeholder", "alt"];

/// Applies the engine's redaction rules to `recording` in place and notes it
/// in `recording.capture.redacted` (the number of secrets replaced, added to
/// any count already there). Returns the boxes, in document coordinates, of
/// the nodes whose painted content was redacted, in document order.
///
/// Deterministic, and linear in the size of the recording: one page build,
/// one analysis, one pass over the nodes.
pub fn redact_recording(recording: &mut Recording) -> Vec<Rect> {
    let page = Page::from_recording(recording);
    let analysis = Analysis::new(&page);
    let secret = redact::secret_fields(&page, &analysis);
    let joined = redact::joined_secrets(&page, &analysis);
    let mut count = 0u64;
    let mut masks = Vec::new();
    for (index, node) in recording.nodes.iter_mut().enumerate() {
        let id = NodeId::from_index(index);
        let mut painted = false;
        if let Some(text) = &node.text {
            let parent = page
                .parent(id)
                .and_then(|p| page.element(p).map(|e| (p, e)));
            let raw = parent.is_some_and(|(_, e)| {
                e.ns == Namespace::Html && redact::RAW_TEXT.contains(&e.name.as_str())
            });
            // The default value of a secret `<textarea>`.
            let in_secret_field = parent.is_some_and(|(p, _)| secret[p.index()]);
            let shown = if in_secret_field && !text.trim().is_empty() && &text[..] != REDACTED {
                count += 1;
                // The field paints it (its text node has no box of its own).
                if let Some((p, _)) = parent {
                    masks.extend(page.layout(p).bounds);
                }
                Some(REDACTED.to_owned())
            } else {
                let (base, across) = match joined.get(&id) {
                    Some((text, starts)) => (Cow::Owned(text.clone()), starts.len()),
                    None => (Cow::Borrowed(&text[..]), 0),
                };
                let (assigned, in_code) = if raw {
                    redact::redact_assignments(&base)
                } else {
                    (Cow::Borrowed(&*base), 0)
                };
                let (out, found) = redact::redact(&assigned);
                let n = across + in_code + found;
                count += n as u64;
                (n > 0 || matches!(base, Cow::Owned(_))).then(|| out.into_owned())
            };
            if let Some(shown) = shown {
                node.text = Some(Arc::from(shown));
                painted = true;
            }
        }
        // `[redacted]` itself is left as it is: redacting twice counts once.
        if let Some(value) = node
            .value
            .as_deref()
            .filter(|v| !v.is_empty() && *v != REDACTED)
        {
            let shown = if secret[index] {
                Some((REDACTED.to_owned(), 1))
            } else {
                match redact::redact(value) {
                    (Cow::Owned(out), n) => Some((out, n)),
                    (Cow::Borrowed(_), _) => None,
                }
            };
            if let Some((shown, n)) = shown {
                count += n as u64;
                node.value = Some(shown);
                painted = true;
            }
        }
        if node.kind == NodeKind::Element && !node.attrs.is_empty() {
            let secret_meta = node.tag == "meta"
                && redact::is_secret_meta(|key| {
                    node.attrs
                        .iter()
                        .find(|(k, _)| k.eq_ignore_ascii_case(key))
                        .map(|(_, v)| v.as_str())
                });
            let mut changed: Option<Vec<(String, String)>> = None;
            for (k, (name, value)) in node.attrs.iter().enumerate() {
                if value.is_empty() || value == REDACTED {
                    continue;
                }
                let whole = (secret[index] && name.eq_ignore_ascii_case("value"))
                    || (secret_meta && name.eq_ignore_ascii_case("content"));
                let shown = if whole {
                    count += 1;
                    Some(REDACTED.to_owned())
                } else {
                    match redact::redact(value) {
                        (Cow::Owned(out), n) => {
                            count += n as u64;
                            Some(out)
                        }
                        (Cow::Borrowed(_), _) => None,
                    }
                };
                if let Some(shown) = shown {
                    painted |= PAINTED_ATTRS.iter().any(|a| name.eq_ignore_ascii_case(a));
                    changed.get_or_insert_with(|| node.attrs.to_vec())[k].1 = shown;
                }
            }
            if let Some(attrs) = changed {
                node.attrs = Arc::from(attrs);
            }
        }
        if painted {
            masks.extend(node.bounds);
        }
    }
    for field in [&mut recording.title, &mut recording.url] {
        if let (Cow::Owned(out), n) = redact::redact(field) {
            count += n as u64;
            *field = out;
        }
    }
    count += redact_oracle(&mut recording.ax);
    let before = recording.capture.redacted.unwrap_or(0);
    recording.capture.redacted = Some(before + count);
    masks
}

/// Redacts the names of the accessibility oracle. Nodes without a backend
/// id are dropped: `validate` cannot match them to the page, and their
/// names are pieces of other nodes' (`InlineTextBox`: one line of a wrapped
/// text), where a secret cut at a line end no longer looks like one. An
/// oracle that does not parse is dropped whole (it is only a validation
/// aid, and what it holds cannot be checked). Returns how many secrets were
/// replaced.
fn redact_oracle(ax: &mut AxOracle) -> u64 {
    let Ok(nodes) = ax.nodes("") else {
        *ax = AxOracle::default();
        return 0;
    };
    let mut count = 0u64;
    let nodes: Vec<AxNode> = nodes
        .iter()
        .filter(|node| node.backend_id.is_some())
        .map(|node| {
            let (name, n) = redact::redact(&node.name);
            count += n as u64;
            AxNode {
                name: name.into_owned(),
                ..node.clone()
            }
        })
        .collect();
    *ax = AxOracle::from_nodes(nodes);
    count
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests fail loudly")]

    use super::*;
    use crate::testing::RecordingBuilder;

    const KEY: &str = "sk-proj-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c";

    #[test]
    fn secrets_are_replaced_and_their_boxes_returned_and_the_rest_kept() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let p = b
            .element(body, "p", &[])
            .bounds(10.0, 10.0, 400.0, 20.0)
            .id();
        b.text(p, &format!("Your key is {KEY} today"))
            .bounds(10.0, 10.0, 400.0, 20.0);
        let q = b
            .element(body, "p", &[])
            .bounds(10.0, 40.0, 400.0, 20.0)
            .id();
        b.text(q, "Nothing to hide").bounds(10.0, 40.0, 400.0, 20.0);
        b.element(
            body,
            "input",
            &[("type", "password"), ("value", "hunter2-Secret!")],
        )
        .bounds(10.0, 70.0, 200.0, 24.0)
        .value("hunter2-Secret!");
        b.element(
            body,
            "a",
            &[("href", "https://admin:hunter2pass@db.example.com/x")],
        )
        .bounds(10.0, 100.0, 200.0, 20.0);
        let mut recording = b.build();
        recording.title = format!("Key {KEY}");
        recording.url = "https://example.test/cb?access_token=a1b2c3d4e5f6a7b8c9d0".to_owned();
        recording.ax = vec![AxNode {
            backend_id: Some(5),
            role: "StaticText".to_owned(),
            name: format!("key {KEY}"),
            ignored: false,
        }]
        .into();

        let masks = redact_recording(&mut recording);
        let json = serde_json::to_string(&recording).unwrap();
        for secret in [
            "4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c",
            "hunter2-Secret!",
            "hunter2pass",
            "a1b2c3d4e5f6a7b8c9d0",
        ] {
            assert!(!json.contains(secret), "{secret} in {json}");
        }
        assert!(json.contains("Your key is [redacted] today"), "{json}");
        assert!(json.contains("Nothing to hide"), "{json}");
        assert!(json.contains("db.example.com"), "{json}");
        // Text, input value, value attribute, href, title, URL, oracle name.
        assert_eq!(recording.capture.redacted, Some(7));
        // The text box and the field; not the clean paragraph, not the link.
        assert_eq!(
            masks,
            [
                Rect {
                    x: 10.0,
                    y: 10.0,
                    width: 400.0,
                    height: 20.0
                },
                Rect {
                    x: 10.0,
                    y: 70.0,
                    width: 200.0,
                    height: 24.0
                }
            ]
        );
        // Once redacted, nothing more is found.
        let again = redact_recording(&mut recording);
        assert_eq!(recording.capture.redacted, Some(7));
        assert!(again.is_empty(), "{again:?}");
    }

    #[test]
    fn meta_tokens_script_assignments_and_secret_textareas_are_redacted() {
        let mut b = RecordingBuilder::new();
        let html = b.html();
        b.element(
            html,
            "meta",
            &[("name", "csrf-token"), ("content", "q7Hk2pLm9xZ")],
        );
        b.element(
            html,
            "meta",
            &[("name", "description"), ("content", "A shop")],
        );
        let script = b.element(html, "script", &[]).id();
        b.text(
            script,
            "var config = { dbPassword: \"hunter2!\", user: \"bob\" };",
        );
        let body = b.body();
        let area = b
            .element(body, "textarea", &[("name", "api_key")])
            .bounds(0.0, 0.0, 100.0, 40.0)
            .id();
        b.text(area, "AbCdEf12");
        let mut recording = b.build();
        let masks = redact_recording(&mut recording);
        let json = serde_json::to_string(&recording).unwrap();
        for secret in ["q7Hk2pLm9xZ", "hunter2!", "AbCdEf12"] {
            assert!(!json.contains(secret), "{secret} in {json}");
        }
        for kept in [
            "A shop",
            "user: \\\"bob\\\"",
            "dbPassword: \\\"[redacted]\\\"",
        ] {
            assert!(json.contains(kept), "{kept} not in {json}");
        }
        assert_eq!(recording.capture.redacted, Some(3));
        assert_eq!(masks.len(), 1, "the textarea's text: {masks:?}");
    }

    #[test]
    fn a_page_without_secrets_is_noted_as_redacted_with_zero() {
        let mut b = RecordingBuilder::new();
        let body = b.body();
        let p = b.element(body, "p", &[]).id();
        b.text(p, "Hello");
        let mut recording = b.build();
        let before = recording.clone();
        assert!(redact_recording(&mut recording).is_empty());
        assert_eq!(recording.capture.redacted, Some(0));
        recording.capture = before.capture.clone();
        assert_eq!(recording, before);
    }
}
