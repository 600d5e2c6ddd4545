//! `pagesnap trace-to-suite`: turn a live run's traces into an offline suite, so a live run becomes a regression test.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};

use crate::live::to_suite;

/// Arguments of `pagesnap trace-to-suite`.
#[derive(clap::Args)]
pub struct Args {
    /// The run folder of `pagesnap live` (run.json, results.jsonl, traces/).
    run: PathBuf,
    /// The suite file to write (its `recordings` points back at RUN).
    #[arg(long)]
    out: PathBuf,
    /// Keep failed episodes too (default: only those the page called successful).
    #[arg(long)]
    all: bool,
    /// The suite's name (default: `<live suite>-traces`).
    #[arg(long)]
    name: Option<String>,
    /// Replace --out if it exists.
    #[arg(long)]
    force: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    if args.out.exists() && !args.force {
        bail!(
            "{} already exists (use --force to replace it)",
            args.out.display()
        );
    }
    if let Some(dir) = args.out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("could not create {}", dir.display()))?;
    }
    let converted = to_suite::convert(&args.run, &args.out, args.all, args.name.as_deref())?;
    std::fs::write(&args.out, &converted.toml)
        .with_context(|| format!("could not write {}", args.out.display()))?;
    for (task, strategy, episode, why) in &converted.skipped {
        eprintln!("left out {task} / {strategy} / episode {episode}: {why}");
    }
    println!(
        "{} tasks written to {} ({} episodes left out)",
        converted.tasks,
        args.out.display(),
        converted.skipped.len()
    );
    Ok(ExitCode::SUCCESS)
}
