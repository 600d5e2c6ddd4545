//! One running tool server, attached to a browser: started over stdio, initialized, its tools listed (what their definitions cost a model), then called with a limit on every answer.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};

use super::mapping::{self, Call};
use super::{Launch, Peer};
use crate::tokens;

/// A tool's answer.
pub struct Answer {
    /// Every text block, joined as a client shows them.
    pub text: String,
    /// The tool said it failed (`isError`).
    pub is_error: bool,
    /// The round trip, ms.
    pub ms: f64,
}

/// A running server and the client session to it.
pub struct Connection {
    name: String,
    client: RunningService<RoleClient, ()>,
    stderr: tempfile::NamedTempFile,
    timeout: Duration,
    /// What the server's tool definitions cost a model, in o200k tokens
    /// (their JSON, as a client lists them to the model).
    pub definition_tokens: usize,
    /// Its working folder (Playwright MCP may write files there).
    _dir: tempfile::TempDir,
}

impl Connection {
    /// Starts `peer` attached to the browser at `cdp` (its websocket URL),
    /// initializes it and lists its tools.
    pub async fn start(peer: &Peer, cdp: &str) -> Result<Connection> {
        let name = &peer.name;
        let dir = tempfile::Builder::new()
            .prefix("pagesnap-peer-")
            .tempdir()
            .context("could not create a temp folder")?;
        let stderr = tempfile::NamedTempFile::new().context("could not create a temp file")?;
        let command = match &peer.launch {
            Launch::Playwright => {
                let mut command = tokio::process::Command::new("node");
                command
                    .arg(crate::node::playwright_mcp_cli()?)
                    .args(["--cdp-endpoint", cdp])
                    .arg("--output-dir")
                    .arg(dir.path());
                command
            }
            Launch::Pagesnap => {
                let exe = std::env::current_exe().context("could not find the pagesnap binary")?;
                let mut command = tokio::process::Command::new(exe);
                command.args(["mcp", "--cdp-endpoint", cdp]);
                command
            }
            Launch::Shell(line) => {
                let mut command = tokio::process::Command::new("sh");
                command.arg("-c").arg(line.replace("{cdp}", cdp));
                command
            }
        };
        let client = spawn(name, command, dir.path(), &stderr, peer.timeout).await?;
        let tools = match tokio::time::timeout(peer.timeout, client.list_all_tools()).await {
            Ok(Ok(tools)) => tools,
            Ok(Err(err)) => bail!("{name}: tools/list failed: {err}{}", tail(stderr.path())),
            Err(_) => bail!("{name}: no answer to tools/list within {:?}", peer.timeout),
        };
        let definitions = serde_json::to_string(&tools).context("tool definitions")?;
        for tool in peer.mapping.tools() {
            if !tools.iter().any(|t| t.name == tool) {
                bail!(
                    "{name}: the mapping names tool {tool:?}, which the server does not offer (it offers {})",
                    tools
                        .iter()
                        .map(|t| t.name.as_ref())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
        }
        Ok(Connection {
            name: name.clone(),
            client,
            stderr,
            timeout: peer.timeout,
            definition_tokens: tokens::o200k(&definitions),
            _dir: dir,
        })
    }

    /// Calls `call` with its placeholders filled from `values`.
    pub async fn call(&self, call: &Call, values: &[(&str, &str)]) -> Result<Answer> {
        self.send(&call.tool, mapping::arguments(call, values)?)
            .await
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
            ms,
        })
    }

    /// Whether the server still answers (its tool listing, within 5 s).
    pub async fn alive(&self) -> bool {
        matches!(
            tokio::time::timeout(Duration::from_secs(5), self.client.list_all_tools()).await,
            Ok(Ok(_))
        )
    }

    /// Ends the session and the server.
    pub async fn stop(self) {
        let _ = self.client.cancel().await;
    }
}

/// Starts `command` in `dir` (killed when the session drops), its stderr
/// into `stderr`, and initializes an MCP client session over its stdio
/// within `timeout`; errors name the server `name` and end with its stderr.
pub async fn spawn(
    name: &str,
    mut command: tokio::process::Command,
    dir: &Path,
    stderr: &tempfile::NamedTempFile,
    timeout: Duration,
) -> Result<RunningService<RoleClient, ()>> {
    command.current_dir(dir).kill_on_drop(true);
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
pub fn text_of(result: &CallToolResult) -> String {
    let texts: Vec<&str> = result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|t| t.text.as_str()))
        .collect();
    texts.join("\n")
}

/// The last lines a server wrote to stderr, for an error message.
pub fn tail(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().rev().take(5).collect();
    if lines.is_empty() {
        String::new()
    } else {
        let lines: Vec<&str> = lines.into_iter().rev().collect();
        format!(" (its stderr ends: {})", lines.join(" | "))
    }
}
