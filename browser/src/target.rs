//! What a target names: a URL as it is, or a local file loaded as a `file://` URL and stored by its path relative to the working directory.

use std::path::Path;

use crate::error::{Error, Result};

/// The blank page a tab starts on, before its first page.
pub(crate) const BLANK: &str = "about:blank";

/// Turns a CLI target into the URL to load and the URL to store. Local files
/// are stored relative to the working directory (`file:fixtures/sites/…`) so
/// recordings do not depend on where the repository was cloned.
pub(crate) fn resolve_target(target: &str) -> Result<(String, String)> {
    if target.contains("://") || target.starts_with("about:") || target.starts_with("data:") {
        return Ok((target.to_owned(), target.to_owned()));
    }
    let path = Path::new(target);
    let absolute = path.canonicalize().map_err(|source| Error::NotAPage {
        target: target.to_owned(),
        source,
    })?;
    let url = format!("file://{}", absolute.display());
    let display = display_url(&url);
    Ok((url, display))
}

/// How a URL is stored: a `file://` URL of a file under the working
/// directory as `file:<relative path>`, anything else as it is.
pub fn display_url(url: &str) -> String {
    let Some(path) = url.strip_prefix("file://") else {
        return url.to_owned();
    };
    // Chromium percent-encodes the path (`my%20page.html`); the target as
    // given was not.
    let path = percent_decoded(path);
    std::env::current_dir()
        .ok()
        .and_then(|cwd| cwd.canonicalize().ok())
        .and_then(|cwd| {
            Path::new(&path)
                .strip_prefix(cwd)
                .ok()
                .map(Path::to_path_buf)
        })
        .map_or_else(|| url.to_owned(), |rel| format!("file:{}", rel.display()))
}

/// `%XX` escapes decoded; a malformed escape or non-UTF-8 result is kept as it was.
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_escapes_are_decoded_and_malformed_ones_kept() {
        assert_eq!(percent_decoded("/tmp/my%20page.html"), "/tmp/my page.html");
        assert_eq!(percent_decoded("caf%C3%A9"), "café");
        assert_eq!(percent_decoded("100%"), "100%");
        assert_eq!(percent_decoded("%zz%2"), "%zz%2");
        // A decoded byte sequence that is not UTF-8 leaves the text as it was.
        assert_eq!(percent_decoded("%FF%FE"), "%FF%FE");
        assert_eq!(percent_decoded(""), "");
    }

    #[test]
    fn urls_other_than_files_are_shown_as_they_are() {
        assert_eq!(
            display_url("http://127.0.0.1:8000/a"),
            "http://127.0.0.1:8000/a"
        );
        assert_eq!(
            display_url("file:///nowhere/x.html"),
            "file:///nowhere/x.html"
        );
    }
}
