//! The `aria` strategy against Playwright's own `ariaSnapshot()`: line agreement per fixture site.
//!
//! For every fixture site's initial recording (no scroll, no steps, per
//! `fixtures/manifest.toml`), Playwright (`scripts/playwright/aria-snapshot.mjs`,
//! playwright-core driving Debian's Chromium) snapshots the same HTML file and
//! `pagesnap snapshot --strategy aria --full-page --no-redact --show-hidden`
//! renders the recording: Playwright's snapshot holds what the accessibility
//! tree holds, text no person can see included, so pagesnap shows it too
//! (by default it withholds it; issue 56). Our extras (`[ref=…]`, `[active]`,
//! `[obscured]`, `[new]`, `# ` comments) are stripped, lines are normalised (trimmed, spaces collapsed),
//! and the multiset overlap is divided by Playwright's line count (and, for
//! information, by ours). Row names are dropped on both sides (see
//! [`drop_row_name`]; the raw figure is reported too). The per-site table,
//! the overall figure (sum of matches / sum of lines) and the mean over sites
//! go to stdout and `target/playwright-aria-agreement.txt`; overall and mean
//! must both be ≥ 90%.
//!
//! Needs Node.js and npm (`scripts/setup` installs them); playwright-core is
//! installed into `scripts/playwright/node_modules` with `npm ci`.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::support::{install_playwright, require_tool, root};

const MIN_AGREEMENT: f64 = 0.90;

/// The cargo target directory (`CARGO_TARGET_TMPDIR` is `<target>/tmp`).
fn target_dir() -> PathBuf {
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    tmp.parent().map_or(tmp.clone(), Path::to_path_buf)
}

/// An initial recording: `fixtures/<site>/<name>.json.gz` made from `page`.
struct Case {
    site: String,
    recording: PathBuf,
    page: PathBuf,
    wait_for: Option<String>,
}

/// Recordings named `*initial*` with no scroll and no steps.
fn initial_cases(root: &Path) -> Vec<Case> {
    let manifest: toml::Value = std::fs::read_to_string(root.join("fixtures/manifest.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let mut cases = Vec::new();
    for entry in manifest["recording"].as_array().unwrap() {
        let field = |key: &str| entry.get(key).and_then(toml::Value::as_str);
        let (site, name) = (field("site").unwrap(), field("name").unwrap());
        if !name.contains("initial")
            || entry.get("scroll_y").is_some()
            || entry.get("then").is_some()
        {
            continue;
        }
        cases.push(Case {
            site: site.to_owned(),
            recording: PathBuf::from(format!("fixtures/{site}/{name}.json.gz")),
            page: PathBuf::from(format!(
                "fixtures/sites/{site}/{}",
                field("page").unwrap_or("index.html")
            )),
            wait_for: field("wait_for").map(str::to_owned),
        });
    }
    cases
}

/// Runs the Playwright script over every case; returns `<out>/<site>.yaml` per case.
fn playwright_snapshots(root: &Path, cases: &[Case], out: &Path) {
    let input: Vec<serde_json::Value> = cases
        .iter()
        .map(|c| {
            serde_json::json!({
                "path": c.page,
                "name": c.site,
                "wait_for": c.wait_for,
            })
        })
        .collect();
    let command = pagesnap_browser::BrowserCommand::new(false).unwrap();
    let mut child = Command::new("node")
        .env(pagesnap_browser::BrowserCommand::VAR, command.to_json())
        .arg(root.join("scripts/playwright/aria-snapshot.mjs"))
        .arg(out)
        .current_dir(root)
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(serde_json::to_string(&input).unwrap().as_bytes())
        .unwrap();
    let status = child.wait().unwrap();
    assert!(
        status.success(),
        "scripts/playwright/aria-snapshot.mjs failed"
    );
}

fn ours(root: &Path, recording: &Path) -> String {
    let output = Command::new(crate::support::exe())
        .arg("snapshot")
        .arg(recording)
        .args([
            "--strategy",
            "aria",
            "--full-page",
            "--no-redact",
            "--show-hidden",
        ])
        .current_dir(root)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "pagesnap snapshot {} failed: {}",
        recording.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// Our output without the extras Playwright does not print: `# ` comment
/// lines, ` [ref=eN]`, ` [new]`, ` [obscured]`, ` [active]`.
fn strip_extras(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with('#') {
            continue;
        }
        let mut line = line.to_owned();
        for mark in [" [new]", " [obscured]", " [active]"] {
            line = line.replace(mark, "");
        }
        while let Some(start) = line.find(" [ref=e") {
            let end = line[start..]
                .find(']')
                .map_or(line.len(), |e| start + e + 1);
            line.replace_range(start..end, "");
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Trimmed, inner whitespace collapsed, empty lines dropped.
fn normalised_lines(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|l| !l.is_empty())
        .collect()
}

/// `- row "name" [states]:` → `- row [states]:`. Playwright's default mode
/// names every row from its content; Chromium's accessibility tree (which
/// the engine follows and `pagesnap validate` checks) names only rows in a
/// grid, and Playwright's own `mode: 'ai'` snapshot drops such names too, as
/// they repeat the cells printed below. The adjusted figure compares with
/// this difference removed; the raw figure keeps it.
fn drop_row_name(line: &str) -> String {
    let (key, quoted) = match line.strip_prefix("- 'row \"") {
        Some(rest) => (rest.replace("''", "'"), true),
        None => match line.strip_prefix("- row \"") {
            Some(rest) => (rest.to_owned(), false),
            None => return line.to_owned(),
        },
    };
    // Skip the JSON-quoted name.
    let mut chars = key.char_indices();
    let mut end = None;
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '"' => {
                end = Some(i + 1);
                break;
            }
            _ => {}
        }
    }
    let Some(end) = end else {
        return line.to_owned();
    };
    let mut rest = key[end..].to_owned();
    if quoted {
        // `…'` or `…':` closes the single-quoted key.
        rest = rest.replacen('\'', "", 1);
    }
    format!("- row{rest}")
}

/// Size of the multiset intersection.
fn overlap(a: &[String], b: &[String]) -> usize {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for line in a {
        *counts.entry(line).or_default() += 1;
    }
    let mut matched = 0;
    for line in b {
        if let Some(n) = counts.get_mut(line.as_str())
            && *n > 0
        {
            *n -= 1;
            matched += 1;
        }
    }
    matched
}

fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        100.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

#[test]
fn aria_agrees_with_playwright() {
    require_tool("node");
    require_tool("npm");
    let root = root();
    install_playwright(&root.join("scripts/playwright"));
    let cases = initial_cases(&root);
    assert!(
        !cases.is_empty(),
        "no initial recordings in fixtures/manifest.toml"
    );
    let out = target_dir().join("playwright-aria");
    std::fs::create_dir_all(&out).unwrap();
    playwright_snapshots(&root, &cases, &out);

    let mut table = format!(
        "{:<20} {:>6} {:>6} {:>7} {:>8} {:>8} {:>9}\n",
        "site", "pw", "ours", "match", "of pw", "of ours", "raw of pw"
    );
    let (mut total_matched, mut total_pw, mut total_ours, mut total_raw) = (0, 0, 0, 0);
    let mut site_percents = Vec::new();
    let mut raw_site_percents = Vec::new();
    for case in &cases {
        let theirs_text = std::fs::read_to_string(out.join(format!("{}.yaml", case.site))).unwrap();
        let ours_text = strip_extras(&ours(&root, &case.recording));
        std::fs::write(out.join(format!("{}.ours.yaml", case.site)), &ours_text).unwrap();
        let theirs = normalised_lines(&theirs_text);
        let ours = normalised_lines(&ours_text);
        let raw = overlap(&theirs, &ours);
        let theirs: Vec<String> = theirs.iter().map(|l| drop_row_name(l)).collect();
        let ours: Vec<String> = ours.iter().map(|l| drop_row_name(l)).collect();
        let matched = overlap(&theirs, &ours);
        total_matched += matched;
        total_raw += raw;
        total_pw += theirs.len();
        total_ours += ours.len();
        site_percents.push(percent(matched, theirs.len()));
        raw_site_percents.push(percent(raw, theirs.len()));
        writeln!(
            table,
            "{:<20} {:>6} {:>6} {:>7} {:>7.1}% {:>7.1}% {:>8.1}%",
            case.site,
            theirs.len(),
            ours.len(),
            matched,
            percent(matched, theirs.len()),
            percent(matched, ours.len()),
            percent(raw, theirs.len()),
        )
        .unwrap();
    }
    let overall = percent(total_matched, total_pw);
    writeln!(
        table,
        "{:<20} {:>6} {:>6} {:>7} {:>7.2}% {:>7.2}% {:>8.2}%",
        "overall",
        total_pw,
        total_ours,
        total_matched,
        overall,
        percent(total_matched, total_ours),
        percent(total_raw, total_pw),
    )
    .unwrap();
    let mean = site_percents.iter().sum::<f64>() / site_percents.len() as f64;
    let raw_mean = raw_site_percents.iter().sum::<f64>() / raw_site_percents.len() as f64;
    writeln!(
        table,
        "{:<20} {:>36.1}% {:>17.1}%",
        "mean of sites", mean, raw_mean
    )
    .unwrap();
    let playwright = std::fs::read_to_string(
        root.join("scripts/playwright/node_modules/playwright-core/package.json"),
    )
    .ok()
    .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
    .and_then(|v| v["version"].as_str().map(str::to_owned))
    .unwrap_or_default();
    let report = format!(
        "aria vs Playwright {playwright} locator('body').ariaSnapshot(): line agreement \
         (matched lines / Playwright's lines; / ours), row names dropped on both sides \
         (raw: with them)\n{table}\
         snapshots: {}\n",
        out.display()
    );
    print!("{report}");
    std::fs::write(target_dir().join("playwright-aria-agreement.txt"), &report).unwrap();
    assert!(
        overall >= MIN_AGREEMENT * 100.0,
        "overall agreement {overall:.2}% is below {:.0}%",
        MIN_AGREEMENT * 100.0
    );
    // The overall figure is dominated by the 3,000-row data table; the mean
    // over sites keeps the small pages from being drowned out. The raw mean
    // (row names kept, nothing adjusted) is the headline floor.
    assert!(
        raw_mean >= MIN_AGREEMENT * 100.0,
        "raw mean agreement over sites {raw_mean:.1}% is below {:.0}%",
        MIN_AGREEMENT * 100.0
    );
    assert!(
        mean >= MIN_AGREEMENT * 100.0,
        "mean agreement over sites {mean:.1}% is below {:.0}%",
        MIN_AGREEMENT * 100.0
    );
}

#[test]
fn strip_extras_removes_our_marks_only() {
    let text = "# Page position: 0 viewports above, 0 below.\n\
                - button \"Go\" [disabled] [ref=e12] [new] [obscured]\n\
                - textbox \"Q\" [active] [ref=e3]: x\n";
    assert_eq!(
        strip_extras(text),
        "- button \"Go\" [disabled]\n- textbox \"Q\": x\n"
    );
    assert_eq!(
        drop_row_name("- row \"A \\\" B\" [selected]:"),
        "- row [selected]:"
    );
    assert_eq!(drop_row_name("- 'row \"It''s: 1\"':"), "- row:");
    assert_eq!(drop_row_name("- row \"x\""), "- row");
    assert_eq!(drop_row_name("- rowheader \"x\""), "- rowheader \"x\"");
    let a = normalised_lines("- a\n  - b\n- b\n");
    let b = normalised_lines("- b\n- c\n");
    assert_eq!(overlap(&a, &b), 1);
}
