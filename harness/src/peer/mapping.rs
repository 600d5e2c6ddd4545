//! A tool server's mapping file: which tool returns the snapshot, where its text writes refs, how tabs are listed and chosen, and which tool (with which arguments) runs each action.

use std::collections::BTreeMap;

use anyhow::{Context, Result, bail};
use pagesnap_browser::{Op, Unrunnable, UserAction};
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
    #[serde(default)]
    actions: BTreeMap<String, Call>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SnapshotFile {
    tool: String,
    #[serde(default)]
    arguments: toml::Table,
    refs: String,
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

/// The actions a mapping file's `[actions.*]` tables name, one per tool call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ActionKey {
    /// `[actions.click]`.
    Click,
    /// `[actions.type]`.
    Type,
    /// `[actions.select]`.
    Select,
    /// `[actions.press]`.
    Press,
    /// `[actions.scroll_down]`.
    ScrollDown,
    /// `[actions.scroll_up]`.
    ScrollUp,
    /// `[actions.dblclick]`.
    Dblclick,
    /// `[actions.hover]`.
    Hover,
    /// `[actions.drag]`: `{ref}` onto `{to}` (`{to_element}`: its snapshot line).
    Drag,
    /// `[actions.dialog_accept]`: accept the pending dialog (a prompt with `{value}`).
    DialogAccept,
    /// `[actions.dialog_dismiss]`: dismiss the pending dialog.
    DialogDismiss,
    /// `[actions.focus]`.
    Focus,
    /// `[actions.clear]`: empty a text field.
    Clear,
    /// `[actions.wait_text]`: wait until `{value}` shows on the page.
    WaitText,
}

impl ActionKey {
    /// Every key, in the order errors list them.
    pub const ALL: [ActionKey; 14] = [
        ActionKey::Click,
        ActionKey::Type,
        ActionKey::Select,
        ActionKey::Press,
        ActionKey::ScrollDown,
        ActionKey::ScrollUp,
        ActionKey::Dblclick,
        ActionKey::Hover,
        ActionKey::Drag,
        ActionKey::DialogAccept,
        ActionKey::DialogDismiss,
        ActionKey::Focus,
        ActionKey::Clear,
        ActionKey::WaitText,
    ];

    /// The key as the mapping file writes it.
    pub fn name(self) -> &'static str {
        match self {
            ActionKey::Click => "click",
            ActionKey::Type => "type",
            ActionKey::Select => "select",
            ActionKey::Press => "press",
            ActionKey::ScrollDown => "scroll_down",
            ActionKey::ScrollUp => "scroll_up",
            ActionKey::Dblclick => "dblclick",
            ActionKey::Hover => "hover",
            ActionKey::Drag => "drag",
            ActionKey::DialogAccept => "dialog_accept",
            ActionKey::DialogDismiss => "dialog_dismiss",
            ActionKey::Focus => "focus",
            ActionKey::Clear => "clear",
            ActionKey::WaitText => "wait_text",
        }
    }

    /// The call a page op takes on a tool server (a scroll's direction from
    /// its value, as [`pagesnap_browser::scroll_of`] reads it); the ops no
    /// mapping names are unrunnable by name.
    pub fn of(op: Op, value: &str) -> Result<ActionKey, Unrunnable> {
        Ok(match op {
            Op::Click => ActionKey::Click,
            Op::Type => ActionKey::Type,
            Op::Select => ActionKey::Select,
            Op::Press => ActionKey::Press,
            Op::Scroll => match pagesnap_browser::scroll_of(value)? {
                (_, true) => ActionKey::ScrollUp,
                (_, false) => ActionKey::ScrollDown,
            },
            Op::Dialog => match pagesnap_browser::dialog_of(value) {
                UserAction::Dialog { accept: false, .. } => ActionKey::DialogDismiss,
                _ => ActionKey::DialogAccept,
            },
            Op::Hover => ActionKey::Hover,
            Op::Dblclick => ActionKey::Dblclick,
            Op::Drag => ActionKey::Drag,
            Op::Focus => ActionKey::Focus,
            Op::Clear => ActionKey::Clear,
            // A wait with a ref and no text is for the element to leave.
            Op::Wait => match pagesnap_browser::wait_of(value) {
                pagesnap_browser::Wait::Text(text) if !text.is_empty() => ActionKey::WaitText,
                _ => {
                    return Err(Unrunnable::Incomplete(
                        "a tool server mapping has a call for waiting on text only, not a delay \
                         or an element's leaving"
                            .to_owned(),
                    ));
                }
            },
            Op::Upload | Op::SelectText | Op::ClickAt => {
                return Err(Unrunnable::Incomplete(format!(
                    "a tool server mapping has no call for {}",
                    op.name()
                )));
            }
        })
    }
}

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
    /// The call listing tabs.
    pub list_tabs: Call,
    /// The call choosing a tab (`{tab}`).
    pub select_tab: Call,
    /// Where the listing names the episode's tab.
    pub tab: TabPattern,
    /// Each action's call.
    pub actions: BTreeMap<ActionKey, Call>,
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
        for (key, call) in file.actions {
            let Some(known) = ActionKey::ALL.into_iter().find(|k| k.name() == key) else {
                let known: Vec<&str> = ActionKey::ALL.iter().map(|k| k.name()).collect();
                bail!(
                    "{origin}: [actions.{key}] is no action (known: {})",
                    known.join(", ")
                );
            };
            actions.insert(known, call);
        }
        if !actions.contains_key(&ActionKey::Click) {
            bail!("{origin}: [actions.click] is missing: an agent must be able to click");
        }
        Ok(Mapping {
            navigate: file.navigate,
            refs: regex("snapshot.refs", &file.snapshot.refs)?,
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
        })
    }

    /// Every tool the mapping calls, each once.
    pub fn tools(&self) -> Vec<&str> {
        let mut tools: Vec<&str> = [&self.snapshot, &self.list_tabs, &self.select_tab]
            .into_iter()
            .chain(&self.navigate)
            .chain(self.actions.values())
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

/// The arguments of `call` with each `{name}` replaced by `values[name]`;
/// an argument that is exactly `{tab}` and reads as a number becomes one.
/// A placeholder without a value is an error naming it and the tool.
pub fn arguments(call: &Call, values: &[(&str, &str)]) -> Result<serde_json::Map<String, Value>> {
    fn fill(value: &toml::Value, values: &[(&str, &str)], tool: &str) -> Result<Value> {
        Ok(match value {
            toml::Value::String(text) => {
                if text == "{tab}"
                    && let Some((_, tab)) = values.iter().find(|(k, _)| *k == "tab")
                    && let Ok(number) = tab.parse::<u64>()
                {
                    return Ok(Value::from(number));
                }
                let mut out = String::new();
                let mut rest = text.as_str();
                while let Some(open) = rest.find('{') {
                    let Some(close) = rest[open..].find('}') else {
                        break;
                    };
                    let name = &rest[open + 1..open + close];
                    let Some((_, value)) = values.iter().find(|(k, _)| *k == name) else {
                        bail!("{tool}: no value for {{{name}}} in this call");
                    };
                    out.push_str(&rest[..open]);
                    out.push_str(value);
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
            &[("url", "http://127.0.0.1:5/t.html")],
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
        let select = arguments(&playwright.select_tab, &[("tab", "1")]).unwrap();
        assert_eq!(
            Value::Object(select),
            serde_json::json!({"action": "select", "index": 1})
        );
        let click = arguments(
            &playwright.actions[&ActionKey::Select],
            &[
                ("ref", "e7"),
                ("value", "Ohio"),
                ("element", "combobox \"State\""),
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
            Value::Object(arguments(&pagesnap.select_tab, &[("tab", "8DCB01")]).unwrap()),
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
        let mapping = Mapping::parse(
            &format!("{good}[actions.click]\ntool = \"c\"\narguments = {{ x = \"{{nope}}\" }}"),
            "m.toml",
        )
        .unwrap();
        let missing = arguments(&mapping.actions[&ActionKey::Click], &[])
            .unwrap_err()
            .to_string();
        assert_eq!(missing, "c: no value for {nope} in this call");
    }
}
