//! The harness's integration tests, one module per concern, in one binary (one link, and the tests of every concern share the two cores): the CLI, recording, live observation and episodes, replay, providers, reports, MCP and external strategies. The tests whose assertion is a wall-clock bound are in `tests/bounded/`, run alone against the release build.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod support;

mod analysis_once;
mod answers;
mod cli;
mod corpus;
mod corpus_suite;
mod diff;
mod external;
mod frames;
mod hidden;
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
mod run;
