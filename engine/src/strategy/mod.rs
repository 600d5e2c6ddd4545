//! Observation strategies: one file each, registered in [`STRATEGIES`]; they render the facts `analyze` computed.

pub mod aria;
pub mod flat;
pub mod html;
pub mod html_pruned;
mod shared;
pub mod som;
pub mod structural;

use crate::analyze::Analyzed;
use crate::observation::Observation;

pub use crate::passes::{Layer, ObserveError, Options};
pub use shared::meta::{candidates, foreign};

/// A way of turning a page into what the model reads.
pub trait Strategy: Sync {
    /// The name used on the command line (`flat`, `aria`, …).
    fn name(&self) -> &'static str;
    /// One line: what the model reads.
    fn summary(&self) -> &'static str;
    /// Full documentation: *What it produces* and *Example* (`pagesnap strategies --explain`).
    fn explain(&self) -> &'static str;
    /// Whether the strategy shows the full page unless told otherwise.
    fn full_page_by_default(&self) -> bool {
        true
    }
    /// Whether the strategy reads the viewport screenshot
    /// ([`Options::screenshot`]); a live capture takes one only then.
    fn needs_screenshot(&self) -> bool {
        false
    }
    /// Renders an observation.
    fn observe(
        &self,
        analyzed: &Analyzed,
        options: &Options<'_>,
    ) -> Result<Observation, ObserveError>;
}

/// Every strategy, in the order reports list them.
pub const STRATEGIES: &[&dyn Strategy] = &[
    &flat::Flat,
    &aria::Aria,
    &structural::Structural,
    &som::Som,
    &html::Html,
    &html_pruned::HtmlPruned,
];

/// Looks a strategy up by name.
pub fn by_name(name: &str) -> Option<&'static dyn Strategy> {
    STRATEGIES.iter().copied().find(|s| s.name() == name)
}
