//! The `steps/` folder of a run: per judged step, one self-contained HTML page with what the agent saw and did — observation, prompt, raw reply, parsed action, verdict — linked from `report.html`.
//!
//! Pages live at `steps/<task>/<strategy>/step-<n>.html` (path parts
//! reduced to `[A-Za-z0-9._@-]`, anything else `_`), with the `som`
//! screenshot beside them as `step-<n>.png`. Every string is HTML-escaped:
//! page text, suite text and model output are data here, never markup. The
//! observation is the redacted one the agent read, so secrets stay out.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use pagesnap_engine::observation::Observation;

use super::escape::html;
use crate::agent::backend::{ChatRequest, Part};
use crate::results::Row;

/// The folder, inside a run's output folder.
pub const DIR: &str = "steps";

/// What one step's page shows besides its row.
pub struct Artefact<'a> {
    /// The task's instruction.
    pub instruction: &'a str,
    /// The observation the agent read (none: the strategy could not render one).
    pub observation: Option<&'a Observation>,
    /// The request a model agent was sent (none: the agent sends no prompt).
    pub prompt: Option<&'a ChatRequest>,
    /// Steps in the task (for the next link).
    pub steps: usize,
}

/// A path part as written on disk: `[A-Za-z0-9._@-]` kept, anything else
/// `_`; never empty, never `.` or `..`.
fn part(text: &str) -> String {
    let out: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '@' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    match out.as_str() {
        "" | "." | ".." => format!("_{out}"),
        _ => out,
    }
}

/// The page of step `step` of `task` under `strategy`, relative to the run folder.
pub fn relative(task: &str, strategy: &str, step: usize) -> String {
    format!("{DIR}/{}/{}/step-{step}.html", part(task), part(strategy))
}

/// Writes the page of `row`'s step (and its screenshot) under `out`.
pub fn write(out: &Path, row: &Row, artefact: &Artefact<'_>) -> Result<()> {
    let page: PathBuf = out.join(relative(&row.task, &row.strategy, row.step));
    let dir = page.parent().unwrap_or(out);
    std::fs::create_dir_all(dir).with_context(|| format!("could not create {}", dir.display()))?;
    let image = match artefact.observation.and_then(|o| o.image.as_ref()) {
        Some(image) => {
            let png = page.with_extension("png");
            std::fs::write(&png, &image.png)
                .with_context(|| format!("could not write {}", png.display()))?;
            Some(format!("step-{}.png", row.step))
        }
        None => None,
    };
    std::fs::write(&page, render(row, artefact, image.as_deref()))
        .with_context(|| format!("could not write {}", page.display()))
}

fn render(row: &Row, artefact: &Artefact<'_>, image: Option<&str>) -> String {
    let mut out = String::new();
    let verdict = if row.success { "pass" } else { "fail" };
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src 'self'; style-src 'unsafe-inline'\">\
         <title>{task} · {strategy} · step {step} ({verdict})</title>\
         <style>body{{font:14px system-ui,sans-serif;margin:24px;max-width:1100px;color:#1d2330}}\
         pre{{background:#f5f7fa;border:1px solid #e3e7ee;padding:10px;white-space:pre-wrap;word-break:break-word}}\
         table{{border-collapse:collapse}}td,th{{border:1px solid #e3e7ee;padding:3px 8px;text-align:left;vertical-align:top}}\
         .pass{{color:#17803d}}.fail{{color:#b42318}}img{{max-width:100%;border:1px solid #e3e7ee}}</style></head><body>\n",
        task = html(&row.task),
        strategy = html(&row.strategy),
        step = row.step,
    );
    let _ = writeln!(
        out,
        "<p><a href=\"../../../report.html\">report</a>{prev}{next}</p>\
         <h1>{task} · {strategy} · step {step} of {steps} <span class=\"{verdict}\">{verdict}</span></h1>",
        prev = if row.step > 1 {
            format!(
                " · <a href=\"step-{}.html\">previous step</a>",
                row.step - 1
            )
        } else {
            String::new()
        },
        next = if row.step < artefact.steps {
            format!(" · <a href=\"step-{}.html\">next step</a>", row.step + 1)
        } else {
            String::new()
        },
        task = html(&row.task),
        strategy = html(&row.strategy),
        step = row.step,
        steps = artefact.steps,
    );
    let _ = writeln!(
        out,
        "<table id=\"verdict\"><tr><th>instruction</th><td>{}</td></tr>\
         <tr><th>expected</th><td>{}</td></tr><tr><th>got</th><td>{}</td></tr>\
         <tr><th>target had a ref</th><td>{}</td></tr><tr><th>error</th><td>{}</td></tr>\
         <tr><th>LLM judge</th><td>{}</td></tr></table>",
        html(artefact.instruction),
        html(&super::format::expected(row)),
        html(&super::format::got(row)),
        row.target_recall
            .map_or("—", |r| if r { "yes" } else { "no" }),
        html(row.error.as_deref().unwrap_or("")),
        html(&match (row.judge, &row.judge_reason) {
            (Some(verdict), Some(reason)) => format!("{verdict}: {reason}"),
            (Some(verdict), None) => verdict.to_string(),
            _ => "—".to_owned(),
        }),
    );
    match artefact.observation {
        Some(observation) => {
            let _ = writeln!(
                out,
                "<h2>Observation ({} refs, {} tokens o200k)</h2>\n<pre id=\"observation\">{}</pre>",
                row.refs,
                row.obs_tokens_o200k,
                html(&observation.text)
            );
        }
        None => out.push_str("<h2>Observation</h2>\n<p>None: the strategy could not render this page (see error).</p>\n"),
    }
    if let Some(image) = image {
        let _ = writeln!(
            out,
            "<p><img id=\"screenshot\" src=\"{}\" alt=\"the marked screenshot the agent saw\"></p>",
            html(image)
        );
    }
    match artefact.prompt {
        Some(prompt) => {
            let user: Vec<String> = prompt
                .user
                .iter()
                .map(|part| match part {
                    Part::Text { text } => text.clone(),
                    Part::Png { .. } => "[the screenshot above, as an image part]".to_owned(),
                })
                .collect();
            let _ = writeln!(
                out,
                "<h2>Prompt</h2>\n<h3>System</h3>\n<pre id=\"system\">{}</pre>\n<h3>User</h3>\n<pre id=\"user\">{}</pre>",
                html(&prompt.system),
                html(&user.join("\n\n"))
            );
        }
        None => out.push_str(
            "<h2>Prompt</h2>\n<p>This agent sends no prompt: it ranks the refs below by their metadata.</p>\n",
        ),
    }
    let _ = writeln!(
        out,
        "<h2>Reply</h2>\n<pre id=\"raw\">{}</pre>\n<h2>Refs ({})</h2>\n<table id=\"refs\">\
         <tr><th>ref</th><th>role</th><th>name</th><th>zone</th><th>nearby text</th></tr>",
        html(&row.raw),
        artefact.observation.map_or(0, |o| o.meta.items.len())
    );
    for item in artefact.observation.iter().flat_map(|o| &o.meta.items) {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            html(&item.reference),
            html(&item.role),
            html(&item.name),
            html(item.zone.as_str()),
            html(&item.context)
        );
    }
    out.push_str("</table>\n</body></html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_parts_cannot_leave_the_folder() {
        assert_eq!(
            relative("../x", "aria@2000", 3),
            "steps/.._x/aria@2000/step-3.html"
        );
        assert_eq!(relative("..", "a/b", 1), "steps/_../a_b/step-1.html");
        assert_eq!(relative("", "<img>", 1), "steps/_/_img_/step-1.html");
    }
}
