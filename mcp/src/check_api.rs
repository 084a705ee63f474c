//! The Check API, `POST /v1/check`: a Check API request body in, the same JSON as `curbi check` out
//! (docs/CHECK_API.md). Every error, transport ones included, is the `{"error":{"code","message","path"}}` document.

use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header::RETRY_AFTER;
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::Response;
use curbi::{Error, ErrorCode};

use crate::config::Server;
use crate::http::{PostRoute, Refusal, RefusalKind, client_address, json_response, read_json_post};
use crate::transport::check_host_and_origin;
use crate::work::{JobError, RETRY_AFTER_SECS};

/// How `/v1/check` words the refusals every POST route shares.
const ROUTE: PostRoute = PostRoute {
    path: "/v1/check",
    use_instead: "use POST",
    content_type_message: "send the request body with Content-Type: application/json",
};

/// A refusal of `/v1/check` before its body is checked: status, error document, headers.
struct Refused(StatusCode, String, Vec<(HeaderName, HeaderValue)>);

impl From<Refusal> for Refused {
    fn from(refusal: Refusal) -> Refused {
        let code = match refusal.kind {
            RefusalKind::MethodNotAllowed => ErrorCode::MethodNotAllowed,
            RefusalKind::UnsupportedMediaType => ErrorCode::UnsupportedMediaType,
            RefusalKind::TooLarge => ErrorCode::BodyTooLarge,
            RefusalKind::Unreadable | RefusalKind::TimedOut => ErrorCode::InvalidJson,
        };
        let headers = refusal.headers();
        Refused(refusal.status(), error_document(code, refusal.message), headers)
    }
}

fn retry_after(seconds: u64) -> Vec<(HeaderName, HeaderValue)> {
    HeaderValue::from_str(&seconds.to_string()).map(|v| vec![(RETRY_AFTER, v)]).unwrap_or_default()
}

/// `/v1/check` for every method, so a wrong one gets our 405 document instead of an empty default body. In order:
/// the method (405), `Host` (400 `invalid_host`) and `Host`/`Origin` (403 `forbidden`, the rules of `/mcp`), the
/// per-client rate limit (429 `rate_limited`), the media type (415), the body (413); then the check, on the bounded
/// pool (503 `overloaded` when it is full) and within the response cap (400 `output_too_large`).
pub async fn endpoint(State(server): State<Arc<Server>>, req: Request) -> Response {
    match handle(&server, req).await {
        Ok(res) => res,
        Err(Refused(status, body, headers)) => json_response(status, body, headers),
    }
}

async fn handle(server: &Arc<Server>, req: Request) -> Result<Response, Refused> {
    let client = client_address(&req);
    let config = &server.config;
    let (_, body) = read_json_post(req, &ROUTE, (config.max_body, config.body_timeout), |headers| {
        check_host_and_origin(headers, config.allowed_hosts.as_deref()).map_err(|e| {
            let code = if e.status == StatusCode::BAD_REQUEST { ErrorCode::InvalidHost } else { ErrorCode::Forbidden };
            Refused(e.status, error_document(code, e.message), Vec::new())
        })?;
        server.checks.check(&format!("check:{client}")).map_err(|retry| {
            let message = format!(
                "rate limit exceeded: more than {} checks a minute from this address",
                config.check_rate_per_minute
            );
            Refused(StatusCode::TOO_MANY_REQUESTS, error_document(ErrorCode::RateLimited, message), retry_after(retry))
        })
    })
    .await?;
    let max = config.max_check_response;
    let receipts = config.receipt_keys.clone();
    match server.pool.run_sized(body.len(), move || check_within(&body, receipts.as_ref(), max)).await {
        Ok(res) => Ok(res),
        Err(JobError::Overloaded) => Err(Refused(
            StatusCode::SERVICE_UNAVAILABLE,
            error_document(
                ErrorCode::Overloaded,
                "server busy: every checking worker is in use and the queue is full; retry after Retry-After seconds",
            ),
            retry_after(RETRY_AFTER_SECS),
        )),
        Err(JobError::Panicked) => Ok(internal()),
    }
}

/// The JSON 404 for every path the server does not serve.
pub async fn not_found(req: Request) -> Response {
    let message = format!("no endpoint at {}; the Check API is POST /v1/check", req.uri().path());
    json_response(StatusCode::NOT_FOUND, error_document(ErrorCode::NotFound, message), Vec::new())
}

/// Checks one request body: 200 with the response, 400 with the first schema error, 500 `internal` if the
/// checker panics (a bug, but one request must never take the server down). Receipts are verified against the
/// server's configured receipt keys; without them they are `unsupported`. No bound on the response.
pub fn check_body(body: &[u8], receipts: Option<&Arc<curbi::api::ReceiptVerifier>>) -> Response {
    answer(|| curbi::api::check_json_with(body, receipts).map(|r| r.to_json_string()))
}

/// [`check_body`] with the response cap: past `max_bytes` the check stops and answers 400 `output_too_large`.
pub fn check_within(body: &[u8], receipts: Option<&Arc<curbi::api::ReceiptVerifier>>, max_bytes: usize) -> Response {
    answer(|| curbi::api::check_json_within(body, receipts, max_bytes))
}

fn internal() -> Response {
    json_response(
        StatusCode::INTERNAL_SERVER_ERROR,
        error_document(
            ErrorCode::Internal,
            "the checker failed on this request; this is a bug, please report it with the request",
        ),
        Vec::new(),
    )
}

fn answer(check: impl FnOnce() -> curbi::Result<String>) -> Response {
    match panic::catch_unwind(AssertUnwindSafe(check)) {
        Ok(Ok(text)) => json_response(StatusCode::OK, text, Vec::new()),
        Ok(Err(e)) => json_response(StatusCode::BAD_REQUEST, e.to_json().to_string(), Vec::new()),
        Err(_) => internal(),
    }
}

/// An error document with `path` "" (transport errors concern the whole request).
fn error_document(code: ErrorCode, message: impl Into<String>) -> String {
    Error::new(code, "", message).to_json().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::panic)]
    fn a_panicking_check_is_a_500_internal() {
        let res = answer(|| panic!("simulated checker bug"));
        assert_eq!(res.status(), StatusCode::INTERNAL_SERVER_ERROR);
    }
}
