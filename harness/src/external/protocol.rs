//! The lines of `pagesnap.external/1`: what pagesnap sends an external strategy's program and how its answers are read and checked.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The protocol's name and version, sent in every hello.
pub const PROTOCOL: &str = "pagesnap.external/1";

/// The first line pagesnap sends a program it started: the browser to attach to.
#[derive(Clone, Debug, Serialize)]
pub struct Hello<'a> {
    /// Always `hello`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// [`PROTOCOL`].
    pub protocol: &'static str,
    /// The browser's CDP websocket URL.
    pub ws: &'a str,
}

/// One observation asked for: the live page's coordinates.
#[derive(Clone, Debug, Serialize)]
pub struct Observe<'a> {
    /// Always `observe`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The browser's CDP websocket URL.
    pub ws: &'a str,
    /// The tab's CDP target id.
    pub target: &'a str,
    /// The URL the tab was opened with.
    pub url: &'a str,
    /// The step of the episode, from 1 (0: the final state; bench and snapshot: 1).
    pub step: usize,
    /// The viewport in CSS pixels.
    pub viewport: Viewport,
}

/// A viewport size.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Viewport {
    /// Width in CSS pixels.
    pub width: u32,
    /// Height in CSS pixels.
    pub height: u32,
}

/// The answer to a hello.
#[derive(Clone, Debug, Deserialize)]
pub struct Ready {
    /// Must be `true`.
    #[serde(default)]
    pub ready: bool,
    /// What the program is (a version and the call it makes).
    #[serde(default)]
    pub about: Option<String>,
    /// Why it cannot start.
    #[serde(default)]
    pub error: Option<String>,
}

/// How a ref names its node: by backend node id, or by a CSS selector that
/// pagesnap matches on its own capture of the same page (the first element
/// in document order, as `querySelector` would).
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RefTarget {
    /// CDP `DOM.BackendNodeId`.
    #[serde(default, rename = "backendNodeId")]
    pub backend_node_id: Option<u64>,
    /// With `backendNodeId`: the CDP frame id of the frame from another site
    /// (rendered out of process) whose process numbered the node; absent for
    /// the tab's own process.
    #[serde(default)]
    pub frame: Option<String>,
    /// A CSS selector.
    #[serde(default)]
    pub selector: Option<String>,
}

/// The answer to one observation.
#[derive(Clone, Debug, Deserialize)]
pub struct Answer {
    /// What the model reads.
    pub text: Option<String>,
    /// Refs as they appear in `text`, each naming its node.
    #[serde(default)]
    pub refs: BTreeMap<String, RefTarget>,
    /// A base64 PNG the model sees too.
    #[serde(default)]
    pub image: Option<String>,
    /// `aria`: the text is Playwright-style ARIA YAML without refs; pagesnap
    /// gives each `- role "name"` line it can match to one node a ref.
    #[serde(default)]
    pub assign_refs: Option<String>,
    /// The observation's own time as the program measured it, without
    /// resolving refs (ms).
    #[serde(default)]
    pub observe_ms: Option<f64>,
    /// The program could not observe: why.
    #[serde(default)]
    pub error: Option<String>,
}

/// A checked answer.
#[derive(Clone, Debug)]
pub struct Checked {
    /// What the model reads.
    pub text: String,
    /// Refs and their targets, each with exactly one of its two fields.
    pub refs: BTreeMap<String, Target>,
    /// PNG bytes.
    pub image: Option<Vec<u8>>,
    /// pagesnap assigns refs from the ARIA YAML (`"assign_refs": "aria"`).
    pub assign_aria_refs: bool,
    /// The program's own time for the observation, ms.
    pub observe_ms: Option<f64>,
}

/// A ref's node, checked.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    /// A backend node id, of the tab's process or of the out-of-process
    /// frame with this CDP frame id.
    Backend {
        /// CDP `DOM.BackendNodeId`.
        id: u64,
        /// The frame's CDP frame id.
        frame: Option<String>,
    },
    /// A CSS selector.
    Selector(String),
}

/// Why an answer line is not a valid answer: each names the field.
#[derive(Debug, thiserror::Error, PartialEq)]
#[non_exhaustive]
pub enum Malformed {
    /// Not JSON, or a field of the wrong type.
    #[error("the answer is not a valid JSON answer ({0}); it began {1:?}")]
    Json(String, String),
    /// The program answered with its own error.
    #[error("the program reported: {0}")]
    Reported(String),
    /// No `text`.
    #[error("the answer has no \"text\" string")]
    NoText,
    /// A ref with neither or both fields, or a frame without a backend node id.
    #[error(
        "refs.{0} must have exactly one of \"backendNodeId\" and \"selector\" (\"frame\" only with \"backendNodeId\")"
    )]
    RefTarget(String),
    /// A ref named by an empty string.
    #[error("refs has an empty ref name")]
    EmptyRef,
    /// `image` is not base64 PNG.
    #[error("\"image\" is not a base64 PNG")]
    Image,
    /// An `assign_refs` mode pagesnap does not know.
    #[error("\"assign_refs\": {0:?} is unknown (known: \"aria\")")]
    AssignRefs(String),
}

/// Reads and checks one answer line.
pub fn check(line: &str) -> Result<Checked, Malformed> {
    let mut deserializer = serde_json::Deserializer::from_str(line);
    let answer: Answer = serde_path_to_error::deserialize(&mut deserializer).map_err(|err| {
        let start: String = line.chars().take(80).collect();
        Malformed::Json(err.to_string(), start)
    })?;
    if let Some(error) = answer.error {
        return Err(Malformed::Reported(error));
    }
    let text = answer.text.ok_or(Malformed::NoText)?;
    let mut refs = BTreeMap::new();
    for (name, target) in answer.refs {
        if name.is_empty() {
            return Err(Malformed::EmptyRef);
        }
        let target = match (target.backend_node_id, target.selector, target.frame) {
            (Some(id), None, frame) => Target::Backend { id, frame },
            (None, Some(selector), None) => Target::Selector(selector),
            _ => return Err(Malformed::RefTarget(name)),
        };
        refs.insert(name, target);
    }
    let image = match answer.image {
        Some(data) => {
            use base64::Engine as _;
            let png = base64::engine::general_purpose::STANDARD
                .decode(data.trim())
                .map_err(|_| Malformed::Image)?;
            png_size(&png).ok_or(Malformed::Image)?;
            Some(png)
        }
        None => None,
    };
    let assign_aria_refs = match answer.assign_refs.as_deref() {
        None => false,
        Some("aria") => true,
        Some(other) => return Err(Malformed::AssignRefs(other.to_owned())),
    };
    Ok(Checked {
        text,
        refs,
        image,
        assign_aria_refs,
        observe_ms: answer.observe_ms.filter(|ms| ms.is_finite() && *ms >= 0.0),
    })
}

/// Width and height of a PNG, from its IHDR chunk (PNG 1.2 §11.2.2).
pub fn png_size(png: &[u8]) -> Option<(u32, u32)> {
    const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
    if png.len() < 24 || &png[..8] != SIGNATURE || &png[12..16] != b"IHDR" {
        return None;
    }
    let width = u32::from_be_bytes(png[16..20].try_into().ok()?);
    let height = u32::from_be_bytes(png[20..24].try_into().ok()?);
    Some((width, height))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_checked_field_by_field() {
        let ok = check(r##"{"text":"- button \"Go\" [ref=e1]","refs":{"e1":{"backendNodeId":7},"e2":{"selector":"#go"}},"observe_ms":4.5}"##)
            .map(|c| (c.refs, c.observe_ms));
        let mut want = BTreeMap::new();
        want.insert("e1".to_owned(), Target::Backend { id: 7, frame: None });
        want.insert("e2".to_owned(), Target::Selector("#go".to_owned()));
        assert_eq!(ok, Ok((want, Some(4.5))));
        assert_eq!(
            check(r#"{"text":"x","refs":{"e1":{}}}"#).err(),
            Some(Malformed::RefTarget("e1".into()))
        );
        assert_eq!(
            check(r#"{"text":"x","refs":{"e1":{"backendNodeId":1,"selector":"a"}}}"#).err(),
            Some(Malformed::RefTarget("e1".into()))
        );
        // A node of a frame from another site names its frame.
        let framed = check(r#"{"text":"x","refs":{"f1e2":{"backendNodeId":9,"frame":"F00"}}}"#)
            .map(|c| c.refs);
        assert_eq!(
            framed.ok().and_then(|r| r.get("f1e2").cloned()),
            Some(Target::Backend {
                id: 9,
                frame: Some("F00".to_owned())
            })
        );
        assert_eq!(
            check(r#"{"text":"x","refs":{"e1":{"selector":"a","frame":"F00"}}}"#).err(),
            Some(Malformed::RefTarget("e1".into()))
        );
        assert_eq!(check(r#"{"refs":{}}"#).err(), Some(Malformed::NoText));
        assert_eq!(
            check(r#"{"error":"tab gone"}"#).err(),
            Some(Malformed::Reported("tab gone".into()))
        );
        assert_eq!(
            check(r#"{"text":"x","assign_refs":"css"}"#).err(),
            Some(Malformed::AssignRefs("css".into()))
        );
        assert_eq!(
            check(r#"{"text":"x","image":"bm90IGEgcG5n"}"#).err(),
            Some(Malformed::Image)
        );
        let garbage = check("hello world").err().map(|e| e.to_string());
        assert!(
            garbage
                .as_deref()
                .is_some_and(|m| m.contains("\"hello world\"")),
            "{garbage:?}"
        );
        let typed = check(r#"{"text":"x","refs":{"e1":{"backendNodeId":"7"}}}"#)
            .err()
            .map(|e| e.to_string());
        assert!(
            typed
                .as_deref()
                .is_some_and(|m| m.contains("refs.e1.backendNodeId")),
            "{typed:?}"
        );
    }
}
