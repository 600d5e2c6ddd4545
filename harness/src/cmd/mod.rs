//! One module per `pagesnap` subcommand.

pub mod compare;
pub mod inspect;
pub mod record;
pub mod snapshot;
pub mod validate;
