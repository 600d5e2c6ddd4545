//! What the tools answer besides the text an agent reads: an action's report, a capture's freshness and a tab of the listing — typed, and serialised once into `structuredContent`.

use serde::Serialize;

/// How fresh a snapshot's page state is (`snapshot.freshness`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Freshness {
    /// When the capture was taken (RFC 3339).
    pub captured_at: String,
    /// The URL the capture shows.
    pub url: String,
    /// Its title (masked).
    pub title: String,
    /// The tab's id.
    pub tab: String,
    /// The page had not changed since that capture, which was rendered again.
    pub reused: bool,
    /// With `reused`: how old the capture is, ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub age_ms: Option<u64>,
}

/// One tab of `page_tabs` (URL and title masked).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TabInfo {
    /// Its id (what `select` and `close` take).
    pub id: String,
    /// Its URL.
    pub url: String,
    /// Its title.
    pub title: String,
    /// Whether the tools work on it.
    pub current: bool,
    /// The tab that opened it, if a page did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opener: Option<String>,
}

/// What an action did (`action` in an action's answer).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ActionReport {
    /// `navigate`, `scroll`, `back`, or the op of `page_action`.
    pub op: &'static str,
    /// The rest, by kind of action.
    #[serde(flatten)]
    pub detail: Detail,
}

/// What an action did, by kind.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Detail {
    /// `page_navigate`.
    Navigate {
        /// The URL opened (masked).
        url: String,
    },
    /// `page_scroll`.
    Scroll {
        /// `up` or `down`.
        direction: &'static str,
        /// Viewport heights asked for.
        screens: f64,
        /// How far the page (or container) moved, CSS pixels.
        scrolled_px: f64,
        /// The viewport is at the page's top.
        at_top: bool,
        /// The viewport is at the page's bottom.
        at_bottom: bool,
        /// The container scrolled, if not the page.
        #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
        reference: Option<String>,
    },
    /// `page_back`.
    Back {
        /// Whether there was an earlier page to go back to.
        moved: bool,
    },
    /// `page_fill`.
    Fill {
        /// How many fields were filled.
        fields: usize,
    },
    /// `page_wait`.
    Wait {
        /// What was waited for: `text "…"`, `ref e4 gone`, `1500 ms`.
        until: String,
        /// How long it took, ms.
        waited_ms: u64,
    },
    /// `page_click_at`.
    ClickAt {
        /// From the viewport's left.
        x: f64,
        /// From the viewport's top.
        y: f64,
        /// What was under the point (`button "Go"`), if anything.
        #[serde(skip_serializing_if = "Option::is_none")]
        element: Option<String>,
    },
    /// `page_dialog`.
    Dialog {
        /// `alert`, `confirm`, `prompt` or `beforeunload`.
        kind: &'static str,
        /// The dialog's message.
        message: String,
        /// Accepted (OK) or dismissed (Cancel).
        accepted: bool,
    },
    /// `page_action` on an element.
    Element {
        /// The ref acted on (none: the focus, or the page for select_text).
        #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
        reference: Option<String>,
        /// `role "name"`, or `the focus` / `the page` without a ref.
        element: String,
        /// Always `done` (a failure is an error result).
        outcome: &'static str,
        /// The option chosen or the key pressed (a typed value is never echoed: it may hold a secret).
        #[serde(skip_serializing_if = "Option::is_none")]
        value: Option<String>,
        /// A drag's drop target (its ref).
        #[serde(skip_serializing_if = "Option::is_none")]
        to: Option<String>,
        /// What the agent should know about how it ran.
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
}

impl ActionReport {
    /// The first line of the answer's `### Action` section (without the
    /// note).
    pub fn line(&self) -> String {
        let op = self.op;
        match &self.detail {
            Detail::Element {
                reference: Some(reference),
                element,
                ..
            } => format!("{op} {reference} ({element}): done"),
            Detail::Element { element, .. } => format!("{op} ({element}): done"),
            Detail::Scroll {
                reference: Some(reference),
                ..
            } => format!("{op} {reference}: done"),
            Detail::Scroll {
                scrolled_px,
                at_top,
                at_bottom,
                ..
            } => format!(
                "scrolled {scrolled_px:.0} px{}{}",
                if *at_top { ", at the top" } else { "" },
                if *at_bottom { ", at the bottom" } else { "" }
            ),
            Detail::Navigate { url } => format!("opened {url}"),
            Detail::Back { .. } => format!("{op}: done"),
            Detail::Fill { fields } => format!("filled {fields} field(s)"),
            Detail::Wait { until, waited_ms } => format!("waited {waited_ms} ms: {until}"),
            Detail::ClickAt { x, y, element } => match element {
                Some(element) => format!("clicked at ({x}, {y}): {element}"),
                None => format!("clicked at ({x}, {y}): nothing there"),
            },
            Detail::Dialog {
                kind,
                message,
                accepted,
            } => format!(
                "{} the {kind} dialog {message:?}",
                if *accepted { "accepted" } else { "dismissed" }
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The JSON agents have read since the tools were written: keys as before, optional ones left out.
    #[test]
    fn reports_serialise_as_the_tools_have_always_answered() {
        let click = ActionReport {
            op: "click",
            detail: Detail::Element {
                reference: Some("e3".into()),
                element: "button \"Go\"".into(),
                outcome: "done",
                value: None,
                to: None,
                note: None,
            },
        };
        assert_eq!(
            serde_json::to_value(&click).unwrap(),
            serde_json::json!({"op": "click", "ref": "e3", "element": "button \"Go\"", "outcome": "done"})
        );
        assert_eq!(click.line(), "click e3 (button \"Go\"): done");
        let scroll = ActionReport {
            op: "scroll",
            detail: Detail::Scroll {
                direction: "down",
                screens: 0.75,
                scrolled_px: 540.0,
                at_top: false,
                at_bottom: true,
                reference: None,
            },
        };
        assert_eq!(
            serde_json::to_value(&scroll).unwrap(),
            serde_json::json!({"op": "scroll", "direction": "down", "screens": 0.75,
                "scrolled_px": 540.0, "at_top": false, "at_bottom": true})
        );
        assert_eq!(scroll.line(), "scrolled 540 px, at the bottom");
        let back = ActionReport {
            op: "back",
            detail: Detail::Back { moved: false },
        };
        assert_eq!(
            serde_json::to_value(&back).unwrap(),
            serde_json::json!({"op": "back", "moved": false})
        );
        assert_eq!(back.line(), "back: done");
        let navigate = ActionReport {
            op: "navigate",
            detail: Detail::Navigate {
                url: "http://127.0.0.1/".into(),
            },
        };
        assert_eq!(navigate.line(), "opened http://127.0.0.1/");
        let dialog = ActionReport {
            op: "dialog",
            detail: Detail::Dialog {
                kind: "confirm",
                message: "Sure?".into(),
                accepted: false,
            },
        };
        assert_eq!(
            serde_json::to_value(&dialog).unwrap(),
            serde_json::json!({"op": "dialog", "kind": "confirm", "message": "Sure?", "accepted": false})
        );
        assert_eq!(dialog.line(), "dismissed the confirm dialog \"Sure?\"");
        let freshness = Freshness {
            captured_at: "2026-11-26T20:00:00Z".into(),
            url: "u".into(),
            title: "t".into(),
            tab: "T1".into(),
            reused: true,
            age_ms: Some(12),
        };
        assert_eq!(
            serde_json::to_value(&freshness).unwrap(),
            serde_json::json!({"capturedAt": "2026-11-26T20:00:00Z", "url": "u", "title": "t",
                "tab": "T1", "reused": true, "ageMs": 12})
        );
    }
}
