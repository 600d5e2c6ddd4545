//! Criterion benches for the engine — decode (with and without the AX oracle), page build, analysis, every strategy — on the committed fixtures and the corpus sample the instruction gate measures, with throughput in elements/s (bytes/s for decode and the parse).
//!
//! The corpus sample (`pagesnap_benches::instructions::CORPUS`) is read from
//! `target/bench-corpus/`, where `scripts/bench-gate` records it; pages not
//! recorded yet are skipped with a note.
//!
//! The largest fixture (`data_table/initial`, 48,140 nodes) is the
//! linear-time check: analysis must scale with node count, not its square.
//!
//! `html5ever-parse` is the budget the engine plays against: html5ever
//! parsing the same page's DOM serialised as HTML (the `html` strategy's
//! whole-page output). A decoded recording → `aria` text should cost about
//! that much.

use std::path::{Path, PathBuf};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use pagesnap_benches::instructions::{CORPUS, FIXTURES};
use pagesnap_engine::analyze::{Analysis, Analyzed};
use pagesnap_engine::page::Page;
use pagesnap_engine::recording::Recording;
use pagesnap_engine::strategy::{Options, STRATEGIES};

/// The allocator `pagesnap` ships with.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The pages: every fixture, then the corpus sample that has been recorded.
fn pages() -> Vec<(String, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut pages: Vec<(String, PathBuf)> = FIXTURES
        .iter()
        .map(|key| {
            (
                key.to_string(),
                root.join(format!("fixtures/{key}.json.gz")),
            )
        })
        .collect();
    for key in CORPUS {
        let path = root.join(format!("target/bench-corpus/{key}.json.gz"));
        if path.is_file() {
            pages.push((format!("corpus/{key}"), path));
        } else {
            eprintln!("skipping corpus/{key}: not recorded yet (scripts/bench-gate records it)");
        }
    }
    pages
}

fn engine(c: &mut Criterion) {
    let mut group = c.benchmark_group("engine");
    group.sample_size(10);
    for (name, path) in pages() {
        let name = name.as_str();
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let origin = path.display().to_string();
        let recording = Recording::from_gz_bytes(&bytes, &origin).unwrap_or_else(|e| panic!("{e}"));
        let elements = recording
            .nodes
            .iter()
            .filter(|n| n.kind == pagesnap_engine::recording::NodeKind::Element)
            .count() as u64;
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_with_input(BenchmarkId::new("decode", name), &bytes, |b, bytes| {
            b.iter(|| Recording::from_gz_bytes(bytes, &origin))
        });
        // What `pagesnap validate` pays: decoding leaves the AX oracle unparsed.
        group.bench_with_input(BenchmarkId::new("decode+ax", name), &bytes, |b, bytes| {
            b.iter(|| {
                let recording = Recording::from_gz_bytes(bytes, &origin)?;
                recording.ax.nodes(&origin).map(|nodes| nodes.len())
            })
        });
        group.throughput(Throughput::Elements(elements));
        group.bench_with_input(BenchmarkId::new("page", name), &recording, |b, r| {
            b.iter(|| Page::from_recording(r))
        });
        let page = Page::from_recording(&recording);
        group.bench_with_input(BenchmarkId::new("analysis", name), &page, |b, p| {
            b.iter(|| Analysis::new(p))
        });
        let html = pagesnap_engine::strategy::by_name("html")
            .map(|html| {
                let options = Options {
                    full_page: Some(true),
                    redact: false,
                    ..Options::default()
                };
                html.observe(&Analyzed::new(page.clone()), &options)
                    .unwrap_or_else(|e| panic!("{origin}: {e}"))
                    .text
            })
            .unwrap_or_else(|| panic!("the html strategy is registered"));
        group.throughput(Throughput::Bytes(html.len() as u64));
        group.bench_with_input(
            BenchmarkId::new("html5ever-parse", name),
            &html,
            |b, html| b.iter(|| scraper::Html::parse_document(html)),
        );
        let screenshot = std::fs::read(path.to_string_lossy().replace(".json.gz", ".png")).ok();
        group.throughput(Throughput::Elements(elements));
        for strategy in STRATEGIES {
            let options = Options {
                screenshot: screenshot.as_deref(),
                ..Options::default()
            };
            // A fresh page per iteration so the analysis is part of the cost,
            // as it is for a real observation.
            group.bench_with_input(
                BenchmarkId::new(strategy.name(), name),
                &recording,
                |b, r| {
                    b.iter(|| {
                        let page = Analyzed::new(Page::from_recording(r));
                        strategy.observe(&page, &options)
                    })
                },
            );
        }
    }
    group.finish();
}

criterion_group!(benches, engine);
criterion_main!(benches);
