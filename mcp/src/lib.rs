//! Curbi's demo MCP server (issue 9, DESIGN.md §7): `POST /mcp` serving both protocol eras on one endpoint, JSON
//! responses only (never an event stream, never a session), plus `GET /ai.json` and `GET /agent-start.json`.
//!
//! - **2025-06-18 and earlier** (legacy): `initialize`, `notifications/initialized`, `ping`, `tools/list`,
//!   `tools/call`. A request without `MCP-Protocol-Version` is taken as 2025-03-26.
//! - **2026-07-28** (modern, stateless): `server/discover`, `tools/list`, `tools/call`, each carrying
//!   `params._meta["io.modelcontextprotocol/protocolVersion"]` equal to the `MCP-Protocol-Version` header, plus
//!   `Mcp-Method` (and `Mcp-Name` on `tools/call`) equal to the body.
//!
//! The JSON-RPC layer is written for this server ([`protocol`]); the tools call the core crate ([`tools`]). docs/MCP.md
//! documents the endpoint, the tools, keys and limits.

// `RpcError` is the whole HTTP answer of a refused request (status, JSON-RPC error, headers), built at most once per
// request; boxing it would only add an allocation.
#![allow(clippy::result_large_err)]

pub mod auth;
pub mod catalog;
pub mod protocol;
pub mod receipts;
pub mod tools;

use std::sync::Arc;

use axum::Router;
use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{Request, State};
use axum::http::header::{ACCEPT, ALLOW, AUTHORIZATION, CONNECTION, CONTENT_TYPE, HOST, ORIGIN, RETRY_AFTER};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use serde_json::{Value, json};

pub use auth::{ApiKey, Caller, KeySet, Partition, RateLimiter, Scope};

/// Largest request body accepted, in bytes (seed 000: "64 KiB input").
pub const MAX_BODY: usize = 64 * 1024;
/// Largest tool output, in bytes of the JSON text block (seed 000: "24 KiB tool output").
pub const MAX_TOOL_OUTPUT: usize = 24 * 1024;
/// Default requests per minute per caller (a key, or all key-less callers together) on `POST /mcp`.
pub const DEFAULT_RATE_PER_MINUTE: u32 = 120;
/// Default `tools/call` per minute per caller and tool.
pub const DEFAULT_TOOL_RATE_PER_MINUTE: u32 = 60;
/// The prefix of sandbox test keys: a key that starts with it uses the sandbox partition.
pub const TEST_KEY_PREFIX: &str = "curbi_test_";

/// How the endpoint is configured: keys, limits and the hosts it answers for.
#[derive(Debug, Clone)]
pub struct Config {
    /// Bearer API keys for the keyed tools.
    pub keys: KeySet,
    /// Largest request body, in bytes.
    pub max_body: usize,
    /// Largest tool output text, in bytes.
    pub max_tool_output: usize,
    /// `POST /mcp` requests per minute per caller; 0 means no limit.
    pub rate_per_minute: u32,
    /// `tools/call` per minute per caller and tool; 0 means no limit.
    pub tool_rate_per_minute: u32,
    /// Host names (without port) the endpoint answers for (DNS-rebinding protection); `None` answers any host.
    pub allowed_hosts: Option<Vec<String>>,
}

impl Default for Config {
    /// No keys, the seed's limits, loopback host names only.
    fn default() -> Config {
        Config {
            keys: KeySet::default(),
            max_body: MAX_BODY,
            max_tool_output: MAX_TOOL_OUTPUT,
            rate_per_minute: DEFAULT_RATE_PER_MINUTE,
            tool_rate_per_minute: DEFAULT_TOOL_RATE_PER_MINUTE,
            allowed_hosts: Some(vec!["localhost".into(), "127.0.0.1".into(), "[::1]".into()]),
        }
    }
}

impl Config {
    /// Reads the configuration from the environment (docs/MCP.md, Configuration):
    /// `CURBI_MCP_KEYS_FILE` (a keys file), `CURBI_MCP_KEYS` (the same JSON inline), `CURBI_MCP_RATE_PER_MINUTE`,
    /// `CURBI_MCP_TOOL_RATE_PER_MINUTE`, `CURBI_MCP_MAX_TOOL_OUTPUT`, `CURBI_MCP_ALLOWED_HOSTS` (comma-separated host
    /// names, or `*` for any). Unset variables keep the defaults. The error never contains a key.
    pub fn from_env() -> Result<Config, String> {
        let mut c = Config::default();
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        if let Some(path) = var("CURBI_MCP_KEYS_FILE") {
            let text = std::fs::read_to_string(&path).map_err(|e| format!("CURBI_MCP_KEYS_FILE {path}: {e}"))?;
            c.keys = KeySet::from_json(&text).map_err(|e| format!("CURBI_MCP_KEYS_FILE {path}: {e}"))?;
        } else if let Some(text) = var("CURBI_MCP_KEYS") {
            c.keys = KeySet::from_json(&text).map_err(|e| format!("CURBI_MCP_KEYS: {e}"))?;
        }
        let number = |name: &str| -> Result<Option<u64>, String> {
            var(name).map(|v| v.trim().parse::<u64>().map_err(|_| format!("{name}: not a whole number"))).transpose()
        };
        if let Some(n) = number("CURBI_MCP_RATE_PER_MINUTE")? {
            c.rate_per_minute = u32::try_from(n).unwrap_or(u32::MAX);
        }
        if let Some(n) = number("CURBI_MCP_TOOL_RATE_PER_MINUTE")? {
            c.tool_rate_per_minute = u32::try_from(n).unwrap_or(u32::MAX);
        }
        if let Some(n) = number("CURBI_MCP_MAX_TOOL_OUTPUT")? {
            c.max_tool_output = usize::try_from(n).unwrap_or(usize::MAX);
        }
        if let Some(hosts) = var("CURBI_MCP_ALLOWED_HOSTS") {
            c.allowed_hosts = if hosts.trim() == "*" {
                None
            } else {
                Some(hosts.split(',').map(|h| h.trim().to_ascii_lowercase()).filter(|h| !h.is_empty()).collect())
            };
        }
        Ok(c)
    }
}

/// Shared state of one server: the configuration and the rate-limit windows.
#[derive(Debug)]
pub struct Server {
    pub config: Config,
    pub requests: RateLimiter,
    pub tool_calls: RateLimiter,
}

impl Server {
    pub fn new(config: Config) -> Server {
        let requests = RateLimiter::new(config.rate_per_minute);
        let tool_calls = RateLimiter::new(config.tool_rate_per_minute);
        Server { config, requests, tool_calls }
    }
}

/// The MCP routes without a fallback, to merge with the Check API's routes (`curbi_cli::serve::routes`):
/// `POST /mcp` (every other method 405), `GET /ai.json` and `GET /agent-start.json`.
pub fn routes(config: Config) -> Router {
    let server = Arc::new(Server::new(config));
    Router::new()
        .route("/mcp", any(mcp_endpoint))
        .route("/ai.json", get(ai_json))
        .route("/agent-start.json", get(agent_start))
        .with_state(server)
}

/// A JSON-RPC error answer: `status`, and a body with `id` (null when the request's id is unknown).
#[derive(Debug)]
pub struct RpcError {
    pub status: StatusCode,
    pub id: Value,
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
    /// Extra response headers (`Allow`, `WWW-Authenticate`, `Retry-After`, `Connection`).
    pub headers: Vec<(axum::http::HeaderName, HeaderValue)>,
}

impl RpcError {
    pub fn new(status: StatusCode, code: i64, message: impl Into<String>) -> RpcError {
        RpcError { status, id: Value::Null, code, message: message.into(), data: None, headers: Vec::new() }
    }

    pub fn with_id(mut self, id: &Value) -> RpcError {
        self.id = id.clone();
        self
    }

    pub fn with_data(mut self, data: Value) -> RpcError {
        self.data = Some(data);
        self
    }

    pub fn with_header(mut self, name: axum::http::HeaderName, value: &'static str) -> RpcError {
        self.headers.push((name, HeaderValue::from_static(value)));
        self
    }
}

impl IntoResponse for RpcError {
    fn into_response(self) -> Response {
        let mut error = json!({"code": self.code, "message": self.message});
        if let (Some(data), Some(m)) = (self.data, error.as_object_mut()) {
            m.insert("data".into(), data);
        }
        let body = json!({"jsonrpc": "2.0", "id": self.id, "error": error});
        let mut res = json_response(self.status, body.to_string());
        for (name, value) in self.headers {
            res.headers_mut().insert(name, value);
        }
        res
    }
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

async fn mcp_endpoint(State(server): State<Arc<Server>>, req: Request) -> Response {
    match handle(&server, req).await {
        Ok(res) => res,
        Err(e) => e.into_response(),
    }
}

/// The transport rules, in order: method (405), Host and Origin (403), Accept (406), Content-Type (415), size
/// (413), JSON (400/-32700), one object (400/-32600), the key (401), the rate limit (429); then the protocol.
async fn handle(server: &Server, req: Request) -> Result<Response, RpcError> {
    if req.method() != Method::POST {
        return Err(RpcError::new(
            StatusCode::METHOD_NOT_ALLOWED,
            code::SERVER_ERROR,
            format!("{} is not allowed on /mcp; send each JSON-RPC message as its own POST", req.method()),
        )
        .with_header(ALLOW, "POST"));
    }
    let headers = req.headers().clone();
    check_host_and_origin(&headers, server.config.allowed_hosts.as_deref())?;
    if !accepts_json(&headers) {
        return Err(RpcError::new(
            StatusCode::NOT_ACCEPTABLE,
            code::SERVER_ERROR,
            "Accept must include application/json",
        ));
    }
    if !is_json_content_type(&headers) {
        return Err(RpcError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            code::SERVER_ERROR,
            "Content-Type must be application/json",
        ));
    }
    let body = read_body(req.into_body(), server.config.max_body).await.map_err(|e| match e {
        BodyError::TooLarge => RpcError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            code::SERVER_ERROR,
            format!("request body is larger than {} bytes", server.config.max_body),
        )
        .with_header(CONNECTION, "close"),
        BodyError::Read(e) => {
            RpcError::new(StatusCode::BAD_REQUEST, code::PARSE_ERROR, format!("could not read the request body: {e}"))
        }
    })?;
    let message: Value = serde_json::from_slice(&body)
        .map_err(|e| RpcError::new(StatusCode::BAD_REQUEST, code::PARSE_ERROR, format!("Parse error: {e}")))?;
    let caller = server.config.keys.caller(headers.get(AUTHORIZATION))?;
    protocol::check_message_shape(&message)?;
    if let Err(retry) = server.requests.check(&caller.bucket()) {
        return Err(rate_limited(retry, "rate limit exceeded: too many requests for this caller"));
    }
    protocol::dispatch(server, &headers, &caller, message)
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

/// 403 unless the `Host` names an allowed host (DNS-rebinding protection) and a present `Origin` names the same
/// host and port as `Host`. No `Origin` is fine (non-browser clients).
pub fn check_host_and_origin(headers: &HeaderMap, allowed_hosts: Option<&[String]>) -> Result<(), RpcError> {
    let forbidden = |m: &str| RpcError::new(StatusCode::FORBIDDEN, code::SERVER_ERROR, m.to_string());
    let host = headers.get(HOST).and_then(|v| v.to_str().ok()).map(|h| h.trim().to_ascii_lowercase());
    if let Some(allowed) = allowed_hosts {
        let name = host.as_deref().map(host_name).unwrap_or_default();
        if !allowed.iter().any(|a| a == name) {
            return Err(forbidden("the Host header names a host this server does not answer for"));
        }
    }
    let Some(origin) = headers.get(ORIGIN) else { return Ok(()) };
    let origin = origin.to_str().unwrap_or_default().trim().to_ascii_lowercase();
    let matches = host.is_some_and(|host| {
        let Some((scheme, authority)) = origin.split_once("://") else { return false };
        let default_port = match scheme {
            "http" => "80",
            "https" => "443",
            _ => return false,
        };
        let with_port = |a: &str| if has_port(a) { a.to_string() } else { format!("{a}:{default_port}") };
        !authority.contains('/') && with_port(authority) == with_port(&host)
    });
    if matches { Ok(()) } else { Err(forbidden("the Origin header does not match the Host")) }
}

/// The host name of a `Host` value: without the port, brackets kept for IPv6.
fn host_name(host: &str) -> &str {
    if host.starts_with('[') {
        return host.split_once(']').map_or(host, |(h, _)| &host[..=h.len()]);
    }
    host.split_once(':').map_or(host, |(h, _)| h)
}

fn has_port(authority: &str) -> bool {
    match authority.rsplit_once(']') {
        Some((_, rest)) => rest.starts_with(':'),
        None => authority.contains(':'),
    }
}

/// An absent (or blank) `Accept` is fine; a present one must allow `application/json` (`application/json`,
/// `application/*` or `*/*`, with a non-zero quality).
pub fn accepts_json(headers: &HeaderMap) -> bool {
    let values: Vec<&str> = headers.get_all(ACCEPT).iter().filter_map(|v| v.to_str().ok()).collect();
    if values.iter().all(|v| v.trim().is_empty()) {
        return true;
    }
    values.iter().flat_map(|v| v.split(',')).any(|range| {
        let mut parts = range.split(';');
        let media = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
        let zero_quality = parts.any(|p| {
            p.split_once('=').is_some_and(|(k, v)| k.trim() == "q" && v.trim().parse::<f32>().is_ok_and(|q| q <= 0.0))
        });
        !zero_quality && matches!(media.as_str(), "application/json" | "application/*" | "*/*")
    })
}

/// `application/json` or `application/*+json`, any case, parameters allowed; a declared charset must be UTF-8.
pub fn is_json_content_type(headers: &HeaderMap) -> bool {
    let Some(value) = headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let mut parts = value.split(';');
    let essence = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
    let json = match essence.strip_prefix("application/") {
        Some("json") => true,
        Some(sub) => sub.len() > "+json".len() && sub.ends_with("+json") && !sub.contains('/'),
        None => false,
    };
    json && parts.all(|param| match param.split_once('=') {
        Some((name, v)) if name.trim().eq_ignore_ascii_case("charset") => {
            v.trim().trim_matches('"').eq_ignore_ascii_case("utf-8")
        }
        _ => true,
    })
}

#[derive(Debug)]
enum BodyError {
    TooLarge,
    Read(String),
}

/// Reads at most `limit` bytes: a declared Content-Length over the limit is refused before reading, a chunked body
/// is cut off as soon as it passes the limit.
async fn read_body(body: Body, limit: usize) -> Result<Bytes, BodyError> {
    if usize::try_from(body.size_hint().lower()).map_or(true, |n| n > limit) {
        return Err(BodyError::TooLarge);
    }
    match Limited::new(body, limit).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) if e.is::<LengthLimitError>() => Err(BodyError::TooLarge),
        Err(e) => Err(BodyError::Read(e.to_string())),
    }
}

pub(crate) fn json_response(status: StatusCode, body: String) -> Response {
    (status, [(CONTENT_TYPE, HeaderValue::from_static("application/json"))], body).into_response()
}

/// The base URL callers reached us at, from `Host` (`http://127.0.0.1:8787`).
fn base_url(headers: &HeaderMap) -> String {
    let host = headers.get(HOST).and_then(|v| v.to_str().ok()).unwrap_or("127.0.0.1:8787");
    format!("http://{host}")
}

async fn ai_json(State(server): State<Arc<Server>>, headers: HeaderMap) -> Response {
    if let Err(e) = check_host_and_origin(&headers, server.config.allowed_hosts.as_deref()) {
        return e.into_response();
    }
    json_response(StatusCode::OK, tools::ai_document(&base_url(&headers), &server.config).to_string())
}

async fn agent_start(State(server): State<Arc<Server>>, headers: HeaderMap) -> Response {
    if let Err(e) = check_host_and_origin(&headers, server.config.allowed_hosts.as_deref()) {
        return e.into_response();
    }
    json_response(StatusCode::OK, tools::agent_start_document(&base_url(&headers)).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_str(v).expect("header value"));
        }
        h
    }

    #[test]
    fn json_content_types() {
        for ok in [
            "application/json",
            "application/json; charset=utf-8",
            "Application/JSON;charset=\"UTF-8\"",
            "application/vnd.curbi+json",
            "application/json; foo=bar",
        ] {
            assert!(is_json_content_type(&headers(&[("content-type", ok)])), "{ok}");
        }
        for bad in [
            "text/plain",
            "application/jsonp",
            "application/+json",
            "text/json",
            "application/json; charset=latin1",
            "application/x-www-form-urlencoded",
            "",
        ] {
            assert!(!is_json_content_type(&headers(&[("content-type", bad)])), "{bad}");
        }
        assert!(!is_json_content_type(&HeaderMap::new()));
    }

    #[test]
    fn accept_rules() {
        assert!(accepts_json(&HeaderMap::new()));
        for ok in ["application/json", "application/json, text/event-stream", "*/*", "text/html, application/*;q=0.5"] {
            assert!(accepts_json(&headers(&[("accept", ok)])), "{ok}");
        }
        for bad in ["text/event-stream", "text/html", "application/xml", "application/json;q=0"] {
            assert!(!accepts_json(&headers(&[("accept", bad)])), "{bad}");
        }
    }

    #[test]
    fn origin_and_host_rules() {
        let loopback = Config::default().allowed_hosts;
        let allowed = loopback.as_deref();
        assert!(check_host_and_origin(&headers(&[("host", "127.0.0.1:8787")]), allowed).is_ok());
        assert!(
            check_host_and_origin(
                &headers(&[("host", "127.0.0.1:8787"), ("origin", "http://127.0.0.1:8787")]),
                allowed
            )
            .is_ok()
        );
        assert!(
            check_host_and_origin(&headers(&[("host", "localhost"), ("origin", "http://localhost:80")]), allowed)
                .is_ok()
        );
        assert!(check_host_and_origin(&headers(&[("host", "[::1]:9"), ("origin", "http://[::1]:9")]), allowed).is_ok());
        for origin in ["http://evil.example", "http://127.0.0.1:9999", "null", "127.0.0.1"] {
            let h = headers(&[("host", "127.0.0.1:8787"), ("origin", origin)]);
            assert!(check_host_and_origin(&h, allowed).is_err(), "{origin}");
        }
        assert!(check_host_and_origin(&headers(&[("host", "evil.example:8787")]), allowed).is_err());
        assert!(check_host_and_origin(&headers(&[("host", "evil.example:8787")]), None).is_ok());
    }
}
