//! One running tool server, attached to a browser: started over stdio, initialized, its tools listed (what their definitions cost a model), then called with a limit on every answer; and every tool server's command line ([`command`]), for live episodes' peers and bench-mcp alike.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::json;

use super::mapping::{self, Arg, Call, Mapping};
use super::{Launch, Peer};
use crate::tokens;

/// A tool's answer.
pub struct Answer {
    /// Every text block, joined as a client shows them.
    pub text: String,
    /// The tool said it failed (`isError`).
    pub is_error: bool,
    /// Its `structuredContent`, if any.
    pub structured: Option<serde_json::Value>,
    /// The round trip, ms.
    pub ms: f64,
}

/// A running server and the client session to it.
pub struct Connection {
    /// A daemon the server started and left running, ended with the connection
    /// (first: fields drop in order, and its pid file is in `_dir`).
    daemon: Option<Daemon>,
    name: String,
    client: RunningService<RoleClient, ()>,
    stderr: tempfile::NamedTempFile,
    timeout: Duration,
    /// What the server's tool definitions cost a model, in o200k tokens
    /// (their JSON, as a client lists them to the model).
    pub definition_tokens: usize,
    /// The tools it offers, by name.
    tools: Vec<String>,
    /// Its working folder (Playwright MCP may write files there; kept until it stops).
    _dir: tempfile::TempDir,
    /// Values every call may use besides its own: the episode's `{tab}` and
    /// `{url}` once the tab is chosen ([`Connection::remember`]).
    known: std::sync::Mutex<Vec<(&'static str, String)>>,
}

/// agent-browser's session name in a connection's own socket folder.
const AGENT_BROWSER_SESSION: &str = "pagesnap";

/// A daemon a server started and left running (agent-browser's), by its pid
/// file: ended when dropped, with the connection.
struct Daemon(std::path::PathBuf);

/// How long a daemon has to end after SIGTERM before it is killed: on a
/// loaded machine agent-browser's took over 5 s once (CI, beside the
/// Chromium tests), and outlived the run.
const DAEMON_GRACE: Duration = Duration::from_secs(2);

impl Drop for Daemon {
    fn drop(&mut self) {
        let Some(pid) = std::fs::read_to_string(&self.0)
            .ok()
            .and_then(|text| text.trim().parse::<u32>().ok())
        else {
            return;
        };
        let signal = |signal: &str| {
            // A daemon already gone is no error.
            let _ = std::process::Command::new("kill")
                .args([signal, &pid.to_string()])
                .stderr(std::process::Stdio::null())
                .status();
        };
        // Running while its command line can be read (a zombie's is empty).
        let running =
            || std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|line| !line.is_empty());
        signal("-TERM");
        let deadline = Instant::now() + DAEMON_GRACE;
        while running() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        if running() {
            signal("-KILL");
        }
    }
}

/// The browser a tool server works on.
pub enum ServerBrowser<'a> {
    /// One running already, which the server attaches to at `cdp` (its
    /// websocket URL); the server runs in `uploads`, the only folder it may
    /// read files from.
    Attached {
        /// The browser's CDP websocket URL.
        cdp: &'a str,
        /// The upload folder.
        uploads: &'a Path,
    },
    /// One the server launches itself, headless, at `viewport` (`WxH`):
    /// pagesnap's and Playwright MCP's, with the binary every server uses
    /// ([`pagesnap_browser::Chromium::executable`]).
    Launched {
        /// The viewport, `WxH`.
        viewport: &'a str,
        /// Whether hosts other than loopback resolve; without, only
        /// 127.0.0.1 and localhost do ([`pagesnap_browser::OFFLINE_FLAG`]).
        network: bool,
    },
}

/// Every tool server's command line, in one place (the peers of live
/// episodes and bench-mcp's servers alike): `launch`'s server on `browser`,
/// with `dir` a folder of its own (Playwright MCP's output, agent-browser's
/// socket and pid file), kept while it runs.
pub fn command(
    launch: &Launch,
    browser: &ServerBrowser<'_>,
    dir: &Path,
) -> Result<tokio::process::Command> {
    let mut command = match (launch, browser) {
        (Launch::Playwright, ServerBrowser::Attached { cdp, .. }) => {
            let mut command = tokio::process::Command::new("node");
            command
                .arg(crate::node::playwright_mcp_cli()?)
                .args(["--cdp-endpoint", cdp])
                .arg("--output-dir")
                .arg(dir);
            command
        }
        (Launch::Playwright, ServerBrowser::Launched { viewport, network }) => {
            let cli = crate::node::playwright_mcp_cli()?;
            let mut command = tokio::process::Command::new("node");
            command
                .arg(cli)
                .args(["--headless", "--isolated", "--no-sandbox"])
                .arg("--executable-path")
                .arg(pagesnap_browser::Chromium::executable()?)
                .args(["--viewport-size", viewport])
                .arg("--output-dir")
                .arg(dir);
            if !network {
                // Its command line takes no browser flag; its configuration file
                // does (merged with the command line's launch options).
                let config = dir.join("playwright-mcp-offline.json");
                let flags = json!({"browser": {"launchOptions": {"args": [pagesnap_browser::OFFLINE_FLAG]}}});
                std::fs::write(&config, flags.to_string())
                    .with_context(|| format!("could not write {}", config.display()))?;
                command.arg("--config").arg(config);
            }
            command
        }
        (Launch::ChromeDevtools, ServerBrowser::Attached { cdp, uploads }) => {
            let mut command = tokio::process::Command::new("node");
            command
                .arg(crate::node::chrome_devtools_mcp_cli()?)
                .args(["--wsEndpoint", cdp])
                .args(["--no-usage-statistics", "--no-performance-crux"])
                // Its file tools read only under a root (by default the temp folder).
                .arg("--filesystem-root")
                .arg(uploads);
            command
        }
        (Launch::AgentBrowser, ServerBrowser::Attached { cdp, .. }) => {
            // Its daemon (which the server starts and which outlives it) keeps its socket, pid file and
            // state in this connection's folder, under a session of its own: two connections never
            // share one, and the daemon is ended with the connection (see Drop).
            let mut command = tokio::process::Command::new(crate::node::agent_browser_bin()?);
            command
                .args(["mcp", "--tools", "all"])
                .env("AGENT_BROWSER_CDP", cdp)
                .env("AGENT_BROWSER_SOCKET_DIR", dir)
                .env("AGENT_BROWSER_SESSION", AGENT_BROWSER_SESSION)
                .env("AGENT_BROWSER_NO_VERSION_CHECK", "1")
                // If pagesnap dies before it can end the daemon, the daemon ends itself.
                .env("AGENT_BROWSER_IDLE_TIMEOUT_MS", "120000");
            command
        }
        (Launch::Pagesnap, ServerBrowser::Attached { cdp, uploads }) => {
            let exe = std::env::current_exe().context("could not find the pagesnap binary")?;
            let mut command = tokio::process::Command::new(exe);
            command
                .args(["mcp", "--cdp-endpoint", cdp])
                .arg("--upload-dir")
                .arg(uploads);
            command
        }
        (Launch::Pagesnap, ServerBrowser::Launched { viewport, network }) => {
            let exe = std::env::current_exe().context("could not find the pagesnap binary")?;
            let mut command = tokio::process::Command::new(exe);
            command.args(["mcp", "--viewport", viewport]);
            if !network {
                command.arg("--offline");
            }
            command
        }
        (Launch::Shell(line), ServerBrowser::Attached { cdp, .. }) => {
            let mut command = tokio::process::Command::new("sh");
            command.arg("-c").arg(line.replace("{cdp}", cdp));
            command
        }
        (
            Launch::ChromeDevtools | Launch::AgentBrowser | Launch::Shell(_),
            ServerBrowser::Launched { .. },
        ) => {
            bail!("this tool server cannot launch the browser every server uses: attach it to one")
        }
    };
    if let ServerBrowser::Attached { uploads, .. } = browser {
        command.current_dir(uploads);
    }
    Ok(command)
}

impl Connection {
    /// Starts `peer` attached to the browser at `cdp` (its websocket URL),
    /// initializes it and lists its tools, which must include every tool
    /// its mapping calls. Each server may read files in the upload folder
    /// `uploads` only: it runs there (Playwright MCP reads files only under
    /// its working folder), Chrome DevTools MCP has it as its filesystem
    /// root, pagesnap's server as its `--upload-dir`.
    pub async fn start(peer: &Peer, cdp: &str, uploads: &Path) -> Result<Connection> {
        let dir = tempfile::Builder::new()
            .prefix("pagesnap-peer-")
            .tempdir()
            .context("could not create a temp folder")?;
        let command = command(
            &peer.launch,
            &ServerBrowser::Attached { cdp, uploads },
            dir.path(),
        )?;
        let daemon = matches!(peer.launch, Launch::AgentBrowser)
            .then(|| Daemon(dir.path().join(format!("{AGENT_BROWSER_SESSION}.pid"))));
        let mut connection = Connection::launch(&peer.name, command, dir, peer.timeout).await?;
        connection.daemon = daemon;
        connection.offers(&peer.mapping.tools())?;
        Ok(connection)
    }

    /// Starts `command` (in its own working folder, if it names one) with
    /// `dir` kept until the connection stops, initializes it and lists its
    /// tools; every call is limited to `timeout`, and errors name the server
    /// `name`.
    pub async fn launch(
        name: &str,
        command: tokio::process::Command,
        dir: tempfile::TempDir,
        timeout: Duration,
    ) -> Result<Connection> {
        let stderr = tempfile::NamedTempFile::new().context("could not create a temp file")?;
        let client = spawn(name, command, &stderr, timeout).await?;
        let tools = match tokio::time::timeout(timeout, client.list_all_tools()).await {
            Ok(Ok(tools)) => tools,
            Ok(Err(err)) => bail!("{name}: tools/list failed: {err}{}", tail(stderr.path())),
            Err(_) => bail!("{name}: no answer to tools/list within {timeout:?}"),
        };
        let definitions = serde_json::to_string(&tools).context("tool definitions")?;
        Ok(Connection {
            name: name.to_owned(),
            client,
            stderr,
            timeout,
            definition_tokens: tokens::o200k(&definitions),
            tools: tools.iter().map(|t| t.name.to_string()).collect(),
            _dir: dir,
            known: std::sync::Mutex::new(Vec::new()),
            daemon: None,
        })
    }

    /// Makes `{key}` stand for `value` in every later call (a call's own
    /// value of the same name wins).
    pub fn remember(&self, key: &'static str, value: &str) {
        if let Ok(mut known) = self.known.lock() {
            known.retain(|(k, _)| *k != key);
            known.push((key, value.to_owned()));
        }
    }

    /// Tells the server to work on the tab at `url`: its mapping's tab
    /// listing names the tab, its tab selection chooses it, and every later
    /// call may name it (`{tab}`: a server that wants its page id on each
    /// call) and the page (`{url}`).
    pub async fn choose_tab(&self, mapping: &Mapping, url: &str) -> Result<()> {
        let name = &self.name;
        let listing = self.call(&mapping.list_tabs, &[]).await?;
        let Some(tab) = mapping.tab_of(&listing.text, url) else {
            bail!(
                "{name}: its tab listing ({}) names no tab at {url}: {}",
                mapping.list_tabs.tool,
                listing.text
            );
        };
        let chosen = self
            .call(&mapping.select_tab, &[("tab", tab.as_str().into())])
            .await?;
        if chosen.is_error {
            bail!(
                "{name}: {} could not choose tab {tab}: {}",
                mapping.select_tab.tool,
                chosen.text
            );
        }
        self.remember("tab", &tab);
        self.remember("url", url);
        Ok(())
    }

    /// `values` with the remembered ones added: the placeholders any call of
    /// this server may use.
    pub fn values_with_known(&self, values: &[(&str, Arg)]) -> Vec<(String, Arg)> {
        let mut all: Vec<(String, Arg)> = values
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect();
        if let Ok(known) = self.known.lock() {
            for (key, value) in known.iter() {
                if !values.iter().any(|(k, _)| k == key) {
                    all.push(((*key).to_owned(), Arg::Text(value.clone())));
                }
            }
        }
        all
    }

    /// Refuses, naming the first, any of `tools` the server does not offer.
    pub fn offers(&self, tools: &[&str]) -> Result<()> {
        for tool in tools {
            if !self.tools.iter().any(|t| t == tool) {
                bail!(
                    "{}: the mapping names tool {tool:?}, which the server does not offer (it offers {})",
                    self.name,
                    self.tools.join(", ")
                );
            }
        }
        Ok(())
    }

    /// `name version` as the server reports itself (its name as given when
    /// it reports nothing).
    pub fn version(&self) -> String {
        self.client
            .peer_info()
            .and_then(|info| info.server_info.clone())
            .map_or_else(
                || self.name.clone(),
                |server| format!("{} {}", server.name, server.version),
            )
    }

    /// Calls `call` with its placeholders filled from `values` and the
    /// remembered ones.
    pub async fn call(&self, call: &Call, values: &[(&str, Arg)]) -> Result<Answer> {
        self.send(&call.tool, self.arguments(call, values)?).await
    }

    /// `call`'s arguments, its placeholders filled from `values` and the
    /// remembered ones.
    pub fn arguments(
        &self,
        call: &Call,
        values: &[(&str, Arg)],
    ) -> Result<serde_json::Map<String, serde_json::Value>> {
        let all = self.values_with_known(values);
        let borrowed: Vec<(&str, Arg)> = all.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
        mapping::arguments(call, &borrowed)
    }

    /// Calls `tool` with `arguments` as they are.
    pub async fn send(
        &self,
        tool: &str,
        arguments: serde_json::Map<String, serde_json::Value>,
    ) -> Result<Answer> {
        let name = &self.name;
        let request = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
        let started = Instant::now();
        let answer = tokio::time::timeout(self.timeout, self.client.call_tool(request)).await;
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        let result: CallToolResult = match answer {
            Ok(Ok(result)) => result,
            Ok(Err(err)) => bail!("{name}: {tool}: {err}{}", tail(self.stderr.path())),
            Err(_) => bail!("{name}: {tool} gave no answer within {:?}", self.timeout),
        };
        Ok(Answer {
            text: text_of(&result),
            is_error: result.is_error == Some(true),
            structured: result.structured_content,
            ms,
        })
    }

    /// Ends the session and the server.
    pub async fn stop(self) {
        let _ = self.client.cancel().await;
    }
}

/// Starts `command` (killed when the session drops), its stderr into
/// `stderr`, and initializes an MCP client session over its stdio within
/// `timeout`; errors name the server `name` and end with its stderr.
async fn spawn(
    name: &str,
    mut command: tokio::process::Command,
    stderr: &tempfile::NamedTempFile,
    timeout: Duration,
) -> Result<RunningService<RoleClient, ()>> {
    command.kill_on_drop(true);
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::from(stderr.reopen()?))
        .spawn()
        .with_context(|| format!("{name}: could not start the server"))?;
    match tokio::time::timeout(timeout, ().serve(transport)).await {
        Ok(Ok(client)) => Ok(client),
        Ok(Err(err)) => bail!("{name}: initialize failed: {err}{}", tail(stderr.path())),
        Err(_) => bail!(
            "{name}: no answer to initialize within {timeout:?}{}",
            tail(stderr.path())
        ),
    }
}

/// Every text block of a tool's result, joined as a client shows them.
fn text_of(result: &CallToolResult) -> String {
    let texts: Vec<&str> = result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|t| t.text.as_str()))
        .collect();
    texts.join("\n")
}

/// The last lines a server wrote to stderr, for an error message.
fn tail(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().rev().take(5).collect();
    if lines.is_empty() {
        String::new()
    } else {
        let lines: Vec<&str> = lines.into_iter().rev().collect();
        format!(" (its stderr ends: {})", lines.join(" | "))
    }
}
