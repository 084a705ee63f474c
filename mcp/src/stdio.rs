//! MCP over stdio (`curbi mcp --stdio`): newline-delimited JSON-RPC messages on stdin, one answer a line on stdout,
//! nothing else on stdout (MCP transports, stdio). Each line goes through the same reader ([`transport`]'s strict
//! one), message-shape check and dispatcher ([`protocol::dispatch`]) as a `POST /mcp` body; only the HTTP layer is
//! left out (no Host/Origin, Accept or Content-Type rules, no per-request rate limit: the client started this
//! process and is its only caller).
//!
//! What HTTP carries in headers, stdio carries in the message itself: the protocol version of a 2026-07-28 request
//! is its `params._meta` version, `Mcp-Method` its `method`, `Mcp-Name` its tool name. A keyed tool needs
//! `CURBI_MCP_KEY` in the server's environment (the bearer key the client would have sent), read once at start.

use std::sync::Arc;

use axum::body::to_bytes;
use axum::http::{HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::auth::Caller;
use crate::config::{Config, Server};
use crate::protocol::{self, META_VERSION, MODERN, MODERN_ONLY_METHODS};
use crate::rpc::RpcError;
use crate::transport::read_message;

/// Why [`run`] stopped early. An answer that cannot be written (the client closed stdout, or a full disk) is kept
/// apart from the rest so that the command can exit with its documented "output could not be written" status.
#[derive(Debug)]
pub enum StdioError {
    /// `CURBI_MCP_KEY` is not one of the configured keys.
    UnknownKey,
    /// Reading stdin failed.
    Input(std::io::Error),
    /// Writing an answer to stdout failed.
    Output(std::io::Error),
}

impl std::fmt::Display for StdioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StdioError::UnknownKey => f.write_str("CURBI_MCP_KEY is not one of the configured keys"),
            StdioError::Input(e) => write!(f, "cannot read stdin: {e}"),
            StdioError::Output(e) => write!(f, "cannot write to stdout: {e}"),
        }
    }
}

impl std::error::Error for StdioError {}

/// Serves MCP on stdin and stdout until stdin closes. `key` is the bearer key of the caller (from `CURBI_MCP_KEY`),
/// checked against the configured keys once.
pub async fn run(config: Config, key: Option<String>) -> Result<(), StdioError> {
    let caller = match &key {
        Some(k) => match HeaderValue::from_str(&format!("Bearer {k}")).map(|v| config.keys.caller(Some(&v))) {
            Ok(Ok(c)) => c,
            _ => return Err(StdioError::UnknownKey),
        },
        None => Caller::Anonymous,
    };
    let server = Arc::new(Server::new(config));
    let mut input = BufReader::new(tokio::io::stdin());
    let mut out = tokio::io::stdout();
    let mut line = Vec::new();
    loop {
        // A line is read as bytes, not text: one that is not UTF-8 (a stray \xff, a surrogate's bytes, a cut
        // character) is a message like any other, answered -32700 by the same reader as an HTTP body, and the
        // next line is served. Reading it as text would end the whole session on one bad byte (issue 43).
        line.clear();
        if input.read_until(b'\n', &mut line).await.map_err(StdioError::Input)? == 0 {
            break;
        }
        let message = line.strip_suffix(b"\n").unwrap_or(&line);
        let message = message.strip_suffix(b"\r").unwrap_or(message);
        if message.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if let Some(answer) = answer(&server, &caller, message).await {
            let written = async {
                out.write_all(answer.as_bytes()).await?;
                out.write_all(b"\n").await?;
                out.flush().await
            };
            written.await.map_err(StdioError::Output)?;
        }
    }
    Ok(())
}

/// The answer to one line, or `None` for a notification (HTTP's 202 with no body).
pub async fn answer(server: &Arc<Server>, caller: &Caller, line: &[u8]) -> Option<String> {
    let response = match handle(server, caller, line).await {
        Ok(r) => r,
        Err(e) => e.into_response(),
    };
    // Every answer is one JSON document in a full body; the limit is never reached (tool output is bounded).
    let bytes = to_bytes(response.into_body(), usize::MAX).await.ok()?;
    if bytes.is_empty() { None } else { String::from_utf8(bytes.to_vec()).ok() }
}

async fn handle(server: &Arc<Server>, caller: &Caller, line: &[u8]) -> Result<Response, RpcError> {
    let (message, refused) = read_message(line)?;
    protocol::check_message_shape(&message)?;
    let headers = headers_from(&message);
    protocol::dispatch(server, &headers, caller, message, refused.as_ref()).await
}

/// The headers a 2026-07-28 request would carry over HTTP, taken from the message (none for a legacy one).
fn headers_from(message: &Value) -> HeaderMap {
    let mut h = HeaderMap::new();
    let params = message.get("params");
    let version = params.and_then(|p| p.get("_meta")).and_then(|m| m.get(META_VERSION)).and_then(Value::as_str);
    let method = message.get("method").and_then(Value::as_str);
    // A method only 2026-07-28 defines makes the message a 2026-07-28 request even when its `_meta` lacks the
    // version, so that it gets that revision's -32602 for the missing member, as over HTTP with the header.
    let version = match (version, method) {
        (Some(v), _) => v,
        (None, Some(m)) if MODERN_ONLY_METHODS.contains(&m) => MODERN,
        (None, _) => return h,
    };
    let mut put = |name: &'static str, value: &str| {
        if let Ok(v) = HeaderValue::from_str(value) {
            h.insert(name, v);
        }
    };
    put("mcp-protocol-version", version);
    if let Some(m) = method {
        put("mcp-method", m);
    }
    if let Some(n) = params.and_then(|p| p.get("name")).and_then(Value::as_str) {
        // A header value is ASCII; any other name goes in the Base64 sentinel form the dispatcher decodes.
        if n.bytes().all(|b| (0x20..0x7f).contains(&b)) && n.trim() == n {
            put("mcp-name", n);
        } else {
            use base64::Engine;
            put("mcp-name", &format!("=?base64?{}?=", base64::engine::general_purpose::STANDARD.encode(n)));
        }
    }
    h
}
