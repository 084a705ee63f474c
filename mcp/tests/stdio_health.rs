//! MCP over stdio through the library (`curbi_mcp::stdio::answer`, the dispatcher `POST /mcp` uses, given lines),
//! `GET /health`, and the 403 that names the setting allowing a host. The `curbi mcp --stdio` process itself is
//! driven by the official Python and TypeScript clients (scripts/mcp-clients.sh) and by cli/tests/habits.rs.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use serde_json::{Value, json};
use tokio::net::TcpListener;

use common::send_raw;
use curbi_mcp::{ApiKey, Caller, Config, KeySet, Scope, Server, router, serve, stdio};

async fn line(server: &std::sync::Arc<Server>, caller: &Caller, message: &str) -> Option<Value> {
    stdio::answer(server, caller, message.as_bytes()).await.map(|s| {
        assert!(!s.contains('\n'), "one line: {s}");
        serde_json::from_str(&s).unwrap()
    })
}

#[tokio::test]
async fn stdio_answers_both_eras_through_the_dispatcher() {
    let server = std::sync::Arc::new(Server::new(Config::default()));
    let anon = Caller::Anonymous;
    let init = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",
        "capabilities":{},"clientInfo":{"name":"t","version":"1"}}});
    let r = line(&server, &anon, &init.to_string()).await.unwrap();
    assert_eq!((r["id"].clone(), r["result"]["protocolVersion"].clone()), (json!(1), json!("2025-06-18")));
    assert_eq!(r["result"]["serverInfo"]["name"], "curbi-public");
    // A notification has no answer at all.
    assert_eq!(line(&server, &anon, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await, None);
    let r = line(&server, &anon, r#"{"jsonrpc":"2.0","id":"t","method":"tools/list"}"#).await.unwrap();
    let names: Vec<&str> =
        r["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    // The six public tools of seed 000's server (docs/MCP.md).
    assert_eq!(names, ["policy_check", "validate_policy", "search", "export_regression", "verify_bundle", "fetch"]);
    let call = json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"policy_check","arguments":
        {"policy":{"prices":[{"item":"Starter","amount":49}]},"reply":"Starter costs $99."}}});
    let r = line(&server, &anon, &call.to_string()).await.unwrap();
    assert_eq!(r["result"]["isError"], false);
    assert_eq!(r["result"]["structuredContent"]["findings"][0]["span"], json!([14, 17]));
    // 2026-07-28 over stdio: the version is the message's own `_meta`, with no headers to match.
    let meta = json!({"io.modelcontextprotocol/protocolVersion":"2026-07-28",
        "io.modelcontextprotocol/clientCapabilities":{}});
    let discover = json!({"jsonrpc":"2.0","id":4,"method":"server/discover","params":{"_meta":meta}});
    let r = line(&server, &anon, &discover.to_string()).await.unwrap();
    assert_eq!(r["result"]["supportedVersions"][0], "2026-07-28");
    // `server/discover` exists only in 2026-07-28: without the version in `_meta` it is that revision's invalid
    // params (-32602, as the conformance suite's SEP-2575 checks require), not a legacy unknown method.
    for params in [json!({}), json!({"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}})] {
        let discover = json!({"jsonrpc":"2.0","id":7,"method":"server/discover","params":params});
        let r = line(&server, &anon, &discover.to_string()).await.unwrap();
        assert_eq!((r["id"].clone(), r["error"]["code"].clone()), (json!(7), json!(-32602)), "{r}");
    }
    let mut call = call.clone();
    call["params"]["_meta"] = meta.clone();
    let r = line(&server, &anon, &call.to_string()).await.unwrap();
    assert_eq!(r["result"]["resultType"], "complete");
    assert_eq!(r["result"]["structuredContent"]["pass"], false);
    // Errors are JSON-RPC errors on the same line discipline.
    let r = line(&server, &anon, "{not json").await.unwrap();
    assert_eq!((r["id"].clone(), r["error"]["code"].clone()), (Value::Null, json!(-32700)));
    let r = line(&server, &anon, "[]").await.unwrap();
    assert_eq!(r["error"]["code"], -32600);
    let r = line(&server, &anon, r#"{"jsonrpc":"2.0","id":5,"method":"nope"}"#).await.unwrap();
    assert_eq!((r["id"].clone(), r["error"]["code"].clone()), (json!(5), json!(-32601)));
    // A keyed tool with no key configured for the process: refused, naming the header it would need.
    let keyed = json!({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"verify_agent","arguments":{}}});
    let r = line(&server, &anon, &keyed.to_string()).await.unwrap();
    assert_eq!(r["error"]["code"], -32000);
}

#[tokio::test]
async fn stdio_keyed_caller() {
    const KEY: &str = "curbi_test_stdio-key-for-the-tests";
    let config = Config { keys: KeySet::new(vec![ApiKey::new(KEY, "t", vec![Scope::Verify])]), ..Config::default() };
    let server = std::sync::Arc::new(Server::new(config.clone()));
    let caller = config.keys.caller(Some(&format!("Bearer {KEY}").parse().unwrap())).unwrap();
    let r = line(&server, &caller, r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#).await.unwrap();
    assert!(r["result"]["tools"].as_array().unwrap().len() > 6, "a key sees the keyed tools too: {r}");
}

async fn start(config: Config) -> std::net::SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { serve(listener, router(config), std::future::pending()).await.unwrap() });
    addr
}

#[tokio::test]
async fn health_and_the_403_that_names_its_setting() {
    let addr = start(Config::default()).await;
    let r =
        send_raw(addr, format!("GET /health HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").as_bytes()).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.json(), json!({"status": "ok", "version": env!("CARGO_PKG_VERSION")}));
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let raw = format!(
        "POST /mcp HTTP/1.1\r\nHost: 203.0.113.9:{}\r\nConnection: close\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        addr.port(),
        body.len()
    );
    let r = send_raw(addr, raw.as_bytes()).await;
    assert_eq!(r.status, 403);
    let msg = r.json()["error"]["message"].as_str().unwrap().to_owned();
    assert!(msg.contains("CURBI_MCP_ALLOWED_HOSTS") && msg.contains("203.0.113.9"), "{msg}");
}
