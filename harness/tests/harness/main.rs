//! The harness's integration tests, one module per concern, in one binary (one link, and the tests of every concern share the two cores): the CLI, recording, live observation and episodes, replay, providers, reports, MCP, external strategies and hostile input.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod support;

mod cli;
mod corpus_suite;
mod diff;
mod external;
mod frames;
mod hostile;
mod live;
mod live_episodes;
mod llama;
mod mcp;
mod merge;
mod names;
mod peer;
mod playwright_aria;
mod providers;
mod record;
mod report_html;
mod resume_kill;
mod run;
