//! Where each strategy's text writes an element's ref and its words: the one place the reader learns a format, as the prompt notes teach a model.
//!
//! Four shapes cover every built-in strategy and the peers' snapshotters:
//!
//! - [`Format::Yaml`] (`aria`, and Playwright's `ariaSnapshot` as `ext:`
//!   strategies print it): `- role "name" [checked] [ref=e12]:` — the ref
//!   ends the element's line; its role opens the line and its name is
//!   quoted on it; indented `- /placeholder:` and `- text:` lines under it
//!   are its own words too.
//! - [`Format::Bracket`] (`flat`, `som`'s legend, `structural`): `[12]` opens
//!   the element's line (after indentation or `- `); the rest of the line is
//!   its words: `flat` writes the tag and attributes (`[16]<input
//!   type=text name=benName />`), `som` and `structural` a role and a quoted
//!   name (`[11] combobox (name: unknown) value="…" near "From account"`).
//! - [`Format::Markup`] (`html`, `html-pruned`): `data-ref="12"` sits in the
//!   element's start tag; its words are the readable attributes of that tag
//!   and the text up to its end tag.
//! - [`Format::Uid`] (Chrome DevTools MCP's `take_snapshot`): `uid=1_5`
//!   opens the element's line, then its role and its quoted name
//!   (`uid=1_5 button "Submit" disabled`).
//!
//! In all three, the lines (or text) just before an element are its context:
//! the label or heading a reader sees above it.

/// How a strategy's text writes elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// ARIA YAML, the ref last on the element's line.
    Yaml,
    /// `[N]` first on the element's line.
    Bracket,
    /// `data-ref="N"` in the element's start tag.
    Markup,
    /// `uid=N_M` first on the element's line.
    Uid,
}

impl Format {
    /// The format of a strategy's text, by its name (`aria`, `flat@2000`,
    /// `ext:playwright-aria`). Any other (an external strategy) is read as
    /// YAML when its refs hold a letter (Playwright's `e12`, `f1e3`), else
    /// by brackets.
    pub fn of(strategy: &str, sample_ref: Option<&str>) -> Format {
        let name = strategy.split('@').next().unwrap_or(strategy);
        match name {
            "aria" => Format::Yaml,
            "flat" | "som" | "structural" => Format::Bracket,
            "html" | "html-pruned" => Format::Markup,
            // Chrome DevTools MCP's uids: the snapshot's number, an underscore, the node's.
            _ if sample_ref.is_some_and(|r| {
                r.split_once('_').is_some_and(|(a, b)| {
                    !a.is_empty()
                        && !b.is_empty()
                        && a.bytes().chain(b.bytes()).all(|c| c.is_ascii_digit())
                })
            }) =>
            {
                Format::Uid
            }
            _ if sample_ref.is_some_and(|r| r.bytes().any(|b| b.is_ascii_alphabetic())) => {
                Format::Yaml
            }
            _ => Format::Bracket,
        }
    }
}

/// What the text says about one element.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Read {
    /// The element's own words (its name, value, placeholder, text).
    pub words: String,
    /// Its role, as the text names it (a role word or a tag), mapped to an
    /// ARIA role where a tag is given.
    pub role: String,
    /// The text says it is disabled.
    pub disabled: bool,
    /// The text just before it (a label, a heading).
    pub context: String,
}

/// Lines of context read above an element.
const CONTEXT_LINES: usize = 2;
/// Bytes of markup read for an element's inner text and for its context.
const MARKUP_REACH: usize = 400;

/// What `text` says about the element whose ref is `reference`, or `None`
/// when the text does not write the ref where its format puts it.
pub fn read(format: Format, text: &str, reference: &str) -> Option<Read> {
    match format {
        Format::Yaml => read_yaml(text, reference),
        Format::Bracket => read_bracket(text, reference),
        Format::Markup => read_markup(text, reference),
        Format::Uid => read_uid(text, reference),
    }
}

fn read_uid(text: &str, reference: &str) -> Option<Read> {
    let token = format!("uid={reference} ");
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|line| line.trim_start().starts_with(&token) || line.trim() == token.trim())?;
    let body = lines[at].trim_start()[token.len().min(lines[at].trim_start().len())..].trim();
    let role = body
        .split(|c: char| !c.is_alphanumeric())
        .find(|w| !w.is_empty())
        .unwrap_or("")
        .to_owned();
    // A text node's line is its quoted text alone: no role word before it.
    let role = if body.starts_with('"') {
        String::new()
    } else {
        role
    };
    let words = quoted_or_rest(body, &role);
    // Every node has a uid here, so a sibling control's line is not
    // context (as in YAML, where other elements' ref lines are skipped): the
    // button above is not the label of the button below.
    let context = lines[..at]
        .iter()
        .rev()
        .map(|l| {
            let l = l.trim_start();
            l.split_once(' ').map_or(l, |(_, rest)| rest)
        })
        .filter(|l| {
            !l.trim().is_empty()
                && !pagesnap_engine::analyze::is_widget_role(l.split(' ').next().unwrap_or(""))
        })
        .take(CONTEXT_LINES)
        .collect::<Vec<_>>()
        .join(" | ");
    Some(Read {
        disabled: body.split_whitespace().any(|w| w == "disabled"),
        words,
        role,
        context,
    })
}

/// The line without the ref `token` (`ref=e5]`), when the line writes it:
/// alone in brackets (`[ref=e5]`, Playwright's) or last among the element's
/// states (`[checked=false, ref=e5]`, agent-browser's).
fn without_yaml_ref(line: &str, token: &str) -> Option<String> {
    let (at, _) = line
        .match_indices(token)
        .find(|(at, _)| line[..*at].ends_with('[') || line[..*at].ends_with(", "))?;
    let end = at + token.len();
    Some(if line[..at].ends_with('[') {
        format!("{}{}", &line[..at - 1], &line[end..])
    } else {
        format!("{}]{}", &line[..at - 2], &line[end..])
    })
}

/// Whether a YAML line is an element's (it writes a ref).
fn has_yaml_ref(line: &str) -> bool {
    line.contains("[ref=") || line.contains(", ref=")
}

fn read_yaml(text: &str, reference: &str) -> Option<Read> {
    let token = format!("ref={reference}]");
    let lines: Vec<&str> = text.lines().collect();
    let (at, line) = lines
        .iter()
        .enumerate()
        .find_map(|(at, line)| without_yaml_ref(line, &token).map(|l| (at, l)))?;
    let indent = indent_of(lines[at]);
    let body = line.trim_start().trim_start_matches("- ").to_owned();
    let role = body
        .split(|c: char| !c.is_alphanumeric())
        .find(|w| !w.is_empty())
        .unwrap_or("")
        .to_owned();
    let mut words = quoted_or_rest(&body, &role);
    // Its own properties and text, indented under it.
    for child in lines[at + 1..]
        .iter()
        .take_while(|l| indent_of(l) > indent)
        .take(4)
    {
        let child = child.trim_start().trim_start_matches("- ");
        for prefix in ["/placeholder:", "text:"] {
            if let Some(rest) = child.strip_prefix(prefix) {
                words.push(' ');
                words.push_str(rest.trim().trim_matches('"'));
            }
        }
    }
    let context = lines[..at]
        .iter()
        .rev()
        .filter(|l| !has_yaml_ref(l) && !l.trim_start().starts_with("- /"))
        .take(CONTEXT_LINES)
        .map(|l| l.trim_start().trim_start_matches("- "))
        .collect::<Vec<_>>()
        .join(" | ");
    Some(Read {
        disabled: body.contains("[disabled"),
        words,
        role,
        context,
    })
}

fn read_bracket(text: &str, reference: &str) -> Option<Read> {
    let token = format!("[{reference}]");
    let lines: Vec<&str> = text.lines().collect();
    let opens = |line: &str| {
        line.trim_start()
            .trim_start_matches("- ")
            .starts_with(token.as_str())
    };
    let at = lines.iter().position(|line| opens(line))?;
    let rest = lines[at].trim_start().trim_start_matches("- ")[token.len()..].trim();
    let (role, words) = if let Some(markup) = rest.strip_prefix('<') {
        // `flat`: a tag and its attributes, then the text, then ` />`.
        let tag = markup
            .split(|c: char| !c.is_alphanumeric())
            .next()
            .unwrap_or("");
        let body = markup.trim_end_matches("/>").trim_end();
        let role = role_of_tag(tag, attribute(body, "type"), attribute(body, "role"));
        let words = body[tag.len()..].to_owned();
        (role.to_owned(), words)
    } else {
        let role = rest.split_whitespace().next().unwrap_or("").to_owned();
        let words = quoted_or_rest(rest, &role);
        (role, words)
    };
    let is_ref_line = |line: &str| {
        let line = line.trim_start().trim_start_matches("- ");
        line.starts_with('[')
            && line[1..]
                .split(']')
                .next()
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    let context = lines[..at]
        .iter()
        .rev()
        .filter(|l| !is_ref_line(l) && !l.trim().is_empty())
        .take(CONTEXT_LINES)
        .map(|l| l.trim_start().trim_start_matches("- "))
        .collect::<Vec<_>>()
        .join(" | ");
    Some(Read {
        disabled: rest.contains("disabled"),
        words,
        role,
        context,
    })
}

fn read_markup(text: &str, reference: &str) -> Option<Read> {
    let token = format!("data-ref=\"{reference}\"");
    let at = text.find(&token)?;
    let start = text[..at].rfind('<')?;
    let tag_end = at + text[at..].find('>')?;
    let start_tag = &text[start + 1..tag_end];
    let tag = start_tag
        .split(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or("");
    let role = role_of_tag(
        tag,
        attribute(start_tag, "type"),
        attribute(start_tag, "role"),
    );
    let mut words = String::new();
    for name in ["aria-label", "title", "alt", "placeholder", "value", "name"] {
        if let Some(value) = attribute(start_tag, name) {
            words.push_str(value);
            words.push(' ');
        }
    }
    // The text up to its end tag within the reach, tags left out; without
    // one, its first run of text; a void element (`<input>`) has none.
    let inner_start = tag_end + 1;
    let reach = floor_boundary(text, inner_start + MARKUP_REACH);
    let close = format!("</{tag}>");
    let inner_end = if VOID.contains(&tag.to_ascii_lowercase().as_str()) {
        inner_start
    } else {
        match text[inner_start..reach].find(&close) {
            Some(k) => inner_start + k,
            None => text[inner_start..reach]
                .find('<')
                .map_or(reach, |k| inner_start + k),
        }
    };
    words.push_str(&strip_tags(&text[inner_start..inner_end]));
    let before = floor_boundary(text, start.saturating_sub(MARKUP_REACH));
    let context = strip_tags(&text[before..start]);
    let context = context
        .split_whitespace()
        .rev()
        .take(12)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect::<Vec<_>>()
        .join(" ");
    Some(Read {
        disabled: attribute(start_tag, "disabled").is_some()
            || start_tag.split_whitespace().any(|w| w == "disabled"),
        words,
        role: role.to_owned(),
        context,
    })
}

/// Elements without content (HTML's void elements).
const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr",
];

/// The quoted parts of a line (an element's name and values), or the line
/// less its role word when nothing is quoted.
fn quoted_or_rest(line: &str, role: &str) -> String {
    let quoted: Vec<&str> = line.split('"').skip(1).step_by(2).collect();
    if quoted.is_empty() {
        line.trim_start()
            .strip_prefix(role)
            .unwrap_or(line)
            .trim()
            .to_owned()
    } else {
        quoted.join(" ")
    }
}

/// An attribute's value in a start tag (`name=value`, `name="value"`).
fn attribute<'t>(tag: &'t str, name: &str) -> Option<&'t str> {
    let mut from = 0;
    while let Some(k) = tag[from..].find(name) {
        let at = from + k;
        from = at + name.len();
        let boundary = at == 0 || tag.as_bytes()[at - 1].is_ascii_whitespace();
        let rest = &tag[at + name.len()..];
        if !boundary || !rest.starts_with('=') {
            continue;
        }
        let rest = &rest[1..];
        return Some(match rest.strip_prefix('"') {
            Some(quoted) => quoted.split('"').next().unwrap_or(""),
            None => rest
                .split(|c: char| c.is_whitespace() || c == '>')
                .next()
                .unwrap_or(""),
        });
    }
    None
}

/// The ARIA role a tag (and its `type`, `role`) has.
fn role_of_tag<'a>(tag: &'a str, kind: Option<&'a str>, role: Option<&'a str>) -> &'a str {
    if let Some(role) = role.filter(|r| !r.is_empty()) {
        return role;
    }
    match tag.to_ascii_lowercase().as_str() {
        "a" => "link",
        "button" | "summary" => "button",
        "select" => "combobox",
        "textarea" => "textbox",
        "option" => "option",
        "input" => match kind.map(str::to_ascii_lowercase).as_deref() {
            Some("checkbox") => "checkbox",
            Some("radio") => "radio",
            Some("button" | "submit" | "reset" | "image") => "button",
            Some("search") => "searchbox",
            Some("number") => "spinbutton",
            Some("range") => "slider",
            _ => "textbox",
        },
        _ => tag,
    }
}

/// Markup without its tags, whitespace collapsed.
fn strip_tags(markup: &str) -> String {
    let mut out = String::with_capacity(markup.len());
    let mut in_tag = false;
    for c in markup.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                out.push(' ');
            }
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The largest character boundary of `text` at or below `at`.
fn floor_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The indentation of a line, in bytes.
fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_reads_the_line_its_children_and_the_label_above() {
        let text = "- main:\n  - text: Email or username\n  - textbox \"Email or username\" [ref=e6]:\n    - /placeholder: you@example.com\n  - button \"Sign in\" [disabled] [ref=e7]\n";
        let read = read(Format::Yaml, text, "e6").unwrap_or_default();
        assert_eq!(read.role, "textbox");
        assert_eq!(read.words, "Email or username you@example.com");
        assert!(
            read.context.starts_with("text: Email or username"),
            "{read:?}"
        );
        let button = super::read(Format::Yaml, text, "e7").unwrap_or_default();
        assert!(button.disabled && button.words == "Sign in", "{button:?}");
        assert!(super::read(Format::Yaml, text, "e9").is_none());
        // agent-browser writes the ref last among the element's states.
        let text = "- StaticText \"Select FyL and click Submit.\"\n- radio \"FyL\" [checked=false, ref=e2]\n- radio \"GjhV\" [checked=false, ref=e12]\n- button \"Submit\" [ref=e1]\n";
        let radio = super::read(Format::Yaml, text, "e2").unwrap_or_default();
        assert_eq!(
            (radio.role.as_str(), radio.words.as_str()),
            ("radio", "FyL"),
            "{radio:?}"
        );
        assert_eq!(radio.context, "StaticText \"Select FyL and click Submit.\"");
        let other = super::read(Format::Yaml, text, "e12").unwrap_or_default();
        assert_eq!(other.words, "GjhV", "{other:?}");
        assert!(super::read(Format::Yaml, text, "e").is_none());
    }

    /// Chrome DevTools MCP's snapshot lines, as its take_snapshot printed them here.
    #[test]
    fn uids_read_role_name_and_the_text_above() {
        let text = "uid=1_0 RootWebArea \"Sign in\" url=\"http://127.0.0.1:5/login.html\"\n  uid=1_1 StaticText \"Email\"\n  uid=1_2 textbox \"Email\" required\n  uid=1_3 button \"Sign in\" disabled\n  uid=1_4 \"plain words\"\n";
        assert_eq!(Format::of("mcp:chrome-devtools", Some("1_2")), Format::Uid);
        assert_eq!(Format::of("mcp:other", Some("12")), Format::Bracket);
        let field = read(Format::Uid, text, "1_2").unwrap_or_default();
        assert_eq!(
            (field.role.as_str(), field.words.as_str()),
            ("textbox", "Email")
        );
        assert!(
            field.context.starts_with("StaticText \"Email\""),
            "{field:?}"
        );
        let button = read(Format::Uid, text, "1_3").unwrap_or_default();
        assert!(button.disabled && button.words == "Sign in", "{button:?}");
        // The field above the button is not its context; the text above both is.
        assert_eq!(
            button.context,
            "StaticText \"Email\" | RootWebArea \"Sign in\" url=\"http://127.0.0.1:5/login.html\""
        );
        let words = read(Format::Uid, text, "1_4").unwrap_or_default();
        assert_eq!(
            (words.role.as_str(), words.words.as_str()),
            ("", "plain words")
        );
        assert!(read(Format::Uid, text, "1_9").is_none());
        assert!(read(Format::Uid, text, "1_").is_none());
    }

    #[test]
    fn brackets_read_flat_tags_and_legend_roles() {
        let flat = "Recipient name: *\n[16]<input type=text name=benName />\n\t[12]<option>-- Please select -- />\n";
        let read = read(Format::Bracket, flat, "16").unwrap_or_default();
        assert_eq!(read.role, "textbox");
        assert!(read.words.contains("benName"), "{read:?}");
        assert_eq!(read.context, "Recipient name: *");
        assert_eq!(
            super::read(Format::Bracket, flat, "12")
                .unwrap_or_default()
                .role,
            "option"
        );
        let legend = "[11] combobox (name: unknown) value=\"Checking\" near \"From account: *\"\n";
        let read = super::read(Format::Bracket, legend, "11").unwrap_or_default();
        assert_eq!(
            (read.role.as_str(), read.words.as_str()),
            ("combobox", "Checking From account: *")
        );
        // `[1]` is not `[11]`.
        assert!(super::read(Format::Bracket, legend, "1").is_none());
    }

    #[test]
    fn markup_reads_attributes_inner_text_and_what_comes_before() {
        let html = "<label>IBAN</label><input data-ref=\"3\" type=\"text\" placeholder=\"DE89\"><a data-ref=\"4\" href=\"#x\">Transfer <b>history</b></a>";
        let read = read(Format::Markup, html, "3").unwrap_or_default();
        assert_eq!(read.role, "textbox");
        assert!(
            read.words.contains("DE89") && read.context.contains("IBAN"),
            "{read:?}"
        );
        let link = super::read(Format::Markup, html, "4").unwrap_or_default();
        assert_eq!(
            (link.role.as_str(), link.words.as_str()),
            ("link", "Transfer history")
        );
    }
}
