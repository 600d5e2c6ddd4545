//! `reader`: the embedded, deterministic, no-network agent that reads only what a model reads — the observation's text, the instruction and the history — never the meta.
//!
//! # Algorithm
//!
//! 1. **Clauses, verb → op, value, query**: as [`super::baseline`] (the
//!    instruction is parsed once, the same way, in `instruction.rs`).
//! 2. **Where each element is written.** Each ref the observation offers
//!    (its ref strings only) is found where the strategy's format writes it
//!    ([`format`]: the end of an ARIA YAML line, `[N]` opening a line of
//!    `flat`, `som`'s legend or `structural`, `data-ref="N"` in an HTML start
//!    tag). A ref the text does not write is not a candidate: a model
//!    could not name it either.
//! 3. **Its words.** What the text says about the element where it is
//!    written: its quoted name and values (YAML, legends), its tag and
//!    attributes and text (`flat`, HTML), its placeholder and text children
//!    (YAML); its role as the text names it (a role word, or a tag and
//!    `type` mapped to an ARIA role); `disabled` when the text says so; and
//!    the context just before it (two lines, or twelve words of markup: the
//!    label or heading above).
//! 4. **BM25** over those words only (words twice, role, context; the same
//!    scoring as the baseline), plus the baseline's role prior on the role
//!    the text gives. The highest total wins, ties to the earlier ref in
//!    the text's order of refs. A strategy that does not write what an
//!    element is (`som`'s `[16] textbox`, a name cut by a budget) leaves the
//!    reader nothing to match, and it loses the step.
//! 5. **Scroll.** When the clause says the target is further down and no
//!    element's words match the query, the answer is `scroll`; a clause with
//!    nothing to match and no suited element answers `done`.
//!
//! It is a lexical reader, not a language model: it matches words, not
//! meaning, so its scores rank what strategies *say* about elements, and
//! differences between strategies are differences in their text.

mod format;

use anyhow::Result;

use super::baseline::{Candidate, decide, respond};
use super::{Agent, Request, Response};
use format::Format;

/// The reader agent.
pub struct Reader;

impl Agent for Reader {
    fn name(&self) -> String {
        "reader".to_owned()
    }

    fn act(&self, request: &Request<'_>) -> Result<Response> {
        respond(request, || decide(request, || elements(request)))
    }
}

/// The elements the text writes: each offered ref with what the text says
/// about it, in the order the refs are offered. The text says nothing of
/// the viewport per element: none is taken for off-screen.
fn elements(request: &Request<'_>) -> Vec<Candidate> {
    let sample = request.refs.first().map(|item| item.reference.as_str());
    let format = Format::of(request.strategy, sample);
    request
        .refs
        .iter()
        .filter_map(|item| {
            let read = format::read(format, request.observation, &item.reference)?;
            Some(Candidate {
                reference: item.reference.clone(),
                words: read.words,
                role: read.role,
                context: read.context,
                disabled: read.disabled,
                offscreen: false,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::{Action, Op};
    use pagesnap_engine::observation::Item;

    fn ask(strategy: &str, text: &str, refs: &[&str], instruction: &str) -> Action {
        let items: Vec<Item> = refs
            .iter()
            .map(|r| Item {
                reference: (*r).to_owned(),
                // The reader never reads these: a wrong name proves it.
                name: "Cancel".to_owned(),
                role: "generic".to_owned(),
                ..Item::default()
            })
            .collect();
        let request = Request {
            instruction,
            strategy,
            observation: text,
            refs: &items,
            history: &[],
            image_png: None,
            feedback: None,
            live: false,
            dialog: None,
        };
        match Reader.act(&request) {
            Ok(response) => response.action.unwrap_or_else(|| panic!("no action")),
            Err(err) => panic!("reader failed: {err:#}"),
        }
    }

    #[test]
    fn reads_the_text_not_the_meta() {
        let aria = "- textbox \"Email\" [ref=e1]\n- button \"Sign in\" [ref=e2]\n- button \"Cancel\" [ref=e3]\n";
        let a = ask(
            "aria",
            aria,
            &["e1", "e2", "e3"],
            "click the sign in button",
        );
        assert_eq!(a.reference.as_deref(), Some("e2"));
        let typed = ask(
            "aria",
            aria,
            &["e1", "e2", "e3"],
            "type ada@example.com into the email field",
        );
        assert_eq!(
            (typed.op, typed.reference.as_deref()),
            (Op::Type, Some("e1"))
        );
    }

    #[test]
    fn each_format_is_read_where_it_writes_the_ref() {
        let flat = "Recipient name: *\n[1]<input type=text name=benName />\nIBAN: *\n[2]<input type=text name=iban />\n[3]<button>Continue />\n";
        assert_eq!(
            ask(
                "flat",
                flat,
                &["1", "2", "3"],
                "Enter \"DE89\" in the IBAN field"
            )
            .reference
            .as_deref(),
            Some("2")
        );
        let html = "<label>Recipient</label><input data-ref=\"1\"><label>IBAN</label><input data-ref=\"2\"><button data-ref=\"3\">Continue</button>";
        assert_eq!(
            ask(
                "html-pruned",
                html,
                &["1", "2", "3"],
                "Enter \"DE89\" in the IBAN field"
            )
            .reference
            .as_deref(),
            Some("2")
        );
        assert_eq!(
            ask("html", html, &["1", "2", "3"], "click continue")
                .reference
                .as_deref(),
            Some("3")
        );
    }

    #[test]
    fn a_text_that_does_not_say_what_an_element_is_loses_it() {
        // `som`'s legend without names: nothing says which field is the IBAN.
        let legend = "[1] textbox\n[2] textbox\n[3] button \"Continue\"\n";
        let a = ask(
            "som",
            legend,
            &["1", "2", "3"],
            "Enter \"DE89\" in the IBAN field",
        );
        assert_ne!(a.reference.as_deref(), Some("2"));
        // A ref the text does not write is never chosen.
        let a = ask(
            "aria",
            "- button \"Continue\" [ref=e1]\n",
            &["e1", "e9"],
            "click continue",
        );
        assert_eq!(a.reference.as_deref(), Some("e1"));
        assert_eq!(ask("aria", "", &["e9"], "click continue").op, Op::Done);
    }
}
