//! `pagesnap snapshot`: render one recording, or observe one live page, through one strategy (and `pagesnap strategies` to list them).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use pagesnap_engine::observation::Observation;
use pagesnap_engine::strategy::{Layer, Options, STRATEGIES, Strategy};

use super::flags::Reach;
use crate::external::Program;
use crate::{observe, store};
use pagesnap_browser::{Chromium, Needs};

/// Arguments of `pagesnap snapshot`.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
pagesnap snapshot fixtures/login/initial.json.gz --strategy flat\n  \
pagesnap snapshot fixtures/sites/login/index.html --strategy aria        (live: launch, load, observe)\n  \
pagesnap snapshot http://127.0.0.1:8000/ --strategy som --out /tmp/som --save /tmp/rec")]
pub struct Args {
    /// A recording (`.json.gz`), or a page to observe live: a local .html file or a URL.
    target: String,
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
    /// Also show text no person can see (transparent, clipped, covered, too small or faint to
    /// read), as the DOM holds it; by default it is withheld and counted in the meta's `withheld`.
    #[arg(long)]
    show_hidden: bool,
    /// Print the JSON meta instead of the text.
    #[arg(long)]
    meta: bool,
    /// Write text, meta and (for `som`) the PNG into this directory.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Live: also keep the recording (with its screenshot and Chromium's accessibility tree) in this
    /// directory, as `<page>.json.gz` + `<page>.png`.
    #[arg(long, value_name = "DIR")]
    save: Option<PathBuf>,
    /// How a live page is opened (ignored for a recording).
    #[command(flatten)]
    browser: super::flags::BrowserArgs,
    /// An external strategy program, NAME=COMMAND (run with `sh -c`), observed with `--strategy ext:NAME`.
    #[arg(long, value_name = "NAME=COMMAND")]
    external: Vec<String>,
}

/// Whether `target` names a stored recording rather than a page to load.
fn is_recording(target: &str) -> bool {
    target.ends_with(".json.gz") && !target.contains("://")
}

/// Launches Chromium, loads the page, observes it once (keeping the
/// recording with `--save`) and closes the browser.
async fn live(args: &Args, strategy: &dyn Strategy, options: &Options<'_>) -> Result<Observation> {
    let chromium = Chromium::start(
        args.browser.browser_for(0),
        args.browser.network(Reach::Web),
    )
    .await?;
    let result = async {
        let session = chromium
            .open(&args.target, &args.browser.open_options())
            .await
            .map_err(crate::flag_hints::with_flags)?;
        let needs = if args.save.is_some() {
            Needs::RECORD
        } else {
            Needs::observe(strategy)
        };
        let live = session.observe_with(strategy, options, needs).await;
        session.close().await;
        let live = live?;
        if let Some(dir) = &args.save {
            let stem = dir.join(saved_name(&args.target));
            let screenshot = live
                .captured
                .screenshot
                .as_deref()
                .context("internal: --save captured no screenshot")?;
            let (path, _) = store::write(&stem, &live.captured.recording, screenshot)?;
            eprintln!("saved {}", path.display());
        }
        Ok(live.observation)
    }
    .await;
    chromium.close().await?;
    result
}

/// `page` for `…/page.html`; the host for a URL (`127.0.0.1_8000`).
fn saved_name(target: &str) -> String {
    if let Some((_, rest)) = target.split_once("://") {
        let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
        let name: String = host
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        return if name.is_empty() {
            "page".to_owned()
        } else {
            name
        };
    }
    Path::new(target)
        .file_stem()
        .map_or_else(|| "page".to_owned(), |s| s.to_string_lossy().into_owned())
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
        println!("{:<20} {}", s.name(), s.summary());
    }
    for (name, _, summary) in crate::external::ADAPTERS {
        println!(
            "{:<20} (external; a live page only) {summary}",
            format!("{}{name}", crate::external::PREFIX)
        );
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

/// `--strategy ext:NAME`: the external program observes the live page once;
/// its refs are resolved on pagesnap's capture of the same state.
fn external(args: &Args) -> Result<Observation> {
    if is_recording(&args.target) {
        bail!(
            "{}: {} is an external strategy and needs a live page (an .html file or a URL), not a recording",
            args.target,
            args.strategy
        );
    }
    let refused = [
        (args.max_tokens.is_some(), "--max-tokens"),
        (args.full_page, "--full-page"),
        (args.viewport_only, "--viewport-only"),
        (args.previous.is_some(), "--previous"),
        (
            !args.layers.is_empty() || !args.active_layers.is_empty(),
            "--layer/--layers",
        ),
        (args.no_redact, "--no-redact"),
        (args.save.is_some(), "--save"),
    ];
    if let Some((_, flag)) = refused.iter().find(|(given, _)| *given) {
        bail!(
            "{flag} shapes pagesnap's own strategies; {} observes with its own program",
            args.strategy
        );
    }
    let observer = super::flags::observers_named(
        std::slice::from_ref(&args.strategy),
        &args.external,
        args.browser.timeout(),
        None,
    )?;
    let Some(external) = observer.first().and_then(|o| o.external()).cloned() else {
        bail!("{}: not an external strategy", args.strategy);
    };
    pagesnap_browser::runtime()?.block_on(async {
        let chromium = Chromium::start(
            args.browser.browser_for(0),
            args.browser.network(Reach::Web),
        )
        .await?;
        let result = async {
            let session = chromium
                .open(&args.target, &args.browser.open_options())
                .await
                .map_err(crate::flag_hints::with_flags)?;
            let mut program = Program::new(external, chromium.websocket_url());
            let observed = crate::external::observe(
                &mut program,
                &session,
                chromium.websocket_url(),
                1,
                args.browser.viewport.pair(),
            )
            .await;
            program.stop().await;
            session.close().await;
            observed.map(|o| o.observation)
        }
        .await;
        chromium.close().await?;
        result
    })
}

pub fn run(args: Args) -> Result<ExitCode> {
    args.browser.check()?;
    if crate::external::is_external(&args.strategy) {
        let observation = external(&args)?;
        return print(&args, &args.strategy.replace(':', "-"), &observation);
    }
    let found = super::flags::strategy_named(&args.strategy)?;
    let layers = parse_layers(&args.layers)?;
    let full_page = if args.full_page {
        Some(true)
    } else if args.viewport_only {
        Some(false)
    } else {
        None
    };
    let base = Options {
        full_page,
        max_tokens: args.max_tokens,
        layers,
        active_layers: args.active_layers.clone(),
        previous: None,
        redact: !args.no_redact,
        show_hidden: args.show_hidden,
        screenshot: None,
    };
    let recorded = |path: &Path, previous: Option<&Observation>| -> Result<Observation> {
        let loaded = store::load(path)?;
        let analysed = observe::analyze(&loaded.recording);
        observe::render(
            &analysed.page,
            found,
            &Options {
                screenshot: loaded.screenshot.as_deref(),
                previous,
                ..base.clone()
            },
        )
        .observation
        .with_context(|| format!("{}: strategy {}", path.display(), found.name()))
    };
    let previous = args
        .previous
        .as_deref()
        .map(|p| recorded(p, None))
        .transpose()?;
    let observation = if is_recording(&args.target) {
        recorded(Path::new(&args.target), previous.as_ref())?
    } else {
        if args.save.is_none() && args.target.ends_with(".gz") {
            bail!(
                "{}: recordings end in .json.gz; a live page is an .html file or a URL",
                args.target
            );
        }
        pagesnap_browser::runtime()?.block_on(live(
            &args,
            found,
            &Options {
                previous: previous.as_ref(),
                ..base.clone()
            },
        ))?
    };
    print(&args, found.name(), &observation)
}

/// Prints the text (or with `--meta` the meta) and writes `--out`'s files as `<name>.txt`, … .
fn print(args: &Args, name: &str, observation: &Observation) -> Result<ExitCode> {
    let meta = serde_json::to_string_pretty(&observation.meta)?;
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("could not create {}", dir.display()))?;
        let stem = dir.join(name);
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
