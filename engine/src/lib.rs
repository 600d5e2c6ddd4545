//! pagesnap-engine: turns a recorded web page into what an LLM web agent reads.
//!
//! Pure and deterministic: a [`recording::Recording`] goes in, facts and
//! observations come out; no I/O, no async, no network.
//!
//! ```
//! use pagesnap_engine::page::{Page, Selector};
//!
//! let page = Page::from_html("<main><button id=go>Go</button></main>");
//! let selector = Selector::parse("main > #go").unwrap();
//! assert_eq!(page.select(&selector).count(), 1);
//! ```
#![deny(missing_docs)]

pub mod analyze;
pub mod geom;
pub mod observation;
pub mod page;
pub mod passes;
pub mod recording;
pub mod strategy;
#[doc(hidden)]
pub mod testing;
