//! A CDP endpoint given as `http://host:port`: its `/json/version` names the browser's websocket.
//!
//! One HTTP/1.1 GET over a plain TCP stream, so that the browser engine needs
//! no HTTP client: the DevTools HTTP handler answers it and closes.

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::error::StartError;

/// The `webSocketDebuggerUrl` that `endpoint`'s `/json/version` names.
pub async fn websocket_of(endpoint: &str) -> Result<String, StartError> {
    let bad = || StartError::BadEndpoint {
        endpoint: endpoint.to_owned(),
    };
    let not_devtools = |what: &str| StartError::NotDevtools {
        endpoint: endpoint.to_owned(),
        what: what.to_owned(),
    };
    let rest = endpoint.strip_prefix("http://").ok_or_else(bad)?;
    let authority = rest.split('/').next().unwrap_or_default();
    if authority.is_empty() {
        return Err(bad());
    }
    let address = if authority.contains(':') {
        authority.to_owned()
    } else {
        format!("{authority}:80")
    };
    let unreachable = |err: std::io::Error| StartError::Unreachable {
        endpoint: endpoint.to_owned(),
        address: address.clone(),
        message: err.to_string(),
    };
    let exchange = async { version(&address, authority).await.map_err(unreachable) };
    let answer = tokio::time::timeout(crate::waits::ATTACH, exchange)
        .await
        .map_err(|_| StartError::NoAnswer {
            endpoint: endpoint.to_owned(),
            waiting: "/json/version did not answer",
            limit: crate::waits::ATTACH,
        })??;
    let text = String::from_utf8_lossy(&answer);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, body)| body)
        .ok_or_else(|| not_devtools("/json/version answered no HTTP body"))?;
    let version: serde_json::Value = serde_json::from_str(body.trim()).map_err(|_| {
        not_devtools("/json/version is not JSON (is this a Chromium DevTools port?)")
    })?;
    let ws = version
        .get("webSocketDebuggerUrl")
        .and_then(serde_json::Value::as_str)
        .ok_or_else(|| not_devtools("/json/version names no webSocketDebuggerUrl"))?;
    // The browser names its websocket by the address it listens on; reach it
    // the way the endpoint was reached (a port forwarded or mapped elsewhere).
    Ok(
        match ws.strip_prefix("ws://").and_then(|r| r.split_once('/')) {
            Some((_, path)) => format!("ws://{authority}/{path}"),
            None => ws.to_owned(),
        },
    )
}

/// The browser's answer to `GET /json/version` at `address` (`host:port`),
/// head and body, as bytes: the DevTools HTTP handler's, which answers on a
/// thread of the browser's own while its pages and its websocket are busy.
pub(crate) async fn version(address: &str, authority: &str) -> std::io::Result<Vec<u8>> {
    let mut stream = tokio::net::TcpStream::connect(address).await?;
    // HTTP/1.1: the DevTools handler does not answer HTTP/1.0, and keeps
    // the connection open, so the body is read by its Content-Length.
    let request = format!(
        "GET /json/version HTTP/1.1\r\nHost: {authority}\r\nAccept: application/json\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await?;
    let mut answer = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        answer.extend_from_slice(&chunk[..n]);
        if let Some(end) = answer.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&answer[..end]).to_ascii_lowercase();
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse::<usize>().ok());
            if length.is_some_and(|length| answer.len() >= end + 4 + length) {
                break;
            }
        }
    }
    Ok(answer)
}

/// The `host:port` of a DevTools websocket URL (`ws://host:port/devtools/…`).
pub(crate) fn authority_of(websocket: &str) -> Option<&str> {
    let rest = websocket
        .strip_prefix("ws://")
        .or_else(|| websocket.strip_prefix("wss://"))?;
    rest.split('/').next().filter(|a| !a.is_empty())
}
