//! The emitters: one small writer per format turning a [`Table`](super::table::Table) into CSV, Markdown or HTML.
//!
//! Each decides, per kind of cell, how to escape and lay it out; none
//! computes a figure (ruff's `Emitter` per output format).

pub mod csv;
pub mod html;
pub mod markdown;
mod plain;

use plain::plain;

#[cfg(test)]
mod tests {
    use super::super::metrics::Estimate;
    use super::super::table::{Cell, Column, Format, Head, Table};

    /// A strategy column, a rate, and a column each page words or shows differently.
    fn table() -> Table {
        let mut table = Table::new(vec![
            Column::label("strategy"),
            Column::label("step SR"),
            Column::label("cost (USD)").html(Head::Label("cost $")),
            Column::label("errors").only(Format::Markdown),
        ])
        .id("t");
        let rate = Estimate {
            value: 0.5,
            low: 0.25,
            high: 0.75,
        };
        table.push(vec![
            Cell::Text("=a|<b>".to_owned()),
            Cell::RateStacked(rate),
            Cell::Figure("0.000412".to_owned()),
            Cell::count(2),
        ]);
        table
    }

    #[test]
    fn each_format_escapes_its_own_way_and_shows_its_columns() {
        let table = table();
        assert_eq!(
            super::csv::file(&table),
            "strategy,step SR,cost (USD)\n'=a|<b>,0.500 [0.250, 0.750],0.000412\n"
        );
        let mut md = String::new();
        super::markdown::table(&mut md, &table);
        assert_eq!(
            md,
            "| strategy | step SR | cost (USD) | errors |\n|---|---|---|---|\n\
             | =a\\|&lt;b&gt; | 0.500 [0.250, 0.750] | 0.000412 | 2 |\n"
        );
        let mut html = String::new();
        super::html::table(&mut html, &table);
        assert_eq!(
            html,
            "<table id=\"t\">\n<tr><th>strategy</th><th>step SR</th><th>cost $</th></tr>\n\
             <tr><td>=a|&lt;b&gt;</td><td class=\"n\">0.500<span class=\"ci\">[0.250, 0.750]</span></td>\
             <td class=\"n\">0.000412</td></tr>\n</table>\n"
        );
    }
}
