//! What a run folder holds before any report: `run.json` (what the run covers) and `results.jsonl` (one judged row per step) and the lock a run holds on it, shared by every runner and by the reports.

pub mod episode;
pub mod folder;
pub mod jsonl;
pub mod lock;
pub mod manifest;
pub mod row;

pub use episode::{
    BrowserDied, EndedBy, Episode, EpisodeKey, ExternalStep, PeerStep, StepLog, StepOutcome,
};
pub use folder::RunFolder;
pub use lock::OutLock;
pub use manifest::{LiveSettings, Manifest, Shard};
pub use row::{Key, Row};

/// The prefix that marks an external strategy's name (`ext:NAME`) on the
/// command line, in rows and in reports: its one home, read by the runner
/// side (`external`) and the report side alike.
pub const EXTERNAL_PREFIX: &str = "ext:";

/// The prefix that marks a tool server observed and acted through
/// (`mcp:NAME`), as [`EXTERNAL_PREFIX`] marks an external strategy.
pub const MCP_PREFIX: &str = "mcp:";

/// A duration as every millisecond figure in rows, step logs and bench
/// output is written: to the microsecond (no false precision).
pub fn ms(elapsed: std::time::Duration) -> f64 {
    (elapsed.as_secs_f64() * 1_000_000.0).round() / 1000.0
}

/// Whether a strategy's name names an external strategy.
pub fn is_external(name: &str) -> bool {
    name.starts_with(EXTERNAL_PREFIX)
}
