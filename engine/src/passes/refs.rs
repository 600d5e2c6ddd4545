//! Stable refs and new-element marks across successive observations of one page.
//!
//! Without a previous observation, refs are numbered 1, 2, … in document
//! order. With one, a node keeps its previous number when it is the same
//! element: same CDP backend node id first, else the same role and name
//! nearest to its previous position. Other nodes get fresh numbers after the
//! previous maximum and are marked new (page-agent's `*[N]`).

use std::collections::HashMap;

use super::Target;
use crate::analyze::Analysis;
use crate::observation::Observation;
use crate::page::{NodeId, Page};

/// The number inside a printed ref (`e12` → 12, `12` → 12).
pub fn ref_number(reference: &str) -> Option<u32> {
    reference
        .trim_start_matches(|c: char| !c.is_ascii_digit())
        .parse()
        .ok()
}

/// Assigns ref numbers to `candidates` (document order).
pub fn assign(
    page: &Page,
    analysis: &Analysis,
    candidates: &[NodeId],
    previous: Option<&Observation>,
) -> Vec<Target> {
    let Some(previous) = previous else {
        return candidates
            .iter()
            .zip(1u32..)
            .map(|(&id, number)| Target {
                id,
                number,
                new: false,
            })
            .collect();
    };
    let items = &previous.meta.items;
    let mut used = vec![false; items.len()];
    let by_backend: HashMap<u64, usize> = items
        .iter()
        .enumerate()
        .filter(|(_, item)| item.backend_id != 0)
        .map(|(i, item)| (item.backend_id, i))
        .collect();
    let mut next = items
        .iter()
        .filter_map(|i| ref_number(&i.reference))
        .max()
        .unwrap_or(0)
        + 1;
    let mut out = Vec::with_capacity(candidates.len());
    let mut unmatched = Vec::new();
    for (slot, &id) in candidates.iter().enumerate() {
        let backend = page.layout(id).backend_id;
        let found = (backend != 0)
            .then(|| by_backend.get(&backend).copied())
            .flatten()
            .filter(|&i| !used[i]);
        match found.and_then(|i| ref_number(&items[i].reference).map(|n| (i, n))) {
            Some((i, number)) => {
                used[i] = true;
                out.push(Target {
                    id,
                    number,
                    new: false,
                });
            }
            None => {
                unmatched.push(slot);
                out.push(Target {
                    id,
                    number: 0,
                    new: true,
                });
            }
        }
    }
    // Fallback: same role and name, nearest previous position.
    for slot in unmatched {
        let id = out[slot].id;
        let role = analysis.role(id).unwrap_or("generic");
        let name = analysis.name(id).map(|n| n.text.as_str()).unwrap_or("");
        let here = page.layout(id).bounds;
        let best = items
            .iter()
            .enumerate()
            .filter(|(i, item)| !used[*i] && item.role == role && item.name == name)
            .min_by(|(_, a), (_, b)| {
                let d = |item: &crate::observation::Item| match (item.bounds, here) {
                    (Some(p), Some(h)) => (p.x - h.x).abs() + (p.y - h.y).abs(),
                    _ => f64::MAX,
                };
                d(a).total_cmp(&d(b))
            })
            .map(|(i, _)| i);
        match best.and_then(|i| ref_number(&items[i].reference).map(|n| (i, n))) {
            Some((i, number)) => {
                used[i] = true;
                out[slot].number = number;
                out[slot].new = false;
            }
            None => {
                out[slot].number = next;
                next += 1;
            }
        }
    }
    out
}
