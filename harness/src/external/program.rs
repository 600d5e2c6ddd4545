//! An external strategy's running program: started once and kept, one JSON line out and one back per observation, each call bounded; a program that exits, hangs or answers garbage is stopped, its call fails with a named error, and the next call starts it again.

use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use super::External;
use super::protocol::{self, Checked, Hello, Malformed, Observe, PROTOCOL, Ready};

/// Lines of the program's stderr kept for error messages.
const STDERR_LINES: usize = 6;

/// Why a call to an external strategy failed. Each names the strategy, its
/// command and what was asked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExternalError {
    /// The program could not be started.
    #[error("external strategy {name} (`{command}`) could not be started")]
    Spawn {
        /// The strategy.
        name: String,
        /// Its command.
        command: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The program exited or closed its stdout.
    #[error("external strategy {name} (`{command}`) exited {what}{status}{stderr}")]
    Exited {
        /// The strategy.
        name: String,
        /// Its command.
        command: String,
        /// What it was asked (`during its hello`, `at step 2 of http://…`).
        what: String,
        /// `(exit status 3)`.
        status: String,
        /// The last lines of its stderr.
        stderr: String,
    },
    /// No answer line in time.
    #[error(
        "external strategy {name} (`{command}`) did not answer {what} within {limit:.1} s; it was stopped and will be restarted{stderr}"
    )]
    Timeout {
        /// The strategy.
        name: String,
        /// Its command.
        command: String,
        /// What it was asked.
        what: String,
        /// The limit, seconds.
        limit: f64,
        /// The last lines of its stderr.
        stderr: String,
    },
    /// An answer that is not one.
    #[error("external strategy {name} (`{command}`) answered {what} with a malformed answer")]
    Malformed {
        /// The strategy.
        name: String,
        /// Its command.
        command: String,
        /// What it was asked.
        what: String,
        /// What is wrong with it.
        #[source]
        source: Malformed,
    },
    /// The program said it cannot start.
    #[error("external strategy {name} (`{command}`) refused its hello: {reason}")]
    NotReady {
        /// The strategy.
        name: String,
        /// Its command.
        command: String,
        /// Its reason.
        reason: String,
    },
}

/// A started program.
struct Running {
    child: Child,
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    /// Reads stderr into `stderr` until the program's end closes it.
    stderr_reader: tokio::task::JoinHandle<()>,
}

/// An external strategy's program for one browser: started on the first
/// call, kept across calls, restarted after it failed.
pub struct Program {
    external: Arc<External>,
    ws: String,
    running: Option<Running>,
    about: Option<String>,
    starts: usize,
}

/// One answer and its round trip.
pub struct Answered {
    /// The checked answer.
    pub answer: Checked,
    /// From writing the request to reading the answer.
    pub round_trip: Duration,
}

impl Program {
    /// A program for the browser at `ws` (started on the first call).
    pub fn new(external: Arc<External>, ws: &str) -> Program {
        Program {
            external,
            ws: ws.to_owned(),
            running: None,
            about: None,
            starts: 0,
        }
    }

    /// The strategy's name (`ext:NAME`).
    pub fn name(&self) -> &str {
        &self.external.name
    }

    /// What the program said it is (after a successful hello).
    pub fn about(&self) -> Option<&str> {
        self.about.as_deref()
    }

    /// How many times the program was started.
    pub fn starts(&self) -> usize {
        self.starts
    }

    /// Starts the program (if it is not running) and waits for its answer to the hello.
    pub async fn start(&mut self) -> Result<(), ExternalError> {
        if self.running.is_some() {
            return Ok(());
        }
        let external = Arc::clone(&self.external);
        let mut command = Command::new(&external.program);
        command
            .args(&external.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own process group, so that stopping it stops what a shell
            // command started too (`sh -c 'node …'`).
            .process_group(0)
            .kill_on_drop(true);
        let mut child = command.spawn().map_err(|source| ExternalError::Spawn {
            name: external.name.clone(),
            command: external.command_line(),
            source,
        })?;
        self.starts += 1;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            // Invariant: all three were asked for as pipes just above.
            return Err(ExternalError::Spawn {
                name: external.name.clone(),
                command: external.command_line(),
                source: std::io::Error::other("its stdin, stdout or stderr is not a pipe"),
            });
        };
        let kept = Arc::new(Mutex::new(VecDeque::new()));
        let sink = Arc::clone(&kept);
        let stderr_reader = tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                if let Ok(mut kept) = sink.lock() {
                    if kept.len() == STDERR_LINES {
                        kept.pop_front();
                    }
                    kept.push_back(line);
                }
            }
        });
        self.running = Some(Running {
            child,
            stdin,
            lines: BufReader::new(stdout).lines(),
            stderr: kept,
            stderr_reader,
        });
        let hello = Hello {
            kind: "hello",
            protocol: PROTOCOL,
            ws: &self.ws,
        };
        let line = self
            .exchange(&to_line(&hello), "its hello", external.timeout)
            .await?;
        let ready: Result<Ready, _> = serde_json::from_str(&line);
        match ready {
            Ok(Ready {
                ready: true,
                about,
                error: None,
            }) => {
                self.about = about;
                Ok(())
            }
            Ok(Ready {
                error: Some(reason),
                ..
            }) => {
                self.stop().await;
                Err(ExternalError::NotReady {
                    name: external.name.clone(),
                    command: external.command_line(),
                    reason,
                })
            }
            Ok(_) | Err(_) => {
                self.stop().await;
                let start: String = line.chars().take(80).collect();
                Err(ExternalError::Malformed {
                    name: external.name.clone(),
                    command: external.command_line(),
                    what: "its hello".to_owned(),
                    source: Malformed::Json(
                        "expected {\"ready\": true, \"about\": …}".to_owned(),
                        start,
                    ),
                })
            }
        }
    }

    /// Asks for one observation of the tab `target`, starting the program
    /// first if needed. A program that fails is stopped; the next call starts
    /// it again.
    pub async fn observe(&mut self, request: &Observe<'_>) -> Result<Answered, ExternalError> {
        self.start().await?;
        let what = format!("at step {} of {}", request.step, request.url);
        let started = Instant::now();
        let line = self
            .exchange(&to_line(request), &what, self.external.timeout)
            .await?;
        let round_trip = started.elapsed();
        match protocol::check(&line) {
            Ok(answer) => Ok(Answered { answer, round_trip }),
            Err(source) => {
                // An answer the program reported as an error keeps the
                // program; any other line means it lost the protocol.
                if !matches!(source, Malformed::Reported(_)) {
                    self.stop().await;
                }
                Err(ExternalError::Malformed {
                    name: self.external.name.clone(),
                    command: self.external.command_line(),
                    what,
                    source,
                })
            }
        }
    }

    /// Writes one line and reads one back within `limit`; on failure the
    /// program is stopped.
    async fn exchange(
        &mut self,
        line: &str,
        what: &str,
        limit: Duration,
    ) -> Result<String, ExternalError> {
        let Some(running) = self.running.as_mut() else {
            return Err(self.exited(what, String::new(), None).await);
        };
        let exchange = async {
            running.stdin.write_all(line.as_bytes()).await?;
            running.stdin.flush().await?;
            running.lines.next_line().await
        };
        match tokio::time::timeout(limit, exchange).await {
            Ok(Ok(Some(answer))) => Ok(answer),
            Ok(Ok(None)) | Ok(Err(_)) => {
                let status = match running.child.wait().await {
                    Ok(status) => format!(" ({status})"),
                    Err(_) => String::new(),
                };
                // Its last words: the reader ends when the program's end closes stderr.
                let _ =
                    tokio::time::timeout(Duration::from_millis(500), &mut running.stderr_reader)
                        .await;
                let stderr = self.stderr_tail();
                Err(self.exited(what, status, Some(stderr)).await)
            }
            Err(_) => {
                let stderr = self.stderr_tail();
                self.stop().await;
                Err(ExternalError::Timeout {
                    name: self.external.name.clone(),
                    command: self.external.command_line(),
                    what: what.to_owned(),
                    limit: limit.as_secs_f64(),
                    stderr,
                })
            }
        }
    }

    async fn exited(
        &mut self,
        what: &str,
        status: String,
        stderr: Option<String>,
    ) -> ExternalError {
        let stderr = stderr.unwrap_or_else(|| self.stderr_tail());
        self.stop().await;
        ExternalError::Exited {
            name: self.external.name.clone(),
            command: self.external.command_line(),
            what: what.to_owned(),
            status,
            stderr,
        }
    }

    /// `; stderr: …` with the program's last stderr lines, or nothing.
    fn stderr_tail(&self) -> String {
        let Some(running) = &self.running else {
            return String::new();
        };
        let lines: Vec<String> = running
            .stderr
            .lock()
            .map(|l| l.iter().cloned().collect())
            .unwrap_or_default();
        if lines.is_empty() {
            String::new()
        } else {
            format!("; stderr: {}", lines.join(" | "))
        }
    }

    /// Stops the program (closing its stdin first lets a well-behaved one
    /// exit on its own; then its whole process group is killed).
    pub async fn stop(&mut self) {
        if let Some(mut running) = self.running.take() {
            drop(running.stdin);
            let exited = tokio::time::timeout(Duration::from_millis(500), running.child.wait());
            if exited.await.is_err() {
                if let Some(pid) = running.child.id() {
                    // The group's id is the program's pid (`process_group(0)`).
                    let _ = tokio::process::Command::new("kill")
                        .args(["-KILL", "--", &format!("-{pid}")])
                        .stdin(Stdio::null())
                        .stdout(Stdio::null())
                        .stderr(Stdio::null())
                        .status()
                        .await;
                }
                let _ = running.child.kill().await;
            }
        }
    }
}

fn to_line(message: &impl serde::Serialize) -> String {
    // Invariant: the messages are plain structs of strings and numbers, which
    // always serialise.
    let mut line = serde_json::to_string(message).unwrap_or_default();
    line.push('\n');
    line
}
