//! A tool server's mapping file: which tool returns the snapshot, where its text writes refs and names a pending dialog, how tabs are listed and chosen, and which tools (with which arguments) run each action.

use std::collections::BTreeMap;

pub use super::action_key::{ActionKey, Variant};
use anyhow::{Context, Result, bail};
use pagesnap_engine::dialog::{Dialog, DialogKind};
use regex::Regex;
use serde::Deserialize;
use serde_json::Value;

/// A tool and the arguments it is called with (strings may hold placeholders).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Call {
    /// The tool's name.
    pub tool: String,
    /// Its arguments: a TOML table, sent as a JSON object.
    #[serde(default)]
    pub arguments: toml::Table,
}

/// What the mapping file says, as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    navigate: Option<Call>,
    snapshot: SnapshotFile,
    tabs: TabsFile,
    /// Each action: one call (a table) or calls made in turn (an array of tables).
    #[serde(default)]
    actions: BTreeMap<String, toml::Value>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SnapshotFile {
    tool: String,
    #[serde(default)]
    arguments: toml::Table,
    refs: String,
    #[serde(default)]
    dialog: Option<String>,
    #[serde(default)]
    after_action: AfterAction,
    #[serde(default)]
    whole: Option<String>,
    #[serde(default)]
    removed: Option<String>,
}

/// What the agent reads after an action: what a tool server's client does
/// between acting and reading the page again.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum AfterAction {
    /// The snapshot tool is called again (a client that snapshots after
    /// every action reads both the action's answer and the snapshot).
    #[default]
    Snapshot,
    /// The action's answer, read after what the model read before: the
    /// last whole view and every answer since ([`super::transcript`]); the
    /// snapshot tool is called only on an episode's first step.
    Answer,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TabsFile {
    list: Call,
    select: Call,
    tab: String,
}

/// How a tab pattern writes the episode's URL.
const URL: &str = "{url}";

/// Where a tab listing names the episode's tab (group 1 of the pattern).
#[derive(Clone, Debug)]
pub enum TabPattern {
    /// On the listing's line that holds the episode's URL (`2: http://… [selected]`).
    Line(Regex),
    /// Anywhere in the listing, with the URL written into the pattern as `{url}` (regex-escaped): for
    /// listings whose tab id and URL are fields on separate lines (pretty-printed JSON).
    AroundUrl(String),
}

/// A checked mapping.
#[derive(Clone, Debug)]
pub struct Mapping {
    /// The call opening a URL in the current tab (`{url}`), if the server has one.
    pub navigate: Option<Call>,
    /// The snapshot call.
    pub snapshot: Call,
    /// Where the snapshot's text writes a ref (group 1).
    pub refs: Regex,
    /// Where the snapshot's answer (or its error) names a pending dialog
    /// (groups `kind` and `message`).
    pub dialog: Option<Regex>,
    /// What the agent reads after an action.
    pub after_action: AfterAction,
    /// Where an action's answer shows the whole page (not only what
    /// changed): the transcript starts again from that answer. Required
    /// with `after_action = "answer"`.
    pub whole: Option<Regex>,
    /// Where an action's answer names the refs that left the page (group 1:
    /// refs separated by commas or spaces): no longer offered to the agent.
    pub removed: Option<Regex>,
    /// The call listing tabs.
    pub list_tabs: Call,
    /// The call choosing a tab (`{tab}`).
    pub select_tab: Call,
    /// Where the listing names the episode's tab.
    pub tab: TabPattern,
    /// Each action's calls, made in turn.
    pub actions: BTreeMap<ActionKey, Vec<Call>>,
}

impl Mapping {
    /// Reads and checks the mapping `text` (named `origin` in errors).
    pub fn parse(text: &str, origin: &str) -> Result<Mapping> {
        let file: File =
            toml::from_str(text).with_context(|| format!("{origin}: not a tool server mapping"))?;
        let regex = |field: &str, pattern: &str| -> Result<Regex> {
            let regex = Regex::new(pattern)
                .with_context(|| format!("{origin}: {field} = {pattern:?} is not a regex"))?;
            if regex.captures_len() < 2 {
                bail!("{origin}: {field} = {pattern:?} needs a group (the part to take)");
            }
            Ok(regex)
        };
        let mut actions = BTreeMap::new();
        for (key, calls) in file.actions {
            let Some(known) = ActionKey::ALL.into_iter().find(|k| k.name() == key) else {
                let known: Vec<String> = ActionKey::ALL.iter().map(|k| k.name()).collect();
                bail!(
                    "{origin}: [actions.{key}] is no action (known: {})",
                    known.join(", ")
                );
            };
            let calls: Vec<Call> = match calls {
                toml::Value::Array(calls) => calls
                    .into_iter()
                    .map(|call| call.try_into::<Call>())
                    .collect::<Result<_, _>>(),
                call => call.try_into::<Call>().map(|call| vec![call]),
            }
            .with_context(|| {
                format!(
                    "{origin}: [actions.{key}] is not a call (tool, arguments) or a list of calls"
                )
            })?;
            if calls.is_empty() {
                bail!("{origin}: [actions.{key}] is an empty list: name at least one call");
            }
            actions.insert(known, calls);
        }
        let dialog = match &file.snapshot.dialog {
            Some(pattern) => {
                let regex = Regex::new(pattern).with_context(|| {
                    format!("{origin}: snapshot.dialog = {pattern:?} is not a regex")
                })?;
                for group in ["kind", "message"] {
                    if !regex.capture_names().any(|name| name == Some(group)) {
                        bail!(
                            "{origin}: snapshot.dialog = {pattern:?} needs a group named {group} \
                             ((?P<{group}>…))"
                        );
                    }
                }
                Some(regex)
            }
            None => None,
        };
        if !actions.contains_key(&ActionKey::CLICK) {
            bail!("{origin}: [actions.click] is missing: an agent must be able to click");
        }
        let whole = match &file.snapshot.whole {
            Some(pattern) => Some(Regex::new(pattern).with_context(|| {
                format!("{origin}: snapshot.whole = {pattern:?} is not a regex")
            })?),
            None => None,
        };
        let removed = match &file.snapshot.removed {
            Some(pattern) => Some(regex("snapshot.removed", pattern)?),
            None => None,
        };
        Mapping {
            navigate: file.navigate,
            refs: regex("snapshot.refs", &file.snapshot.refs)?,
            dialog,
            whole,
            removed,
            snapshot: Call {
                tool: file.snapshot.tool,
                arguments: file.snapshot.arguments,
            },
            tab: if file.tabs.tab.contains(URL) {
                // Checked with a URL written in.
                regex("tabs.tab", &file.tabs.tab.replace(URL, "http://x/"))?;
                TabPattern::AroundUrl(file.tabs.tab)
            } else {
                TabPattern::Line(regex("tabs.tab", &file.tabs.tab)?)
            },
            list_tabs: file.tabs.list,
            select_tab: file.tabs.select,
            actions,
            after_action: AfterAction::Snapshot,
        }
        .reading(file.snapshot.after_action, origin)
    }

    /// The mapping with the agent reading `after_action` after an action;
    /// reading answers needs `snapshot.whole`.
    pub fn reading(mut self, after_action: AfterAction, origin: &str) -> Result<Mapping> {
        if after_action == AfterAction::Answer && self.whole.is_none() {
            bail!(
                "{origin}: snapshot.after_action = \"answer\" needs snapshot.whole (where an \
                 answer shows the whole page, superseding what the agent read before)"
            );
        }
        self.after_action = after_action;
        Ok(self)
    }

    /// Every tool the mapping calls, each once.
    pub fn tools(&self) -> Vec<&str> {
        let mut tools: Vec<&str> = [&self.snapshot, &self.list_tabs, &self.select_tab]
            .into_iter()
            .chain(&self.navigate)
            .chain(self.actions.values().flatten())
            .map(|call| call.tool.as_str())
            .collect();
        tools.sort_unstable();
        tools.dedup();
        tools
    }

    /// The refs a snapshot's text offers, in the order it writes them, each once.
    pub fn refs_in(&self, text: &str) -> Vec<String> {
        let mut refs: Vec<String> = Vec::new();
        for captures in self.refs.captures_iter(text) {
            if let Some(reference) = captures.get(1).map(|m| m.as_str())
                && !refs.iter().any(|r| r == reference)
            {
                refs.push(reference.to_owned());
            }
        }
        refs
    }

    /// The refs an action's answer says left the page (none when the
    /// mapping does not read removals).
    pub fn removed_in(&self, answer: &str) -> Vec<String> {
        let Some(removed) = &self.removed else {
            return Vec::new();
        };
        removed
            .captures_iter(answer)
            .filter_map(|c| c.get(1))
            .flat_map(|m| m.as_str().split([',', ' ']))
            .filter(|r| !r.is_empty())
            .map(str::to_owned)
            .collect()
    }

    /// The line of a snapshot's text that writes the ref `reference` (as
    /// the mapping reads refs), trimmed of its list marker: how the
    /// snapshot describes that element.
    pub fn line_of<'t>(&self, text: &'t str, reference: &str) -> Option<&'t str> {
        text.lines()
            .find(|line| {
                self.refs
                    .captures_iter(line)
                    .any(|c| c.get(1).is_some_and(|m| m.as_str() == reference))
            })
            .map(|line| line.trim().trim_start_matches("- "))
    }

    /// The dialog a snapshot's answer (or error) says the page waits on, if
    /// the mapping reads dialogs: its kind (`alert`, `confirm`, `prompt`,
    /// `beforeunload`, any case) and message. A prompt's default text is not
    /// read.
    pub fn dialog_in(&self, text: &str) -> Option<Dialog> {
        let captures = self.dialog.as_ref()?.captures(text)?;
        let kind = match captures
            .name("kind")?
            .as_str()
            .to_ascii_lowercase()
            .as_str()
        {
            "alert" => DialogKind::Alert,
            "confirm" => DialogKind::Confirm,
            "prompt" => DialogKind::Prompt,
            "beforeunload" => DialogKind::Beforeunload,
            _ => return None,
        };
        Some(Dialog {
            kind,
            message: captures.name("message")?.as_str().to_owned(),
            default_prompt: None,
        })
    }

    /// The calls that run `key`: its own, or for a dialog's answer the
    /// mapping's `[actions.dialog]`.
    pub fn calls_for(&self, key: ActionKey) -> Option<&Vec<Call>> {
        self.actions.get(&key).or(match key {
            ActionKey::DIALOG_ACCEPT | ActionKey::DIALOG_DISMISS => {
                self.actions.get(&ActionKey::DIALOG)
            }
            _ => None,
        })
    }

    /// The tab a listing names on the line holding `url`.
    pub fn tab_of(&self, listing: &str, url: &str) -> Option<String> {
        let first =
            |regex: &Regex, text: &str| regex.captures(text)?.get(1).map(|m| m.as_str().to_owned());
        match &self.tab {
            TabPattern::Line(regex) => listing
                .lines()
                .filter(|line| line.contains(url))
                .find_map(|line| first(regex, line)),
            TabPattern::AroundUrl(pattern) => {
                let regex = Regex::new(&pattern.replace(URL, &regex::escape(url))).ok()?;
                first(&regex, listing)
            }
        }
    }
}

/// The placeholders a dialog's answer fills beside `{value}` (which every
/// action has): `{accept}`, and the prompt's text as `{text}` too (the
/// mappings' accept calls read it as one or the other).
pub fn dialog_placeholders(accept: bool, text: &str) -> [(&'static str, Arg); 2] {
    [("accept", Arg::Bool(accept)), ("text", text.into())]
}

/// A placeholder's value.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// Text: the whole argument, or spliced into a longer string. The whole
    /// argument `{tab}` that reads as a number is passed as one (servers
    /// that number their pages).
    Text(String),
    /// A number (`{ms}`, `{secs}`): a JSON number as the whole argument (an
    /// integer when it has no fraction), its digits in a longer string.
    Number(f64),
    /// A list (`{paths}`): a JSON array, only as the whole argument.
    List(Vec<String>),
    /// A yes or no (`{accept}`): a JSON boolean as the whole argument,
    /// `true` or `false` in a longer string.
    Bool(bool),
}

impl From<&str> for Arg {
    fn from(text: &str) -> Arg {
        Arg::Text(text.to_owned())
    }
}

impl From<String> for Arg {
    fn from(text: String) -> Arg {
        Arg::Text(text)
    }
}

/// `number` as JSON: an integer when it has no fraction.
fn number(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        // Exact: a whole number below 2^53.
        Value::from(n as i64)
    } else {
        Value::from(n)
    }
}

/// The arguments of `call` with each `{name}` replaced by its value in
/// `values` (typed as [`Arg`] says). A placeholder without a value, or a
/// list inside a longer string, is an error naming it and the tool.
pub fn arguments(call: &Call, values: &[(&str, Arg)]) -> Result<serde_json::Map<String, Value>> {
    fn fill(value: &toml::Value, values: &[(&str, Arg)], tool: &str) -> Result<Value> {
        let lookup = |name: &str| -> Result<&Arg> {
            match values.iter().find(|(k, _)| *k == name) {
                Some((_, value)) => Ok(value),
                None => bail!("{tool}: no value for {{{name}}} in this call"),
            }
        };
        Ok(match value {
            toml::Value::String(text) => {
                // The whole argument one placeholder: the value's own type.
                if let Some(name) = text
                    .strip_prefix('{')
                    .and_then(|t| t.strip_suffix('}'))
                    .filter(|name| !name.contains(['{', '}']))
                {
                    return Ok(match lookup(name)? {
                        Arg::Text(text) => match (name, text.parse::<u64>()) {
                            ("tab", Ok(n)) => Value::from(n),
                            _ => Value::String(text.clone()),
                        },
                        Arg::Number(n) => number(*n),
                        Arg::List(items) => {
                            Value::Array(items.iter().cloned().map(Value::String).collect())
                        }
                        Arg::Bool(yes) => Value::Bool(*yes),
                    });
                }
                let mut out = String::new();
                let mut rest = text.as_str();
                while let Some(open) = rest.find('{') {
                    let Some(close) = rest[open..].find('}') else {
                        break;
                    };
                    let name = &rest[open + 1..open + close];
                    out.push_str(&rest[..open]);
                    match lookup(name)? {
                        Arg::Text(text) => out.push_str(text),
                        Arg::Number(n) => out.push_str(&number(*n).to_string()),
                        Arg::Bool(yes) => out.push_str(if *yes { "true" } else { "false" }),
                        Arg::List(_) => bail!(
                            "{tool}: {{{name}}} is a list: it must be an argument of its own, not part of {text:?}"
                        ),
                    }
                    rest = &rest[open + close + 1..];
                }
                out.push_str(rest);
                Value::String(out)
            }
            toml::Value::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|item| fill(item, values, tool))
                    .collect::<Result<_>>()?,
            ),
            toml::Value::Table(table) => Value::Object(
                table
                    .iter()
                    .map(|(k, v)| Ok((k.clone(), fill(v, values, tool)?)))
                    .collect::<Result<_>>()?,
            ),
            toml::Value::Integer(n) => Value::from(*n),
            toml::Value::Float(f) => Value::from(*f),
            toml::Value::Boolean(b) => Value::Bool(*b),
            toml::Value::Datetime(d) => Value::String(d.to_string()),
        })
    }
    call.arguments
        .iter()
        .map(|(k, v)| Ok((k.clone(), fill(v, values, &call.tool)?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAYWRIGHT: &str = include_str!("../../mcp-servers/playwright.toml");
    const PAGESNAP: &str = include_str!("../../mcp-servers/pagesnap.toml");

    #[test]
    fn shipped_mappings_read_their_servers_texts() {
        let playwright = Mapping::parse(PLAYWRIGHT, "playwright.toml").unwrap();
        let text = "- button \"Go\" [ref=e3] [cursor=pointer]\n- iframe [ref=f1]:\n  - textbox [ref=f1e2]\n- button \"Go\" [ref=e3]";
        assert_eq!(playwright.refs_in(text), ["e3", "f1", "f1e2"]);
        // The line that writes a ref, not one whose ref merely starts with it.
        assert_eq!(playwright.line_of(text, "f1"), Some("iframe [ref=f1]:"));
        assert_eq!(playwright.line_of(text, "f1e2"), Some("textbox [ref=f1e2]"));
        assert_eq!(playwright.line_of(text, "e9"), None);
        let navigate = arguments(
            playwright.navigate.as_ref().unwrap(),
            &[("url", "http://127.0.0.1:5/t.html".into())],
        )
        .unwrap();
        assert_eq!(
            Value::Object(navigate),
            serde_json::json!({"url": "http://127.0.0.1:5/t.html"})
        );
        let listing =
            "- 0: [about:blank](about:blank)\n- 1: (current) [Task](http://127.0.0.1:5/t.html)";
        assert_eq!(
            playwright
                .tab_of(listing, "http://127.0.0.1:5/t.html")
                .as_deref(),
            Some("1")
        );
        let select = arguments(&playwright.select_tab, &[("tab", "1".into())]).unwrap();
        assert_eq!(
            Value::Object(select),
            serde_json::json!({"action": "select", "index": 1})
        );
        let click = arguments(
            &playwright.actions[&ActionKey::SELECT][0],
            &[
                ("ref", "e7".into()),
                ("value", "Ohio".into()),
                ("element", "combobox \"State\"".into()),
            ],
        )
        .unwrap();
        assert_eq!(
            Value::Object(click),
            serde_json::json!({"element": "combobox \"State\"", "target": "e7", "values": ["Ohio"]})
        );

        let pagesnap = Mapping::parse(PAGESNAP, "pagesnap.toml").unwrap();
        assert_eq!(pagesnap.refs_in("- button \"Go\" [ref=e12]"), ["e12"]);
        let listing = "tabs (* current):\n* 8DCB01 \"Task\" http://127.0.0.1:5/t.html\n- 77AA \"x\" about:blank";
        assert_eq!(
            pagesnap
                .tab_of(listing, "http://127.0.0.1:5/t.html")
                .as_deref(),
            Some("8DCB01")
        );
        assert_eq!(
            Value::Object(arguments(&pagesnap.select_tab, &[("tab", "8DCB01".into())]).unwrap()),
            serde_json::json!({"op": "select", "id": "8DCB01"})
        );

        // agent-browser: refs among a line's attributes, and tabs as pretty-printed JSON, the id
        // and the URL on lines of their own (the pattern writes the URL as {url}).
        let agent_browser = crate::peer::shipped_mapping("agent-browser").unwrap();
        assert_eq!(
            agent_browser
                .refs_in("- heading \"Hi\" [level=1, ref=e1]\n- textbox \"Name\" [ref=e5]"),
            ["e1", "e5"]
        );
        let listing = r#"{
  "data": {
    "tabs": [
      { "active": true, "tabId": "t1", "targetId": "A1", "type": "page", "url": "about:blank" },
      {
        "active": false,
        "tabId": "t2",
        "targetId": "B2",
        "title": "Task",
        "type": "page",
        "url": "http://127.0.0.1:5/t.html?x=(1)"
      }
    ]
  }
}"#;
        assert_eq!(
            agent_browser
                .tab_of(listing, "http://127.0.0.1:5/t.html?x=(1)")
                .as_deref(),
            Some("t2")
        );
        assert_eq!(
            agent_browser.tab_of(listing, "http://127.0.0.1:5/other.html"),
            None
        );
    }

    /// Each shipped mapping reads the dialog out of its server's own words
    /// (the texts each server answered its snapshot call with while a
    /// fixture's dialog waited), and nothing out of an ordinary snapshot.
    #[test]
    fn shipped_mappings_read_a_pending_dialog_from_their_servers_words() {
        let cases = [
            (
                "playwright",
                "### Error\nError: Tool \"browser_snapshot\" does not handle the modal state.\n### Modal state\n- [\"confirm\" dialog with message \"Discard unsaved changes?\"]: can be handled by browser_handle_dialog",
                DialogKind::Confirm,
                "Discard unsaved changes?",
            ),
            (
                "chrome-devtools",
                "# Open dialog\nconfirm: Discard unsaved changes?.\nCall handle_dialog to handle it before continuing.\nError: A dialog is open (confirm: Discard unsaved changes?).",
                DialogKind::Confirm,
                "Discard unsaved changes?",
            ),
            (
                "agent-browser",
                "A JavaScript prompt dialog is blocking the page: \"New name for the document?\". Resolve it with `dialog accept` or `dialog dismiss`, then retry `snapshot`.",
                DialogKind::Prompt,
                "New name for the document?",
            ),
            (
                "pagesnap",
                &Dialog {
                    kind: DialogKind::Alert,
                    message: "Welcome back! (2 tabs)".to_owned(),
                    default_prompt: None,
                }
                .line(),
                DialogKind::Alert,
                "Welcome back! (2 tabs)",
            ),
        ];
        for (name, text, kind, message) in cases {
            let mapping = crate::peer::shipped_mapping(name).unwrap();
            let dialog = mapping
                .dialog_in(text)
                .unwrap_or_else(|| panic!("{name}: no dialog read"));
            assert_eq!(
                (dialog.kind, dialog.message.as_str()),
                (kind, message),
                "{name}"
            );
            assert_eq!(
                mapping.dialog_in("- button \"Open dialog\" [ref=e3]\n- dialog \"Settings\""),
                None,
                "{name}"
            );
        }
    }

    /// Upload, a timed wait and an element's leaving, through each shipped
    /// mapping: the values keep their types (a list of paths, a number).
    #[test]
    fn shipped_mappings_pass_paths_as_lists_and_delays_as_numbers() {
        let paths = Arg::List(vec!["/up/a.pdf".to_owned(), "/up/b b.png".to_owned()]);
        let values = [
            ("ref", "e4".into()),
            ("element", "button \"Choose file\"".into()),
            ("value", "".into()),
            ("tab", "2".into()),
            ("paths", paths),
            ("ms", Arg::Number(1500.0)),
            ("secs", Arg::Number(1.5)),
        ];
        let filled = |name: &str, key: ActionKey| -> Option<Vec<Value>> {
            let mapping = crate::peer::shipped_mapping(name).unwrap();
            let calls = mapping.actions.get(&key)?;
            Some(
                calls
                    .iter()
                    .map(|call| Value::Object(arguments(call, &values).unwrap()))
                    .collect(),
            )
        };
        let both = serde_json::json!(["/up/a.pdf", "/up/b b.png"]);
        assert_eq!(
            filled("playwright", ActionKey::UPLOAD).unwrap(),
            [
                serde_json::json!({"element": "button \"Choose file\"", "target": "e4"}),
                serde_json::json!({"paths": both}),
            ]
        );
        assert_eq!(
            filled("chrome-devtools", ActionKey::UPLOAD).unwrap(),
            [serde_json::json!({"pageId": 2, "uid": "e4", "filePaths": both})]
        );
        assert_eq!(
            filled("agent-browser", ActionKey::UPLOAD).unwrap(),
            [serde_json::json!({"selector": "@e4", "files": both})]
        );
        assert_eq!(
            filled("pagesnap", ActionKey::UPLOAD).unwrap(),
            [serde_json::json!({"ref": "e4", "op": "upload", "paths": both})]
        );
        assert_eq!(
            filled("playwright", ActionKey::WAIT_TIME).unwrap(),
            [serde_json::json!({"time": 1.5})]
        );
        assert_eq!(
            filled("agent-browser", ActionKey::WAIT_TIME).unwrap(),
            [serde_json::json!({"ms": 1500})]
        );
        assert_eq!(
            filled("pagesnap", ActionKey::WAIT_TIME).unwrap(),
            [serde_json::json!({"ms": 1500})]
        );
        assert_eq!(
            filled("pagesnap", ActionKey::WAIT_GONE).unwrap(),
            [serde_json::json!({"gone": "e4"})]
        );
        // One dialog call for both answers: {accept} a boolean.
        let playwright = crate::peer::shipped_mapping("playwright").unwrap();
        let dismiss = &playwright.calls_for(ActionKey::DIALOG_DISMISS).unwrap()[0];
        assert_eq!(
            Value::Object(
                arguments(
                    dismiss,
                    &[("accept", Arg::Bool(false)), ("text", "".into())]
                )
                .unwrap()
            ),
            serde_json::json!({"accept": false, "promptText": ""})
        );
        assert!(playwright.calls_for(ActionKey::FOCUS).is_none());
        // What a server has no tool for is absent, and refused by name then.
        assert_eq!(filled("chrome-devtools", ActionKey::WAIT_TIME), None);
        assert_eq!(filled("chrome-devtools", ActionKey::WAIT_GONE), None);
        assert_eq!(filled("playwright", ActionKey::WAIT_GONE), None);
        assert_eq!(filled("agent-browser", ActionKey::WAIT_GONE), None);
    }

    #[test]
    fn a_list_spliced_into_text_is_refused_by_name() {
        let call = Call {
            tool: "up".to_owned(),
            arguments: toml::from_str("files = \"@{paths}\"").unwrap(),
        };
        let err = arguments(&call, &[("paths", Arg::List(vec!["/a".to_owned()]))])
            .unwrap_err()
            .to_string();
        assert!(err.contains("up: {paths} is a list"), "{err}");
        let call = Call {
            tool: "wait".to_owned(),
            arguments: toml::from_str("for = \"{ms}ms\"").unwrap(),
        };
        assert_eq!(
            Value::Object(arguments(&call, &[("ms", Arg::Number(250.0))]).unwrap()),
            serde_json::json!({"for": "250ms"})
        );
    }

    #[test]
    fn a_bad_mapping_is_named() {
        let err = |text: &str| format!("{:#}", Mapping::parse(text, "m.toml").unwrap_err());
        assert!(err("[snapshot]\ntool = 1").contains("m.toml: not a tool server mapping"));
        let base = "[snapshot]\ntool = \"s\"\nrefs = 'x'\n[tabs]\nlist = { tool = \"l\" }\nselect = { tool = \"t\" }\ntab = '(\\d)'\n";
        assert!(
            err(&format!("{base}[actions.click]\ntool = \"c\""))
                .contains("snapshot.refs = \"x\" needs a group")
        );
        let good = base.replace("refs = 'x'", "refs = '(x)'");
        assert!(
            err(&format!("{good}[actions.jump]\ntool = \"j\""))
                .contains("[actions.jump] is no action")
        );
        assert!(err(&good).contains("[actions.click] is missing"));
        assert!(
            err(&format!(
                "{good}[actions.click]\ntool = \"c\"\n[actions.upload]\nnope = 1"
            ))
            .contains("[actions.upload] is not a call")
        );
        assert!(
            err(&format!("{good}[actions]\nclick = []"))
                .contains("[actions.click] is an empty list")
        );
        let answers = good.replace("refs = '(x)'", "refs = '(x)'\nafter_action = \"answer\"");
        assert!(
            err(&format!("{answers}[actions.click]\ntool = \"c\""))
                .contains("m.toml: snapshot.after_action = \"answer\" needs snapshot.whole")
        );
        let later = good.replace("refs = '(x)'", "refs = '(x)'\nafter_action = \"later\"");
        assert!(
            format!(
                "{:?}",
                Mapping::parse(&format!("{later}[actions.click]\ntool = \"c\""), "m.toml")
                    .unwrap_err()
            )
            .contains("unknown variant `later`, expected `snapshot` or `answer`")
        );
        let removed = good.replace("refs = '(x)'", "refs = '(x)'\nremoved = 'gone'");
        assert!(
            err(&format!("{removed}[actions.click]\ntool = \"c\""))
                .contains("snapshot.removed = \"gone\" needs a group")
        );
        let with_dialog = good.replace("refs = '(x)'", "refs = '(x)'\ndialog = '(?P<kind>a) (.*)'");
        assert!(
            err(&format!("{with_dialog}[actions.click]\ntool = \"c\""))
                .contains("needs a group named message")
        );
        let mapping = Mapping::parse(
            &format!("{good}[actions.click]\ntool = \"c\"\narguments = {{ x = \"{{nope}}\" }}"),
            "m.toml",
        )
        .unwrap();
        let missing = arguments(&mapping.actions[&ActionKey::CLICK][0], &[])
            .unwrap_err()
            .to_string();
        assert_eq!(missing, "c: no value for {nope} in this call");
    }
}
