//! `pagesnap-instructions`: the engine's instruction counts under callgrind, and the CI gate against `reports/bench-baseline/instructions.json`.
//!
//! ```text
//! pagesnap-instructions gate [--baseline FILE] [--update] [--only PAGE]... [--jobs N]
//! pagesnap-instructions measure PAGE RECORDING.json.gz     # what the gate runs under callgrind
//! pagesnap-instructions corpus                             # the corpus sample's pages
//! pagesnap-instructions ratios DIR... [--jobs N]            # decoded → aria against the parse, every recording
//! ```
//!
//! Run from the repository root (`scripts/bench-gate` does): fixtures are read
//! from `fixtures/`, the corpus sample from `target/bench-corpus/`. Exit
//! status: 0 within the gate, 1 an id grew more than 5% or a baseline id is
//! missing, 2 bad input or a failed measurement.

/// The allocator `pagesnap` ships with, so counts are the shipped engine's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use pagesnap_benches::instructions::{self, CORPUS, FIXTURES, THRESHOLD_PERCENT};

const USAGE: &str = "usage: pagesnap-instructions gate [--baseline FILE] [--update] [--only PAGE]... [--jobs N]\n       pagesnap-instructions measure PAGE RECORDING.json.gz\n       pagesnap-instructions ratios DIR... [--jobs N]";

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<ExitCode> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("measure") => {
            let [_, key, path] = args.as_slice() else {
                bail!("{USAGE}");
            };
            instructions::measure(key, &PathBuf::from(path))?;
            Ok(ExitCode::SUCCESS)
        }
        Some("gate") => gate(&args[1..]),
        Some("ratios") => ratios(&args[1..]),
        Some("corpus") => {
            // The corpus sample, for scripts/bench-gate to record.
            for key in CORPUS {
                println!("{key}");
            }
            Ok(ExitCode::SUCCESS)
        }
        _ => bail!("{USAGE}"),
    }
}

fn gate(args: &[String]) -> Result<ExitCode> {
    let mut baseline = PathBuf::from("reports/bench-baseline/instructions.json");
    let mut update = false;
    let mut only: Vec<String> = Vec::new();
    let mut jobs = 2;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| {
            args.next()
                .cloned()
                .with_context(|| format!("{flag} needs a value"))
        };
        match arg.as_str() {
            "--baseline" => baseline = PathBuf::from(value("--baseline")?),
            "--update" => update = true,
            "--only" => only.push(value("--only")?),
            "--jobs" => jobs = parse_jobs(&value("--jobs")?)?,
            other => bail!("unknown argument {other:?}\n{USAGE}"),
        }
    }
    let mut pages: Vec<(String, PathBuf)> = FIXTURES
        .iter()
        .map(|key| {
            (
                key.to_string(),
                PathBuf::from(format!("fixtures/{key}.json.gz")),
            )
        })
        .chain(CORPUS.iter().map(|key| {
            (
                format!("corpus/{key}"),
                PathBuf::from(format!("target/bench-corpus/{key}.json.gz")),
            )
        }))
        .collect();
    if !only.is_empty() {
        if let Some(unknown) = only
            .iter()
            .find(|o| !pages.iter().any(|(key, _)| key == *o))
        {
            let known: Vec<&str> = pages.iter().map(|(k, _)| k.as_str()).collect();
            bail!(
                "--only {unknown:?}: no such page (known: {})",
                known.join(", ")
            );
        }
        pages.retain(|(key, _)| only.contains(key));
    }
    for (key, path) in &pages {
        if !path.is_file() {
            bail!(
                "{key}: {} not found (run from the repository root; scripts/bench-gate records the corpus sample)",
                path.display()
            );
        }
    }
    let exe = std::env::current_exe().context("could not find this program's path")?;
    let now = instructions::count(&exe, &pages, jobs)?;
    if update {
        instructions::write_baseline(&baseline, &now)?;
        println!("wrote {} ids to {}", now.len(), baseline.display());
        return Ok(ExitCode::SUCCESS);
    }
    let mut before = instructions::read_baseline(&baseline)?;
    if !only.is_empty() {
        // Ids of pages not measured this time are not missing.
        before.retain(|id, _| {
            pages
                .iter()
                .any(|(key, _)| id.ends_with(&format!("/{key}")))
        });
    }
    let lines = instructions::compare(&before, &now);
    println!(
        "{:<48} {:>15} {:>15} {:>9}",
        "id", "baseline", "now", "change"
    );
    for line in &lines {
        let show = |n: Option<u64>| n.map_or("-".to_owned(), |n| n.to_string());
        let change = match (line.baseline, line.now) {
            (None, Some(_)) => "new".to_owned(),
            (Some(_), None) => "missing".to_owned(),
            _ => line
                .change()
                .map_or("-".to_owned(), |c| format!("{c:+.2}%")),
        };
        let mark = if line.breaks() {
            "  <- breaks the gate"
        } else {
            ""
        };
        println!(
            "{:<48} {:>15} {:>15} {:>9}{mark}",
            line.id,
            show(line.baseline),
            show(line.now),
            change
        );
    }
    let broken: Vec<&str> = lines
        .iter()
        .filter(|l| l.breaks())
        .map(|l| l.id.as_str())
        .collect();
    if broken.is_empty() {
        println!(
            "bench gate: {} ids within +{THRESHOLD_PERCENT}% of {}",
            lines.iter().filter(|l| l.now.is_some()).count(),
            baseline.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "bench gate: {} ids grew more than {THRESHOLD_PERCENT}% or are missing: {}",
        broken.len(),
        broken.join(", ")
    );
    Ok(ExitCode::from(1))
}

/// Every recording under the folders given: decoded recording → `aria`
/// (page build, analysis, render) against html5ever's parse of the same
/// page, in instructions, one line per page, then the spread.
fn ratios(args: &[String]) -> Result<ExitCode> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    let mut jobs = 2;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        if arg == "--jobs" {
            jobs = parse_jobs(args.next().context("--jobs needs a value")?)?;
        } else if arg.starts_with("--") {
            bail!("unknown argument {arg:?}\n{USAGE}");
        } else {
            dirs.push(PathBuf::from(arg));
        }
    }
    if dirs.is_empty() {
        bail!("ratios needs a folder of recordings\n{USAGE}");
    }
    let mut pages = Vec::new();
    for dir in &dirs {
        let found = instructions::recordings(dir)?;
        if found.is_empty() {
            bail!("{}: no recordings (.json.gz) in it", dir.display());
        }
        pages.extend(found);
    }
    let exe = std::env::current_exe().context("could not find this program's path")?;
    let counts = instructions::count(&exe, &pages, jobs)?;
    println!(
        "{:<56} {:>13} {:>13} {:>7}",
        "page", "decoded→aria", "parse", "ratio"
    );
    let mut ratios = Vec::new();
    for (key, _) in &pages {
        let Some((engine, parse)) = instructions::engine_and_parse(&counts, key) else {
            bail!("{key}: a step of decoded → aria or the parse was not measured");
        };
        let ratio = engine as f64 / parse.max(1) as f64;
        println!("{key:<56} {engine:>13} {parse:>13} {ratio:>6.2}×");
        ratios.push((ratio, key.as_str()));
    }
    ratios.sort_by(|a, b| a.0.total_cmp(&b.0));
    let at = |q: f64| ratios[((ratios.len() - 1) as f64 * q).round() as usize].0;
    let over: Vec<String> = ratios
        .iter()
        .rev()
        .filter(|(r, _)| *r > 1.5)
        .map(|(r, k)| format!("{k} {r:.2}×"))
        .collect();
    println!(
        "{} pages: median {:.2}×, quartiles {:.2}–{:.2}×, worst {:.2}×; above 1.5×: {}",
        ratios.len(),
        at(0.5),
        at(0.25),
        at(0.75),
        at(1.0),
        if over.is_empty() {
            "none".to_owned()
        } else {
            over.join(", ")
        }
    );
    Ok(ExitCode::SUCCESS)
}

/// `--jobs N`: how many callgrind processes run at a time, at least one.
fn parse_jobs(text: &str) -> Result<usize> {
    text.parse()
        .ok()
        .filter(|&n| n > 0)
        .with_context(|| format!("--jobs {text:?} is not a positive number"))
}
