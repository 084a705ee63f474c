//! The plain HTTP Check API behind `curbi serve`: `POST /v1/check` takes a Check API request body and answers with
//! the same JSON as `curbi check` (docs/CHECK_API.md). Every error, transport ones included, is the
//! `{"error":{"code","message","path"}}` document.
//!
//! The pieces are public so the MCP endpoint (crate `curbi-mcp`) can reuse them: merge its routes with
//! [`routes`], add [`not_found`] as the fallback once, and run the result with [`serve`].

use std::future::Future;
use std::io;
use std::panic::{self, AssertUnwindSafe};

use axum::Router;
use axum::body::{Body, Bytes, HttpBody};
use axum::extract::Request;
use axum::http::header::{ALLOW, CONNECTION, CONTENT_TYPE};
use axum::http::{HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use curbi::{Error, ErrorCode};
use curbi_mcp::is_json_content_type;
use http_body_util::{BodyExt, LengthLimitError, Limited};
use tokio::net::{TcpListener, ToSocketAddrs};

/// Largest request body accepted, in bytes (seed 000: "64 KiB input").
pub const MAX_BODY: usize = 64 * 1024;

/// The default listening address: loopback only, so `curbi serve` never exposes itself by accident.
pub const DEFAULT_ADDR: &str = "127.0.0.1:8787";

/// The Check API routes without a fallback, so another crate can merge its own routes before adding one.
pub fn routes() -> Router {
    Router::new().route("/v1/check", any(check_endpoint))
}

/// The full `curbi serve` application: [`routes`] plus the JSON 404 for every other path.
pub fn router() -> Router {
    routes().fallback(not_found)
}

/// [`router`] with the MCP endpoint merged in (`POST /mcp`, `GET /ai.json`, `GET /agent-start.json`; docs/MCP.md).
pub fn router_with_mcp(mcp: curbi_mcp::Config) -> Router {
    routes().merge(curbi_mcp::routes(mcp)).fallback(not_found)
}

/// Binds `addr`, prints the listening address on stderr and serves [`router_with_mcp`] (configured from the
/// environment, docs/MCP.md) until Ctrl-C or SIGTERM.
pub async fn run(addr: impl ToSocketAddrs) -> io::Result<()> {
    let mcp = curbi_mcp::Config::from_env().map_err(io::Error::other)?;
    let listener = TcpListener::bind(addr).await?;
    eprintln!("curbi: listening on http://{}", listener.local_addr()?);
    serve(listener, router_with_mcp(mcp), shutdown_signal()).await?;
    eprintln!("curbi: stopped");
    Ok(())
}

/// Serves `app` on `listener` until `shutdown` resolves, then lets in-flight requests finish.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    axum::serve(listener, app).with_graceful_shutdown(shutdown).await
}

/// Resolves on Ctrl-C or, on Unix, SIGTERM. A signal that cannot be watched never resolves (rather than stopping
/// the server at once).
pub async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    eprintln!("curbi: shutting down");
}

/// `/v1/check` for every method, so a wrong one gets our 405 document instead of an empty default body.
async fn check_endpoint(req: Request) -> Response {
    if req.method() != Method::POST {
        let mut res = error_response(
            StatusCode::METHOD_NOT_ALLOWED,
            ErrorCode::MethodNotAllowed,
            format!("{} is not allowed on /v1/check; use POST", req.method()),
        );
        res.headers_mut().insert(ALLOW, HeaderValue::from_static("POST"));
        return res;
    }
    if !is_json_content_type(req.headers()) {
        return error_response(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ErrorCode::UnsupportedMediaType,
            "send the request body with Content-Type: application/json",
        );
    }
    match read_body(req.into_body(), MAX_BODY).await {
        Ok(body) => check_body(&body),
        Err(BodyError::TooLarge) => body_too_large(),
        Err(BodyError::Read(e)) => error_response(
            StatusCode::BAD_REQUEST,
            ErrorCode::InvalidJson,
            format!("could not read the request body: {e}"),
        ),
    }
}

/// The JSON 404 for every path the server does not serve.
pub async fn not_found(req: Request) -> Response {
    error_response(
        StatusCode::NOT_FOUND,
        ErrorCode::NotFound,
        format!("no endpoint at {}; the Check API is POST /v1/check", req.uri().path()),
    )
}

/// Checks one request body: 200 with the response, 400 with the first schema error, 500 `internal` if the
/// checker panics (a bug, but one request must never take the server down).
pub fn check_body(body: &[u8]) -> Response {
    answer(|| curbi::api::check_json(body))
}

fn answer(check: impl FnOnce() -> curbi::Result<curbi::api::Response>) -> Response {
    match panic::catch_unwind(AssertUnwindSafe(check)) {
        Ok(Ok(res)) => json_response(StatusCode::OK, res.to_json_string()),
        Ok(Err(e)) => json_response(StatusCode::BAD_REQUEST, e.to_json().to_string()),
        Err(_) => error_response(
            StatusCode::INTERNAL_SERVER_ERROR,
            ErrorCode::Internal,
            "the checker failed on this request; this is a bug, please report it with the request",
        ),
    }
}

/// Why a body could not be read.
#[derive(Debug)]
pub enum BodyError {
    /// Over the limit (HTTP 413).
    TooLarge,
    /// The connection or its framing failed.
    Read(String),
}

/// Reads a body of at most `limit` bytes. A declared Content-Length over the limit is refused before reading;
/// a chunked body is cut off as soon as it passes the limit, so nothing larger is ever buffered.
pub async fn read_body(body: Body, limit: usize) -> Result<Bytes, BodyError> {
    let declared = body.size_hint().lower();
    if usize::try_from(declared).map_or(true, |n| n > limit) {
        return Err(BodyError::TooLarge);
    }
    match Limited::new(body, limit).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) if e.is::<LengthLimitError>() => Err(BodyError::TooLarge),
        Err(e) => Err(BodyError::Read(e.to_string())),
    }
}

/// 413, closing the connection: the unread rest of the body must not be taken for the next request.
pub fn body_too_large() -> Response {
    let mut res = error_response(
        StatusCode::PAYLOAD_TOO_LARGE,
        ErrorCode::BodyTooLarge,
        format!("request body is larger than {MAX_BODY} bytes"),
    );
    res.headers_mut().insert(CONNECTION, HeaderValue::from_static("close"));
    res
}

/// An error document with `path` "" (transport errors concern the whole request).
pub fn error_response(status: StatusCode, code: ErrorCode, message: impl Into<String>) -> Response {
    json_response(status, Error::new(code, "", message).to_json().to_string())
}

fn json_response(status: StatusCode, body: String) -> Response {
    (status, [(CONTENT_TYPE, HeaderValue::from_static("application/json"))], body).into_response()
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
