//! The HTTP plumbing every route shares: the body-size limit, the one bounded reader of a JSON POST (405, 415, 413
//! decided the same way everywhere), the media-type rules and the one JSON response helper.

use std::net::SocketAddr;
use std::time::Duration;

use axum::body::{Bytes, HttpBody};
use axum::extract::{ConnectInfo, Request};
use axum::http::header::{ACCEPT, ALLOW, CONNECTION, CONTENT_TYPE};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use http_body_util::{BodyExt, LengthLimitError, Limited};

/// Largest request body accepted on every route, in bytes (seed 000: "64 KiB input"); the default of
/// `Config::max_body`.
pub const MAX_BODY: usize = 64 * 1024;

/// Every JSON answer of the server: `status`, `Content-Type: application/json`, `body`, then `headers`.
pub fn json_response(status: StatusCode, body: String, headers: Vec<(HeaderName, HeaderValue)>) -> Response {
    let mut res = (status, [(CONTENT_TYPE, HeaderValue::from_static("application/json"))], body).into_response();
    res.headers_mut().extend(headers);
    res
}

/// How a POST route words its refusals: the rules are the same on every route, the messages are each route's own.
#[derive(Debug)]
pub struct PostRoute {
    /// The path, as the 405 message names it.
    pub path: &'static str,
    /// What the 405 message tells the caller to do instead.
    pub use_instead: &'static str,
    /// The 415 message.
    pub content_type_message: &'static str,
}

/// Why a request was refused before its document was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefusalKind {
    /// 405 with `Allow: POST`.
    MethodNotAllowed,
    /// 415: no JSON `Content-Type`.
    UnsupportedMediaType,
    /// 413, closing the connection.
    TooLarge,
    /// 400: the connection or its framing failed while reading.
    Unreadable,
    /// 408, closing the connection: the body did not arrive within the body timeout.
    TimedOut,
}

/// A refusal of [`read_json_post`]: its kind and the message for the route's error document.
#[derive(Debug)]
pub struct Refusal {
    pub kind: RefusalKind,
    pub message: String,
}

impl Refusal {
    pub fn status(&self) -> StatusCode {
        match self.kind {
            RefusalKind::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            RefusalKind::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            RefusalKind::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            RefusalKind::Unreadable => StatusCode::BAD_REQUEST,
            RefusalKind::TimedOut => StatusCode::REQUEST_TIMEOUT,
        }
    }

    /// `Allow: POST` on a 405; `Connection: close` on a 413, so the unread rest of the body is not taken for the next
    /// request.
    pub fn headers(&self) -> Vec<(HeaderName, HeaderValue)> {
        match self.kind {
            RefusalKind::MethodNotAllowed => vec![(ALLOW, HeaderValue::from_static("POST"))],
            RefusalKind::TooLarge | RefusalKind::TimedOut => vec![(CONNECTION, HeaderValue::from_static("close"))],
            RefusalKind::UnsupportedMediaType | RefusalKind::Unreadable => Vec::new(),
        }
    }
}

/// The client's address (its IP, without the port) for per-client limits: from the connection `serve` accepted, or
/// `unknown` when the router runs under another server that does not say.
pub fn client_address(req: &Request) -> String {
    req.extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or_else(|| "unknown".to_owned(), |ConnectInfo(addr)| addr.ip().to_string())
}

/// Reads a JSON POST on `route`, in this order: the method (405), the route's own header `checks`, the Content-Type
/// (415), then a body of at most `limit` bytes (413), read within `timeout` (408). A declared
/// Content-Length over the limit is refused before reading; a chunked body is cut off as soon as it passes the
/// limit, so nothing larger is ever buffered.
pub async fn read_json_post<E: From<Refusal>>(
    req: Request,
    route: &PostRoute,
    (limit, timeout): (usize, Duration),
    checks: impl FnOnce(&HeaderMap) -> Result<(), E>,
) -> Result<(HeaderMap, Bytes), E> {
    let refuse = |kind, message: String| E::from(Refusal { kind, message });
    if req.method() != Method::POST {
        let message = format!("{} is not allowed on {}; {}", req.method(), route.path, route.use_instead);
        return Err(refuse(RefusalKind::MethodNotAllowed, message));
    }
    checks(req.headers())?;
    if !is_json_content_type(req.headers()) {
        return Err(refuse(RefusalKind::UnsupportedMediaType, route.content_type_message.to_owned()));
    }
    let (parts, body) = req.into_parts();
    let too_large = || refuse(RefusalKind::TooLarge, format!("request body is larger than {limit} bytes"));
    if usize::try_from(body.size_hint().lower()).map_or(true, |n| n > limit) {
        return Err(too_large());
    }
    let Ok(read) = tokio::time::timeout(timeout, Limited::new(body, limit).collect()).await else {
        let ms = timeout.as_millis();
        return Err(refuse(RefusalKind::TimedOut, format!("the request body was not received within {ms} ms")));
    };
    match read {
        Ok(collected) => Ok((parts.headers, collected.to_bytes())),
        Err(e) if e.is::<LengthLimitError>() => Err(too_large()),
        // The connection's idle deadline passed while the body was being read.
        Err(e) if timed_out(e.as_ref()) => {
            Err(refuse(RefusalKind::TimedOut, "the request body stopped arriving before it was complete".to_owned()))
        }
        Err(e) => Err(refuse(RefusalKind::Unreadable, format!("could not read the request body: {e}"))),
    }
}

/// Whether an error, or one of its sources, is an I/O timeout.
fn timed_out(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur = Some(e);
    while let Some(e) = cur {
        if e.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::TimedOut) {
            return true;
        }
        cur = e.source();
    }
    false
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
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
}
