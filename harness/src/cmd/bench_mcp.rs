//! `pagesnap bench-mcp`: pagesnap's tool server against Playwright MCP over stdio, page by page in one run: snapshot round trips, tokens, refs, a click step and task-target reachability.

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Result, bail};

use super::flags::Viewport;
use crate::bench::mcp::{self as bench, Config, Event, PageResult, Reach, Side, Summary};

/// Arguments of `pagesnap bench-mcp`.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
pagesnap bench-mcp --tasks suites/corpus.toml --vs-playwright-mcp\n  \
pagesnap bench-mcp fixtures/sites --click --vs-playwright-mcp\n  \
pagesnap bench-mcp page.html --runs 10 --json\n\n\
Both servers are spawned over stdio and driven by one MCP client (rmcp); each drives its own \
headless Chromium, the same binary (the one `pagesnap doctor` finds), with the same \
viewport. Pages given as files are served over http://127.0.0.1. Playwright MCP is npm \
@playwright/mcp as scripts/setup installs it (scripts/mcp), or $PAGESNAP_PLAYWRIGHT_MCP \
(its cli.js).")]
pub struct Args {
    /// Pages: .html files, folders of them (searched recursively, sorted) or URLs.
    #[arg(required_unless_present = "tasks")]
    pages: Vec<String>,
    /// A suite over pages (such as suites/corpus.toml): its tasks' pages are measured too, and
    /// each task's first target is looked for in each server's snapshot (pagesnap: in view, or
    /// below it under the snapshot's "scroll down" hint).
    #[arg(long, value_name = "SUITE")]
    tasks: Option<std::path::PathBuf>,
    /// Measure Playwright MCP (npm @playwright/mcp) beside pagesnap, interleaved page by page.
    #[arg(long)]
    vs_playwright_mcp: bool,
    /// Also time one click per page: the first enabled button (else link) in pagesnap's viewport
    /// snapshot that every server names alike, by each server's ref (page_action against
    /// browser_click), with its readiness wait and the answer the agent reads.
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
    /// Browser viewport of both servers, WIDTHxHEIGHT.
    #[arg(long, default_value_t = Viewport::default(), value_parser = Viewport::parse)]
    viewport: Viewport,
    /// Seconds one tool call may take before the page counts as failed.
    #[arg(long, default_value = "60", value_parser = super::flags::parse_seconds)]
    call_timeout: f64,
    /// Print one JSON object per page, then the summary object.
    #[arg(long)]
    json: bool,
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
    let config = Config {
        pages,
        targets,
        runs: args.runs as usize,
        viewport: args.viewport.pair(),
        strategy: args.strategy,
        vs_playwright_mcp: args.vs_playwright_mcp,
        click: args.click,
        always_capture: args.always_capture,
        call_timeout: Duration::from_secs_f64(args.call_timeout),
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
        print_summary(&outcome.summary, config.vs_playwright_mcp);
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
        Event::Started(bench::Started { servers }) => {
            for (side, version) in servers {
                println!("{}: {version}", side.label());
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
        print!(
            "{:<40}   task {}: {} — pagesnap {}",
            "",
            target.task,
            target.target,
            reach(target.pagesnap)
        );
        if let Some(theirs) = target.playwright_mcp {
            print!(", Playwright MCP {}", reach(theirs));
        }
        println!();
    }
    if let Some(why) = &result.click_skipped {
        println!("{:<40}   no click: {why}", "");
    }
}

fn print_summary(summary: &Summary, versus: bool) {
    println!();
    println!("{} pages measured on every server", summary.pages);
    for (side, s) in &summary.servers {
        println!(
            "{}: first {:.1} ms (p90 {:.1}), warm {:.1} ms (p90 {:.1}), tokens {:.0} (p90 {:.0}), refs {:.0}, navigate {:.1} ms{}{}",
            side.label(),
            s.first_ms[0],
            s.first_ms[1],
            s.warm_ms[0],
            s.warm_ms[1],
            s.tokens[0],
            s.tokens[1],
            s.refs[0],
            s.navigate_ms[0],
            s.click_ms
                .map(|c| format!(", click {:.1} ms (p90 {:.1})", c[0], c[1]))
                .unwrap_or_default(),
            s.full_page_tokens
                .map(|t| format!(", full-page tokens {:.0} (p90 {:.0})", t[0], t[1]))
                .unwrap_or_default(),
        );
    }
    if let Some(r) = &summary.ratios {
        println!(
            "pagesnap / Playwright MCP (median, p90): first {:.2}, {:.2}; warm {:.2}, {:.2}; tokens {:.2}, {:.2}; navigate {:.2}, {:.2}{}",
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
    } else if versus {
        println!("no ratios: no page was measured on both servers");
    }
    for (side, [in_view, announced, missing]) in &summary.reach {
        let total = in_view + announced + missing;
        match side {
            Side::Pagesnap => println!(
                "task targets through pagesnap's default snapshot: {} of {total} ({in_view} in view, {announced} below under the scroll hint)",
                in_view + announced
            ),
            Side::PlaywrightMcp => {
                println!("task targets through Playwright MCP's snapshot: {in_view} of {total}")
            }
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
}
