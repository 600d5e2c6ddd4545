//! The HTML emitter: a `<table>` with run text escaped ([`escape::html`](crate::report::escape::html)) in content and attributes alike, figures right-aligned (`td.n`).

use std::fmt::Write as _;

use crate::report::escape::html;
use crate::report::table::{Cell, Format, Head, Table};

use super::plain;

/// Appends `table`, in a sideways-scrolling `div` when it is wide.
pub fn table(out: &mut String, table: &Table) {
    if table.wide {
        out.push_str("<div class=\"wide\">");
    }
    out.push_str("<table");
    if let Some(id) = table.id {
        let _ = write!(out, " id=\"{id}\"");
    }
    if let Some(class) = table.class {
        let _ = write!(out, " class=\"{class}\"");
    }
    out.push_str(">\n<tr>");
    let shown = table.shown(Format::Html);
    for &i in &shown {
        let column = &table.columns[i];
        match column.title {
            Some(title) => {
                let _ = write!(out, "<th title=\"{}\">", html(title));
            }
            None => out.push_str("<th>"),
        }
        match column.head_in(Format::Html) {
            Head::Label(label) => out.push_str(label),
            Head::Text(text) => out.push_str(&html(text)),
        }
        out.push_str("</th>");
    }
    out.push_str("</tr>\n");
    for row in &table.rows {
        out.push_str("<tr>");
        for &i in &shown {
            cell(out, &row[i]);
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>");
    if table.wide {
        out.push_str("</div>");
    }
    out.push('\n');
}

/// One `<td>`.
fn cell(out: &mut String, c: &Cell) {
    let (open, content) = parts(c);
    let _ = write!(out, "<td{open}>{content}</td>");
}

/// A cell's attributes (with their leading space) and its content.
fn parts(c: &Cell) -> (String, String) {
    const NUMBER: &str = " class=\"n\"";
    match c {
        Cell::Empty => (String::new(), String::new()),
        Cell::Text(text) => (String::new(), html(text)),
        Cell::LongText(text) => (" class=\"text\"".to_owned(), html(text)),
        Cell::Task { id, instruction } => {
            let under = instruction.as_ref().map_or(String::new(), |i| {
                format!("<div class=\"instruction\">{}</div>", html(i))
            });
            (" class=\"task\"".to_owned(), format!("{}{under}", html(id)))
        }
        Cell::RateStacked(e) => (
            NUMBER.to_owned(),
            format!(
                "{:.3}<span class=\"ci\">[{:.3}, {:.3}]</span>",
                e.value, e.low, e.high
            ),
        ),
        Cell::Verdict { text, significant } => {
            let class = if *significant { " class=\"sig\"" } else { "" };
            (class.to_owned(), (*text).to_owned())
        }
        Cell::Score {
            passed,
            total,
            title,
            href,
        } => {
            let class = match (passed, total) {
                (_, 0) => "none",
                (p, t) if p == t => "pass",
                (0, _) => "fail",
                _ => "part",
            };
            (
                format!(" class=\"{class}\" title=\"{}\"", html(title)),
                format!("<a href=\"{}\">{passed}/{total}</a>", html(href)),
            )
        }
        Cell::Category {
            step_success,
            steps_passed,
            steps,
            tasks_passed,
            tasks,
        } => (
            NUMBER.to_owned(),
            format!(
                "{step_success:.3} ({steps_passed}/{steps})<span class=\"ci\">{tasks_passed}/{tasks} tasks</span>"
            ),
        ),
        Cell::Bar { ok, of } => {
            // The bar is 120px wide at 100%; no episodes, no bar.
            let width = (ok * 120).checked_div(*of).unwrap_or(0);
            (
                String::new(),
                format!(
                    "<span class=\"barbg\"><span class=\"bar\" style=\"width:{width}px\"></span></span>{ok}/{of}"
                ),
            )
        }
        Cell::Link(inner, href) => {
            let (open, content) = parts(inner);
            (open, format!("<a href=\"{}\">{content}</a>", html(href)))
        }
        // Figures, escaped all the same: a fault kind or a calibration cell
        // is data, however plain it looks.
        figure => (NUMBER.to_owned(), html(&plain(figure))),
    }
}

/// Opens a self-contained page: the Content-Security-Policy forbids every
/// script and external resource (the page needs none; a second line of
/// defence behind escaping), `css` is inlined, `title` heads it.
pub fn open_page(out: &mut String, title: &str, css: &[&str]) {
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>\n{}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        html(title),
        css.concat(),
        html(title)
    );
}

/// Closes a page [`open_page`] opened.
pub fn close_page(out: &mut String) {
    out.push_str("</body>\n</html>\n");
}
