//! `verify_bundle`'s fresh mode over MCP (issue 43): seed 000's schema offers `mode: "fresh"` but no `now`, so the
//! server's clock is the instant; a caller's `now` stays an unknown member. Real HTTP on 127.0.0.1 and the stdio path.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value, json};

use common::{send_raw, start};
use curbi::api::Clock;
use curbi::time::Timestamp;
use curbi_mcp::{Caller, Config, Server, stdio};

fn vectors() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../vectors/proof")
}

fn vector(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(vectors().join(format!("{name}.json"))).unwrap()).unwrap()
}

fn at(rfc3339: &str) -> Clock {
    Clock::Fixed(Timestamp::parse(rfc3339).unwrap().unix_seconds())
}

fn config(clock: Clock) -> Config {
    Config { rate_per_minute: 0, tool_rate_per_minute: 0, clock, ..Config::default() }
}

fn call(id: u64, arguments: &Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "verify_bundle", "arguments": arguments}})
}

/// A legacy-era `tools/call` of `verify_bundle` over HTTP; (structuredContent, isError).
async fn over_http(addr: SocketAddr, id: u64, arguments: &Value) -> (Value, bool) {
    let body = call(id, arguments).to_string();
    let raw = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let reply = send_raw(addr, raw.as_bytes()).await;
    assert_eq!(reply.status, 200, "{}", String::from_utf8_lossy(&reply.body));
    result(&reply.json())
}

fn result(doc: &Value) -> (Value, bool) {
    let r = &doc["result"];
    let text: Value = serde_json::from_str(r["content"][0]["text"].as_str().expect("text")).unwrap();
    assert_eq!(text, r["structuredContent"], "{doc}");
    (text, r["isError"].as_bool().expect("isError"))
}

/// The verdict in the vectors' `expected` shape: ok, reason and each item's reason.
fn verdict(v: &Value) -> Value {
    let items: Vec<Value> = v["items"].as_array().unwrap().iter().map(|i| i["reason"].clone()).collect();
    json!({"ok": v["ok"], "reason": v["reason"], "items": items})
}

/// Every proof vector a `verify_bundle` call can express runs through MCP over HTTP and gets the vector's verdict:
/// inputs within seed 000's members, whose `now` (when given) is moved from the arguments to the server's clock.
/// Left out: vectors of options the seed does not name (`witnesses`, `trustBundleKeys`, unknown ones), and vectors
/// about `now` itself (missing in fresh mode, or not RFC 3339): over MCP `now` is never the caller's.
#[tokio::test]
async fn every_expressible_proof_vector_verifies_through_mcp_with_the_server_clock() {
    const SEED_MEMBERS: [&str; 5] = ["bundle", "keys", "allowTest", "mode", "known"];
    let cases: Value = serde_json::from_str(&std::fs::read_to_string(vectors().join("cases.json")).unwrap()).unwrap();
    let (mut ran, mut fresh) = (0, Vec::new());
    for (id, case) in cases["cases"].as_array().unwrap().iter().enumerate() {
        let name = case["name"].as_str().unwrap();
        let doc = vector(name);
        let Value::Object(mut input) = doc["input"].clone() else { continue };
        let now = input.remove("now");
        if input.keys().any(|k| !SEED_MEMBERS.contains(&k.as_str())) {
            continue;
        }
        let clock = match now.as_ref().map(|n| n.as_str().map(Timestamp::parse)) {
            Some(Some(Ok(t))) => Clock::Fixed(t.unix_seconds()),
            Some(_) => continue,
            None if input.get("mode") == Some(&json!("fresh")) => continue,
            None => at("2026-11-03T14:03:00Z"),
        };
        let addr = start(config(clock)).await;
        let (v, is_error) = over_http(addr, id as u64, &Value::Object(input.clone())).await;
        if input.get("mode") == Some(&json!("fresh")) {
            fresh.push(name.to_owned());
        }
        let expected = &doc["expected"];
        assert_eq!(is_error, expected["reason"] == "malformed", "{name}: only unreadable input is a tool error: {v}");
        if is_error && v.get("error").is_some() {
            // The server's argument schema refused it before the verifier ran (an argument error, path named).
            assert!(v["error"]["path"].is_string(), "{name}: {v}");
            ran += 1;
            continue;
        }
        assert_eq!(v["ok"], expected["ok"], "{name}: {v}");
        assert_eq!(v["reason"], expected["reason"], "{name}: {v}");
        if let Some(items) = expected.get("items") {
            assert_eq!(verdict(&v)["items"], *items, "{name}: {v}");
        }
        ran += 1;
    }
    // The seed's fresh-mode-expired and our other fresh-mode vectors are among them.
    for name in
        ["fresh-mode-expired", "fresh-mode-current", "fresh-mode-key-not-valid-now", "gate-malformed-fresh-mode"]
    {
        assert!(fresh.iter().any(|f| f == name), "{name} did not run: {fresh:?}");
    }
    assert!(ran >= 90, "only {ran} vectors ran");
}

/// The seed's fresh-mode-expired vector: the same arguments (no `now`) are expired at the vector's instant and
/// verify a day after issue, so the answer follows the server's clock; a caller's `now` is still refused by name.
#[tokio::test]
async fn fresh_mode_follows_the_server_clock_and_refuses_a_callers_now() {
    let doc = vector("fresh-mode-expired");
    let mut args = doc["input"].clone();
    let now = args.as_object_mut().unwrap().remove("now").unwrap();
    assert_eq!(args["mode"], "fresh");

    let expired = start(config(at(now.as_str().unwrap()))).await;
    let (v, is_error) = over_http(expired, 1, &args).await;
    assert_eq!(verdict(&v), doc["expected"], "{v}");
    assert!(!is_error);

    let current = start(config(at("2026-11-04T14:00:00Z"))).await;
    let (v, _) = over_http(current, 2, &args).await;
    assert_eq!((v["ok"].clone(), v["reason"].clone()), (json!(true), json!("verifies")), "{v}");

    // Archival mode reads no clock: history stays valid at the expired instant.
    let mut archival = args.clone();
    archival["mode"] = json!("archival");
    let (v, _) = over_http(expired, 3, &archival).await;
    assert_eq!(v["reason"], "verifies", "{v}");

    // Seed 000's verify_bundle schema has no `now`: a caller's is an unknown member, in either mode.
    for mode in ["fresh", "archival"] {
        let mut with_now = args.clone();
        with_now["mode"] = json!(mode);
        with_now["now"] = now.clone();
        let (v, is_error) = over_http(current, 4, &with_now).await;
        assert!(is_error, "{v}");
        assert_eq!((v["error"]["code"].clone(), v["error"]["path"].clone()), (json!("unknown_field"), json!("/now")));
    }
}

/// Over stdio (the dispatcher `curbi mcp --stdio` runs; cli/tests/mcp_stdio.rs drives the process itself) and with
/// the default system clock: fresh mode answers a verdict, never "fresh mode needs now". The receipts were issued
/// on 2026-11-03 with 30 days' validity, so which verdict depends on today; both are the bundle's, not an error.
#[tokio::test]
async fn fresh_mode_over_stdio_with_the_system_clock() {
    let mut args = vector("fresh-mode-expired")["input"].clone();
    args.as_object_mut().unwrap().remove("now");
    let server = Arc::new(Server::new(Config::default()));
    let line = stdio::answer(&server, &Caller::Anonymous, call(1, &args).to_string().as_bytes()).await.unwrap();
    let (v, is_error) = result(&serde_json::from_str(&line).unwrap());
    assert!(!is_error, "{v}");
    assert!(v["reason"] == "verifies" || v["reason"] == "expired", "{v}");
}
