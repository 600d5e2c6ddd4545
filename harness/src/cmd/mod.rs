//! One module per `pagesnap` subcommand.

pub mod inspect;
pub mod record;
pub mod snapshot;
pub mod validate;
