//! The scripted steps of `record --then`, applied to an open tab through the one actuator ([`crate::act`]).

use std::time::Duration;

use crate::error::{Error, Result};

use crate::action::{Outcome, UserAction};
use crate::failure::Phase;
use crate::session::ChromiumSession;

/// A scripted step applied between captures (`--then`).
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// `click SELECTOR`: a real mouse click at the element's centre.
    Click(String),
    /// `type SELECTOR TEXT`: focus the element and type the text as key events.
    Type(String, String),
    /// `select SELECTOR VALUE`: choose an option of a `<select>` by value or label.
    Select(String, String),
    /// `scroll PX`: scroll the window by PX pixels (negative scrolls up).
    Scroll(f64),
    /// `wait MS`: wait.
    Wait(Duration),
}

impl ChromiumSession {
    /// Applies one scripted step through the same actuator as live episodes
    /// ([`ChromiumSession::perform`]): its selector is resolved to a node,
    /// then the node is clicked at its hit-tested centre, typed into, or its
    /// option chosen as a user would. A step that a user could not perform
    /// (covered, hidden, no such option) fails, naming the step.
    pub async fn apply(&mut self, step: &Step) -> Result<()> {
        self.tab().enter(Phase::Step);
        let action = match step {
            Step::Click(selector) => UserAction::Click {
                backend_id: self.node_of(selector).await?,
            },
            Step::Type(selector, text) => UserAction::Type {
                backend_id: Some(self.node_of(selector).await?),
                text: text.clone(),
            },
            Step::Select(selector, value) => UserAction::Select {
                backend_id: self.node_of(selector).await?,
                value: value.clone(),
            },
            Step::Scroll(px) => UserAction::Scroll {
                backend_id: None,
                dy: Some(*px),
                up: false,
            },
            Step::Wait(delay) => {
                tokio::time::sleep(*delay).await;
                return self.tab().settle().await;
            }
        };
        match self.perform(&action).await? {
            Outcome::Done { .. } => Ok(()),
            Outcome::Failed { message, .. } => Err(Error::Step {
                url: self.tab().url().to_owned(),
                step: step.to_string(),
                message,
            }),
        }
    }

    /// The backend node id of the first element matching `selector` (what
    /// [`crate::UserAction`]s name), for agents that find their targets by
    /// CSS; an error when nothing matches.
    pub async fn node_of(&self, selector: &str) -> Result<u64> {
        let element = self.tab().find(selector).await?;
        u64::try_from(*element.backend_node_id.inner()).map_err(|_| Error::Answer {
            url: self.tab().url().to_owned(),
            message: format!("{selector:?} has no backend node id"),
        })
    }
}

impl std::fmt::Display for Step {
    /// The step as `--then` spells it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Step::Click(selector) => write!(f, "click {selector:?}"),
            Step::Type(selector, text) => write!(f, "type {selector:?} {text:?}"),
            Step::Select(selector, value) => write!(f, "select {selector:?} {value:?}"),
            Step::Scroll(px) => write!(f, "scroll {px}"),
            Step::Wait(delay) => write!(f, "wait {}ms", delay.as_millis()),
        }
    }
}
