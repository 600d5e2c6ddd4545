//! `bench-hidden` on the hidden-text page family (issue 56), pagesnap's strategies only: one row per strategy and scope whose counts add up, no hidden token reaching any of them, and the visible tokens each strategy loses written down.

use std::collections::{BTreeMap, BTreeSet};

use pagesnap_harness::bench::hidden::{Family, Markers};
use serde_json::Value;

use crate::support::{pagesnap, root, stderr, stdout};

/// The strategies and scopes, in the order the rows come.
const ROWS: [(&str, &str); 10] = [
    ("flat", "viewport"),
    ("flat", "full-page"),
    ("aria", "viewport"),
    ("aria", "full-page"),
    ("structural", "viewport"),
    ("structural", "full-page"),
    ("som", "viewport"),
    ("som", "full-page"),
    ("html-pruned", "viewport"),
    ("html-pruned", "full-page"),
];

/// Visible tokens each row does not show — findings, not wishes (measured
/// 2026-11-29; docs/security.md); a row not listed loses none:
/// - `VM-below-fold`, a `content-visibility: auto` section far down the
///   page, whose contents Chromium does not lay out while off screen (no
///   boxes, no styles): shown by flat's, aria's and html-pruned's whole page
///   since the capture records `content-visibility` (2026-11-29; before, no
///   full-page text had it); structural's text is its viewport's zones.
/// - `som`'s text is its legend of controls; the page's prose is in its
///   image, so every visible token but the controls' is missing from the
///   text (see [`SOM_SHOWS`]).
///
/// `VM-skip-link`, a skip link at `left: -9999px` until focused (its box is
/// `HT-left-9999`'s until a keyboard user tabs to it), was lost in every row
/// until the capture read `:focus` rules (2026-11-29); it is shown in all,
/// and so is `VM-skip-clipped`, clipped to 1×1 while not focused.
const LOST: [(&str, &str, &[&str]); 1] = [("structural", "full-page", &["VM-below-fold"])];

/// The visible tokens `som`'s legend shows, at both scopes: the controls'.
const SOM_SHOWS: [&str; 10] = [
    "VM-skip-link",
    "VM-skip-clipped",
    "VM-link",
    "VM-close-label",
    "VM-field",
    "VM-button",
    "VM-track-link",
    "VM-frame-button",
    "VM-cross-frame-button",
    "VM-shadow-button",
];

fn count(value: &Value, key: &str) -> usize {
    usize::try_from(
        value[key]
            .as_u64()
            .unwrap_or_else(|| panic!("{key}: {value}")),
    )
    .unwrap()
}

/// The tokens of `row` with `outcome`.
fn with_outcome<'a>(row: &'a Value, outcome: &str) -> BTreeSet<&'a str> {
    row["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["outcome"] == outcome)
        .map(|t| t["token"].as_str().unwrap())
        .collect()
}

#[test]
fn bench_hidden_counts_every_token_per_strategy_and_scope() {
    let folder = root().join("fixtures/sites/hidden_text");
    let markers = Markers::load(&folder).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("hidden.json");
    let started = std::time::Instant::now();
    let output = pagesnap(&[
        "bench-hidden",
        "fixtures/sites/hidden_text",
        "--no-servers",
        "--json",
        json.to_str().unwrap(),
    ]);
    let took = started.elapsed();
    assert!(
        output.status.success(),
        "bench-hidden failed:\n{}\n{}",
        stdout(&output),
        stderr(&output)
    );
    assert!(
        took.as_secs() < 20,
        "bench-hidden took {took:?} on four pages"
    );
    let table = stdout(&output);
    assert!(table.contains("hidden reached"), "{table}");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(
        report["pages"],
        serde_json::json!(["index.html", "frames.html", "cross.html", "shadow.html"])
    );

    let visible: BTreeSet<&str> = markers
        .markers
        .iter()
        .filter(|m| m.visible)
        .map(|m| m.token.as_str())
        .collect();
    let hidden: BTreeSet<&str> = markers
        .markers
        .iter()
        .filter(|m| !m.visible)
        .map(|m| m.token.as_str())
        .collect();
    let hidden_families: BTreeMap<&str, usize> = Family::HIDDEN
        .iter()
        .map(|f| {
            let n = markers.markers.iter().filter(|m| m.family == *f).count();
            (f.name(), n)
        })
        .collect();

    let rows = report["rows"].as_array().unwrap();
    let named: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["observer"].as_str().unwrap(),
                r["scope"].as_str().unwrap(),
            )
        })
        .collect();
    // One row per strategy and scope; the raw `html` baseline is left out.
    assert_eq!(named, ROWS, "{report}");
    for row in rows {
        let label = format!("{} {}", row["observer"], row["scope"]);
        assert_eq!(row["kind"], "strategy", "{label}");
        assert_eq!(row["status"], "measured", "{label}");
        assert!(row.get("errors").is_none(), "{label}: {}", row["errors"]);
        // Every token, once, in markers.toml order.
        let tokens: Vec<&str> = row["tokens"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["token"].as_str().unwrap())
            .collect();
        let declared: Vec<&str> = markers.markers.iter().map(|m| m.token.as_str()).collect();
        assert_eq!(tokens, declared, "{label}");
        // Hidden tokens are reported one by one, reached or withheld — and
        // none reaches any strategy (issue 56: every family, in the main
        // document, same-origin and cross-site frames and shadow roots).
        let reached = with_outcome(row, "reached");
        let withheld = with_outcome(row, "withheld");
        assert_eq!(
            reached.union(&withheld).copied().collect::<BTreeSet<_>>(),
            hidden,
            "{label}"
        );
        assert!(
            reached.is_empty(),
            "{label}: hidden text reached the agent: {reached:?}"
        );
        // Visible tokens are shown, lost, or below the first viewport in a
        // viewport's text.
        let shown = with_outcome(row, "shown");
        let lost = with_outcome(row, "lost");
        let below = with_outcome(row, "out-of-view");
        assert_eq!(
            shown.len() + lost.len() + below.len(),
            visible.len(),
            "{label}"
        );
        if row["scope"] == "full-page" {
            assert!(below.is_empty(), "{label}: {below:?}");
        } else {
            assert!(
                below.is_subset(&BTreeSet::from(["VM-below-fold"])),
                "{label}"
            );
        }

        // The counts add up, and are the tokens' outcomes counted.
        let counts = &row["counts"];
        let v = &counts["visible"];
        assert_eq!(count(v, "total"), visible.len(), "{label}");
        assert_eq!(
            count(v, "shown")
                + count(v, "lost")
                + count(v, "out_of_view")
                + count(v, "not_measured"),
            count(v, "total"),
            "{label}"
        );
        assert_eq!(
            (count(v, "shown"), count(v, "lost"), count(v, "out_of_view")),
            (shown.len(), lost.len(), below.len()),
            "{label}"
        );
        let h = &counts["hidden"];
        assert_eq!(count(h, "total"), hidden.len(), "{label}");
        assert_eq!(
            count(h, "reached") + count(h, "withheld") + count(h, "not_measured"),
            count(h, "total"),
            "{label}"
        );
        assert_eq!(count(h, "reached"), reached.len(), "{label}");
        let by_family = counts["hidden_by_family"].as_object().unwrap();
        assert_eq!(
            by_family.keys().map(String::as_str).collect::<Vec<_>>(),
            hidden_families.keys().copied().collect::<Vec<_>>(),
            "{label}"
        );
        for (family, total) in &hidden_families {
            assert_eq!(
                count(&by_family[*family], "total"),
                *total,
                "{label} {family}"
            );
        }
        for key in ["reached", "withheld", "total"] {
            let sum: usize = by_family.values().map(|f| count(f, key)).sum();
            assert_eq!(sum, count(h, key), "{label}: {key} by family");
        }

        // What each strategy shows of the visible tokens.
        let (observer, scope) = (
            row["observer"].as_str().unwrap(),
            row["scope"].as_str().unwrap(),
        );
        if observer == "som" {
            assert_eq!(shown, BTreeSet::from(SOM_SHOWS), "{label}");
            continue;
        }
        let expected: BTreeSet<&str> = LOST
            .iter()
            .find(|(o, s, _)| *o == observer && *s == scope)
            .map(|(_, _, lost)| lost.iter().copied().collect())
            .unwrap_or_default();
        assert_eq!(lost, expected, "{label}: visible tokens lost");
    }
}

/// `bench-paint` asks Chromium whether each withheld run paints: on the
/// hidden-text family's main page every hidden sentence the engine withholds
/// for being transparent, clipped, of no area, unpainted or covered changes
/// no pixel when hidden, the near-white and 1 px ones do (their glyphs paint,
/// unreadably: withheld by the legibility thresholds, which the oracle cannot
/// judge), no visible look-alike is withheld (the skip link off screen until
/// focused is shown: focusing it puts it on screen),
/// and every control — a visible run in the viewport — paints, so an oracle
/// that saw nothing would fail.
#[test]
fn bench_paint_asks_the_browser_whether_withheld_text_paints() {
    let output = pagesnap(&[
        "bench-paint",
        "fixtures/sites/hidden_text/index.html",
        "--json",
    ]);
    assert!(
        output.status.success(),
        "bench-paint failed:\n{}\n{}",
        stdout(&output),
        stderr(&output)
    );
    let lines: Vec<Value> = stdout(&output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let (page, summary) = (&lines[0], &lines[1]);
    let checked = page["checked"].as_array().unwrap();
    assert!(checked.len() >= 10, "{page:#}");
    let token = |run: &Value| {
        run["text"]
            .as_str()
            .unwrap()
            .split_whitespace()
            .find(|word| word.starts_with("HT-") || word.starts_with("VM-"))
            .map(|word| word.trim_end_matches([':', '.', ',']).to_owned())
    };
    let mut painted = BTreeSet::new();
    for run in checked {
        let token = token(run).unwrap_or_default();
        if run["paints"] == "yes" {
            painted.insert(token);
        } else {
            assert!(
                ["no", "no-box"].contains(&run["paints"].as_str().unwrap()),
                "{run}"
            );
        }
    }
    assert_eq!(
        painted,
        BTreeSet::from(["HT-font-size-1px".to_owned(), "HT-near-white".to_owned()]),
        "{page:#}"
    );
    let controls = page["controls"].as_array().unwrap();
    assert_eq!(controls.len(), 10, "{page:#}");
    assert!(
        controls.iter().all(|run| run["paints"] == "yes"),
        "{page:#}"
    );
    assert_eq!(summary["visible_withheld"], 2, "{summary}");
    assert_eq!(summary["controls_painted"], 10, "{summary}");
}
