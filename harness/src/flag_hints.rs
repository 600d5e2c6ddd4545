//! Browser errors with the CLI flags that change them named: the browser crate words its time limit, its wait and its network without the options that set them (`record`, `snapshot` and `live`'s error rows add them here).

use pagesnap_browser::TabError;

/// `err` with the flags that change it named, when a flag does.
pub fn with_flags(err: impl Into<anyhow::Error>) -> anyhow::Error {
    let err = err.into();
    let browser = err.downcast_ref::<pagesnap_browser::Error>();
    let tab = browser
        .and_then(pagesnap_browser::Error::tab)
        .or_else(|| err.downcast_ref::<TabError>());
    let flags = match (browser, tab) {
        (
            _,
            Some(
                TabError::NeverLoaded { .. }
                | TabError::OverLimit { .. }
                | TabError::NoAnswer { .. }
                | TabError::KeptNavigating { .. },
            ),
        ) => "--timeout sets the limit",
        (_, Some(TabError::WaitTooLong { .. })) => "--wait-for sets the wait, --timeout the limit",
        (Some(pagesnap_browser::Error::NeverMatched { .. }), _) => {
            "--wait-for sets the selector, --timeout the limit"
        }
        (_, Some(TabError::LoadFailed { offline: true, .. })) => {
            "--network lets pages reach the network: recordings are offline by default"
        }
        _ => return err,
    };
    anyhow::anyhow!("{err:#} ({flags})")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flags_that_change_an_error_are_named_and_others_left_alone() {
        let limit = pagesnap_browser::Error::from(TabError::NeverLoaded {
            url: "http://x/".to_owned(),
            limit: std::time::Duration::from_secs(2),
        });
        let named = with_flags(limit).to_string();
        assert!(named.ends_with("(--timeout sets the limit)"), "{named}");
        let offline = TabError::LoadFailed {
            url: "http://x/".to_owned(),
            error: "net::ERR_NAME_NOT_RESOLVED".to_owned(),
            offline: true,
        };
        assert!(
            with_flags(offline)
                .to_string()
                .contains("--network lets pages")
        );
        let never = pagesnap_browser::Error::NeverMatched {
            url: "http://x/".to_owned(),
            selector: "#go".to_owned(),
            limit: std::time::Duration::from_secs(3),
        };
        assert!(
            with_flags(never)
                .to_string()
                .contains("--wait-for sets the selector")
        );
        let other = pagesnap_browser::Error::NoTab {
            id: "A1".to_owned(),
        };
        assert_eq!(with_flags(other).to_string(), "no tab with id \"A1\"");
    }
}
