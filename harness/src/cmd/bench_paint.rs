//! `pagesnap bench-paint`: the pixel oracle of what pagesnap withholds — per page, the text runs withheld and, of those the browser was asked about, how many paint a pixel (visible text withheld, each named), then the share of all text runs.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Result;
use pagesnap_browser::{OpenOptions, Paints};

use super::flags::Viewport;
use crate::bench::paint::{self, Config, PageReport};

/// Arguments of `pagesnap bench-paint`.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
pagesnap bench-paint ../shared/corpus/govuk\n  \
pagesnap bench-paint fixtures/sites --json\n\n\
Each page is opened in a headless Chromium launched offline and captured as an observation is; \
every text run the engine withholds (transparent, clipped, of no area, unpainted, tiny, faint, \
covered) is then asked of the browser: its region is screenshot twice as the page paints it \
(differing: unstable, not judged), then with the run's glyphs, shadow, stroke and decorations \
transparent, and the page put back. A run whose hiding changes a pixel is visible text withheld. \
Runs in frames of another site are not asked. Exits 1 when any page failed.")]
pub struct Args {
    /// Pages: .html files, folders of them (searched recursively, sorted) or URLs.
    #[arg(required = true)]
    pages: Vec<String>,
    /// At most this many withheld runs asked per page, in document order.
    #[arg(long, value_name = "N", default_value_t = 400)]
    max_runs: usize,
    /// Visible runs in the viewport asked too per page, a control of the oracle (each should paint).
    #[arg(long, value_name = "N", default_value_t = 10)]
    controls: usize,
    /// Browser viewport, WIDTHxHEIGHT.
    #[arg(long, default_value_t = Viewport::default(), value_parser = Viewport::parse)]
    viewport: Viewport,
    /// Seconds a page load may take.
    #[arg(long, value_name = "SECS", default_value = "30", value_parser = super::flags::parse_seconds)]
    timeout: f64,
    /// Print one JSON object per page, then the summary object.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let pages = super::flags::pages_named(&args.pages)?;
    let (width, height) = args.viewport.pair();
    let config = Config {
        pages,
        open: OpenOptions {
            width,
            height,
            timeout: Duration::from_secs_f64(args.timeout),
            ..OpenOptions::default()
        },
        max_runs: args.max_runs,
        controls: args.controls,
    };
    let json = args.json;
    let reports = pagesnap_browser::runtime()?.block_on(paint::run(&config, |report| {
        if json {
            println!("{}", serde_json::to_string(report).unwrap_or_default());
        } else {
            print_page(report);
        }
    }))?;
    let summary = Summary::of(&reports);
    if json {
        println!("{}", serde_json::to_string(&summary)?);
    } else {
        summary.print();
    }
    let failed = reports.iter().filter(|r| r.error.is_some()).count();
    if failed > 0 {
        eprintln!("{failed} of {} pages failed", reports.len());
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

fn print_page(report: &PageReport) {
    if let Some(error) = &report.error {
        println!("{}: error: {error}", report.page);
        return;
    }
    println!(
        "{}: {} text runs, {} withheld; asked {}: {} paint, {} do not, {} unstable, {} without a box; {} not asked",
        report.page,
        report.runs,
        report.withheld,
        report.checked.len(),
        report.count(Paints::Yes),
        report.count(Paints::No),
        report.count(Paints::Unstable),
        report.count(Paints::NoBox) + report.count(Paints::Gone),
        report.not_checked,
    );
    for run in report.visible() {
        let reason = run.reason.map_or_else(String::new, |r| format!("{r:?}"));
        println!("  visible, withheld as {reason}: {:?}", run.text);
    }
    let controls = &report.controls;
    let silent: Vec<&str> = controls
        .iter()
        .filter(|run| run.paints != Paints::Yes)
        .map(|run| run.text.as_str())
        .collect();
    if !silent.is_empty() {
        println!(
            "  control: {} of {} visible runs did not paint: {silent:?}",
            silent.len(),
            controls.len()
        );
    }
}

/// Over every measured page.
#[derive(serde::Serialize)]
struct Summary {
    pages: usize,
    runs: usize,
    withheld: usize,
    asked: usize,
    /// Withheld runs that paint.
    visible_withheld: usize,
    unstable: usize,
    not_asked: usize,
    /// `visible_withheld` as a percentage of `runs`.
    visible_withheld_pct: f64,
    /// Visible runs asked as a control, and how many of them painted.
    controls: usize,
    controls_painted: usize,
}

impl Summary {
    fn of(reports: &[PageReport]) -> Summary {
        let measured: Vec<&PageReport> = reports.iter().filter(|r| r.error.is_none()).collect();
        let sum = |f: &dyn Fn(&PageReport) -> usize| measured.iter().map(|r| f(r)).sum::<usize>();
        let runs = sum(&|r| r.runs);
        let visible_withheld = sum(&|r| r.count(Paints::Yes));
        Summary {
            pages: measured.len(),
            runs,
            withheld: sum(&|r| r.withheld),
            asked: sum(&|r| r.checked.len()),
            visible_withheld,
            unstable: sum(&|r| r.count(Paints::Unstable)),
            not_asked: sum(&|r| r.not_checked),
            visible_withheld_pct: if runs == 0 {
                0.0
            } else {
                100.0 * visible_withheld as f64 / runs as f64
            },
            controls: sum(&|r| r.controls.len()),
            controls_painted: sum(&|r| {
                r.controls
                    .iter()
                    .filter(|run| run.paints == Paints::Yes)
                    .count()
            }),
        }
    }

    fn print(&self) {
        println!(
            "{} pages: {} text runs, {} withheld, {} asked: {} visible withheld ({:.3}% of the runs), {} unstable, {} not asked; control: {} of {} visible runs painted",
            self.pages,
            self.runs,
            self.withheld,
            self.asked,
            self.visible_withheld,
            self.visible_withheld_pct,
            self.unstable,
            self.not_asked,
            self.controls_painted,
            self.controls,
        );
    }
}
