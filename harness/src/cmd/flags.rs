//! Flags several subcommands read the same way: `--strategy NAME[,NAME…]`.

use anyhow::{Result, bail};
use pagesnap_engine::strategy::{self, STRATEGIES, Strategy};

use crate::external::{self, UserProgram};
use crate::observer::Observer;
use crate::variant::{Defaults, Variant};

/// The strategy `--strategy NAME` names; the error lists the known ones.
pub fn strategy_named(name: &str) -> Result<&'static dyn Strategy> {
    if external::is_external(name) {
        bail!(
            "{name}: external strategies need a live page; they run in `pagesnap live`, \
             `pagesnap bench-live` and `pagesnap snapshot URL|FILE.html`, not on recordings \
             (offline replay keeps pagesnap's own strategies)"
        );
    }
    let Some(found) = strategy::by_name(name) else {
        let known: Vec<&str> = STRATEGIES.iter().map(|s| s.name()).collect();
        bail!("unknown strategy {name:?} (known: {})", known.join(", "));
    };
    Ok(found)
}

/// The strategies a comma-separated `--strategy` names, in its order (none:
/// all). A name given twice is refused: results are keyed by strategy, so a
/// repeat would produce two rows under one key.
pub fn strategies_named(names: &[String]) -> Result<Vec<&'static dyn Strategy>> {
    if names.is_empty() {
        return Ok(STRATEGIES.to_vec());
    }
    let mut chosen: Vec<&'static dyn Strategy> = Vec::with_capacity(names.len());
    for name in names {
        let found = strategy_named(name)?;
        if chosen.iter().any(|s| s.name() == found.name()) {
            bail!(
                "--strategy {}: strategy {:?} is given twice",
                names.join(","),
                found.name()
            );
        }
        chosen.push(found);
    }
    Ok(chosen)
}

/// What a live command observes with: pagesnap's strategies and external
/// ones (`ext:NAME`, a shipped adapter or a `--external NAME=COMMAND`), in
/// the order given (none: pagesnap's strategies). A name given twice is refused.
pub fn observers_named(
    names: &[String],
    user: &[String],
    timeout: std::time::Duration,
) -> Result<Vec<Observer>> {
    let user: Vec<UserProgram> = user
        .iter()
        .map(|p| UserProgram::parse(p))
        .collect::<Result<_>>()?;
    if names.is_empty() {
        return Ok(STRATEGIES.iter().map(|&s| Observer::Engine(s)).collect());
    }
    let mut chosen: Vec<Observer> = Vec::with_capacity(names.len());
    for name in names {
        let observer = if external::is_external(name) {
            Observer::External(std::sync::Arc::new(external::named(name, &user, timeout)?))
        } else {
            Observer::Engine(strategy_named(name)?)
        };
        if chosen.iter().any(|o| o.name() == observer.name()) {
            bail!(
                "--strategy {}: strategy {:?} is given twice",
                names.join(","),
                observer.name()
            );
        }
        chosen.push(observer);
    }
    Ok(chosen)
}

/// The variants a comma-separated `--strategy` names (`aria@2000,flat`), in
/// its order (none: every strategy under `defaults`). A name given twice is
/// refused, as for [`strategies_named`].
pub fn variants_named(names: &[String], defaults: Defaults) -> Result<Vec<Variant>> {
    if names.is_empty() {
        return Ok(STRATEGIES
            .iter()
            .map(|&s| Variant::plain(s, defaults))
            .collect());
    }
    let mut chosen: Vec<Variant> = Vec::with_capacity(names.len());
    for name in names {
        let variant = Variant::parse(name, defaults, strategy_named)?;
        if chosen.iter().any(|v| v.name() == variant.name()) {
            bail!(
                "--strategy {}: strategy {:?} is given twice",
                names.join(","),
                variant.name()
            );
        }
        chosen.push(variant);
    }
    Ok(chosen)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &str) -> Vec<String> {
        list.split(',').map(str::to_owned).collect()
    }

    /// Issue 17: `--strategy flat,flat` produced duplicate keyed rows.
    #[test]
    fn a_strategy_given_twice_is_refused() {
        let err = strategies_named(&names("flat,aria,flat"))
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some("--strategy flat,aria,flat: strategy \"flat\" is given twice")
        );
        let chosen = strategies_named(&names("aria,flat")).map(|v| v.len()).ok();
        assert_eq!(chosen, Some(2));
    }
}
