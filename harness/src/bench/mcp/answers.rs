//! Reading the servers' answers: pagesnap's through its typed structured content (items, `incomplete`, `freshness.reused`), another server's refs and lines from its snapshot text as its mapping reads them.

use pagesnap_engine::observation::{Item, Zone};
use pagesnap_mcp::{ActionAnswer, Snapshot, StepTimings};

use super::Side;
use super::server::Server;
use crate::peer::connection::Answer;
use crate::peer::mapping::Mapping;

/// Refs a snapshot offers: pagesnap's meta items; another server's refs
/// as its mapping reads them from the text.
pub(super) fn refs_of(server: &Server, answer: &Answer) -> usize {
    match server.side {
        Side::Pagesnap => items(answer).len(),
        Side::Peer(_) => server.mapping.refs_in(&answer.text).len(),
    }
}

/// pagesnap's meta items (`page_snapshot`'s structured content, or the
/// `snapshot` of an action's answer), as the engine describes them.
pub(super) fn items(answer: &Answer) -> Vec<Item> {
    if let Some(snapshot) = pagesnap_snapshot(answer) {
        return snapshot.meta.items;
    }
    action_answer(answer)
        .map(|answer| answer.snapshot.meta.items)
        .unwrap_or_default()
}

/// pagesnap's answer to an acting tool, read as the server wrote it.
fn action_answer(answer: &Answer) -> Option<ActionAnswer> {
    serde_json::from_value(answer.structured.clone()?).ok()
}

/// pagesnap's answer to `page_snapshot`, read as the server wrote it.
fn pagesnap_snapshot(answer: &Answer) -> Option<Snapshot> {
    serde_json::from_value(answer.structured.clone()?).ok()
}

/// Whether pagesnap's action answer said `incomplete`.
pub(super) fn incomplete(answer: &Answer) -> bool {
    action_answer(answer).is_some_and(|answer| answer.incomplete)
}

/// Where pagesnap said its action's time went.
pub(super) fn step_timings(answer: &Answer) -> Option<StepTimings> {
    action_answer(answer).map(|answer| answer.timings)
}

/// Whether pagesnap said it rendered this snapshot from an earlier capture.
pub(super) fn was_reused(answer: &Answer) -> bool {
    pagesnap_snapshot(answer).is_some_and(|snapshot| snapshot.freshness.reused)
}

/// Lower case with runs of white space as one space.
pub(super) fn normalise(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The ref a server's snapshot gives the one line that reads
/// `role "name" …` (after its list marker, and after the ref when the
/// server writes it first: `uid=1_5 button "Go"`), as its mapping reads
/// refs; `None` when no line or several do.
pub(super) fn ref_on_line(
    mapping: &Mapping,
    snapshot: &str,
    role: &str,
    name: &str,
) -> Option<String> {
    let wanted = normalise(&format!("{role} {name:?}"));
    let mut found = snapshot.lines().filter_map(|line| {
        let reference = mapping.refs_in(line).into_iter().next()?;
        let line = normalise(line);
        let rest = line.trim_start_matches(['-', ' ']);
        let described = match rest.split_once(' ') {
            Some((first, after)) if first.contains(&reference.to_lowercase()) => after,
            _ => rest,
        };
        described.starts_with(&wanted).then_some(reference)
    });
    let first = found.next()?;
    found.next().is_none().then_some(first)
}

/// A pagesnap item with this role and name, in the viewport.
pub(super) fn pagesnap_item<'a>(items: &'a [Item], role: &str, name: &str) -> Option<&'a Item> {
    let (role, name) = (normalise(role), normalise(name));
    items.iter().find(|item| {
        item.zone != Zone::Offscreen
            && normalise(&item.role) == role
            && normalise(&item.name) == name
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::mcp::peers_named;

    #[test]
    fn a_ref_is_read_from_one_line_and_refused_from_two() {
        let playwright = Side::Peer(peers_named(&["playwright".into()]).unwrap()[0])
            .mapping()
            .unwrap();
        let snapshot = "- generic [ref=e1]:\n  - link \"Sign in\" [ref=e7] [cursor=pointer]:\n    - /url: /signin\n  - button \"Go\" [ref=e9]\n  - button \"Go\" [ref=e10]";
        assert_eq!(
            ref_on_line(&playwright, snapshot, "link", "Sign  In"),
            Some("e7".to_owned())
        );
        assert_eq!(ref_on_line(&playwright, snapshot, "button", "Go"), None);
        assert_eq!(
            ref_on_line(&playwright, snapshot, "button", "Sign in"),
            None
        );
        let devtools = Side::Peer(peers_named(&["chrome-devtools".into()]).unwrap()[0])
            .mapping()
            .unwrap();
        let snapshot = "uid=1_0 RootWebArea \"Login\"\n  uid=1_4 button \"Sign in\" focusable\n  uid=1_5 link \"Sign in help\"";
        assert_eq!(
            ref_on_line(&devtools, snapshot, "button", "Sign in"),
            Some("1_4".to_owned())
        );
        assert_eq!(ref_on_line(&devtools, snapshot, "link", "Help"), None);
    }
}
