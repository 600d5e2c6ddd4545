//! `pagesnap bench-hidden`: which hidden sentences of a page family reach the text the model reads, and which visible tokens it shows, per pagesnap strategy (viewport and full page) and per tool server; a table on stdout, every token per row with `--json PATH`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use pagesnap_engine::strategy::{STRATEGIES, Strategy};

use super::flags::Viewport;
use crate::bench::hidden::{self, Config, Family, Markers, Outcome, Report, Row, Status};

/// The raw baseline left out: it is the document as it is, every token in it.
const RAW: &str = "html";

/// Arguments of `pagesnap bench-hidden`.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
pagesnap bench-hidden\n  \
pagesnap bench-hidden fixtures/sites/hidden_text --json /tmp/hidden.json\n  \
pagesnap bench-hidden --strategy flat,aria --no-servers\n\n\
The folder's markers.toml names the pages and declares every token on them: visible ones (VM-…) \
a person sees, and hidden ones (HT-…), each carried by an injected instruction drawn so that no \
person can see it. The pages are served over http://127.0.0.1 (a cross-site frame from the \
server's other host name, localhost). Strategies observe one capture of each page in a headless \
Chromium launched offline, with full_page false and true; the raw `html` strategy is left out (it \
is the document as it is, by design). Servers are started as bench-mcp starts them and asked for \
their snapshot tool's answer after their navigation, as an agent calls it; one that is not \
installed is skipped. A token counts when its whole word is in the text the model reads.")]
pub struct Args {
    /// The page family: a folder holding the pages and their markers.toml.
    #[arg(default_value = "fixtures/sites/hidden_text")]
    folder: PathBuf,
    /// pagesnap strategies, comma-separated (default: every one but the raw `html`).
    #[arg(long, short, value_name = "NAME[,NAME…]", value_delimiter = ',')]
    strategy: Vec<String>,
    /// Tool servers, comma-separated, with or without `mcp:`: pagesnap (`pagesnap mcp`),
    /// playwright (Playwright MCP), chrome-devtools (Chrome DevTools MCP), agent-browser.
    #[arg(
        long = "server",
        value_name = "NAME[,NAME…]",
        value_delimiter = ',',
        default_value = "pagesnap,playwright,chrome-devtools,agent-browser"
    )]
    servers: Vec<String>,
    /// Measure pagesnap's strategies only.
    #[arg(long)]
    no_servers: bool,
    /// `pagesnap mcp --strategy`: what its page_snapshot renders.
    #[arg(long, value_name = "NAME", default_value = "aria")]
    mcp_strategy: String,
    /// Browser viewport of every strategy and server, WIDTHxHEIGHT.
    #[arg(long, default_value_t = Viewport::default(), value_parser = Viewport::parse)]
    viewport: Viewport,
    /// Seconds a page load, or one tool call, may take.
    #[arg(long, value_name = "SECS", default_value = "60", value_parser = super::flags::parse_seconds)]
    timeout: f64,
    /// Also write the report, every token per row, as JSON to this file.
    #[arg(long, value_name = "PATH")]
    json: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let markers = Markers::load(&args.folder)?;
    let strategies = strategies(&args.strategy)?;
    super::flags::strategy_named(&args.mcp_strategy)?;
    let servers = if args.no_servers {
        Vec::new()
    } else {
        hidden::servers_named(&args.servers)?
    };
    let config = Config {
        folder: args.folder.clone(),
        markers,
        strategies,
        servers,
        mcp_strategy: args.mcp_strategy,
        viewport: args.viewport.pair(),
        timeout: Duration::from_secs_f64(args.timeout),
    };
    let report = pagesnap_browser::runtime()?.block_on(hidden::run(&config, |row| {
        let state = match &row.status {
            Status::Measured => "measured",
            Status::Skipped { .. } => "skipped",
            Status::Failed { .. } => "failed",
        };
        eprintln!("{} {}: {state}", row.observer, row.scope.name());
    }))?;
    print_report(&report, &config.markers);
    if let Some(path) = &args.json {
        let json = serde_json::to_string_pretty(&report).context("the report as JSON")?;
        std::fs::write(path, json + "\n")
            .with_context(|| format!("could not write {}", path.display()))?;
    }
    let failed_rows = report
        .rows
        .iter()
        .filter(|r| matches!(r.status, Status::Failed { .. }))
        .count();
    let failed_pages = report.failed_pages();
    if failed_rows > 0 || failed_pages > 0 {
        eprintln!(
            "{failed_rows} rows could not be measured, {failed_pages} pages failed on measured rows"
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// The strategies `--strategy` names (none: all but the raw `html`); the
/// raw one is refused, naming why.
fn strategies(names: &[String]) -> Result<Vec<&'static dyn Strategy>> {
    if names.is_empty() {
        return Ok(STRATEGIES
            .iter()
            .copied()
            .filter(|s| s.name() != RAW)
            .collect());
    }
    let chosen = super::flags::strategies_named(names)?;
    if chosen.iter().any(|s| s.name() == RAW) {
        bail!(
            "--strategy {RAW}: the raw HTML baseline is the document as it is, by design, so every \
             hidden token is in it; bench-hidden measures the strategies that decide what to show"
        );
    }
    Ok(chosen)
}

const WIDTHS: [usize; 4] = [22, 10, 18, 15];

/// The table: one line per row, then which visible tokens each row lost and
/// which hidden ones reached it, by family.
fn print_report(report: &Report, markers: &Markers) {
    let visible = markers.markers.iter().filter(|m| m.visible).count();
    println!(
        "{}: {} pages ({}), {visible} visible tokens, {} hidden; viewport {}x{}",
        report.folder,
        report.pages.len(),
        report.pages.join(", "),
        markers.markers.len() - visible,
        report.viewport[0],
        report.viewport[1]
    );
    for row in report.rows.iter() {
        if let Some(version) = &row.version {
            println!("{}: {version}", row.observer);
        }
    }
    let [w_observer, w_scope, w_visible, w_hidden] = WIDTHS;
    print!(
        "{:<w_observer$} {:<w_scope$} {:<w_visible$} {:<w_hidden$}",
        "observer", "scope", "visible shown", "hidden reached"
    );
    for family in Family::HIDDEN {
        print!(" {:<11}", family.name());
    }
    println!();
    for row in &report.rows {
        print_row(row);
    }
    let lost: Vec<&Row> = report
        .rows
        .iter()
        .filter(|r| r.with_outcome(Outcome::Lost).next().is_some())
        .collect();
    if !lost.is_empty() {
        println!();
        println!("visible tokens lost:");
        for row in lost {
            let tokens: Vec<&str> = row
                .with_outcome(Outcome::Lost)
                .map(|t| t.token.as_str())
                .collect();
            println!("  {}: {}", label(row), tokens.join(", "));
        }
    }
    let reached: Vec<&Row> = report
        .rows
        .iter()
        .filter(|r| r.with_outcome(Outcome::Reached).next().is_some())
        .collect();
    if !reached.is_empty() {
        println!();
        println!("hidden tokens reached, by family:");
        for row in reached {
            let families: Vec<String> = Family::HIDDEN
                .iter()
                .filter_map(|family| {
                    let tokens: Vec<&str> = row
                        .with_outcome(Outcome::Reached)
                        .filter(|t| t.family == *family)
                        .map(|t| t.token.as_str())
                        .collect();
                    (!tokens.is_empty()).then(|| format!("{} {}", family.name(), tokens.join(" ")))
                })
                .collect();
            println!("  {}: {}", label(row), families.join("; "));
        }
    }
    for row in &report.rows {
        for error in &row.errors {
            println!("  {}: error: {}", label(row), error.error);
        }
    }
}

fn label(row: &Row) -> String {
    format!("{} {}", row.observer, row.scope.name())
}

fn print_row(row: &Row) {
    let [w_observer, w_scope, w_visible, w_hidden] = WIDTHS;
    print!(
        "{:<w_observer$} {:<w_scope$}",
        row.observer,
        row.scope.name()
    );
    let counts = match (&row.status, &row.counts) {
        (Status::Measured, Some(counts)) => counts,
        (Status::Skipped { why }, _) => {
            println!(" skipped: {why}");
            return;
        }
        (Status::Failed { why }, _) => {
            println!(" failed: {why}");
            return;
        }
        (Status::Measured, None) => {
            println!(" -");
            return;
        }
    };
    let v = &counts.visible;
    let mut visible = format!("{}/{}", v.shown, v.expected());
    if v.out_of_view > 0 {
        visible.push_str(&format!(" +{} below", v.out_of_view));
    }
    let h = &counts.hidden;
    print!(
        " {visible:<w_visible$} {:<w_hidden$}",
        format!("{}/{}", h.reached, h.measured())
    );
    for family in Family::HIDDEN {
        let cell = counts.hidden_by_family.get(family).map_or_else(
            || "-".to_owned(),
            |f| format!("{}/{}", f.reached, f.measured()),
        );
        print!(" {cell:<11}");
    }
    if v.not_measured + h.not_measured > 0 {
        print!(" ({} tokens not measured)", v.not_measured + h.not_measured);
    }
    println!();
}
