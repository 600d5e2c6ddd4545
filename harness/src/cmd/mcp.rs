//! `pagesnap mcp`: serve the page tools over MCP (stdio, or Streamable HTTP with `--port`), on a Chromium pagesnap launches or one it attaches to (`--cdp-endpoint`).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Result, bail};
use pagesnap_browser::Chromium;

use super::flags::{BrowserArgs, Reach, strategy_named};
use pagesnap_mcp::layers::Layers;
use pagesnap_mcp::secrets::Secrets;
use pagesnap_mcp::{Config, Transport};

#[derive(clap::Args)]
#[command(
    after_help = "Tools: page_navigate {url}, page_snapshot {strategy?, full_page?, max_tokens?, layers?, ref?}, \
page_find {text | regex}, page_scroll {direction, screens?, ref?}, page_action {ref?, op, value?, to?, paths?}, \
page_fill {fields}, page_wait {text | gone | ms}, page_click_at {x, y}, page_dialog {accept, text?}, page_back {brief?}, \
page_tabs {op, id?}.\n\nExamples:\n  \
pagesnap mcp                                   # stdio, its own headless Chromium\n  \
pagesnap mcp --port 8931                       # Streamable HTTP: each session its own browser context\n  \
pagesnap mcp --cdp-endpoint http://127.0.0.1:9222   # observe and act on a browser someone else runs
  pagesnap mcp --cdp-endpoint http://127.0.0.1:9222 --observe-only   # only observe it (BrowserGym)

Attached (--cdp-endpoint, one endpoint), the server observes the browser's first tab until told otherwise (page_tabs), opens and closes only its own tabs, and never closes the browser."
)]
pub struct Args {
    /// Serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio (0: any free port, printed on stderr).
    #[arg(long, value_name = "PORT")]
    port: Option<u16>,
    /// The address to bind with --port (default 127.0.0.1; anything else exposes the browser to that network).
    #[arg(
        long,
        value_name = "HOST",
        default_value = "127.0.0.1",
        requires = "port"
    )]
    host: String,
    /// With --port: an Origin allowed besides localhost/127.0.0.1 (e.g. `https://app.example:*`); requests
    /// from any other Origin are refused with 403. Repeatable.
    #[arg(long, value_name = "ORIGIN", requires = "port")]
    allowed_origin: Vec<String>,
    /// With --port: every session browses in the browser's default context, sharing its cookies, storage,
    /// tabs and current tab (one agent on several connections). Without it each session gets a browser
    /// context of its own, closed when the session ends.
    #[arg(long, requires = "port")]
    shared_context: bool,
    /// With --port: at most N sessions open at once; a new one beyond is refused (HTTP 503, saying why).
    #[arg(long, value_name = "N", requires = "port", value_parser = clap::value_parser!(usize))]
    max_sessions: Option<usize>,
    /// With --port: a session with no request for SECS is closed, its browser context and tabs with it.
    #[arg(long, value_name = "SECS", default_value_t = 300.0, requires = "port", value_parser = super::flags::parse_seconds)]
    idle_timeout: f64,
    /// The strategy page_snapshot and every action result use unless a call names another:
    /// aria, flat, structural, som, html-pruned or html.
    #[arg(long, default_value = "aria")]
    strategy: String,
    /// Known secrets (dotenv: NAME=value per line): shown as <secret:NAME> in every result, and typed by
    /// the server when a page_action value says {secret:NAME} (the value is never echoed).
    #[arg(long, value_name = "FILE")]
    secrets: Option<PathBuf>,
    /// Named layers (TOML: `default = ["content"]` and `[layers.content] selectors = ["#content"]`) that
    /// page_snapshot's `layers` argument names; the default layers apply when a call names none.
    #[arg(long, value_name = "FILE")]
    layers_config: Option<PathBuf>,
    /// Let page_navigate open file:// URLs (refused by default: they read this machine's files).
    #[arg(long)]
    allow_file_urls: bool,
    /// Capture the page for every snapshot. By default a snapshot of a page that has not changed since
    /// the last capture (no DOM edit, form value, scroll, resize, focus change, load or running
    /// animation; no shadow roots or frames) renders that capture again, and says so in
    /// freshness.reused.
    #[arg(long)]
    always_capture: bool,
    /// Only observe the browser someone else drives (needs --cdp-endpoint): page_snapshot, page_find
    /// and page_tabs list/select are offered, nothing else; no tab is opened, closed or brought to the
    /// front, no dialog answered, nothing installed in the page (every snapshot captures anew). For a
    /// harness such as BrowserGym that must see the same episode with and without pagesnap.
    #[arg(long, requires = "cdp_endpoint")]
    observe_only: bool,
    #[command(flatten)]
    browser: BrowserArgs,
    #[command(flatten)]
    dialogs: super::flags::DialogArgs,
    #[command(flatten)]
    uploads: super::flags::UploadArgs,
    #[command(flatten)]
    downloads: super::flags::DownloadArgs,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let strategy = strategy_named(&args.strategy)?;
    let secrets = match &args.secrets {
        Some(path) => Secrets::load(path)?,
        None => Secrets::default(),
    };
    let layers = match &args.layers_config {
        Some(path) => Layers::load(path)?,
        None => Layers::default(),
    };
    args.browser.check()?;
    let uploads = args.uploads.folder()?;
    if args.observe_only && args.dialogs.dialogs != pagesnap_browser::DialogPolicy::Ask {
        bail!(
            "--observe-only answers no dialog: --dialogs {} would",
            args.dialogs.dialogs
        );
    }
    if args.observe_only && args.downloads.given() {
        bail!(
            "--observe-only sets nothing in the browser: --download-dir and --no-downloads would"
        );
    }
    let downloads = args
        .downloads
        .policy(!args.browser.cdp_endpoint.is_empty())?;
    if args.browser.cdp_endpoint.len() > 1 {
        bail!("--cdp-endpoint: the tool server drives one browser; give one endpoint");
    }
    let transport = match args.port {
        None => Transport::Stdio,
        Some(port) => Transport::Http {
            host: args.host.clone(),
            port,
            allowed_origins: args.allowed_origin.clone(),
            max_sessions: args.max_sessions,
            idle_timeout: std::time::Duration::from_secs_f64(args.idle_timeout),
        },
    };
    let config = Config {
        strategy,
        open: args.browser.open_options(),
        network: args.browser.network(Reach::Web),
        layers,
        secrets,
        allow_file_urls: args.allow_file_urls,
        reuse_captures: !args.always_capture,
        observe_only: args.observe_only,
    };
    pagesnap_browser::runtime()?.block_on(async {
        let chromium = Chromium::start(
            args.browser.browser_for(0),
            args.browser.network(Reach::Web),
        )
        .await?
        .with_dialogs(args.dialogs.dialogs)
        .with_upload_dir(uploads);
        chromium.set_downloads(downloads).await?;
        eprintln!(
            "pagesnap mcp: {} {}",
            if chromium.attached() {
                "attached to"
            } else {
                "launched"
            },
            chromium.version()
        );
        pagesnap_mcp::serve(chromium, config, transport, args.shared_context).await
    })?;
    Ok(ExitCode::SUCCESS)
}
