//! A hand-written HTTP/1.1 client for the server tests: requests go out as raw bytes and replies are read to EOF, so
//! the tests see exactly the bytes a client would.
#![allow(dead_code)] // each test file uses its own subset

pub(crate) mod attack;

/// Serves `router(config)` on a free loopback port with the default limits; the address to call.
pub(crate) async fn start(config: curbi_mcp::Config) -> SocketAddr {
    start_with(config, curbi_mcp::Limits::default()).await
}

/// [`start`] with the given connection limits.
pub(crate) async fn start_with(config: curbi_mcp::Config, limits: curbi_mcp::Limits) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("local addr");
    tokio::spawn(async move {
        curbi_mcp::serve_with(listener, curbi_mcp::router(config), limits, std::future::pending())
            .await
            .expect("serve");
    });
    addr
}

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) status: u16,
    /// Names lowercased.
    pub(crate) headers: HashMap<String, String>,
    pub(crate) body: Vec<u8>,
}

impl Reply {
    pub(crate) fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("body is not JSON ({e}): {:?}", String::from_utf8_lossy(&self.body)))
    }

    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }
}

/// Sends raw request bytes on a fresh connection (the requests say `Connection: close`) and reads to EOF.
pub(crate) async fn send_raw(addr: SocketAddr, raw: &[u8]) -> Reply {
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    stream.write_all(raw).await.expect("write request");
    let mut buf = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut buf))
        .await
        .expect("response within 10 s")
        .expect("read response");
    parse_reply(&buf)
}

/// One response: status line, headers, and the body cut at its Content-Length.
pub(crate) fn parse_reply(buf: &[u8]) -> Reply {
    let split = buf
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no header end in {:?}", String::from_utf8_lossy(buf)));
    let head = std::str::from_utf8(&buf[..split]).expect("ASCII head");
    let mut lines = head.split("\r\n");
    let status_line = lines.next().expect("status line");
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("bad status line {status_line:?}"));
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect::<HashMap<_, _>>();
    let mut body = buf[split + 4..].to_vec();
    if let Some(len) = headers.get("content-length") {
        body.truncate(len.parse().expect("content-length"));
    }
    Reply { status, headers, body }
}
