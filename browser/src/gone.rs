//! The browser's reports of crashed and closed tabs, and the end of the browser itself, which end the calls still waiting on them.
//!
//! A CDP call to a tab whose renderer crashed, or that was closed, may never
//! be answered. The browser announces both (`Target.targetCrashed`,
//! `Target.targetDestroyed`); [`Watch`] records them per target so that every
//! call of a session can stop waiting at once and say which happened. A
//! browser that dies (killed, crashed, its DevTools socket closed) announces
//! nothing: the end of its connection, which the client's handler sees, ends
//! every call of every tab at once ([`Gone::Browser`]).

use chromiumoxide::Browser;
use chromiumoxide::cdp::browser_protocol::target::{
    EventTargetCrashed, EventTargetDestroyed, TargetId,
};
use futures::StreamExt;
use tokio::sync::watch;

use crate::error::{Error, Result};

/// What happened to a tab.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gone {
    /// `Target.targetCrashed`.
    Crashed,
    /// `Target.targetDestroyed`.
    Closed,
    /// The browser's DevTools connection ended: the browser exited or was
    /// killed, or its socket was closed.
    Browser,
}

/// Targets the browser reported crashed or destroyed, in the order reported.
pub type GoneTargets = Vec<(TargetId, Gone)>;

/// What the watch knows: the tabs reported gone, and whether the browser is.
#[derive(Default)]
struct Known {
    targets: GoneTargets,
    browser: bool,
}

/// The browser's reports of crashed and destroyed tabs, and the end of its
/// connection, shared by every session.
#[derive(Clone)]
pub struct Watch {
    gone: watch::Receiver<Known>,
}

/// Tells a [`Watch`] that the browser's connection ended (dropping it says
/// nothing: a browser closed in order is not gone).
#[derive(Clone)]
pub struct Ended(watch::Sender<Known>);

impl Ended {
    /// The browser's connection ended: every call waiting on it ends.
    pub fn now(&self) {
        self.0.send_modify(|known| known.browser = true);
    }
}

impl Watch {
    /// A watch with nothing reported yet, and the handle that says the
    /// browser's connection ended (given to the loop that reads it).
    pub fn new() -> (Watch, Ended) {
        let (sender, gone) = watch::channel(Known::default());
        (Watch { gone }, Ended(sender))
    }

    /// Starts listening to `browser`'s target events. The listeners end with
    /// the browser's connection.
    pub async fn listen(&self, browser: &Browser, ended: &Ended) -> Result<()> {
        let sender = ended.0.clone();
        let listen = |err| Error::browser("follow the browser's tabs", err);
        let mut crashed = browser
            .event_listener::<EventTargetCrashed>()
            .await
            .map_err(listen)?;
        let mut destroyed = browser
            .event_listener::<EventTargetDestroyed>()
            .await
            .map_err(listen)?;
        tokio::spawn(async move {
            loop {
                let (target, what) = tokio::select! {
                    Some(event) = crashed.next() => (event.target_id.clone(), Gone::Crashed),
                    Some(event) = destroyed.next() => (event.target_id.clone(), Gone::Closed),
                    else => break,
                };
                sender.send_modify(|known| {
                    // A crashed tab is later destroyed too; the crash is the cause.
                    if !known.targets.iter().any(|(t, _)| *t == target) {
                        known.targets.push((target, what));
                    }
                });
            }
        });
        Ok(())
    }

    /// Whether the browser's connection ended.
    pub fn browser_gone(&self) -> bool {
        self.gone.borrow().browser
    }

    /// What happened to `target`, if anything (a crash or close reported
    /// before the browser died names the cause).
    pub fn state(&self, target: &TargetId) -> Option<Gone> {
        state(&self.gone.borrow(), target)
    }

    /// Resolves when `target` crashes or is destroyed, or the browser's
    /// connection ends (never, if none of these happens).
    pub async fn until_gone(&self, target: &TargetId) -> Gone {
        let mut gone = self.gone.clone();
        let result = gone
            .wait_for(|known| state(known, target).is_some())
            .await
            .ok()
            .and_then(|known| state(&known, target));
        match result {
            Some(what) => what,
            // Every sender is gone (the browser closed in order): nothing
            // will be reported.
            None => std::future::pending().await,
        }
    }
}

fn state(known: &Known, target: &TargetId) -> Option<Gone> {
    known
        .targets
        .iter()
        .find(|(t, _)| t == target)
        .map(|(_, what)| *what)
        .or(known.browser.then_some(Gone::Browser))
}
