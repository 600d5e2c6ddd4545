//! What the tools answer besides the text an agent reads: an acting tool's answer (its action's report, the page after it, what changed, notes), a snapshot's meta and freshness, `page_find`'s matches and a tab of the listing — typed, serialised once into `structuredContent`, and read back by clients (`pagesnap bench-mcp`) through the same types.

use pagesnap_engine::observation::{Meta, Zone};
use serde::{Deserialize, Serialize};

// Which way `page_scroll` moves. (No doc comments on it: schemars would copy
// them into the tool's schema, which every agent pays for in tokens.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Down,
    Up,
    // Right: a carousel's next items, a wide table's later columns.
    Right,
    Left,
}

/// The structured content of an acting tool's answer (`page_navigate`,
/// `page_scroll`, `page_action`, `page_fill`, `page_wait`, `page_click_at`,
/// `page_dialog`, `page_back`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ActionAnswer {
    /// What the action did.
    pub action: ActionReport,
    /// The page after it, as `page_snapshot` describes it.
    pub snapshot: Snapshot,
    /// What changed since the page before it.
    pub changes: Changes,
    /// The readiness budget ran out before the page settled (`pending` says
    /// what was still going on).
    pub incomplete: bool,
    /// The page shows what it showed before the action.
    pub unchanged: bool,
    /// What was still going on when the readiness budget ran out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending: Option<String>,
    /// Tabs the page opened (listed, never followed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub new_tabs: Vec<OpenedTab>,
    /// What the agent should know about the answer beyond the action itself.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<Note>,
    /// Files the page downloaded, or began to, not told before (each
    /// also a [`NoteKind::Download`] note).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub downloads: Vec<DownloadReport>,
    /// Where the step's time went.
    #[serde(default)]
    pub timings: StepTimings,
}

/// Where an action's time went, in milliseconds (`timings` in an action's
/// answer): the step an agent takes is act, settle, observe.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StepTimings {
    /// The action, from the tool's start until the page began to settle
    /// (its input events, the page's handlers meanwhile).
    pub act_ms: f64,
    /// The wait for the page to settle after it.
    pub settle_ms: f64,
    /// The capture of the page after it; absent when an earlier capture the
    /// page still showed was rendered again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capture_ms: Option<f64>,
    /// The engine's analysis of that capture.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub analysis_ms: Option<f64>,
    /// The strategy's render of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub render_ms: Option<f64>,
}

impl StepTimings {
    /// The timings of an action that took `took`, `settled_in` of it
    /// waiting, then observed the page with `captured`.
    pub fn new(
        took: std::time::Duration,
        settled_in: std::time::Duration,
        captured: Option<&pagesnap_browser::Timings>,
    ) -> StepTimings {
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1000.0;
        StepTimings {
            act_ms: ms(took.saturating_sub(settled_in)),
            settle_ms: ms(settled_in),
            capture_ms: captured.map(|t| ms(t.capture.total)),
            analysis_ms: captured.map(|t| ms(t.analysis)),
            render_ms: captured.map(|t| ms(t.render)),
        }
    }
}

/// Something an answer tells the agent beside what the action did (shown in
/// the text under `### Notes`), with a kind a client can branch on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Note {
    /// What it is about.
    pub kind: NoteKind,
    /// What to know, as a sentence the agent reads.
    pub message: String,
}

/// What a [`Note`] is about, spelled in kebab case in the answer: the things
/// an answer tells beyond its action, each named by the issue that adds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum NoteKind {
    /// Text no person can see was left out of the page (issue 56).
    WithheldText,
    /// The action set off content that has now arrived: a lazy load, a feed's next items (issue 57).
    ContentLoaded,
    /// The browser had died and was started again; the tabs were lost (issue 58).
    BrowserRestarted,
    /// What a field holds after typing, where a mask reformatted it (issue 60).
    FieldHolds,
    /// A file the page downloaded: where it was saved, or that it was refused, canceled or is
    /// still arriving (issue 59).
    Download,
}

/// A file the page downloaded, or began to (`downloads` in an action's answer).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DownloadReport {
    /// Its name, as the page offered it.
    pub file: String,
    /// Where it came from (masked).
    pub url: String,
    /// What became of it.
    #[serde(flatten)]
    pub status: DownloadStatus,
}

/// What became of a download, by `state`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "lowercase")]
pub enum DownloadStatus {
    /// Still arriving: bytes so far, of `total` (0: the server did not say).
    Downloading {
        /// Bytes received.
        received: u64,
        /// Bytes in all.
        total: u64,
    },
    /// Complete.
    Saved {
        /// The file, as the server's machine names it (absent: where the
        /// browser keeps its downloads, which it did not say).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        path: Option<String>,
        /// Its size.
        bytes: u64,
    },
    /// Refused: this server keeps no downloads.
    Refused,
    /// Canceled by the browser or the page, or its transfer failed.
    Canceled,
}

impl From<pagesnap_browser::Download> for DownloadReport {
    fn from(download: pagesnap_browser::Download) -> DownloadReport {
        use pagesnap_browser::DownloadState as State;
        DownloadReport {
            file: download.file,
            url: download.url,
            status: match download.state {
                State::Downloading { received, total } => {
                    DownloadStatus::Downloading { received, total }
                }
                State::Saved { path, bytes } => DownloadStatus::Saved {
                    path: path.map(|p| p.display().to_string()),
                    bytes,
                },
                State::Refused => DownloadStatus::Refused,
                State::Canceled => DownloadStatus::Canceled,
            },
        }
    }
}

impl DownloadReport {
    /// The note the agent reads.
    pub fn note(&self) -> Note {
        let DownloadReport { file, url, status } = self;
        let message = match status {
            DownloadStatus::Saved {
                path: Some(path),
                bytes,
            } => format!("downloaded {file} ({bytes} bytes) from {url}: saved as {path}"),
            DownloadStatus::Saved { path: None, bytes } => format!(
                "downloaded {file} ({bytes} bytes) from {url}, into the browser's own download folder"
            ),
            DownloadStatus::Downloading { received, total } => format!(
                "{file} is downloading from {url} ({received} of {} bytes so far); a later \
                 answer says when it is saved",
                if *total > 0 {
                    total.to_string()
                } else {
                    "unknown".to_owned()
                }
            ),
            DownloadStatus::Refused => format!(
                "the page began to download {file} from {url}: refused, this server keeps no downloads"
            ),
            DownloadStatus::Canceled => format!("the download of {file} from {url} was canceled"),
        };
        Note {
            kind: NoteKind::Download,
            message,
        }
    }
}

/// What changed between the page before an action and after it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Changes {
    /// Refs of elements that appeared (marked new in the text).
    pub new: Vec<String>,
    /// Refs whose element left the page (not those merely scrolled out of view).
    pub removed: Vec<String>,
}

/// A snapshot's meta (`page_snapshot`'s structured content, and `snapshot`
/// in an action's answer): the engine's meta with the capture's freshness.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// What the engine says about the observation: counts, items, viewport, …
    #[serde(flatten)]
    pub meta: Meta,
    /// How fresh the page state it shows is.
    pub freshness: Freshness,
}

/// `page_snapshot`'s structured content: the snapshot, and the tab's
/// downloads not told before (one that finished after the answer of the
/// action that began it is told by whichever answer of its tab comes next).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SnapshotAnswer {
    /// The snapshot's meta and freshness.
    #[serde(flatten)]
    pub snapshot: Snapshot,
    /// Files the page downloaded, or began to, not told before (each also a
    /// [`NoteKind::Download`] note).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub downloads: Vec<DownloadReport>,
}

/// A tab the page opened, announced in an action's answer (URL masked).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenedTab {
    /// Its id (what `page_tabs` `select` takes).
    pub id: String,
    /// Its URL.
    pub url: String,
    /// Its title.
    pub title: String,
    /// The tab that opened it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opener: Option<String>,
}

impl From<pagesnap_browser::Tab> for OpenedTab {
    fn from(tab: pagesnap_browser::Tab) -> OpenedTab {
        OpenedTab {
            id: tab.id,
            url: tab.url,
            title: tab.title,
            opener: tab.opener,
        }
    }
}

/// `page_find`'s structured content.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FindAnswer {
    /// The matching elements, in ref order.
    pub matches: Vec<Match>,
    /// The whole-page snapshot they were found in.
    pub snapshot_id: String,
}

/// One element `page_find` found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Match {
    /// Its ref.
    #[serde(rename = "ref")]
    pub reference: String,
    /// Its role.
    pub role: String,
    /// Its accessible name.
    pub name: String,
    /// Whether it is in the viewport.
    pub in_viewport: bool,
    /// Where in the viewport (`offscreen` when not in it).
    pub zone: Zone,
    /// Text near it.
    pub context: String,
}

/// How fresh a snapshot's page state is (`snapshot.freshness`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub age_ms: Option<u64>,
}

/// One tab of `page_tabs` (URL and title masked).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opener: Option<String>,
}

/// What an action did (`action` in an action's answer).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ActionReport {
    /// The op as the one vocabulary spells it ([`pagesnap_browser::Op::name`]: `scroll`, `wait`,
    /// `click_at`, `dialog`, or the op of `page_action`), or the tool that has no op: `navigate`,
    /// `back`, `fill`.
    pub op: String,
    /// The rest, by kind of action.
    #[serde(flatten)]
    pub detail: Detail,
}

/// What an action did, by kind. Read back by the fields each kind has
/// (no two kinds have the same required ones; `op` names the kind).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Detail {
    /// `page_navigate`.
    Navigate {
        /// The URL opened (masked).
        url: String,
    },
    /// `page_scroll`.
    Scroll {
        /// Which way.
        direction: Direction,
        /// Viewport heights (widths, left and right) asked for.
        screens: f64,
        /// Whether it jumped (`instant`) rather than turning the wheel.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        instant: bool,
        /// How far the page (or container) moved along the direction's
        /// axis, CSS pixels (negative: up or left).
        scrolled_px: f64,
        /// The viewport is at the page's top.
        at_top: bool,
        /// The viewport is at the page's bottom.
        at_bottom: bool,
        /// The container scrolled, if not the page.
        #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
        reference: Option<String>,
        /// What the agent should know: the page grew (more content loaded),
        /// the end was reached, the wheel could not scroll it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
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
        #[serde(default, skip_serializing_if = "Option::is_none")]
        element: Option<String>,
    },
    /// `page_dialog`.
    Dialog {
        /// `alert`, `confirm`, `prompt` or `beforeunload`.
        kind: String,
        /// The dialog's message.
        message: String,
        /// Accepted (OK) or dismissed (Cancel).
        accepted: bool,
    },
    /// `page_action` on an element.
    Element {
        /// The ref acted on (none: the focus, or the page for select_text).
        #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
        reference: Option<String>,
        /// `role "name"`, or `the focus` / `the page` without a ref.
        element: String,
        /// Always `done` (a failure is an error result).
        outcome: String,
        /// The option chosen or the key pressed (a typed value is never echoed: it may hold a secret).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        value: Option<String>,
        /// A drag's drop target (its ref).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        to: Option<String>,
        /// What the agent should know about how it ran.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
}

impl ActionReport {
    /// The first line of the answer's `### Action` section (without the
    /// note).
    pub fn line(&self) -> String {
        let op = &self.op;
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
            op: "click".into(),
            detail: Detail::Element {
                reference: Some("e3".into()),
                element: "button \"Go\"".into(),
                outcome: "done".into(),
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
            op: "scroll".into(),
            detail: Detail::Scroll {
                direction: Direction::Down,
                screens: 0.75,
                instant: false,
                scrolled_px: 540.0,
                at_top: false,
                at_bottom: true,
                reference: None,
                note: None,
            },
        };
        assert_eq!(
            serde_json::to_value(&scroll).unwrap(),
            serde_json::json!({"op": "scroll", "direction": "down", "screens": 0.75,
                "scrolled_px": 540.0, "at_top": false, "at_bottom": true})
        );
        assert_eq!(scroll.line(), "scrolled 540 px, at the bottom");
        let back = ActionReport {
            op: "back".into(),
            detail: Detail::Back { moved: false },
        };
        assert_eq!(
            serde_json::to_value(&back).unwrap(),
            serde_json::json!({"op": "back", "moved": false})
        );
        assert_eq!(back.line(), "back: done");
        let navigate = ActionReport {
            op: "navigate".into(),
            detail: Detail::Navigate {
                url: "http://127.0.0.1/".into(),
            },
        };
        assert_eq!(navigate.line(), "opened http://127.0.0.1/");
        let dialog = ActionReport {
            op: "dialog".into(),
            detail: Detail::Dialog {
                kind: "confirm".into(),
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

    /// A client reads an action's answer back into the type the server wrote
    /// it from, whatever the action: every kind of report, notes and new
    /// tabs included; the optional parts are left out when empty, as before.
    #[test]
    fn an_action_answer_reads_back_as_it_was_written() {
        let details = [
            Detail::Navigate {
                url: "http://127.0.0.1/".into(),
            },
            Detail::Scroll {
                direction: Direction::Left,
                screens: 2.0,
                instant: true,
                scrolled_px: -1440.0,
                at_top: true,
                at_bottom: false,
                reference: Some("e2".into()),
                note: Some("the page grew by 1020 px: more content loaded".into()),
            },
            Detail::Back { moved: true },
            Detail::Fill { fields: 2 },
            Detail::Wait {
                until: "1500 ms passed".into(),
                waited_ms: 1501,
            },
            Detail::ClickAt {
                x: 10.5,
                y: 20.0,
                element: Some("button \"Go\"".into()),
            },
            Detail::ClickAt {
                x: 1.0,
                y: 2.0,
                element: None,
            },
            Detail::Dialog {
                kind: "prompt".into(),
                message: "Name?".into(),
                accepted: true,
            },
            Detail::Element {
                reference: Some("e3".into()),
                element: "combobox \"Country\"".into(),
                outcome: "done".into(),
                value: Some("France".into()),
                to: None,
                note: Some("a file chooser opened".into()),
            },
            Detail::Element {
                reference: None,
                element: "the focus".into(),
                outcome: "done".into(),
                value: None,
                to: None,
                note: None,
            },
        ];
        let snapshot = Snapshot {
            meta: Meta {
                strategy: "aria".into(),
                snapshot_id: "abc".into(),
                items: vec![pagesnap_engine::observation::Item {
                    reference: "e3".into(),
                    role: "button".into(),
                    name: "Go".into(),
                    zone: Zone::Offscreen,
                    states: vec!["disabled".into()],
                    ..Default::default()
                }],
                ..Meta::default()
            },
            freshness: Freshness {
                captured_at: "2026-11-26T20:00:00Z".into(),
                url: "u".into(),
                title: "t".into(),
                tab: "T1".into(),
                reused: false,
                age_ms: None,
            },
        };
        for detail in details {
            let answer = ActionAnswer {
                action: ActionReport {
                    op: "op".into(),
                    detail,
                },
                snapshot: snapshot.clone(),
                changes: Changes {
                    new: vec!["e3".into()],
                    removed: vec![],
                },
                incomplete: false,
                unchanged: false,
                pending: None,
                new_tabs: Vec::new(),
                notes: Vec::new(),
                downloads: Vec::new(),
                timings: StepTimings {
                    act_ms: 12.5,
                    settle_ms: 40.0,
                    capture_ms: Some(6.0),
                    analysis_ms: Some(1.0),
                    render_ms: Some(0.5),
                },
            };
            let json = serde_json::to_value(&answer).unwrap();
            assert!(
                json.get("notes").is_none()
                    && json.get("newTabs").is_none()
                    && json.get("pending").is_none()
                    && json.get("downloads").is_none()
            );
            assert_eq!(
                serde_json::from_value::<ActionAnswer>(json).unwrap(),
                answer
            );
            let full = ActionAnswer {
                incomplete: true,
                pending: Some("the load event never fired".into()),
                new_tabs: vec![OpenedTab {
                    id: "T2".into(),
                    url: "u".into(),
                    title: "".into(),
                    opener: Some("T1".into()),
                }],
                notes: vec![Note {
                    kind: NoteKind::WithheldText,
                    message: "m".into(),
                }],
                downloads: [
                    DownloadStatus::Saved {
                        path: Some("/tmp/d/report.csv".into()),
                        bytes: 8,
                    },
                    DownloadStatus::Saved {
                        path: None,
                        bytes: 8,
                    },
                    DownloadStatus::Downloading {
                        received: 3,
                        total: 0,
                    },
                    DownloadStatus::Refused,
                    DownloadStatus::Canceled,
                ]
                .into_iter()
                .map(|status| DownloadReport {
                    file: "report.csv".into(),
                    url: "http://h/f".into(),
                    status,
                })
                .collect(),
                ..answer
            };
            let json = serde_json::to_value(&full).unwrap();
            assert_eq!(json["newTabs"][0]["opener"], "T1");
            assert_eq!(json["notes"][0]["kind"], "withheld-text");
            assert_eq!(
                json["downloads"][0],
                serde_json::json!({"file": "report.csv", "url": "http://h/f", "state": "saved",
                    "path": "/tmp/d/report.csv", "bytes": 8})
            );
            assert_eq!(json["downloads"][3]["state"], "refused");
            assert_eq!(serde_json::from_value::<ActionAnswer>(json).unwrap(), full);
        }
        let json = serde_json::to_value(&snapshot).unwrap();
        assert_eq!(json["items"][0]["ref"], "e3");
        assert_eq!(json["freshness"]["tab"], "T1");
        assert_eq!(serde_json::from_value::<Snapshot>(json).unwrap(), snapshot);
    }
}
