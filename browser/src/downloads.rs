//! Files the pages download: where they go (the policy each browser context is given), and what became of each — followed from the browser's own events and told to the tab whose page began it.
//!
//! A click on a link served as an attachment begins a navigation that turns
//! into a download: the page stays, and without a policy Chromium writes the
//! file into the user's `~/Downloads`, unasked and untold. Every browser
//! context pagesnap drives is given a [`DownloadPolicy`]
//! (`Browser.setDownloadBehavior`, its events on); `Browser.downloadWillBegin`
//! and `Browser.downloadProgress` are followed for the whole connection. The
//! wait after an action takes a download its page began as the end of the
//! navigation it had begun (`crate::readiness`), and the tab's answers tell
//! each download once per state ([`crate::ChromiumSession::downloads`]).
//!
//! A link that opens its attachment in a new tab (`target=_blank`) begins the
//! download in that tab, which Chromium closes as the download begins: such
//! a download is told to the tab that opened it (the openers of the tabs are
//! followed from `Target.targetCreated`, their closing from the browser's
//! [`Watch`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use chromiumoxide::Browser;
use chromiumoxide::cdp::browser_protocol::browser::{
    BrowserContextId, DownloadProgressState, EventDownloadProgress, EventDownloadWillBegin,
    SetDownloadBehaviorBehavior, SetDownloadBehaviorParams,
};
use chromiumoxide::cdp::browser_protocol::target::{EventTargetCreated, TargetId};
use futures::StreamExt;

use crate::error::{Error, Result};
use crate::gone::Watch;

/// What a browser context does with a file a page downloads.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum DownloadPolicy {
    /// Refused: nothing is written (a launched browser's default).
    #[default]
    Refuse,
    /// Saved into this folder (made when the first file arrives), under the
    /// name the page gives it; a name already taken there is not
    /// overwritten (`report (2).csv`).
    SaveTo(PathBuf),
    /// Left to the browser (an attached browser's default): its default
    /// context is not touched at all — its owner may have set it up — so
    /// its downloads go where they always went, untold; a context pagesnap
    /// makes saves into the browser's own folder, and is told.
    Browser,
}

impl DownloadPolicy {
    /// The behaviour `Browser.setDownloadBehavior` is given, and its folder.
    fn behavior(&self) -> (SetDownloadBehaviorBehavior, Option<&Path>) {
        match self {
            DownloadPolicy::Refuse => (SetDownloadBehaviorBehavior::Deny, None),
            // Under the download's id: the file is named here when it is
            // complete, so that no earlier file of the same name is replaced.
            DownloadPolicy::SaveTo(folder) => {
                (SetDownloadBehaviorBehavior::AllowAndName, Some(folder))
            }
            DownloadPolicy::Browser => (SetDownloadBehaviorBehavior::Default, None),
        }
    }
}

/// A file a page downloaded, or began to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Download {
    /// Its name, as the page offered it.
    pub file: String,
    /// Where it came from.
    pub url: String,
    /// What became of it.
    pub state: DownloadState,
}

/// What became of a download.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DownloadState {
    /// Still arriving: bytes received, of `total` (0 when the server did not say).
    Downloading { received: u64, total: u64 },
    /// Complete, at `path` (`None`: where the browser keeps it, which it did not say).
    Saved { path: Option<PathBuf>, bytes: u64 },
    /// Refused ([`DownloadPolicy::Refuse`]).
    Refused,
    /// Canceled by the browser or the page, or its transfer failed.
    Canceled,
}

impl DownloadState {
    /// Whether it is still arriving.
    pub fn arriving(&self) -> bool {
        matches!(self, DownloadState::Downloading { .. })
    }
}

/// One download the browser reported.
struct Record {
    guid: String,
    /// The frame whose page began it.
    frame: String,
    /// The tab (target id) that frame was found in, once one looked.
    tab: Option<String>,
    /// Its beginning was read (the frame, the name offered).
    begun: bool,
    /// The complete file has its name ([`named`]).
    named: bool,
    download: Download,
    /// The state last told to the tab's answers.
    told: Option<DownloadState>,
}

/// The downloads of one browser connection, and the policy its contexts are
/// given; shared by every tab.
#[derive(Clone)]
pub(crate) struct Downloads {
    inner: Arc<Mutex<Inner>>,
    /// The browser's closed tabs.
    watch: Watch,
}

#[derive(Default)]
struct Inner {
    policy: DownloadPolicy,
    records: Vec<Record>,
    /// The tab that opened each tab opened by a page (target ids).
    openers: HashMap<String, String>,
}

/// Whether a download begun in `frame` is `tab`'s: begun by its top frame
/// (the target id), one of its `frames`, or a tab it opened (`openers`) that
/// is `gone` (nobody else can be told).
fn belongs(
    openers: &HashMap<String, String>,
    frame: &str,
    tab: &str,
    frames: &[String],
    gone: impl Fn(&str) -> bool,
) -> bool {
    frame == tab
        || frames.iter().any(|f| f == frame)
        || (openers.get(frame).is_some_and(|opener| opener == tab) && gone(frame))
}

impl Inner {
    /// The record of the download `guid`, made if none is yet.
    fn record(&mut self, guid: &str) -> &mut Record {
        let at = match self.records.iter().position(|r| r.guid == guid) {
            Some(at) => at,
            None => {
                self.records.push(Record {
                    guid: guid.to_owned(),
                    frame: String::new(),
                    tab: None,
                    begun: false,
                    named: false,
                    download: Download {
                        file: String::new(),
                        url: String::new(),
                        state: DownloadState::Downloading {
                            received: 0,
                            total: 0,
                        },
                    },
                    told: None,
                });
                self.records.len() - 1
            }
        };
        &mut self.records[at]
    }
}

impl Downloads {
    /// Nothing reported yet, and the policy [`DownloadPolicy::Refuse`].
    fn new(watch: Watch) -> Downloads {
        Downloads {
            inner: Arc::default(),
            watch,
        }
    }

    /// Follows `browser`'s download events for as long as its connection
    /// lasts; `watch` tells which of its tabs closed.
    pub(crate) async fn listen(browser: &Browser, watch: Watch) -> Result<Downloads> {
        let downloads = Downloads::new(watch);
        let listen = |err| Error::browser("follow the browser's downloads", err);
        let mut begun = browser
            .event_listener::<EventDownloadWillBegin>()
            .await
            .map_err(listen)?;
        let mut progress = browser
            .event_listener::<EventDownloadProgress>()
            .await
            .map_err(listen)?;
        let mut created = browser
            .event_listener::<EventTargetCreated>()
            .await
            .map_err(listen)?;
        let shared = downloads.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    Some(event) = begun.next() => shared.begun(&event),
                    Some(event) = progress.next() => shared.progress(&event),
                    Some(event) = created.next() => shared.created(&event),
                    else => break,
                }
            }
        });
        Ok(downloads)
    }

    /// Gives the browser context `context` (none: the default one) `policy`,
    /// with the download events on, and keeps it as the policy of contexts
    /// made from now on.
    pub(crate) async fn apply(
        &self,
        browser: &Browser,
        policy: DownloadPolicy,
        context: Option<&str>,
    ) -> Result<()> {
        if policy == DownloadPolicy::Browser && context.is_none() {
            self.lock().policy = policy;
            return Ok(());
        }
        let (behavior, folder) = policy.behavior();
        let params = SetDownloadBehaviorParams {
            behavior,
            browser_context_id: context.map(BrowserContextId::new),
            download_path: folder.map(|f| f.display().to_string()),
            events_enabled: Some(true),
        };
        browser.execute(params).await.map_err(|err| {
            Error::browser(
                format!(
                    "set where downloads go ({}; Browser.setDownloadBehavior)",
                    match &policy {
                        DownloadPolicy::SaveTo(folder) => format!("into {}", folder.display()),
                        DownloadPolicy::Refuse => "refused".to_owned(),
                        DownloadPolicy::Browser => "the browser's own".to_owned(),
                    }
                ),
                err,
            )
        })?;
        self.lock().policy = policy;
        Ok(())
    }

    /// The policy given last.
    pub(crate) fn policy(&self) -> DownloadPolicy {
        self.lock().policy.clone()
    }

    /// How many downloads were reported so far: a wait takes the ones after
    /// it as its action's.
    pub(crate) fn mark(&self) -> usize {
        self.lock().records.len()
    }

    /// Whether a download reported after `mark` is not known to be any
    /// tab's yet (its frame is not a tab's top frame).
    pub(crate) fn unplaced_since(&self, mark: usize) -> bool {
        self.lock()
            .records
            .iter()
            .skip(mark)
            .any(|r| r.begun && r.tab.is_none())
    }

    /// Takes the downloads not yet placed that are `tab`'s ([`belongs`];
    /// `frames`: the frames inside it) as that tab's.
    pub(crate) fn place(&self, tab: &str, frames: &[String]) {
        let gone = |target: &str| self.watch.state(&TargetId::new(target)).is_some();
        let mut inner = self.lock();
        let Inner {
            records, openers, ..
        } = &mut *inner;
        for record in records.iter_mut() {
            if record.begun
                && record.tab.is_none()
                && belongs(openers, &record.frame, tab, frames, gone)
            {
                record.tab = Some(tab.to_owned());
            }
        }
    }

    /// `tab`'s downloads reported after `mark`, as they are now.
    pub(crate) fn of_since(&self, tab: &str, mark: usize) -> Vec<Download> {
        self.lock()
            .records
            .iter()
            .skip(mark)
            .filter(|r| r.tab.as_deref() == Some(tab))
            .map(|r| r.download.clone())
            .collect()
    }

    /// `tab`'s downloads whose state was not told yet, now counted as told.
    pub(crate) fn news(&self, tab: &str) -> Vec<Download> {
        let mut inner = self.lock();
        inner
            .records
            .iter_mut()
            .filter(|r| r.tab.as_deref() == Some(tab))
            .filter(|r| r.told.as_ref() != Some(&r.download.state))
            .map(|r| {
                r.told = Some(r.download.state.clone());
                r.download.clone()
            })
            .collect()
    }

    // The two events come on two streams, so a download's progress may be
    // read before its beginning: whichever comes first makes the record,
    // and the file is named once both are known.
    fn begun(&self, event: &EventDownloadWillBegin) {
        let mut inner = self.lock();
        let policy = inner.policy.clone();
        let record = inner.record(&event.guid);
        record.frame = event.frame_id.as_ref().to_owned();
        record.download.file = event.suggested_filename.clone();
        record.download.url = event.url.clone();
        record.begun = true;
        record.name(&policy);
    }

    fn created(&self, event: &EventTargetCreated) {
        let info = &event.target_info;
        if let Some(opener) = &info.opener_id {
            self.lock().openers.insert(
                info.target_id.as_ref().to_owned(),
                opener.as_ref().to_owned(),
            );
        }
    }

    fn progress(&self, event: &EventDownloadProgress) {
        let mut inner = self.lock();
        let policy = inner.policy.clone();
        let record = inner.record(&event.guid);
        // Saved and renamed: the state is final (a repeated completion
        // would name the file by the id it no longer has).
        if record.named {
            return;
        }
        // Invariant: byte counts are whole numbers the browser sends as doubles.
        let bytes = |n: f64| n.max(0.0) as u64;
        record.download.state = match event.state {
            DownloadProgressState::InProgress => DownloadState::Downloading {
                received: bytes(event.received_bytes),
                total: bytes(event.total_bytes),
            },
            DownloadProgressState::Completed => DownloadState::Saved {
                path: event.file_path.as_deref().map(PathBuf::from),
                bytes: bytes(event.received_bytes),
            },
            DownloadProgressState::Canceled if policy == DownloadPolicy::Refuse => {
                DownloadState::Refused
            }
            DownloadProgressState::Canceled => DownloadState::Canceled,
        };
        record.name(&policy);
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves plain data behind.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Record {
    /// Gives a complete download, once its beginning was read, the name the
    /// page offered ([`named`]).
    fn name(&mut self, policy: &DownloadPolicy) {
        if self.named || !self.begun {
            return;
        }
        if let DownloadState::Saved {
            path: Some(path), ..
        } = &mut self.download.state
        {
            *path = named(path, &self.download.file, policy);
            self.named = true;
        }
    }
}

/// Where a complete download is kept: under [`DownloadPolicy::SaveTo`] the
/// browser wrote it under its id, and it is given the name the page offered
/// (only its last part, never one that leaves the folder), with ` (2)`,
/// ` (3)`… before the extension when that name is taken; elsewhere, or if
/// it cannot be renamed, where the browser put it.
fn named(written: &Path, offered: &str, policy: &DownloadPolicy) -> PathBuf {
    let DownloadPolicy::SaveTo(_) = policy else {
        return written.to_owned();
    };
    let Some(folder) = written.parent() else {
        return written.to_owned();
    };
    let name = Path::new(offered)
        .file_name()
        .and_then(|n| n.to_str())
        .filter(|n| !n.is_empty() && *n != "." && *n != "..")
        .unwrap_or("download");
    let (stem, extension) = match name.rsplit_once('.') {
        Some((stem, extension)) if !stem.is_empty() => (stem, format!(".{extension}")),
        _ => (name, String::new()),
    };
    for n in 1..1000 {
        let candidate = if n == 1 {
            folder.join(name)
        } else {
            folder.join(format!("{stem} ({n}){extension}"))
        };
        if candidate.exists() {
            continue;
        }
        return match std::fs::rename(written, &candidate) {
            Ok(()) => candidate,
            Err(_) => written.to_owned(),
        };
    }
    written.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_file_takes_the_offered_name_and_never_replaces_one() {
        let folder = tempfile::tempdir().unwrap();
        let policy = DownloadPolicy::SaveTo(folder.path().to_owned());
        let write = |id: &str, text: &str| {
            let path = folder.path().join(id);
            std::fs::write(&path, text).unwrap();
            path
        };
        let first = named(&write("guid-1", "one"), "report.csv", &policy);
        assert_eq!(first, folder.path().join("report.csv"));
        let second = named(&write("guid-2", "two"), "report.csv", &policy);
        assert_eq!(second, folder.path().join("report (2).csv"));
        assert_eq!(std::fs::read_to_string(&first).unwrap(), "one");
        assert_eq!(std::fs::read_to_string(&second).unwrap(), "two");
        // A name that would leave the folder keeps only its last part.
        let third = named(&write("guid-3", "three"), "../../etc/passwd", &policy);
        assert_eq!(third, folder.path().join("passwd"));
        let fourth = named(&write("guid-4", "four"), "..", &policy);
        assert_eq!(fourth, folder.path().join("download"));
        // Not ours to rename: the browser's own folder.
        let kept = write("guid-5", "five");
        assert_eq!(named(&kept, "x.csv", &DownloadPolicy::Browser), kept);
    }

    #[test]
    fn a_download_of_a_closed_tab_belongs_to_the_tab_that_opened_it() {
        let openers = HashMap::from([
            ("popup".to_owned(), "tab".to_owned()),
            ("open-popup".to_owned(), "tab".to_owned()),
        ]);
        let gone = |target: &str| target == "popup";
        let frames = ["frame".to_owned()];
        assert!(belongs(&openers, "tab", "tab", &[], gone));
        assert!(belongs(&openers, "frame", "tab", &frames, gone));
        assert!(belongs(&openers, "popup", "tab", &[], gone));
        // Still open: that tab's own, told when the agent acts there.
        assert!(!belongs(&openers, "open-popup", "tab", &[], gone));
        assert!(!belongs(&openers, "popup", "other", &[], gone));
        assert!(!belongs(&openers, "frame", "tab", &[], gone));
    }

    #[test]
    fn a_repeated_completion_keeps_the_name_given() {
        let folder = tempfile::tempdir().unwrap();
        let downloads = Downloads::new(Watch::new().0);
        downloads.lock().policy = DownloadPolicy::SaveTo(folder.path().to_owned());
        let written = folder.path().join("guid-1");
        std::fs::write(&written, "one").unwrap();
        let completed = EventDownloadProgress {
            guid: "guid-1".into(),
            total_bytes: 3.0,
            received_bytes: 3.0,
            state: DownloadProgressState::Completed,
            file_path: Some(written.display().to_string()),
        };
        // The completion read before the beginning (two streams).
        downloads.progress(&completed);
        downloads.begun(&EventDownloadWillBegin {
            frame_id: "frame".to_owned().into(),
            guid: "guid-1".into(),
            url: "http://example.test/report.csv".into(),
            suggested_filename: "report.csv".into(),
        });
        downloads.progress(&completed);
        let saved = DownloadState::Saved {
            path: Some(folder.path().join("report.csv")),
            bytes: 3,
        };
        assert_eq!(downloads.lock().records[0].download.state, saved);
        assert!(folder.path().join("report.csv").exists());
    }
}
