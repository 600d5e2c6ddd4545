//! The browser's reports of crashed and closed tabs, which end the calls still waiting on them.
//!
//! A CDP call to a tab whose renderer crashed, or that was closed, may never
//! be answered. The browser announces both (`Target.targetCrashed`,
//! `Target.targetDestroyed`); [`Watch`] records them per target so that every
//! call of a session can stop waiting at once and say which happened.

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
}

/// Targets the browser reported crashed or destroyed, in the order reported.
pub type GoneTargets = Vec<(TargetId, Gone)>;

/// The browser's reports of crashed and destroyed tabs, shared by every session.
#[derive(Clone)]
pub struct Watch {
    gone: watch::Receiver<GoneTargets>,
}

impl Watch {
    /// Starts listening to `browser`'s target events. The listeners end with
    /// the browser's connection.
    pub async fn start(browser: &Browser) -> Result<Watch> {
        let (sender, gone) = watch::channel(GoneTargets::new());
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
                sender.send_modify(|gone| {
                    // A crashed tab is later destroyed too; the crash is the cause.
                    if !gone.iter().any(|(t, _)| *t == target) {
                        gone.push((target, what));
                    }
                });
            }
        });
        Ok(Watch { gone })
    }

    /// What happened to `target`, if anything.
    pub fn state(&self, target: &TargetId) -> Option<Gone> {
        self.gone
            .borrow()
            .iter()
            .find(|(t, _)| t == target)
            .map(|(_, what)| *what)
    }

    /// Resolves when `target` crashes or is destroyed (never, if it is not).
    pub async fn until_gone(&self, target: &TargetId) -> Gone {
        let mut gone = self.gone.clone();
        let result = gone
            .wait_for(|list| list.iter().any(|(t, _)| t == target))
            .await
            .ok()
            .and_then(|list| list.iter().find(|(t, _)| t == target).map(|(_, w)| *w));
        match result {
            Some(what) => what,
            // The listener ended with the connection: nothing will be reported.
            None => std::future::pending().await,
        }
    }
}
