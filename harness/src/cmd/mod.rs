//! One module per `pagesnap` subcommand.

pub mod bench_hidden;
pub mod bench_live;
pub mod bench_mcp;
pub mod bench_paint;
pub mod compare;
pub mod diff;
pub mod doctor;
mod flags;
pub mod inspect;
pub mod live;
pub mod mcp;
pub mod merge;
pub mod record;
pub mod redactions;
pub mod run;
pub mod snapshot;
pub mod trace_to_suite;
pub mod validate;
