//! The click step: an element every server names alike (pagesnap's item, found on each other server's snapshot line by role and name), clicked by each server's mapped click.

use std::collections::BTreeMap;

use anyhow::{Result, bail};
use pagesnap_engine::observation::Zone;

use super::answers::{incomplete, items, ref_on_line, step_timings};
use super::measure::Observed;
use super::server::Server;
use super::{Click, Side};
use crate::peer::mapping::ActionKey;

/// The first enabled button (else link) in pagesnap's viewport snapshot that every
/// other server's snapshot names exactly once, with each server's ref.
pub(super) fn click_target(
    servers: &[Server],
    observed: &BTreeMap<Side, Observed>,
) -> Option<(String, BTreeMap<Side, String>)> {
    let ours = observed.get(&Side::Pagesnap)?;
    let items = items(&ours.snapshot);
    for role in ["button", "link"] {
        for item in &items {
            let name = item.name.as_str();
            if item.role != role
                || item.zone == Zone::Offscreen
                || name.trim().is_empty()
                || name.contains('"')
                || name.contains("[redacted]")
                || item.states.iter().any(|s| s == "disabled")
            {
                continue;
            }
            // The name must be unique on our side too.
            let same = items
                .iter()
                .filter(|other| other.role == role && other.name == item.name)
                .count();
            if same != 1 {
                continue;
            }
            let mut refs = BTreeMap::new();
            refs.insert(Side::Pagesnap, item.reference.clone());
            let mut everywhere = true;
            for server in servers.iter().filter(|s| s.side != Side::Pagesnap) {
                let Some(seen) = observed.get(&server.side) else {
                    continue;
                };
                match ref_on_line(&server.mapping, &seen.snapshot.text, role, name) {
                    Some(reference) => {
                        refs.insert(server.side, reference);
                    }
                    None => everywhere = false,
                }
            }
            if everywhere {
                return Some((format!("{role} {name:?}"), refs));
            }
        }
    }
    None
}

/// One click by ref through the server's mapped click, timed with its
/// readiness wait and answer.
pub(super) async fn click(server: &Server, element: &str, reference: &str) -> Result<Click> {
    let Some(calls) = server.mapping.actions.get(&ActionKey::CLICK) else {
        bail!(
            "{}: its mapping has no [actions.click]",
            server.side.label()
        );
    };
    let values = [
        ("ref", reference.into()),
        ("element", element.into()),
        ("value", "".into()),
    ];
    let (mut ms, mut tokens, mut incomplete_lines, mut step) = (0.0, 0, None, None);
    let mut last = String::new();
    for call in calls {
        let answer = server.call(call, &values).await?;
        ms += answer.ms;
        tokens += crate::tokens::o200k(&answer.text);
        if server.side == Side::Pagesnap {
            incomplete_lines = Some(incomplete(&answer));
            step = step_timings(&answer);
        }
        last = answer.text;
    }
    // A dialog the click opened (a confirm before removing…) would stop the
    // tab's next page. pagesnap's answer names it, and so does any answer
    // that shows the page; one that does not (agent-browser's click answers
    // "✓ Done") leaves it to the server's snapshot.
    let mut dialog = server.mapping.dialog_in(&last);
    let shows_page = server.side == Side::Pagesnap
        || dialog.is_some()
        || !server.mapping.refs_in(&last).is_empty();
    if !shows_page {
        dialog = server.mapping.dialog_in(&server.look().await?.text);
    }
    if let Some(dialog) = dialog {
        server.answer_dialog(&dialog).await?;
    }
    Ok(Click {
        element: element.to_owned(),
        ms,
        tokens,
        incomplete: incomplete_lines,
        step,
    })
}
