//! `pagesnap diff BASE NEW`: print the per-strategy regression table of two run folders and exit 1 when a `--fail-if` rule is broken.
//!
//! Exit status: 0 no breach, 1 a breach, 2 bad input. The table and the rules
//! are [`crate::report::diff`]'s.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use crate::report::diff;

/// Arguments of `pagesnap diff`.
#[derive(clap::Args)]
pub struct Args {
    /// The base run folder (with summary.json and run.json), e.g. reports/baseline.
    base: PathBuf,
    /// The new run folder (with summary.json and run.json): the same suite, tasks, agent and
    /// strategies as the base.
    new: PathBuf,
    /// Breach rules, comma-separated: METRIC<-Xpp, METRIC>+X%, METRIC<-X%, METRIC>+Xpp.
    /// Metrics: step_sr, task_sr, element_acc, target_recall, op_f1, invalid_rate,
    /// hallucination_rate (rates); tokens, obs_tokens, obs_tokens_cl100k, image_tokens,
    /// output_tokens, cost, errors, engine_us, agent_us.
    /// Live runs (`pagesnap live`): success_rate, mean_reward (rates); steps, episode_obs_tokens,
    /// episode_input_tokens, episode_errors, capture_ms, agent_ms.
    #[arg(long, value_name = "RULES", verbatim_doc_comment)]
    fail_if: Option<String>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let rules = diff::parse_rules(args.fail_if.as_deref().unwrap_or(""))?;
    let base = diff::read_summary(&args.base)?;
    let new = diff::read_summary(&args.new)?;
    let breaches = diff::compare(&base, &new, &rules, &mut |line| println!("{line}"))?;
    if breaches.is_empty() {
        println!("no breach");
        return Ok(ExitCode::SUCCESS);
    }
    for breach in &breaches {
        println!("breach: {breach}");
    }
    Ok(ExitCode::from(1))
}
