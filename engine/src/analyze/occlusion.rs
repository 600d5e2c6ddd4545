//! Occlusion by paint order: is a node covered by later-painted opaque boxes at every point that matters?

use super::Visibility;
use crate::page::Page;

/// Occlusion per node.
pub(crate) fn compute(page: &Page, visibility: &[Visibility]) -> Vec<bool> {
    let _ = visibility;
    vec![false; page.len()]
}
