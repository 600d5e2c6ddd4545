//! The offline runner: replays a suite's recorded steps through strategies and an agent (see [`runner`]).

pub mod progress;
pub mod runner;

pub use runner::{Config, Outcome, run};
