//! The one 127.0.0.1 HTTP server the tests script: a fake model provider (OpenAI and Anthropic wire formats), a judge, a page's signals — each a handler from a parsed request to a reply, every connection on its own thread.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{Value, json};

/// A request as the handler sees it.
pub struct Request {
    /// The path (`/v1/chat/completions`).
    pub path: String,
    /// Headers, names lower-cased.
    pub headers: BTreeMap<String, String>,
    /// The body (empty without `content-length`).
    pub body: Vec<u8>,
}

impl Request {
    /// The body as JSON (a test fails on anything else).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }
}

/// What the server writes back.
pub struct Reply {
    /// The status code.
    pub status: u16,
    /// Extra header lines, each ending `\r\n`.
    pub headers: String,
    /// The body, sent as `application/json` unless `headers` names a
    /// `content-type`.
    pub body: String,
}

impl Reply {
    /// 200 with `body`.
    pub fn ok(body: impl Into<String>) -> Reply {
        Reply {
            status: 200,
            headers: String::new(),
            body: body.into(),
        }
    }

    /// 200 with an empty body that any page may read (CORS).
    pub fn empty_for_pages() -> Reply {
        Reply {
            status: 200,
            headers: "access-control-allow-origin: *\r\n".to_owned(),
            body: String::new(),
        }
    }
}

/// An OpenAI chat completion whose assistant message is `text`.
pub fn chat_completion(text: &str, prompt_tokens: u64, completion_tokens: u64) -> Value {
    json!({"id": "chatcmpl-1", "object": "chat.completion", "model": "test-model",
        "choices": [{"index": 0, "finish_reason": "stop",
            "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens}})
}

/// A running server; [`Server::stop`] (or the end of the test process) ends it.
pub struct Server {
    /// Its port on 127.0.0.1.
    pub port: u16,
    stop: Arc<AtomicBool>,
}

impl Server {
    /// Starts serving `handler` on a free port.
    pub fn start(handler: impl Fn(Request) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let stop = Arc::new(AtomicBool::new(false));
        let (flag, handler) = (Arc::clone(&stop), Arc::new(handler));
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if flag.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let handler = Arc::clone(&handler);
                std::thread::spawn(move || serve(stream, &*handler));
            }
        });
        Server { port, stop }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Stops accepting: later connections are refused.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        // The accept loop drops the listener once it sees the flag.
        for _ in 0..100 {
            if TcpStream::connect(("127.0.0.1", self.port)).is_err() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("server did not stop");
    }
}

fn serve(stream: TcpStream, handler: &(impl Fn(Request) -> Reply + ?Sized)) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return; // the stop() wake-up connection
    }
    let path = line.split_whitespace().nth(1).unwrap_or("").to_owned();
    let mut headers = BTreeMap::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).unwrap_or(0) == 0 {
            return;
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.insert(name.trim().to_lowercase(), value.trim().to_owned());
        }
    }
    let length: usize = headers
        .get("content-length")
        .map_or(0, |n| n.parse().unwrap());
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    let reply = handler(Request {
        path,
        headers,
        body,
    });
    let reason = match reply.status {
        200 => "OK",
        400 => "Bad Request",
        429 => "Too Many Requests",
        _ => "Server Error",
    };
    let json = if reply.headers.to_lowercase().contains("content-type:") {
        ""
    } else {
        "content-type: application/json\r\n"
    };
    let response = format!(
        "HTTP/1.1 {} {reason}\r\n{json}content-length: {}\r\nconnection: close\r\n{}\r\n{}",
        reply.status,
        reply.body.len(),
        reply.headers,
        reply.body
    );
    let mut stream = stream;
    let _ = stream.write_all(response.as_bytes());
    let _ = stream.flush();
}
