//! The MCP endpoint of `curbi serve` over real TCP on 127.0.0.1 (issue 9): the recorded session of seed 000 replayed
//! message by message, both protocol eras, every transport rule, keys, rate limits and the output limit. Requests are
//! hand-written HTTP/1.1 so the tests see exactly the bytes a client would.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use std::net::SocketAddr;

use serde_json::{Value, json};

use common::{Reply, send_raw, start};
use curbi_mcp::{ApiKey, Config, KeySet, Scope};

const SESSION: &str = include_str!("fixtures/seed000_session.json");
const AGENT_START: &str = include_str!("fixtures/seed000_agent_start.json");
const TEST_KEY: &str = "curbi_test_k3y-for-the-http-tests";
const LIVE_KEY: &str = "curbi_live_another-key-for-tests";
const CHECKOUT_ONLY_KEY: &str = "curbi_test_checkout-only-key-000";

fn open_config() -> Config {
    Config { rate_per_minute: 0, tool_rate_per_minute: 0, ..Config::default() }
}

fn keyed_config() -> Config {
    Config {
        keys: KeySet::new(vec![
            ApiKey::new(TEST_KEY, "tests", vec![Scope::Checkout, Scope::Verify]),
            ApiKey::new(LIVE_KEY, "live", vec![Scope::Verify]),
            ApiKey::new(CHECKOUT_ONLY_KEY, "checkout", vec![Scope::Checkout]),
        ]),
        // verify_checkout exists only on a sandbox deployment (seed 001; tests/hostile.rs has the other cases).
        sandbox: true,
        ..open_config()
    }
}

impl Reply {
    /// Asserts a JSON-RPC error response and returns its code.
    fn rpc_error(&self) -> i64 {
        assert_eq!(self.header("content-type"), Some("application/json"));
        let doc = self.json();
        assert_eq!(doc["jsonrpc"], "2.0", "{doc}");
        assert!(doc["error"]["message"].is_string(), "{doc}");
        assert!(doc.get("result").is_none(), "{doc}");
        doc["error"]["code"].as_i64().expect("code")
    }
}

/// A request to `addr` with `Host` naming it, `Connection: close`, the given headers and body.
async fn send(addr: SocketAddr, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
    let mut raw = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (k, v) in headers {
        raw.push_str(&format!("{k}: {v}\r\n"));
    }
    raw.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    let mut raw = raw.into_bytes();
    raw.extend_from_slice(body);
    send_raw(addr, &raw).await
}

const JSON_HEADERS: [(&str, &str); 2] =
    [("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")];

/// A legacy-era POST (MCP-Protocol-Version 2025-06-18) plus `extra` headers.
async fn legacy(addr: SocketAddr, body: &Value, extra: &[(&str, &str)]) -> Reply {
    let mut h = JSON_HEADERS.to_vec();
    h.push(("MCP-Protocol-Version", "2025-06-18"));
    h.extend_from_slice(extra);
    send(addr, "POST", "/mcp", &h, body.to_string().as_bytes()).await
}

fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "curbi-tests", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

/// A 2026-07-28 request: `_meta` added to params, `MCP-Protocol-Version`, `Mcp-Method` and (for tools/call)
/// `Mcp-Name` set from the body, then `extra` headers appended.
async fn modern(addr: SocketAddr, id: u64, method: &str, mut params: Value, extra: &[(&str, &str)]) -> Reply {
    params["_meta"] = modern_meta();
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let name = params["name"].as_str().map(str::to_string);
    let mut h = JSON_HEADERS.to_vec();
    h.push(("MCP-Protocol-Version", "2026-07-28"));
    h.push(("Mcp-Method", method));
    if let Some(name) = name.as_deref() {
        h.push(("Mcp-Name", name));
    }
    h.extend_from_slice(extra);
    send(addr, "POST", "/mcp", &h, body.to_string().as_bytes()).await
}

fn call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

fn session() -> Vec<Value> {
    let doc: Value = serde_json::from_str(SESSION).expect("fixture");
    doc["steps"].as_array().expect("steps").clone()
}

/// A tool result: structuredContent equal to the parsed text block; returns (structuredContent, isError).
fn tool_result(reply: &Reply) -> (Value, bool) {
    assert_eq!(reply.status, 200, "{:?}", String::from_utf8_lossy(&reply.body));
    let doc = reply.json();
    let result = &doc["result"];
    let content = result["content"].as_array().expect("content");
    assert_eq!(content.len(), 1, "{doc}");
    assert_eq!(content[0]["type"], "text");
    let text: Value = serde_json::from_str(content[0]["text"].as_str().expect("text")).expect("text is JSON");
    assert_eq!(text, result["structuredContent"], "text block and structuredContent differ");
    (result["structuredContent"].clone(), result["isError"].as_bool().expect("isError"))
}

#[tokio::test]
async fn seed_000_session_replays_message_for_message() {
    let addr = start(open_config()).await;
    let steps = session();
    assert_eq!(steps.len(), 5);
    for (i, step) in steps.iter().enumerate() {
        // Like the SDK: initialize goes without MCP-Protocol-Version, everything after with the negotiated one.
        let reply = if i == 0 {
            send(addr, "POST", "/mcp", &JSON_HEADERS, step["request"].to_string().as_bytes()).await
        } else {
            legacy(addr, &step["request"], &[]).await
        };
        assert_eq!(u64::from(reply.status), step["status"].as_u64().expect("status"), "step {}", i + 1);
        match i {
            // initialize, tools/list and policy_check: the recorded response exactly.
            0 | 2 | 3 => assert_eq!(reply.json(), step["response"], "step {}", i + 1),
            1 => assert!(reply.body.is_empty(), "202 has no body"),
            _ => {
                // search: the same shape over this build's own catalog.
                let doc = reply.json();
                assert_eq!(doc["id"], step["response"]["id"]);
                let (results, is_error) = tool_result(&reply);
                assert!(!is_error);
                let results = results["results"].as_array().expect("results");
                assert!(!results.is_empty(), "'refund claim record' matches the purchase and checker docs");
                for r in results {
                    let keys: Vec<&str> = r.as_object().expect("object").keys().map(String::as_str).collect();
                    assert_eq!(keys, ["id", "title", "url"], "{r}");
                    assert!(r["id"].as_str().expect("id").starts_with("doc:"));
                }
            }
        }
    }
    // The policy_check text block is byte-for-byte the recorded one, not only the same JSON.
    let reply = legacy(addr, &steps[3]["request"], &[]).await;
    let text = &reply.json()["result"]["content"][0]["text"];
    assert_eq!(text, &steps[3]["response"]["result"]["content"][0]["text"]);
}

#[tokio::test]
async fn modern_era_discover_list_and_call() {
    let addr = start(open_config()).await;
    let discover = modern(addr, 1, "server/discover", json!({}), &[]).await;
    assert_eq!(discover.status, 200);
    let r = &discover.json()["result"];
    assert_eq!(r["supportedVersions"], json!(["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"]));
    assert_eq!(r["capabilities"], json!({"tools": {"listChanged": false}}));
    assert_eq!(r["resultType"], "complete");
    assert!(r["ttlMs"].as_u64().is_some());
    assert_eq!(r["cacheScope"], "public");
    assert_eq!(r["serverInfo"]["name"], "curbi-public");
    assert_eq!(r["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "curbi-public");

    let list = modern(addr, 2, "tools/list", json!({}), &[]).await;
    let r = &list.json()["result"];
    assert_eq!(r["tools"], session()[2]["response"]["result"]["tools"]);
    assert_eq!(r["resultType"], "complete");
    assert!(r["ttlMs"].is_u64() && r["cacheScope"] == "public", "{r}");

    let step = &session()[3];
    let params = step["request"]["params"].clone();
    let reply = modern(addr, 3, "tools/call", params, &[]).await;
    let (structured, is_error) = tool_result(&reply);
    assert!(!is_error);
    assert_eq!(structured, step["response"]["result"]["structuredContent"]);
    assert_eq!(reply.json()["result"]["resultType"], "complete");
}

#[tokio::test]
async fn transport_rules() {
    let addr = start(open_config()).await;
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}});
    let body = list.to_string();
    for method in ["GET", "DELETE", "PUT", "PATCH"] {
        let r = send(addr, method, "/mcp", &JSON_HEADERS, b"").await;
        assert_eq!(r.status, 405, "{method}");
        assert_eq!(r.header("allow"), Some("POST"), "{method}");
    }
    // Accept: refused when it allows neither application/json nor */*; absent is fine.
    let r = send(
        addr,
        "POST",
        "/mcp",
        &[("Content-Type", "application/json"), ("Accept", "text/event-stream")],
        body.as_bytes(),
    )
    .await;
    assert_eq!(r.status, 406);
    assert_eq!(r.rpc_error(), -32000);
    assert_eq!(r.json()["error"]["message"], "Accept must include application/json");
    let r =
        send(addr, "POST", "/mcp", &[("Content-Type", "application/json"), ("Accept", "text/html")], body.as_bytes())
            .await;
    assert_eq!(r.status, 406);
    for accept in [None, Some("*/*"), Some("application/json")] {
        let mut h = vec![("Content-Type", "application/json")];
        if let Some(a) = accept {
            h.push(("Accept", a));
        }
        let r = send(addr, "POST", "/mcp", &h, body.as_bytes()).await;
        assert_eq!(r.status, 200, "{accept:?}");
    }
    // Content-Type.
    for ct in [Some("text/plain"), Some("application/x-www-form-urlencoded"), None] {
        let mut h = vec![("Accept", "application/json")];
        if let Some(ct) = ct {
            h.push(("Content-Type", ct));
        }
        let r = send(addr, "POST", "/mcp", &h, body.as_bytes()).await;
        assert_eq!(r.status, 415, "{ct:?}");
    }
    // Invalid JSON, batches and non-objects.
    let r = send(addr, "POST", "/mcp", &JSON_HEADERS, b"{\"jsonrpc\":").await;
    assert_eq!((r.status, r.rpc_error()), (400, -32700));
    for bad in [format!("[{body}]"), "[]".into(), "3".into(), "\"x\"".into(), "null".into()] {
        let r = send(addr, "POST", "/mcp", &JSON_HEADERS, bad.as_bytes()).await;
        assert_eq!((r.status, r.rpc_error()), (400, -32600), "{bad}");
    }
    for bad in [
        json!({"jsonrpc": "1.0", "id": 1, "method": "ping"}),
        json!({"jsonrpc": "2.0", "id": 1}),
        json!({"jsonrpc": "2.0", "id": 1, "result": {}}),
        json!({"jsonrpc": "2.0", "id": [1], "method": "ping"}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": [1]}),
    ] {
        let r = send(addr, "POST", "/mcp", &JSON_HEADERS, bad.to_string().as_bytes()).await;
        assert_eq!((r.status, r.rpc_error()), (400, -32600), "{bad}");
    }
    // Origin must match the Host; no Origin is fine.
    let own = format!("http://{addr}");
    let r = legacy(addr, &list, &[("Origin", own.as_str())]).await;
    assert_eq!(r.status, 200);
    for origin in ["http://evil.example", "http://localhost:1", "null"] {
        let r = legacy(addr, &list, &[("Origin", origin)]).await;
        assert_eq!((r.status, r.rpc_error()), (403, -32000), "{origin}");
    }
    // DNS rebinding: a Host that is not loopback is refused.
    let raw = format!(
        "POST /mcp HTTP/1.1\r\nHost: evil.example:{}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        addr.port(),
        body.len()
    );
    assert_eq!(send_raw(addr, raw.as_bytes()).await.status, 403);
    // 64 KiB body limit: just under is read (and answered), just over is 413.
    let pad = "x".repeat(64 * 1024);
    let over = json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": pad}}).to_string();
    let r = send(addr, "POST", "/mcp", &JSON_HEADERS, over.as_bytes()).await;
    assert_eq!((r.status, r.rpc_error()), (413, -32000));
    let base = json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": ""}}).to_string();
    let exact = base.replace("\"pad\":\"\"", &format!("\"pad\":\"{}\"", "x".repeat(64 * 1024 - base.len())));
    assert_eq!(exact.len(), 64 * 1024);
    let r = send(addr, "POST", "/mcp", &JSON_HEADERS, exact.as_bytes()).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["result"], json!({}));
}

#[tokio::test]
async fn legacy_era_rules() {
    let addr = start(open_config()).await;
    let init = |v: &str| {
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"protocolVersion": v, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    };
    for (asked, answered) in [
        ("2025-06-18", "2025-06-18"),
        ("2025-03-26", "2025-03-26"),
        ("2025-11-25", "2025-11-25"),
        ("2024-11-05", "2025-06-18"),
        ("2026-07-28", "2025-06-18"),
    ] {
        let r = send(addr, "POST", "/mcp", &JSON_HEADERS, init(asked).to_string().as_bytes()).await;
        assert_eq!(r.status, 200);
        let result = &r.json()["result"];
        assert_eq!(result["protocolVersion"], answered, "{asked}");
        assert!(result.get("resultType").is_none());
    }
    // No MCP-Protocol-Version header: taken as 2025-03-26 and served.
    let list = json!({"jsonrpc": "2.0", "id": "a", "method": "tools/list"});
    let r = send(addr, "POST", "/mcp", &JSON_HEADERS, list.to_string().as_bytes()).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["id"], "a");
    assert_eq!(r.json()["result"]["tools"].as_array().map(Vec::len), Some(6));
    // An unsupported header version.
    let mut h = JSON_HEADERS.to_vec();
    h.push(("MCP-Protocol-Version", "1999-01-01"));
    let r = send(addr, "POST", "/mcp", &h, list.to_string().as_bytes()).await;
    assert_eq!((r.status, r.rpc_error()), (400, -32022));
    assert_eq!(r.json()["error"]["data"]["requested"], "1999-01-01");
    assert_eq!(r.json()["error"]["data"]["supported"][0], "2026-07-28");
    // ping, notifications, unknown methods, unknown tools.
    let r = legacy(addr, &json!({"jsonrpc": "2.0", "id": 7, "method": "ping"}), &[]).await;
    assert_eq!(r.json(), json!({"jsonrpc": "2.0", "id": 7, "result": {}}));
    let r =
        legacy(addr, &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}), &[])
            .await;
    assert_eq!(r.status, 202);
    assert!(r.body.is_empty());
    let r = legacy(addr, &json!({"jsonrpc": "2.0", "id": 8, "method": "resources/list"}), &[]).await;
    assert_eq!(r.rpc_error(), -32601);
    assert_eq!(r.json()["id"], 8);
    let r = legacy(addr, &call(9, "no_such_tool", json!({})), &[]).await;
    assert_eq!(r.rpc_error(), -32602);
}

#[tokio::test]
async fn modern_era_rules() {
    let addr = start(open_config()).await;
    let list = |meta: Value| json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}});
    let post = |headers: Vec<(&'static str, &'static str)>, body: Value| async move {
        let mut h = JSON_HEADERS.to_vec();
        h.extend(headers);
        send(addr, "POST", "/mcp", &h, body.to_string().as_bytes()).await
    };
    let v = ("MCP-Protocol-Version", "2026-07-28");
    // Mcp-Method missing or different.
    let r = post(vec![v], list(modern_meta())).await;
    assert_eq!((r.status, r.rpc_error()), (400, -32020));
    let r = post(vec![v, ("Mcp-Method", "tools/call")], list(modern_meta())).await;
    assert_eq!((r.status, r.rpc_error()), (400, -32020));
    // Header version and _meta version differ, or the header is missing.
    let r = post(vec![("MCP-Protocol-Version", "2025-06-18"), ("Mcp-Method", "tools/list")], list(modern_meta())).await;
    assert_eq!((r.status, r.rpc_error()), (400, -32020));
    let r = post(vec![("Mcp-Method", "tools/list")], list(modern_meta())).await;
    assert_eq!((r.status, r.rpc_error()), (400, -32020));
    let mut other = modern_meta();
    other["io.modelcontextprotocol/protocolVersion"] = json!("2025-06-18");
    let r = post(vec![v, ("Mcp-Method", "tools/list")], list(other)).await;
    assert_eq!((r.status, r.rpc_error()), (400, -32020));
    // Unsupported version.
    let mut unsupported = modern_meta();
    unsupported["io.modelcontextprotocol/protocolVersion"] = json!("2030-01-01");
    let r = post(vec![("MCP-Protocol-Version", "2030-01-01"), ("Mcp-Method", "tools/list")], list(unsupported)).await;
    assert_eq!((r.status, r.rpc_error()), (400, -32022));
    assert_eq!(
        r.json()["error"]["data"],
        json!({"supported": ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"], "requested": "2030-01-01"})
    );
    // Missing _meta, or _meta without clientCapabilities.
    let r =
        post(vec![v, ("Mcp-Method", "tools/list")], json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})).await;
    assert_eq!((r.status, r.rpc_error()), (400, -32602));
    let r = post(
        vec![v, ("Mcp-Method", "tools/list")],
        list(json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"})),
    )
    .await;
    assert_eq!((r.status, r.rpc_error()), (400, -32602));
    // initialize, ping and unknown methods are not methods of this revision.
    for method in ["initialize", "ping", "resources/list"] {
        let r = modern(addr, 4, method, json!({}), &[]).await;
        assert_eq!((r.status, r.rpc_error()), (404, -32601), "{method}");
        assert_eq!(r.json()["id"], 4);
    }
    // Mcp-Name must equal params.name.
    let mut h = JSON_HEADERS.to_vec();
    h.extend([v, ("Mcp-Method", "tools/call"), ("Mcp-Name", "fetch")]);
    let body = json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call",
                      "params": {"name": "search", "arguments": {"query": "proof"}, "_meta": modern_meta()}});
    let r = send(addr, "POST", "/mcp", &h, body.to_string().as_bytes()).await;
    assert_eq!((r.status, r.rpc_error()), (400, -32020));
    h.pop();
    let r = send(addr, "POST", "/mcp", &h, body.to_string().as_bytes()).await;
    assert_eq!((r.status, r.rpc_error()), (400, -32020));
    // The Base64 sentinel form of Mcp-Name is decoded before the comparison ("c2VhcmNo" is "search").
    h.push(("Mcp-Name", "=?base64?c2VhcmNo?="));
    let r = send(addr, "POST", "/mcp", &h, body.to_string().as_bytes()).await;
    assert_eq!(r.status, 200, "{:?}", String::from_utf8_lossy(&r.body));
    h.pop();
    h.push(("Mcp-Name", "=?base64?ZmV0Y2g=?="));
    let r = send(addr, "POST", "/mcp", &h, body.to_string().as_bytes()).await;
    assert_eq!((r.status, r.rpc_error()), (400, -32020));
    // An unknown tool.
    let r = modern(addr, 7, "tools/call", json!({"name": "nope", "arguments": {}}), &[]).await;
    assert_eq!((r.status, r.rpc_error()), (400, -32602));
}

#[tokio::test]
async fn tool_errors_are_results_and_tool_answers() {
    let addr = start(open_config()).await;
    let run =
        |name: &'static str, args: Value| async move { tool_result(&legacy(addr, &call(1, name, args), &[]).await) };
    // Argument errors: isError true, the Check API's error document.
    for (name, args, code) in [
        ("policy_check", json!({"policy": {"prices": "no"}, "reply": "x"}), None),
        ("policy_check", json!({"reply": "x"}), Some("missing_field")),
        ("policy_check", json!({"policy": {"prices": []}, "reply": "x", "extra": 1}), Some("unknown_field")),
        ("search", json!({}), Some("missing_field")),
        ("search", json!({"query": 3}), Some("invalid_type")),
        ("search", json!({"query": "x".repeat(201)}), Some("too_long")),
        ("fetch", json!({"id": "doc:nope"}), Some("unknown_id")),
        ("fetch", json!({"id": "https://example.com/x"}), Some("unknown_id")),
        ("verify_bundle", json!({"keys": {}}), Some("missing_field")),
        ("verify_bundle", json!({"bundle": {}, "keys": {}, "now": "2026-01-01T00:00:00Z"}), Some("unknown_field")),
        ("export_regression", json!({"policy": {}, "reply": "x", "verify": "required"}), None),
    ] {
        let (doc, is_error) = run(name, args.clone()).await;
        assert!(is_error, "{name} {args}: {doc}");
        if let Some(code) = code {
            assert_eq!(doc["error"]["code"], code, "{name} {args}: {doc}");
        } else {
            assert!(doc["error"]["code"].is_string(), "{name} {args}: {doc}");
        }
    }
    let (doc, is_error) = run("policy_check", json!("not an object")).await;
    assert!(is_error && doc["error"]["code"] == "invalid_type", "{doc}");

    // validate_policy: findings about the policy are the answer, not a tool error.
    let (doc, is_error) = run("validate_policy", json!({"policy": {}})).await;
    assert!(!is_error);
    assert_eq!(doc["warnings"][0]["code"], "no_rules", "{doc}");
    let (doc, is_error) = run("validate_policy", json!({"policy": {"prices": [{"item": ""}]}})).await;
    assert!(!is_error);
    assert_eq!(doc["valid"], false, "{doc}");
    let (doc, _) = run("validate_policy", json!({"policy": {"prices": [{"item": "Pro", "amount": 49}]}})).await;
    assert_eq!(doc["valid"], true, "{doc}");

    // export_regression: the regression document and the node:test file.
    let (doc, is_error) = run(
        "export_regression",
        json!({"policy": {"prices": [{"item": "Starter", "amount": 49}]}, "reply": "Starter is $99 a month.", "title": "t"}),
    )
    .await;
    assert!(!is_error, "{doc}");
    assert_eq!(doc["regression"]["object"], "curbi.regression");
    assert_eq!(doc["nodeTest"]["path"], "regression.test.mjs");
    assert!(doc["nodeTest"]["text"].as_str().is_some_and(|t| t.contains("node:test")), "{doc}");

    // verify_bundle reaches the proof verifier: an unreadable bundle is a tool error with reason malformed.
    let (doc, is_error) = run("verify_bundle", json!({"bundle": {}, "keys": {}})).await;
    assert!(is_error, "{doc}");
    assert_eq!(doc["ok"], false);

    // search and fetch.
    let (doc, _) = run("search", json!({"query": "proof bundle merkle inclusion"})).await;
    assert_eq!(doc["results"][0]["id"], "doc:proof", "{doc}");
    let (doc, is_error) = run("fetch", json!({"id": "doc:proof"})).await;
    assert!(!is_error);
    assert_eq!(doc["path"], "docs/PROOF.md");
    assert!(doc["summary"].as_str().is_some_and(|s| !s.is_empty()));
}

#[tokio::test]
async fn keys_scopes_and_sandbox() {
    let addr = start(keyed_config()).await;
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let names = |r: &Reply| -> Vec<String> {
        r.json()["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    };
    let anonymous = legacy(addr, &list, &[]).await;
    assert_eq!(names(&anonymous).len(), 6);
    let bearer = |k: &str| format!("Bearer {k}");
    let (test, live, checkout) = (bearer(TEST_KEY), bearer(LIVE_KEY), bearer(CHECKOUT_ONLY_KEY));
    let r = legacy(addr, &list, &[("Authorization", test.as_str())]).await;
    assert_eq!(names(&r)[6..], ["verify_checkout", "verify_agent", "fetch_signed_receipt"]);
    let r = legacy(addr, &list, &[("Authorization", checkout.as_str())]).await;
    assert_eq!(names(&r)[6..], ["verify_checkout", "fetch_signed_receipt"]);
    let r = legacy(addr, &list, &[("Authorization", live.as_str())]).await;
    assert_eq!(names(&r)[6..], ["verify_agent", "fetch_signed_receipt"]);
    // Modern tools/list for a key is private to it.
    let r = modern(addr, 2, "tools/list", json!({}), &[("Authorization", live.as_str())]).await;
    assert_eq!(r.json()["result"]["cacheScope"], "private");

    // Unknown key and wrong scheme: 401 with WWW-Authenticate: Bearer, and the key is not echoed.
    for auth in ["Bearer curbi_test_not-a-configured-key", "Basic dXNlcjpwYXNz"] {
        let r = legacy(addr, &list, &[("Authorization", auth)]).await;
        assert_eq!(r.status, 401, "{auth}");
        assert!(r.header("www-authenticate").is_some_and(|v| v.starts_with("Bearer")), "{auth}");
        assert!(!String::from_utf8_lossy(&r.body).contains("not-a-configured-key"));
    }
    let checkout_args = json!({"mandate": {}, "checkout": {}, "now": "2026-11-01T00:00:00Z"});
    // A keyed tool without a key: 401; with a key lacking the scope: 403.
    let r = legacy(addr, &call(3, "verify_checkout", checkout_args.clone()), &[]).await;
    assert_eq!(r.status, 401);
    assert_eq!(r.header("www-authenticate"), Some("Bearer"));
    // A live key never has verify_checkout (seed 001: a test key on a sandbox deployment only): an unknown tool.
    let r = legacy(addr, &call(3, "verify_checkout", checkout_args.clone()), &[("Authorization", live.as_str())]).await;
    assert_eq!((r.status, r.rpc_error()), (200, -32602));
    let agent_args = json!({"grant": {}, "action": {}, "now": "2026-11-01T00:00:00Z"});
    let r = legacy(addr, &call(3, "verify_agent", agent_args), &[("Authorization", checkout.as_str())]).await;
    assert_eq!(r.status, 403);
    assert!(r.header("www-authenticate").is_some_and(|v| v.contains("insufficient_scope")));

    // verify_checkout with a test key: the purchase check's decision, labelled with the sandbox partition.
    let r = legacy(addr, &call(4, "verify_checkout", checkout_args), &[("Authorization", test.as_str())]).await;
    let (doc, is_error) = tool_result(&r);
    assert!(!is_error);
    assert_eq!(doc["object"], "purchase_check");
    assert_eq!(doc["decision"], "DENY", "{doc}");
    assert_eq!(doc["authorizationGranted"], false);
    assert_eq!(r.json()["result"]["_meta"]["io.curbi/partition"], "sandbox");
    assert!(!String::from_utf8_lossy(&r.body).contains(TEST_KEY));

    // verify_agent with a live key (2026-07-28).
    let grant = json!({"agent": "shopper-01", "operations": ["refund.create"], "resources": ["order:*"],
                       "expires_at": "2027-01-01T00:00:00Z"});
    let action = json!({"agent": "shopper-01", "operation": "refund.create", "resource": "order:123"});
    let r = modern(
        addr,
        5,
        "tools/call",
        json!({"name": "verify_agent", "arguments": {"grant": grant, "action": action, "now": "2026-11-01T00:00:00Z"}}),
        &[("Authorization", live.as_str())],
    )
    .await;
    let (doc, is_error) = tool_result(&r);
    assert!(!is_error);
    assert_eq!((doc["object"].as_str(), doc["decision"].as_str()), (Some("action_check"), Some("ALLOW")), "{doc}");
    assert_eq!(r.json()["result"]["_meta"]["io.curbi/partition"], "live");
}

#[tokio::test]
async fn rate_limits_per_caller_and_per_tool() {
    let addr = start(Config { rate_per_minute: 5, tool_rate_per_minute: 2, ..keyed_config() }).await;
    let search = call(1, "search", json!({"query": "proof"}));
    for _ in 0..2 {
        assert_eq!(legacy(addr, &search, &[]).await.status, 200);
    }
    // The third search in the minute: 429 for the tool; other tools still answer.
    let r = legacy(addr, &search, &[]).await;
    assert_eq!((r.status, r.rpc_error()), (429, -32000));
    let retry: u64 = r.header("retry-after").expect("Retry-After").parse().expect("seconds");
    assert!((1..=60).contains(&retry));
    assert_eq!(legacy(addr, &call(2, "fetch", json!({"id": "doc:mcp"})), &[]).await.status, 200);
    // Key-less callers share one bucket of 5 requests a minute (the refused search counted): the fifth is served,
    // the sixth refused whatever it is.
    let ping = json!({"jsonrpc": "2.0", "id": 3, "method": "ping"});
    assert_eq!(legacy(addr, &ping, &[]).await.status, 200);
    let r = legacy(addr, &ping, &[]).await;
    assert_eq!(r.status, 429);
    assert!(r.header("retry-after").is_some());
    // A key has buckets of its own.
    let auth = format!("Bearer {TEST_KEY}");
    let r =
        legacy(addr, &json!({"jsonrpc": "2.0", "id": 4, "method": "ping"}), &[("Authorization", auth.as_str())]).await;
    assert_eq!(r.status, 200);
}

#[tokio::test]
async fn tool_output_limit_is_a_tool_error() {
    let addr = start(Config { max_tool_output: 200, ..open_config() }).await;
    let step = &session()[3];
    let r = legacy(addr, &step["request"], &[]).await;
    let (doc, is_error) = tool_result(&r);
    assert!(is_error);
    assert_eq!(doc["error"]["code"], "output_too_large");
    assert!(doc["error"]["message"].as_str().is_some_and(|m| m.contains("200-byte limit")));
}

#[tokio::test]
async fn ai_json_and_agent_start() {
    let addr = start(open_config()).await;
    let r = send(addr, "GET", "/agent-start.json", &[], b"").await;
    assert_eq!(r.status, 200);
    let doc = r.json();
    let seed: Value = serde_json::from_str(AGENT_START).expect("fixture");
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&doc), keys(&seed));
    assert_eq!(doc["endpoint"], format!("http://{addr}/mcp"));
    for field in ["object", "version", "transport", "headers", "tools", "example", "meaning"] {
        assert_eq!(doc[field], seed[field], "{field}");
    }
    let r = send(addr, "GET", "/ai.json", &[], b"").await;
    assert_eq!(r.status, 200);
    let doc = r.json();
    assert_eq!(doc["mcp"]["endpoint"], format!("http://{addr}/mcp"));
    assert_eq!(doc["limits"]["requestBytes"], 65536);
    assert_eq!(doc["limits"]["toolOutputBytes"], 24576);
    assert_eq!(doc["tools"].as_array().map(Vec::len), Some(9));
    // /v1/check is unchanged next to /mcp.
    let body = br#"{"policy":{"prices":[{"item":"Starter","amount":49}]},"reply":"Starter costs $99."}"#;
    let r = send(addr, "POST", "/v1/check", &[("Content-Type", "application/json")], body).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["findings"][0]["rule"], "price:mismatch");
}

#[tokio::test]
async fn no_request_shape_breaks_the_server() {
    let addr = start(open_config()).await;
    let bodies: Vec<Vec<u8>> = vec![
        b"".to_vec(),
        b"{}".to_vec(),
        b"\xff\xfe".to_vec(),
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\"}".to_vec(),
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":7}}".to_vec(),
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"policy_check\",\"arguments\":[]}}"
            .to_vec(),
        b"{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}".to_vec(),
        b"{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}".to_vec(),
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":{}}}".to_vec(),
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":\"x\"}}".to_vec(),
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":5}}}"
            .to_vec(),
        format!("{}1{}", "[".repeat(200), "]".repeat(200)).into_bytes(),
        format!("{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"{}\"}}", "m".repeat(60_000)).into_bytes(),
    ];
    let header_sets: [&[(&str, &str)]; 3] = [
        &JSON_HEADERS,
        &[("Content-Type", "application/json"), ("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "ping")],
        &[("Content-Type", "application/json"), ("MCP-Protocol-Version", "é")],
    ];
    for headers in header_sets {
        for body in &bodies {
            let r = send(addr, "POST", "/mcp", headers, body).await;
            assert!([200, 202, 400, 404].contains(&r.status), "{} for {:?}", r.status, String::from_utf8_lossy(body));
            if r.status != 202 {
                let doc = r.json();
                assert_eq!(doc["jsonrpc"], "2.0");
                assert!(doc.get("result").is_some() != doc.get("error").is_some(), "{doc}");
            }
        }
    }
    // Still serving.
    let r = legacy(addr, &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}), &[]).await;
    assert_eq!(r.status, 200);
}

/// A bounded load on loopback: 240 concurrent `tools/call policy_check` from key-less callers against a limit of 100
/// requests a minute. Exactly 100 are served with the seed's answer; every other one is a well-formed 429.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bounded_load_keeps_the_rate_limit() {
    let addr = start(Config { rate_per_minute: 100, tool_rate_per_minute: 0, ..open_config() }).await;
    let step = session()[3].clone();
    let tasks: Vec<_> = (0..240)
        .map(|_| {
            let request = step["request"].clone();
            tokio::spawn(async move { legacy(addr, &request, &[]).await })
        })
        .collect();
    let (mut served, mut limited) = (0, 0);
    for task in tasks {
        let r = task.await.expect("request task");
        match r.status {
            200 => {
                served += 1;
                assert_eq!(r.json(), step["response"]);
            }
            429 => {
                limited += 1;
                assert_eq!(r.rpc_error(), -32000);
                assert!(
                    r.header("retry-after").and_then(|s| s.parse::<u64>().ok()).is_some_and(|s| (1..=60).contains(&s))
                );
            }
            other => panic!("unexpected status {other}"),
        }
    }
    assert_eq!((served, limited), (100, 140));
}

/// fetch_signed_receipt: the demo log's four receipts, each with a bundle that the server's own verify_bundle accepts
/// under the returned TEST keys; a missing sequence is a tool error.
#[tokio::test]
async fn signed_receipts_from_the_demo_log_verify() {
    let addr = start(keyed_config()).await;
    let auth = format!("Bearer {CHECKOUT_ONLY_KEY}");
    let auth = [("Authorization", auth.as_str())];
    let r = legacy(addr, &call(1, "fetch_signed_receipt", json!({"sequence": 0})), &[]).await;
    assert_eq!(r.status, 401, "a key is needed");
    for sequence in 0..4 {
        let r = legacy(addr, &call(2, "fetch_signed_receipt", json!({"sequence": sequence})), &auth).await;
        assert!(r.body.len() < 24 * 1024 + 1024);
        let (doc, is_error) = tool_result(&r);
        assert!(!is_error, "{doc}");
        assert_eq!(doc["sequence"], sequence);
        assert!(doc["receipt"].as_str().is_some_and(|t| t.starts_with("curbi-receipt-v1.")), "{doc}");
        // The bundle verifies with the returned keys, through the public verify_bundle tool.
        let verify = json!({"bundle": doc["bundle"], "keys": doc["keys"], "allowTest": true});
        let (v, is_error) = tool_result(&legacy(addr, &call(3, "verify_bundle", verify), &[]).await);
        assert!(!is_error, "{v}");
        assert_eq!(v["ok"], true, "{v}");
        // Without allowTest the TEST key is refused.
        let verify = json!({"bundle": doc["bundle"], "keys": doc["keys"]});
        let (v, _) = tool_result(&legacy(addr, &call(4, "verify_bundle", verify), &[]).await);
        assert_eq!(v["ok"], false, "{v}");
    }
    for bad in [json!({"sequence": 4}), json!({"sequence": -1}), json!({"sequence": "0"}), json!({})] {
        let (doc, is_error) = tool_result(&legacy(addr, &call(5, "fetch_signed_receipt", bad.clone()), &auth).await);
        assert!(is_error, "{bad}: {doc}");
    }
    let (doc, _) = tool_result(&legacy(addr, &call(6, "fetch_signed_receipt", json!({"sequence": 4})), &auth).await);
    assert!(doc["error"]["message"].as_str().is_some_and(|m| m.contains("signed log entry is not available")));
}

/// With a merchant's recorder configured, fetch_signed_receipt reads its real log: the receipt a refund earned, with a
/// bundle that verifies under the recorder's own keys (no test key involved).
#[tokio::test]
async fn signed_receipts_from_a_configured_recorder_verify() {
    let dir = std::env::temp_dir().join(format!("curbi-mcp-recorder-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let key = curbi_recorder::parse_key(&curbi_recorder::keyfile::key_text(&[9; 32], Some("shop"))).expect("key");
    let options = curbi_recorder::RecorderOptions::new(dir.join("log.db"), "curbi-checkpoint-v1.shop.example/log", key)
        .fixed_clock(1_793_714_400);
    let recorder = curbi_recorder::Recorder::open(options).expect("opens");
    let grant = json!({"id": "g", "agent": "agent:support", "operations": ["billing.refund"], "resources": ["charge:*"],
                       "limits": {"max_amount": 1000, "currency": "USD"}, "expires_at": "2027-01-01T00:00:00Z"});
    recorder.call_json("grant", grant.to_string().as_bytes()).expect("grant");
    let attest = json!({"tenant": "shop", "idempotency_key": "rf-1", "grant": "g", "action": {"agent": "agent:support",
                        "operation": "billing.refund", "resource": "charge:ch_1", "amount": 50, "currency": "USD"}});
    recorder.call_json("attest", attest.to_string().as_bytes()).expect("attests");
    let evidence = r#"{"operation":"billing.refund","resource":"charge:ch_1","amount":50,"currency":"usd"}"#;
    let confirm = json!({"tenant": "shop", "idempotency_key": "rf-1", "outcome": "DONE", "evidence": evidence});
    recorder.call_json("confirm", confirm.to_string().as_bytes()).expect("confirms");
    let addr = start(Config { recorder: Some(std::sync::Arc::new(recorder)), ..keyed_config() }).await;
    let auth = format!("Bearer {CHECKOUT_ONLY_KEY}");
    let auth = [("Authorization", auth.as_str())];
    let (doc, is_error) =
        tool_result(&legacy(addr, &call(1, "fetch_signed_receipt", json!({"sequence": 0})), &auth).await);
    assert!(!is_error, "{doc}");
    assert_eq!(doc["origin"], "curbi-checkpoint-v1.shop.example/log");
    let verify = json!({"bundle": doc["bundle"], "keys": doc["keys"]});
    let (v, is_error) = tool_result(&legacy(addr, &call(2, "verify_bundle", verify), &[]).await);
    assert!(!is_error, "{v}");
    assert_eq!(v["ok"], true, "{v}");
    let (doc, is_error) =
        tool_result(&legacy(addr, &call(3, "fetch_signed_receipt", json!({"sequence": 1})), &auth).await);
    assert!(is_error, "{doc}");
    assert_eq!(doc["error"]["code"], "unknown_receipt");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Core's strict reader reads every message: a member written twice inside a tool's arguments is that tool's input
/// error (its path relative to the arguments), and anywhere else in the message a parse error, as bad syntax is.
#[tokio::test]
async fn repeated_members_are_refused() {
    let addr = start(open_config()).await;
    let mut h = JSON_HEADERS.to_vec();
    h.push(("MCP-Protocol-Version", "2025-06-18"));
    let body = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"policy_check","arguments":{"policy":{"prices":[{"item":"Pro","amount":49,"amount":29}]},"reply":"Pro is $29."}}}"#;
    let (doc, is_error) = tool_result(&send(addr, "POST", "/mcp", &h, body.as_bytes()).await);
    assert!(is_error, "{doc}");
    assert_eq!(
        (doc["error"]["code"].as_str(), doc["error"]["path"].as_str()),
        (Some("duplicate_member"), Some("/policy/prices/0/amount"))
    );
    let body = r#"{"jsonrpc":"2.0","id":7,"method":"tools/list","method":"tools/call","params":{}}"#;
    let reply = send(addr, "POST", "/mcp", &h, body.as_bytes()).await;
    assert_eq!(reply.rpc_error(), -32700);
    assert!(reply.json()["error"]["message"].as_str().is_some_and(|m| m.contains("/method")), "{}", reply.json());
}

/// Browser gate proofs through the public verify_bundle tool, as its description promises (seed 000): the shared
/// vectors' verdicts (docs/PROOF.md §Browser gate proofs); an unreadable wrapper is a tool error.
#[tokio::test]
async fn browser_gate_proofs_through_verify_bundle() {
    let addr = start(open_config()).await;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../vectors/proof");
    for (i, (name, reason)) in [
        ("gate-valid", "verifies"),
        ("gate-tampered-decision", "decision_mismatch"),
        ("gate-previous-forked", "fork_detected"),
        ("gate-production-key-refused", "no_trusted_keys"),
        ("gate-malformed-unknown-member", "malformed"),
    ]
    .into_iter()
    .enumerate()
    {
        let text = std::fs::read_to_string(dir.join(format!("{name}.json"))).expect("vector");
        let input = serde_json::from_str::<Value>(&text).expect("json")["input"].clone();
        let (v, is_error) = tool_result(&legacy(addr, &call(i as u64 + 1, "verify_bundle", input), &[]).await);
        assert_eq!(v["reason"], reason, "{name}: {v}");
        assert_eq!(v["ok"], reason == "verifies", "{name}");
        assert_eq!(is_error, reason == "malformed", "{name}: only unreadable input is a tool error");
    }
}
