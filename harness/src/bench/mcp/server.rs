//! One tool server's session under bench-mcp (and bench-hidden, which reads its snapshots): started (launching its own browser, or attached over CDP to one bench-mcp launched with the viewport set), its mapped calls timed (navigate, snapshot, pagesnap's own tools), and stopped.

use anyhow::{Context, Result, bail};
use pagesnap_browser::{Chromium, ChromiumSession, DialogPolicy, OpenOptions};
use serde_json::Value;

use super::{Config, Running, Side};
use crate::peer::connection::{Answer, Connection, ServerBrowser, command};
use crate::peer::mapping::{ActionKey, Arg, Call, Mapping, dialog_placeholders};
use crate::peer::{Launch, Peer, Shipped};
use pagesnap_engine::dialog::{Dialog, DialogKind};

/// The page a browser bench-mcp launched for a server opens its tab at,
/// so that the server's tab listing names it.
const PREPARED_TAB: &str = "about:blank#pagesnap-bench-mcp";

/// A browser bench-mcp launched for a server that cannot launch its own,
/// and the tab, its viewport set, that the server works on.
struct Browser {
    /// pagesnap's session on the tab (it keeps the viewport set).
    tab: ChromiumSession,
    chromium: Chromium,
}

/// A spawned tool server, the client session to it ([`Connection`]), the
/// mapping that names its tools and, for a server attached to one, its
/// browser.
pub(crate) struct Server {
    pub(crate) side: Side,
    connection: Connection,
    pub(super) mapping: Mapping,
    /// Dropped after the connection (fields drop in order).
    browser: Option<Browser>,
}

impl Server {
    pub(crate) async fn start(side: Side, config: &Config) -> Result<Server> {
        let label = side.label();
        let mapping = side.mapping()?;
        if mapping.navigate.is_none() {
            bail!("{label}: its mapping has no [navigate] call");
        }
        let viewport = format!("{}x{}", config.viewport.0, config.viewport.1);
        let own_dir = || {
            tempfile::Builder::new()
                .prefix("pagesnap-bench-mcp-")
                .tempdir()
                .context("could not create a temp folder")
        };
        let (connection, browser) = match side {
            Side::Pagesnap => {
                let launched = ServerBrowser::Launched {
                    viewport: &viewport,
                    network: config.network,
                };
                let dir = own_dir()?;
                let mut command = command(&Launch::Pagesnap, &launched, dir.path())?;
                command.args(["--strategy", &config.strategy]);
                if config.always_capture {
                    command.arg("--always-capture");
                }
                let connection =
                    Connection::launch(label, command, dir, config.call_timeout).await?;
                (connection, None)
            }
            Side::Peer(shipped) => match &shipped.launch {
                Launch::Playwright => {
                    let dir = own_dir()?;
                    let launched = ServerBrowser::Launched {
                        viewport: &viewport,
                        network: config.network,
                    };
                    let command = command(&shipped.launch, &launched, dir.path())?;
                    let connection =
                        Connection::launch(label, command, dir, config.call_timeout).await?;
                    (connection, None)
                }
                Launch::ChromeDevtools | Launch::AgentBrowser => {
                    attached(shipped, &mapping, config).await?
                }
                Launch::Pagesnap | Launch::Shell(_) => {
                    bail!("{label}: not a server bench-mcp measures beside pagesnap")
                }
            },
        };
        connection.offers(&mapping.tools())?;
        Ok(Server {
            side,
            connection,
            mapping,
            browser,
        })
    }

    /// The mapping's `call` with its placeholders from `values`, timed; a
    /// tool error is an error.
    pub(super) async fn call(&self, call: &Call, values: &[(&str, Arg)]) -> Result<Answer> {
        let answer = self.connection.call(call, values).await?;
        self.checked(&call.tool, answer)
    }

    /// One of pagesnap's own tools with `arguments`, timed; a tool error is an error.
    pub(super) async fn send(&self, tool: &str, arguments: Value) -> Result<Answer> {
        let Value::Object(arguments) = arguments else {
            bail!("{tool}: arguments must be an object");
        };
        let answer = self.connection.send(tool, arguments).await?;
        self.checked(tool, answer)
    }

    /// Answers a dialog one of its answers said the page waits on,
    /// so that the next page's navigation is not refused: dismissed, or
    /// accepted when it asks to leave the page (`beforeunload`).
    pub(super) async fn answer_dialog(&self, dialog: &Dialog) -> Result<()> {
        let accept = dialog.kind == DialogKind::Beforeunload;
        let key = if accept {
            ActionKey::DIALOG_ACCEPT
        } else {
            ActionKey::DIALOG_DISMISS
        };
        let Some(calls) = self.mapping.calls_for(key) else {
            bail!(
                "{}: its page waits on a dialog ({:?}) and its mapping has no [actions.dialog] to answer it",
                self.side.label(),
                dialog.message
            );
        };
        // The placeholders the live runner fills for a dialog's answer, no
        // prompt text given.
        let mut values = vec![("value", Arg::from(""))];
        values.extend(dialog_placeholders(accept, ""));
        for call in calls {
            self.call(call, &values).await?;
        }
        Ok(())
    }

    fn checked(&self, tool: &str, answer: Answer) -> Result<Answer> {
        if answer.is_error {
            bail!("{}: {tool} failed: {}", self.side.label(), answer.text);
        }
        Ok(answer)
    }

    /// Opens `url` with the mapped navigation; on a browser bench-mcp
    /// launched, the prepared tab must be the one that shows it, at the
    /// viewport (unless a dialog stops the page).
    pub(crate) async fn navigate(&self, url: &str, viewport: (u32, u32)) -> Result<Answer> {
        let label = self.side.label();
        let Some(call) = &self.mapping.navigate else {
            bail!("{label}: its mapping has no [navigate] call");
        };
        let answer = self.call(call, &[("url", url.into())]).await?;
        // A page stopped by a dialog it opened cannot be read: the check is
        // left to the next page.
        if let Some(browser) = &self.browser
            && let Ok(shown) = browser
                .tab
                .eval("[location.href, innerWidth, innerHeight]")
                .await
        {
            if shown[0].as_str() == Some(PREPARED_TAB) {
                bail!(
                    "{label}: {} opened {url} in another tab than the one prepared with the viewport",
                    call.tool
                );
            }
            let size = (shown[1].as_u64(), shown[2].as_u64());
            if size != (Some(viewport.0.into()), Some(viewport.1.into())) {
                bail!(
                    "{label}: its tab shows {url} at {}x{}, not at the viewport {}x{}",
                    shown[1],
                    shown[2],
                    viewport.0,
                    viewport.1
                );
            }
        }
        Ok(answer)
    }

    pub(crate) async fn snapshot(&self) -> Result<Answer> {
        self.call(&self.mapping.snapshot, &[]).await
    }

    /// The mapped snapshot's answer as the server gives it, a tool error
    /// included: what the page shows now, or the dialog it waits on when the
    /// server refuses to show it (agent-browser's "A JavaScript confirm dialog
    /// is blocking the page").
    pub(super) async fn look(&self) -> Result<Answer> {
        self.connection.call(&self.mapping.snapshot, &[]).await
    }

    /// What it reports of itself once it answered `initialize`.
    pub(crate) fn running(&self) -> Running {
        Running {
            side: self.side,
            version: self.connection.version(),
            definition_tokens: self.connection.definition_tokens,
        }
    }

    pub(crate) async fn stop(self) {
        self.connection.stop().await;
        if let Some(browser) = self.browser {
            browser.tab.close().await;
            let _ = browser.chromium.close().await;
        }
    }
}

/// Starts `shipped` attached over CDP to a headless Chromium launched for
/// it (with the network of every other server's: `--network`), in a tab
/// opened with the viewport set, which it is told to work on (its `{tab}`).
async fn attached(
    shipped: &'static Shipped,
    mapping: &Mapping,
    config: &Config,
) -> Result<(Connection, Option<Browser>)> {
    let label = shipped.name;
    let chromium = Chromium::launch(config.network)
        .await
        .with_context(|| format!("{label}: could not launch its browser"))?
        // The server answers its page's dialogs itself.
        .with_dialogs(DialogPolicy::Ask);
    let options = OpenOptions {
        width: config.viewport.0,
        height: config.viewport.1,
        timeout: config.call_timeout,
        ..OpenOptions::default()
    };
    let tab = chromium
        .open(PREPARED_TAB, &options)
        .await
        .with_context(|| format!("{label}: could not open its tab"))?;
    let peer = Peer {
        name: label.to_owned(),
        launch: shipped.launch.clone(),
        mapping: mapping.clone(),
        timeout: config.call_timeout,
    };
    // Nothing is uploaded: the server runs in the working folder.
    let here = std::env::current_dir().context("the working folder")?;
    let connection = Connection::start(&peer, chromium.websocket_url(), &here).await?;
    connection.choose_tab(mapping, PREPARED_TAB).await?;
    Ok((connection, Some(Browser { tab, chromium })))
}
