//! `page_find`: the elements of the whole page whose name or nearby text matches a text or a regex.

use pagesnap_engine::observation::Zone;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::{Server, input_schema};
use crate::answer::{FindAnswer, Match};
use crate::error::{Kind, ToolError};
use crate::tabs::{Browsing, Request};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindArgs {
    /// Find elements whose name or nearby text contains this text (case-insensitive).
    pub text: Option<String>,
    /// Or: whose name or nearby text matches this regular expression (Rust syntax).
    pub regex: Option<String>,
}

#[tool_router(router = find_router, vis = "pub(super)")]
impl Server {
    #[tool(
        name = "page_find",
        input_schema = input_schema::<FindArgs>(),
        description = "Find elements on the whole page by text or regex over their name and nearby text, without reading a snapshot. Returns each match's ref, role, name, context and whether it is in the viewport (act on it directly, or page_scroll to it)."
    )]
    async fn page_find(&self, arguments: JsonObject) -> CallToolResult {
        self.call("page_find", arguments, find).await
    }
}

async fn find(browsing: &mut Browsing, args: FindArgs) -> Result<CallToolResult, ToolError> {
    let matcher = Matcher::new(&args)?;
    browsing.refuse_while_dialog()?;
    let seen = browsing
        .observe(&Request {
            full_page: Some(true),
            ..Request::default()
        })
        .await?;
    let matches: Vec<Match> = seen
        .observation
        .meta
        .items
        .iter()
        .filter(|item| matcher.matches(&item.name) || matcher.matches(&item.context))
        .map(|item| Match {
            reference: item.reference.clone(),
            role: item.role.clone(),
            name: item.name.clone(),
            in_viewport: item.zone != Zone::Offscreen,
            zone: item.zone,
            context: item.context.clone(),
        })
        .collect();
    let lines: Vec<String> = matches
        .iter()
        .map(|m| {
            format!(
                "- {} {:?} [ref={}]{}{}",
                m.role,
                m.name,
                m.reference,
                if m.in_viewport { "" } else { " (off screen)" },
                if m.context.is_empty() {
                    String::new()
                } else {
                    format!(" — {}", m.context)
                }
            )
        })
        .collect();
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
    let found = FindAnswer {
        matches,
        snapshot_id: seen.observation.meta.snapshot_id,
    };
    let mut structured = serde_json::to_value(&found).unwrap_or_else(|_| json!({}));
    browsing.config().secrets.mask_json(&mut structured);
    let mut result = CallToolResult::success(vec![ContentBlock::text(browsing.mask(&text))]);
    result.structured_content = Some(structured);
    Ok(result)
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
