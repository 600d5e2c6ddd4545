//! JavaScript dialogs of a tab: what the tab's dialog policy does with each (leave it for the agent, accept, dismiss), the one pending, and those answered without an agent.
//!
//! While a dialog is open the page's renderer answers nothing — no script,
//! no capture, no input event — until the dialog is answered (a call made
//! meanwhile is answered only afterwards). So under [`DialogPolicy::Ask`]
//! every call of the session stops waiting the moment a dialog opens
//! ([`crate::TabError::DialogOpen`]), an action that opened one reports it,
//! any other action is refused while it is pending, and an observation is
//! the dialog alone; [`crate::UserAction::Dialog`] answers it.

use std::sync::{Arc, Mutex};

use crate::error::{Error, Result};
use chromiumoxide::Page as CdpPage;
use chromiumoxide::cdp::browser_protocol::page::{
    DialogType, EventJavascriptDialogClosed, EventJavascriptDialogOpening,
    HandleJavaScriptDialogParams,
};
use futures::StreamExt;
use pagesnap_engine::dialog::{Answered, Dialog, DialogKind};
use tokio::sync::watch;

/// What a tab does when its page opens a dialog.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DialogPolicy {
    /// Leave it open for the agent to see and answer (`mcp`, `live`).
    Ask,
    /// Accept it at once (a prompt with its default text), as a user
    /// clicking OK would; listed in a recording's notes (`record`).
    #[default]
    Accept,
    /// Dismiss it at once (Cancel).
    Dismiss,
}

impl DialogPolicy {
    /// Every policy, in declaration order.
    pub const ALL: [DialogPolicy; 3] = [
        DialogPolicy::Ask,
        DialogPolicy::Accept,
        DialogPolicy::Dismiss,
    ];

    /// The policy as flags spell it.
    pub fn name(self) -> &'static str {
        match self {
            DialogPolicy::Ask => "ask",
            DialogPolicy::Accept => "accept",
            DialogPolicy::Dismiss => "dismiss",
        }
    }
}

impl std::str::FromStr for DialogPolicy {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        DialogPolicy::ALL
            .into_iter()
            .find(|policy| policy.name() == s)
            .ok_or_else(|| format!("unknown dialog policy {s:?} (ask, accept or dismiss)"))
    }
}

impl std::fmt::Display for DialogPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The dialogs of one tab: the pending one and those its policy answered.
#[derive(Clone, Debug)]
pub(crate) struct Dialogs {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    policy: DialogPolicy,
    pending: watch::Sender<Option<Dialog>>,
    answered: Mutex<Vec<Answered>>,
}

impl Dialogs {
    /// Starts following `page`'s dialogs under `policy`. The task ends with
    /// the page's event streams (the tab closed, the browser gone).
    pub(crate) async fn listen(page: &CdpPage, policy: DialogPolicy) -> Result<Dialogs> {
        let mut opening = page
            .event_listener::<EventJavascriptDialogOpening>()
            .await
            .map_err(|err| Error::browser("listen for JavaScript dialogs", err))?;
        let mut closed = page
            .event_listener::<EventJavascriptDialogClosed>()
            .await
            .map_err(|err| Error::browser("listen for JavaScript dialogs", err))?;
        let dialogs = Dialogs {
            shared: Arc::new(Shared {
                policy,
                pending: watch::Sender::new(None),
                answered: Mutex::new(Vec::new()),
            }),
        };
        let shared = Arc::clone(&dialogs.shared);
        let page = page.clone();
        tokio::spawn(async move {
            loop {
                // A close is handled before an opening that arrived with it:
                // it belongs to the dialog before.
                tokio::select! {
                    biased;
                    event = closed.next() => match event {
                        Some(_) => {
                            shared.pending.send_replace(None);
                        }
                        None => break,
                    },
                    event = opening.next() => match event {
                        Some(event) => shared.opened(&page, dialog_of(&event)).await,
                        None => break,
                    },
                }
            }
        });
        Ok(dialogs)
    }

    /// The dialog the page waits on, if any.
    pub(crate) fn pending(&self) -> Option<Dialog> {
        self.shared.pending.borrow().clone()
    }

    /// Resolves when a dialog is pending (at once if one is).
    pub(crate) async fn opened(&self) -> Dialog {
        let mut receiver = self.shared.pending.subscribe();
        loop {
            if let Some(dialog) = receiver.borrow_and_update().clone() {
                return dialog;
            }
            if receiver.changed().await.is_err() {
                // The sender lives as long as `self`: never reached.
                std::future::pending::<()>().await;
            }
        }
    }

    /// Forgets the pending dialog once it is answered (the browser's
    /// closing event would say so a moment later).
    pub(crate) fn answered_by_agent(&self) {
        self.shared.pending.send_replace(None);
    }

    /// The dialogs the policy answered so far, oldest first, and forgets them.
    pub(crate) fn take_answered(&self) -> Vec<Answered> {
        match self.shared.answered.lock() {
            Ok(mut answered) => std::mem::take(&mut *answered),
            Err(_) => Vec::new(),
        }
    }
}

impl Shared {
    async fn opened(&self, page: &CdpPage, dialog: Dialog) {
        let accept = match self.policy {
            DialogPolicy::Ask => {
                self.pending.send_replace(Some(dialog));
                return;
            }
            DialogPolicy::Accept => true,
            DialogPolicy::Dismiss => false,
        };
        let mut params = HandleJavaScriptDialogParams::new(accept);
        if accept {
            params.prompt_text = dialog.default_prompt.clone();
        }
        // A dialog the browser closed meanwhile (its tab went away) needs no answer.
        let _ = page.execute(params).await;
        if let Ok(mut answered) = self.answered.lock() {
            answered.push(Answered {
                dialog,
                accepted: accept,
            });
        }
    }
}

fn dialog_of(event: &EventJavascriptDialogOpening) -> Dialog {
    let kind = match event.r#type {
        DialogType::Alert => DialogKind::Alert,
        DialogType::Confirm => DialogKind::Confirm,
        DialogType::Prompt => DialogKind::Prompt,
        DialogType::Beforeunload => DialogKind::Beforeunload,
    };
    Dialog {
        kind,
        message: event.message.clone(),
        default_prompt: match kind {
            DialogKind::Prompt => Some(event.default_prompt.clone().unwrap_or_default()),
            _ => None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_parse_as_they_are_named() {
        for policy in DialogPolicy::ALL {
            assert_eq!(policy.name().parse::<DialogPolicy>(), Ok(policy));
        }
        let err = "yes".parse::<DialogPolicy>().unwrap_err();
        assert!(
            err.contains("\"yes\"") && err.contains("ask, accept or dismiss"),
            "{err}"
        );
    }
}
