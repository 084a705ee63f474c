//! The transport of `POST /mcp`: the rules a request passes before the JSON-RPC layer sees it (method, Host and
//! Origin, Accept, Content-Type, size, JSON, one message, the key, the rate limit), in that order.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header::{AUTHORIZATION, HOST, ORIGIN};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use crate::auth::Caller;
use crate::config::Server;
use crate::http::{PostRoute, accepts_json, client_address, read_json_post};
use crate::protocol;
use crate::rpc::{RpcError, code, rate_limited};

/// How `/mcp` words the refusals every POST route shares.
const ROUTE: PostRoute = PostRoute {
    path: "/mcp",
    use_instead: "send each JSON-RPC message as its own POST",
    content_type_message: "Content-Type must be application/json",
};

/// `POST /mcp`, answering every method so a wrong one gets the JSON-RPC 405 instead of an empty default body.
pub async fn endpoint(State(server): State<Arc<Server>>, req: Request) -> Response {
    match handle(&server, req).await {
        Ok(res) => res,
        Err(e) => e.into_response(),
    }
}

/// The transport rules, in order: method (405), Host and Origin (403), Accept (406), Content-Type (415), size
/// (413), JSON (400/-32700), one object (400/-32600), the key (401), the rate limit (429); then the protocol.
async fn handle(server: &Arc<Server>, req: Request) -> Result<Response, RpcError> {
    let client = client_address(&req);
    let (headers, body) =
        read_json_post(req, &ROUTE, (server.config.max_body, server.config.body_timeout), |headers| {
            check_host_and_origin(headers, server.config.allowed_hosts.as_deref())?;
            if accepts_json(headers) {
                Ok(())
            } else {
                Err(RpcError::new(
                    StatusCode::NOT_ACCEPTABLE,
                    code::SERVER_ERROR,
                    "Accept must include application/json",
                ))
            }
        })
        .await?;
    let (message, refused) = read_message(&body)?;
    // Every answer from here on carries the request's id when it has a valid one (401 and 429 too).
    let id = request_id(&message);
    let caller = authenticate(server, &client, &headers).map_err(|e| e.with_id(&id))?;
    protocol::check_message_shape(&message)?;
    if let Err(retry) = server.requests.check(&caller.bucket()) {
        return Err(rate_limited(retry, "rate limit exceeded: too many requests for this caller").with_id(&id));
    }
    protocol::dispatch(server, &headers, &caller, message, refused.as_ref()).await
}

/// The id of a message when it is a valid JSON-RPC id (a string or an integer), else `null`.
fn request_id(message: &Value) -> Value {
    match message.get("id") {
        Some(id @ Value::String(_)) => id.clone(),
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Value::Number(n.clone()),
        _ => Value::Null,
    }
}

/// The caller of a request, counting failed authentications per client address: past
/// `auth_failures_per_minute` failures in a minute, every request of that address with `Authorization` is a 429
/// until the window ends, before its key is looked at, so a guesser learns nothing more in that minute.
fn authenticate(server: &Server, client: &str, headers: &HeaderMap) -> Result<Caller, RpcError> {
    let Some(authorization) = headers.get(AUTHORIZATION) else { return Ok(Caller::Anonymous) };
    let bucket = format!("auth:{client}");
    if let Err(retry) = server.auth_failures.spent(&bucket) {
        return Err(rate_limited(retry, "rate limit exceeded: too many failed authentications from this address"));
    }
    server.config.keys.caller(Some(authorization)).inspect_err(|_| {
        let _ = server.auth_failures.check(&bucket);
    })
}

/// Reads a JSON-RPC message with core's strict reader. A repeated member inside `params.arguments` is the tool's
/// own input error (a tool result with `isError`, its path relative to the arguments, as a tool error for any
/// other bad argument); anywhere else in the message it is a parse error (-32700), like bad syntax.
pub(crate) fn read_message(body: &[u8]) -> Result<(Value, Option<curbi::Error>), RpcError> {
    let parse_error =
        |m: String| RpcError::new(StatusCode::BAD_REQUEST, code::PARSE_ERROR, format!("Parse error: {m}"));
    let e = match curbi::json::read(body) {
        Ok(message) => return Ok((message, None)),
        Err(e) => e,
    };
    let within = e.path.strip_prefix("/params/arguments").filter(|rest| rest.is_empty() || rest.starts_with('/'));
    match within {
        Some(rest) if e.code == curbi::ErrorCode::DuplicateMember => {
            // Readable apart from the repeat: the envelope (method, id, tool name) is still answered.
            let message = serde_json::from_slice(body).map_err(|e| parse_error(e.to_string()))?;
            let refused = curbi::Error::new(e.code, rest, e.message);
            Ok((message, Some(refused)))
        }
        _ => Err(parse_error(format!("{} (at \"{}\")", e.message, e.path))),
    }
}

/// 400 unless the request has exactly one `Host` and it is a host with an optional port (RFC 9112 §3.2: a
/// repeated or malformed `Host` is a 400); then 403 unless it names an allowed host (DNS-rebinding protection) and a
/// present `Origin` names the same host and port as `Host`. No `Origin` is fine (non-browser clients).
pub fn check_host_and_origin(headers: &HeaderMap, allowed_hosts: Option<&[String]>) -> Result<(), RpcError> {
    let forbidden = |m: &str| RpcError::new(StatusCode::FORBIDDEN, code::SERVER_ERROR, m.to_string());
    let host = match request_host(headers) {
        Ok(host) => host,
        Err(m) => return Err(RpcError::new(StatusCode::BAD_REQUEST, code::SERVER_ERROR, m)),
    };
    if let Some(allowed) = allowed_hosts {
        let name = host_name(&host).unwrap_or_default();
        if !allowed.iter().any(|a| a == name) {
            return Err(forbidden(&format!(
                "the Host header names a host this server does not answer for ({name:?}); allow it with \
                 CURBI_MCP_ALLOWED_HOSTS (comma-separated host names, or * for any; docs/MCP.md)"
            )));
        }
    }
    let Some(origin) = headers.get(ORIGIN) else { return Ok(()) };
    let origin = origin.to_str().unwrap_or_default().trim().to_ascii_lowercase();
    let matches = {
        let Some((scheme, authority)) = origin.split_once("://") else { return Err(forbidden(ORIGIN_MISMATCH)) };
        let default_port = match scheme {
            "http" => "80",
            "https" => "443",
            _ => return Err(forbidden(ORIGIN_MISMATCH)),
        };
        let with_port = |a: &str| if has_port(a) { a.to_string() } else { format!("{a}:{default_port}") };
        host_name(authority).is_some() && with_port(authority) == with_port(&host)
    };
    if matches { Ok(()) } else { Err(forbidden(ORIGIN_MISMATCH)) }
}

const ORIGIN_MISMATCH: &str = "the Origin header does not match the Host";

/// The one `Host` of a request, trimmed and lower case, checked to be a host with an optional port; the message of
/// the 400 otherwise.
pub fn request_host(headers: &HeaderMap) -> Result<String, &'static str> {
    let mut all = headers.get_all(HOST).iter();
    let (Some(value), None) = (all.next(), all.next()) else {
        return Err("the request must carry exactly one Host header");
    };
    let host = value.to_str().map(|h| h.trim().to_ascii_lowercase()).unwrap_or_default();
    if host_name(&host).is_none() {
        return Err("the Host header is not a host name with an optional port");
    }
    Ok(host)
}

/// The host name of a `Host` value or an origin's authority, without the port (brackets kept for IPv6), or `None`
/// when it is not `host[:port]`: a bracketed literal followed by anything but a port (`[::1]evil.example`), an
/// empty name or port, a non-digit port, or characters no host name has (`/`, `@`, `?`, `#`, spaces).
fn host_name(host: &str) -> Option<&str> {
    let (name, port) = if host.starts_with('[') {
        let end = host.find(']')?;
        let rest = &host[end + 1..];
        let port = match rest.strip_prefix(':') {
            Some(port) => Some(port),
            None if rest.is_empty() => None,
            None => return None,
        };
        let inner = &host[1..end];
        if inner.is_empty() || !inner.bytes().all(|b| b.is_ascii_hexdigit() || b == b':' || b == b'.') {
            return None;
        }
        (&host[..=end], port)
    } else {
        let (name, port) = match host.split_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (host, None),
        };
        let ok = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_');
        if name.is_empty() || !name.bytes().all(ok) {
            return None;
        }
        (name, port)
    };
    match port {
        Some(p) if p.is_empty() || p.len() > 5 || !p.bytes().all(|b| b.is_ascii_digit()) => None,
        _ => Some(name),
    }
}

fn has_port(authority: &str) -> bool {
    match authority.rsplit_once(']') {
        Some((_, rest)) => rest.starts_with(':'),
        None => authority.contains(':'),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::http::tests::headers;

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
