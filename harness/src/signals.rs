//! Stopping a recording on SIGINT or SIGTERM: the listeners are installed before the browser starts, so an interrupted `record` closes Chromium and removes its temp profile instead of dying with them left behind.

use std::process::ExitCode;

use anyhow::{Context, Result};
use tokio::signal::unix::{Signal, SignalKind, signal};

/// The signal that stopped a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// SIGINT (Ctrl-C).
    Interrupt,
    /// SIGTERM.
    Terminate,
}

impl Stop {
    /// The signal's name.
    pub fn name(self) -> &'static str {
        match self {
            Stop::Interrupt => "SIGINT",
            Stop::Terminate => "SIGTERM",
        }
    }

    /// The shell's status for a process ended by this signal: 128 + its number.
    pub fn exit_code(self) -> ExitCode {
        ExitCode::from(match self {
            Stop::Interrupt => 130,
            Stop::Terminate => 143,
        })
    }
}

/// SIGINT and SIGTERM listeners. While they live, neither signal ends the
/// process; [`Signals::recv`] reports them instead.
pub struct Signals {
    interrupt: Signal,
    terminate: Signal,
}

impl Signals {
    /// Installs the listeners (inside the async runtime).
    pub fn install() -> Result<Signals> {
        Ok(Signals {
            interrupt: signal(SignalKind::interrupt()).context("could not listen for SIGINT")?,
            terminate: signal(SignalKind::terminate()).context("could not listen for SIGTERM")?,
        })
    }

    /// Resolves at the next SIGINT or SIGTERM.
    pub async fn recv(&mut self) -> Stop {
        tokio::select! {
            _ = self.interrupt.recv() => Stop::Interrupt,
            _ = self.terminate.recv() => Stop::Terminate,
        }
    }
}
