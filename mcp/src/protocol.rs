//! The JSON-RPC layer of `POST /mcp`: the shape of one message, the protocol era of each request, and the methods of
//! both eras (`tools/call` runs [`crate::tools`]).

use std::sync::Arc;

use axum::http::header::{RETRY_AFTER, WWW_AUTHENTICATE};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use crate::auth::{Caller, Scope};
use crate::config::Server;
use crate::http::json_response;
use crate::rpc::{RpcError, code, rate_limited};
use crate::tools::{self, ToolOutcome};
use crate::work::{JobError, RETRY_AFTER_SECS};

/// 503 with `Retry-After`: every worker busy and the queue full.
fn overloaded() -> RpcError {
    let mut e = RpcError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        code::SERVER_ERROR,
        "server busy: every checking worker is in use and the queue is full; retry after Retry-After seconds",
    )
    .with_data(json!({"retryAfterSeconds": RETRY_AFTER_SECS}));
    if let Ok(v) = axum::http::HeaderValue::from_str(&RETRY_AFTER_SECS.to_string()) {
        e.headers.push((RETRY_AFTER, v));
    }
    e
}

/// The modern revision (stateless, `server/discover`).
pub const MODERN: &str = "2026-07-28";
/// Methods that exist only in the modern revision (over stdio, where no header names the version, they imply it).
pub const MODERN_ONLY_METHODS: [&str; 1] = ["server/discover"];
/// Legacy revisions answered with `initialize` semantics; the first is the one `initialize` falls back to.
pub const LEGACY: [&str; 3] = ["2025-06-18", "2025-11-25", "2025-03-26"];
/// What a request without `MCP-Protocol-Version` is taken as.
pub const NO_HEADER_VERSION: &str = "2025-03-26";
/// Every version this server accepts, newest first (the `supported` list of -32022 and `server/discover`).
pub const SUPPORTED: [&str; 4] = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"];
/// `_meta` key of the request's protocol version (2026-07-28).
pub const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of the client's capabilities (2026-07-28, required).
pub const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of the server's identity on results (2026-07-28).
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// How long a client may cache `server/discover` and `tools/list` (ms).
pub const TTL_MS: u64 = 3_600_000;

/// The server's identity (seed 000, `initialize`).
pub fn server_info() -> Value {
    json!({
        "name": "curbi-public",
        "title": "Curbi checks and documentation",
        "version": env!("CARGO_PKG_VERSION"),
        "websiteUrl": "https://curbi.io/mcp/"
    })
}

/// The instructions of `initialize` and `server/discover`, in the seed's words, adjusted to what this server does.
pub const INSTRUCTIONS: &str = "Read-only public preview. policy_check checks explicit rules and caller-supplied \
records. verify_bundle verifies proof bundles using caller-supplied trusted keys, offline with nothing stored; it does \
not prove provider actions or grant authority. Actions, private projects and provider calls are unavailable. A passing \
check grants no permission and is not general truth. search/fetch return public documentation data, never authority.";

/// 400/-32600 unless the message is one JSON-RPC request or notification object.
pub fn check_message_shape(message: &Value) -> Result<(), RpcError> {
    let invalid = |m: &str| RpcError::new(StatusCode::BAD_REQUEST, code::INVALID_REQUEST, m.to_string());
    let m = match message {
        Value::Array(_) => {
            return Err(invalid("Invalid Request: batches are not supported; send one message per POST"));
        }
        Value::Object(m) => m,
        _ => return Err(invalid("Invalid Request: the body must be one JSON-RPC request or notification object")),
    };
    let id = m.get("id").cloned().unwrap_or(Value::Null);
    let valid_id = match m.get("id") {
        None => true,
        Some(Value::String(_)) => true,
        Some(Value::Number(n)) => n.is_i64() || n.is_u64(),
        Some(_) => false,
    };
    let with_id = |e: RpcError| if valid_id { e.with_id(&id) } else { e };
    if m.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(with_id(invalid("Invalid Request: jsonrpc must be \"2.0\"")));
    }
    if !valid_id {
        return Err(invalid("Invalid Request: id must be a string or an integer"));
    }
    if !m.get("method").is_some_and(Value::is_string) {
        return Err(with_id(invalid("Invalid Request: method must be a string (this server accepts no responses)")));
    }
    if m.get("params").is_some_and(|p| !p.is_object()) {
        return Err(with_id(invalid("Invalid Request: params must be an object")));
    }
    Ok(())
}

/// Which protocol era a request is served in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// 2025-03-26 … 2025-11-25: `initialize` and friends.
    Legacy,
    /// 2026-07-28: stateless, per-request `_meta`.
    Modern,
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).map(|v| v.to_str().unwrap_or("\u{fffd}"))
}

/// A header value in the 2026-07-28 Value Encoding: `=?base64?…?=` is the Base64 of the UTF-8 value (markers
/// case-sensitive); anything else is literal. `None` when the sentinel form does not decode to UTF-8.
pub fn decode_header_value(value: &str) -> Option<String> {
    use base64::Engine;
    match value.strip_prefix("=?base64?").and_then(|v| v.strip_suffix("?=")) {
        Some(encoded) => base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok()),
        None => Some(value.to_string()),
    }
}

/// Decides the era and checks the version rules. `message` has passed [`check_message_shape`].
fn era(headers: &HeaderMap, message: &Map<String, Value>, id: &Value) -> Result<Era, RpcError> {
    let header_version = header(headers, "mcp-protocol-version").map(str::trim);
    let meta = message.get("params").and_then(|p| p.get("_meta"));
    let meta_version = meta.and_then(|m| m.get(META_VERSION));
    let bad = |code: i64, m: String| RpcError::new(StatusCode::BAD_REQUEST, code, m).with_id(id);
    if let Some(v) = header_version
        && !SUPPORTED.contains(&v)
    {
        return Err(bad(code::UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version".into())
            .with_data(json!({"supported": SUPPORTED, "requested": v})));
    }
    if let Some(mv) = meta_version {
        let mv_str = mv.as_str();
        return match header_version {
            None => Err(bad(
                code::HEADER_MISMATCH,
                format!("the MCP-Protocol-Version header is required and must equal params._meta[\"{META_VERSION}\"]"),
            )),
            Some(h) if Some(h) != mv_str => Err(bad(
                code::HEADER_MISMATCH,
                format!("MCP-Protocol-Version header {h:?} does not equal params._meta[\"{META_VERSION}\"] {mv}"),
            )),
            Some(h) if h == MODERN => Ok(Era::Modern),
            // A legacy version in both places: served as legacy.
            Some(_) => Ok(Era::Legacy),
        };
    }
    Ok(if header_version == Some(MODERN) { Era::Modern } else { Era::Legacy })
}

/// Serves one checked message.
/// `refused` is the strict reader's error for a repeated member inside `params.arguments` (path relative to the
/// arguments): the message is still answered, and a `tools/call` gets it as its tool error.
pub async fn dispatch(
    server: &Arc<Server>,
    headers: &HeaderMap,
    caller: &Caller,
    message: Value,
    refused: Option<&curbi::Error>,
) -> Result<Response, RpcError> {
    let Value::Object(message) = message else {
        return Err(RpcError::new(StatusCode::BAD_REQUEST, code::INVALID_REQUEST, "Invalid Request"));
    };
    let id = message.get("id").cloned();
    let method = message.get("method").and_then(Value::as_str).unwrap_or_default();
    let empty = Map::new();
    let params = message.get("params").and_then(Value::as_object).unwrap_or(&empty);
    let rid = id.clone().unwrap_or(Value::Null);
    let era = era(headers, &message, &rid)?;
    let Some(id) = id else {
        // A notification: accepted, never answered (202, no body).
        return Ok(StatusCode::ACCEPTED.into_response());
    };
    let request = Request { server, caller, id: &id, method, params, refused };
    match era {
        Era::Legacy => legacy(request).await,
        Era::Modern => modern(request, headers).await,
    }
}

/// A request (not a notification) that `legacy` or `modern` answers: its server, caller, id, method and params, and
/// the strict reader's refusal of its arguments (see `dispatch`).
#[derive(Clone, Copy)]
struct Request<'a> {
    server: &'a Arc<Server>,
    caller: &'a Caller,
    id: &'a Value,
    method: &'a str,
    params: &'a Map<String, Value>,
    refused: Option<&'a curbi::Error>,
}

fn ok(id: &Value, result: Value) -> Response {
    json_response(StatusCode::OK, json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string(), Vec::new())
}

async fn legacy(request: Request<'_>) -> Result<Response, RpcError> {
    let Request { server, caller, id, method, params, refused } = request;
    // Legacy clients read JSON-RPC errors of a request from a 200 response.
    let rpc = |code: i64, m: String| RpcError::new(StatusCode::OK, code, m).with_id(id);
    match method {
        "initialize" => {
            let requested = params.get("protocolVersion").and_then(Value::as_str).unwrap_or_default();
            let version = LEGACY.iter().find(|v| **v == requested).copied().unwrap_or(LEGACY[0]);
            Ok(ok(
                id,
                json!({
                    "protocolVersion": version,
                    "capabilities": {"tools": {"listChanged": false}},
                    "serverInfo": server_info(),
                    "instructions": INSTRUCTIONS,
                }),
            ))
        }
        "ping" => Ok(ok(id, json!({}))),
        "tools/list" => Ok(ok(
            id,
            json!({"tools": tools::visible_tools(caller, server.config.sandbox, server.config.receipt_keys.is_some())}),
        )),
        "tools/call" => {
            let result = call(server, caller, id, params, refused, StatusCode::OK).await?;
            Ok(ok(id, result))
        }
        _ => Err(rpc(code::METHOD_NOT_FOUND, format!("Method not found: {method}"))),
    }
}

async fn modern(request: Request<'_>, headers: &HeaderMap) -> Result<Response, RpcError> {
    let Request { server, caller, id, method, params, refused } = request;
    let bad = |code: i64, m: String| RpcError::new(StatusCode::BAD_REQUEST, code, m).with_id(id);
    let meta = params.get("_meta").and_then(Value::as_object);
    if !meta.is_some_and(|m| m.get(META_VERSION).is_some_and(Value::is_string)) {
        return Err(bad(code::INVALID_PARAMS, format!("params._meta[\"{META_VERSION}\"] is required")));
    }
    if !meta.is_some_and(|m| m.get(META_CAPABILITIES).is_some_and(Value::is_object)) {
        return Err(bad(code::INVALID_PARAMS, format!("params._meta[\"{META_CAPABILITIES}\"] is required")));
    }
    match header(headers, "mcp-method") {
        Some(h) if h == method => {}
        Some(h) => {
            return Err(bad(code::HEADER_MISMATCH, format!("Mcp-Method {h:?} does not equal method {method:?}")));
        }
        None => return Err(bad(code::HEADER_MISMATCH, "the Mcp-Method header is required".into())),
    }
    if method == "tools/call" {
        let name = params.get("name").and_then(Value::as_str);
        match (header(headers, "mcp-name").map(decode_header_value), name) {
            (Some(Some(h)), Some(n)) if h == n => {}
            (None, _) => {
                return Err(bad(code::HEADER_MISMATCH, "the Mcp-Name header is required on tools/call".into()));
            }
            (Some(None), _) => {
                return Err(bad(code::HEADER_MISMATCH, "the Mcp-Name header is not valid Base64 sentinel form".into()));
            }
            (Some(Some(h)), _) => {
                return Err(bad(code::HEADER_MISMATCH, format!("Mcp-Name {h:?} does not equal params.name")));
            }
        }
    }
    let result_meta = json!({META_SERVER_INFO: server_info()});
    let scope = if matches!(caller, Caller::Anonymous) { "public" } else { "private" };
    let mut result = match method {
        "server/discover" => json!({
            "supportedVersions": SUPPORTED,
            "capabilities": {"tools": {"listChanged": false}},
            "serverInfo": server_info(),
            "instructions": INSTRUCTIONS,
            "ttlMs": TTL_MS,
            "cacheScope": "public",
        }),
        "tools/list" => {
            json!({"tools": tools::visible_tools(caller, server.config.sandbox, server.config.receipt_keys.is_some()), "ttlMs": TTL_MS, "cacheScope": scope})
        }
        "tools/call" => call(server, caller, id, params, refused, StatusCode::BAD_REQUEST).await?,
        _ => {
            return Err(RpcError::new(
                StatusCode::NOT_FOUND,
                code::METHOD_NOT_FOUND,
                format!("Method not found: {method}"),
            )
            .with_id(id));
        }
    };
    if let Some(m) = result.as_object_mut() {
        m.insert("resultType".into(), json!("complete"));
        let meta = m.entry("_meta").or_insert_with(|| json!({}));
        if let (Some(meta), Some(extra)) = (meta.as_object_mut(), result_meta.as_object()) {
            meta.extend(extra.clone());
        }
    }
    Ok(ok(id, result))
}

/// `tools/call` in either era. `invalid_status` is the HTTP status of a -32602 (200 legacy, 400 modern).
async fn call(
    server: &Arc<Server>,
    caller: &Caller,
    id: &Value,
    params: &Map<String, Value>,
    refused: Option<&curbi::Error>,
    invalid_status: StatusCode,
) -> Result<Value, RpcError> {
    let invalid = |m: String| RpcError::new(invalid_status, code::INVALID_PARAMS, m).with_id(id);
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        return Err(invalid("params.name must be the name of a tool".into()));
    };
    let Some(tool) = tools::find(name).filter(|t| tools::registered(t, caller, server.config.sandbox)) else {
        return Err(invalid(format!("Unknown tool: {name}")));
    };
    if let Some(scope) = tool.scope {
        match caller {
            Caller::Anonymous => {
                return Err(RpcError::new(
                    StatusCode::UNAUTHORIZED,
                    code::SERVER_ERROR,
                    format!("{name} needs an API key: send Authorization: Bearer <key>"),
                )
                .with_id(id)
                .with_header(WWW_AUTHENTICATE, "Bearer"));
            }
            Caller::Key(_) if !caller.has_scope(scope) => {
                let challenge = match scope {
                    Scope::Checkout => "Bearer error=\"insufficient_scope\", scope=\"checkout\"",
                    Scope::Verify => "Bearer error=\"insufficient_scope\", scope=\"verify\"",
                    Scope::AnyKey => "Bearer",
                };
                return Err(RpcError::new(
                    StatusCode::FORBIDDEN,
                    code::SERVER_ERROR,
                    format!("{name} needs an API key with the {} scope", scope.as_str()),
                )
                .with_id(id)
                .with_header(WWW_AUTHENTICATE, challenge));
            }
            Caller::Key(_) => {}
        }
    }
    if let Err(retry) = server.tool_calls.check(&format!("{}/{name}", caller.bucket())) {
        return Err(rate_limited(retry, &format!("rate limit exceeded for {name}")).with_id(id));
    }
    if let Some(e) = refused {
        return Ok(tool_result(ToolOutcome::core_error(e), server.config.max_tool_output, caller));
    }
    let arguments = params.get("arguments").cloned().unwrap_or_else(|| json!({}));
    // On the bounded pool, off the async workers: a full pool is a 503 with Retry-After, never a longer queue.
    let job = Arc::clone(server);
    let size = serde_json::to_vec(&arguments).map_or(usize::MAX, |b| b.len());
    let outcome = server
        .pool
        .run_sized(size, move || {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| tools::run(tool, &arguments, &job.config))).ok()
        })
        .await;
    match outcome {
        Ok(Some(outcome)) => Ok(tool_result(outcome, server.config.max_tool_output, caller)),
        Err(JobError::Overloaded) => Err(overloaded().with_id(id)),
        Ok(None) | Err(JobError::Panicked) => Err(RpcError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            code::INTERNAL_ERROR,
            "Internal error: the tool failed",
        )
        .with_id(id)),
    }
}

/// `{content: [text], structuredContent, isError}`; past the output limit, a tool error saying so.
pub fn tool_result(outcome: ToolOutcome, max_output: usize, caller: &Caller) -> Value {
    let outcome = if outcome.text.len() > max_output {
        tools::output_too_large(Some(outcome.text.len()), max_output)
    } else {
        outcome
    };
    let ToolOutcome { text, is_error } = outcome;
    let structured: Value = serde_json::from_str(&text).unwrap_or_else(|_| json!({"text": text}));
    let mut result = json!({
        "content": [{"type": "text", "text": text}],
        "structuredContent": structured,
        "isError": is_error,
    });
    if let (Some(p), Some(m)) = (caller.partition(), result.as_object_mut()) {
        m.insert("_meta".into(), json!({"io.curbi/partition": p.as_str()}));
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_value_encoding() {
        // The spec's examples (streamable-http, Value Encoding).
        assert_eq!(decode_header_value("us-west1").as_deref(), Some("us-west1"));
        assert_eq!(decode_header_value("=?base64?SGVsbG8sIOS4lueVjA==?=").as_deref(), Some("Hello, 世界"));
        assert_eq!(decode_header_value("=?base64?IHBhZGRlZCA=?=").as_deref(), Some(" padded "));
        assert_eq!(decode_header_value("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=").as_deref(), Some("=?base64?literal?="));
        assert_eq!(decode_header_value("=?base64?not base64!?="), None);
        assert_eq!(decode_header_value("=?BASE64?SGk=?=").as_deref(), Some("=?BASE64?SGk=?="));
    }
}
