//! Playwright's own `ariaSnapshot()` timed by the node helper `scripts/playwright/bench-aria.mjs`, one page per request.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use pagesnap_browser::BrowserCommand;
use serde::Deserialize;

const SCRIPT: &str = "bench-aria.mjs"; // checked for by `node::playwright_dir`
const COLD_SCRIPT: &str = "cold-aria.mjs";

/// The running helper: one Chromium launched by playwright-core.
pub struct Playwright {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    /// playwright-core's version.
    pub version: String,
    /// The browser version Playwright reports.
    pub browser: String,
}

/// Playwright's timings of one page.
#[derive(Clone, Debug, Deserialize)]
pub struct Timed {
    /// The first `ariaSnapshot()` after load.
    pub first_ms: f64,
    /// The warm calls, in order.
    pub warm_ms: Vec<f64>,
    /// Lines of the snapshot (a sanity figure).
    pub lines: usize,
}

#[derive(Deserialize)]
struct Ready {
    playwright: String,
    browser: String,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Answer {
    Timed(Timed),
    Error { error: String },
}

/// One cold Playwright observation as a whole process (`cold-aria.mjs`:
/// launch, `goto`, `ariaSnapshot()`, close); its wall time.
pub fn cold(url: &str) -> Result<Duration> {
    let dir = crate::node::playwright_dir()?;
    let started = std::time::Instant::now();
    let output = Command::new("node")
        .env(BrowserCommand::VAR, BrowserCommand::new(false)?.to_json())
        .arg(dir.join(COLD_SCRIPT))
        .arg(url)
        .stdin(Stdio::null())
        .output()
        .context("could not run `node` for --cold --vs-playwright")?;
    let elapsed = started.elapsed();
    if !output.status.success() {
        bail!(
            "Playwright cold run on {url} failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(elapsed)
}

impl Playwright {
    /// Starts the helper and waits until its browser is up.
    pub fn start() -> Result<Playwright> {
        let dir = crate::node::playwright_dir()?;
        let mut child = Command::new("node")
            .env(BrowserCommand::VAR, BrowserCommand::new(false)?.to_json())
            .arg(dir.join(SCRIPT))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .context("could not run `node` for --vs-playwright (scripts/setup installs Node.js)")?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            bail!("internal: the Playwright helper's pipes were not opened");
        };
        let mut stdout = BufReader::new(stdout);
        let mut line = String::new();
        stdout
            .read_line(&mut line)
            .context("the Playwright helper did not start")?;
        let ready: Ready = serde_json::from_str(&line).with_context(|| {
            format!("the Playwright helper did not start (it printed {line:?})")
        })?;
        Ok(Playwright {
            child,
            stdin: Some(stdin),
            stdout,
            version: ready.playwright,
            browser: ready.browser,
        })
    }

    /// Loads `url` in a new page and times the first and `runs` warm snapshots.
    pub fn measure(
        &mut self,
        url: &str,
        runs: usize,
        viewport: (u32, u32),
        timeout: Duration,
    ) -> Result<Timed> {
        let request = serde_json::json!({
            "url": url,
            "runs": runs,
            "width": viewport.0,
            "height": viewport.1,
            "timeout_ms": timeout.as_millis() as u64,
        });
        let stdin = self
            .stdin
            .as_mut()
            .context("internal: the Playwright helper's input is closed")?;
        writeln!(stdin, "{request}")
            .and_then(|()| stdin.flush())
            .with_context(|| format!("the Playwright helper exited before measuring {url}"))?;
        let mut line = String::new();
        let read = self.stdout.read_line(&mut line)?;
        if read == 0 {
            bail!("the Playwright helper exited while measuring {url}");
        }
        match serde_json::from_str::<Answer>(&line)
            .with_context(|| format!("the Playwright helper answered {line:?}"))?
        {
            Answer::Timed(timed) => Ok(timed),
            Answer::Error { error } => bail!("Playwright on {url}: {error}"),
        }
    }
}

impl Drop for Playwright {
    fn drop(&mut self) {
        // End of input ends the helper's loop and it closes its browser;
        // kill it if it has not exited within five seconds.
        drop(self.stdin.take());
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while std::time::Instant::now() < deadline {
            if !matches!(self.child.try_wait(), Ok(None)) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
