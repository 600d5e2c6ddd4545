//! What a strategy produces: `Observation { text, image, refs, meta }`, and the JSON meta every strategy fills.
//!
//! The values passes compute for the meta (an item's [`Zone`], redactions
//! counted by kind, an image's tokens per provider) are defined here too,
//! below the passes: passes and strategies import the outputs, never the
//! reverse.

use serde::{Deserialize, Serialize};

pub(crate) mod redacted;
pub(crate) mod tokens;
mod withheld;
mod zone;

pub use self::redacted::Redacted;
use self::tokens::{anthropic_tokens, gemini_tokens, openai_tokens};
pub use self::withheld::Withheld;
pub use self::zone::Zone;
pub use crate::analyze::{ModalKind, NameSource, Strength};
use crate::geom::Rect;
use crate::page::NodeId;
use crate::recording::Dialog;

/// An observation of a page, as an agent reads it.
#[derive(Clone, Debug)]
pub struct Observation {
    /// The text the model reads.
    pub text: String,
    /// An image the model sees (the `som` strategy).
    pub image: Option<Image>,
    /// Refs in the order they appear, each resolving to a node.
    pub refs: Vec<(String, NodeId)>,
    /// Machine-readable facts about the observation.
    pub meta: Meta,
}

impl Observation {
    /// The node a ref names, if the observation has that ref.
    pub fn resolve(&self, reference: &str) -> Option<NodeId> {
        self.refs
            .iter()
            .find(|(r, _)| r == reference)
            .map(|(_, id)| *id)
    }
}

/// A PNG image.
#[derive(Clone, Debug)]
pub struct Image {
    /// PNG bytes.
    pub png: Vec<u8>,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

/// Machine-readable facts about an observation (`pagesnap snapshot --meta`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Meta {
    /// Strategy name.
    pub strategy: String,
    /// Hash of the recording's DOM, text, box origins and form state and of
    /// the options (computed styles and box sizes are not hashed).
    pub snapshot_id: String,
    /// Where the viewport is.
    pub viewport: ViewportMeta,
    /// The modal layer.
    pub modal: ModalMeta,
    /// Counts.
    pub counts: Counts,
    /// One entry per ref, in ref order.
    pub items: Vec<Item>,
    /// Honesty figures (aimount `meta.observation`).
    pub observation: Honesty,
    /// Image facts (`som` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<ImageMeta>,
    /// Warnings shown to the model too (e.g. a suspected overlay).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The JavaScript dialog the page waits on: the observation is that
    /// dialog alone ([`crate::dialog::Dialog::observation`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialog: Option<Dialog>,
}

/// Viewport position (seed 003, part B).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ViewportMeta {
    /// Vertical scroll offset.
    pub scroll_y: f64,
    /// Document height.
    pub doc_height: f64,
    /// Viewport height.
    pub viewport_height: f64,
    /// Whole viewports above.
    pub pages_above: u32,
    /// Whole viewports below.
    pub pages_below: u32,
    /// At the top.
    pub at_top: bool,
    /// At the bottom.
    pub at_bottom: bool,
}

/// The modal layer as reported.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ModalMeta {
    /// `none`, `reliable` or `suspected`.
    pub kind: ModalKind,
    /// Document-order index of the modal or overlay element.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<usize>,
}

/// Counts over the page and the observation.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    /// Refs given.
    pub interactive: usize,
    /// Refs whose name is weak.
    pub weak: usize,
    /// Refs with no name.
    pub unknown: usize,
    /// Interactive nodes obscured by a reliable modal (no ref).
    pub obscured: usize,
    /// Interactive nodes outside the viewport (no ref in viewport-only scope).
    pub offscreen: usize,
    /// Values or texts replaced by `[redacted]`.
    pub redacted: usize,
    /// The same, by the kind of secret or the rule that hid it.
    #[serde(default, skip_serializing_if = "Redacted::is_empty")]
    pub redacted_by: Redacted,
    /// Elements dropped by the token budget.
    pub truncated: usize,
    /// Text runs in scope withheld because no person can see them
    /// (transparent, clipped, covered, …; not `display: none`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub withheld: usize,
    /// The same, by why.
    #[serde(default, skip_serializing_if = "Withheld::is_empty")]
    pub withheld_by: Withheld,
}

fn is_zero(value: &usize) -> bool {
    *value == 0
}

/// One ref'd element.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Item {
    /// The ref as printed (`e12`, `12`).
    #[serde(rename = "ref")]
    pub reference: String,
    /// Document-order index of the node.
    pub node: usize,
    /// CDP backend node id (0 when unknown), for stable refs across steps.
    pub backend_id: u64,
    /// Role.
    pub role: String,
    /// Accessible name (redacted when secret).
    pub name: String,
    /// `text | aria-label | aria-labelledby | label | title | placeholder | alt | value | unknown`.
    pub name_source: NameSource,
    /// `strong | weak | unknown`.
    pub name_status: Strength,
    /// 3×3 zone of the viewport (`top-left` … `bottom-right`), `offscreen`
    /// or `unknown`.
    pub zone: Zone,
    /// Border box in document coordinates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounds: Option<Rect>,
    /// States as printed (`disabled`, `checked`, `expanded`, `level=2`, …).
    pub states: Vec<String>,
    /// New since the previous observation.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub new: bool,
    /// Nearby text: the nearest preceding heading, the node's own text when it
    /// has no name, and the visible text just before the node (e.g. a label in
    /// another table cell).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub context: String,
}

/// Honesty figures: how safe the observation is for exact UI claims.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Honesty {
    /// Visible distinct actionable nodes.
    pub total_interactive: usize,
    /// Of those, named from a weak source.
    pub weak_interactive: usize,
    /// Of those, without a reliable name.
    pub unknown_interactive: usize,
    /// `safe | partial | unsafe`.
    pub exact_ui_claims: Claims,
}

/// aimount's `exactUiClaims`: whether the names are safe to quote as exact
/// UI text. Serialised, and printed, as `safe`, `partial` or `unsafe`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Claims {
    /// At most 10% of the refs weakly named, none unnamed.
    Safe,
    /// Between the two.
    Partial,
    /// No refs, more than half weak or unnamed, or more than 25% unnamed.
    #[default]
    Unsafe,
}

impl Claims {
    /// The word for the verdict.
    pub fn as_str(self) -> &'static str {
        match self {
            Claims::Safe => "safe",
            Claims::Partial => "partial",
            Claims::Unsafe => "unsafe",
        }
    }
}

impl std::fmt::Display for Claims {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Image facts and estimated image tokens per provider.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ImageMeta {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// OpenAI (high detail tile formula).
    pub openai_tokens: u32,
    /// Anthropic (pixels / 750 after its resize).
    pub anthropic_tokens: u32,
    /// Gemini (258 per 768×768 tile).
    pub gemini_tokens: u32,
}

impl ImageMeta {
    /// The facts of a `width`×`height` image, with each provider's tokens.
    pub fn new(width: u32, height: u32) -> ImageMeta {
        ImageMeta {
            width,
            height,
            openai_tokens: openai_tokens(width, height),
            anthropic_tokens: anthropic_tokens(width, height),
            gemini_tokens: gemini_tokens(width, height),
        }
    }
}
