//! A TCP proxy in front of a browser's DevTools endpoint, whose `cut` closes every connection made through it (the browser lives on, as when a network or a remote browser's front drops the socket) while it keeps accepting new ones.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

pub(crate) struct Proxy {
    /// `http://127.0.0.1:PORT`, to give as `--cdp-endpoint`. Chromium
    /// answers `/json/version` with a WebSocket address on the host it was
    /// asked by, so the DevTools socket goes through the proxy too.
    pub(crate) endpoint: String,
    open: Arc<Mutex<Vec<TcpStream>>>,
}

impl Proxy {
    /// Accepts on a free port of 127.0.0.1 and forwards each connection to
    /// `upstream` (`HOST:PORT`).
    pub(crate) fn start(upstream: &str) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let endpoint = format!("http://{}", listener.local_addr().unwrap());
        let open: Arc<Mutex<Vec<TcpStream>>> = Arc::default();
        let (upstream, streams) = (upstream.to_owned(), Arc::clone(&open));
        std::thread::spawn(move || {
            for client in listener.incoming().map_while(Result::ok) {
                let Ok(server) = TcpStream::connect(&upstream) else {
                    continue;
                };
                let mut kept = streams.lock().unwrap();
                kept.extend([client.try_clone().unwrap(), server.try_clone().unwrap()]);
                drop(kept);
                pipe(client.try_clone().unwrap(), server.try_clone().unwrap());
                pipe(server, client);
            }
        });
        Proxy { endpoint, open }
    }

    /// Closes every connection made so far, both ways.
    pub(crate) fn cut(&self) {
        for stream in self.open.lock().unwrap().drain(..) {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }
}

/// Copies `from` into `to` on a thread of its own until either closes.
fn pipe(mut from: TcpStream, mut to: TcpStream) {
    std::thread::spawn(move || {
        let mut buffer = [0; 64 * 1024];
        while let Ok(read @ 1..) = from.read(&mut buffer) {
            if to.write_all(&buffer[..read]).is_err() {
                break;
            }
        }
        let _ = to.shutdown(Shutdown::Both);
        let _ = from.shutdown(Shutdown::Both);
    });
}
