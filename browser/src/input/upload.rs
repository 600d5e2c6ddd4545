//! Files for a page: a file input given files by path (`DOM.setFileInputFiles`), or the control that opens a file chooser clicked with the chooser intercepted — only files inside the upload folder, every other path refused by name.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::Result;
use chromiumoxide::cdp::browser_protocol::dom::{BackendNodeId, SetFileInputFilesParams};
use chromiumoxide::cdp::browser_protocol::page::{
    EventFileChooserOpened, SetInterceptFileChooserDialogParams,
};
use futures::{FutureExt, StreamExt};

use super::Input;
use super::act::failure;
use crate::action::{Failure, Outcome};
use crate::frames::split_key;
use crate::readiness::Performed;

/// What an action that opened a file chooser tells the agent.
const CHOOSER_OPENED: &str = "a file chooser opened and nothing was chosen: \
     give it files with upload (paths) on the same element";

/// How long after its click a control may take to open a file chooser.
const CHOOSER: Duration = Duration::from_millis(1500);

/// Whether `this` is a file input: `{kind: 'file'}` or `{kind: 'other'}`.
const FILE_INPUT_JS: &str = "function () { if (!this.isConnected) return { error: 'stale' }; \
     return { kind: this.tagName === 'INPUT' && this.type === 'file' ? 'file' : 'other' }; }";

/// The files `given` names, each inside `folder` (a relative path is taken
/// from it), as absolute paths; the first path outside it, or missing, is
/// the message that refuses them all.
pub fn confine(folder: &Path, given: &[String]) -> Result<Vec<PathBuf>, String> {
    let root = folder.canonicalize().map_err(|err| {
        format!(
            "the upload folder {} cannot be read: {err}",
            folder.display()
        )
    })?;
    if given.is_empty() {
        return Err("no file given: name the files to upload".to_owned());
    }
    given
        .iter()
        .map(|path| {
            let joined = root.join(path);
            match joined.canonicalize() {
                Ok(file) if file.starts_with(&root) && file.is_file() => Ok(file),
                Ok(file) if file.starts_with(&root) => {
                    Err(format!("{path:?} is not a file (in the upload folder {})", root.display()))
                }
                Ok(_) => Err(format!(
                    "{path:?} is outside the upload folder {}: only files inside it can be uploaded",
                    root.display()
                )),
                Err(_) => Err(format!(
                    "{path:?} does not exist in the upload folder {}",
                    root.display()
                )),
            }
        })
        .collect()
}

impl Input<'_> {
    /// Runs `action` (a click or key that may open a file chooser) with the
    /// tab's file chooser intercepted, and when one opened, says so in the
    /// outcome: nothing was chosen, and `upload` gives it files. Intercepted
    /// only for the action's time, so a browser pagesnap attached to keeps its
    /// own choosers for its user.
    pub(crate) async fn noting_chooser(
        &self,
        action: impl std::future::Future<Output = Result<Performed>>,
    ) -> Result<Performed> {
        let mut opened = self
            .tab
            .page()
            .event_listener::<EventFileChooserOpened>()
            .await
            .map_err(|err| self.tab.unheard("Page.fileChooserOpened", err))?;
        self.intercept_chooser(true).await?;
        let outcome = action.await;
        let _ = self.intercept_chooser(false).await;
        let chose = opened.next().now_or_never().flatten().is_some();
        let mut performed = outcome?;
        if let Outcome::Done { note } = &mut performed.outcome
            && chose
        {
            *note = Some(
                [note.as_deref(), Some(CHOOSER_OPENED)]
                    .into_iter()
                    .flatten()
                    .collect::<Vec<_>>()
                    .join("; "),
            );
        }
        Ok(performed)
    }

    async fn intercept_chooser(&self, on: bool) -> Result<()> {
        self.tab
            .call(
                "Page.setInterceptFileChooserDialog",
                self.tab
                    .page()
                    .execute(SetInterceptFileChooserDialogParams::new(on)),
            )
            .await?;
        Ok(())
    }

    /// Gives `paths` (confined to the upload folder) to the file input
    /// `backend_id`, or to the input whose chooser a click on it opens.
    pub(crate) async fn upload(&self, backend_id: u64, paths: &[String]) -> Result<Outcome> {
        let files = match confine(self.uploads, paths) {
            Ok(files) => files,
            Err(message) => return Ok(Outcome::failed(Failure::UploadRefused, message)),
        };
        let files: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
        let answer = self.call_on(backend_id, FILE_INPUT_JS, Vec::new()).await?;
        if let Some(failed) = failure(&answer) {
            return Ok(failed);
        }
        if answer.kind.as_deref() == Some("file") {
            return self.set_files(backend_id, files).await;
        }
        // A control that opens the chooser (a styled button clicking a
        // hidden input): clicked, with the chooser intercepted.
        let mut opened = self
            .tab
            .page()
            .event_listener::<EventFileChooserOpened>()
            .await
            .map_err(|err| self.tab.unheard("Page.fileChooserOpened", err))?;
        self.intercept_chooser(true).await?;
        let chosen = async {
            if let Outcome::Failed { kind, message } = self.click(backend_id).await? {
                return Ok(Outcome::Failed { kind, message });
            }
            match tokio::time::timeout(CHOOSER, opened.next()).await {
                Ok(Some(event)) => match event.backend_node_id {
                    Some(input) => {
                        let (frame, _) = split_key(backend_id);
                        let key = crate::frames::node_key(frame, *input.inner());
                        self.set_files(key, files).await
                    }
                    None => Ok(Outcome::failed(
                        Failure::NotFileInput,
                        "the file chooser that opened names no input to give the files to",
                    )),
                },
                _ => Ok(Outcome::failed(
                    Failure::NotFileInput,
                    Failure::NotFileInput.message(),
                )),
            }
        }
        .await;
        let _ = self.intercept_chooser(false).await;
        chosen
    }

    async fn set_files(&self, backend_id: u64, files: Vec<String>) -> Result<Outcome> {
        let (frame, id) = split_key(backend_id);
        let Some(route) = self.frames.route(frame) else {
            return Ok(Outcome::failed(Failure::Stale, Failure::Stale.message()));
        };
        let mut params = SetFileInputFilesParams::new(files);
        params.backend_node_id = Some(BackendNodeId::new(id));
        self.tab
            .call(
                "DOM.setFileInputFiles",
                route.execute(self.tab.page(), params),
            )
            .await?;
        Ok(Outcome::ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_files_inside_the_folder_are_given() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("resume.pdf"), b"%PDF").unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/photo.png"), b"png").unwrap();
        let given = |paths: &[&str]| {
            confine(
                dir.path(),
                &paths.iter().map(|p| p.to_string()).collect::<Vec<_>>(),
            )
        };
        let files = given(&["resume.pdf", "sub/photo.png"]).unwrap();
        assert_eq!(files.len(), 2);
        assert!(files.iter().all(|f| f.is_absolute()));
        let absolute = dir.path().join("resume.pdf");
        assert!(given(&[absolute.to_str().unwrap()]).is_ok());
        let outside = given(&["../etc/passwd"]).unwrap_err();
        assert!(outside.contains("\"../etc/passwd\""), "{outside}");
        assert!(
            given(&["/etc/hostname"])
                .unwrap_err()
                .contains("outside the upload folder")
        );
        assert!(
            given(&["missing.pdf"])
                .unwrap_err()
                .contains("does not exist")
        );
        assert!(given(&["sub"]).unwrap_err().contains("not a file"));
        assert!(given(&[]).is_err());
    }
}
