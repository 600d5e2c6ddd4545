//! pagesnap's browser engine: launch Chromium or attach to one, keep one tab's session, capture what a strategy needs, observe through the engine, and act on nodes as a user does.
//!
//! This is the seed's "shared browser engine": the tool server (`pagesnap
//! mcp`), the live runner, `record` and any Rust agent drive pages through it.
//! It knows nothing of the CLI or of evaluation: flag names, signals, caps and
//! recording files stay in the harness.

mod action;
mod capture;
mod chromium;
mod dialogs;
pub mod discover;
mod documents;
mod downloads;
mod endpoint;
mod error;
mod failure;
mod frames;
mod gone;
mod input;
mod navigation;
pub mod observe;
mod op;
mod pulse;
mod readiness;
mod session;
mod tab;
mod target;
mod waits;

pub use action::{
    Axis, Button, ClickWith, Drop, Failure, MAX_WAIT, Motion, Outcome, Resolved, ScrollBy,
    Unrunnable, UserAction, Wait, click_of, dialog_of, label, paths_of, resolve, scroll_of,
    wait_of,
};
pub use capture::{
    Call, CaptureTimings, Captured, Kept, Live, Mark, Needs, Paints, Png, Shows, Source, Timings,
    now_rfc3339, reusable,
};
pub use chromium::{BrowserCommand, CHROMIUM_FLAGS, Chromium, OFFLINE_FLAG, Tab, runtime};
pub use dialogs::DialogPolicy;
pub use downloads::{Download, DownloadPolicy, DownloadState};
pub use error::{Error, Result, StartError};
pub use failure::{Phase, TabError};
pub use frames::{node_key, split_key};
pub use input::{Step, confine_uploads, key_names};
pub use navigation::{Arrival, DEFAULT_TIMEOUT, DEFAULT_VIEWPORT, OpenOptions, WaitFor};
pub use op::Op;
pub use readiness::{Performed, Readiness, Settled};
pub use session::ChromiumSession;
pub use target::display_url;
