//! What a cell says before a format escapes it, shared by the three emitters.

use crate::report::format::rate;
use crate::report::table::Cell;

/// What a cell says before a format escapes it: the text of a text cell,
/// the figures of the others as both the CSV file and the Markdown page
/// write them (they hold no page text, so neither escapes them).
pub(super) fn plain(cell: &Cell) -> String {
    match cell {
        Cell::Empty => String::new(),
        Cell::Text(text) | Cell::LongText(text) | Cell::Figure(text) => text.clone(),
        Cell::Task { id, .. } => id.clone(),
        Cell::Count(n) => n.to_string(),
        Cell::Fixed(v, decimals) => format!("{v:.decimals$}"),
        Cell::Real(v) => v.to_string(),
        Cell::Flag(flag) => flag.map_or(String::new(), |b| b.to_string()),
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
        Cell::Link(inner, _) => plain(inner),
    }
}
