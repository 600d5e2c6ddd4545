//! pagesnap-engine: turns a recorded web page into what an LLM web agent reads.
//!
//! Pure and deterministic: a [`recording::Recording`] goes in, facts and
//! observations come out; no I/O, no async, no network.
//!
//! A recording is decoded, built into a [`page::Page`], analysed once
//! ([`analyze::Analyzed`]), and rendered by any number of strategies:
//!
//! ```
//! use pagesnap_engine::analyze::Analyzed;
//! use pagesnap_engine::page::Page;
//! use pagesnap_engine::recording::Recording;
//! use pagesnap_engine::strategy::{self, Options};
//!
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/login/initial.json.gz");
//! let bytes = std::fs::read(path)?;
//! let recording = Recording::from_gz_bytes(&bytes, path)?;
//! let analyzed = Analyzed::new(Page::from_recording(&recording));
//!
//! let aria = strategy::by_name("aria").expect("aria is registered");
//! let observation = aria.observe(&analyzed, &Options::default())?;
//! assert!(observation.text.contains("[ref=e1]"));
//! for (reference, node) in &observation.refs {
//!     // Every ref names an element the analysis found actionable.
//!     assert!(analyzed.analysis().is_actionable(*node), "{reference}");
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Static markup has no layout, so geometry-dependent facts are unknown:
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
mod bytes;
mod chunk;
mod class;
pub mod color;
pub mod dialog;
mod digits;
pub mod geom;
pub mod observation;
pub mod page;
pub mod passes;
pub mod recording;
pub mod strategy;
#[doc(hidden)]
pub mod testing;
