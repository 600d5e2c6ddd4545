//! The tools (`page_navigate`, `page_snapshot`, `page_find`, `page_scroll`, `page_action`, `page_fill`, `page_wait`, `page_click_at`, `page_dialog`, `page_back`, `page_tabs`): their argument schemas, and results that carry the text an agent reads in `content` and the meta in `structuredContent`.

use std::sync::Arc;

use base64::Engine as _;
use pagesnap_browser::{UserAction, Wait};
use pagesnap_engine::observation::{Observation, Zone};
use pagesnap_engine::strategy::{self, STRATEGIES, Strategy};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, JsonObject, ServerCapabilities, ServerConfig,
};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tokio::sync::Mutex;

use super::answer::{ActionReport, Detail};
use super::error::{Kind, ToolError};
use super::readiness::Readiness;
use super::tabs::{Acted, Browsing, Isolation, Request, Seen};

/// The server of one session: its calls are serialised on its browsing,
/// those of other sessions run beside them in the one browser.
#[derive(Clone)]
pub struct Server {
    browsing: Arc<Mutex<Browsing>>,
    tool_router: ToolRouter<Self>,
    /// Counts this session among the open ones while any clone lives.
    _open: Option<Arc<crate::serve::Open>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NavigateArgs {
    /// The URL to open in the current tab (http:// or https://). A tab is opened when none is.
    pub url: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SnapshotArgs {
    /// How the page is written: `aria` (Playwright-style YAML with [ref=eN]), `flat` (indexed
    /// [N]<tag> lines), `structural` (3×3 zones with name sources), `som` (a screenshot with numbered
    /// boxes plus a legend), `html-pruned` or `html`. Default: the server's --strategy.
    pub strategy: Option<String>,
    /// true: the whole page; false (default): only what is in the viewport, with hints of what is
    /// above and below (scroll with page_scroll to see it).
    pub full_page: Option<bool>,
    /// Cut the text to about this many tokens (least useful content first); the text says so when cut.
    pub max_tokens: Option<usize>,
    /// Named layers to show (configured on the server with --layers-config); default: its default layers.
    pub layers: Option<Vec<String>>,
    /// Show only this element's subtree (a ref from an earlier result).
    #[serde(rename = "ref")]
    pub reference: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindArgs {
    /// Find elements whose name or nearby text contains this text (case-insensitive).
    pub text: Option<String>,
    /// Or: whose name or nearby text matches this regular expression (Rust syntax).
    pub regex: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Up,
    Down,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScrollArgs {
    /// `up` or `down`.
    pub direction: Direction,
    /// How far, in viewport heights (fractions allowed). Default 0.75.
    pub screens: Option<f64>,
    /// Scroll this scroll container (a ref) instead of the page.
    #[serde(rename = "ref")]
    pub reference: Option<String>,
}

#[derive(Clone, Copy, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    Click,
    Dblclick,
    Type,
    Clear,
    Select,
    Press,
    Hover,
    Focus,
    Drag,
    Upload,
    SelectText,
}

impl Op {
    fn page_op(self) -> pagesnap_browser::Op {
        match self {
            Op::Click => pagesnap_browser::Op::Click,
            Op::Dblclick => pagesnap_browser::Op::Dblclick,
            Op::Type => pagesnap_browser::Op::Type,
            Op::Clear => pagesnap_browser::Op::Clear,
            Op::Select => pagesnap_browser::Op::Select,
            Op::Press => pagesnap_browser::Op::Press,
            Op::Hover => pagesnap_browser::Op::Hover,
            Op::Focus => pagesnap_browser::Op::Focus,
            Op::Drag => pagesnap_browser::Op::Drag,
            Op::Upload => pagesnap_browser::Op::Upload,
            Op::SelectText => pagesnap_browser::Op::SelectText,
        }
    }

    fn name(self) -> &'static str {
        self.page_op().name()
    }

    fn readiness(self) -> Readiness {
        match self {
            Op::Click | Op::Dblclick | Op::Press | Op::Drag => Readiness::CLICK,
            Op::Type | Op::Clear | Op::Focus | Op::SelectText => Readiness::NONE,
            Op::Select | Op::Upload => Readiness::SELECT,
            Op::Hover => Readiness::HOVER,
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ActionArgs {
    /// The element: a ref from a snapshot of this tab (`e12` in aria, `12`
    /// in flat). Optional for press, type and select_text.
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    /// The action.
    pub op: Op,
    /// Text to type, option, key, or text to select.
    pub value: Option<String>,
    /// drag: the drop target's ref, or a point "X,Y".
    pub to: Option<String>,
    /// upload: file paths, inside the server's --upload-dir.
    pub paths: Option<Vec<String>>,
    /// Answer with the changed lines only, not the whole page.
    pub brief: Option<bool>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Field {
    /// The field's ref.
    #[serde(rename = "ref")]
    pub reference: String,
    /// Its value.
    pub value: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FillArgs {
    /// The fields, filled in this order.
    pub fields: Vec<Field>,
    /// Answer with the changed lines only, not the whole page.
    pub brief: Option<bool>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitArgs {
    /// A text to appear.
    pub text: Option<String>,
    /// A ref to leave.
    pub gone: Option<String>,
    /// Milliseconds.
    pub ms: Option<u64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClickAtArgs {
    /// CSS pixels from the left.
    pub x: f64,
    /// CSS pixels from the top.
    pub y: f64,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DialogArgs {
    /// OK (true) or Cancel (false).
    pub accept: bool,
    /// A prompt's answer (default: its default text).
    pub text: Option<String>,
}

#[derive(Clone, Copy, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum TabsOp {
    List,
    Select,
    Close,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TabsArgs {
    /// `list` the tabs, `select` one (id) to observe and act on, or `close` one (id).
    pub op: TabsOp,
    /// The tab id (from `list`), for `select` and `close`.
    pub id: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

/// A tool's input schema, from its argument type (the descriptions are its doc comments).
fn input_schema<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    rmcp::handler::server::common::schema_for_input::<T>()
        .unwrap_or_else(|_| rmcp::handler::server::common::schema_for_type::<T>())
}

/// The arguments of `tool`, or a `bad-argument` error naming the field and
/// what was wrong (read here rather than by the SDK, so that malformed
/// arguments fail with a kind like every other failure).
fn parse<T: serde::de::DeserializeOwned>(
    tool: &str,
    arguments: JsonObject,
) -> Result<T, ToolError> {
    serde_path_to_error::deserialize(serde_json::Value::Object(arguments)).map_err(|err| {
        let path = err.path().to_string();
        let at = if path == "." {
            String::new()
        } else {
            format!(" at `{path}`")
        };
        ToolError::new(
            Kind::BadArgument,
            format!("{tool}: invalid arguments{at}: {}", err.into_inner()),
        )
    })
}

/// `CallToolResult` or the error result.
fn done(result: Result<CallToolResult, ToolError>) -> CallToolResult {
    result.unwrap_or_else(ToolError::into_result)
}

#[tool_router]
impl Server {
    /// A server on `browsing`.
    pub fn new(browsing: Arc<Mutex<Browsing>>) -> Server {
        Server {
            browsing,
            tool_router: Self::tool_router(),
            _open: None,
        }
    }

    /// This server, counted among the open sessions until it is gone.
    pub(crate) fn counted(mut self, open: crate::serve::Open) -> Server {
        self._open = Some(Arc::new(open));
        self
    }

    #[tool(
        name = "page_navigate",
        input_schema = input_schema::<NavigateArgs>(),
        description = "Open a URL in the current tab (a tab is opened when there is none). Waits for the page to load and settle, then returns a snapshot of the viewport (as page_snapshot does, with the server's default strategy). Result: the snapshot text; structuredContent {action: {op, url}, snapshot: meta, incomplete, pending?}."
    )]
    async fn page_navigate(&self, arguments: JsonObject) -> CallToolResult {
        let mut browsing = self.browsing.lock().await;
        done(
            async {
                let args: NavigateArgs = parse("page_navigate", arguments)?;
                let pending = browsing.navigate(&args.url).await?;
                let seen = browsing.observe(&Request::default()).await?;
                let action = ActionReport {
                    op: "navigate",
                    detail: Detail::Navigate {
                        url: browsing.mask(&args.url),
                    },
                };
                Ok(action_result(
                    &browsing,
                    action,
                    After {
                        acted: None,
                        seen: &seen,
                        before: None,
                        pending,
                        new_tabs: Vec::new(),
                        brief: false,
                    },
                ))
            }
            .await,
        )
    }

    #[tool(
        name = "page_snapshot",
        input_schema = input_schema::<SnapshotArgs>(),
        description = "What the current tab shows, as text an agent can act on: each interactive element with a ref (for page_action), nearby text, hints of what is above and below. Viewport only unless full_page. Elements behind a modal are [obscured], without refs; secrets are redacted; a node keeps its ref across calls; new elements are marked. structuredContent: snapshotId, viewport, counts, items (ref, role, name, nameSource, nameStatus, zone, states), freshness (capturedAt, url, title, tab; reused: the page had not changed since the last capture, rendered again)."
    )]
    async fn page_snapshot(&self, arguments: JsonObject) -> CallToolResult {
        let mut browsing = self.browsing.lock().await;
        done(
            async {
                let args: SnapshotArgs = parse("page_snapshot", arguments)?;
                let request = Request {
                    strategy: args.strategy.as_deref().map(strategy_named).transpose()?,
                    full_page: args.full_page,
                    max_tokens: args.max_tokens,
                    layers: args.layers.clone(),
                    scope: args.reference.clone(),
                };
                if args.max_tokens == Some(0) {
                    return Err(ToolError::new(
                        Kind::BadArgument,
                        "max_tokens must be at least 1",
                    ));
                }
                let seen = browsing.observe(&request).await?;
                Ok(snapshot_result(&browsing, &seen))
            }
            .await,
        )
    }

    #[tool(
        name = "page_find",
        input_schema = input_schema::<FindArgs>(),
        description = "Find elements on the whole page (not only the viewport) by text or regex over their name and nearby text, without reading a whole snapshot. Returns each match's ref, role, name, whether it is in the viewport (scroll to it with page_scroll or act on it directly), and its context."
    )]
    async fn page_find(&self, arguments: JsonObject) -> CallToolResult {
        let mut browsing = self.browsing.lock().await;
        done(
            async {
                let args: FindArgs = parse("page_find", arguments)?;
                let matcher = Matcher::new(&args)?;
                browsing.refuse_while_dialog()?;
                let seen = browsing
                    .observe(&Request {
                        full_page: Some(true),
                        ..Request::default()
                    })
                    .await?;
                let mut lines = Vec::new();
                let mut found = Vec::new();
                for item in &seen.observation.meta.items {
                    if !(matcher.matches(&item.name) || matcher.matches(&item.context)) {
                        continue;
                    }
                    let in_viewport = item.zone != Zone::Offscreen;
                    lines.push(format!(
                        "- {} {:?} [ref={}]{}{}",
                        item.role,
                        item.name,
                        item.reference,
                        if in_viewport { "" } else { " (off screen)" },
                        if item.context.is_empty() {
                            String::new()
                        } else {
                            format!(" — {}", item.context)
                        }
                    ));
                    found.push(json!({
                        "ref": item.reference,
                        "role": item.role,
                        "name": item.name,
                        "inViewport": in_viewport,
                        "zone": item.zone,
                        "context": item.context,
                    }));
                }
                let text = if lines.is_empty() {
                    format!("no element matches {}", matcher.describe())
                } else {
                    format!(
                        "{} element(s) match {}:\n{}",
                        lines.len(),
                        matcher.describe(),
                        lines.join("\n")
                    )
                };
                let mut structured =
                    json!({ "matches": found, "snapshotId": seen.observation.meta.snapshot_id });
                browsing.config().secrets.mask_json(&mut structured);
                let mut result =
                    CallToolResult::success(vec![ContentBlock::text(browsing.mask(&text))]);
                result.structured_content = Some(structured);
                Ok(result)
            }
            .await,
        )
    }

    #[tool(
        name = "page_scroll",
        input_schema = input_schema::<ScrollArgs>(),
        description = "Scroll the page (or the scroll container `ref` names) up or down by `screens` viewport heights (default 0.75), wait for lazy content, and return the new viewport's snapshot. structuredContent {action: {scrolled_px, at_top, at_bottom}, snapshot: meta, incomplete}."
    )]
    async fn page_scroll(&self, arguments: JsonObject) -> CallToolResult {
        let mut browsing = self.browsing.lock().await;
        done(
            async {
                let args: ScrollArgs = parse("page_scroll", arguments)?;
                let screens = args.screens.unwrap_or(0.75);
                if !(screens.is_finite() && screens > 0.0 && screens <= 100.0) {
                    return Err(ToolError::new(
                        Kind::BadArgument,
                        format!("screens must be a number above 0 and at most 100, not {screens}"),
                    ));
                }
                let backend_id = match &args.reference {
                    Some(reference) => Some(browsing.item(reference)?.backend_id),
                    None => None,
                };
                let height = f64::from(browsing.config().open.height);
                let sign = match args.direction {
                    Direction::Up => -1.0,
                    Direction::Down => 1.0,
                };
                // The page scrolls by viewport heights, a container by its own height.
                let height = match backend_id {
                    None => height,
                    Some(id) => browsing.client_height(id).await?,
                };
                let before = browsing.last().cloned();
                let acted = browsing
                    .act(
                        UserAction::Scroll {
                            backend_id,
                            dy: Some(sign * screens * height),
                            up: sign < 0.0,
                        },
                        Readiness::SCROLL,
                    )
                    .await?;
                let seen = browsing.observe(&Request::default()).await?;
                let viewport = seen.observation.meta.viewport;
                let scrolled = acted.scroll.map_or(0.0, |(a, b)| b - a);
                let action = ActionReport {
                    op: "scroll",
                    detail: Detail::Scroll {
                        direction: match args.direction {
                            Direction::Up => "up",
                            Direction::Down => "down",
                        },
                        screens,
                        scrolled_px: scrolled.round(),
                        at_top: viewport.at_top,
                        at_bottom: viewport.at_bottom,
                        reference: args.reference.clone(),
                    },
                };
                let pending = acted.pending.clone();
                let new_tabs = browsing.new_tabs().await;
                Ok(action_result(
                    &browsing,
                    action,
                    After {
                        acted: Some(&acted),
                        seen: &seen,
                        before: before.as_ref(),
                        pending,
                        new_tabs,
                        brief: false,
                    },
                ))
            }
            .await,
        )
    }

    #[tool(
        name = "page_action",
        input_schema = input_schema::<ActionArgs>(),
        description = "Act on an element by ref as a user would, with real input at its visible centre (if something covers it, nothing is done and the error names it): click, dblclick, type (`value` replaces the text; {secret:NAME} types a server-side secret), clear, select (option `value`), press (key `value`: Enter, Control+A, …), hover, focus, drag (onto ref `to`, or point `to`: `X,Y`), upload (`paths`), select_text (`value`, or all). Without ref, type and press act at the focus, select_text finds `value` on the page. Returns {action, snapshot, changes: {new, removed}, incomplete}. Failures are errors with a kind: stale, covered, hidden, not-editable, not-select, no-option, unknown-key, dialog-pending, wait-timeout, upload-refused, not-file-input, no-text, no-dialog, unknown-ref."
    )]
    async fn page_action(&self, arguments: JsonObject) -> CallToolResult {
        let mut browsing = self.browsing.lock().await;
        done(
            async {
                let args: ActionArgs = parse("page_action", arguments)?;
                let item = match &args.reference {
                    Some(reference) => Some(browsing.item(reference)?),
                    None => None,
                };
                let value = match (args.op, &args.value) {
                    (Op::Type, Some(value)) => Some(
                        browsing
                            .config()
                            .secrets
                            .substitute(value)
                            .map_err(|m| ToolError::new(Kind::BadArgument, m))?,
                    ),
                    (_, value) => value.clone(),
                };
                let mut items: Vec<_> = item.iter().cloned().collect();
                let value = match (args.op, &args.to, &args.paths) {
                    (Op::Drag, Some(to), _) => {
                        // A ref, or a point X,Y the resolver reads itself.
                        if !to.contains(',') {
                            items.push(browsing.item(to)?);
                        }
                        Some(to.clone())
                    }
                    (Op::Drag, None, _) => {
                        return Err(ToolError::new(
                            Kind::BadArgument,
                            "drag needs `to`: the ref of the element to drop onto",
                        ));
                    }
                    // The paths are set below, whole (a name may hold a comma).
                    (Op::Upload, _, Some(_)) => Some(String::new()),
                    (Op::Upload, _, None) => {
                        return Err(ToolError::new(
                            Kind::BadArgument,
                            "upload needs `paths`: the files to give, inside the server's --upload-dir",
                        ));
                    }
                    _ => value,
                };
                let action = pagesnap_browser::resolve(
                    args.op.page_op(),
                    args.reference.as_deref(),
                    value.as_deref(),
                    &items,
                )
                .map_err(|unrunnable| ToolError::new(Kind::BadArgument, unrunnable.to_string()))?
                .action;
                let action = match (action, &args.paths) {
                    (UserAction::Upload { backend_id, .. }, Some(paths)) => UserAction::Upload {
                        backend_id,
                        paths: paths.clone(),
                    },
                    (action, _) => action,
                };
                let before = browsing.last().cloned();
                let mut acted = browsing.act(action, args.op.readiness()).await?;
                let element = match (&item, args.op) {
                    (Some(item), _) => pagesnap_browser::label(item),
                    (None, Op::SelectText) => "the page".to_owned(),
                    (None, _) => "the focus".to_owned(),
                };
                acted.element = Some(element.clone());
                let seen = browsing.observe(&Request::default()).await?;
                let action = ActionReport {
                    op: args.op.name(),
                    detail: Detail::Element {
                        reference: args.reference.clone(),
                        element,
                        outcome: "done",
                        // A typed value is never echoed (it may hold a secret).
                        value: args.value.clone().filter(|_| args.op != Op::Type),
                        to: args.to.clone(),
                        note: acted.note.clone(),
                    },
                };
                let pending = acted.pending.clone();
                let new_tabs = browsing.new_tabs().await;
                Ok(action_result(
                    &browsing,
                    action,
                    After {
                        acted: Some(&acted),
                        seen: &seen,
                        before: before.as_ref(),
                        pending,
                        new_tabs,
                        brief: args.brief.unwrap_or(false),
                    },
                ))
            }
            .await,
        )
    }

    #[tool(
        name = "page_fill",
        input_schema = input_schema::<FillArgs>(),
        description = "Fill several fields in one call, in order: text typed ({secret:NAME} allowed), a select's option, \"true\"/\"false\" for a checkbox or radio. Stops at the first failure, naming the field. Answers once with the page."
    )]
    async fn page_fill(&self, arguments: JsonObject) -> CallToolResult {
        let mut browsing = self.browsing.lock().await;
        done(
            async {
                let args: FillArgs = parse("page_fill", arguments)?;
                if args.fields.is_empty() {
                    return Err(ToolError::new(Kind::BadArgument, "fields is empty"));
                }
                let mut fields = Vec::new();
                for field in &args.fields {
                    let item = browsing.item(&field.reference)?;
                    let value = browsing
                        .config()
                        .secrets
                        .substitute(&field.value)
                        .map_err(|m| ToolError::new(Kind::BadArgument, m))?;
                    fields.push((item.backend_id, value));
                }
                let count = fields.len();
                let before = browsing.last().cloned();
                let acted = browsing
                    .act(UserAction::Fill { fields }, Readiness::SELECT)
                    .await?;
                let action = ActionReport {
                    op: "fill",
                    detail: Detail::Fill { fields: count },
                };
                answer_after(
                    &mut browsing,
                    action,
                    &acted,
                    before,
                    args.brief.unwrap_or(false),
                )
                .await
            }
            .await,
        )
    }

    #[tool(
        name = "page_wait",
        input_schema = input_schema::<WaitArgs>(),
        description = "Wait until `text` appears, until the element of ref `gone` leaves or hides, or `ms` milliseconds (≤ 10000); give one. Returns the page; past 10 s: wait-timeout."
    )]
    async fn page_wait(&self, arguments: JsonObject) -> CallToolResult {
        let mut browsing = self.browsing.lock().await;
        done(
            async {
                let args: WaitArgs = parse("page_wait", arguments)?;
                let (wait, until) = match (&args.text, &args.gone, args.ms) {
                    (Some(text), None, None) if !text.trim().is_empty() => {
                        (Wait::Text(text.clone()), format!("text {text:?} appeared"))
                    }
                    (None, Some(reference), None) => (
                        Wait::Gone(browsing.item(reference)?.backend_id),
                        format!("ref {reference} gone"),
                    ),
                    (None, None, Some(ms)) if ms <= 10_000 => (
                        Wait::Delay(std::time::Duration::from_millis(ms)),
                        format!("{ms} ms passed"),
                    ),
                    (None, None, Some(ms)) => {
                        return Err(ToolError::new(
                            Kind::BadArgument,
                            format!("ms is at most 10000, not {ms}"),
                        ));
                    }
                    _ => {
                        return Err(ToolError::new(
                            Kind::BadArgument,
                            "give exactly one of text (non-empty), gone (a ref) and ms",
                        ));
                    }
                };
                let started = std::time::Instant::now();
                let before = browsing.last().cloned();
                let acted = browsing
                    .act(UserAction::Wait(wait), Readiness::NONE)
                    .await?;
                let action = ActionReport {
                    op: "wait",
                    detail: Detail::Wait {
                        until,
                        waited_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
                    },
                };
                answer_after(&mut browsing, action, &acted, before, false).await
            }
            .await,
        )
    }

    #[tool(
        name = "page_click_at",
        input_schema = input_schema::<ClickAtArgs>(),
        description = "A real click at a viewport point (CSS pixels, as the som screenshot), for what has no ref. Names what was under it; returns the page."
    )]
    async fn page_click_at(&self, arguments: JsonObject) -> CallToolResult {
        let mut browsing = self.browsing.lock().await;
        done(
            async {
                let args: ClickAtArgs = parse("page_click_at", arguments)?;
                if !(args.x.is_finite() && args.y.is_finite()) {
                    return Err(ToolError::new(Kind::BadArgument, "x and y must be numbers"));
                }
                let element = browsing.element_at(args.x, args.y).await?;
                let before = browsing.last().cloned();
                let acted = browsing
                    .act(
                        UserAction::ClickAt {
                            x: args.x,
                            y: args.y,
                        },
                        Readiness::CLICK,
                    )
                    .await?;
                let action = ActionReport {
                    op: "click_at",
                    detail: Detail::ClickAt {
                        x: args.x,
                        y: args.y,
                        element: element.map(|e| browsing.mask(&e)),
                    },
                };
                answer_after(&mut browsing, action, &acted, before, false).await
            }
            .await,
        )
    }

    #[tool(
        name = "page_dialog",
        input_schema = input_schema::<DialogArgs>(),
        description = "Answer the JavaScript dialog (alert, confirm, prompt, beforeunload) the page waits on; until then snapshots show only it and other actions fail with dialog-pending. Returns the page after it."
    )]
    async fn page_dialog(&self, arguments: JsonObject) -> CallToolResult {
        let mut browsing = self.browsing.lock().await;
        done(
            async {
                let args: DialogArgs = parse("page_dialog", arguments)?;
                let Some(dialog) = browsing.dialog() else {
                    return Err(ToolError::new(
                        Kind::Action(pagesnap_browser::Failure::NoDialog),
                        pagesnap_browser::Failure::NoDialog.message(),
                    ));
                };
                let before = browsing.last().cloned();
                let action = UserAction::Dialog {
                    accept: args.accept,
                    text: args.text.clone(),
                };
                let acted = browsing.act(action, Readiness::CLICK).await?;
                let seen = browsing.observe(&Request::default()).await?;
                let action = ActionReport {
                    op: "dialog",
                    detail: Detail::Dialog {
                        kind: dialog.kind.name(),
                        message: browsing.mask(&dialog.message),
                        accepted: args.accept,
                    },
                };
                let pending = acted.pending.clone();
                let new_tabs = browsing.new_tabs().await;
                Ok(action_result(
                    &browsing,
                    action,
                    After {
                        acted: Some(&acted),
                        seen: &seen,
                        before: before.as_ref(),
                        pending,
                        new_tabs,
                        brief: false,
                    },
                ))
            }
            .await,
        )
    }

    #[tool(
        name = "page_back",
        input_schema = input_schema::<NoArgs>(),
        description = "Go back one page in the current tab's history, then return the snapshot."
    )]
    async fn page_back(&self, arguments: JsonObject) -> CallToolResult {
        let mut browsing = self.browsing.lock().await;
        done(
            async {
                let _args: NoArgs = parse("page_back", arguments)?;
                let moved = browsing.back().await?;
                let seen = browsing.observe(&Request::default()).await?;
                let action = ActionReport {
                    op: "back",
                    detail: Detail::Back { moved },
                };
                let note =
                    (!moved).then(|| "there is no earlier page in this tab's history".to_owned());
                let acted = Acted {
                    element: None,
                    note,
                    pending: None,
                    scroll: None,
                };
                Ok(action_result(
                    &browsing,
                    action,
                    After {
                        acted: Some(&acted),
                        seen: &seen,
                        before: None,
                        pending: None,
                        new_tabs: Vec::new(),
                        brief: false,
                    },
                ))
            }
            .await,
        )
    }

    #[tool(
        name = "page_tabs",
        input_schema = input_schema::<TabsArgs>(),
        description = "List the browser's tabs (a tab the page opens is listed here, never followed silently), select one to observe and act on, or close one."
    )]
    async fn page_tabs(&self, arguments: JsonObject) -> CallToolResult {
        let mut browsing = self.browsing.lock().await;
        done(
            async {
                let args: TabsArgs = parse("page_tabs", arguments)?;
                let id = || {
                    args.id.clone().ok_or_else(|| {
                        ToolError::new(
                            Kind::BadArgument,
                            "select and close need the tab's id (from list)",
                        )
                    })
                };
                match args.op {
                    TabsOp::List => {}
                    TabsOp::Select => browsing.select(&id()?).await?,
                    TabsOp::Close => browsing.close_tab(&id()?).await?,
                }
                let tabs = browsing.list_tabs().await?;
                let lines: Vec<String> = tabs
                    .iter()
                    .map(|t| {
                        format!(
                            "{} {} {:?} {}",
                            if t.current { "*" } else { "-" },
                            t.id,
                            t.title,
                            t.url
                        )
                    })
                    .collect();
                let context = match browsing.isolation() {
                    Isolation::Default => "default",
                    Isolation::Own(_) => "own",
                };
                let text = if lines.is_empty() {
                    format!("no tabs (browser context: {context})")
                } else {
                    format!(
                        "tabs (* current; browser context: {context}):\n{}",
                        lines.join("\n")
                    )
                };
                let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
                result.structured_content = Some(json!({ "tabs": tabs, "context": context }));
                Ok(result)
            }
            .await,
        )
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("pagesnap", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "pagesnap shows a browser tab as text an agent can act on. Open a page with page_navigate, \
                 read it with page_snapshot (viewport only; page_scroll or full_page for more), locate \
                 targets with page_find, and act with page_action using the refs the snapshots show. Every \
                 action returns the page after it. A JavaScript dialog the page opens is shown, never \
                 answered for you: answer it with page_dialog.",
            )
    }
}

/// The strategy a `strategy` argument names; the error lists the known ones.
fn strategy_named(name: &str) -> Result<&'static dyn Strategy, ToolError> {
    strategy::by_name(name).ok_or_else(|| {
        let known: Vec<&str> = STRATEGIES.iter().map(|s| s.name()).collect();
        ToolError::new(
            Kind::BadArgument,
            format!("unknown strategy {name:?} (known: {})", known.join(", ")),
        )
    })
}

/// The content blocks of an observation: its text, and for `som` its PNG.
fn blocks(observation: &Observation, text: String) -> Vec<ContentBlock> {
    let mut blocks = vec![ContentBlock::text(text)];
    if let Some(image) = &observation.image {
        blocks.push(ContentBlock::image(
            base64::engine::general_purpose::STANDARD.encode(&image.png),
            "image/png",
        ));
    }
    blocks
}

/// The meta of an observation with its freshness, masked.
fn meta_json(browsing: &Browsing, seen: &Seen) -> serde_json::Value {
    let mut meta = serde_json::to_value(&seen.observation.meta).unwrap_or_else(|_| json!({}));
    meta["freshness"] = serde_json::to_value(&seen.freshness).unwrap_or_default();
    browsing.config().secrets.mask_json(&mut meta);
    meta
}

fn snapshot_result(browsing: &Browsing, seen: &Seen) -> CallToolResult {
    let mut result =
        CallToolResult::success(blocks(&seen.observation, seen.observation.text.clone()));
    result.structured_content = Some(meta_json(browsing, seen));
    result
}

/// What an action's answer is made of besides the action itself.
struct After<'a> {
    /// What the actuator said.
    acted: Option<&'a Acted>,
    /// The page after it.
    seen: &'a Seen,
    /// The observation before it, for the changes.
    before: Option<&'a Observation>,
    /// What was still going on when the readiness budget ran out.
    pending: Option<String>,
    /// Tabs the page opened.
    new_tabs: Vec<pagesnap_browser::Tab>,
    /// The changed lines only, not the whole page.
    brief: bool,
}

/// An action's result: what it did, what changed, whether the page was
/// ready, and the snapshot after it.
fn action_result(browsing: &Browsing, action: ActionReport, after: After<'_>) -> CallToolResult {
    let After {
        acted,
        seen,
        before,
        pending,
        new_tabs,
        brief,
    } = after;
    // Behind a dialog the page cannot be seen, so nothing is said to have left it.
    let before = before.filter(|_| seen.observation.meta.dialog.is_none());
    let changes = Browsing::changes(before, seen);
    let mut head = Vec::new();
    let mut line = action.line(acted.and_then(|a| a.element.as_deref()));
    if let Some(note) = acted.and_then(|a| a.note.as_deref()) {
        line.push_str(&format!(" — {note}"));
    }
    head.push(format!("### Action\n{line}"));
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
    if let Some(pending) = &pending {
        head.push(format!("### Incomplete\n{pending} — the snapshot below is the best available; take another with page_snapshot"));
    }
    if !new_tabs.is_empty() {
        let tabs: Vec<String> = new_tabs
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
    let unchanged = before.is_some_and(|b| b.text == seen.observation.text);
    if unchanged {
        head.push("### Unchanged\nthe page shows what it showed before the action".to_owned());
    }
    match before {
        Some(before) if brief && !unchanged => {
            head.push(format!(
                "### Changed lines\n{}",
                changed_lines(&before.text, &seen.observation.text)
            ));
        }
        Some(_) if brief => {}
        _ => head.push(format!("### {section}\n{}", seen.observation.text)),
    }
    let text = browsing.mask_known(&head.join("\n\n"));
    let mut structured = json!({
        "action": action,
        "snapshot": meta_json(browsing, seen),
        "changes": { "new": changes.new, "removed": changes.removed },
        "incomplete": pending.is_some(),
        "unchanged": unchanged,
    });
    if let Some(pending) = pending {
        structured["pending"] = json!(pending);
    }
    if !new_tabs.is_empty() {
        structured["newTabs"] = serde_json::to_value(&new_tabs).unwrap_or_default();
    }
    browsing.config().secrets.mask_json(&mut structured);
    let mut result = CallToolResult::success(blocks(&seen.observation, text));
    result.structured_content = Some(structured);
    result
}

/// The answer of an action that ran: the page observed after it, with
/// what changed since `before`.
async fn answer_after(
    browsing: &mut Browsing,
    action: ActionReport,
    acted: &Acted,
    before: Option<Observation>,
    brief: bool,
) -> Result<CallToolResult, ToolError> {
    let seen = browsing.observe(&Request::default()).await?;
    let pending = acted.pending.clone();
    let new_tabs = browsing.new_tabs().await;
    Ok(action_result(
        browsing,
        action,
        After {
            acted: Some(acted),
            seen: &seen,
            before: before.as_ref(),
            pending,
            new_tabs,
            brief,
        },
    ))
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

/// `text` (case-insensitive substring) or `regex`.
enum Matcher {
    Text(String),
    Regex(regex::Regex),
}

impl Matcher {
    fn new(args: &FindArgs) -> Result<Matcher, ToolError> {
        match (&args.text, &args.regex) {
            (Some(text), None) if !text.trim().is_empty() => {
                Ok(Matcher::Text(text.trim().to_lowercase()))
            }
            (None, Some(pattern)) => regex::RegexBuilder::new(pattern)
                .case_insensitive(true)
                .size_limit(1 << 20)
                .build()
                .map(Matcher::Regex)
                .map_err(|err| {
                    ToolError::new(Kind::BadArgument, format!("regex {pattern:?}: {err}"))
                }),
            (Some(_), Some(_)) => Err(ToolError::new(
                Kind::BadArgument,
                "give text or regex, not both",
            )),
            _ => Err(ToolError::new(
                Kind::BadArgument,
                "give a non-empty text or a regex to find",
            )),
        }
    }

    fn matches(&self, haystack: &str) -> bool {
        match self {
            Matcher::Text(text) => haystack.to_lowercase().contains(text),
            Matcher::Regex(regex) => regex.is_match(haystack),
        }
    }

    fn describe(&self) -> String {
        match self {
            Matcher::Text(text) => format!("text {text:?}"),
            Matcher::Regex(regex) => format!("regex {:?}", regex.as_str()),
        }
    }
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

    /// page_action's description lists the kinds an agent can branch on:
    /// every [`pagesnap_browser::Failure`] and `unknown-ref`.
    #[test]
    fn page_action_names_every_failure_kind() {
        let tools = Server::tool_router().list_all();
        let action = tools
            .iter()
            .find(|tool| tool.name == "page_action")
            .unwrap();
        let description = action.description.as_deref().unwrap_or_default();
        let (_, listed) = description
            .split_once("Failures are errors with a kind: ")
            .unwrap();
        let listed: Vec<&str> = listed.trim_end_matches('.').split(", ").collect();
        let mut expected: Vec<&str> = pagesnap_browser::Failure::ALL
            .iter()
            .filter(|kind| **kind != pagesnap_browser::Failure::Failed) // a peer's error, never ours
            .map(|kind| kind.name())
            .collect();
        expected.push(Kind::UnknownRef.name());
        assert_eq!(listed, expected);
    }
}
