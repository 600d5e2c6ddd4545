//! Flags several subcommands read the same way: `--strategy NAME[,NAME…]`.

use anyhow::{Result, bail};
use pagesnap_engine::strategy::{self, STRATEGIES, Strategy};

/// The strategy `--strategy NAME` names; the error lists the known ones.
pub fn strategy_named(name: &str) -> Result<&'static dyn Strategy> {
    let Some(found) = strategy::by_name(name) else {
        let known: Vec<&str> = STRATEGIES.iter().map(|s| s.name()).collect();
        bail!("unknown strategy {name:?} (known: {})", known.join(", "));
    };
    Ok(found)
}

/// The strategies a comma-separated `--strategy` names, in its order (none: all).
pub fn strategies_named(names: &[String]) -> Result<Vec<&'static dyn Strategy>> {
    if names.is_empty() {
        return Ok(STRATEGIES.to_vec());
    }
    names.iter().map(|name| strategy_named(name)).collect()
}
