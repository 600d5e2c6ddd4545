//! A capture for the archive: everything a recording holds, started over when the page navigates under it.

use super::Capture;
use super::state::Captured;
use super::state::Needs;
use crate::error::{Error, Result};

impl Capture<'_> {
    /// [`crate::ChromiumSession::capture`]'s work.
    pub(crate) async fn capture(&self) -> Result<Captured> {
        loop {
            let attempt = async {
                let before = self.document().await?;
                let (captured, _) = self.capture_with(Needs::RECORD).await?;
                let after = self.document().await?;
                Ok::<_, Error>(
                    before
                        .filter(|id| after.as_ref() == Some(id))
                        .map(|_| captured),
                )
            };
            match attempt.await {
                Ok(Some(captured)) => return Ok(captured),
                Ok(None) => self.tab.after_navigation().await?,
                Err(err) if err.is_navigated() => self.tab.after_navigation().await?,
                Err(err) => return Err(err),
            }
        }
    }

    /// The current document's identity once it has loaded, `None` while it loads.
    async fn document(&self) -> Result<Option<String>> {
        let value = self.tab.eval(DOCUMENT_JS).await?;
        Ok(value.as_str().map(str::to_owned))
    }
}

/// A random id kept by the document (under a symbol, out of the DOM a
/// capture reads), or `null` while it is still loading: a new document, a
/// new id.
const DOCUMENT_JS: &str = r#"(() => {
  if (document.readyState !== 'complete') return null;
  const key = Symbol.for('pagesnap.document');
  if (!window[key]) {
    Object.defineProperty(window, key, { value: Math.random().toString(36).slice(2) });
  }
  return window[key];
})()"#;
