//! The Check API alone over real TCP: the router runs in-process on 127.0.0.1 with an ephemeral port, and requests are
//! hand-written HTTP/1.1 so the tests see exactly the bytes a client would.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

use common::{Reply, parse_reply, send_raw};
use curbi_mcp::{Config, MAX_BODY, check_api_router, serve};

const STARTER: &str = r#"{"policy":{"prices":[{"item":"Starter","amount":49}]},"reply":"Starter costs $99."}"#;
const THREE_FINDINGS: &str = r#"{"policy":{"prices":[{"item":"Pro","amount":49}],"forbid":[{"id":"guarantee","phrases":["guarantee"]}],"actions":{"refunded":"billing.refund"}},"reply":"Done! I've refunded you, Pro is just $29, and we guarantee it."}"#;

async fn start() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("local addr");
    tokio::spawn(async move {
        serve(listener, check_api_router(Config::default()), std::future::pending()).await.expect("serve");
    });
    addr
}

impl Reply {
    /// Asserts an error document with path "" and returns its code.
    fn error_code(&self) -> String {
        assert_eq!(self.header("content-type"), Some("application/json"));
        let doc = self.json();
        assert_eq!(doc["error"]["path"], "", "{doc}");
        assert!(doc["error"]["message"].is_string(), "{doc}");
        doc["error"]["code"].as_str().expect("code").to_owned()
    }
}

fn request(method: &str, path: &str, content_type: Option<&str>, body: &[u8]) -> Vec<u8> {
    let mut raw = format!("{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n");
    if let Some(ct) = content_type {
        raw.push_str(&format!("Content-Type: {ct}\r\n"));
    }
    raw.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    let mut raw = raw.into_bytes();
    raw.extend_from_slice(body);
    raw
}

async fn post(addr: SocketAddr, body: &[u8]) -> Reply {
    send_raw(addr, &request("POST", "/v1/check", Some("application/json"), body)).await
}

fn finding_triples(doc: &Value) -> Vec<(String, Value, String)> {
    doc["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().expect("rule").to_owned(),
                f["span"].clone(),
                f["text"].as_str().expect("text").to_owned(),
            )
        })
        .collect()
}

/// A request body of exactly `len` bytes, padded with the policy description (the reply has its own 4000 limit).
fn padded_body(len: usize) -> Vec<u8> {
    let base = r#"{"policy":{"description":"","prices":[{"item":"Pro","amount":49}]},"reply":"Pro is $49."}"#;
    let pad = "x".repeat(len - base.len());
    let body = base.replacen(r#""description":"""#, &format!(r#""description":"{pad}""#), 1);
    assert_eq!(body.len(), len);
    body.into_bytes()
}

#[tokio::test]
async fn seed_curl_starter_costs_99() {
    let addr = start().await;
    let r = post(addr, STARTER.as_bytes()).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/json"));
    let doc = r.json();
    assert_eq!(doc["object"], "check");
    assert_eq!(doc["pass"], false);
    assert_eq!(
        doc["findings"],
        json!([{"rule":"price:mismatch","span":[14,17],"text":"$99","why":"Starter is $49, not $99."}])
    );
    // Same bytes as the CLI and the library.
    let expected = curbi::api::check_json(STARTER.as_bytes()).expect("valid").to_json_string();
    assert_eq!(r.body, expected.as_bytes());
}

#[tokio::test]
async fn seed_curl_three_findings_in_order() {
    let addr = start().await;
    let r = post(addr, THREE_FINDINGS.as_bytes()).await;
    assert_eq!(r.status, 200);
    let doc = r.json();
    assert_eq!(doc["pass"], false);
    assert_eq!(
        finding_triples(&doc),
        vec![
            ("action:unrecorded".to_owned(), json!([11, 19]), "refunded".to_owned()),
            ("price:mismatch".to_owned(), json!([37, 40]), "$29".to_owned()),
            ("forbid:guarantee".to_owned(), json!([49, 58]), "guarantee".to_owned()),
        ]
    );
    assert_eq!(doc["findings"][1]["why"], "Pro is $49, not $29.");
}

#[tokio::test]
async fn bad_request_bodies_are_400_with_code_and_path() {
    let addr = start().await;
    let cases: [(&[u8], &str, &str); 5] = [
        (br#"{"reply":"Hi"}"#, "missing_field", "/policy"),
        (br#"{"policy":{},"reply":5}"#, "invalid_type", "/reply"),
        (
            br#"{"policy":{"forbid":[{"id":"No_Refunds","phrases":["x"]}]},"reply":"x"}"#,
            "pattern_mismatch",
            "/policy/forbid/0/id",
        ),
        (br#"{"policy":{},"reply":"x","extra":1}"#, "unknown_field", "/extra"),
        (b"{", "invalid_json", ""),
    ];
    for (body, code, path) in cases {
        let r = post(addr, body).await;
        assert_eq!(r.status, 400, "{}", String::from_utf8_lossy(body));
        assert_eq!(r.header("content-type"), Some("application/json"));
        let doc = r.json();
        assert_eq!(doc["error"]["code"], code, "{doc}");
        assert_eq!(doc["error"]["path"], path, "{doc}");
    }
}

#[tokio::test]
async fn invalid_utf8_body_is_400_invalid_json() {
    let addr = start().await;
    let r = post(addr, b"{\"policy\":{},\"reply\":\"\xff\xfe\"}").await;
    assert_eq!(r.status, 400);
    assert_eq!(r.error_code(), "invalid_json");
}

#[tokio::test]
async fn body_size_limit_is_64_kib() {
    let addr = start().await;
    let at_limit = padded_body(MAX_BODY);
    let r = post(addr, &at_limit).await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.json()["pass"], true);

    let over = padded_body(MAX_BODY + 1);
    let r = post(addr, &over).await;
    assert_eq!(r.status, 413);
    assert_eq!(r.error_code(), "body_too_large");
}

#[tokio::test]
async fn chunked_body_over_the_limit_is_413() {
    // No Content-Length: the limit must hold while streaming, not only on the declared size.
    let addr = start().await;
    let body = padded_body(MAX_BODY + 100);
    let mut raw = b"POST /v1/check HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    for chunk in body.chunks(4096) {
        raw.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
        raw.extend_from_slice(chunk);
        raw.extend_from_slice(b"\r\n");
    }
    raw.extend_from_slice(b"0\r\n\r\n");
    let r = send_raw(addr, &raw).await;
    assert_eq!(r.status, 413);
    assert_eq!(r.error_code(), "body_too_large");

    // And a small chunked body is read normally.
    let mut raw = b"POST /v1/check HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    raw.extend_from_slice(format!("{:x}\r\n{STARTER}\r\n0\r\n\r\n", STARTER.len()).as_bytes());
    let r = send_raw(addr, &raw).await;
    assert_eq!(r.status, 200);
}

#[tokio::test]
async fn content_type_must_be_json() {
    let addr = start().await;
    for ct in [
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        Some("application/jsonp"),
        Some("application/json; charset=iso-8859-1"),
        None,
    ] {
        let r = send_raw(addr, &request("POST", "/v1/check", ct, STARTER.as_bytes())).await;
        assert_eq!(r.status, 415, "{ct:?}");
        assert_eq!(r.error_code(), "unsupported_media_type", "{ct:?}");
    }
    for ct in [
        "application/json",
        "application/json; charset=utf-8",
        "application/JSON;charset=UTF-8",
        "application/vnd.curbi.check+json",
    ] {
        let r = send_raw(addr, &request("POST", "/v1/check", Some(ct), STARTER.as_bytes())).await;
        assert_eq!(r.status, 200, "{ct}");
    }
}

#[tokio::test]
async fn other_methods_are_405_with_allow_post() {
    let addr = start().await;
    for method in ["GET", "PUT", "DELETE", "PATCH", "OPTIONS"] {
        let r = send_raw(addr, &request(method, "/v1/check", Some("application/json"), b"")).await;
        assert_eq!(r.status, 405, "{method}");
        assert_eq!(r.header("allow"), Some("POST"), "{method}");
        assert_eq!(r.error_code(), "method_not_allowed", "{method}");
    }
}

#[tokio::test]
async fn unknown_paths_are_404() {
    let addr = start().await;
    for (method, path) in
        [("GET", "/"), ("POST", "/v1/checks"), ("POST", "/v1/check/"), ("POST", "/v2/check"), ("GET", "/mcp")]
    {
        let r = send_raw(addr, &request(method, path, Some("application/json"), STARTER.as_bytes())).await;
        assert_eq!(r.status, 404, "{method} {path}");
        assert_eq!(r.error_code(), "not_found", "{method} {path}");
    }
}

#[tokio::test]
async fn server_keeps_answering_after_every_kind_of_error() {
    let addr = start().await;
    let hostile: Vec<Vec<u8>> = vec![
        request("POST", "/v1/check", Some("application/json"), b"\xff"),
        request("POST", "/v1/check", Some("application/json"), &vec![b'['; 60_000]),
        request("POST", "/v1/check", Some("application/json"), &padded_body(MAX_BODY + 1)),
        request("POST", "/v1/check", Some("text/plain"), b"{}"),
        request("GET", "/v1/check", None, b""),
        request("POST", "/nope", None, b""),
        request("POST", "/v1/check", Some("application/json"), b""),
        // Content-Length promising more than is sent, then the client goes away.
        b"POST /v1/check HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
            .to_vec(),
        b"NOT HTTP AT ALL\r\n\r\n".to_vec(),
    ];
    for raw in &hostile {
        let mut stream = TcpStream::connect(addr).await.expect("connect");
        stream.write_all(raw).await.expect("write");
        // Read what comes (or nothing) for a moment; the point is the server after.
        let mut buf = vec![0; 4096];
        let _ = tokio::time::timeout(Duration::from_millis(200), stream.read(&mut buf)).await;
    }
    let r = post(addr, STARTER.as_bytes()).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["findings"][0]["rule"], "price:mismatch");
}

#[tokio::test]
async fn keep_alive_connection_serves_several_requests() {
    let addr = start().await;
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    for _ in 0..3 {
        let raw = format!(
            "POST /v1/check HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{STARTER}",
            STARTER.len()
        );
        stream.write_all(raw.as_bytes()).await.expect("write");
        // Read until the whole response (headers + Content-Length body) is in.
        let mut buf = Vec::new();
        let mut chunk = [0u8; 4096];
        loop {
            let n = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut chunk))
                .await
                .expect("response in time")
                .expect("read");
            assert!(n > 0, "connection closed early");
            buf.extend_from_slice(&chunk[..n]);
            if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let r = parse_reply(&buf);
                let len: usize = r.header("content-length").expect("length").parse().expect("n");
                if buf.len() >= end + 4 + len {
                    assert_eq!(r.status, 200);
                    break;
                }
            }
        }
    }
}

#[tokio::test]
async fn graceful_shutdown_stops_the_server() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let (tx, rx) = oneshot::channel::<()>();
    let server = tokio::spawn(serve(listener, check_api_router(Config::default()), async {
        let _ = rx.await;
    }));
    assert_eq!(post(addr, STARTER.as_bytes()).await.status, 200);
    tx.send(()).expect("signal shutdown");
    tokio::time::timeout(Duration::from_secs(10), server)
        .await
        .expect("server stops within 10 s")
        .expect("server task")
        .expect("serve result");
    assert!(TcpStream::connect(addr).await.is_err(), "listener closed");
}
