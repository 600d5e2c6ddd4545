//! pagesnap's harness as a library: record pages, replay suites through strategies and agents, judge, report.
//!
//! The rooms follow the data, record → replay | live → report:
//!
//! - The browser engine is the crate `pagesnap-browser` (launch or attach,
//!   one tab's session, capture, act); [`record`] writes what it captures into
//!   the store; [`store`] reads and writes recordings with their screenshots;
//!   [`observe`] (re-exported from the browser crate) is the one door into the
//!   engine (page, analysis, observation).
//! - [`suite`] loads tasks over recordings; [`agent`] chooses actions;
//!   [`judge`] decides whether they were right ([`judge::rule`] against the
//!   suite, [`judge::llm`] by asking a model); [`tokens`] counts.
//! - [`results`] is what a run folder holds — the row schema, `results.jsonl`
//!   and `run.json` — shared by every runner; [`replay`] is the offline runner,
//!   [`live`] the closed-loop one. Runners do not import each other.
//!   [`progress`] shows a run's progress on stderr for any runner.
//! - [`report`] turns rows into metrics and files (and diffs and merges run
//!   folders); it reads rows from [`results`], never from a runner.
//! - [`cmd`] is the command line on top; nothing else imports it, and the
//!   binary `pagesnap` only parses and dispatches to it.
//! - The tool server (`pagesnap mcp`) is the crate `pagesnap-mcp`, on the
//!   browser engine; [`cmd`] gives it its flags. [`bench`] measures
//!   pagesnap beside its peers (`bench-live`, `bench-mcp`); [`external`] runs
//!   peers' snapshotters as strategies; [`node`] finds the Node.js folders
//!   those peers live in (neither imports the other for it).
//! - [`revive`] starts a browser in the place of one that died, for
//!   `record` and the live runner, which retry the page or episode once.
//! - [`redactions`] audits what redaction hides on saved pages against a
//!   hand-labelled list (`pagesnap redactions`).

pub mod agent;
pub mod bench;
pub mod cmd;
pub mod external;
pub mod flag_hints;
pub mod judge;
pub mod live;
pub mod node;
pub mod observer;
pub mod peer;
pub mod pool;
pub mod progress;
pub mod record;
pub mod redactions;
pub mod replay;
pub mod report;
pub mod results;
pub mod revive;
pub mod signals;
pub mod store;
pub mod suite;
pub mod tokens;
pub mod variant;

pub use pagesnap_browser::observe;
