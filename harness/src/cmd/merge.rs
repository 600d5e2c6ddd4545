//! `pagesnap merge`: join the folders of a sharded run (`pagesnap run --shard K/N` or `pagesnap live --shard K/N`) into one run folder with every report.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use crate::report::merge;
use crate::results::manifest::Manifest;

/// Arguments of `pagesnap merge`.
#[derive(clap::Args)]
pub struct Args {
    /// Output folder for the merged run (must not hold a results.jsonl yet).
    out: PathBuf,
    /// Shard folders written by `pagesnap run --shard K/N` or `pagesnap live --shard K/N` (each with
    /// run.json and results.jsonl; all of one kind).
    #[arg(required = true)]
    shards: Vec<PathBuf>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    merge::ensure_empty(&args.out)?;
    let live = match args.shards.first() {
        Some(first) => Manifest::read(first)?.live.is_some(),
        None => false,
    };
    if live {
        let merged = crate::report::live::merge::join(&args.shards)?;
        if let Some(missing) = &merged.missing {
            eprintln!("warning: {missing}");
        }
        crate::report::live::merge::write(&args.out, &merged)?;
        println!(
            "merged {} episodes from {} folders into {}",
            merged.report.episodes.len(),
            args.shards.len(),
            args.out.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let merged = merge::join(&args.shards)?;
    if let Some(missing) = &merged.missing {
        eprintln!("warning: {missing}");
    }
    merge::write(&args.out, &merged)?;
    println!(
        "merged {} rows from {} folders into {}",
        merged.report.rows.len(),
        args.shards.len(),
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}
