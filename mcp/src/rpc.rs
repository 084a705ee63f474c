//! JSON-RPC error answers of the MCP endpoint: [`RpcError`] (status, error object, headers) and the error codes it
//! uses, including the 429 of a rate limit.

use axum::http::header::RETRY_AFTER;
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::http::{Refusal, RefusalKind, json_response};

/// A JSON-RPC error answer: `status`, and a body with `id` (null when the request's id is unknown).
#[derive(Debug)]
pub struct RpcError {
    pub status: StatusCode,
    pub id: Value,
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
    /// Extra response headers (`Allow`, `WWW-Authenticate`, `Retry-After`, `Connection`).
    pub headers: Vec<(HeaderName, HeaderValue)>,
}

impl RpcError {
    /// An error answer; a message that quotes input (a method or tool name) is bounded like every error's.
    pub fn new(status: StatusCode, code: i64, message: impl Into<String>) -> RpcError {
        let message = curbi::error::bounded(message.into());
        RpcError { status, id: Value::Null, code, message, data: None, headers: Vec::new() }
    }

    pub fn with_id(mut self, id: &Value) -> RpcError {
        self.id = id.clone();
        self
    }

    pub fn with_data(mut self, data: Value) -> RpcError {
        self.data = Some(data);
        self
    }

    pub fn with_header(mut self, name: HeaderName, value: &'static str) -> RpcError {
        self.headers.push((name, HeaderValue::from_static(value)));
        self
    }
}

/// A transport refusal on `/mcp`: -32700 when the body could not be read, else -32000.
impl From<Refusal> for RpcError {
    fn from(r: Refusal) -> RpcError {
        let code = if r.kind == RefusalKind::Unreadable { code::PARSE_ERROR } else { code::SERVER_ERROR };
        RpcError { headers: r.headers(), ..RpcError::new(r.status(), code, r.message) }
    }
}

impl IntoResponse for RpcError {
    fn into_response(self) -> Response {
        let mut error = json!({"code": self.code, "message": self.message});
        if let (Some(data), Some(m)) = (self.data, error.as_object_mut()) {
            m.insert("data".into(), data);
        }
        let body = json!({"jsonrpc": "2.0", "id": self.id, "error": error});
        json_response(self.status, body.to_string(), self.headers)
    }
}

/// 429 with `Retry-After` in whole seconds.
pub fn rate_limited(retry_after_secs: u64, message: &str) -> RpcError {
    let mut e = RpcError::new(StatusCode::TOO_MANY_REQUESTS, code::SERVER_ERROR, message)
        .with_data(json!({"retryAfterSeconds": retry_after_secs}));
    if let Ok(v) = HeaderValue::from_str(&retry_after_secs.to_string()) {
        e.headers.push((RETRY_AFTER, v));
    }
    e
}

/// JSON-RPC and MCP error codes used here.
pub mod code {
    /// Invalid JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// Not a single JSON-RPC request or notification object.
    pub const INVALID_REQUEST: i64 = -32600;
    /// Unknown method (and `initialize` under 2026-07-28).
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Bad params, unknown tool, missing `_meta`.
    pub const INVALID_PARAMS: i64 = -32602;
    /// A bug: the handler failed.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// Transport-level refusals of this server (Accept, Origin, method, size, auth, rate limit).
    pub const SERVER_ERROR: i64 = -32000;
    /// 2026-07-28 `HeaderMismatch`.
    pub const HEADER_MISMATCH: i64 = -32020;
    /// 2026-07-28 `UnsupportedProtocolVersionError`.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
}
