//! `pagesnap compare`: every strategy on every recording, side by side — refs, real tokens, image tokens, engine time.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use pagesnap_engine::strategy::{Options, Strategy};
use rayon::prelude::*;
use serde::Serialize;

use crate::tokens::ObservationSize;
use crate::{observe, store};

/// Arguments of `pagesnap compare`.
#[derive(clap::Args)]
pub struct Args {
    /// Recordings (`.json.gz`) or folders holding them.
    #[arg(required = true)]
    recordings: Vec<PathBuf>,
    /// Strategies to compare (comma-separated; default: all).
    #[arg(long, value_delimiter = ',')]
    strategy: Vec<String>,
    /// Show the whole page where a strategy allows it.
    #[arg(long)]
    full_page: bool,
    /// Timing runs per recording and strategy (the median is reported).
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Print JSON rows instead of a table.
    #[arg(long)]
    json: bool,
    /// Recordings measured at once (default: one per core). Rows keep the input order.
    #[arg(long)]
    jobs: Option<usize>,
}

/// One recording × strategy.
#[derive(Serialize)]
pub struct Row {
    /// Recording path.
    pub recording: String,
    /// Strategy.
    pub strategy: String,
    /// Refs in the observation.
    pub refs: usize,
    /// Text tokens, o200k_base.
    pub o200k: usize,
    /// Text tokens, cl100k_base.
    pub cl100k: usize,
    /// Image tokens (OpenAI formula), `som` only.
    pub image_tokens: u32,
    /// Median engine time in µs: page build + analysis + render.
    pub engine_us: u128,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let chosen = super::flags::strategies_named(&args.strategy)?;
    if args.runs == 0 {
        bail!("--runs must be at least 1");
    }
    let paths = store::find_recordings(&args.recordings)?;
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from));
    if jobs == 0 {
        bail!("--jobs must be at least 1");
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .context("could not start the worker threads")?;
    // One recording per task; rows come back in input order.
    let per_page: Vec<Result<Vec<Row>>> = pool.install(|| {
        paths
            .par_iter()
            .map(|path| measure(path, &chosen, &args))
            .collect()
    });
    let mut rows = Vec::new();
    for page in per_page {
        rows.extend(page?);
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        println!(
            "{:<48} {:<12} {:>5} {:>8} {:>8} {:>6} {:>9}",
            "recording", "strategy", "refs", "o200k", "cl100k", "image", "engine µs"
        );
        for r in &rows {
            let name = r.recording.trim_end_matches(".json.gz");
            let name = name.strip_prefix("fixtures/").unwrap_or(name);
            println!(
                "{:<48} {:<12} {:>5} {:>8} {:>8} {:>6} {:>9}",
                name, r.strategy, r.refs, r.o200k, r.cl100k, r.image_tokens, r.engine_us
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Every chosen strategy on one recording.
fn measure(path: &Path, chosen: &[&'static dyn Strategy], args: &Args) -> Result<Vec<Row>> {
    let loaded = store::load(path)?;
    let mut rows = Vec::new();
    for s in chosen {
        let options = Options {
            full_page: args.full_page.then_some(true),
            screenshot: loaded.screenshot.as_deref(),
            ..Options::default()
        };
        let mut times = Vec::with_capacity(args.runs);
        let mut last = None;
        for _ in 0..args.runs {
            // What one observation costs from a decoded recording:
            // page build and analysis included, as an agent step pays them.
            let analysed = observe::analyze(&loaded.recording);
            let rendered = observe::render(&analysed.page, *s, &options);
            let observation = rendered
                .observation
                .with_context(|| format!("{}: strategy {}", path.display(), s.name()))?;
            times.push((analysed.elapsed + rendered.elapsed).as_micros());
            last = Some(observation);
        }
        times.sort_unstable();
        let Some(observation) = last else { continue };
        let size = ObservationSize::of(&observation);
        rows.push(Row {
            recording: path.display().to_string(),
            strategy: s.name().to_owned(),
            refs: size.refs,
            o200k: size.o200k,
            cl100k: size.cl100k,
            image_tokens: size.image,
            engine_us: times[times.len() / 2],
        });
    }
    Ok(rows)
}
