//! The `pagesnap` command line: record and inspect pages, snapshot, validate, run suites, merge shards, diff runs.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use pagesnap_harness::cmd;

/// mimalloc: the engine allocates many small strings per observation, and
/// glibc's malloc costs it about a tenth of its instructions
/// (docs/performance.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// pagesnap decides what an LLM web agent sees: it records pages with headless
/// Chromium and turns them into observations, then measures which observation
/// strategy works best.
#[derive(Parser)]
#[command(name = "pagesnap", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Record a page (URL or local .html file) with headless Chromium into <out>.json.gz + <out>.png.
    Record(cmd::record::Args),
    /// Print a human summary of one or more recordings.
    Inspect(cmd::inspect::Args),
    /// Render a recording, or observe a live page (.html file or URL), through a strategy (text, --meta JSON, PNG for som).
    Snapshot(cmd::snapshot::Args),
    /// Time warm live observations per page, side by side with Playwright's ariaSnapshot() (--vs-playwright).
    BenchLive(cmd::bench_live::Args),
    /// Time pagesnap's tool server against the peers (--vs playwright,chrome-devtools,agent-browser): snapshot round trips, tokens, refs, a click, task targets.
    BenchMcp(cmd::bench_mcp::Args),
    /// Which text no person can see reaches the model, per strategy and tool server, on a page family whose tokens markers.toml declares (issue 56).
    BenchHidden(cmd::bench_hidden::Args),
    /// Whether the text pagesnap withholds paints any pixel, asked of Chromium: visible text withheld per page, named, and its share of all text runs (issue 56).
    BenchPaint(cmd::bench_paint::Args),
    /// Every strategy on every recording: refs, real tokens (o200k/cl100k), image tokens, engine µs.
    Compare(cmd::compare::Args),
    /// List the observation strategies, or explain one.
    Strategies(cmd::snapshot::StrategiesArgs),
    /// What redaction hides on saved pages, by kind and place, judged against a hand-labelled list (--check fails on any change).
    Redactions(cmd::redactions::Args),
    /// Compare the engine's roles and names with Chromium's accessibility tree stored in recordings.
    Validate(cmd::validate::Args),
    /// Replay a task suite offline through strategies and an agent; write results and reports.
    Run(cmd::run::Args),
    /// Run a live suite: agents act on real pages in Chromium, the page (MiniWoB++ reward or a JS predicate) decides success.
    Live(cmd::live::Args),
    /// Serve the page tools over MCP (stdio or Streamable HTTP) so that any agent sees and acts on a tab through pagesnap.
    Mcp(cmd::mcp::Args),
    /// Turn a live run's traces into an offline suite (replayed by `run`): a live run becomes a regression test.
    TraceToSuite(cmd::trace_to_suite::Args),
    /// Join the folders of a sharded run (`run --shard K/N`) into one run folder with every report.
    Merge(cmd::merge::Args),
    /// Compare two run folders' summary.json per strategy; exit 1 when a --fail-if rule is broken.
    Diff(cmd::diff::Args),
    /// What this machine gives pagesnap: the browser it finds (and where it looked), Node.js, the MCP SDK venv, temp, network defaults.
    Doctor(cmd::doctor::Args),
}

fn main() -> ExitCode {
    quiet_on_broken_pipe();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Record(args) => cmd::record::run(args),
        Command::Inspect(args) => cmd::inspect::run(args),
        Command::Validate(args) => cmd::validate::run(args),
        Command::Redactions(args) => cmd::redactions::run(args),
        Command::Snapshot(args) => cmd::snapshot::run(args),
        Command::Strategies(args) => cmd::snapshot::strategies(args),
        Command::Compare(args) => cmd::compare::run(args),
        Command::BenchLive(args) => cmd::bench_live::run(args),
        Command::BenchMcp(args) => cmd::bench_mcp::run(args),
        Command::BenchHidden(args) => cmd::bench_hidden::run(args),
        Command::BenchPaint(args) => cmd::bench_paint::run(args),
        Command::Run(args) => cmd::run::run(args),
        Command::Live(args) => cmd::live::run(args),
        Command::Mcp(args) => cmd::mcp::run(args),
        Command::TraceToSuite(args) => cmd::trace_to_suite::run(args),
        Command::Merge(args) => cmd::merge::run(args),
        Command::Diff(args) => cmd::diff::run(args),
        Command::Doctor(args) => cmd::doctor::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(2)
        }
    }
}

/// `pagesnap … | head` closes stdout early; like other Unix tools, stop
/// quietly instead of reporting a panic from `println!`.
fn quiet_on_broken_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.contains("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(0);
        }
        default(info);
    }));
}
