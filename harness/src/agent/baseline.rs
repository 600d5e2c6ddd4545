//! `baseline`: the embedded, deterministic, no-network agent — verb → op mapping plus BM25 over the observation's refs.
//!
//! # Algorithm
//!
//! 1. **Clauses.** The instruction is split into clauses (`…, then …`,
//!    `… and <verb> …`; see `instruction.rs`). The current clause is the one
//!    after as many clauses as the history holds non-scroll actions; when every
//!    clause has been acted on, the answer is `done`.
//! 2. **Verb → op.** The clause's first verb gives the op: click / press /
//!    tap / open / accept / check / close / submit / add / … → `click`;
//!    type / enter / fill / write / search / input → `type`; select / choose /
//!    pick in the shape `<verb> VALUE from|in|for TARGET` (or `set TARGET to
//!    VALUE`) → `select`; press / hit followed by Enter, Tab, Escape or
//!    Backspace → `press` that key (sent to the focused element); done / finished / say / report → `done`; no verb →
//!    `click`. The value of `type`/`select` is the quoted text, else the words
//!    between the verb and `into|in|to|on|as` (or after `with`), else the last
//!    word. The remaining words, lowercased and without stop words, are the
//!    query.
//! 3. **BM25.** Each ref'd item of the observation is a document made of its
//!    accessible name (counted twice: the name is what users point at), its
//!    role, and its nearby text (`meta.items[].context`: preceding heading and
//!    label-like text). Items are scored with Okapi BM25 (k1 = 1.2, b = 0.75,
//!    idf = ln(1 + (N − df + 0.5) / (df + 0.5))) against the query terms.
//! 4. **Role prior.** Items whose role suits the op get [`ROLE_PRIOR`] added:
//!    `type` → textbox, searchbox, combobox, spinbutton; `select` → combobox,
//!    listbox; `click` → button, link, checkbox, radio, menuitem, tab, switch,
//!    option, … . Disabled items get nothing. The highest total wins; ties go
//!    to the earlier ref (document order).
//!    `hover` and `double-click` pick their element as a click does;
//!    `drag X to Y` drags the best match of X onto the best match of Y (no
//!    role prior: drop zones are regions, list items, cells); `upload
//!    FILE` gives the quoted file (or the word with an extension) to the
//!    best match of the rest.
//! 5. **Dialogs.** While the page waits on a JavaScript dialog, the answer
//!    is the dialog's, as the instruction says (`dialog.rs`); a clause about
//!    the dialog ("…, then confirm") is carried out by it.
//! 6. **Scroll.** When the clause says the target is further down (`scroll`,
//!    `below`, `bottom`, `further`, `footer`, `end`) and no item matches any
//!    query term, or the best match is off-screen, the answer is `scroll`.
//!    A clause that has no query terms at all and no role-suited item answers
//!    `done`.
//!
//! The baseline reads the structured ref list every strategy exposes, not the
//! rendered text, so across strategies its results differ only by *which*
//! elements got refs (scope, occlusion, modal layer) — it measures a
//! strategy's target coverage and naming, with no language model in the loop.

use std::time::Instant;

use anyhow::Result;

use super::instruction;
use pagesnap_engine::observation::{Item, Zone};

use super::{Action, Agent, Op, Request, Response};
use crate::tokens;

/// The baseline agent.
pub struct Baseline;

/// BM25 term-frequency saturation.
const K1: f64 = 1.2;
/// BM25 length normalisation.
const B: f64 = 0.75;
/// Added to the score of an item whose role suits the op.
pub const ROLE_PRIOR: f64 = 0.5;

impl Agent for Baseline {
    fn name(&self) -> String {
        "baseline".to_owned()
    }

    fn act(&self, request: &Request<'_>) -> Result<Response> {
        respond(request, || decide(request, || candidates(request.refs)))
    }
}

/// An element an embedded agent may choose, as its source describes it:
/// the baseline reads it from the refs' meta, the reader from the text.
pub struct Candidate {
    /// The ref the agent answers with.
    pub reference: String,
    /// What users point at (a name), counted twice.
    pub words: String,
    /// Its role.
    pub role: String,
    /// Nearby text (a label, a heading).
    pub context: String,
    /// Disabled: no role prior.
    pub disabled: bool,
    /// Said to be outside the viewport: a clause that says the target is
    /// further down scrolls rather than pick it.
    pub offscreen: bool,
}

impl Candidate {
    /// The BM25 document: words twice, role, nearby text.
    fn document(&self) -> Vec<String> {
        let mut terms = instruction::terms(&self.words);
        terms.extend(instruction::terms(&self.words));
        terms.extend(instruction::terms(&self.role));
        terms.extend(instruction::terms(&self.context));
        terms
    }
}

/// The baseline's candidates: the refs as the meta describes them.
fn candidates(items: &[Item]) -> Vec<Candidate> {
    items
        .iter()
        .map(|item| Candidate {
            reference: item.reference.clone(),
            words: item.name.clone(),
            role: item.role.clone(),
            context: item.context.clone(),
            disabled: item.states.iter().any(|s| s == "disabled"),
            offscreen: item.zone == Zone::Offscreen,
        })
        .collect()
}

/// An embedded agent's response: the action `decide` chooses, timed, with
/// the tokens a model would have read and written for it.
pub fn respond(request: &Request<'_>, decide: impl FnOnce() -> Action) -> Result<Response> {
    let started = Instant::now();
    let action = decide();
    let raw = serde_json::to_string(&action)?;
    let prompt = format!(
        "Instruction: {}\n\nObservation ({}):\n{}",
        request.instruction, request.strategy, request.observation
    );
    Ok(Response {
        input_tokens: tokens::o200k(&prompt),
        output_tokens: tokens::o200k(&raw),
        raw,
        action: Some(action),
        latency_us: u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
        ..Response::default()
    })
}

/// Steps 1, 2, 4 and 5 of the algorithm over the elements `candidates`
/// gives (asked only when the clause needs a target).
pub fn decide(request: &Request<'_>, candidates: impl FnOnce() -> Vec<Candidate>) -> Action {
    if let Some(dialog) = request.dialog {
        return super::dialog::answer(request.instruction, dialog);
    }
    let clauses = instruction::parse(request.instruction);
    // A dialog's answer carries out a clause only when one is about the
    // dialog ("…, then confirm"); otherwise it was the page's question.
    let answered = request
        .history
        .iter()
        .filter(|a| a.op == Op::Dialog)
        .count();
    let about_dialog = clauses
        .iter()
        .filter(|c| super::dialog::is_about_dialog(c))
        .count();
    let acted = request
        .history
        .iter()
        .filter(|a| !matches!(a.op, Op::Scroll | Op::Dialog))
        .count()
        + answered.min(about_dialog);
    let Some(clause) = clauses.get(acted) else {
        return action(Op::Done, None, None);
    };
    match clause.op {
        Op::Done | Op::Scroll | Op::Dialog => return action(clause.op, None, None),
        // The key goes to whatever has focus (the field just typed into).
        Op::Press => return action(Op::Press, None, clause.value.clone()),
        _ => {}
    }
    let candidates = candidates();
    let scores = bm25(&clause.query, &candidates);
    let best = scores
        .iter()
        .zip(&candidates)
        .enumerate()
        .map(|(i, (&s, c))| (i, s + role_prior(clause.op, &c.role, c.disabled)))
        .fold(None, |best: Option<(usize, f64)>, (i, s)| match best {
            Some((_, b)) if b >= s => best,
            _ => Some((i, s)),
        });
    let matched = scores.iter().any(|&s| s > 0.0);
    match best {
        Some((i, total)) if total > 0.0 => {
            let candidate = &candidates[i];
            if clause.scroll_cue && (!matched || candidate.offscreen) {
                return action(Op::Scroll, None, None);
            }
            if clause.op == Op::Drag {
                // The drop target: the best match of the words after `to`,
                // other than what is dragged.
                let target = bm25(&clause.to, &candidates)
                    .into_iter()
                    .enumerate()
                    .filter(|&(j, score)| j != i && score > 0.0)
                    .fold(None, |best: Option<(usize, f64)>, (j, score)| match best {
                        Some((_, b)) if b >= score => best,
                        _ => Some((j, score)),
                    });
                return match target {
                    Some((j, _)) => action(
                        Op::Drag,
                        Some(candidate.reference.clone()),
                        Some(candidates[j].reference.clone()),
                    ),
                    None => action(Op::Done, None, None),
                };
            }
            action(
                clause.op,
                Some(candidate.reference.clone()),
                clause.value.clone(),
            )
        }
        _ if clause.scroll_cue => action(Op::Scroll, None, None),
        _ => action(Op::Done, None, None),
    }
}

fn action(op: Op, reference: Option<String>, value: Option<String>) -> Action {
    Action {
        op,
        reference,
        value,
    }
}

/// [`ROLE_PRIOR`] when `role` suits `op` and the element is not disabled.
fn role_prior(op: Op, role: &str, disabled: bool) -> f64 {
    if disabled {
        return 0.0;
    }
    let suits: &[&str] = match op {
        Op::Type => &["textbox", "searchbox", "combobox", "spinbutton"],
        Op::Select => &["combobox", "listbox"],
        _ => &[
            "button",
            "link",
            "checkbox",
            "radio",
            "menuitem",
            "menuitemcheckbox",
            "menuitemradio",
            "tab",
            "switch",
            "option",
            "treeitem",
        ],
    };
    if suits.contains(&role) {
        ROLE_PRIOR
    } else {
        0.0
    }
}

/// Okapi BM25 score of every candidate against the query terms (unique terms).
fn bm25(query: &[String], candidates: &[Candidate]) -> Vec<f64> {
    let docs: Vec<Vec<String>> = candidates.iter().map(Candidate::document).collect();
    let n = docs.len() as f64;
    if docs.is_empty() {
        return Vec::new();
    }
    let avgdl = (docs.iter().map(Vec::len).sum::<usize>() as f64 / n).max(1.0);
    let mut unique: Vec<&String> = query.iter().collect();
    unique.sort();
    unique.dedup();
    let idf: Vec<f64> = unique
        .iter()
        .map(|term| {
            let df = docs.iter().filter(|d| d.contains(term)).count() as f64;
            (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
        })
        .collect();
    docs.iter()
        .map(|doc| {
            let dl = doc.len() as f64;
            unique
                .iter()
                .zip(&idf)
                .map(|(term, idf)| {
                    let tf = doc.iter().filter(|t| t == term).count() as f64;
                    idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * dl / avgdl))
                })
                .sum()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(reference: &str, role: &str, name: &str, context: &str) -> Item {
        Item {
            reference: reference.to_owned(),
            role: role.to_owned(),
            name: name.to_owned(),
            zone: Zone::Center,
            context: context.to_owned(),
            ..Item::default()
        }
    }

    fn login() -> Vec<Item> {
        vec![
            item("e1", "link", "Acme Cloud", ""),
            item("e2", "link", "Sign up", ""),
            item("e3", "textbox", "Email or username", "Sign in to Acme"),
            item("e4", "textbox", "Password", "Sign in to Acme"),
            item("e5", "checkbox", "Remember me", ""),
            item("e6", "button", "Sign in", "Sign in to Acme"),
            item("e7", "link", "Forgot password?", ""),
        ]
    }

    fn ask(instruction: &str, refs: Vec<Item>, history: Vec<Action>) -> Action {
        let request = Request {
            instruction,
            strategy: "aria",
            observation: "",
            refs: &refs,
            history: &history,
            image_png: None,
            feedback: None,
            live: false,
            dialog: None,
        };
        match Baseline.act(&request) {
            Ok(response) => response.action.expect("the baseline always answers"),
            Err(err) => panic!("baseline failed: {err:#}"),
        }
    }

    #[test]
    fn drags_hovers_and_uploads_follow_the_instruction() {
        let items = vec![
            item("e1", "button", "Write report", "To do"),
            item("e2", "region", "Done", ""),
            item("e3", "region", "Archive", ""),
            item("e4", "button", "Account", ""),
            item("e5", "button", "Résumé (PDF)", ""),
        ];
        let decide_for = |instruction: &str| {
            let request = Request {
                instruction,
                strategy: "aria",
                observation: "",
                refs: &items,
                history: &[],
                image_png: None,
                feedback: None,
                live: true,
                dialog: None,
            };
            decide(&request, || candidates(&items))
        };
        assert_eq!(
            decide_for("Drag Write report to Done"),
            action(Op::Drag, Some("e1".into()), Some("e2".into()))
        );
        assert_eq!(
            decide_for("Hover over the Account menu"),
            action(Op::Hover, Some("e4".into()), None)
        );
        assert_eq!(
            decide_for("Upload \"cv.pdf\" as the résumé"),
            action(Op::Upload, Some("e5".into()), Some("cv.pdf".into()))
        );
    }

    #[test]
    fn picks_the_sign_in_button() {
        let a = ask("click the sign in button", login(), Vec::new());
        assert_eq!(a, action(Op::Click, Some("e6".into()), None));
    }

    #[test]
    fn types_into_the_email_field_with_the_value() {
        let a = ask(
            "Type ada@example.com into the email field",
            login(),
            Vec::new(),
        );
        assert_eq!(
            a,
            action(Op::Type, Some("e3".into()), Some("ada@example.com".into()))
        );
    }

    #[test]
    fn history_moves_to_the_next_clause_then_done() {
        let text = "Enter \"hunter 2\" as the password, then press Sign in";
        let first = ask(text, login(), Vec::new());
        assert_eq!(first.reference.as_deref(), Some("e4"));
        assert_eq!(first.value.as_deref(), Some("hunter 2"));
        let second = ask(text, login(), vec![first.clone()]);
        assert_eq!(second, action(Op::Click, Some("e6".into()), None));
        assert_eq!(ask(text, login(), vec![first, second]).op, Op::Done);
    }

    #[test]
    fn role_prior_separates_equal_names() {
        let refs = vec![
            item("1", "button", "Search", ""),
            item("2", "searchbox", "Search", ""),
        ];
        assert_eq!(
            ask("search for invoices", refs.clone(), Vec::new())
                .reference
                .as_deref(),
            Some("2")
        );
        // Ties go to document order.
        let same = vec![
            item("1", "button", "Delete", ""),
            item("2", "button", "Delete", ""),
        ];
        assert_eq!(
            ask("click Delete", same, Vec::new()).reference.as_deref(),
            Some("1")
        );
        assert_eq!(
            ask("click the search button", refs, Vec::new())
                .reference
                .as_deref(),
            Some("1")
        );
    }

    #[test]
    fn context_finds_fields_labelled_elsewhere() {
        let refs = vec![
            item("e1", "textbox", "", "New transfer | Recipient name: *"),
            item("e2", "textbox", "", "New transfer | IBAN: *"),
            item("e3", "textbox", "", "e.g. DE89 | Amount (EUR): *"),
        ];
        let a = ask("Enter \"DE89 3704\" in the IBAN field", refs, Vec::new());
        assert_eq!(a.reference.as_deref(), Some("e2"));
    }

    #[test]
    fn scrolls_when_the_target_is_further_down() {
        let mut refs = login();
        refs.push(Item {
            zone: Zone::Offscreen,
            ..item("e9", "textbox", "Newsletter email", "")
        });
        let text = "Scroll down and type me@example.com into the newsletter email";
        assert_eq!(ask(text, refs.clone(), Vec::new()).op, Op::Scroll);
        refs[7].zone = Zone::Center;
        let a = ask(text, refs, vec![action(Op::Scroll, None, None)]);
        assert_eq!(a.reference.as_deref(), Some("e9"));
        // Nothing matches and the target is said to be below: scroll.
        assert_eq!(
            ask(
                "Subscribe to the newsletter at the bottom",
                login(),
                Vec::new()
            )
            .op,
            Op::Scroll
        );
    }

    #[test]
    fn bm25_prefers_rare_terms_and_shorter_documents() {
        let items = vec![
            item("1", "button", "Submit order now please", ""),
            item("2", "button", "Submit", ""),
            item("3", "button", "Cancel", ""),
        ];
        let scores = bm25(&["submit".to_owned()], &candidates(&items));
        assert!(scores[1] > scores[0] && scores[0] > 0.0 && scores[2] == 0.0);
    }
}
