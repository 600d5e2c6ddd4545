//! `pagesnap validate`: compare the engine's roles and names with Chromium's own accessibility tree (the recording's oracle).
//!
//! Rules (also in docs/analysis.md):
//! - Compared: every AX node Chromium exposes (not ignored) whose backend id
//!   is an *element* of the recording.
//! - Excluded, counted by reason: the document (`RootWebArea`), text nodes
//!   (`StaticText`, `InlineTextBox`), AX nodes with no DOM node (`ListMarker`,
//!   pseudo-elements, `::marker`) and nodes whose DOM node is not in the
//!   recording (user-agent shadow content, out-of-process frames).
//! - Role agreement uses `chromium_role_matches`, which only maps spelling
//!   differences between Chromium and Playwright/ARIA (e.g. `image` = `img`,
//!   `DisclosureTriangle` = `button`, Chromium's internal container roles =
//!   `generic`).
//! - Name agreement compares whitespace-normalised strings exactly.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use pagesnap_engine::analyze::{Analysis, chromium_role_matches, is_chromium_text_role};
use pagesnap_engine::page::{Node, NodeId, Page};
use pagesnap_engine::recording::AxNode;
use serde::Serialize;

use crate::{observe, store};

/// Arguments of `pagesnap validate`.
#[derive(clap::Args)]
pub struct Args {
    /// Recordings (`.json.gz`) or folders holding them (searched recursively).
    #[arg(required = true)]
    recordings: Vec<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// Exit with status 1 when role agreement (percent) is below this, or nothing was compared.
    #[arg(long)]
    min_role: Option<f64>,
    /// Exit with status 1 when name agreement (percent) is below this, or nothing was compared.
    #[arg(long)]
    min_name: Option<f64>,
    /// How many mismatch kinds to list.
    #[arg(long, default_value_t = 20)]
    top: usize,
}

/// The validation report.
#[derive(Serialize, Default)]
pub struct Report {
    /// Recordings read.
    pub recordings: usize,
    /// AX nodes compared.
    pub compared: usize,
    /// Role agreements.
    pub role_agree: usize,
    /// Name agreements.
    pub name_agree: usize,
    /// Role agreement, percent.
    pub role_pct: f64,
    /// Name agreement, percent.
    pub name_pct: f64,
    /// Excluded AX nodes by reason.
    pub excluded: BTreeMap<String, usize>,
    /// Most frequent mismatch kinds.
    pub mismatches: Vec<Mismatch>,
}

/// One kind of mismatch, with its count and one example.
#[derive(Serialize, Clone)]
pub struct Mismatch {
    /// What differs, e.g. `role: ours generic, chromium LabelText`.
    pub kind: String,
    /// How often.
    pub count: usize,
    /// One example: file, element, both values.
    pub example: String,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let paths = store::find_recordings(&args.recordings)?;
    let mut report = Report::default();
    let mut kinds: HashMap<String, Mismatch> = HashMap::new();
    for path in &paths {
        let recording = store::read(path)?;
        let origin = path.display().to_string();
        // Decoding leaves the oracle unparsed; a malformed one fails here.
        let ax = recording.ax.nodes(&origin)?;
        let analysed = observe::analyze(&recording);
        let (page, analysis) = (analysed.page.page(), analysed.page.analysis());
        compare(&origin, &ax, page, analysis, &mut report, &mut kinds);
        report.recordings += 1;
    }
    finish(&mut report, kinds, args.top);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_text(&report);
    }
    if report.compared == 0 && (args.min_role.is_some() || args.min_name.is_some()) {
        // 0 of 0 is no agreement at all: a floor is a claim about compared
        // elements, and an empty folder (or a recording of a bare document)
        // must not pass it as 100%.
        let inputs: Vec<String> = args
            .recordings
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        eprintln!(
            "validation below threshold: nothing was compared in {} ({} recordings, \
             no element with an exposed AX node); --min-role/--min-name need compared elements",
            inputs.join(", "),
            report.recordings
        );
        return Ok(ExitCode::from(1));
    }
    let below = |min: Option<f64>, got: f64| min.is_some_and(|m| got < m);
    if below(args.min_role, report.role_pct) || below(args.min_name, report.name_pct) {
        eprintln!(
            "validation below threshold: role {:.2}% (min {}), name {:.2}% (min {})",
            report.role_pct,
            args.min_role.map_or("-".to_owned(), |m| m.to_string()),
            report.name_pct,
            args.min_name.map_or("-".to_owned(), |m| m.to_string()),
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

fn normalize(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn describe(page: &Page, id: NodeId) -> String {
    let Some(element) = page.element(id) else {
        return "?".to_owned();
    };
    let mut out = format!("<{}", element.name);
    for key in ["id", "type", "role", "class"] {
        if let Some(value) = element.attr(key) {
            let value: String = value.chars().take(30).collect();
            out.push_str(&format!(" {key}={value:?}"));
        }
    }
    out.push('>');
    out
}

/// Compares one recording's oracle with the page built from it, adding to
/// the report and mismatch kinds.
pub fn compare(
    origin: &str,
    oracle: &[AxNode],
    page: &Page,
    analysis: &Analysis,
    report: &mut Report,
    kinds: &mut HashMap<String, Mismatch>,
) {
    let by_backend: HashMap<u64, NodeId> = page
        .ids()
        .filter(|&id| page.layout(id).backend_id != 0)
        .map(|id| (page.layout(id).backend_id, id))
        .collect();
    let mut exclude = |reason: &str| *report.excluded.entry(reason.to_owned()).or_default() += 1;
    for ax in oracle {
        if ax.ignored {
            continue;
        }
        if matches!(ax.role.as_str(), "RootWebArea" | "WebArea") {
            exclude("document (RootWebArea)");
            continue;
        }
        if is_chromium_text_role(&ax.role) {
            exclude("text node (StaticText/InlineTextBox)");
            continue;
        }
        let Some(backend) = ax.backend_id else {
            exclude("no DOM node (ListMarker, pseudo-element)");
            continue;
        };
        let Some(&id) = by_backend.get(&backend) else {
            exclude("DOM node not in the recording (user-agent shadow, other frame)");
            continue;
        };
        if !matches!(page.node(id), Node::Element(_)) {
            exclude("not an element");
            continue;
        }
        report.compared += 1;
        let ours = analysis.role(id);
        let role_ok = ours.is_some_and(|r| chromium_role_matches(r, &ax.role));
        if role_ok {
            report.role_agree += 1;
        } else {
            note(
                kinds,
                format!(
                    "role: ours {}, chromium {}",
                    ours.unwrap_or("(none)"),
                    ax.role
                ),
                format!("{origin}: {}", describe(page, id)),
            );
        }
        let our_name = analysis
            .name(id)
            .map(|n| normalize(&n.text))
            .unwrap_or_default();
        let their_name = normalize(&ax.name);
        if our_name == their_name {
            report.name_agree += 1;
        } else {
            let source = analysis.name(id).map_or("none".to_owned(), |n| {
                format!("{:?}", n.source).to_lowercase()
            });
            let kind = match (our_name.is_empty(), their_name.is_empty()) {
                (true, false) => format!("name missing ({}; chromium has one)", ax.role),
                (false, true) => {
                    format!("name extra ({}; from {source}; chromium has none)", ax.role)
                }
                _ => format!("name differs ({}; from {source})", ax.role),
            };
            let clip = |s: &str| s.chars().take(60).collect::<String>();
            note(
                kinds,
                kind,
                format!(
                    "{origin}: {}: ours {:?} vs chromium {:?}",
                    describe(page, id),
                    clip(&our_name),
                    clip(&their_name)
                ),
            );
        }
    }
}

fn note(kinds: &mut HashMap<String, Mismatch>, kind: String, example: String) {
    kinds
        .entry(kind.clone())
        .and_modify(|m| m.count += 1)
        .or_insert(Mismatch {
            kind,
            count: 1,
            example,
        });
}

/// Computes percentages and keeps the most frequent mismatch kinds (ties by name, so output is stable).
pub fn finish(report: &mut Report, kinds: HashMap<String, Mismatch>, top: usize) {
    let pct = |n: usize| {
        if report.compared == 0 {
            100.0
        } else {
            n as f64 * 100.0 / report.compared as f64
        }
    };
    report.role_pct = pct(report.role_agree);
    report.name_pct = pct(report.name_agree);
    let mut list: Vec<Mismatch> = kinds.into_values().collect();
    list.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.kind.cmp(&b.kind)));
    list.truncate(top);
    report.mismatches = list;
}

fn print_text(report: &Report) {
    println!(
        "{} recordings, {} AX nodes compared",
        report.recordings, report.compared
    );
    println!(
        "role agreement: {:.2}% ({}/{})",
        report.role_pct, report.role_agree, report.compared
    );
    println!(
        "name agreement: {:.2}% ({}/{})",
        report.name_pct, report.name_agree, report.compared
    );
    println!("excluded:");
    for (reason, count) in &report.excluded {
        println!("  {count:>7}  {reason}");
    }
    if !report.mismatches.is_empty() {
        println!("most frequent mismatches:");
        for m in &report.mismatches {
            println!("  {:>6}  {}\n          e.g. {}", m.count, m.kind, m.example);
        }
    }
}
