//! The Markdown emitter: a pipe table, run text escaped ([`escape::md`](crate::report::escape::md)), figures as they are.

use std::fmt::Write as _;

use crate::report::escape::md;
use crate::report::table::{Cell, Format, Head, Table};

use super::plain;

/// Appends `table`: header, separator and one line per row.
pub fn table(out: &mut String, table: &Table) {
    let shown = table.shown(Format::Markdown);
    out.push('|');
    for &i in &shown {
        let head = match table.columns[i].head_in(Format::Markdown) {
            Head::Label(label) => (*label).to_owned(),
            Head::Text(text) => md(text),
        };
        let _ = write!(out, " {head} |");
    }
    out.push_str("\n|");
    out.push_str(&"---|".repeat(shown.len()));
    out.push('\n');
    for row in &table.rows {
        out.push('|');
        for &i in &shown {
            let _ = write!(out, " {} |", value(&row[i]));
        }
        out.push('\n');
    }
}

/// One cell as Markdown text: run text escaped, the rest as [`plain`] says it.
fn value(cell: &Cell) -> String {
    match cell {
        Cell::Text(text) | Cell::LongText(text) => md(text),
        Cell::Task { id, .. } => md(id),
        Cell::Link(inner, _) => value(inner),
        other => plain(other),
    }
}
