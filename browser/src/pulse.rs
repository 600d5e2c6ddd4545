//! The browser's pulse: its DevTools port asked every second whether it still answers; a browser that stops answering (stopped, hung) is dead after a few misses — killed when pagesnap launched it, its connection given up when attached — so that every call waiting on it ends as browser-gone instead of at its time limit.
//!
//! The question is `GET /json/version`, which the browser answers on a thread
//! of its own, apart from its pages and its websocket: a busy page or a huge
//! capture being parsed does not delay it. It is asked on a thread of
//! pagesnap's own for the same reason.

use crate::gone::{Ended, Watch};
use crate::waits;

/// The pulse of one browser; it stops when dropped or when the browser is gone.
pub(crate) struct Pulse {
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Pulse {
    /// Starts asking the browser whose websocket is `websocket`; `pid` is its
    /// process when pagesnap launched it (then killed when it stops
    /// answering). None when the websocket names no port to ask.
    pub(crate) fn start(
        websocket: &str,
        pid: Option<u32>,
        watch: Watch,
        ended: Ended,
    ) -> Option<Pulse> {
        let authority = crate::endpoint::authority_of(websocket)?.to_owned();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .ok()?;
        std::thread::Builder::new()
            .name("pagesnap-pulse".to_owned())
            .spawn(move || {
                runtime.block_on(async move {
                    tokio::select! {
                        () = beat(&authority, pid, &watch, &ended) => {}
                        _ = stopped => {}
                    }
                });
            })
            .ok()?;
        Some(Pulse { stop: Some(stop) })
    }
}

impl Drop for Pulse {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// Asks until the browser is gone, or has missed [`waits::PULSE_MISSES`]
/// answers in a row; then ends it.
async fn beat(authority: &str, pid: Option<u32>, watch: &Watch, ended: &Ended) {
    let mut missed = 0;
    while !watch.browser_gone() {
        tokio::time::sleep(waits::PULSE).await;
        let answered = tokio::time::timeout(
            waits::PULSE_ANSWER,
            crate::endpoint::version(authority, authority),
        )
        .await;
        match answered {
            Ok(Ok(answer)) if !answer.is_empty() => missed = 0,
            // Refused or reset: the browser is exiting, which its websocket
            // says too; asked again, it stays refused.
            _ => missed += 1,
        }
        if missed >= waits::PULSE_MISSES {
            give_up(pid, ended);
            return;
        }
    }
}

/// A browser that no longer answers is dead: killed when it is pagesnap's
/// (a stopped process ends too), and every call waiting on it ended.
fn give_up(pid: Option<u32>, ended: &Ended) {
    if let Some(pid) = pid {
        let _ = std::process::Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status();
    }
    ended.now();
}
