//! Passes shared by every strategy: scope and layers, stable refs and new marks, redaction, viewport context, budget.
//!
//! [`Context::new`] runs the passes that decide *what* is shown (which nodes
//! get refs, which refs are new, what is secret); strategies then render
//! from the context and never re-derive those decisions.

pub mod budget;
mod context;
mod layers;
mod options;
pub mod redact;
pub mod redact_recording;
pub mod refs;
pub mod viewport;

pub use context::{Context, Target};
pub use options::{Layer, ObserveError, Options};
