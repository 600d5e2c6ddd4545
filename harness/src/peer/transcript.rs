//! What a tool server's client has read when it reads each action's answer instead of snapshotting again (`after_action = "answer"`): the last whole view and every answer since, offering the refs they write less those an answer said were removed.
//!
//! A model talking to a tool server reads its tool results in turn: the
//! snapshot it asked for, then each action's answer. Where the server
//! answers an action with what changed, the model's picture of the page is
//! the last whole view with the changes read after it; that is what the
//! agent is shown here, and only the answers are new reading (their tokens
//! counted once, on the action's step). An answer showing the whole page
//! ([`Mapping::whole`]: a new document, a dialog, most of the viewport new)
//! supersedes what came before it.

use pagesnap_engine::dialog::Dialog;
use pagesnap_engine::observation::Observation;

use super::Mapping;

/// What the agent has read since the last whole view.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Transcript {
    /// The whole view, then each answer read after it.
    parts: Vec<String>,
    /// The refs the parts offer, in the order they write them, each once.
    refs: Vec<String>,
    /// The dialog the page waits on: named by the last answer, or by one
    /// before it when only failures came after (a dialog stays open until
    /// an action runs).
    dialog: Option<Dialog>,
}

impl Transcript {
    /// A transcript starting with the whole view `view` (a snapshot's text).
    pub fn start(mapping: &Mapping, view: &str) -> Transcript {
        let mut transcript = Transcript::default();
        transcript.read(mapping, view, false);
        transcript
    }

    /// Reads an action's answer (`failed`: the tool's error): after what was
    /// read, or in its place when it shows the whole page. The refs it says
    /// left the page are no longer offered.
    pub fn read(&mut self, mapping: &Mapping, answer: &str, failed: bool) {
        self.dialog = match mapping.dialog_in(answer) {
            Some(dialog) => Some(dialog),
            None if failed => self.dialog.take(),
            None => None,
        };
        if mapping.whole.as_ref().is_some_and(|w| w.is_match(answer)) {
            self.parts.clear();
            self.refs.clear();
        }
        for reference in mapping.refs_in(answer) {
            if !self.refs.contains(&reference) {
                self.refs.push(reference);
            }
        }
        let removed = mapping.removed_in(answer);
        self.refs.retain(|r| !removed.contains(r));
        self.parts.push(answer.to_owned());
    }

    /// The text the agent reads: the parts in order, a blank line apart.
    pub fn text(&self) -> String {
        self.parts.join("\n\n")
    }

    /// The observation the agent is shown (named `strategy`): the text, its
    /// refs, and the dialog still waiting.
    pub fn observation(&self, strategy: &str) -> Observation {
        super::observation(
            strategy,
            self.text(),
            self.refs.clone(),
            self.dialog.clone(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answers() -> Mapping {
        crate::peer::shipped_mapping("pagesnap-answers").unwrap()
    }

    #[test]
    fn answers_are_read_after_the_view_until_one_shows_the_whole_page() {
        let mapping = answers();
        let view =
            "- button \"Next\" [ref=e3]\n- checkbox \"Keep\" [ref=e4]\n- link \"Away\" [ref=e5]";
        let mut transcript = Transcript::start(&mapping, view);
        assert_eq!(transcript.refs, ["e3", "e4", "e5"]);
        let changed = "### Action\nclick e3 (button \"Next\"): done\n\n### Changes\nnew: e9\nremoved: e4, e5\n\n### Changed lines\n+ - textbox \"Name\" [ref=e9]\n- - checkbox \"Keep\" [ref=e4]\n- - link \"Away\" [ref=e5]";
        transcript.read(&mapping, changed, false);
        // Read after the view, the removed refs no longer offered.
        assert_eq!(transcript.text(), format!("{view}\n\n{changed}"));
        assert_eq!(transcript.refs, ["e3", "e9"]);
        let observation = transcript.observation("mcp:pagesnap-answers");
        let offered: Vec<&str> = observation
            .meta
            .items
            .iter()
            .map(|i| i.reference.as_str())
            .collect();
        assert_eq!(offered, ["e3", "e9"]);
        assert!(observation.meta.dialog.is_none());
        // An answer that removed nothing takes no ref away.
        transcript.read(
            &mapping,
            "### Action\nscrolled 0 px, at the bottom\n\n### Unchanged\nthe page shows what it showed before the action",
            false,
        );
        assert_eq!(transcript.refs, ["e3", "e9"]);
        assert_eq!(transcript.parts.len(), 3);
        // A new document supersedes all of it.
        let page = "### Action\nclick e3 (button \"Next\"): done\n\n### Page\n- heading \"Done\" [ref=e20]";
        transcript.read(&mapping, page, false);
        assert_eq!(transcript.text(), page);
        assert_eq!(transcript.refs, ["e20"]);
        // A dialog's view is the dialog, still waiting while later answers fail.
        let dialog = "### Action\nclick e20 (button \"Close\"): done\n\n### Dialog\nA confirm dialog is open: \"Sure?\". The page is stopped";
        transcript.read(&mapping, dialog, false);
        transcript.read(&mapping, "page_action: a dialog is open", true);
        let observation = transcript.observation("mcp:pagesnap-answers");
        assert_eq!(
            observation.meta.dialog.map(|d| d.message).as_deref(),
            Some("Sure?")
        );
        // Answered, it waits no more, though its line was read before.
        transcript.read(
            &mapping,
            "### Action\ndialog: done\n\n### Changed lines\n+ - status \"discarded\"",
            false,
        );
        assert!(transcript.text().contains("A confirm dialog is open"));
        assert!(
            transcript
                .observation("mcp:pagesnap-answers")
                .meta
                .dialog
                .is_none()
        );
    }
}
