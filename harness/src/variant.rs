//! Strategy variants: a strategy with what the model may see set — a token budget, viewport or whole page, text no person can see shown — named `aria@2000`, `flat@viewport`, `aria@8000@full`, `aria@hidden`.
//!
//! A run crosses its tasks with variants, not bare strategies: a budget
//! sweep (`--strategy aria@2000,aria@8000,flat`) is one run whose every
//! report names each variant as its own row. A bare name (`aria`) takes the
//! run's defaults (`--max-tokens`, `--viewport-only`/`--full-page`, else the
//! suite's `[suite] max_tokens` / `full_page`, else the strategy's own).

use anyhow::{Result, bail};
use pagesnap_engine::strategy::{Options, Strategy};
use serde::{Deserialize, Serialize};

/// What a run sets for every variant that does not say otherwise.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Defaults {
    /// Token budget of each observation.
    pub max_tokens: Option<usize>,
    /// Whole page (`Some(true)`), viewport only (`Some(false)`), or the strategy's default.
    pub full_page: Option<bool>,
    /// Show text no person can see instead of withholding it ([`Options::show_hidden`]).
    pub show_hidden: bool,
}

impl Defaults {
    /// `self` where set, else `fallback`.
    pub fn or(self, fallback: Defaults) -> Defaults {
        Defaults {
            max_tokens: self.max_tokens.or(fallback.max_tokens),
            full_page: self.full_page.or(fallback.full_page),
            show_hidden: self.show_hidden || fallback.show_hidden,
        }
    }
}

/// A strategy with its observation settings, under the name reports use.
#[derive(Clone)]
pub struct Variant {
    /// The engine strategy.
    pub strategy: &'static dyn Strategy,
    /// Token budget (`None`: the whole observation).
    pub max_tokens: Option<usize>,
    /// Whole page, viewport only, or the strategy's default.
    pub full_page: Option<bool>,
    /// Text no person can see shown, not withheld.
    pub show_hidden: bool,
    name: String,
}

/// How `run.json` records a variant: its name and settings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VariantInfo {
    /// The name rows and reports use.
    pub name: String,
    /// The engine strategy.
    pub strategy: String,
    /// Token budget, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<usize>,
    /// Whole page (`true`) or viewport only (`false`), when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_page: Option<bool>,
    /// Text no person can see shown (`@hidden`), when set.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub show_hidden: bool,
}

impl Variant {
    /// The bare strategy under the run's defaults.
    pub fn plain(strategy: &'static dyn Strategy, defaults: Defaults) -> Variant {
        Variant::new(strategy, defaults)
    }

    /// Named by what it is: the strategy, then `@N` for a budget, then
    /// `@viewport` or `@full` when set, then `@hidden` when text no person
    /// can see is shown — however the settings were given
    /// (modifier, run flag or suite), so two runs' rows compare by name.
    fn new(strategy: &'static dyn Strategy, settings: Defaults) -> Variant {
        let mut name = strategy.name().to_owned();
        if let Some(n) = settings.max_tokens {
            name.push_str(&format!("@{n}"));
        }
        match settings.full_page {
            Some(false) => name.push_str("@viewport"),
            Some(true) => name.push_str("@full"),
            None => {}
        }
        if settings.show_hidden {
            name.push_str(&format!("@{HIDDEN}"));
        }
        Variant {
            strategy,
            max_tokens: settings.max_tokens,
            full_page: settings.full_page,
            show_hidden: settings.show_hidden,
            name,
        }
    }

    /// Parses `NAME[@MODIFIER…]`, a modifier being a token budget (`2000`),
    /// `viewport`, `full` or `hidden`; `strategy_named` resolves the name. A setting
    /// the spec leaves out comes from `defaults`.
    pub fn parse(
        spec: &str,
        defaults: Defaults,
        strategy_named: impl Fn(&str) -> Result<&'static dyn Strategy>,
    ) -> Result<Variant> {
        let mut parts = spec.split('@');
        let name = parts.next().unwrap_or_default();
        let strategy = strategy_named(name)?;
        let mut own = Defaults::default();
        for modifier in parts {
            match modifier {
                "viewport" | "full" if own.full_page.is_some() => {
                    bail!("strategy {spec:?}: `@viewport` and `@full` are given together or twice")
                }
                "viewport" => own.full_page = Some(false),
                "full" => own.full_page = Some(true),
                HIDDEN if own.show_hidden => bail!("strategy {spec:?}: `@{HIDDEN}` is given twice"),
                HIDDEN => own.show_hidden = true,
                budget if !budget.is_empty() && budget.bytes().all(|b| b.is_ascii_digit()) => {
                    if own.max_tokens.is_some() {
                        bail!("strategy {spec:?}: two token budgets");
                    }
                    match budget.parse::<usize>() {
                        Ok(n) if n > 0 => own.max_tokens = Some(n),
                        _ => bail!(
                            "strategy {spec:?}: token budget {budget:?} must be a positive number"
                        ),
                    }
                }
                other => bail!(
                    "strategy {spec:?}: unknown modifier {other:?} (a token budget such as @2000, @viewport, @full or @{HIDDEN})"
                ),
            }
        }
        Ok(Variant::new(strategy, own.or(defaults)))
    }

    /// The name rows and reports use (`aria`, `aria@2000`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// `base` with this variant's budget, scope and hidden text.
    pub fn options<'a>(&self, base: Options<'a>) -> Options<'a> {
        Options {
            max_tokens: self.max_tokens,
            full_page: self.full_page,
            show_hidden: self.show_hidden,
            ..base
        }
    }

    /// How `run.json` records it.
    pub fn info(&self) -> VariantInfo {
        VariantInfo {
            name: self.name.clone(),
            strategy: self.strategy.name().to_owned(),
            max_tokens: self.max_tokens,
            full_page: self.full_page,
            show_hidden: self.show_hidden,
        }
    }
}

/// The modifier that shows text no person can see (`aria@hidden`).
const HIDDEN: &str = "hidden";

#[cfg(test)]
mod tests {
    use super::*;
    use pagesnap_engine::strategy::by_name;

    fn named(name: &str) -> Result<&'static dyn Strategy> {
        by_name(name).ok_or_else(|| anyhow::anyhow!("unknown strategy {name:?}"))
    }

    fn parse(spec: &str, defaults: Defaults) -> Result<Variant> {
        Variant::parse(spec, defaults, named)
    }

    #[test]
    fn modifiers_set_budget_and_scope_and_defaults_fill_the_rest() {
        let run = Defaults {
            max_tokens: Some(500),
            full_page: Some(true),
            show_hidden: false,
        };
        let v = parse("aria@2000", run).map(|v| v.info()).ok();
        assert_eq!(
            v,
            Some(VariantInfo {
                name: "aria@2000@full".into(),
                strategy: "aria".into(),
                max_tokens: Some(2000),
                full_page: Some(true),
                show_hidden: false,
            })
        );
        // `@hidden` in any place, or the run's `--show-hidden`, names the variant last.
        let v = parse("aria@hidden@viewport", Defaults::default()).ok();
        assert_eq!(
            v.as_ref().map(|v| (v.name(), v.show_hidden)),
            Some(("aria@viewport@hidden", true))
        );
        let shown = v.map(|v| v.options(Options::default()).show_hidden);
        assert_eq!(shown, Some(true));
        let flag = Defaults {
            show_hidden: true,
            ..Defaults::default()
        };
        let v = parse("flat", flag).map(|v| v.info()).ok();
        assert_eq!(
            v.as_ref().map(|v| (v.name.as_str(), v.show_hidden)),
            Some(("flat@hidden", true))
        );
        let v = parse("flat", Defaults::default()).ok();
        assert_eq!(
            v.map(|v| v.options(Options::default()).show_hidden),
            Some(false)
        );
        let v = parse("flat@viewport@8000", Defaults::default())
            .map(|v| v.info())
            .ok();
        assert_eq!(
            v.as_ref()
                .map(|v| (v.name.as_str(), v.max_tokens, v.full_page)),
            Some(("flat@8000@viewport", Some(8000), Some(false)))
        );
        let v = parse("flat", run).map(|v| v.info()).ok();
        assert_eq!(
            v.as_ref()
                .map(|v| (v.name.as_str(), v.max_tokens, v.full_page)),
            Some(("flat@500@full", Some(500), Some(true)))
        );
        let v = parse("som", Defaults::default()).map(|v| v.info()).ok();
        assert_eq!(v.map(|v| v.name), Some("som".to_owned()));
    }

    #[test]
    fn bad_modifiers_are_refused_by_name() {
        for (spec, says) in [
            ("aria@0", "must be a positive number"),
            ("aria@2000@3000", "two token budgets"),
            ("aria@viewport@full", "together or twice"),
            ("aria@hidden@hidden", "`@hidden` is given twice"),
            ("aria@big", "unknown modifier \"big\""),
            ("aria@", "unknown modifier \"\""),
            ("nope@2000", "unknown strategy"),
        ] {
            let err = parse(spec, Defaults::default())
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(err.contains(says), "{spec}: {err}");
        }
    }
}
