//! Capturing live pages into Recordings: the `Capture` interface, scripted actions, and the Chromium backend.

mod act;
mod caps;
mod chromium;
mod failure;
mod live;
mod record;
mod session;
mod signals;
mod snapshot;
mod state;

pub use act::{Outcome, UserAction, key_names};
pub use caps::Caps;
pub use chromium::{Chromium, OpenOptions};
pub use failure::TabError;
pub use live::{Live, Timings};
pub use record::{Job, Written, record};
pub use session::ChromiumSession;
pub use signals::{Signals, Stop};
pub use state::{Call, CaptureTimings, Needs, Png};

use std::time::Duration;

use anyhow::{Context, Result, bail};
use pagesnap_engine::recording::Recording;

/// The async runtime Chromium sessions run on: four worker threads, timers
/// and I/O enabled. Capture mostly waits on the browser, but the CDP client
/// parses each answer on a worker (seconds for a 100,000-node snapshot), and
/// the timers that end calls at the page's budget must still fire then.
pub fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .context("could not start the async runtime")
}

/// A captured page state: the recording and, when asked for, its viewport screenshot (PNG).
pub struct Captured {
    /// The recording.
    pub recording: Recording,
    /// PNG bytes of the viewport ([`Needs::screenshot`]).
    pub screenshot: Option<Vec<u8>>,
}

/// One open page that can be acted on and captured. Implemented by
/// [`ChromiumSession`]; the engine never sees this.
#[allow(async_fn_in_trait)]
pub trait Capture {
    /// Applies one scripted action.
    async fn apply(&mut self, action: &Action) -> Result<()>;
    /// Captures the current state.
    async fn capture(&mut self) -> Result<Captured>;
}

/// What to wait for after load, before the first capture.
#[derive(Clone, Debug, PartialEq)]
pub enum WaitFor {
    /// Until an element matches the CSS selector.
    Selector(String),
    /// A fixed delay.
    Delay(Duration),
}

impl WaitFor {
    /// Parses `200ms`, `200` (milliseconds) or a CSS selector.
    pub fn parse(text: &str) -> WaitFor {
        let trimmed = text.trim();
        let digits = trimmed.strip_suffix("ms").unwrap_or(trimmed);
        match digits.parse::<u64>() {
            Ok(ms) => WaitFor::Delay(Duration::from_millis(ms)),
            Err(_) => WaitFor::Selector(trimmed.to_owned()),
        }
    }
}

/// A scripted step applied between captures (`--then`).
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
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

impl Action {
    /// Parses one step, e.g. `type "#user name" ada@example.com`. Tokens are
    /// split on whitespace; double quotes group a token.
    pub fn parse(step: &str) -> Result<Action> {
        let tokens = split_tokens(step).with_context(|| format!("in step {step:?}"))?;
        let Some((verb, args)) = tokens.split_first() else {
            bail!("empty step");
        };
        let want = |n: usize, usage: &str| -> Result<()> {
            if args.len() != n {
                bail!("step {step:?}: expected `{usage}`");
            }
            Ok(())
        };
        Ok(match verb.as_str() {
            "click" => {
                want(1, "click SELECTOR")?;
                Action::Click(args[0].clone())
            }
            "type" => {
                if args.len() < 2 {
                    bail!("step {step:?}: expected `type SELECTOR TEXT`");
                }
                Action::Type(args[0].clone(), args[1..].join(" "))
            }
            "select" => {
                want(2, "select SELECTOR VALUE")?;
                Action::Select(args[0].clone(), args[1].clone())
            }
            "scroll" => {
                want(1, "scroll PX")?;
                let px = args[0].parse::<f64>().with_context(|| {
                    format!("step {step:?}: `{}` is not a number of pixels", args[0])
                })?;
                Action::Scroll(px)
            }
            "wait" => {
                want(1, "wait MS")?;
                let ms = args[0]
                    .trim_end_matches("ms")
                    .parse::<u64>()
                    .with_context(|| {
                        format!(
                            "step {step:?}: `{}` is not a number of milliseconds",
                            args[0]
                        )
                    })?;
                Action::Wait(Duration::from_millis(ms))
            }
            other => bail!(
                "step {step:?}: unknown action `{other}` (expected click, type, select, scroll or wait)"
            ),
        })
    }

    /// Parses a `;`-separated sequence (the `--then` flag).
    pub fn parse_sequence(text: &str) -> Result<Vec<Action>> {
        text.split(';')
            .map(str::trim)
            .filter(|step| !step.is_empty())
            .map(Action::parse)
            .collect()
    }
}

fn split_tokens(text: &str) -> Result<Vec<String>> {
    let mut tokens = Vec::new();
    let mut current = String::new();
    let mut in_quotes = false;
    let mut has_token = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                in_quotes = !in_quotes;
                has_token = true;
            }
            '\\' if in_quotes => {
                if let Some(next) = chars.next() {
                    current.push(next);
                }
            }
            c if c.is_whitespace() && !in_quotes => {
                if has_token {
                    tokens.push(std::mem::take(&mut current));
                    has_token = false;
                }
            }
            c => {
                current.push(c);
                has_token = true;
            }
        }
    }
    if in_quotes {
        bail!("unclosed double quote");
    }
    if has_token {
        tokens.push(current);
    }
    Ok(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_action() {
        let actions =
            Action::parse_sequence(r#"click #go; type "form input[name=q]" hello world; select #c DE; scroll -300; wait 50ms"#)
                .unwrap();
        assert_eq!(
            actions,
            vec![
                Action::Click("#go".into()),
                Action::Type("form input[name=q]".into(), "hello world".into()),
                Action::Select("#c".into(), "DE".into()),
                Action::Scroll(-300.0),
                Action::Wait(Duration::from_millis(50)),
            ]
        );
    }

    #[test]
    fn rejects_bad_steps_with_the_step_named() {
        let err = Action::parse("hover #x").unwrap_err().to_string();
        assert!(
            err.contains("hover #x") && err.contains("unknown action"),
            "{err}"
        );
        let err = Action::parse("scroll lots").unwrap_err().to_string();
        assert!(err.contains("lots"), "{err}");
        assert!(Action::parse(r##"click "#x"##).is_err());
    }

    #[test]
    fn wait_for_parses_delays_and_selectors() {
        assert_eq!(
            WaitFor::parse("250ms"),
            WaitFor::Delay(Duration::from_millis(250))
        );
        assert_eq!(
            WaitFor::parse("#app.ready"),
            WaitFor::Selector("#app.ready".into())
        );
    }
}
