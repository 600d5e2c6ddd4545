//! `pagesnap live`: agents act on real pages in Chromium, the page decides success; episodes, traces and the reports.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Result, bail};

use super::flags::Reach;
use super::run::{ModelArgs, judge_named};
use crate::report::live::LiveReport;
use crate::{agent, live, progress, suite};

/// Arguments of `pagesnap live`.
#[derive(clap::Args)]
pub struct Args {
    /// The live suite (`suites/miniwob.toml`, `suites/live-fixtures.toml`; `.toml` may be left out).
    #[arg(long)]
    suite: PathBuf,
    /// Strategies (comma-separated; default: all of pagesnap's). `ext:playwright-aria`, `ext:playwright-ai`
    /// or `ext:NAME` of an --external program observe through an external program; `mcp:playwright`,
    /// `mcp:pagesnap` or `mcp:NAME` of an --mcp server observe and act through a tool server's tools.
    #[arg(long, value_delimiter = ',')]
    strategy: Vec<String>,
    /// An external strategy program, NAME=COMMAND (run with `sh -c`), used as `--strategy ext:NAME`;
    /// it speaks pagesnap.external/1 (docs/external.md). Repeatable.
    #[arg(long, value_name = "NAME=COMMAND")]
    external: Vec<String>,
    /// Limit of one answer of an external program or tool server, in seconds (default: --timeout).
    #[arg(long, value_name = "SECS")]
    external_timeout: Option<f64>,
    /// A tool server of your own, NAME=COMMAND (run with `sh -c`; `{cdp}` in it is the episode
    /// browser's CDP websocket URL), used as `--strategy mcp:NAME` with its --mcp-mapping. Repeatable.
    #[arg(long, value_name = "NAME=COMMAND")]
    mcp: Vec<String>,
    /// Which tools of server NAME snapshot, list and choose tabs, click, type, select, press and
    /// scroll (TOML; see harness/mcp-servers/playwright.toml). Replaces a shipped server's. Repeatable.
    #[arg(long, value_name = "NAME=FILE")]
    mcp_mapping: Vec<String>,
    /// The agent: `baseline`, `reader`, `openai:MODEL` or `anthropic:MODEL` (as for `run`).
    #[arg(long, default_value = "baseline")]
    agent: String,
    /// Judges: `rule` (the page's reward, always on) or `llm:openai:MODEL` / `llm:anthropic:MODEL`, which also
    /// judges every step (page before and after) and every episode, calibrated against the page's reward.
    #[arg(long, default_value = "rule")]
    judge: String,
    /// Episodes per task and strategy (default: one per seed the suite lists).
    #[arg(long)]
    episodes: Option<usize>,
    /// Seed of the first episode; episode i uses SEED + i − 1 (default: the suite's seeds).
    #[arg(long)]
    seed: Option<u64>,
    /// Step limit of every episode (default: each task's `max_steps`).
    #[arg(long)]
    max_steps: Option<usize>,
    /// Episodes run at once, each worker with its own browser.
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// Output folder: run.json, results.jsonl, results.csv, steps.csv, timings.csv, summary.json,
    /// report.md, report.html and traces/.
    #[arg(long, default_value = "reports/live")]
    out: PathBuf,
    /// Continue the run in --out: episodes already in results.jsonl are kept, the others run.
    #[arg(long)]
    resume: bool,
    #[command(flatten)]
    shard: super::flags::ShardArgs,
    #[command(flatten)]
    browser: super::flags::BrowserArgs,
    #[command(flatten)]
    dialogs: super::flags::DialogArgs,
    #[command(flatten)]
    uploads: super::flags::UploadArgs,
    /// No progress display on stderr.
    #[arg(long, short)]
    quiet: bool,
    #[command(flatten)]
    model: ModelArgs,
}

pub fn run(args: Args) -> Result<ExitCode> {
    if args.jobs == 0 {
        bail!("--jobs must be at least 1");
    }
    if args.episodes == Some(0) {
        bail!("--episodes must be at least 1");
    }
    if args.max_steps == Some(0) {
        bail!("--max-steps must be at least 1");
    }
    let external_timeout = args.external_timeout.unwrap_or(args.browser.timeout);
    if !(external_timeout.is_finite() && external_timeout > 0.0) {
        bail!("--external-timeout must be a positive number of seconds");
    }
    let strategies = super::flags::observers_named(
        &args.strategy,
        &args.external,
        Duration::from_secs_f64(external_timeout),
        Some(super::flags::PeerFlags {
            servers: &args.mcp,
            mappings: &args.mcp_mapping,
        }),
    )?;
    let mut path = args.suite.clone();
    if !path.exists() && path.extension().is_none() {
        path.set_extension("toml");
    }
    if path.is_file() && !suite::live::is_live(&path) {
        bail!(
            "{} is an offline suite (no `source` in its [suite]): run it with `pagesnap run --suite {}`",
            path.display(),
            path.display()
        );
    }
    args.browser.check()?;
    let shard = args.shard.resolve()?;
    let suite = suite::live::load(&path)?;
    // Held until the reports are written: nothing else writes into --out meanwhile.
    let _lock = crate::results::OutLock::acquire(&args.out)?;
    let options = args.model.options(&args.out)?;
    agent::check_cassette(&args.agent, &args.judge, &options)?;
    let agent = agent::by_name(&args.agent, &options)?;
    let judge = judge_named(&args.judge, &options)?;
    let config = live::Config {
        suite: &suite,
        suite_path: path.clone(),
        strategies,
        agent: agent.as_ref(),
        judge: judge.as_ref(),
        judge_spec: args.judge.clone(),
        episodes: args.episodes,
        seed: args.seed,
        max_steps: args.max_steps,
        jobs: args.jobs,
        out: args.out.clone(),
        resume: args.resume,
        progress: progress::Mode::detect(args.quiet),
        open: args.browser.open_options(),
        network: args.browser.network(Reach::Offline),
        dialogs: args.dialogs.dialogs,
        uploads: args.uploads.folder()?,
        shard,
        endpoints: args.browser.cdp_endpoint.clone(),
    };
    let outcome = live::run(&config)?;
    if outcome.resumed > 0 {
        eprintln!(
            "resumed: {} episodes already in results.jsonl",
            outcome.resumed
        );
    }
    let report = LiveReport::build(outcome.manifest, outcome.episodes);
    crate::report::live::write_all(&args.out, &report)?;
    println!(
        "{:<20} {:>8} {:>22} {:>22} {:>7} {:>11} {:>11}",
        "strategy", "episodes", "success rate", "mean reward", "steps", "obs tok/ep", "capture ms"
    );
    for s in &report.summaries {
        let rate = |e: &crate::report::metrics::Estimate| {
            format!("{:.3} [{:.3},{:.3}]", e.value, e.low, e.high)
        };
        println!(
            "{:<20} {:>8} {:>22} {:>22} {:>7.2} {:>11.0} {:>11.1}",
            s.strategy,
            s.episodes,
            rate(&s.success_rate),
            rate(&s.mean_reward),
            s.mean_steps,
            s.obs_tokens.mean,
            s.timing.capture_ms.median
        );
    }
    println!(
        "{} episodes; reports in {}",
        report.episodes.len(),
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}
