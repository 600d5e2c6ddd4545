//! Serving the tools: over stdio (one client, the default) or Streamable HTTP on 127.0.0.1 (any number of sessions, each in a browser context of its own in the one browser, or all in one with `--shared-context`), until the client leaves or a signal comes; the browser pagesnap launched is closed on the way out.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Context, Result};
use axum::response::IntoResponse;
use pagesnap_browser::Chromium;
use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::sync::Mutex;
use tokio_util::sync::CancellationToken;

use super::tabs::{Browsing, Config, Shared};
use super::tools::Server;

/// How clients reach the server.
#[derive(Clone, Debug)]
pub enum Transport {
    /// JSON-RPC over stdin/stdout.
    Stdio,
    /// Streamable HTTP at `http://HOST:PORT/mcp`.
    Http {
        /// The address to bind.
        host: String,
        /// The port (0: any free one, printed on stderr).
        port: u16,
        /// Origins allowed besides the server's own (`http://localhost:*` style).
        allowed_origins: Vec<String>,
        /// How many sessions may be open at once (none: no limit).
        max_sessions: Option<usize>,
        /// A session without a request for this long is closed, its
        /// browser context with it.
        idle_timeout: std::time::Duration,
    },
}

/// Runs the server until the client disconnects (stdio) or SIGINT/SIGTERM,
/// then closes the browser (attached: only pagesnap's own tabs).
pub async fn serve(
    chromium: Chromium,
    config: Config,
    transport: Transport,
    shared_context: bool,
) -> Result<()> {
    let shared = Arc::new(Shared::new(chromium, config));
    let served = tokio::select! {
        result = run(shared.clone(), transport, shared_context) => result,
        () = stopped() => Ok(()),
    };
    // Every call holds the browser's read lock while it runs: the calls in
    // flight end first.
    shared.close().await?;
    served
}

/// Serves one client on `transport` — any rmcp transport: a pair of streams
/// (an in-process `tokio::io::duplex` in tests), a socket, a child's pipes —
/// browsing the browser's default context, until the client leaves; then
/// closes the browser as [`serve`] does.
pub async fn serve_client<T, E, A>(chromium: Chromium, config: Config, transport: T) -> Result<()>
where
    T: rmcp::transport::IntoTransport<rmcp::RoleServer, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let shared = Arc::new(Shared::new(chromium, config));
    let served = one_client(shared.clone(), transport).await;
    shared.close().await?;
    served
}

/// One client, one browsing on the default context, until it leaves.
async fn one_client<T, E, A>(shared: Arc<Shared>, transport: T) -> Result<()>
where
    T: rmcp::transport::IntoTransport<rmcp::RoleServer, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let observe_only = shared.config.observe_only;
    let browsing = Arc::new(Mutex::new(Browsing::new(shared).await?));
    let running = Server::new(browsing, observe_only)
        .serve(transport)
        .await
        .context("the MCP client did not initialise the session")?;
    running.waiting().await.context("the MCP session failed")?;
    Ok(())
}

async fn stopped() {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut interrupt), Ok(mut terminate)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = interrupt.recv() => {}
        _ = terminate.recv() => {}
    }
}

async fn run(shared: Arc<Shared>, transport: Transport, shared_context: bool) -> Result<()> {
    match transport {
        Transport::Stdio => one_client(shared, rmcp::transport::stdio()).await,
        Transport::Http {
            host,
            port,
            allowed_origins,
            max_sessions,
            idle_timeout,
        } => {
            let listener = tokio::net::TcpListener::bind((host.as_str(), port))
                .await
                .with_context(|| format!("could not listen on {host}:{port}"))?;
            let address = listener.local_addr()?;
            let cancel = CancellationToken::new();
            let mut origins = vec![
                "http://localhost:*".to_owned(),
                "http://127.0.0.1:*".to_owned(),
                "http://[::1]:*".to_owned(),
            ];
            origins.extend(allowed_origins);
            let mut hosts = vec![
                "localhost".to_owned(),
                "127.0.0.1".to_owned(),
                "::1".to_owned(),
            ];
            if !hosts.contains(&host) {
                hosts.push(host.clone());
            }
            let config = StreamableHttpServerConfig::default()
                .with_cancellation_token(cancel.child_token())
                .with_allowed_hosts(hosts)
                .with_allowed_origins(origins);
            // Each session browses in a context of its own, unless one
            // browsing on the default context is shared by all. Observing
            // only, every session sees the browser's own tabs: a context of
            // its own would hold none and may not open one.
            let common = if shared_context || shared.config.observe_only {
                Some(Arc::new(Mutex::new(Browsing::new(shared.clone()).await?)))
            } else {
                None
            };
            let mut sessions = LocalSessionManager::default();
            sessions.session_config.keep_alive = Some(idle_timeout);
            let open = Arc::new(AtomicUsize::new(0));
            let counter = open.clone();
            let service = StreamableHttpService::new(
                move || {
                    let browsing = match &common {
                        Some(common) => common.clone(),
                        None => Arc::new(Mutex::new(Browsing::isolated(shared.clone()))),
                    };
                    Ok(Server::new(browsing, shared.config.observe_only)
                        .counted(Open::new(counter.clone())))
                },
                Arc::new(sessions),
                config,
            );
            let limit = SessionLimit {
                open,
                max: max_sessions,
            };
            let app = axum::Router::new()
                .nest_service("/mcp", service)
                .layer(axum::middleware::from_fn(ended_is_ok))
                .layer(axum::middleware::from_fn_with_state(limit, at_most));
            eprintln!("pagesnap mcp: listening on http://{address}/mcp");
            axum::serve(listener, app)
                .with_graceful_shutdown(async move {
                    stopped().await;
                    cancel.cancel();
                })
                .await
                .context("the HTTP server failed")
        }
    }
}

/// A session ended with HTTP DELETE is answered 200 OK (the transport says
/// 202, which clients such as the Python SDK report as a failed termination):
/// its browser context is closed by then or a moment after.
async fn ended_is_ok(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let delete = request.method() == axum::http::Method::DELETE;
    let mut response = next.run(request).await;
    if delete && response.status() == axum::http::StatusCode::ACCEPTED {
        *response.status_mut() = axum::http::StatusCode::OK;
    }
    response
}

/// One open session, counted while it lives: a session's server is dropped
/// when the session ends (DELETE, the idle timeout, its client gone).
pub(crate) struct Open(Arc<AtomicUsize>);

impl Open {
    fn new(count: Arc<AtomicUsize>) -> Open {
        count.fetch_add(1, Ordering::SeqCst);
        Open(count)
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// How many sessions are open and how many may be.
#[derive(Clone)]
struct SessionLimit {
    open: Arc<AtomicUsize>,
    max: Option<usize>,
}

/// How long a new session beyond `--max-sessions` waits for a place that an
/// ending session is freeing before it is refused.
const PLACE_FREEING: std::time::Duration = std::time::Duration::from_millis(500);

/// How often that wait looks.
const PLACE_POLL: std::time::Duration = std::time::Duration::from_millis(20);

/// A new session (a request without `Mcp-Session-Id`) beyond `--max-sessions`
/// is refused with 503 and a JSON-RPC error saying why, once no place has
/// freed within [`PLACE_FREEING`]; the open ones go on.
async fn at_most(
    axum::extract::State(limit): axum::extract::State<SessionLimit>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let opening = request.method() == axum::http::Method::POST
        && !request.headers().contains_key("mcp-session-id");
    if let Some(max) = limit.max
        && opening
    {
        // A session whose end (DELETE) was just answered still holds its
        // place until its server is dropped, a moment later: a client that
        // ends one session and opens the next is not refused for that.
        let deadline = tokio::time::Instant::now() + PLACE_FREEING;
        let mut open = limit.open.load(Ordering::SeqCst);
        while open >= max && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(PLACE_POLL).await;
            open = limit.open.load(Ordering::SeqCst);
        }
        if open >= max {
            let body = serde_json::json!({
                "jsonrpc": "2.0",
                "id": null,
                "error": {
                    "code": -32000,
                    "message": format!(
                        "pagesnap mcp: {open} sessions are open, the most this server allows \
                         (--max-sessions {max}); end one (HTTP DELETE) or wait until one has \
                         been idle for the --idle-timeout"
                    ),
                },
            });
            return (
                axum::http::StatusCode::SERVICE_UNAVAILABLE,
                [(axum::http::header::CONTENT_TYPE, "application/json")],
                body.to_string(),
            )
                .into_response();
        }
    }
    next.run(request).await
}
