//! `pagesnap merge`: join the folders of a sharded run (`pagesnap run --shard K/N`) into one run folder with every report.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};

use crate::report::{self, Report};
use crate::results::manifest::{self, Manifest, Shard};
use crate::results::{Key, Row, jsonl};

/// Arguments of `pagesnap merge`.
#[derive(clap::Args)]
pub struct Args {
    /// Output folder for the merged run (must not hold a results.jsonl yet).
    out: PathBuf,
    /// Shard folders written by `pagesnap run --shard K/N` (each with run.json and results.jsonl).
    #[arg(required = true)]
    shards: Vec<PathBuf>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let merged_jsonl = args.out.join("results.jsonl");
    if merged_jsonl.exists() {
        bail!(
            "{} already exists: merge into an empty folder",
            merged_jsonl.display()
        );
    }
    let mut first: Option<(Manifest, &Path)> = None;
    let mut rows: BTreeMap<Key, (Row, &Path)> = BTreeMap::new();
    let mut shards: Vec<Option<Shard>> = Vec::new();
    for dir in &args.shards {
        let manifest = Manifest::read(dir)?;
        match &first {
            Some((base, base_dir)) => manifest::check_compatible(base, base_dir, &manifest, dir)?,
            None => first = Some((manifest.clone(), dir)),
        }
        shards.push(manifest.shard);
        for row in jsonl::read_rows(&dir.join("results.jsonl"))? {
            let key = row.key();
            if let Some((earlier, earlier_dir)) = rows.get(&key) {
                if !same_outcome(earlier, &row) {
                    bail!(
                        "task {:?} strategy {} step {} is in {} and in {} with different results",
                        key.0,
                        key.1,
                        key.2,
                        earlier_dir.join("results.jsonl").display(),
                        dir.join("results.jsonl").display()
                    );
                }
                continue;
            }
            rows.insert(key, (row, dir));
        }
    }
    let Some((mut manifest, _)) = first else {
        bail!("no shard folders given");
    };
    warn_missing(&manifest, &shards, &rows);
    manifest.shard = None;
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("could not create {}", args.out.display()))?;
    let rows: Vec<Row> = rows.into_values().map(|(row, _)| row).collect();
    let report = Report::build(manifest, rows);
    jsonl::write(&merged_jsonl, &report.rows)?;
    report.manifest.write(&args.out)?;
    report::write_all(&args.out, &report)?;
    println!(
        "merged {} rows from {} folders into {}",
        report.rows.len(),
        args.shards.len(),
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Equal apart from wall-clock time (a step run twice takes different µs).
fn same_outcome(a: &Row, b: &Row) -> bool {
    let strip = |r: &Row| Row {
        engine_us: 0,
        agent_us: 0,
        ..r.clone()
    };
    strip(a) == strip(b)
}

/// Warns (does not fail) when the shards given do not cover the suite.
fn warn_missing(manifest: &Manifest, shards: &[Option<Shard>], rows: &BTreeMap<Key, (Row, &Path)>) {
    if shards.iter().any(Option::is_none) {
        return;
    }
    let Some(n) = shards.iter().flatten().map(|s| s.n).max() else {
        return;
    };
    let missing: Vec<String> = (1..=n)
        .filter(|&k| !shards.iter().flatten().any(|s| s.k == k && s.n == n))
        .map(|k| format!("{k}/{n}"))
        .collect();
    let tasks_with_rows = manifest
        .tasks
        .iter()
        .filter(|t| rows.keys().any(|(task, _, _)| task == &t.id))
        .count();
    if !missing.is_empty() {
        eprintln!(
            "warning: shard {} not given; the merged run covers {tasks_with_rows} of {} tasks",
            missing.join(", "),
            manifest.tasks.len()
        );
    }
}
