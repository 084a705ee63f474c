//! The transport of `POST /mcp`: the rules a request passes before the JSON-RPC layer sees it (method, Host and
//! Origin, Accept, Content-Type, size, JSON, one message, the key, the rate limit), in that order.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header::{AUTHORIZATION, HOST, ORIGIN};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use crate::config::Server;
use crate::http::{PostRoute, accepts_json, read_json_post};
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
async fn handle(server: &Server, req: Request) -> Result<Response, RpcError> {
    let (headers, body) = read_json_post(req, &ROUTE, server.config.max_body, |headers| {
        check_host_and_origin(headers, server.config.allowed_hosts.as_deref())?;
        if accepts_json(headers) {
            Ok(())
        } else {
            Err(RpcError::new(StatusCode::NOT_ACCEPTABLE, code::SERVER_ERROR, "Accept must include application/json"))
        }
    })
    .await?;
    let (message, refused) = read_message(&body)?;
    let caller = server.config.keys.caller(headers.get(AUTHORIZATION))?;
    protocol::check_message_shape(&message)?;
    if let Err(retry) = server.requests.check(&caller.bucket()) {
        return Err(rate_limited(retry, "rate limit exceeded: too many requests for this caller"));
    }
    protocol::dispatch(server, &headers, &caller, message, refused.as_ref())
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

/// 403 unless the `Host` names an allowed host (DNS-rebinding protection) and a present `Origin` names the same
/// host and port as `Host`. No `Origin` is fine (non-browser clients).
pub fn check_host_and_origin(headers: &HeaderMap, allowed_hosts: Option<&[String]>) -> Result<(), RpcError> {
    let forbidden = |m: &str| RpcError::new(StatusCode::FORBIDDEN, code::SERVER_ERROR, m.to_string());
    let host = headers.get(HOST).and_then(|v| v.to_str().ok()).map(|h| h.trim().to_ascii_lowercase());
    if let Some(allowed) = allowed_hosts {
        let name = host.as_deref().map(host_name).unwrap_or_default();
        if !allowed.iter().any(|a| a == name) {
            return Err(forbidden(&format!(
                "the Host header names a host this server does not answer for ({name:?}); allow it with \
                 CURBI_MCP_ALLOWED_HOSTS (comma-separated host names, or * for any; docs/MCP.md)"
            )));
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
