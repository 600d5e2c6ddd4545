//! `pagesnap mcp`: the tool server through which agents see and act on a browser tab — the seed's page_snapshot / page_scroll contract and actions by ref, over MCP (stdio or Streamable HTTP), on pagesnap's own Chromium or one it attaches to.

mod answer;
mod error;
pub mod layers;
mod policy;
pub mod secrets;
mod serve;
mod tabs;
mod tools;

pub use answer::{
    ActionAnswer, ActionReport, Changes, Detail, DownloadReport, DownloadStatus, FindAnswer,
    Freshness, Match, Note, NoteKind, OpenedTab, Snapshot, SnapshotAnswer, StepTimings, TabInfo,
};
pub use pagesnap_browser::Readiness;
pub use serve::{Transport, serve, serve_client};
pub use tabs::Config;
