//! Criterion benches for the engine: page building from recordings.
use criterion::{Criterion, criterion_group, criterion_main};

fn page_from_html(c: &mut Criterion) {
    let html = "<main>".to_owned() + &"<div><button>x</button> text</div>".repeat(2000) + "</main>";
    c.bench_function("page_from_html_2000", |b| {
        b.iter(|| pagesnap_engine::page::Page::from_html(&html))
    });
}

criterion_group!(benches, page_from_html);
criterion_main!(benches);
