//! Receipts in checks over HTTP: every case of `vectors/check/99-receipts.json` through `POST /v1/check` and MCP
//! `policy_check` on a server configured with that case's receipt keys (or none), and the tool description telling
//! the truth about which it is.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use std::net::SocketAddr;
use std::sync::Arc;

use serde_json::{Value, json};

use common::{Reply, send_raw, start};
use curbi_mcp::Config;

async fn post(addr: SocketAddr, path: &str, extra: &[(&str, &str)], body: &Value) -> Reply {
    let body = body.to_string();
    let mut raw =
        format!("POST {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\n");
    for (k, v) in extra {
        raw.push_str(&format!("{k}: {v}\r\n"));
    }
    raw.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    send_raw(addr, raw.as_bytes()).await
}

async fn mcp(addr: SocketAddr, method: &str, params: Value) -> Value {
    let headers = [("Accept", "application/json, text/event-stream"), ("MCP-Protocol-Version", "2025-06-18")];
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let reply = post(addr, "/mcp", &headers, &body).await;
    assert_eq!(reply.status, 200, "{:?}", String::from_utf8_lossy(&reply.body));
    reply.json()
}

fn config(receipts: Option<&Value>) -> Config {
    let receipt_keys = receipts.map(|r| {
        Arc::new(curbi::api::ReceiptVerifier::from_json(r.to_string().as_bytes()).expect("the vector's keys"))
    });
    Config { rate_per_minute: 0, tool_rate_per_minute: 0, receipt_keys, ..Config::default() }
}

/// An answer as the vectors write it: the whole response, or only the error's code and path.
fn comparable(doc: Value) -> Value {
    match doc.get("error") {
        Some(e) => json!({"error": {"code": e["code"], "path": e["path"]}}),
        None => doc,
    }
}

#[tokio::test]
async fn every_receipt_vector_over_the_check_api_and_mcp() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../vectors/check/99-receipts.json");
    let doc: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let cases = doc["cases"].as_array().unwrap();
    assert!(cases.len() >= 11, "the receipt vectors are there");
    for (i, case) in cases.iter().enumerate() {
        let addr = start(config(case.get("receipts"))).await;
        let expected = &case["expected"];
        let http = post(addr, "/v1/check", &[], &case["request"]).await;
        let status = if expected.get("error").is_some() { 400 } else { 200 };
        assert_eq!(http.status, status, "#{i} /v1/check");
        assert_eq!(comparable(http.json()), *expected, "#{i} /v1/check: {}", case["description"]);

        let params = json!({"name": "policy_check", "arguments": case["request"]});
        let result = mcp(addr, "tools/call", params).await;
        let text = result["result"]["content"][0]["text"].as_str().unwrap();
        assert_eq!(result["result"]["isError"], expected.get("error").is_some(), "#{i} MCP isError");
        assert_eq!(comparable(serde_json::from_str(text).unwrap()), *expected, "#{i} MCP policy_check");
    }
}

#[tokio::test]
async fn the_policy_check_description_says_whether_receipts_are_verified_here() {
    let description = |tools: &Value| {
        let list = tools["result"]["tools"].as_array().unwrap();
        let t = list.iter().find(|t| t["name"] == "policy_check").unwrap();
        t["description"].as_str().unwrap().to_owned()
    };
    let without = description(&mcp(start(config(None)).await, "tools/list", json!({})).await);
    // Seed 000's description, verbatim, where no receipt keys are configured.
    assert!(without.contains("Caller records are unverified; receipt verification is unavailable here."), "{without}");
    let keys = json!({"keys": {"keys": []}});
    let with = description(&mcp(start(config(Some(&keys))).await, "tools/list", json!({})).await);
    assert!(!with.contains("unavailable here"), "{with}");
    assert!(with.contains("verified against this server's configured receipt keys"), "{with}");
}
