//! Issue 15 over real TCP on 127.0.0.1: the server under hostile requests and clients. Each test is one bug of the
//! issue's list (Host parsing, the Check API's Host/Origin rules and rate limit, failed authentications, where
//! `verify_checkout` exists, the ids of 401/429, output amplification) or one limit (timeouts, connections).
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use common::attack::amplifier;
use common::{Reply, send_raw, start, start_with};
use curbi_mcp::{ApiKey, Config, KeySet, Limits, Scope};

const TEST_KEY: &str = "curbi_test_k3y-for-the-hostile-tests";
const LIVE_CHECKOUT_KEY: &str = "curbi_live_checkout-scope-key-0001";

fn open_config() -> Config {
    Config { rate_per_minute: 0, tool_rate_per_minute: 0, check_rate_per_minute: 0, ..Config::default() }
}

fn keyed(config: Config) -> Config {
    Config {
        keys: KeySet::new(vec![
            ApiKey::new(TEST_KEY, "tests", vec![Scope::Checkout, Scope::Verify]),
            ApiKey::new(LIVE_CHECKOUT_KEY, "live", vec![Scope::Checkout]),
        ]),
        ..config
    }
}

/// A POST with the given head lines (`Host` included by the caller), `Connection: close` and a JSON body.
async fn post(addr: SocketAddr, path: &str, head: &[String], body: &[u8]) -> Reply {
    let mut raw = format!("POST {path} HTTP/1.1\r\nConnection: close\r\nContent-Type: application/json\r\n");
    for line in head {
        raw.push_str(line);
        raw.push_str("\r\n");
    }
    raw.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    let mut raw = raw.into_bytes();
    raw.extend_from_slice(body);
    send_raw(addr, &raw).await
}

fn host(addr: SocketAddr) -> String {
    format!("Host: {addr}")
}

async fn rpc(addr: SocketAddr, body: &Value, extra: &[String]) -> Reply {
    let mut head = vec![host(addr), "Accept: application/json".into(), "MCP-Protocol-Version: 2025-06-18".into()];
    head.extend_from_slice(extra);
    post(addr, "/mcp", &head, body.to_string().as_bytes()).await
}

fn call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

const STARTER: &str = r#"{"policy":{"prices":[{"item":"Starter","amount":49}]},"reply":"Starter costs $99."}"#;

#[tokio::test]
async fn a_host_must_be_one_host_with_an_optional_port() {
    let addr = start(Config { allowed_hosts: None, ..open_config() }).await;
    let port = addr.port();
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string();
    for bad in [
        vec![format!("Host: [::1]evil.example:{port}")],
        vec!["Host: [::1]evil.example".to_owned()],
        vec![format!("Host: 127.0.0.1:{port}"), "Host: evil.example".to_owned()],
        vec!["Host: evil.example:80x".to_owned()],
        vec!["Host: user@evil.example".to_owned()],
    ] {
        let r = post(addr, "/mcp", &bad, ping.as_bytes()).await;
        assert_eq!(r.status, 400, "{bad:?}: {:?}", String::from_utf8_lossy(&r.body));
        let r = post(addr, "/v1/check", &bad, STARTER.as_bytes()).await;
        assert_eq!((r.status, r.json()["error"]["code"].as_str()), (400, Some("invalid_host")), "{bad:?}");
    }
    for good in [format!("Host: [::1]:{port}"), format!("Host: 127.0.0.1:{port}"), "Host: shop.example".into()] {
        assert_eq!(post(addr, "/mcp", std::slice::from_ref(&good), ping.as_bytes()).await.status, 200, "{good}");
        assert_eq!(
            post(addr, "/v1/check", std::slice::from_ref(&good), STARTER.as_bytes()).await.status,
            200,
            "{good}"
        );
    }
}

#[tokio::test]
async fn the_check_api_checks_host_and_origin_like_mcp() {
    let addr = start(open_config()).await;
    let port = addr.port();
    for (lines, status, code) in [
        (vec!["Host: evil.example".to_owned()], 403, "forbidden"),
        (vec![format!("Host: [::1]evil.example:{port}")], 400, "invalid_host"),
        (vec![host(addr), "Origin: http://evil.example".to_owned()], 403, "forbidden"),
        (vec![host(addr), format!("Origin: http://127.0.0.1:{}", port.wrapping_add(1))], 403, "forbidden"),
    ] {
        let r = post(addr, "/v1/check", &lines, STARTER.as_bytes()).await;
        assert_eq!((r.status, r.json()["error"]["code"].as_str()), (status, Some(code)), "{lines:?}");
    }
    let same_origin = vec![host(addr), format!("Origin: http://{addr}")];
    let r = post(addr, "/v1/check", &same_origin, STARTER.as_bytes()).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["findings"][0]["rule"], "price:mismatch");
}

#[tokio::test]
async fn the_check_api_has_a_per_client_rate_limit() {
    let addr = start(Config { check_rate_per_minute: 3, ..open_config() }).await;
    for _ in 0..3 {
        assert_eq!(post(addr, "/v1/check", &[host(addr)], STARTER.as_bytes()).await.status, 200);
    }
    let r = post(addr, "/v1/check", &[host(addr)], STARTER.as_bytes()).await;
    assert_eq!((r.status, r.json()["error"]["code"].as_str()), (429, Some("rate_limited")));
    let retry: u64 = r.header("retry-after").expect("Retry-After").parse().expect("seconds");
    assert!((1..=60).contains(&retry), "{retry}");
}

#[tokio::test]
async fn failed_authentications_are_counted_and_limited() {
    let addr = start(keyed(Config { auth_failures_per_minute: 3, ..open_config() })).await;
    let list = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list"});
    for i in 0..3 {
        let r = rpc(addr, &list, &[format!("Authorization: Bearer curbi_test_guess-number-{i:06}")]).await;
        assert_eq!(r.status, 401);
    }
    // The fourth attempt from this address is refused before its key is looked at: a valid key is refused too, so
    // a guesser cannot tell a hit from a miss for the rest of the minute.
    for auth in ["Bearer curbi_test_guess-number-000004".to_owned(), format!("Bearer {TEST_KEY}")] {
        let r = rpc(addr, &list, &[format!("Authorization: {auth}")]).await;
        assert_eq!(r.status, 429, "{auth}");
        assert!(r.header("retry-after").is_some());
        assert_eq!(r.json()["id"], 7);
    }
    // Callers without a key are not affected.
    assert_eq!(rpc(addr, &list, &[]).await.status, 200);
}

#[tokio::test]
async fn refusals_after_the_body_was_read_keep_the_request_id() {
    let addr = start(keyed(Config { rate_per_minute: 1, ..open_config() })).await;
    let r = rpc(
        addr,
        &json!({"jsonrpc": "2.0", "id": "req-401", "method": "ping"}),
        &["Authorization: Bearer curbi_test_not-a-configured-key".into()],
    )
    .await;
    assert_eq!((r.status, r.json()["id"].clone()), (401, json!("req-401")));
    assert_eq!(rpc(addr, &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}), &[]).await.status, 200);
    let r = rpc(addr, &json!({"jsonrpc": "2.0", "id": 42, "method": "ping"}), &[]).await;
    assert_eq!((r.status, r.json()["id"].clone()), (429, json!(42)));
}

fn names(r: &Reply) -> Vec<String> {
    let tools = r.json()["result"]["tools"].as_array().cloned().unwrap_or_default();
    tools.iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn verify_checkout_exists_only_in_a_sandbox_deployment_for_a_test_key() {
    let args = json!({"mandate": {}, "checkout": {}, "now": "2026-11-01T00:00:00Z"});
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let (test, live) =
        (format!("Authorization: Bearer {TEST_KEY}"), format!("Authorization: Bearer {LIVE_CHECKOUT_KEY}"));

    // Not a sandbox deployment: no key sees or calls it (an unknown tool, -32602).
    let addr = start(keyed(open_config())).await;
    for auth in [&test, &live] {
        assert!(
            !names(&rpc(addr, &list, std::slice::from_ref(auth)).await).contains(&"verify_checkout".to_owned()),
            "{auth}"
        );
        let r = rpc(addr, &call(2, "verify_checkout", args.clone()), std::slice::from_ref(auth)).await;
        assert_eq!(r.json()["error"]["code"], -32602, "{auth}");
    }

    // A sandbox deployment: a test key with the scope calls it; a live key with the scope does not see it.
    let addr = start(keyed(Config { sandbox: true, ..open_config() })).await;
    assert!(names(&rpc(addr, &list, std::slice::from_ref(&test)).await).contains(&"verify_checkout".to_owned()));
    let r = rpc(addr, &call(3, "verify_checkout", args.clone()), std::slice::from_ref(&test)).await;
    assert_eq!(r.json()["result"]["structuredContent"]["object"], "purchase_check");
    assert!(!names(&rpc(addr, &list, std::slice::from_ref(&live)).await).contains(&"verify_checkout".to_owned()));
    let r = rpc(addr, &call(4, "verify_checkout", args), &[live]).await;
    assert_eq!(r.json()["error"]["code"], -32602);
}

#[tokio::test]
async fn output_amplification_stops_at_the_cap() {
    let addr = start(open_config()).await;
    let body = amplifier().to_string();
    assert!(body.len() < 64 * 1024, "{}", body.len());
    let r = post(addr, "/v1/check", &[host(addr)], body.as_bytes()).await;
    assert_eq!((r.status, r.json()["error"]["code"].as_str()), (400, Some("output_too_large")));
    assert!(r.body.len() < 1024, "{}", r.body.len());
    let args = amplifier();
    let r = rpc(addr, &call(5, "policy_check", args), &[]).await;
    let result = &r.json()["result"];
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(result["structuredContent"]["error"]["code"], "output_too_large");
    assert!(r.body.len() < 2048, "{}", r.body.len());
    // Under the cap the answer is the unbounded one, byte for byte.
    let r = post(addr, "/v1/check", &[host(addr)], STARTER.as_bytes()).await;
    let full = curbi::api::check_json(STARTER.as_bytes()).unwrap().to_json_string();
    assert_eq!(r.body, full.as_bytes());
}

/// Reads until the server closes the connection (or `limit` passes): whether it closed, and what it sent.
async fn closed_within(stream: &mut TcpStream, limit: Duration) -> (bool, Vec<u8>) {
    let mut got = Vec::new();
    let deadline = Instant::now() + limit;
    let mut buf = [0u8; 4096];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, stream.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return (true, got),
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
            Err(_) => return (false, got),
        }
    }
}

fn short_limits() -> Limits {
    Limits {
        max_connections: 64,
        header_timeout: Duration::from_millis(300),
        idle_timeout: Duration::from_millis(300),
        write_timeout: Duration::from_millis(300),
    }
}

#[tokio::test]
async fn slow_and_silent_clients_are_dropped() {
    let config = Config { body_timeout: Duration::from_millis(300), ..open_config() };
    let addr = start_with(config, short_limits()).await;
    // Silent from the start.
    let mut idle = TcpStream::connect(addr).await.unwrap();
    assert!(closed_within(&mut idle, Duration::from_secs(5)).await.0, "an idle connection stays open");
    // Headers that never end (slowloris).
    let mut slow = TcpStream::connect(addr).await.unwrap();
    slow.write_all(format!("POST /v1/check HTTP/1.1\r\nHost: {addr}\r\n").as_bytes()).await.unwrap();
    assert!(closed_within(&mut slow, Duration::from_secs(5)).await.0, "unfinished headers keep the connection");
    // A body that never arrives: 408 and the connection closed.
    let mut body = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /v1/check HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{"
    );
    body.write_all(head.as_bytes()).await.unwrap();
    let (closed, got) = closed_within(&mut body, Duration::from_secs(5)).await;
    assert!(closed);
    assert!(got.starts_with(b"HTTP/1.1 408"), "{:?}", String::from_utf8_lossy(&got));
    // Kept alive, then silent: closed after the idle timeout.
    let mut kept = TcpStream::connect(addr).await.unwrap();
    let req = format!(
        "POST /v1/check HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{STARTER}",
        STARTER.len()
    );
    kept.write_all(req.as_bytes()).await.unwrap();
    let (closed, got) = closed_within(&mut kept, Duration::from_secs(5)).await;
    assert!(closed && got.starts_with(b"HTTP/1.1 200"), "{:?}", String::from_utf8_lossy(&got));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_do_not_lock_out_new_clients() {
    let addr = start_with(open_config(), Limits { max_connections: 100, ..short_limits() }).await;
    // More idle connections than the server serves at once.
    let mut idle = Vec::new();
    for _ in 0..150 {
        idle.push(TcpStream::connect(addr).await.unwrap());
    }
    let r = tokio::time::timeout(Duration::from_secs(10), post(addr, "/v1/check", &[host(addr)], STARTER.as_bytes()))
        .await
        .expect("a new client is served while idle connections are open");
    assert_eq!(r.status, 200);
    drop(idle);
}

#[tokio::test]
async fn a_client_that_never_reads_is_dropped() {
    let addr = start_with(Config { max_check_response: 64 << 20, ..open_config() }, short_limits()).await;
    // One request whose answer (about 40 MB) is far larger than any socket buffer, never read: the server's write
    // stalls once the buffers are full, and past the write timeout it drops the connection and the answer.
    let mut body = amplifier();
    body["cases"].as_array_mut().unwrap().truncate(4);
    let body = body.to_string();
    let one = format!(
        "POST /v1/check HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(64 * 1024).unwrap();
    let mut stream = socket.connect(addr).await.unwrap();
    stream.write_all(one.as_bytes()).await.unwrap();
    tokio::time::sleep(Duration::from_secs(6)).await;
    let mut buf = vec![0u8; 1 << 16];
    let mut total = 0usize;
    let closed = loop {
        match tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => break true,
            Ok(Ok(n)) => total += n,
            Err(_) => break false,
        }
    };
    assert!(closed, "the server kept a connection whose client does not read");
    // What was already in the socket buffers arrives; the rest of the answer was never sent.
    assert!(total < 20 << 20, "{total} bytes arrived: the whole answer was written after all");
}
