//! `pagesnap inspect`: a human summary of recordings.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use pagesnap_engine::recording::NodeKind;

use crate::{observe, store};

/// Arguments of `pagesnap inspect`.
#[derive(clap::Args)]
pub struct Args {
    /// Recordings (`.json.gz`) or folders holding them.
    #[arg(required = true)]
    recordings: Vec<PathBuf>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    for path in store::find_recordings(&args.recordings)? {
        let recording = store::read(&path)?;
        let size = std::fs::metadata(&path).map_or(0, |m| m.len());
        let analysed = observe::analyze(&recording);
        let (page, analysis) = (analysed.page.page(), analysed.page.analysis());
        let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
        for node in &recording.nodes {
            let kind = match node.kind {
                NodeKind::Document => "document",
                NodeKind::IframeDocument => "iframe document",
                NodeKind::ShadowRootOpen => "shadow root (open)",
                NodeKind::ShadowRootClosed => "shadow root (closed)",
                NodeKind::ShadowRootUserAgent => "shadow root (user agent)",
                NodeKind::Element => "element",
                NodeKind::Text => "text",
            };
            *kinds.entry(kind).or_default() += 1;
        }
        let rendered = recording
            .nodes
            .iter()
            .filter(|n| n.bounds.is_some())
            .count();
        let interactive = analysis.interactive.iter().filter(|i| i.is_some()).count();
        let actionable = page.ids().filter(|&id| analysis.is_actionable(id)).count();
        let ax = recording.ax.nodes(&path.display().to_string())?;
        let exposed = ax.iter().filter(|a| !a.ignored).count();
        println!("{}", path.display());
        println!("  url:        {}", recording.url);
        println!("  title:      {}", recording.title);
        println!(
            "  captured:   {} with {}",
            recording.captured_at, recording.browser
        );
        println!(
            "  viewport:   {}x{} @{}x, scroll ({}, {}), document {}x{}",
            recording.viewport.width,
            recording.viewport.height,
            recording.viewport.device_scale_factor,
            recording.scroll.x,
            recording.scroll.y,
            recording.document_size.width,
            recording.document_size.height
        );
        println!("  size:       {:.1} KiB on disk", size as f64 / 1024.0);
        println!(
            "  nodes:      {} ({} with layout)",
            recording.nodes.len(),
            rendered
        );
        for (kind, count) in &kinds {
            println!("    {kind:<26}{count}");
        }
        if let Some(counts) = recording.counts {
            println!(
                "  browser querySelectorAll('*'): document {}, shadow {}, iframe {}",
                counts.document, counts.shadow, counts.iframe
            );
        }
        let notes = &recording.capture;
        if !notes.is_empty() {
            let mut said = Vec::new();
            if notes.replaced_surrogates > 0 {
                said.push(format!(
                    "{} lone surrogates replaced",
                    notes.replaced_surrogates
                ));
            }
            if notes.cut_nodes > 0 {
                said.push(format!("{} nodes cut (--max-nodes)", notes.cut_nodes));
            }
            if notes.cut_text > 0 {
                said.push(format!("{} bytes of text cut (--max-text)", notes.cut_text));
            }
            if let Some(redacted) = notes.redacted {
                said.push(format!("redacted ({redacted} secrets replaced)"));
            }
            println!("  capture:    {}", said.join(", "));
        }
        println!(
            "  interactive candidates: {interactive} ({actionable} actionable: visible, not occluded or obscured)"
        );
        println!("  modal layer: {:?}", analysis.modal.kind);
        println!("  AX oracle:  {} nodes ({} not ignored)", ax.len(), exposed);
    }
    Ok(ExitCode::SUCCESS)
}
