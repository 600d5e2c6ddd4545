//! Reading an instruction: clauses, each with a verb → op, an extracted value and query words.
//!
//! Words are split on whitespace, except that text in double quotes (`"…"` or
//! `“…”`) is one quoted word. A new clause starts at a verb that follows
//! `then`, `and`, or a word ending in `,` or `;`, when the clause already has
//! a verb: `Type "x" into Email, then click Sign in` is two clauses.

use super::Op;

/// One clause of an instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clause {
    /// The op its verb maps to (`click` when it has no verb).
    pub op: Op,
    /// The typed or selected value.
    pub value: Option<String>,
    /// Query terms describing the target (lowercase, stop words removed).
    pub query: Vec<String>,
    /// The clause says the target is further down (`scroll`, `below`, `bottom`, …).
    pub scroll_cue: bool,
    /// A drag's drop target, as query terms (`drag X to|onto|into Y`).
    pub to: Vec<String>,
}

#[derive(Clone, Debug)]
struct Word {
    text: String,
    quoted: bool,
}

impl Word {
    fn bare(&self) -> String {
        self.text
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase()
    }
}

/// Verbs and the op they map to. `choose`/`pick`/`select`/`set` are `select`
/// only in the `<verb> VALUE from|in|for|to TARGET` shape; otherwise `click`.
const VERBS: &[(&str, Verb)] = &[
    ("click", Verb::Op(Op::Click)),
    ("press", Verb::Op(Op::Click)),
    ("tap", Verb::Op(Op::Click)),
    ("open", Verb::Op(Op::Click)),
    ("accept", Verb::Op(Op::Click)),
    ("reject", Verb::Op(Op::Click)),
    ("hit", Verb::Op(Op::Click)),
    ("check", Verb::Op(Op::Click)),
    ("tick", Verb::Op(Op::Click)),
    ("toggle", Verb::Op(Op::Click)),
    ("close", Verb::Op(Op::Click)),
    ("dismiss", Verb::Op(Op::Click)),
    ("submit", Verb::Op(Op::Click)),
    ("follow", Verb::Op(Op::Click)),
    ("go", Verb::Op(Op::Click)),
    ("add", Verb::Op(Op::Click)),
    ("delete", Verb::Op(Op::Click)),
    ("remove", Verb::Op(Op::Click)),
    ("archive", Verb::Op(Op::Click)),
    ("type", Verb::Op(Op::Type)),
    ("enter", Verb::Op(Op::Type)),
    ("fill", Verb::Op(Op::Type)),
    ("write", Verb::Op(Op::Type)),
    ("search", Verb::Op(Op::Type)),
    ("input", Verb::Op(Op::Type)),
    ("select", Verb::Choose),
    ("choose", Verb::Choose),
    ("pick", Verb::Choose),
    ("set", Verb::Choose),
    ("scroll", Verb::Op(Op::Scroll)),
    ("hover", Verb::Op(Op::Hover)),
    ("double-click", Verb::Op(Op::Dblclick)),
    ("doubleclick", Verb::Op(Op::Dblclick)),
    ("drag", Verb::Op(Op::Drag)),
    ("move", Verb::Op(Op::Drag)),
    ("upload", Verb::Op(Op::Upload)),
    ("attach", Verb::Op(Op::Upload)),
    ("done", Verb::Op(Op::Done)),
    ("finished", Verb::Op(Op::Done)),
    ("finish", Verb::Op(Op::Done)),
    ("report", Verb::Op(Op::Done)),
    ("say", Verb::Op(Op::Done)),
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verb {
    Op(Op),
    Choose,
}

/// Verbs that name the action only; other verbs (`accept`, `add`, `search`, …)
/// are often part of the control's name and stay in the query.
const PURE_VERBS: &[&str] = &[
    "click",
    "press",
    "tap",
    "hit",
    "type",
    "enter",
    "fill",
    "write",
    "input",
    "select",
    "choose",
    "pick",
    "set",
    "scroll",
    "say",
    "report",
    "hover",
    "double-click",
    "doubleclick",
    "drag",
    "move",
    "upload",
    "attach",
];

const SCROLL_CUES: &[&str] = &["scroll", "below", "bottom", "further", "footer", "end"];

const STOP_WORDS: &[&str] = &[
    "a", "an", "the", "to", "in", "into", "on", "of", "for", "and", "then", "with", "at", "from",
    "as", "by", "it", "its", "this", "that", "is", "be", "please", "you", "your", "are", "field",
    "down", "scroll", "below", "bottom", "further", "page",
];

const VALUE_STOPS: &[&str] = &["into", "in", "to", "on", "as", "from", "for"];

fn verb_of(word: &Word) -> Option<Verb> {
    if word.quoted {
        return None;
    }
    let bare = word.bare();
    VERBS
        .iter()
        .find(|(v, _)| *v == bare)
        .map(|(_, verb)| *verb)
}

fn split_words(text: &str) -> Vec<Word> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match quote {
            Some(close) if c == close => {
                words.push(Word {
                    text: std::mem::take(&mut current),
                    quoted: true,
                });
                quote = None;
            }
            Some(_) => current.push(c),
            None if c == '"' || c == '“' => {
                if !current.is_empty() {
                    words.push(Word {
                        text: std::mem::take(&mut current),
                        quoted: false,
                    });
                }
                quote = Some(if c == '“' { '”' } else { '"' });
            }
            None if c.is_whitespace() => {
                if !current.is_empty() {
                    words.push(Word {
                        text: std::mem::take(&mut current),
                        quoted: false,
                    });
                }
            }
            None => current.push(c),
        }
    }
    if !current.is_empty() {
        words.push(Word {
            text: current,
            quoted: quote.is_some(),
        });
    }
    words
}

/// Lowercase alphanumeric terms of a text, stop words removed.
pub fn terms(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(str::to_lowercase)
        .filter(|t| !STOP_WORDS.contains(&t.as_str()))
        .collect()
}

/// Splits an instruction into clauses. Clauses that only say to scroll are
/// folded into the next clause as its scroll cue.
pub fn parse(instruction: &str) -> Vec<Clause> {
    let words = split_words(instruction);
    let mut groups: Vec<Vec<Word>> = vec![Vec::new()];
    for (i, word) in words.iter().enumerate() {
        let connector = i > 0 && {
            let previous = &words[i - 1];
            !previous.quoted
                && (matches!(previous.bare().as_str(), "then" | "and")
                    || previous.text.ends_with([',', ';']))
        };
        let has_verb = groups
            .last()
            .is_some_and(|g| g.iter().any(|w| verb_of(w).is_some()));
        if connector && has_verb && verb_of(word).is_some() {
            groups.push(Vec::new());
        }
        if let Some(group) = groups.last_mut() {
            group.push(word.clone());
        }
    }
    let mut clauses: Vec<Clause> = Vec::new();
    let mut pending_cue = false;
    for group in groups {
        let mut clause = clause_of(&group);
        clause.scroll_cue |= pending_cue;
        pending_cue = false;
        if clause.op == Op::Scroll && clause.query.is_empty() {
            pending_cue = true;
            continue;
        }
        if clause.op == Op::Scroll {
            // "Scroll to the comments": a target to find further down.
            clause.op = Op::Click;
        }
        clauses.push(clause);
    }
    if pending_cue {
        clauses.push(Clause {
            op: Op::Scroll,
            value: None,
            query: Vec::new(),
            scroll_cue: true,
            to: Vec::new(),
        });
    }
    clauses
}

fn clause_of(words: &[Word]) -> Clause {
    let verb_at = words.iter().position(|w| verb_of(w).is_some());
    let scroll_cue = words
        .iter()
        .any(|w| !w.quoted && SCROLL_CUES.contains(&w.bare().as_str()));
    let mut op = match verb_at.and_then(|i| verb_of(&words[i])) {
        Some(Verb::Op(op)) => op,
        Some(Verb::Choose) => Op::Select,
        None => Op::Click,
    };
    let mut value = None;
    let mut used = vec![false; words.len()];
    // `press Enter`, `hit Escape`: a key, not a control named "Enter".
    if let Some(v) = verb_at.filter(|&v| matches!(words[v].bare().as_str(), "press" | "hit"))
        && let Some(key) = words.get(v + 1).and_then(|w| key_of(&w.bare()))
    {
        return Clause {
            op: Op::Press,
            value: Some(key.to_owned()),
            query: Vec::new(),
            scroll_cue: false,
            to: Vec::new(),
        };
    }
    if let Some(v) = verb_at {
        if PURE_VERBS.contains(&words[v].bare().as_str()) {
            used[v] = true;
        }
        match op {
            Op::Type => value = type_value(words, v, &mut used),
            Op::Select => {
                value = select_value(words, v, &mut used);
                if value.is_none() {
                    op = Op::Click;
                }
            }
            // `upload "résumé.pdf" to Résumé`: the quoted word, or one with an extension.
            Op::Upload => {
                let file = words
                    .iter()
                    .position(|w| w.quoted)
                    .or_else(|| words.iter().position(|w| w.bare().contains('.')));
                if let Some(f) = file {
                    used[f] = true;
                    value = Some(words[f].text.trim_matches(['"', '\'', ',', ';']).to_owned());
                }
            }
            _ => {}
        }
    }
    // `drag X to|onto|into Y`: Y is the drop target.
    let mut to = Vec::new();
    if op == Op::Drag
        && let Some(v) = verb_at
        && let Some(at) = (v + 1..words.len()).find(|&i| {
            !words[i].quoted && matches!(words[i].bare().as_str(), "to" | "onto" | "into")
        })
    {
        for (i, word) in words.iter().enumerate().skip(at) {
            used[i] = true;
            to.extend(terms(&word.text));
        }
    }
    let mut query = Vec::new();
    for (word, used) in words.iter().zip(&used) {
        if !used {
            query.extend(terms(&word.text));
        }
    }
    // "done" and "finished" name the op, not a control.
    if op == Op::Done {
        query.clear();
    }
    Clause {
        op,
        value,
        query,
        scroll_cue,
        to,
    }
}

/// The key a word names after `press`/`hit` (`enter` → `Enter`).
fn key_of(word: &str) -> Option<&'static str> {
    Some(match word {
        "enter" | "return" => "Enter",
        "tab" => "Tab",
        "escape" | "esc" => "Escape",
        "backspace" => "Backspace",
        _ => return None,
    })
}

/// `type VALUE into|in|to|on|as TARGET`, `fill TARGET with VALUE`,
/// `search for VALUE`, a quoted word anywhere, or else the last word.
fn type_value(words: &[Word], verb: usize, used: &mut [bool]) -> Option<String> {
    if let Some(q) = words.iter().position(|w| w.quoted) {
        used[q] = true;
        return Some(words[q].text.clone());
    }
    let after = verb + 1;
    if let Some(with) = (after..words.len()).find(|&i| words[i].bare() == "with") {
        return take(words, with + 1, words.len(), used, with);
    }
    let mut start = after;
    if words.get(start).is_some_and(|w| w.bare() == "for") {
        start += 1;
    }
    if let Some(stop) =
        (start + 1..words.len()).find(|&i| VALUE_STOPS.contains(&words[i].bare().as_str()))
    {
        return take(words, start, stop, used, stop);
    }
    let last = words.len().checked_sub(1)?;
    (last > verb).then(|| take(words, last, words.len(), used, last))?
}

/// `choose VALUE from|in|for TARGET` or `set TARGET to VALUE`.
fn select_value(words: &[Word], verb: usize, used: &mut [bool]) -> Option<String> {
    let after = verb + 1;
    if words[verb].bare() == "set" {
        let to = (after..words.len()).find(|&i| words[i].bare() == "to")?;
        return take(words, to + 1, words.len(), used, to);
    }
    let from = (after + 1..words.len())
        .find(|&i| matches!(words[i].bare().as_str(), "from" | "in" | "for" | "as"))?;
    if let Some(q) = (after..from).find(|&i| words[i].quoted) {
        used[q] = true;
        return Some(words[q].text.clone());
    }
    take(words, after, from, used, from)
}

/// Marks `start..end` (and the connector word) as used and joins them as the value.
fn take(
    words: &[Word],
    start: usize,
    end: usize,
    used: &mut [bool],
    connector: usize,
) -> Option<String> {
    if start >= end {
        return None;
    }
    for flag in &mut used[start..end] {
        *flag = true;
    }
    used[connector] = true;
    let text = words[start..end]
        .iter()
        .map(|w| w.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let text = text.trim_end_matches([',', ';', '.']).to_owned();
    (!text.is_empty()).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_clauses_and_extracts_values() {
        let clauses = parse("Type ada@example.com into the email field, then click Sign in");
        assert_eq!(clauses.len(), 2);
        assert_eq!(clauses[0].op, Op::Type);
        assert_eq!(clauses[0].value.as_deref(), Some("ada@example.com"));
        assert_eq!(clauses[0].query, vec!["email"]);
        assert_eq!(clauses[1].op, Op::Click);
        assert_eq!(clauses[1].query, vec!["sign"]);
    }

    #[test]
    fn quoted_values_and_fill_with() {
        let c = &parse("Enter \"DE89 3704 0044\" in the IBAN field")[0];
        assert_eq!(c.value.as_deref(), Some("DE89 3704 0044"));
        assert_eq!(c.query, vec!["iban"]);
        let c = &parse("Fill the recipient name with Jane Doe")[0];
        assert_eq!(c.op, Op::Type);
        assert_eq!(c.value.as_deref(), Some("Jane Doe"));
        assert_eq!(c.query, vec!["recipient", "name"]);
        let c = &parse("Search for invoices")[0];
        assert_eq!(c.value.as_deref(), Some("invoices"));
    }

    #[test]
    fn select_shapes() {
        let c = &parse("Select Germany from the country dropdown")[0];
        assert_eq!((c.op, c.value.as_deref()), (Op::Select, Some("Germany")));
        assert_eq!(c.query, vec!["country", "dropdown"]);
        let c = &parse("Set the preferred carrier to DHL Express")[0];
        assert_eq!(
            (c.op, c.value.as_deref()),
            (Op::Select, Some("DHL Express"))
        );
        // No "from …": choosing a thing is clicking it.
        assert_eq!(parse("Choose the blue plan")[0].op, Op::Click);
    }

    #[test]
    fn press_a_key_is_not_a_click() {
        let clauses = parse("Type \"kitten\" into the search box, then press Enter");
        assert_eq!(clauses[1].op, Op::Press);
        assert_eq!(clauses[1].value.as_deref(), Some("Enter"));
        // A control that happens to follow `press` stays a click.
        assert_eq!(parse("Press Submit")[0].op, Op::Click);
    }

    #[test]
    fn scroll_and_done() {
        let clauses = parse("Scroll down, then type me@example.com into the newsletter email");
        assert_eq!(clauses.len(), 1);
        assert!(clauses[0].scroll_cue);
        assert_eq!(clauses[0].op, Op::Type);
        let clauses = parse("Accept all cookies, then say you are done");
        assert_eq!(clauses[1].op, Op::Done);
        assert_eq!(clauses[0].query, vec!["accept", "all", "cookies"]);
    }
}
