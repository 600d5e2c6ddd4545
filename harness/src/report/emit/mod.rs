//! The emitters: one small writer per format turning a [`Table`](super::table::Table) into CSV, Markdown or HTML.
//!
//! Each decides, per kind of cell, how to escape and lay it out; none
//! computes a figure (ruff's `Emitter` per output format).

pub mod csv;
pub mod html;
pub mod markdown;
