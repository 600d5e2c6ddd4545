//! The pages bench-mcp measures on: URLs as given, files served over 127.0.0.1 from the folder that holds them all (no server opens `file://` by default), and the task targets on each.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::live::server::Server as PageServer;
use crate::suite::PageTarget;

/// The pages given, those that are files served from the folder that holds
/// them all.
pub(super) struct Pages {
    /// The deepest folder holding every page given as a file.
    root: Option<PathBuf>,
    /// Serving `root` over 127.0.0.1 while the pages are measured.
    served: Option<PageServer>,
}

impl Pages {
    /// Serves the pages given as files; a file that does not exist is an
    /// error.
    pub(super) fn serve(pages: &[String]) -> Result<Pages> {
        let files: Vec<PathBuf> = pages
            .iter()
            .filter(|page| !page.contains("://"))
            .map(|page| {
                Path::new(page)
                    .canonicalize()
                    .with_context(|| format!("{page}: no such file"))
            })
            .collect::<Result<_>>()?;
        let root = common_folder(&files);
        let served = match &root {
            Some(root) => Some(PageServer::start(root)?),
            None => None,
        };
        Ok(Pages { root, served })
    }

    /// The URL the servers open for `page`: a URL as given, a file as served.
    pub(super) fn url(&self, page: &str) -> Result<String> {
        if page.contains("://") {
            return Ok(page.to_owned());
        }
        let (Some(root), Some(server)) = (&self.root, &self.served) else {
            bail!("{page}: not served");
        };
        let path = Path::new(page).canonicalize()?;
        let relative = path.strip_prefix(root)?;
        Ok(server.url(&relative.to_string_lossy()))
    }
}

/// The task targets on `page` (the same file).
pub(super) fn targets_on<'a>(targets: &'a [PageTarget], page: &str) -> Vec<&'a PageTarget> {
    targets
        .iter()
        .filter(|t| {
            t.page
                .canonicalize()
                .ok()
                .zip(Path::new(page).canonicalize().ok())
                .is_some_and(|(a, b)| a == b)
        })
        .collect()
}

/// The deepest folder holding every file.
fn common_folder(files: &[PathBuf]) -> Option<PathBuf> {
    let mut common = files.first()?.parent()?.to_path_buf();
    for file in files {
        while !file.starts_with(&common) {
            common = common.parent()?.to_path_buf();
        }
    }
    Some(common)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_folder_is_the_deepest_shared_parent() {
        let files = [
            PathBuf::from("/a/b/c/one.html"),
            PathBuf::from("/a/b/d/two.html"),
        ];
        assert_eq!(common_folder(&files), Some(PathBuf::from("/a/b")));
        assert_eq!(common_folder(&files[..1]), Some(PathBuf::from("/a/b/c")));
        assert_eq!(common_folder(&[]), None);
    }
}
