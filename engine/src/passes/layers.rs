//! Layers (aimount): the subtrees an observation is limited to, from the configured selectors.

use super::{ObserveError, Options};
use crate::page::{Page, Selector};

pub(super) fn layer_scope(page: &Page, options: &Options<'_>) -> Result<Vec<bool>, ObserveError> {
    if options.active_layers.is_empty() {
        return Ok(vec![true; page.len()]);
    }
    let mut scope = vec![false; page.len()];
    for name in &options.active_layers {
        let Some(layer) = options.layers.iter().find(|l| &l.name == name) else {
            let known: Vec<&str> = options.layers.iter().map(|l| l.name.as_str()).collect();
            return Err(ObserveError::UnknownLayer {
                name: name.clone(),
                known: if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                },
            });
        };
        for source in &layer.selectors {
            let selector =
                Selector::parse(source).map_err(|source| ObserveError::LayerSelector {
                    layer: layer.name.clone(),
                    source,
                })?;
            for root in page.select(&selector) {
                for id in page.subtree(root.id()) {
                    scope[id.index()] = true;
                }
            }
        }
    }
    Ok(scope)
}
