//! The price table: US dollars per million input and output tokens per `provider:model` (`harness/prices.toml`, or `--prices FILE`).

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};
use serde::Deserialize;

/// The table shipped with pagesnap.
pub const DEFAULT: &str = include_str!("../../prices.toml");

/// Prices of one model.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    /// USD per million input tokens.
    pub input: f64,
    /// USD per million output tokens.
    pub output: f64,
}

impl Price {
    /// The cost of one call.
    pub fn cost(self, input_tokens: usize, output_tokens: usize) -> f64 {
        // Token counts are far below 2^52: the conversions are exact.
        let (i, o) = (input_tokens as f64, output_tokens as f64);
        (i * self.input + o * self.output) / 1_000_000.0
    }
}

/// A price table.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Prices {
    /// `provider:model` → price.
    pub models: BTreeMap<String, Price>,
}

impl Prices {
    /// The shipped table, or `path` when given.
    pub fn load(path: Option<&Path>) -> Result<Prices> {
        match path {
            None => parse(DEFAULT, "harness/prices.toml"),
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("could not read {}", path.display()))?;
                parse(&text, &path.display().to_string())
            }
        }
    }

    /// The price of `label` (`openai:gpt-4o`), if listed.
    pub fn get(&self, label: &str) -> Option<Price> {
        self.models.get(label).copied()
    }
}

fn parse(text: &str, name: &str) -> Result<Prices> {
    let prices: Prices =
        toml::from_str(text).with_context(|| format!("invalid price table {name}"))?;
    for (model, price) in &prices.models {
        if !(price.input >= 0.0 && price.output >= 0.0) {
            anyhow::bail!("{name}: {model}: prices must be non-negative numbers");
        }
    }
    Ok(prices)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_table_loads_and_costs() {
        let prices = Prices::load(None).unwrap();
        let price = prices.get("openai:gpt-4o-mini").unwrap();
        let cost = price.cost(1_000_000, 500_000);
        assert!((cost - 0.45).abs() < 1e-12, "{cost}");
        assert!(prices.get("openai:test-model").is_none());
    }

    #[test]
    fn bad_tables_are_named() {
        let err = parse("[models.\"a:b\"]\ninput = 1\n", "p.toml").unwrap_err();
        assert!(
            format!("{err:#}").contains("invalid price table p.toml"),
            "{err:#}"
        );
        let err = parse("[models.\"a:b\"]\ninput = -1.0\noutput = 1.0\n", "p.toml").unwrap_err();
        assert!(err.to_string().contains("a:b"), "{err}");
    }
}
