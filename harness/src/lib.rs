//! pagesnap's harness as a library: capture pages, load suites, ask agents, judge, replay offline and report.
//!
//! The rooms follow the data: `capture` records pages into `store`d
//! recordings; `suite` loads tasks over them; a runner (`run`, the offline
//! replay) observes each step through the engine, asks an `agent` and has it
//! judged (`judge`); the reports are written from the rows. `cmd` is the
//! command line on top (the binary `pagesnap` only parses and dispatches).

pub mod agent;
pub mod capture;
pub mod cmd;
pub mod judge;
pub mod observe;
pub mod replay;
pub mod report;
pub mod results;
pub mod store;
pub mod suite;
pub mod tokens;
