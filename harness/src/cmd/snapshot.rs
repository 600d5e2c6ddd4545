//! `pagesnap snapshot`: render one recording through one strategy (and `pagesnap strategies` to list them).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use pagesnap_engine::observation::Observation;
use pagesnap_engine::strategy::{Layer, Options, STRATEGIES};

use crate::{observe, store};

/// Arguments of `pagesnap snapshot`.
#[derive(clap::Args)]
pub struct Args {
    /// The recording (`.json.gz`).
    recording: PathBuf,
    /// Strategy name (see `pagesnap strategies`).
    #[arg(long, short, default_value = "aria")]
    strategy: String,
    /// Token budget: drop the least useful content first, with a notice saying what was dropped.
    #[arg(long)]
    max_tokens: Option<usize>,
    /// Show the whole page (default depends on the strategy).
    #[arg(long, conflicts_with = "viewport_only")]
    full_page: bool,
    /// Show only what is inside the viewport.
    #[arg(long)]
    viewport_only: bool,
    /// A previous recording of the same page: refs stay stable and new elements are marked.
    #[arg(long)]
    previous: Option<PathBuf>,
    /// Define a layer: NAME=SELECTOR[,SELECTOR…] (repeatable).
    #[arg(long = "layer", value_name = "NAME=SELECTORS")]
    layers: Vec<String>,
    /// Show only these layers (comma-separated ids); unknown ids are an error.
    #[arg(long = "layers", value_delimiter = ',')]
    active_layers: Vec<String>,
    /// Show secrets (passwords, tokens, card numbers). Redaction is on by default.
    #[arg(long)]
    no_redact: bool,
    /// Print the JSON meta instead of the text.
    #[arg(long)]
    meta: bool,
    /// Write text, meta and (for `som`) the PNG into this directory.
    #[arg(long)]
    out: Option<PathBuf>,
}

/// Arguments of `pagesnap strategies`.
#[derive(clap::Args)]
pub struct StrategiesArgs {
    /// Print the full documentation of one strategy.
    #[arg(long)]
    explain: Option<String>,
}

pub fn strategies(args: StrategiesArgs) -> Result<ExitCode> {
    if let Some(name) = args.explain {
        println!("{}", super::flags::strategy_named(&name)?.explain());
        return Ok(ExitCode::SUCCESS);
    }
    for s in STRATEGIES {
        println!("{:<12} {}", s.name(), s.summary());
    }
    Ok(ExitCode::SUCCESS)
}

fn parse_layers(specs: &[String]) -> Result<Vec<Layer>> {
    specs
        .iter()
        .map(|spec| {
            let (name, selectors) = spec
                .split_once('=')
                .with_context(|| format!("--layer {spec:?}: expected NAME=SELECTOR[,SELECTOR…]"))?;
            Ok(Layer {
                name: name.trim().to_owned(),
                selectors: selectors
                    .split(',')
                    .map(|s| s.trim().to_owned())
                    .filter(|s| !s.is_empty())
                    .collect(),
            })
        })
        .collect()
}

pub fn run(args: Args) -> Result<ExitCode> {
    let found = super::flags::strategy_named(&args.strategy)?;
    let layers = parse_layers(&args.layers)?;
    let full_page = if args.full_page {
        Some(true)
    } else if args.viewport_only {
        Some(false)
    } else {
        None
    };
    let observe = |path: &Path, previous: Option<&Observation>| -> Result<Observation> {
        let loaded = store::load(path)?;
        let options = Options {
            full_page,
            max_tokens: args.max_tokens,
            layers: layers.clone(),
            active_layers: args.active_layers.clone(),
            previous,
            redact: !args.no_redact,
            screenshot: loaded.screenshot.as_deref(),
        };
        let analysed = observe::analyze(&loaded.recording);
        observe::render(&analysed.page, found, &options)
            .observation
            .with_context(|| format!("{}: strategy {}", path.display(), found.name()))
    };
    let previous = args
        .previous
        .as_deref()
        .map(|p| observe(p, None))
        .transpose()?;
    let observation = observe(&args.recording, previous.as_ref())?;
    let meta = serde_json::to_string_pretty(&observation.meta)?;
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("could not create {}", dir.display()))?;
        let stem = dir.join(found.name());
        std::fs::write(stem.with_extension("txt"), &observation.text)?;
        std::fs::write(stem.with_extension("meta.json"), &meta)?;
        if let Some(image) = &observation.image {
            std::fs::write(stem.with_extension("png"), &image.png)?;
        }
    }
    if args.meta {
        println!("{meta}");
    } else {
        print!("{}", observation.text);
    }
    Ok(ExitCode::SUCCESS)
}
