//! The table model every report is computed into: columns declared once, rows of typed cells, rendered by the emitters in [`super::emit`].
//!
//! A report builds its tables once from its figures; the CSV, Markdown and
//! HTML emitters decide how each kind of cell is written (escaping, number
//! alignment, an interval in small type, a link). Where the Markdown and HTML
//! pages show different columns of one table (the HTML page has latency and
//! cost, the Markdown one the compact counts), a column names the one format
//! it belongs to, so the rows are still computed once.

use super::metrics::Estimate;

/// An output format, for the columns that only one of them shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `results.csv` and the other CSV files.
    Csv,
    /// `report.md`.
    Markdown,
    /// `report.html`.
    Html,
}

/// A column header.
#[derive(Clone, Debug)]
pub enum Head {
    /// A label of our own (a constant): written as it is in every format.
    Label(&'static str),
    /// Text from a run (a strategy name): escaped for each format.
    Text(String),
}

/// One column: its header, and in which formats it appears.
#[derive(Clone, Debug)]
pub struct Column {
    /// The header (and a CSV file's column name).
    pub head: Head,
    /// The HTML page's header, when it words the column differently.
    pub html_head: Option<Head>,
    /// HTML only: the header's tooltip.
    pub title: Option<&'static str>,
    /// The one format showing the column (none: all of them).
    pub only: Option<Format>,
}

impl Column {
    /// A column headed by a label of our own.
    pub const fn label(label: &'static str) -> Column {
        Column {
            head: Head::Label(label),
            html_head: None,
            title: None,
            only: None,
        }
    }

    /// A column headed by text from the run (a strategy name).
    pub fn text(text: impl Into<String>) -> Column {
        Column {
            head: Head::Text(text.into()),
            html_head: None,
            title: None,
            only: None,
        }
    }

    /// Worded as `head` on the HTML page.
    pub fn html(mut self, head: Head) -> Column {
        self.html_head = Some(head);
        self
    }

    /// With a tooltip on the HTML page.
    pub const fn title(mut self, title: &'static str) -> Column {
        self.title = Some(title);
        self
    }

    /// Shown by `format` only.
    pub const fn only(mut self, format: Format) -> Column {
        self.only = Some(format);
        self
    }

    /// Whether `format` shows the column.
    pub fn shown_in(&self, format: Format) -> bool {
        self.only.is_none_or(|only| only == format)
    }

    /// The header `format` writes.
    pub fn head_in(&self, format: Format) -> &Head {
        match (&self.html_head, format) {
            (Some(head), Format::Html) => head,
            _ => &self.head,
        }
    }
}

/// A cell: what it holds decides how each format writes it.
#[derive(Clone, Debug)]
pub enum Cell {
    /// Nothing (an unknown value in a CSV file).
    Empty,
    /// Text from a page, a suite or a run (ids, names, answers): escaped in every format.
    Text(String),
    /// Long text from a page or a run (an instruction, an answer, an
    /// error): as [`Cell::Text`], wrapped on the HTML page.
    LongText(String),
    /// A count.
    Count(u64),
    /// A number with a fixed number of decimals.
    Fixed(f64, usize),
    /// A number as Rust prints it shortest (`0.5`, `-1`, `12.25`).
    Real(f64),
    /// `true`, `false`, or empty when there is no verdict.
    Flag(Option<bool>),
    /// Figures or fixed words we wrote (`474 / 548 / 548`, `±12.5pp`,
    /// `covered 2, stale 1`): never Markdown-escaped (they hold no page
    /// text), right-aligned on the HTML page.
    Figure(String),
    /// A rate and its 95% interval, `0.812 [0.750, 0.870]`.
    Rate(Estimate),
    /// A rate whose interval the HTML page prints in small type under it.
    RateStacked(Estimate),
    /// A difference of rates and its interval, signed: `+0.125 [-0.050, +0.300]`.
    Difference(Estimate),
    /// A paired test's verdict, highlighted on the HTML page when significant.
    Verdict {
        /// "significant at 0.05" or "not significant".
        text: &'static str,
        /// Whether the difference is significant.
        significant: bool,
    },
    /// A task: its id, and on the HTML page its instruction under it.
    Task {
        /// The task id.
        id: String,
        /// The instruction (none: the id alone).
        instruction: Option<String>,
    },
    /// Steps passed of a task under a strategy: `✓ 2/2` in Markdown; on
    /// the HTML page a coloured cell linking to the task's first step.
    Score {
        /// Steps passed.
        passed: usize,
        /// Steps run.
        total: usize,
        /// The cell's tooltip.
        title: String,
        /// The step page it links to.
        href: String,
    },
    /// A suite tag's score under a strategy: step SR (steps passed / run), tasks passed / tasks.
    Category {
        /// Share of the tag's steps passed.
        step_success: f64,
        /// Steps passed.
        steps_passed: usize,
        /// Steps run.
        steps: usize,
        /// Tasks all of whose steps passed.
        tasks_passed: usize,
        /// The tag's tasks.
        tasks: usize,
    },
    /// Episodes that succeeded of those run, with a bar of the share on the HTML page.
    Bar {
        /// Successful episodes.
        ok: usize,
        /// Episodes run.
        of: usize,
    },
    /// A cell linking to a page on the HTML page (Markdown and CSV write the cell alone).
    Link(Box<Cell>, String),
}

impl Cell {
    /// A count of things.
    pub fn count(n: usize) -> Cell {
        // usize is at most 64 bits on every target we build for.
        Cell::Count(n as u64)
    }

    /// A count, or empty when there is none.
    pub fn maybe_count(n: Option<usize>) -> Cell {
        n.map_or(Cell::Empty, Cell::count)
    }

    /// Text, empty when there is none.
    pub fn maybe_text(text: Option<&str>) -> Cell {
        Cell::Text(text.unwrap_or("").to_owned())
    }

    /// A true-or-false value.
    pub fn flag(value: bool) -> Cell {
        Cell::Flag(Some(value))
    }
}

/// A table: its columns and rows of typed cells, and how the HTML page marks it.
#[derive(Clone, Debug, Default)]
pub struct Table {
    /// The columns, in order.
    pub columns: Vec<Column>,
    /// The rows, each with one cell per column.
    pub rows: Vec<Vec<Cell>>,
    /// HTML only: the table's `id`.
    pub id: Option<&'static str>,
    /// HTML only: the table's `class`.
    pub class: Option<&'static str>,
    /// HTML only: scrolls sideways when wider than the page.
    pub wide: bool,
}

impl Table {
    /// A table of `columns` and no rows yet.
    pub fn new(columns: Vec<Column>) -> Table {
        Table {
            columns,
            ..Table::default()
        }
    }

    /// With the HTML `id`.
    pub fn id(mut self, id: &'static str) -> Table {
        self.id = Some(id);
        self
    }

    /// With the HTML `class`.
    pub fn class(mut self, class: &'static str) -> Table {
        self.class = Some(class);
        self
    }

    /// Scrolling sideways on the HTML page.
    pub fn wide(mut self) -> Table {
        self.wide = true;
        self
    }

    /// Adds a row: one cell per column, in column order.
    pub fn push(&mut self, row: Vec<Cell>) {
        debug_assert_eq!(row.len(), self.columns.len(), "one cell per column");
        self.rows.push(row);
    }

    /// The indices of the columns `format` shows, in order.
    pub(super) fn shown(&self, format: Format) -> Vec<usize> {
        (0..self.columns.len())
            .filter(|&i| self.columns[i].shown_in(format))
            .collect()
    }
}

/// A column and how a row's cell of it is made from one item: a CSV file's
/// columns are a slice of these, so its header and its cells cannot drift apart.
pub type Field<T> = (&'static str, fn(&T) -> Cell);

impl Table {
    /// One row per item, one column per field.
    pub fn of<'a, T: 'a, F: Fn(&T) -> Cell>(
        fields: &[(&'static str, F)],
        items: impl IntoIterator<Item = &'a T>,
    ) -> Table {
        let mut table = Table::new(fields.iter().map(|(name, _)| Column::label(name)).collect());
        for item in items {
            table.push(fields.iter().map(|(_, cell)| cell(item)).collect());
        }
        table
    }
}
