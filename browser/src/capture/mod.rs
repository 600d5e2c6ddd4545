//! Capture: reading a tab's state into a recording, and the live observations built on it — a part of the session that borrows its tab handle and its frames.

mod boxes;
pub(crate) use boxes::KeptBoxes;
mod facts;
pub(crate) use facts::{DOCUMENT_CALL, FACTS_CALL, LISTENERS_CALL};
mod frames;
mod live;
mod oracle;
pub(crate) mod paint;
mod record;
mod rescroll;
mod snapshot;
mod state;
mod timings;
mod watch;

pub use live::{Live, Source, Timings};
pub use paint::Paints;
pub use state::{Captured, Needs, Png, now_rfc3339};
pub use timings::{Call, CaptureTimings};
pub use watch::{Kept, Mark, Shows, reusable};

use crate::frames::Frames;
use crate::tab::TabHandle;

/// Capture on one tab: its handle, the out-of-process frames it attached
/// (which a capture adds to and forgets), and the browser version each
/// recording names.
pub(crate) struct Capture<'a> {
    tab: &'a TabHandle,
    frames: &'a Frames,
    version: &'a str,
}

impl<'a> Capture<'a> {
    /// Capture on `tab`, with its `frames`, for a browser named `version`.
    pub(crate) fn new(tab: &'a TabHandle, frames: &'a Frames, version: &'a str) -> Capture<'a> {
        Capture {
            tab,
            frames,
            version,
        }
    }
}
