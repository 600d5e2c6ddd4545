//! The scripted steps of `record --then`, applied to an open tab through the one actuator ([`super::act`]).

use std::time::Duration;

use crate::error::{Error, Result};

use super::Input;
use crate::action::{Outcome, ScrollBy, UserAction};
use crate::failure::Phase;
use crate::readiness::Readiness;

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

impl Input<'_> {
    /// [`crate::ChromiumSession::apply`]'s work.
    pub(crate) async fn apply(&self, step: &Step) -> Result<()> {
        self.tab.enter(Phase::Step);
        let action = match step {
            Step::Click(selector) => UserAction::click(self.node_of(selector).await?),
            Step::Type(selector, text) => UserAction::Type {
                backend_id: Some(self.node_of(selector).await?),
                text: text.clone(),
            },
            Step::Select(selector, value) => UserAction::Select {
                backend_id: self.node_of(selector).await?,
                value: value.clone(),
            },
            Step::Scroll(px) => UserAction::scroll(None, ScrollBy::Pixels(*px)),
            Step::Wait(delay) => {
                tokio::time::sleep(*delay).await;
                return self.tab.settle().await;
            }
        };
        match self.perform(&action, Readiness::of(&action)).await?.outcome {
            Outcome::Done { .. } => Ok(()),
            Outcome::Failed { message, .. } => Err(Error::Step {
                url: self.tab.url().to_owned(),
                step: step.to_string(),
                message,
            }),
        }
    }

    /// [`crate::ChromiumSession::node_of`]'s work.
    pub(crate) async fn node_of(&self, selector: &str) -> Result<u64> {
        let element = self.tab.find(selector).await?;
        u64::try_from(*element.backend_node_id.inner()).map_err(|_| Error::Answer {
            url: self.tab.url().to_owned(),
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
