//! Reports of a run folder's rows: metrics, significance, `results.csv`, `summary.json`, `report.md`, `report.html`.

pub mod html;
pub mod markdown;
pub mod metrics;
pub mod significance;

pub use markdown::{Report, write_all};
