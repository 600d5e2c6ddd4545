//! Input: acting on a tab as a user would — the mouse, the keyboard, drags, file choosers, calls on one node and the scripted steps of `record --then` — a part of the session that borrows its tab handle and its frames.

mod act;
mod controls;
mod drag;
mod fields;
mod keys;
mod mouse;
mod nodes;
mod readback;
mod script;
mod scroll;
mod slider;
mod upload;

pub use keys::key_names;
pub(crate) use keys::{MODIFIERS, modifier as modifier_bit};
pub use script::Step;
pub use upload::confine as confine_uploads;

use std::path::Path;

use crate::frames::Frames;
use crate::tab::TabHandle;

/// Input on one tab: its handle, the out-of-process frames whose nodes it
/// acts on, and the folder uploads are confined to.
pub(crate) struct Input<'a> {
    tab: &'a TabHandle,
    frames: &'a Frames,
    uploads: &'a Path,
}

impl<'a> Input<'a> {
    /// Input on `tab`, with its `frames`, uploads confined to `uploads`.
    pub(crate) fn new(tab: &'a TabHandle, frames: &'a Frames, uploads: &'a Path) -> Input<'a> {
        Input {
            tab,
            frames,
            uploads,
        }
    }

    /// The tab's keyboard.
    fn keyboard(&self) -> keys::Keyboard<'a> {
        keys::Keyboard::new(self.tab)
    }

    /// The tab's mouse.
    fn mouse(&self) -> mouse::Mouse<'a> {
        mouse::Mouse::new(self.tab)
    }
}
