//! `pagesnap redactions`: what redaction hides on saved pages, by kind and place, and how much of it is secret by a hand-labelled list (`--check` fails on any change).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context as _, Result};
use pagesnap_engine::passes::redact::Kind;

use crate::redactions::{self, Labels};

/// Arguments of `pagesnap redactions`.
#[derive(clap::Args)]
pub struct Args {
    /// Pages (`.html` files, read without a browser), recordings
    /// (`.json.gz`), or folders of either.
    #[arg(required = true)]
    pages: Vec<PathBuf>,
    /// The hand-labelled list (TSV: page, kind, place, label, original,
    /// reason; label `secret` or `not_secret`).
    #[arg(long, value_name = "FILE")]
    labels: Option<PathBuf>,
    /// Write every hidden value to FILE as a labelled list, keeping the
    /// labels and reasons `--labels` has and `?` for new ones.
    #[arg(long, value_name = "FILE")]
    write: Option<PathBuf>,
    /// Exit 1 when a value is hidden that the list does not hold, or a
    /// listed one is no longer hidden (needs --labels).
    #[arg(long, requires = "labels")]
    check: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let labels = match &args.labels {
        Some(path) => redactions::read_labels(path)?,
        None => Labels::new(),
    };
    let audit = redactions::audit(&args.pages)?;
    let judged = redactions::judge(&audit, &labels);
    let pages = audit.pages.max(1) as f64;
    println!("{} pages", audit.pages);
    println!("redactions per page by strategy (default scope and options):");
    for (strategy, n) in &audit.counted {
        println!(
            "  {strategy:<12}{n:>6}  {:>6.2} per page",
            *n as f64 / pages
        );
    }
    let total = audit.findings.len();
    println!(
        "distinct values hidden (any strategy, default scope or full page): {total}, {:.2} per page",
        total as f64 / pages
    );
    println!(
        "  {:<14}{:>7}{:>8}{:>12}{:>11}",
        "kind", "hidden", "secret", "not secret", "unlabelled"
    );
    let mut sums = [0; 3];
    for kind in Kind::ALL {
        let Some(counts) = judged.by_kind.get(&kind) else {
            continue;
        };
        for (sum, n) in sums.iter_mut().zip(counts) {
            *sum += n;
        }
        let [secret, not, unlabelled] = counts;
        println!(
            "  {:<14}{:>7}{secret:>8}{not:>12}{unlabelled:>11}",
            kind.name(),
            counts.iter().sum::<usize>()
        );
    }
    let [secret, not, unlabelled] = sums;
    println!(
        "  {:<14}{total:>7}{secret:>8}{not:>12}{unlabelled:>11}",
        "all"
    );
    if secret + not > 0 {
        println!(
            "precision (labelled values that are secret): {:.1}%",
            100.0 * secret as f64 / (secret + not) as f64
        );
    }
    if let Some(path) = &args.write {
        std::fs::write(path, redactions::write_labels(&audit.findings, &labels))
            .with_context(|| format!("could not write {}", path.display()))?;
        eprintln!("wrote {} ({total} values)", path.display());
    }
    if args.check {
        for finding in &judged.new {
            eprintln!("new: {finding}");
        }
        for finding in &judged.gone {
            eprintln!("no longer hidden: {finding}");
        }
        if !judged.new.is_empty() || !judged.gone.is_empty() {
            eprintln!(
                "{} new, {} no longer hidden: review them and update the list (--write FILE keeps the labels it has)",
                judged.new.len(),
                judged.gone.len()
            );
            return Ok(ExitCode::from(1));
        }
    }
    Ok(ExitCode::SUCCESS)
}
