//! The one path of the tools that act on the page: act, wait for readiness, observe, answer — what the action did, what changed since before it, whether the page was ready, and the page after it.

use pagesnap_browser::UserAction;
use pagesnap_engine::observation::Observation;
use rmcp::model::CallToolResult;
use serde_json::json;

use super::{blocks, notes_text, snapshot_of};
use crate::answer::{ActionAnswer, ActionReport, DownloadReport, Note, OpenedTab, StepTimings};
use crate::error::ToolError;
use crate::tabs::{Acted, Browsing, Request, Seen};

/// What an answer compares the page after the action with.
pub(super) enum Since<'a> {
    /// A page newly opened (`page_navigate`, `page_back`): nothing to
    /// compare it with, and tabs it opens are announced by the next action.
    Arrival,
    /// The tab's observation before the action, if it had one.
    Before(Option<&'a Observation>),
}

/// Performs `action` on the current tab as a user would, waits for the
/// page to settle ([`pagesnap_browser::Readiness::of`] it), then answers ([`answer`]) with the page compared with the
/// one before; `report` says what the action did.
pub(super) async fn perform(
    browsing: &mut Browsing,
    action: UserAction,
    report: impl FnOnce(&Browsing, &Acted, &Seen) -> ActionReport,
    brief: Option<bool>,
) -> Result<CallToolResult, ToolError> {
    let before = browsing.last().cloned();
    let acted = browsing.act(action).await?;
    answer(
        browsing,
        &acted,
        Since::Before(before.as_ref()),
        report,
        brief,
    )
    .await
}

/// The answer of an action that ran (`acted`): the page observed, the tabs
/// the page opened, and the result `report` and the page make.
pub(super) async fn answer(
    browsing: &mut Browsing,
    acted: &Acted,
    since: Since<'_>,
    report: impl FnOnce(&Browsing, &Acted, &Seen) -> ActionReport,
    brief: Option<bool>,
) -> Result<CallToolResult, ToolError> {
    let seen = browsing.observe(&Request::default()).await?;
    let (before, new_tabs) = match since {
        Since::Arrival => (None, Vec::new()),
        Since::Before(before) => (before, browsing.new_tabs().await),
    };
    let action = report(browsing, acted, &seen);
    let downloads = browsing.downloads().await;
    let notes = browsing.take_notes();
    Ok(result(
        browsing,
        action,
        After {
            acted,
            seen: &seen,
            before,
            new_tabs,
            brief,
            notes,
            downloads,
        },
    ))
}

/// What an action's answer is made of besides the action itself.
struct After<'a> {
    /// What the actuator said.
    acted: &'a Acted,
    /// The page after it.
    seen: &'a Seen,
    /// The observation before it, for the changes.
    before: Option<&'a Observation>,
    /// Tabs the page opened.
    new_tabs: Vec<pagesnap_browser::Tab>,
    /// Whether to show only the changed lines (`true`), the whole viewport
    /// (`false`), or whichever [`Shown::of`] says.
    brief: Option<bool>,
    /// What the agent should know beside the action.
    notes: Vec<Note>,
    /// The page's downloads not told before.
    downloads: Vec<DownloadReport>,
}

/// An action's result: its structured content, the [`ActionAnswer`], and
/// the text an agent reads, written from it — what the action did, what
/// changed, whether the page was ready, and the page after it.
fn result(browsing: &Browsing, action: ActionReport, after: After<'_>) -> CallToolResult {
    let After {
        acted,
        seen,
        before,
        new_tabs,
        brief,
        notes,
        downloads,
    } = after;
    // Behind a dialog the page cannot be seen, so nothing is said to have left it.
    let before = before.filter(|_| seen.observation.meta.dialog.is_none());
    let answer = ActionAnswer {
        action,
        snapshot: snapshot_of(seen),
        changes: Browsing::changes(before, seen),
        incomplete: acted.pending.is_some(),
        unchanged: before.is_some_and(|b| b.text == seen.observation.text),
        pending: acted.pending.clone(),
        new_tabs: new_tabs.into_iter().map(OpenedTab::from).collect(),
        notes,
        downloads,
        timings: StepTimings::new(acted.took, acted.settled_in, seen.captured.as_ref()),
    };
    let text = browsing.mask_known(&text(browsing, &answer, acted, seen, before, brief));
    let mut structured = serde_json::to_value(&answer).unwrap_or_else(|_| json!({}));
    // The snapshot masked as page_snapshot's meta is, then with the rest of
    // the answer: the two passes the answer has always had.
    if let Some(snapshot) = structured.get_mut("snapshot") {
        browsing.config().secrets.mask_json(snapshot);
    }
    browsing.config().secrets.mask_json(&mut structured);
    let mut result = CallToolResult::success(blocks(&seen.observation, text));
    result.structured_content = Some(structured);
    result
}

/// The text of an action's answer: its sections, from the answer, then the
/// page after it: the lines that changed, or the whole viewport ([`Shown::of`]).
fn text(
    browsing: &Browsing,
    answer: &ActionAnswer,
    acted: &Acted,
    seen: &Seen,
    before: Option<&Observation>,
    brief: Option<bool>,
) -> String {
    let mut head = Vec::new();
    let mut line = answer.action.line();
    if let Some(note) = &acted.note {
        line.push_str(&format!(" — {note}"));
    }
    head.push(format!("### Action\n{line}"));
    if !answer.notes.is_empty() {
        head.push(notes_text(&answer.notes));
    }
    let changes = &answer.changes;
    if before.is_some() && (!changes.new.is_empty() || !changes.removed.is_empty()) {
        head.push(format!(
            "### Changes\nnew: {}\nremoved: {}",
            if changes.new.is_empty() {
                "none".to_owned()
            } else {
                changes.new.join(", ")
            },
            if changes.removed.is_empty() {
                "none".to_owned()
            } else {
                changes.removed.join(", ")
            }
        ));
    }
    if let Some(pending) = &answer.pending {
        head.push(format!("### Incomplete\n{pending} — the snapshot below is the best available; take another with page_snapshot"));
    }
    if !answer.new_tabs.is_empty() {
        let tabs: Vec<String> = answer
            .new_tabs
            .iter()
            .map(|t| format!("{} {}", t.id, browsing.mask(&t.url)))
            .collect();
        head.push(format!(
            "### New tabs (not followed; page_tabs select to switch)\n{}",
            tabs.join("\n")
        ));
    }
    let section = match seen.observation.meta.dialog {
        Some(_) => "Dialog",
        None => "Page",
    };
    if answer.unchanged {
        head.push("### Unchanged\nthe page shows what it showed before the action".to_owned());
    }
    match Shown::of(brief, acted.navigated, before, &seen.observation.text) {
        Shown::Changes(lines) if !answer.unchanged => {
            head.push(format!("### Changed lines\n{lines}"));
        }
        // "### Unchanged" said it all.
        Shown::Changes(_) => {}
        Shown::Whole => head.push(format!("### {section}\n{}", seen.observation.text)),
    }
    head.join("\n\n")
}

/// How much of the page after an action its answer shows.
#[derive(Debug)]
enum Shown {
    /// The lines that changed since the page before ([`changed_lines`];
    /// empty when none did).
    Changes(String),
    /// The whole viewport.
    Whole,
}

impl Shown {
    /// The changed lines by default; the whole viewport when there is
    /// nothing to compare with (a page newly opened, a dialog), when a new
    /// document replaced the one acted on, or when more than half of the
    /// viewport's lines are new — and whichever `brief` asks for.
    fn of(
        brief: Option<bool>,
        navigated: bool,
        before: Option<&Observation>,
        after: &str,
    ) -> Shown {
        let Some(before) = before else {
            return Shown::Whole;
        };
        match brief {
            Some(true) => Shown::Changes(changed_lines(&before.text, after)),
            Some(false) => Shown::Whole,
            None if navigated => Shown::Whole,
            None => {
                let lines = changed_lines(&before.text, after);
                let new = lines.lines().filter(|line| line.starts_with('+')).count();
                if new * 2 > after.lines().count() {
                    Shown::Whole
                } else {
                    Shown::Changes(lines)
                }
            }
        }
    }
}

/// The lines of `after` that `before` did not have (`+ `) and those it had
/// that `after` has not (`- `), each counted as often as it occurs.
fn changed_lines(before: &str, after: &str) -> String {
    let mut left: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for line in before.lines() {
        *left.entry(line).or_default() += 1;
    }
    let mut out = Vec::new();
    for line in after.lines() {
        match left.get_mut(line) {
            Some(n) if *n > 0 => *n -= 1,
            _ => out.push(format!("+ {line}")),
        }
    }
    for line in before.lines() {
        if let Some(n) = left.get_mut(line)
            && *n > 0
        {
            *n -= 1;
            out.push(format!("- {line}"));
        }
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_lines_are_the_lines_added_and_removed() {
        let before =
            "- heading \"Cart\"\n- button \"Add\" [ref=e1]\n- text: 0 items\n- text: 0 items";
        let after =
            "- heading \"Cart\"\n- button \"Add\" [ref=e1]\n- text: 0 items\n- text: 1 item";
        assert_eq!(
            changed_lines(before, after),
            "+ - text: 1 item\n- - text: 0 items"
        );
        assert_eq!(changed_lines(after, after), "");
    }

    fn observation(text: &str) -> Observation {
        Observation {
            text: text.to_owned(),
            image: None,
            refs: Vec::new(),
            meta: Default::default(),
        }
    }

    #[test]
    fn an_answer_shows_the_changes_unless_most_of_the_page_is_new() {
        let before = observation("- heading \"Cart\"\n- button \"Add\" [ref=e1]\n- text: 0 items");
        let one = "- heading \"Cart\"\n- button \"Add\" [ref=e1]\n- text: 1 item";
        let most = "- heading \"Checkout\"\n- button \"Pay\" [ref=e4]\n- text: 1 item";
        let changes = |shown: Shown| matches!(shown, Shown::Changes(_));
        assert!(matches!(
            Shown::of(None, false, Some(&before), one),
            Shown::Changes(lines) if lines == "+ - text: 1 item\n- - text: 0 items"
        ));
        assert!(!changes(Shown::of(None, false, Some(&before), most)));
        // A new document, or nothing to compare with: the whole viewport.
        assert!(!changes(Shown::of(None, true, Some(&before), one)));
        assert!(matches!(
            Shown::of(Some(true), false, None, one),
            Shown::Whole
        ));
        // Asked for, either way.
        assert!(!changes(Shown::of(Some(false), false, Some(&before), one)));
        assert!(changes(Shown::of(Some(true), true, Some(&before), most)));
    }
}
