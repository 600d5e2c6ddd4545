//! The redaction audit over saved pages: every value any strategy hides, by kind and place, judged against a hand-labelled list (secret or not) so that precision is measured and a change in what is hidden is reviewed.
//!
//! Pages are `.html` files read without a browser (every text a page holds,
//! hidden or not, so the list covers what any capture of it can show) or
//! recordings (`.json.gz`, with their screenshot for `som`). Each page is
//! observed by every built-in strategy, at its default scope and full page,
//! with default options, inside [`redact::audit`]; the values hidden are
//! kept once per page, kind, place and original text.
//!
//! The labelled list is a TSV file (`page kind place label original reason`,
//! one hidden value per line, `\t`, `\n` and `\\` escaped in the text
//! columns); `label` is `secret` or `not_secret`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, bail};
use pagesnap_engine::analyze::Analyzed;
use pagesnap_engine::page::Page;
use pagesnap_engine::passes::redact::{self, Kind, Place};
use pagesnap_engine::strategy::{Options, STRATEGIES};

use crate::{observe, store};

/// One value hidden on one page (whatever strategies hid it).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Finding {
    /// The page, as named under its input folder (`readability/aclu.html`).
    pub page: String,
    /// Why it was hidden.
    pub kind: Kind,
    /// Where it sat.
    pub place: Place,
    /// The text `[redacted]` replaced.
    pub original: String,
}

impl std::fmt::Display for Finding {
    /// `page kind place "original"`, as `--check` names a finding.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {} {} {:?}",
            self.page,
            self.kind.name(),
            self.place.name(),
            self.original
        )
    }
}

/// What the audit of a set of pages found.
#[derive(Debug, Default)]
pub struct Audit {
    /// Pages read.
    pub pages: usize,
    /// Per strategy: redactions its observations counted (`counts.redacted`)
    /// at its default scope, summed over the pages.
    pub counted: BTreeMap<&'static str, usize>,
    /// Every distinct value hidden.
    pub findings: BTreeSet<Finding>,
}

/// Audits every page under `inputs` (`.html` files, recordings, or folders
/// of either), pages in parallel.
pub fn audit(inputs: &[PathBuf]) -> Result<Audit> {
    use rayon::prelude::*;
    let pages = pages(inputs)?;
    let audited: Vec<Audit> = pages
        .par_iter()
        .map(|(key, path)| audit_page(key, path))
        .collect::<Result<_>>()?;
    let mut out = Audit::default();
    for page in audited {
        out.pages += page.pages;
        for (strategy, n) in page.counted {
            *out.counted.entry(strategy).or_default() += n;
        }
        out.findings.extend(page.findings);
    }
    Ok(out)
}

/// [`audit`] of one page, named `key`.
fn audit_page(key: &str, path: &Path) -> Result<Audit> {
    let mut out = Audit::default();
    let (page, screenshot) = load(path)?;
    let analyzed = Analyzed::new(page);
    out.pages = 1;
    for strategy in STRATEGIES {
        if strategy.name() == "som" && screenshot.is_none() {
            continue;
        }
        for full_page in [None, Some(true)] {
            let options = Options {
                full_page,
                screenshot: screenshot.as_deref(),
                ..Options::default()
            };
            // The audit sees what this thread's observations hide.
            let (rendered, hidden) =
                redact::audit(|| observe::render(&analyzed, *strategy, &options));
            let observation = rendered
                .observation
                .with_context(|| format!("{}: {}", path.display(), strategy.name()))?;
            if full_page.is_none() {
                *out.counted.entry(strategy.name()).or_default() +=
                    observation.meta.counts.redacted;
            }
            out.findings.extend(hidden.into_iter().map(|h| Finding {
                page: key.to_owned(),
                kind: h.kind,
                place: h.place,
                original: h.original,
            }));
        }
    }
    Ok(out)
}

/// The pages under `inputs`, each with its name: a folder's files are
/// named by their path under it, a file by its file name.
fn pages(inputs: &[PathBuf]) -> Result<Vec<(String, PathBuf)>> {
    let is_page = |p: &Path| {
        let name = p.to_string_lossy();
        name.ends_with(".html") || name.ends_with(".json.gz")
    };
    let mut out = Vec::new();
    for input in inputs {
        if input.is_dir() {
            for path in store::walk_files(input, &is_page)? {
                let key = path.strip_prefix(input).unwrap_or(&path);
                out.push((key.to_string_lossy().into_owned(), path));
            }
        } else if input.is_file() && is_page(input) {
            let key = input.file_name().unwrap_or(input.as_os_str());
            out.push((key.to_string_lossy().into_owned(), input.clone()));
        } else if input.exists() {
            bail!(
                "{}: not an .html page or a .json.gz recording",
                input.display()
            );
        } else {
            bail!("{}: no such file or directory", input.display());
        }
    }
    Ok(out)
}

/// A page and, for a recording with one, its screenshot.
fn load(path: &Path) -> Result<(Page, Option<Vec<u8>>)> {
    if path.to_string_lossy().ends_with(".json.gz") {
        let recording = store::read(path)?;
        return Ok((Page::from_recording(&recording), store::screenshot_of(path)));
    }
    let bytes =
        std::fs::read(path).with_context(|| format!("could not read {}", path.display()))?;
    Ok((Page::from_html(&String::from_utf8_lossy(&bytes)), None))
}

/// A hand label.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Label {
    /// A credential or personal secret: right to hide.
    Secret,
    /// Not secret: hiding it costs the agent what it says.
    NotSecret,
}

impl Label {
    fn parse(word: &str) -> Option<Label> {
        match word {
            "secret" => Some(Label::Secret),
            "not_secret" => Some(Label::NotSecret),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Label::Secret => "secret",
            Label::NotSecret => "not_secret",
        }
    }
}

/// A labelled list: each finding's label and the reason given for it.
pub type Labels = BTreeMap<Finding, (Label, String)>;

/// The TSV header of a labelled list.
const HEADER: &str = "page\tkind\tplace\tlabel\toriginal\treason";

/// Reads a labelled list, naming the file, line and field of anything wrong.
pub fn read_labels(path: &Path) -> Result<Labels> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("could not read the labels {}", path.display()))?;
    let mut out = Labels::new();
    for (n, line) in text.lines().enumerate().skip(1) {
        if line.is_empty() {
            continue;
        }
        let at = || format!("{} line {}", path.display(), n + 1);
        let fields: Vec<&str> = line.split('\t').collect();
        let [page, kind, place, label, original, reason] = fields[..] else {
            bail!("{}: {} fields, expected 6 ({HEADER})", at(), fields.len());
        };
        let kind = Kind::ALL
            .into_iter()
            .find(|k| k.name() == kind)
            .with_context(|| format!("{}: kind {kind:?} is none of pagesnap's", at()))?;
        let place = PLACES
            .into_iter()
            .find(|p| p.name() == place)
            .with_context(|| format!("{}: place {place:?} is none of pagesnap's", at()))?;
        let label = Label::parse(label)
            .with_context(|| format!("{}: label {label:?} (secret or not_secret)", at()))?;
        let finding = Finding {
            page: page.to_owned(),
            kind,
            place,
            original: unescape(original),
        };
        if out.insert(finding, (label, unescape(reason))).is_some() {
            bail!("{}: listed twice", at());
        }
    }
    Ok(out)
}

/// Every place, for reading them back.
const PLACES: [Place; 9] = [
    Place::UrlUserinfo,
    Place::UrlPath,
    Place::UrlQuery,
    Place::Value,
    Place::Name,
    Place::Text,
    Place::Attribute,
    Place::Field,
    Place::Code,
];

/// The labelled list of `findings`: labels and reasons from `labels` where
/// it has them, `?` where not (a new finding to label by hand).
pub fn write_labels(findings: &BTreeSet<Finding>, labels: &Labels) -> String {
    let mut out = format!("{HEADER}\n");
    for finding in findings {
        let (label, reason) = labels
            .get(finding)
            .map_or(("?", ""), |(label, reason)| (label.name(), reason.as_str()));
        let _ = writeln!(
            out,
            "{}\t{}\t{}\t{label}\t{}\t{}",
            escape(&finding.page),
            finding.kind.name(),
            finding.place.name(),
            escape(&finding.original),
            escape(reason),
        );
    }
    out
}

fn escape(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('\t', "\\t")
        .replace('\n', "\\n")
        .replace('\r', "\\r")
}

fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// How the audit compares with a labelled list.
#[derive(Debug, Default)]
pub struct Judged {
    /// Per kind: hidden values labelled secret, not secret, and unlabelled.
    pub by_kind: BTreeMap<Kind, [usize; 3]>,
    /// Hidden values the list does not hold.
    pub new: Vec<Finding>,
    /// Listed values no longer hidden.
    pub gone: Vec<Finding>,
}

/// Judges the audit's findings against the labelled list.
pub fn judge(audit: &Audit, labels: &Labels) -> Judged {
    let mut out = Judged::default();
    for finding in &audit.findings {
        let column = match labels.get(finding) {
            Some((Label::Secret, _)) => 0,
            Some((Label::NotSecret, _)) => 1,
            None => {
                out.new.push(finding.clone());
                2
            }
        };
        out.by_kind.entry(finding.kind).or_default()[column] += 1;
    }
    out.gone = labels
        .keys()
        .filter(|f| !audit.findings.contains(f))
        .cloned()
        .collect();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_labelled_list_reads_back_what_was_written() {
        let finding = Finding {
            page: "a/b.html".to_owned(),
            kind: Kind::PrivateKey,
            place: Place::Text,
            original: "-----BEGIN PRIVATE KEY-----\n\tAb\\c".to_owned(),
        };
        let mut labels = Labels::new();
        labels.insert(finding.clone(), (Label::Secret, "a PEM key".to_owned()));
        let text = write_labels(&BTreeSet::from([finding]), &labels);
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("labels.tsv");
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read_labels(&path).unwrap_or_else(|e| panic!("{e}")), labels);
    }

    #[test]
    fn a_bad_label_names_the_file_line_and_value() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("labels.tsv");
        std::fs::write(&path, format!("{HEADER}\np\tjwt\ttext\tmaybe\tx\ty\n"))
            .unwrap_or_else(|e| panic!("{e}"));
        let err = read_labels(&path).map(|_| ()).unwrap_err().to_string();
        assert!(
            err.contains("labels.tsv line 2") && err.contains("\"maybe\""),
            "{err}"
        );
    }
}
