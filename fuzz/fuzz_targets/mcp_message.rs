//! Arbitrary bytes as the body of `POST /mcp` (a JSON-RPC message), through the whole router of `curbi serve` in
//! process (transport rules, the JSON-RPC layer, every tool, the output limit), in both protocol eras. Never a
//! panic and never a 5xx but the pool's 503; every answer is JSON-RPC (or a 202 for a notification).
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use tower::ServiceExt;

static RUNTIME: LazyLock<tokio::runtime::Runtime> =
    LazyLock::new(|| tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime"));

fn config() -> curbi_mcp::Config {
    curbi_mcp::Config {
        rate_per_minute: 0,
        tool_rate_per_minute: 0,
        check_rate_per_minute: 0,
        keys: curbi_mcp::KeySet::new(vec![curbi_mcp::ApiKey::new(
            "curbi_test_fuzzing-key-0123456789",
            "fuzz",
            vec![curbi_mcp::Scope::Checkout, curbi_mcp::Scope::Verify],
        )]),
        sandbox: true,
        ..curbi_mcp::Config::default()
    }
}

static APP: LazyLock<axum::Router> = LazyLock::new(|| curbi_mcp::router(config()));

fuzz_target!(|data: &[u8]| {
    for (version, method) in [("2025-06-18", None), ("2026-07-28", Some("tools/call"))] {
        let mut req = axum::http::Request::post("/mcp")
            .header("host", "localhost")
            .header("content-type", "application/json")
            .header("accept", "application/json")
            .header("authorization", "Bearer curbi_test_fuzzing-key-0123456789")
            .header("mcp-protocol-version", version);
        if let Some(m) = method {
            req = req.header("mcp-method", m).header("mcp-name", "policy_check");
        }
        let req = req.body(axum::body::Body::from(data.to_vec())).expect("request");
        let res = RUNTIME.block_on(APP.clone().oneshot(req)).expect("infallible");
        let status = res.status().as_u16();
        assert!(status < 500 || status == 503, "status {status}");
        if status != 202 {
            let body = RUNTIME.block_on(axum::body::to_bytes(res.into_body(), usize::MAX)).expect("body");
            let v: serde_json::Value = serde_json::from_slice(&body).expect("the answer is JSON");
            assert_eq!(v["jsonrpc"], "2.0", "{v}");
        }
    }
});
