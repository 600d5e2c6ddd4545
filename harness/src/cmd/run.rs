//! `pagesnap run`: replay a task suite offline through observation strategies and an agent, then write the reports.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use pagesnap_engine::strategy::{self, STRATEGIES};

use crate::{agent, run, suite};

/// Arguments of `pagesnap run`.
#[derive(clap::Args)]
pub struct Args {
    /// The suite (`suites/smoke.toml`; `.toml` may be left out).
    #[arg(long)]
    suite: PathBuf,
    /// Strategies (comma-separated; default: all).
    #[arg(long, value_delimiter = ',')]
    strategy: Vec<String>,
    /// The agent: `baseline` (embedded, deterministic, no network).
    #[arg(long, default_value = "baseline")]
    agent: String,
    /// Output folder for run.json, results.jsonl, results.csv, timings.csv, summary.json, report.md and report.html.
    #[arg(long, default_value = "reports/latest")]
    out: PathBuf,
    /// Continue the run in --out: steps already in results.jsonl are skipped.
    #[arg(long)]
    resume: bool,
    /// Worker threads (tasks run in parallel; output order does not depend on it).
    #[arg(long, default_value_t = 2)]
    jobs: usize,
    /// Run only shard K of N: the tasks whose 0-based suite index i has i % N == K-1 (join with `pagesnap merge`).
    #[arg(long, value_name = "K/N")]
    shard: Option<run::manifest::Shard>,
    /// Folder the suite's recordings are relative to (default: `fixtures/` beside the suite's folder).
    #[arg(long)]
    fixtures: Option<PathBuf>,
    /// For a suite with `[suite] pages`: where its pages are recorded at run time and
    /// reused from by later runs (default: `recordings/` in --out).
    #[arg(long)]
    recordings: Option<PathBuf>,
    /// No progress display on stderr.
    #[arg(long, short)]
    quiet: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let strategies: Vec<&'static dyn strategy::Strategy> = if args.strategy.is_empty() {
        STRATEGIES.to_vec()
    } else {
        args.strategy
            .iter()
            .map(|name| {
                strategy::by_name(name).with_context(|| {
                    let known: Vec<&str> = STRATEGIES.iter().map(|s| s.name()).collect();
                    format!("unknown strategy {name:?} (known: {})", known.join(", "))
                })
            })
            .collect::<Result<_>>()?
    };
    if args.jobs == 0 {
        bail!("--jobs must be at least 1");
    }
    let mut path = args.suite.clone();
    if !path.exists() && path.extension().is_none() {
        path.set_extension("toml");
    }
    let fixtures = args
        .fixtures
        .clone()
        .unwrap_or_else(|| suite::default_fixtures(&path));
    let cache = args
        .recordings
        .clone()
        .unwrap_or_else(|| args.out.join("recordings"));
    let suite = suite::load(&path, &fixtures, Some(&cache))?;
    let agent = agent::by_name(&args.agent)?;
    let config = run::Config {
        suite: &suite,
        strategies,
        agent: agent.as_ref(),
        out: args.out.clone(),
        resume: args.resume,
        jobs: args.jobs,
        suite_path: path.clone(),
        shard: args.shard,
        progress: run::progress::Mode::detect(args.quiet),
    };
    let outcome = run::run(&config)?;
    if outcome.resumed > 0 {
        eprintln!(
            "resumed: {} steps already in results.jsonl",
            outcome.resumed
        );
    }
    println!(
        "{:<12} {:>5} {:>22} {:>22} {:>22} {:>9} {:>10}",
        "strategy", "steps", "target recall", "step SR", "task SR", "input tok", "engine µs"
    );
    for s in &outcome.summaries {
        let rate =
            |e: &run::metrics::Estimate| format!("{:.3} [{:.3},{:.3}]", e.value, e.low, e.high);
        println!(
            "{:<12} {:>5} {:>22} {:>22} {:>22} {:>9.0} {:>10.0}",
            s.strategy,
            s.steps,
            rate(&s.target_recall),
            rate(&s.step_success),
            rate(&s.task_success),
            s.mean_input_tokens,
            s.timing.mean_engine_us
        );
    }
    println!(
        "{} rows; reports in {}",
        outcome.rows.len(),
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}
