//! The Markdown emitter: a pipe table, run text escaped ([`escape::md`]), figures as they are.

use std::fmt::Write as _;

use crate::report::escape::md;
use crate::report::format::rate;
use crate::report::table::{Cell, Format, Head, Table};

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

/// One cell as Markdown text.
pub(super) fn value(cell: &Cell) -> String {
    match cell {
        Cell::Empty => String::new(),
        Cell::Text(text) | Cell::LongText(text) => md(text),
        Cell::Task { id, .. } => md(id),
        Cell::Count(n) => n.to_string(),
        Cell::Fixed(v, decimals) => format!("{v:.decimals$}"),
        Cell::Real(v) => v.to_string(),
        Cell::Flag(flag) => flag.map_or(String::new(), |b| b.to_string()),
        Cell::Figure(text) => text.clone(),
        Cell::Rate(e) | Cell::RateStacked(e) => rate(e),
        Cell::Difference(e) => format!("{:+.3} [{:+.3}, {:+.3}]", e.value, e.low, e.high),
        Cell::Verdict { text, .. } => (*text).to_owned(),
        Cell::Score { passed, total, .. } => {
            let mark = if passed == total && *total > 0 {
                "✓"
            } else {
                "✗"
            };
            format!("{mark} {passed}/{total}")
        }
        Cell::Category {
            step_success,
            steps_passed,
            steps,
            tasks_passed,
            tasks,
        } => format!("{step_success:.3} ({steps_passed}/{steps}), {tasks_passed}/{tasks}"),
        Cell::Bar { ok, of } => format!("{ok}/{of}"),
        Cell::Link(inner, _) => value(inner),
    }
}
