//! One module per `pagesnap` subcommand.

pub mod compare;
pub mod inspect;
pub mod record;
pub mod run;
pub mod snapshot;
pub mod validate;

// Moving to `report/`: the command-line glue follows in the next commit.
pub use crate::report::{diff, merge};
