//! The worst request bodies of issue 15, shared by the hostile tests and the load test (`mcp/examples/load.rs`).
#![allow(dead_code)]

use serde_json::{Value, json};

/// The amplifier: 50 forbid rules with 200-character whys, 12 cases of one phrase repeated: about 60 KB in,
/// over 100 MB of findings out before the output cap.
pub(crate) fn amplifier() -> Value {
    let why = "w".repeat(200);
    let forbid: Vec<Value> =
        (0..50).map(|i| json!({"id": format!("r{i}"), "phrases": ["deal"], "why": why.clone()})).collect();
    let reply = "deal ".repeat(780);
    let cases: Vec<Value> = (0..12).map(|_| json!({"reply": reply.clone()})).collect();
    json!({"policy": {"forbid": forbid}, "cases": cases})
}
