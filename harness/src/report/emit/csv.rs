//! The CSV emitter: a header of the columns' names, then one line per row, every cell of run text neutralised and quoted ([`escape::cell`](crate::report::escape::cell)).

use crate::report::escape::cell;
use crate::report::table::{Cell, Format, Head, Table};

use super::plain;

/// The whole file: header line and rows, each line ending in `\n`.
pub fn file(table: &Table) -> String {
    let shown = table.shown(Format::Csv);
    let mut out = shown
        .iter()
        .map(|&i| match table.columns[i].head_in(Format::Csv) {
            Head::Label(label) => (*label).to_owned(),
            Head::Text(text) => cell(text),
        })
        .collect::<Vec<_>>()
        .join(",");
    out.push('\n');
    for row in &table.rows {
        let cells: Vec<String> = shown.iter().map(|&i| value(&row[i])).collect();
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}

/// One cell: text neutralised and quoted, figures as they are.
fn value(c: &Cell) -> String {
    match c {
        Cell::Text(text) | Cell::LongText(text) => cell(text),
        Cell::Task { id, .. } => cell(id),
        Cell::Link(inner, _) => value(inner),
        other => plain(other),
    }
}
