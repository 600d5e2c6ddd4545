//! `pagesnap run`: replay a task suite offline through observation strategies and an agent, then write the reports.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};

use crate::judge::llm::LlmJudge;
use crate::report::{self, metrics};
use crate::results::OutLock;
use crate::results::manifest::{self, Manifest};
use crate::variant::{Defaults, Variant};
use crate::{agent, progress, replay, suite};

/// Arguments of `pagesnap run`.
#[derive(clap::Args)]
pub struct Args {
    /// The suite (`suites/smoke.toml`; `.toml` may be left out).
    #[arg(long)]
    suite: PathBuf,
    /// Strategies (comma-separated; default: all).
    #[arg(long, value_delimiter = ',')]
    strategy: Vec<String>,
    /// The agent: `baseline` (embedded, deterministic, no network; reads the refs'
    /// meta), `reader` (the same, reading only the observation's text), `openai:MODEL`
    /// (OpenAI-compatible /v1/chat/completions: OpenAI, vLLM, Ollama, llama-server,
    /// OpenRouter) or `anthropic:MODEL` (Messages API).
    #[arg(long, default_value = "baseline")]
    agent: String,
    /// Judges: `rule` (ground truth, always on) or `llm:openai:MODEL` / `llm:anthropic:MODEL`, which also asks a
    /// model whether each step succeeded and reports its agreement with the rule judge (accuracy, Cohen's kappa).
    /// The judge uses the model-agent flags below (base URL, key variable, retries, cassette).
    #[arg(long, default_value = "rule")]
    judge: String,
    #[command(flatten)]
    model: ModelArgs,
    /// The old name of --model-timeout (kept for one release; `live` uses --timeout for the page).
    #[arg(long = "timeout", value_name = "SECS", hide = true)]
    legacy_timeout: Option<f64>,
    /// Output folder for run.json, results.jsonl, results.csv, timings.csv, summary.json, report.md and report.html.
    #[arg(long, default_value = "reports/latest")]
    out: PathBuf,
    /// Continue the run in --out: steps already in results.jsonl are skipped.
    #[arg(long)]
    resume: bool,
    /// Worker threads (tasks run in parallel; output order does not depend on it).
    #[arg(long, default_value_t = 2)]
    jobs: usize,
    #[command(flatten)]
    shard: super::flags::ShardArgs,
    /// Folder the suite's recordings are relative to (default: `fixtures/` beside the suite's folder).
    #[arg(long)]
    fixtures: Option<PathBuf>,
    /// For a suite with `[suite] pages`: where its pages are recorded at run time and
    /// reused from by later runs (default: `recordings/` in --out).
    #[arg(long)]
    recordings: Option<PathBuf>,
    /// Token budget of every observation (overrides the suite's `[suite] max_tokens`; a
    /// strategy's own `@N`, as in `--strategy aria@2000,aria@8000`, overrides both).
    #[arg(long, value_name = "N")]
    max_tokens: Option<usize>,
    /// Observe only the viewport (overrides the suite's `[suite] full_page`; `@viewport`/`@full` on
    /// a strategy override both).
    #[arg(long, conflicts_with = "full_page")]
    viewport_only: bool,
    /// Observe the whole page.
    #[arg(long)]
    full_page: bool,
    /// Show text no person can see (transparent, clipped, covered, …) instead of withholding it,
    /// in every strategy; `@hidden` on a strategy shows it in that one (`--strategy aria,aria@hidden`
    /// measures what withholding changes).
    #[arg(long)]
    show_hidden: bool,
    /// No progress display on stderr.
    #[arg(long, short)]
    quiet: bool,
}

/// How a model agent reaches its provider.
#[derive(clap::Args)]
#[command(next_help_heading = "Model agents")]
pub(super) struct ModelArgs {
    /// Provider base URL (default: $OPENAI_BASE_URL / $ANTHROPIC_BASE_URL, else the provider's API).
    #[arg(long)]
    base_url: Option<String>,
    /// Environment variable holding the API key (default: OPENAI_API_KEY / ANTHROPIC_API_KEY;
    /// unset is fine for local servers). The key never appears in any output.
    #[arg(long)]
    api_key_env: Option<String>,
    /// Timeout of one attempt, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 60.0)]
    model_timeout: f64,
    /// Retries after a 429, 5xx, timeout or connection error (exponential backoff with jitter;
    /// Retry-After honoured, capped at 60 s).
    #[arg(long, default_value_t = 4)]
    max_retries: u32,
    /// Backoff base in milliseconds: retry n waits up to base·2ⁿ.
    #[arg(long, default_value_t = 500)]
    retry_base_ms: u64,
    /// Requests in flight to one provider, across all --jobs.
    #[arg(long, default_value_t = 4)]
    concurrency: usize,
    /// Price table (TOML, USD per million tokens per provider:model) instead of the shipped one.
    #[arg(long)]
    prices: Option<PathBuf>,
    /// Record every model exchange to the cassette, or replay a run from it without network
    /// (a request not in the cassette stops the run).
    #[arg(long, value_enum)]
    cassette: Option<agent::cassette::Mode>,
    /// The cassette file (default: <out>/cassette.jsonl).
    #[arg(long)]
    cassette_file: Option<PathBuf>,
}

impl ModelArgs {
    pub(super) fn options(&self, out: &std::path::Path) -> Result<agent::AgentOptions> {
        if self.concurrency == 0 {
            bail!("--concurrency must be at least 1");
        }
        Ok(agent::AgentOptions {
            base_url: self.base_url.clone(),
            api_key_env: self.api_key_env.clone(),
            http: agent::http::HttpOptions {
                timeout: agent::llm::timeout(self.model_timeout)?,
                max_retries: self.max_retries,
                retry_base: std::time::Duration::from_millis(self.retry_base_ms),
                concurrency: self.concurrency,
            },
            prices: self.prices.clone(),
            cassette: self.cassette,
            cassette_file: self
                .cassette_file
                .clone()
                .unwrap_or_else(|| out.join("cassette.jsonl")),
        })
    }
}

/// The LLM judge `--judge` names (`rule`: none; the rule judge always runs).
pub(super) fn judge_named(spec: &str, options: &agent::AgentOptions) -> Result<Option<LlmJudge>> {
    match spec {
        "rule" => Ok(None),
        spec => match spec.strip_prefix("llm:") {
            Some(model) => Ok(Some(LlmJudge::new(agent::backend_from_spec(
                model, options,
            )?))),
            None => bail!(
                "unknown judge {spec:?} (known: rule, {})",
                agent::Provider::spellings("llm:")
            ),
        },
    }
}

pub fn run(args: Args) -> Result<ExitCode> {
    if args.jobs == 0 {
        bail!("--jobs must be at least 1");
    }
    let shard = args.shard.resolve()?;
    if args.max_tokens == Some(0) {
        bail!("--max-tokens must be a positive number");
    }
    let mut path = args.suite.clone();
    if !path.exists() && path.extension().is_none() {
        path.set_extension("toml");
    }
    if suite::live::is_live(&path) {
        bail!(
            "{} is a live suite (its [suite] has a `source`): run it with `pagesnap live --suite {}`",
            path.display(),
            path.display()
        );
    }
    let flags = Defaults {
        max_tokens: args.max_tokens,
        full_page: match (args.viewport_only, args.full_page) {
            (true, _) => Some(false),
            (_, true) => Some(true),
            _ => None,
        },
        show_hidden: args.show_hidden,
    };
    let defaults = flags.or(suite::observe_defaults(&path)?);
    let strategies = super::flags::variants_named(&args.strategy, defaults)?;
    let fixtures = args
        .fixtures
        .clone()
        .unwrap_or_else(|| suite::default_fixtures(&path));
    let cache = args
        .recordings
        .clone()
        .unwrap_or_else(|| args.out.join("recordings"));
    // Held until the reports are written: nothing else writes into --out meanwhile.
    let _lock = OutLock::acquire(&args.out)?;
    let mut model = args.model;
    if let Some(secs) = args.legacy_timeout {
        model.model_timeout = secs;
    }
    let options = model.options(&args.out)?;
    agent::check_cassette(&args.agent, &args.judge, &options)?;
    let agent = agent::by_name(&args.agent, &options)?;
    let judge = judge_named(&args.judge, &options)?;
    if args.resume && args.out.join(manifest::FILE).exists() {
        // Before any page is recorded: the folder must hold this same run.
        // The suite's tasks are checked once it is loaded (`replay::run`).
        let previous = Manifest::read(&args.out)?;
        let this = Manifest {
            suite: suite::name_of(&path)?,
            agent: agent.name(),
            strategies: strategies.iter().map(|s| s.name().to_owned()).collect(),
            variants: strategies.iter().map(Variant::info).collect(),
            shard,
            ..previous.clone()
        };
        this.check_resumes(&previous, &args.out)?;
    }
    // Recordings are decoded and analysed in parallel, on as many threads as --jobs.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs)
        .build()
        .context("could not start the worker threads")?;
    let suite = pool.install(|| suite::load(&path, &fixtures, Some(&cache)))?;
    let config = replay::Config {
        suite: &suite,
        strategies,
        agent: agent.as_ref(),
        out: args.out.clone(),
        resume: args.resume,
        jobs: args.jobs,
        suite_path: path.clone(),
        shard,
        progress: progress::Mode::detect(args.quiet),
        judge: judge.as_ref(),
    };
    let outcome = replay::run(&config)?;
    if outcome.resumed > 0 {
        eprintln!(
            "resumed: {} steps already in results.jsonl",
            outcome.resumed
        );
    }
    let report = report::Report::build(outcome.manifest, outcome.rows);
    report::write_all(&args.out, &report)?;
    println!(
        "{:<12} {:>5} {:>22} {:>22} {:>22} {:>9} {:>10}",
        "strategy", "steps", "target recall", "step SR", "task SR", "input tok", "engine µs"
    );
    for s in &report.summaries {
        let rate = |e: &metrics::Estimate| format!("{:.3} [{:.3},{:.3}]", e.value, e.low, e.high);
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
        report.rows.len(),
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}
