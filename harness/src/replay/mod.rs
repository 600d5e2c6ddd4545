//! The offline runner: every task × strategy × step of a suite's recordings through an agent, judged by the rule judge.
//!
//! Per step: build the observation from the step's recording (engine time:
//! page build + analysis + render, in µs; the previous step's observation is
//! passed so refs stay stable), ask the agent, and have the rule judge
//! ([`crate::judge::rule`]) judge the answer against the suite's expected step.
//! With `--judge llm:…` the LLM judge also judges each step and, on its last
//! step, the whole task.
//!
//! Each finished step is appended to `<out>/results.jsonl` at once (and
//! flushed), so `--resume` skips the (task, strategy, step) triples already
//! there and rebuilds the agent's history from them. A step that fails (engine
//! or agent error) becomes a row with `error` set, never a crash. Tasks run in
//! parallel across `--jobs` threads; rows are sorted (suite task order,
//! strategy order, step) before the reports are written ([`crate::report`]).
//! `--shard K/N` runs only the tasks whose 0-based suite index i has
//! i % N == K − 1; `run.json` records what the folder covers so `pagesnap
//! merge` can join shards without the suite.

mod runner;
mod unit;

pub use runner::{Config, Outcome, run};
