//! Reports of a run folder's rows: metrics, significance, `results.csv`, `summary.json`, `report.md`, `report.html`.
//!
//! Reports read rows from [`crate::results`], never from a runner: the same
//! writers serve a fresh run, a resumed one and a merge of shards. Each
//! report is computed once as typed tables ([`table`]; a replay's in
//! `tables.rs`, a live run's in `live/tables.rs`, the CSV files' as slices of
//! columns) and written by one small emitter per format ([`emit`]).

pub mod categories;
mod charts;
pub mod csv;
pub mod diff;
pub mod emit;
pub mod escape;
mod figures;
pub(crate) mod format;
#[cfg(test)]
mod golden;
pub mod html;
pub mod live;
pub mod markdown;
pub mod merge;
pub mod metrics;
pub mod significance;
pub mod steps;
pub mod table;
mod tables;
mod write;

pub use figures::Report;
pub use write::write_all;
