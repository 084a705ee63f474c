//! The Check API, `POST /v1/check`: a Check API request body in, the same JSON as `curbi check` out
//! (docs/CHECK_API.md). Every error, transport ones included, is the `{"error":{"code","message","path"}}` document.

use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use curbi::{Error, ErrorCode};

use crate::config::Server;
use crate::http::{PostRoute, Refusal, RefusalKind, json_response, read_json_post};

/// How `/v1/check` words the refusals every POST route shares.
const ROUTE: PostRoute = PostRoute {
    path: "/v1/check",
    use_instead: "use POST",
    content_type_message: "send the request body with Content-Type: application/json",
};

/// `/v1/check` for every method, so a wrong one gets our 405 document instead of an empty default body.
pub async fn endpoint(State(server): State<Arc<Server>>, req: Request) -> Response {
    match read_json_post(req, &ROUTE, server.config.max_body, |_| Ok::<(), Refusal>(())).await {
        Ok((_, body)) => check_body(&body, server.config.receipt_keys.as_ref()),
        Err(refusal) => {
            let code = match refusal.kind {
                RefusalKind::MethodNotAllowed => ErrorCode::MethodNotAllowed,
                RefusalKind::UnsupportedMediaType => ErrorCode::UnsupportedMediaType,
                RefusalKind::TooLarge => ErrorCode::BodyTooLarge,
                RefusalKind::Unreadable => ErrorCode::InvalidJson,
            };
            let headers = refusal.headers();
            json_response(refusal.status(), error_document(code, refusal.message), headers)
        }
    }
}

/// The JSON 404 for every path the server does not serve.
pub async fn not_found(req: Request) -> Response {
    let message = format!("no endpoint at {}; the Check API is POST /v1/check", req.uri().path());
    json_response(StatusCode::NOT_FOUND, error_document(ErrorCode::NotFound, message), Vec::new())
}

/// Checks one request body: 200 with the response, 400 with the first schema error, 500 `internal` if the
/// checker panics (a bug, but one request must never take the server down). Receipts are verified against the
/// server's configured receipt keys; without them they are `unsupported`.
pub fn check_body(body: &[u8], receipts: Option<&Arc<curbi::api::ReceiptVerifier>>) -> Response {
    answer(|| curbi::api::check_json_with(body, receipts))
}

fn answer(check: impl FnOnce() -> curbi::Result<curbi::api::Response>) -> Response {
    let (status, body) = match panic::catch_unwind(AssertUnwindSafe(check)) {
        Ok(Ok(res)) => (StatusCode::OK, res.to_json_string()),
        Ok(Err(e)) => (StatusCode::BAD_REQUEST, e.to_json().to_string()),
        Err(_) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            error_document(
                ErrorCode::Internal,
                "the checker failed on this request; this is a bug, please report it with the request",
            ),
        ),
    };
    json_response(status, body, Vec::new())
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
