//! `pagesnap bench-live`: warm live observations per page, side by side with Playwright's own `ariaSnapshot()` in the same run.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Result, bail};

use super::flags::Reach;
use crate::bench::live::{self as bench, Config, Event, PageResult, Summary};
use crate::observer::Observer;

/// Arguments of `pagesnap bench-live`.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
pagesnap bench-live ../shared/corpus/readability --vs-playwright\n  \
pagesnap bench-live page.html --strategy aria,flat,som --runs 10 --json")]
pub struct Args {
    /// Pages: .html files, folders of them (searched recursively, sorted) or URLs.
    #[arg(required = true)]
    pages: Vec<String>,
    /// Strategies to time, comma-separated; `ext:NAME` times an external strategy (its program's own
    /// observation time, in a browser of its own).
    #[arg(long, short, default_value = "aria", value_delimiter = ',')]
    strategy: Vec<String>,
    /// An external strategy program, NAME=COMMAND (run with `sh -c`), timed with `--strategy ext:NAME`.
    #[arg(long, value_name = "NAME=COMMAND")]
    external: Vec<String>,
    /// Warm observations per page and strategy, after the first.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u64).range(1..=1000))]
    runs: u64,
    /// Print one JSON object per page and strategy, then one summary object per strategy.
    #[arg(long)]
    json: bool,
    /// Also time Playwright's `page.locator('body').ariaSnapshot()` on every page (Node.js helper
    /// scripts/playwright/bench-aria.mjs, playwright-core driving the same Chromium).
    #[arg(long)]
    vs_playwright: bool,
    /// Also time N cold runs per page and strategy: `pagesnap snapshot PAGE` as a whole process
    /// (launch, load, observe, exit), and with --vs-playwright Playwright's launch + goto + first
    /// ariaSnapshot() (scripts/playwright/cold-aria.mjs).
    #[arg(long, value_name = "N", default_value_t = 0)]
    cold: usize,
    /// Capture what `pagesnap record` keeps (accessibility oracle, element counts before and after,
    /// compact screenshot) instead of only what the strategy needs: the cost of each call of a recording.
    #[arg(long)]
    archive: bool,
    #[command(flatten)]
    browser: super::flags::BrowserArgs,
}

pub fn run(args: Args) -> Result<ExitCode> {
    args.browser.check()?;
    let mut strategies = Vec::new();
    let mut externals = Vec::new();
    for observer in
        super::flags::observers_named(&args.strategy, &args.external, args.browser.timeout(), None)?
    {
        match observer {
            Observer::Engine(strategy) => strategies.push(strategy),
            Observer::External(external) => externals.push(external),
            // Refused by observers_named: bench-live times observations only.
            Observer::Peer(peer) => bail!("{}: bench-live does not time tool servers", peer.name),
        }
    }
    if !externals.is_empty() && (args.archive || args.cold > 0) {
        bail!("--archive and --cold time pagesnap's own strategies; leave ext: strategies out");
    }
    let pages = super::flags::pages_named(&args.pages)?;
    let config = Config {
        pages,
        strategies,
        externals,
        runs: args.runs as usize,
        open: args.browser.open_options(),
        network: args.browser.network(Reach::Offline),
        endpoint: args.browser.browser_for(0).map(str::to_owned),
        vs_playwright: args.vs_playwright,
        cold: args.cold,
        archive: args.archive,
    };
    let json = args.json;
    let outcome = pagesnap_browser::runtime()?.block_on(bench::run(&config, |event| {
        if json {
            crate::bench::print_json(&event);
        } else {
            print_human(&event, config.vs_playwright);
        }
    }))?;
    for summary in &outcome.summary {
        if json {
            println!("{}", serde_json::to_string(summary).unwrap_or_default());
        } else {
            print_summary(summary);
        }
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

fn print_human(event: &Event<'_>, vs_playwright: bool) {
    match event {
        Event::Started(bench::Started {
            browser,
            playwright,
        }) => {
            println!("pagesnap on {browser}");
            if let Some((version, browser)) = playwright {
                println!("Playwright {version} on {browser}");
            }
            print!(
                "{:<44} {:<20} {:>8} {:>7} {:>8} {:>8} {:>8} {:>8}",
                "page", "strategy", "elements", "tokens", "first", "warm", "capture", "engine"
            );
            if vs_playwright {
                print!(" │ {:>8} {:>8} {:>6}", "PW first", "PW warm", "ratio");
            }
            println!("   (ms; warm = median)");
        }
        Event::Page(result) => print_page(result),
        Event::Failed(error) => eprintln!("error: {}", error.error),
    }
    let _ = std::io::stdout().flush();
}

fn print_page(r: &PageResult) {
    let page = if r.page.chars().count() > 44 {
        let tail: String = r.page.chars().rev().take(43).collect();
        format!("…{}", tail.chars().rev().collect::<String>())
    } else {
        r.page.clone()
    };
    print!(
        "{page:<44} {:<20} {:>8} {:>7} {:>8.1} {:>8.1} {:>8.1} {:>8.1}",
        r.strategy,
        r.elements,
        r.tokens,
        r.first_ms,
        crate::bench::median(r.warm_ms.iter().copied()),
        r.capture_ms,
        r.engine_ms
    );
    if let Some(round_trip) = r.round_trip_ms {
        print!(" (round trip {round_trip:.1})");
    }
    if let (Some(first), Some(warm), Some(ratio)) =
        (r.playwright_first_ms, &r.playwright_warm_ms, r.ratio)
    {
        print!(
            " │ {first:>8.1} {:>8.1} {ratio:>6.2}",
            crate::bench::median(warm.iter().copied())
        );
    }
    println!();
}

fn print_summary(s: &Summary) {
    println!();
    println!(
        "{}: {} pages; first {:.1} ms, warm median {:.1} ms, p90 {:.1} ms (capture {:.1}, engine {:.1})",
        s.strategy,
        s.pages,
        s.median_first_ms,
        s.median_warm_ms,
        s.p90_warm_ms,
        s.median_capture_ms,
        s.median_engine_ms
    );
    if let (Some(first), Some(warm), Some(median), Some(p90)) = (
        s.playwright_median_first_ms,
        s.playwright_median_warm_ms,
        s.median_ratio,
        s.p90_ratio,
    ) {
        println!(
            "  Playwright ariaSnapshot(): first {first:.1} ms, warm median {warm:.1} ms; ratio median {median:.2}×, p90 {p90:.2}×"
        );
    }
    if let Some(cold) = s.median_cold_ms {
        print!("  cold process (launch, load, observe): median {cold:.0} ms");
        if let Some(theirs) = s.playwright_median_cold_ms {
            print!(
                "; Playwright launch + goto + ariaSnapshot(): {theirs:.0} ms ({:.2}×)",
                cold / theirs
            );
        }
        println!();
    }
    if let Some(largest) = &s.largest {
        print!(
            "  largest page: {} ({} elements), warm {:.1} ms",
            largest.page, largest.elements, largest.warm_ms
        );
        if let Some(ratio) = largest.ratio {
            print!(", {ratio:.2}× Playwright");
        }
        println!();
    }
    let calls: Vec<String> = s
        .calls
        .iter()
        .map(|(name, ms)| format!("{name} {ms:.1}"))
        .collect();
    if !calls.is_empty() {
        println!(
            "  capture calls (median ms, concurrent): {}",
            calls.join(", ")
        );
    }
}
