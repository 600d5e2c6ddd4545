//! The versioned Recording schema (`pagesnap.recording/1`): everything the engine knows about a page.
//!
//! A Recording is our own format, not CDP's: any capture source (Chromium via CDP
//! today, static HTML, another browser later) can produce it. It is stored as
//! `<name>.json.gz` beside a `<name>.png` viewport screenshot.
//!
//! Nodes are stored in document order; a node's index in [`Recording::nodes`] is
//! its document-order index, and `parent` refers to such an index. Shadow roots
//! come before the light children of their host, and an iframe's content
//! document is the last child of the `<iframe>` element. Chromium's own
//! accessibility tree ([`Recording::ax`]) is kept as an oracle for validation
//! only: the engine never reads it to compute roles or names, and decoding
//! leaves it unparsed until [`AxOracle::nodes`] asks for it.

use std::borrow::Cow;
use std::io::{Read, Write};
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

mod dialog;

pub use self::dialog::{Answered, Dialog, DialogKind};
pub use crate::geom::{Point, Rect, Size, Viewport};

/// The schema identifier written into every recording of this version.
pub const SCHEMA: &str = "pagesnap.recording/1";

/// The most bytes a `.json.gz` recording may inflate to: 512 MiB. The
/// largest committed fixture inflates to 18 MB; a file past this is
/// a gzip bomb (17 MB inflating to 4 GB) or not a recording, and is refused
/// while it is being inflated, before it can take the machine's memory.
pub const MAX_DECODED_BYTES: u64 = 512 << 20;

/// A recorded page: DOM, layout, styles, paint order, form state, viewport.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Recording {
    /// Always [`SCHEMA`]; readers refuse anything else.
    pub schema: String,
    /// The page's URL at capture time.
    pub url: String,
    /// `document.title` at capture time.
    #[serde(default)]
    pub title: String,
    /// Capture time, RFC 3339 in UTC.
    pub captured_at: String,
    /// Browser product string, e.g. `Chrome/156.0.8078.79`.
    pub browser: String,
    /// Layout viewport size and device scale factor.
    pub viewport: Viewport,
    /// Scroll position of the main document (CSS pixels).
    pub scroll: Point,
    /// Size of the main document's scrollable content (CSS pixels).
    pub document_size: Size,
    /// Document-order index of the focused element, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub focused: Option<u32>,
    /// All nodes in document order.
    pub nodes: Vec<RecNode>,
    /// Chromium's accessibility tree, as an oracle for validation only; stored
    /// as an array of [`AxNode`] and parsed on demand by [`AxOracle::nodes`].
    #[serde(default)]
    pub ax: AxOracle,
    /// Element counts the browser reported at capture, for consistency checks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counts: Option<DomCounts>,
    /// What the capture replaced, cut or redacted; absent when it kept the
    /// page as it was, so nothing is ever changed silently.
    #[serde(default, skip_serializing_if = "CaptureNotes::is_empty")]
    pub capture: CaptureNotes,
}

/// What a capture changed in the page it stored.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaptureNotes {
    /// Lone UTF-16 surrogates in the page's strings (text, attributes, title,
    /// URLs), not encodable as UTF-8: each is stored as U+FFFD.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub replaced_surrogates: u64,
    /// Nodes left out past the `--max-nodes` cap (the document-order tail).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cut_nodes: u64,
    /// Bytes (UTF-8) of text, attribute values and form values cut past the `--max-text` cap.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cut_text: u64,
    /// Present when the engine's redaction rules were applied before writing
    /// (`record --redact`): how many secrets were replaced (values, texts,
    /// attribute values, the title, the URL, oracle names), 0 when there were none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redacted: Option<u64>,
    /// Frames from another site (rendered out of process) whose documents
    /// the capture could not take — not loaded within the page's budget, gone
    /// mid-capture, nested too deep — each as `<src>: <why>`. Their
    /// `<iframe>` is kept, without a document.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing_frames: Vec<String>,
    /// JavaScript dialogs the page opened while it was loaded and captured,
    /// each answered by the recorder's dialog policy (no agent was there to
    /// choose), in the order they opened.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dialogs: Vec<Answered>,
}

impl CaptureNotes {
    /// Nothing replaced, cut or redacted.
    pub fn is_empty(&self) -> bool {
        *self == CaptureNotes::default()
    }
}

fn is_zero(value: &u64) -> bool {
    *value == 0
}

/// What kind of node a [`RecNode`] is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    /// The main document (always node 0).
    Document,
    /// The content document of an `<iframe>`/`<frame>`; its parent is that element.
    IframeDocument,
    /// An open shadow root; its parent is the host element.
    ShadowRootOpen,
    /// A closed shadow root (visible to CDP, not to page scripts).
    ShadowRootClosed,
    /// A user-agent shadow root (the internals of `<input>`, `<video>`, …).
    ShadowRootUserAgent,
    /// An element.
    #[default]
    Element,
    /// A text node.
    Text,
}

/// Which CSS pseudo-element generated a text node's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pseudo {
    /// `::before`: the element's first child.
    Before,
    /// `::after`: the element's last child.
    After,
}

/// One DOM node with its layout and form state.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RecNode {
    /// Document-order index of the parent; absent only for the main document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<u32>,
    /// Node kind.
    pub kind: NodeKind,
    /// Lowercase local name for HTML elements; SVG/MathML keep their case.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tag: String,
    /// Namespace of an element when it is not HTML (`svg` or `math`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ns: Option<String>,
    /// Attributes in source order.
    #[serde(default, skip_serializing_if = "<[_]>::is_empty")]
    pub attrs: Arc<[(String, String)]>,
    /// The data of a text node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<Arc<str>>,
    /// Set on a text node that is not in the DOM: the text of a `::before` or
    /// `::after` pseudo-element (CSS `content`), placed where it renders.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pseudo: Option<Pseudo>,
    /// Border box in document coordinates; absent when not rendered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounds: Option<Rect>,
    /// Computed styles of a rendered element (shared with the [`crate::page::Page`]
    /// built from it, which then copies no strings).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub style: Option<Arc<Style>>,
    /// Chromium's paint order (higher paints later, on top).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paint_order: Option<u32>,
    /// Elements holding text: the colour Chromium finds painted behind their
    /// text, every box under it blended (`DOMSnapshot`
    /// `blendedBackgroundColors`, what DevTools' contrast check reads);
    /// `None` for other elements, where an image, a gradient or video lies
    /// behind. Captured from 2026-11-28 to 2026-11-30 only: a recording
    /// without any is blended by the engine from its boxes
    /// (`analyze::backdrop`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backdrop: Option<String>,
    /// Chromium reports a click listener or a natively clickable element (CDP
    /// `isClickable`), or the element has a mousedown, pointerdown or
    /// touchstart listener (read with `DOMDebugger.getEventListeners`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub clickable: bool,
    /// Hovering it reveals content: a stylesheet's `:hover` rule on it changes
    /// the display, visibility, opacity, size or position of a descendant or
    /// sibling, or it has an `onmouseover`/`onmouseenter` handler.
    #[serde(default, skip_serializing_if = "is_false")]
    pub hover: bool,
    /// Focusing it shows it: a stylesheet's `:focus`, `:focus-visible` or
    /// `:active` rule whose subject is this focusable element shows, sizes,
    /// moves or un-clips it (a skip link at `left: -9999px`, or clipped to
    /// 1×1, until a keyboard user tabs to it). Absent in recordings made
    /// before it was captured: such an element reads as hidden.
    #[serde(default, skip_serializing_if = "is_false")]
    pub focus_reveal: bool,
    /// Drops land on it: a `dragover`, `dragenter` or `drop` listener on
    /// the element itself (read with `DOMDebugger.getEventListeners`; the
    /// document's and the body's, which would make everything a target, are
    /// not kept by the engine).
    #[serde(default, skip_serializing_if = "is_false")]
    pub droppable: bool,
    /// Live `value` of inputs, textareas and selects.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// Live `checked` of checkboxes and radios.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checked: Option<bool>,
    /// Live `selected` of options.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selected: Option<bool>,
    /// Scroll offsets and sizes of a scroll container.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scroll: Option<ScrollState>,
    /// A `<dialog>` that matches `:modal` (opened with `showModal()`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub modal: bool,
    /// CDP backend node id: stable for the life of the page, used for stable
    /// refs. Backend ids are numbered per renderer process, so a node of a
    /// frame from another site (rendered out of process) carries its frame's
    /// number in the high 32 bits (`pagesnap_browser::node_key`); the tab's
    /// own nodes, and every node of a page without such frames, have 0 there.
    #[serde(default)]
    pub backend_id: u64,
}

fn is_false(value: &bool) -> bool {
    !*value
}

/// The computed styles the engine reads.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Style {
    /// `display`.
    pub display: String,
    /// `visibility`.
    pub visibility: String,
    /// `opacity` of the element itself (not multiplied by ancestors).
    pub opacity: f64,
    /// `position`.
    pub position: String,
    /// `z-index` (`auto` or an integer, as computed).
    pub z_index: String,
    /// `cursor`.
    pub cursor: String,
    /// `overflow-x`.
    pub overflow_x: String,
    /// `overflow-y`.
    pub overflow_y: String,
    /// `pointer-events`.
    pub pointer_events: String,
    /// `background-color`, as computed (`rgba(0, 0, 0, 0)` when transparent); used by occlusion.
    #[serde(default)]
    pub background_color: String,
    /// The facts below decide whether a person can read the element's text
    /// (`analyze::legibility`). Each is empty (`None`) where the property has its
    /// initial value, and in recordings made before they were captured, whose
    /// text is then taken as readable.
    ///
    /// `color`, as computed (`rgb(31, 41, 51)`): the colour of the text.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub color: String,
    /// `-webkit-text-fill-color` where it differs from `color`: what fills the glyphs.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text_fill: String,
    /// `font-size` in CSS pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub font_size: Option<f64>,
    /// `clip` where not `auto` (`rect(0px, 0px, 0px, 0px)`; absolutely positioned boxes only).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub clip: String,
    /// `clip-path` where not `none` (`inset(100%)`, `circle(0px at 50% 50%)`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub clip_path: String,
    /// `background-image` where not `none`: the background colour then says
    /// nothing certain of what is painted behind the text.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub background_image: String,
    /// `background-clip` where not `border-box` (`text` paints the background through the glyphs).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub background_clip: String,
    /// `text-shadow` where not `none`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text_shadow: String,
    /// `-webkit-text-stroke-width` where not `0px`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text_stroke: String,
    /// `content-visibility` where not `visible` (`auto`: Chromium skips the
    /// layout of the element's content while it is off screen, so that
    /// content has no boxes and no styles, yet a person scrolling reaches it).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub content_visibility: String,
}

/// Scroll offsets and scrollable content size of a scroll container.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ScrollState {
    /// `scrollLeft`.
    pub x: f64,
    /// `scrollTop`.
    pub y: f64,
    /// `scrollWidth`.
    pub width: f64,
    /// `scrollHeight`.
    pub height: f64,
    /// `clientWidth`: the visible width of the content area.
    pub client_width: f64,
    /// `clientHeight`: the visible height of the content area.
    pub client_height: f64,
}

/// One node of Chromium's accessibility tree (`Accessibility.getFullAXTree`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AxNode {
    /// Backend DOM node id this AX node belongs to, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend_id: Option<u64>,
    /// Chromium's role value (`button`, `StaticText`, `generic`, …).
    pub role: String,
    /// Computed accessible name; left empty by the capture for text nodes
    /// (`is_chromium_text_role`), whose name is their text.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// Whether Chromium ignores the node for accessibility.
    #[serde(default, skip_serializing_if = "is_false")]
    pub ignored: bool,
}

/// Chromium's accessibility tree as a recording holds it: parsed nodes when
/// built in memory (capture, tests), or the JSON text of the `ax` array when
/// decoded, parsed only when a reader asks for it.
///
/// Only `pagesnap validate` and `pagesnap inspect` read the oracle, yet it is
/// a fifth of a large recording's JSON (3.4 of 17.7 MB for the 48k-node
/// `data_table` fixture, where parsing it was 13% of decoding); other readers
/// skip it for the cost of a scan and a copy, which measures the same as not
/// keeping it at all. Either way it is written as the same JSON array of
/// [`AxNode`] objects (`pagesnap.recording/1` is unchanged, and a decoded
/// oracle is written back byte for byte). The raw text is emitted verbatim by
/// `serde_json` only: other serializers would see a string.
///
/// Two oracles are equal when they hold the same nodes, whichever form they
/// are in.
#[derive(Clone, Debug)]
pub struct AxOracle(AxRepr);

#[derive(Clone, Debug)]
enum AxRepr {
    Nodes(Vec<AxNode>),
    Raw(Box<RawValue>),
}

impl AxOracle {
    /// An oracle holding already parsed nodes (what capture builds).
    pub fn from_nodes(nodes: Vec<AxNode>) -> AxOracle {
        AxOracle(AxRepr::Nodes(nodes))
    }

    /// The nodes, parsing the stored JSON if the recording was decoded (on
    /// every call: keep the result to use it twice). `origin` (usually the
    /// file path) is named in the error with the field path, e.g.
    /// `ax[12].role`: a malformed oracle, which decoding lets through, is
    /// reported here.
    pub fn nodes(&self, origin: &str) -> Result<Cow<'_, [AxNode]>, RecordingError> {
        let raw = match &self.0 {
            AxRepr::Nodes(nodes) => return Ok(Cow::Borrowed(nodes)),
            AxRepr::Raw(raw) => raw,
        };
        let mut de = serde_json::Deserializer::from_str(raw.get());
        let nodes: Vec<AxNode> =
            serde_path_to_error::deserialize(&mut de).map_err(|err| RecordingError::Field {
                origin: origin.to_owned(),
                field: ax_field(err.path()),
                message: without_position(err.inner()),
            })?;
        Ok(Cow::Owned(nodes))
    }
}

/// The error's message without serde_json's ` at line L column C`: the
/// position is inside the `ax` array's text, not the file, so it would
/// mislead; the field path locates the value instead.
fn without_position(err: &serde_json::Error) -> String {
    let message = err.to_string();
    let position = format!(" at line {} column {}", err.line(), err.column());
    match message.strip_suffix(&position) {
        Some(message) => message.to_owned(),
        None => message,
    }
}

/// `ax` followed by the path inside the array (`[12].role`); the path of
/// the array itself displays as `.`.
fn ax_field(path: &serde_path_to_error::Path) -> String {
    let path = path.to_string();
    if path == "." {
        "ax".to_owned()
    } else {
        format!("ax{path}")
    }
}

impl Default for AxOracle {
    fn default() -> AxOracle {
        AxOracle::from_nodes(Vec::new())
    }
}

impl From<Vec<AxNode>> for AxOracle {
    fn from(nodes: Vec<AxNode>) -> AxOracle {
        AxOracle::from_nodes(nodes)
    }
}

impl PartialEq for AxOracle {
    fn eq(&self, other: &AxOracle) -> bool {
        match (&self.0, &other.0) {
            (AxRepr::Nodes(a), AxRepr::Nodes(b)) => a == b,
            // Same text, same nodes (or the same error); the common case
            // when comparing two decodes of one file.
            (AxRepr::Raw(a), AxRepr::Raw(b)) if a.get() == b.get() => true,
            _ => match (self.nodes(""), other.nodes("")) {
                (Ok(a), Ok(b)) => a == b,
                _ => false,
            },
        }
    }
}

impl Serialize for AxOracle {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            AxRepr::Nodes(nodes) => nodes.serialize(serializer),
            AxRepr::Raw(raw) => raw.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for AxOracle {
    /// Checks only that the value is well-formed JSON; its shape is checked
    /// by [`AxOracle::nodes`].
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<AxOracle, D::Error> {
        Box::<RawValue>::deserialize(deserializer).map(|raw| AxOracle(AxRepr::Raw(raw)))
    }
}

/// Element counts `document.querySelectorAll('*')` gave at capture time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DomCounts {
    /// Elements of the main document (light DOM only).
    pub document: u32,
    /// Elements inside open shadow roots (recursively).
    pub shadow: u32,
    /// Elements inside same-origin iframe documents (recursively, light and shadow).
    pub iframe: u32,
}

/// Why a recording could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RecordingError {
    /// The bytes are not a complete gzip stream.
    #[error("{origin}: not a complete gzip stream")]
    Gzip {
        /// Where the bytes came from (file path).
        origin: String,
        /// The decoder's error.
        #[source]
        source: std::io::Error,
    },
    /// The JSON is malformed or a field has the wrong type.
    #[error("{origin}: field `{field}`: {message}")]
    Field {
        /// Where the bytes came from (file path).
        origin: String,
        /// Path of the offending field, e.g. `nodes[12].bounds.x`.
        field: String,
        /// What was wrong with it.
        message: String,
    },
    /// The schema is missing, newer, or unknown.
    #[error("{origin}: field `schema`: unsupported schema {found:?} (this build reads {SCHEMA:?})")]
    Schema {
        /// Where the bytes came from.
        origin: String,
        /// The schema string found in the file.
        found: String,
    },
    /// The node list breaks a structural invariant.
    #[error("{origin}: field `nodes[{index}]`: {message}")]
    Structure {
        /// Where the bytes came from.
        origin: String,
        /// The offending node index.
        index: usize,
        /// What invariant it breaks.
        message: String,
    },
    /// The recording inflates to more than [`MAX_DECODED_BYTES`].
    #[error("{origin}: inflates to more than {limit} bytes, the most a recording may hold")]
    TooLarge {
        /// Where the bytes came from (file path).
        origin: String,
        /// The limit, in bytes.
        limit: u64,
    },
    /// Encoding failed.
    #[error("could not encode recording")]
    Encode(#[source] std::io::Error),
}

#[derive(Deserialize)]
struct SchemaProbe {
    #[serde(default)]
    schema: Option<String>,
}

/// Fails unless the document's `schema` is [`SCHEMA`]: a malformed
/// document, a missing `schema` and any other version each say so.
fn check_schema(json: &[u8], origin: &str) -> Result<(), RecordingError> {
    let probe: SchemaProbe = serde_json::from_slice(json).map_err(|err| RecordingError::Field {
        origin: origin.to_owned(),
        field: "(document)".to_owned(),
        message: err.to_string(),
    })?;
    match probe.schema {
        Some(schema) if schema == SCHEMA => Ok(()),
        Some(found) => Err(RecordingError::Schema {
            origin: origin.to_owned(),
            found,
        }),
        None => Err(RecordingError::Field {
            origin: origin.to_owned(),
            field: "schema".to_owned(),
            message: "missing field".to_owned(),
        }),
    }
}

impl Recording {
    /// Decodes a gzip-compressed JSON recording; `origin` (usually the file path)
    /// is named in every error.
    pub fn from_gz_bytes(bytes: &[u8], origin: &str) -> Result<Recording, RecordingError> {
        Recording::from_gz_bytes_within(bytes, origin, MAX_DECODED_BYTES)
    }

    /// [`Recording::from_gz_bytes`] with the inflated size capped at `limit`
    /// bytes: the stream is read through a limit, never inflated whole first.
    fn from_gz_bytes_within(
        bytes: &[u8],
        origin: &str,
        limit: u64,
    ) -> Result<Recording, RecordingError> {
        // gzip's trailer holds the inflated size (mod 2^32); trust it up to
        // the limit so one allocation fits (recordings inflate 8–16×).
        let limit_len = usize::try_from(limit).unwrap_or(usize::MAX);
        let inflated = bytes
            .last_chunk::<4>()
            .map_or(0, |size| u32::from_le_bytes(*size) as usize);
        let mut json =
            Vec::with_capacity(inflated.max(bytes.len().saturating_mul(8)).min(limit_len));
        flate2::read::GzDecoder::new(bytes)
            .take(limit.saturating_add(1))
            .read_to_end(&mut json)
            .map_err(|source| RecordingError::Gzip {
                origin: origin.to_owned(),
                source,
            })?;
        if json.len() as u64 > limit {
            return Err(RecordingError::TooLarge {
                origin: origin.to_owned(),
                limit,
            });
        }
        Recording::from_json_bytes(&json, origin)
    }

    /// Decodes an uncompressed JSON recording.
    pub fn from_json_bytes(json: &[u8], origin: &str) -> Result<Recording, RecordingError> {
        // One pass for a good file. Only when decoding fails is the schema
        // probed (a second pass), so that a newer file fails on `schema`, not
        // on whatever field happened to change shape.
        let mut de = serde_json::Deserializer::from_slice(json);
        let recording: Recording = match serde_path_to_error::deserialize(&mut de) {
            Ok(recording) => recording,
            Err(err) => {
                check_schema(json, origin)?;
                return Err(RecordingError::Field {
                    origin: origin.to_owned(),
                    field: err.path().to_string(),
                    message: err.inner().to_string(),
                });
            }
        };
        if recording.schema != SCHEMA {
            return Err(RecordingError::Schema {
                origin: origin.to_owned(),
                found: recording.schema,
            });
        }
        recording.check_viewport(origin)?;
        recording.check_structure(origin)?;
        Ok(recording)
    }

    /// Encodes as gzip-compressed JSON.
    pub fn to_gz_bytes(&self) -> Result<Vec<u8>, RecordingError> {
        let json = serde_json::to_vec(self).map_err(|err| RecordingError::Encode(err.into()))?;
        let mut encoder = flate2::write::GzEncoder::new(
            Vec::with_capacity(json.len() / 6),
            flate2::Compression::new(6),
        );
        encoder.write_all(&json).map_err(RecordingError::Encode)?;
        encoder.finish().map_err(RecordingError::Encode)
    }

    /// Checks that the viewport has an area and a scale: every strategy
    /// divides by it (pages above and below, zones, the screenshot's size),
    /// so zero, a negative or a non-finite value would reach the output as
    /// `0.0 pages below` or worse.
    fn check_viewport(&self, origin: &str) -> Result<(), RecordingError> {
        let viewport = &self.viewport;
        for (field, value) in [
            ("viewport.width", viewport.width),
            ("viewport.height", viewport.height),
            ("viewport.device_scale_factor", viewport.device_scale_factor),
        ] {
            if !(value.is_finite() && value > 0.0) {
                return Err(RecordingError::Field {
                    origin: origin.to_owned(),
                    field: field.to_owned(),
                    message: format!("must be a positive number, found {value}"),
                });
            }
        }
        Ok(())
    }

    /// Checks the tree invariants the engine relies on: node 0 is the
    /// document, every other node has an earlier parent, text nodes have no
    /// children.
    fn check_structure(&self, origin: &str) -> Result<(), RecordingError> {
        let fail = |index: usize, message: String| RecordingError::Structure {
            origin: origin.to_owned(),
            index,
            message,
        };
        match self.nodes.first() {
            Some(node) if node.kind == NodeKind::Document && node.parent.is_none() => {}
            Some(_) => return Err(fail(0, "the first node must be the document".to_owned())),
            None => {
                return Err(fail(
                    0,
                    "a recording needs at least the document node".to_owned(),
                ));
            }
        }
        // The ancestors of the previous node: in document order (pre-order),
        // a node's parent is the previous node or one of its ancestors.
        let mut open: Vec<usize> = vec![0];
        for (index, node) in self.nodes.iter().enumerate().skip(1) {
            let Some(parent) = node.parent else {
                return Err(fail(index, "missing `parent`".to_owned()));
            };
            let parent = parent as usize;
            if parent >= index {
                return Err(fail(
                    index,
                    format!("`parent` {parent} does not precede the node (document order)"),
                ));
            }
            while open.last().is_some_and(|&top| top != parent) {
                open.pop();
            }
            if open.is_empty() {
                return Err(fail(
                    index,
                    format!(
                        "`parent` {parent} is not an ancestor of the previous node (document order)"
                    ),
                ));
            }
            open.push(index);
            if self.nodes[parent].kind == NodeKind::Text {
                return Err(fail(index, format!("`parent` {parent} is a text node")));
            }
            if node.kind == NodeKind::Document {
                return Err(fail(
                    index,
                    "only node 0 may be the main document".to_owned(),
                ));
            }
        }
        if let Some(focused) = self.focused {
            if focused as usize >= self.nodes.len() {
                return Err(RecordingError::Field {
                    origin: origin.to_owned(),
                    field: "focused".to_owned(),
                    message: format!("node {focused} does not exist"),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;
    use crate::testing::RecordingBuilder;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        encoder.write_all(data).unwrap();
        encoder.finish().unwrap()
    }

    /// Issue 17: a 17 MB gzip bomb inflating to 4 GB took `inspect` to 3.9 GB
    /// of memory. Inflating stops one byte past the limit, with a named error.
    #[test]
    fn a_gzip_bomb_is_refused_past_the_limit() {
        // 64 MiB of zeros: 64 KiB compressed, against a 1 MiB limit.
        let bomb = gz(&vec![0u8; 64 << 20]);
        assert!(bomb.len() < 128 << 10);
        let err = Recording::from_gz_bytes_within(&bomb, "bomb.json.gz", 1 << 20).unwrap_err();
        assert!(matches!(err, RecordingError::TooLarge { limit, .. } if limit == 1 << 20));
        assert_eq!(
            err.to_string(),
            "bomb.json.gz: inflates to more than 1048576 bytes, the most a recording may hold"
        );
    }

    #[test]
    fn a_recording_of_exactly_the_limit_decodes() {
        let recording = RecordingBuilder::new().build();
        let json = serde_json::to_vec(&recording).unwrap();
        let bytes = gz(&json);
        let limit = json.len() as u64;
        assert!(Recording::from_gz_bytes_within(&bytes, "r", limit).is_ok());
        let err = Recording::from_gz_bytes_within(&bytes, "r", limit - 1).unwrap_err();
        assert!(matches!(err, RecordingError::TooLarge { .. }), "{err}");
        assert_eq!(MAX_DECODED_BYTES, 512 * 1024 * 1024);
    }
}
