//! The closed-loop runner: agents act on real pages in Chromium, the page decides success (MiniWoB++'s reward or a task's JavaScript predicate), and each episode leaves a trace.
//!
//! Per episode ([`episode`]): a new tab of the worker's warm browser loads
//! the task page from a 127.0.0.1 server ([`server`]); the page starts the
//! episode and gives the instruction ([`page`]: MiniWoB++ as its own
//! environment does it, with `core.EPISODE_MAX_TIME` raised); then observe →
//! agent → act until the agent says `done`, the step limit, or the page says
//! the episode ended. Every state the agent saw is recorded under
//! `traces/` ([`trace`]). Each finished episode is one line of
//! `results.jsonl`, appended and flushed at once, so `--resume` reruns only
//! the episodes not there (an interrupted episode starts over). Reports:
//! [`crate::report::live`]. This runner shares `results/`, the agents and
//! the judges with the offline one and never imports it.

pub mod episode;
pub mod page;
mod runner;
pub mod server;
pub mod to_suite;
pub mod trace;

pub use runner::{Config, Outcome, episodes_of, manifest, run};
