//! `--layers-config FILE`: named layers (layer id → CSS selectors) and the default layers, as the seed's `createBrowserEngine({layers, defaultLayers})`.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result, bail};
use pagesnap_engine::passes::Layer;
use serde::Deserialize;

/// The layer configuration.
#[derive(Clone, Debug, Default)]
pub struct Layers {
    /// Every configured layer.
    pub layers: Vec<Layer>,
    /// The layers a snapshot shows when it names none (empty: the whole page).
    pub default: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    default: Vec<String>,
    #[serde(default)]
    layers: BTreeMap<String, LayerFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LayerFile {
    selectors: Vec<String>,
}

impl Layers {
    /// Reads the TOML file:
    ///
    /// ```toml
    /// default = ["content"]
    /// [layers.content]
    /// selectors = ["#content"]
    /// ```
    pub fn load(path: &Path) -> Result<Layers> {
        let text = std::fs::read_to_string(path).with_context(|| {
            format!(
                "--layers-config {}: could not read the file",
                path.display()
            )
        })?;
        Layers::parse(&text).with_context(|| format!("--layers-config {}", path.display()))
    }

    /// Parses the TOML text (see [`Layers::load`]).
    pub fn parse(text: &str) -> Result<Layers> {
        let file: File = toml::from_str(text)?;
        for (name, layer) in &file.layers {
            if layer.selectors.is_empty() {
                bail!("layer {name:?} has no selectors");
            }
        }
        for name in &file.default {
            if !file.layers.contains_key(name) {
                bail!(
                    "default layer {name:?} is not configured (configured: {})",
                    file.layers.keys().cloned().collect::<Vec<_>>().join(", ")
                );
            }
        }
        Ok(Layers {
            layers: file
                .layers
                .into_iter()
                .map(|(name, layer)| Layer {
                    name,
                    selectors: layer.selectors,
                })
                .collect(),
            default: file.default,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_layers_and_refuses_unknown_defaults() {
        let layers = Layers::parse(
            "default = [\"content\"]\n[layers.content]\nselectors = [\"#content\"]\n[layers.nav]\nselectors = [\"nav\", \"header\"]\n",
        )
        .unwrap();
        assert_eq!(layers.default, ["content"]);
        assert_eq!(layers.layers.len(), 2);
        let err = Layers::parse("default = [\"x\"]\n[layers.a]\nselectors = [\"a\"]\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("\"x\"") && err.contains("configured: a"),
            "{err}"
        );
    }
}
