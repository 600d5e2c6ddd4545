//! `pagesnap bench-mcp`: pagesnap's tool server against the shipped ones (`--vs playwright,chrome-devtools,agent-browser`) over stdio, page by page in one run: snapshot round trips, tokens, refs, a click step, task-target reachability and tool-definition tokens.

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Result, bail};

use super::flags::{NetworkArgs, Viewport};
use crate::bench::mcp::{self as bench, Config, Event, PageResult, Reach, Side, Summary};
use crate::peer::Shipped;

/// Arguments of `pagesnap bench-mcp`.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
pagesnap bench-mcp --tasks suites/corpus.toml --vs playwright\n  \
pagesnap bench-mcp fixtures/sites --click --vs playwright,chrome-devtools,agent-browser\n  \
pagesnap bench-mcp page.html --runs 10 --json\n\n\
Every server is spawned over stdio and driven by one MCP client (rmcp), each on a headless \
Chromium of its own, the same binary (the one `pagesnap doctor` finds), with the same \
viewport: pagesnap and Playwright MCP launch theirs; for Chrome DevTools MCP and agent-browser \
bench-mcp launches one, opens a tab with the viewport set and attaches the server to it over \
CDP. Pages given as files are served over http://127.0.0.1. Offline unless --network: in every \
server's browser only 127.0.0.1 and localhost resolve (pagesnap mcp --offline; Playwright MCP \
given the same Chromium flag in a configuration file; the others on the browser bench-mcp \
launches), so that a saved page's third-party resources fail at once on every server alike \
instead of waiting on the resolver. The servers are the npm packages \
scripts/setup installs (scripts/mcp); Playwright MCP may be $PAGESNAP_PLAYWRIGHT_MCP (its \
cli.js).")]
pub struct Args {
    /// Pages: .html files, folders of them (searched recursively, sorted) or URLs.
    #[arg(required_unless_present = "tasks")]
    pages: Vec<String>,
    /// A suite over pages (such as suites/corpus.toml): its tasks' pages are measured too, and
    /// each task's first target is looked for in each server's snapshot (pagesnap: in view, or
    /// below it under the snapshot's "scroll down" hint).
    #[arg(long, value_name = "SUITE")]
    tasks: Option<std::path::PathBuf>,
    /// Shipped tool servers to measure beside pagesnap, interleaved page by page: playwright
    /// (Playwright MCP), chrome-devtools (Chrome DevTools MCP), agent-browser; with or without
    /// `mcp:`, comma-separated or repeated.
    #[arg(long = "vs", value_name = "NAME", value_delimiter = ',')]
    vs: Vec<String>,
    /// Alias of --vs playwright.
    #[arg(long, hide = true)]
    vs_playwright_mcp: bool,
    /// Also time one click per page: the first enabled button (else link) in pagesnap's viewport
    /// snapshot that every server names alike, by each server's ref and mapped click
    /// (page_action, browser_click, click, agent_browser_click), with its readiness wait and the
    /// answer the agent reads.
    #[arg(long)]
    click: bool,
    /// Run `pagesnap mcp --always-capture`: every snapshot captures the page, none renders an
    /// unchanged page's earlier capture (what a warm call costs when the page has changed).
    #[arg(long)]
    always_capture: bool,
    /// pagesnap's default strategy (`pagesnap mcp --strategy`), used by every page_snapshot.
    #[arg(long, short, default_value = "aria")]
    strategy: String,
    /// Warm snapshots per page and server, after the first.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u64).range(1..=1000))]
    runs: u64,
    /// Browser viewport of every server, WIDTHxHEIGHT.
    #[arg(long, default_value_t = Viewport::default(), value_parser = Viewport::parse)]
    viewport: Viewport,
    /// Seconds one tool call may take before the page counts as failed.
    #[arg(long, default_value = "60", value_parser = super::flags::parse_seconds)]
    call_timeout: f64,
    /// Print one JSON object per page, then the summary object.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    network: NetworkArgs,
}

pub fn run(args: Args) -> Result<ExitCode> {
    super::flags::strategy_named(&args.strategy)?;
    let targets = match &args.tasks {
        Some(suite) => crate::suite::page_targets(suite)?,
        None => Vec::new(),
    };
    let mut pages = super::flags::pages_named(&args.pages)?;
    for target in &targets {
        let page = target.page.display().to_string();
        if !pages.contains(&page) {
            pages.push(page);
        }
    }
    if pages.is_empty() {
        bail!("no pages to measure");
    }
    let mut names = args.vs.clone();
    if args.vs_playwright_mcp {
        names.push("playwright".to_owned());
    }
    let versus = bench::peers_named(&names)?;
    let config = Config {
        pages,
        targets,
        runs: args.runs as usize,
        viewport: args.viewport.pair(),
        strategy: args.strategy,
        versus,
        click: args.click,
        always_capture: args.always_capture,
        call_timeout: Duration::from_secs_f64(args.call_timeout),
        network: args.network.network(super::flags::Reach::Offline),
    };
    let json = args.json;
    let outcome = pagesnap_browser::runtime()?.block_on(bench::run(&config, |event| {
        if json {
            crate::bench::print_json(&event);
        } else {
            print_human(&event);
        }
    }))?;
    if json {
        println!(
            "{}",
            serde_json::to_string(&outcome.summary).unwrap_or_default()
        );
    } else {
        print_summary(&outcome.summary, &config.versus);
    }
    if !outcome.errors.is_empty() {
        eprintln!(
            "{} of {} pages failed",
            outcome.errors.len(),
            config.pages.len()
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

fn print_human(event: &Event<'_>) {
    match event {
        Event::Started(bench::Started { servers, network }) => {
            if !network {
                println!(
                    "network: off in every server's browser (only 127.0.0.1 and localhost resolve)"
                );
            }
            for server in servers {
                println!(
                    "{}: {} (tool definitions: {} tokens)",
                    server.side.label(),
                    server.version,
                    server.definition_tokens
                );
            }
            println!(
                "{:<40} {:<15} {:>7} {:>7} {:>7} {:>6} {:>6} {:>7}",
                "page", "server", "nav", "first", "warm", "tokens", "refs", "click"
            );
            println!(
                "{:<40} {:<15} (ms; warm = median; click = round trip)",
                "", ""
            );
        }
        Event::Page(result) => print_page(result),
        Event::Failed(error) => eprintln!("error: {}", error.error),
    }
    let _ = std::io::stdout().flush();
}

fn short(page: &str) -> String {
    if page.chars().count() > 40 {
        let tail: String = page.chars().rev().take(39).collect();
        format!("…{}", tail.chars().rev().collect::<String>())
    } else {
        page.to_owned()
    }
}

fn print_page(result: &PageResult) {
    for (i, m) in result.servers.iter().enumerate() {
        let page = if i == 0 {
            short(&result.page)
        } else {
            String::new()
        };
        let click = m
            .click
            .as_ref()
            .map_or_else(|| "-".to_owned(), |c| format!("{:.1}", c.ms));
        println!(
            "{page:<40} {:<15} {:>7.1} {:>7.1} {:>7.1} {:>6} {:>6} {:>7}",
            m.side.label(),
            m.navigate_ms,
            m.first_ms,
            crate::bench::median(m.warm_ms.iter().copied()),
            m.tokens,
            m.refs,
            click
        );
    }
    for target in &result.targets {
        let reach = |r: Reach| match r {
            Reach::InView => "in view",
            Reach::Announced => "below, announced",
            Reach::Missing => "MISSING",
        };
        let offered: Vec<String> = target
            .reach
            .iter()
            .map(|(side, r)| format!("{} {}", side.label(), reach(*r)))
            .collect();
        println!(
            "{:<40}   task {}: {} — {}",
            "",
            target.task,
            target.target,
            offered.join(", ")
        );
    }
    if let Some(why) = &result.click_skipped {
        println!("{:<40}   no click: {why}", "");
    }
}

/// The summary: one column per server (median, p90 in brackets), then
/// pagesnap's ratios against each other server.
fn print_summary(summary: &Summary, versus: &[&'static Shipped]) {
    println!();
    println!("{} pages measured on every server", summary.pages);
    let sides: Vec<Side> = summary.servers.keys().copied().collect();
    print!("{:<22}", "");
    for side in &sides {
        print!(" {:>20}", side.label());
    }
    println!();
    type Row = fn(&bench::SideSummary) -> Option<[f64; 2]>;
    let rows: [(&str, Row, usize); 8] = [
        ("navigate ms", |s| Some(s.navigate_ms), 1),
        ("first snapshot ms", |s| Some(s.first_ms), 1),
        ("warm snapshot ms", |s| Some(s.warm_ms), 1),
        ("snapshot tokens", |s| Some(s.tokens), 0),
        ("full-page tokens", |s| s.full_page_tokens, 0),
        ("refs", |s| Some(s.refs), 0),
        ("click ms", |s| s.click_ms, 1),
        (
            "tool definitions tok",
            |s| Some([s.definition_tokens as f64; 2]),
            0,
        ),
    ];
    for (name, value, decimals) in rows {
        print!("{name:<22}");
        for side in &sides {
            let cell = summary.servers.get(side).and_then(value).map_or_else(
                || "-".to_owned(),
                |[median, p90]| {
                    if median == p90 {
                        format!("{median:.decimals$}")
                    } else {
                        format!("{median:.decimals$} ({p90:.decimals$})")
                    }
                },
            );
            print!(" {cell:>20}");
        }
        println!();
    }
    for (side, r) in &summary.ratios {
        println!(
            "pagesnap / {} (median, p90): first {:.2}, {:.2}; warm {:.2}, {:.2}; tokens {:.2}, {:.2}; navigate {:.2}, {:.2}{}",
            side.label(),
            r.first[0],
            r.first[1],
            r.warm[0],
            r.warm[1],
            r.tokens[0],
            r.tokens[1],
            r.navigate[0],
            r.navigate[1],
            r.click
                .map(|c| format!("; click {:.2}, {:.2}", c[0], c[1]))
                .unwrap_or_default()
        );
    }
    if summary.ratios.is_empty() && !versus.is_empty() {
        println!("no ratios: no page was measured on every server");
    }
    for (side, [in_view, announced, missing]) in &summary.reach {
        let total = in_view + announced + missing;
        match side {
            Side::Pagesnap => println!(
                "task targets through pagesnap's default snapshot: {} of {total} ({in_view} in view, {announced} below under the scroll hint)",
                in_view + announced
            ),
            Side::Peer(_) => println!(
                "task targets through {}'s snapshot: {in_view} of {total}",
                side.label()
            ),
        }
    }
    if let Some((reused, taken)) = summary.reused_snapshots {
        println!(
            "pagesnap snapshots rendered from an unchanged page's earlier capture: {reused} of {taken}"
        );
    }
    if let Some((incomplete, navigations)) = summary.incomplete_navigations {
        println!("pagesnap navigations answered incomplete: {incomplete} of {navigations}");
    }
    if let Some((incomplete, clicks)) = summary.incomplete_clicks {
        println!("pagesnap clicks answered incomplete: {incomplete} of {clicks}");
    }
    if let Some(step) = &summary.click_step {
        let cell = |[median, p90]: [f64; 2]| format!("{median:.1} ({p90:.1})");
        println!(
            "pagesnap click step, ms median (p90), {} steps ({} rendered an unchanged capture): act {}, settle {}, capture {}, analysis {}, render {}, rest {}",
            step.steps,
            step.reused,
            cell(step.act),
            cell(step.settle),
            cell(step.capture),
            cell(step.analysis),
            cell(step.render),
            cell(step.rest)
        );
    }
}
