//! The engine's integration tests, one binary with a module per concern (ripgrep's layout).

mod accname_browser;
mod analyze_layout;
mod analyze_semantics;
mod common;
mod dom;
mod fixtures;
mod fuzz;
mod layers;
mod legibility;
mod page;
mod planted_secrets;
mod recording;
mod snapshots;
mod strategy_fixtures;
mod strategy_flat_aria;
mod strategy_props;
mod strategy_structural_som_html;
