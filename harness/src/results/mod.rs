//! What a run folder holds before any report: `run.json` (what the run covers) and `results.jsonl` (one judged row per step) and the lock a run holds on it, shared by every runner and by the reports.

pub mod episode;
pub mod jsonl;
pub mod lock;
pub mod manifest;
pub mod row;
pub mod steps;

pub use episode::{EndedBy, Episode, EpisodeKey, ExternalStep, StepLog, StepOutcome};
pub use lock::OutLock;
pub use manifest::{LiveSettings, Manifest, Shard};
pub use row::{Key, Row};
