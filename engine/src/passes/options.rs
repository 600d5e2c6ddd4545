//! What a caller asks of an observation (options, layers) and why one could not be made.

use crate::observation::Observation;

/// A named set of selectors (aimount layers): observations can be limited to
/// the subtrees the selectors match.
#[derive(Clone, Debug)]
pub struct Layer {
    /// The layer id callers use.
    pub name: String,
    /// CSS selectors of the layer's roots.
    pub selectors: Vec<String>,
}

/// Options every strategy honours.
#[derive(Clone, Debug)]
pub struct Options<'a> {
    /// `Some(true)`: whole page; `Some(false)`: viewport only; `None`: the strategy's default.
    pub full_page: Option<bool>,
    /// Token budget for the text; content is dropped least-useful first, with a notice.
    pub max_tokens: Option<usize>,
    /// Configured layers.
    pub layers: Vec<Layer>,
    /// Layer ids to show (empty: the whole page). Unknown ids are an error.
    pub active_layers: Vec<String>,
    /// The previous observation of the same page (stable refs, new marks).
    pub previous: Option<&'a Observation>,
    /// Replace secrets by `[redacted]` (on by default).
    pub redact: bool,
    /// Show text no person can see (transparent, clipped, covered, …) as the
    /// DOM and the accessibility tree hold it, instead of withholding it (off
    /// by default; for research, debugging and Playwright-compatible `aria`).
    pub show_hidden: bool,
    /// The recording's viewport PNG (for `som`).
    pub screenshot: Option<&'a [u8]>,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Options {
            full_page: None,
            max_tokens: None,
            layers: Vec::new(),
            active_layers: Vec::new(),
            previous: None,
            redact: true,
            show_hidden: false,
            screenshot: None,
        }
    }
}

/// Why an observation could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ObserveError {
    /// A layer id that is not configured.
    #[error("unknown layer {name:?} (configured: {known})")]
    UnknownLayer {
        /// The id asked for.
        name: String,
        /// The configured ids, comma-separated.
        known: String,
    },
    /// A layer selector that does not parse.
    #[error("layer {layer:?}: {source}")]
    LayerSelector {
        /// The layer.
        layer: String,
        /// The parse error.
        #[source]
        source: crate::page::SelectorError,
    },
    /// The strategy needs a screenshot and none was given.
    #[error("the {strategy} strategy needs the recording's screenshot (<name>.png)")]
    MissingScreenshot {
        /// Strategy name.
        strategy: &'static str,
    },
    /// The screenshot's header states a size that is not the recording's
    /// viewport, or is past the cap (checked before any pixel is decoded).
    #[error("screenshot is {width}×{height} px, expected {expected}")]
    ScreenshotSize {
        /// Width the PNG header states, px.
        width: u32,
        /// Height the PNG header states, px.
        height: u32,
        /// The size it should have had, and why.
        expected: String,
    },
    /// The screenshot could not be decoded or encoded.
    #[error("screenshot: {0}")]
    Image(String),
}
