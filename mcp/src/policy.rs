//! What the tool server decides without a browser: which URLs a tab may open, what changed between two observations of a page, which tabs are Chromium's own, and the hint an offline server's failed load carries.

use std::collections::BTreeSet;

use pagesnap_browser::TabError;
use pagesnap_engine::observation::Item;

use crate::answer::Changes;
use crate::error::{Kind, ToolError};

/// Refuses a URL the server does not open: only `http://`, `https://` and
/// `about:blank`, and `file://` when `allow_file_urls` (a page on disk can
/// read other files of the user's through the agent).
pub(crate) fn check_url(url: &str, allow_file_urls: bool) -> Result<(), ToolError> {
    let lower = url.trim().to_ascii_lowercase();
    let allowed = lower.starts_with("http://")
        || lower.starts_with("https://")
        || lower == "about:blank"
        || (allow_file_urls && lower.starts_with("file://"));
    if allowed {
        return Ok(());
    }
    Err(ToolError::new(
        Kind::RefusedUrl,
        format!(
            "refused URL {url:?}: only http:// and https:// URLs (and about:blank) are opened{}",
            if allow_file_urls {
                ", and file:// URLs"
            } else {
                " (file:// needs the server's --allow-file-urls)"
            }
        ),
    ))
}

/// Why a name did not resolve, when the server is offline by choice
/// (`network` false): said after the browser's own error.
pub(crate) fn offline_hint(err: &pagesnap_browser::Error, network: bool) -> &'static str {
    let unresolved = matches!(
        err.tab(),
        Some(TabError::LoadFailed { error, .. }) if error.contains("ERR_NAME_NOT_RESOLVED")
    );
    if !network && unresolved {
        " (this server was started with --offline: only 127.0.0.1 and localhost resolve; \
         start it without --offline to reach the web)"
    } else {
        ""
    }
}

/// What changed between the observation before an action and `after`: refs
/// marked new, and refs whose element left the page — not those only
/// scrolled out of view, which `present` (every node on the page after) still holds.
pub(crate) fn changes(before: Option<&[Item]>, after: &[Item], present: &BTreeSet<u64>) -> Changes {
    let new = after
        .iter()
        .filter(|i| i.new)
        .map(|i| i.reference.clone())
        .collect();
    let removed = before
        .map(|b| {
            b.iter()
                .filter(|i| !present.contains(&i.backend_id))
                .map(|i| i.reference.clone())
                .collect()
        })
        .unwrap_or_default();
    Changes { new, removed }
}

/// Chromium's own new-tab page, which a launched browser starts with: not a
/// page of the agent's.
pub(crate) fn is_browser_page(url: &str) -> bool {
    url.starts_with("chrome://new-tab-page") || url.starts_with("chrome://newtab")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_web_urls_open_and_file_urls_when_allowed() {
        for url in [
            "http://127.0.0.1:8000/a",
            "HTTPS://example.com",
            " about:blank ",
        ] {
            assert!(check_url(url, false).is_ok(), "{url}");
        }
        for url in [
            "file:///etc/passwd",
            "javascript:alert(1)",
            "chrome://settings",
            "ftp://x",
        ] {
            let refused = check_url(url, false).unwrap_err();
            assert_eq!(refused.kind, Kind::RefusedUrl, "{url}");
            assert!(
                refused.message.contains(&format!("{url:?}")),
                "{}",
                refused.message
            );
        }
        assert!(
            check_url("file:///etc/passwd", false)
                .unwrap_err()
                .message
                .contains("--allow-file-urls")
        );
        assert!(check_url("file:///tmp/page.html", true).is_ok());
        assert!(
            check_url("javascript:1", true)
                .unwrap_err()
                .message
                .ends_with(", and file:// URLs")
        );
    }

    fn item(reference: &str, backend_id: u64, new: bool) -> Item {
        Item {
            reference: reference.to_owned(),
            backend_id,
            new,
            ..Item::default()
        }
    }

    #[test]
    fn changes_are_the_new_refs_and_the_elements_that_left_the_page() {
        let before = [
            item("e1", 1, false),
            item("e2", 2, false),
            item("e3", 3, false),
        ];
        let after = [item("e1", 1, false), item("e4", 4, true)];
        // e2's element is still on the page (scrolled out of view); e3's left.
        let present = BTreeSet::from([1, 2, 4]);
        let changes = changes(Some(&before[..]), &after, &present);
        assert_eq!(changes.new, ["e4"]);
        assert_eq!(changes.removed, ["e3"]);
        // A first observation removes nothing.
        assert!(super::changes(None, &after, &present).removed.is_empty());
    }

    #[test]
    fn chromiums_new_tab_page_is_not_the_agents() {
        assert!(is_browser_page("chrome://new-tab-page/"));
        assert!(is_browser_page("chrome://newtab/"));
        assert!(!is_browser_page("about:blank"));
        assert!(!is_browser_page("http://127.0.0.1/chrome://newtab"));
    }
}
