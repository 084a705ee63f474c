//! Shared by the recorder's tests: keys, a refund grant, evidence, and the independent check of a bundle (core's
//! bundle verifier, which the public proof vectors pin).
#![allow(dead_code, unreachable_pub, clippy::panic)]

#[cfg(feature = "postgres")]
pub mod pg;
pub mod scenarios;

use std::path::{Path, PathBuf};

use curbi_recorder::{LoadedKey, Recorder, RecorderOptions, parse_key};
use serde_json::{Value, json};

pub const ORIGIN: &str = "curbi-checkpoint-v1.shop.example/refunds";
/// 2026-11-03T12:00:00Z.
pub const T0: i64 = 1_793_714_400;

pub fn key(seed: u8, kid: &str) -> LoadedKey {
    parse_key(&curbi_recorder::keyfile::key_text(&[seed; 32], Some(kid))).expect("a valid key")
}

pub fn open(path: &Path, seed: u8, kid: &str, now: i64) -> Recorder {
    Recorder::open(RecorderOptions::new(path, ORIGIN, key(seed, kid)).fixed_clock(now)).expect("opens")
}

pub fn refund_grant() -> Value {
    json!({
        "id": "g-refunds",
        "agent": "agent:support",
        "operations": ["billing.refund"],
        "resources": ["charge:*"],
        "limits": {"max_amount": 10000, "confirmation_threshold": 5000, "currency": "USD"},
        "expires_at": "2027-01-01T00:00:00Z"
    })
}

pub fn attest_body(key: &str, amount: i64) -> String {
    json!({
        "tenant": "acme",
        "idempotency_key": key,
        "grant": "g-refunds",
        "action": {"agent": "agent:support", "operation": "billing.refund", "resource": "charge:ch_1", "amount": amount, "currency": "USD"}
    })
    .to_string()
}

pub fn evidence(amount: i64) -> String {
    json!({"id": "re_1", "operation": "billing.refund", "resource": "charge:ch_1", "amount": amount, "currency": "usd", "status": "succeeded"})
        .to_string()
}

pub fn call(r: &Recorder, method: &str, body: &str) -> Value {
    let text = r.call_json(method, body.as_bytes()).unwrap_or_else(|e| panic!("{method} {body}: {e}"));
    serde_json::from_str(&text).expect("answers JSON")
}

pub fn settle(r: &Recorder, method: &str, key: &str, outcome: &str, evidence: Option<&str>) -> Value {
    let mut body = json!({"tenant": "acme", "idempotency_key": key, "outcome": outcome});
    if let Some(e) = evidence {
        body["evidence"] = e.into();
    }
    call(r, method, &body.to_string())
}

/// Core's verifier on a bundle, with `known` heads; returns its result document.
pub fn verify(bundle: &Value, keys: &Value, known: &[String]) -> Value {
    let request = json!({"bundle": bundle, "keys": keys, "known": known});
    let text = curbi::api::verify_bundle_json(request.to_string().as_bytes()).expect("verifies");
    serde_json::from_str(&text).expect("JSON")
}

pub fn code_of(r: Result<String, curbi::Error>) -> String {
    match r {
        Ok(v) => panic!("expected an error, got {v}"),
        Err(e) => e.code.as_str().to_string(),
    }
}

/// A new log in `dir/name` on key 1 at T0, with the refund grant registered.
pub fn fresh_log(dir: &Path, name: &str) -> Recorder {
    let r = open(&dir.join(name), 1, "k1", T0);
    call(&r, "grant", &refund_grant().to_string());
    r
}

/// A new log, `log.db` in a new temporary folder, as `fresh_log` makes it: the folder (keep it while the log is
/// used), the file's path and the recorder.
pub fn granted_log() -> (tempfile::TempDir, PathBuf, Recorder) {
    let dir = tempfile::tempdir().expect("dir");
    let r = fresh_log(dir.path(), "log.db");
    let db = dir.path().join("log.db");
    (dir, db, r)
}

/// Adds refunds of 100 (keys `<prefix>-<seq>`), each DONE, until the log holds `size` receipts.
pub fn grow(r: &Recorder, size: u64, prefix: &str) {
    let from = call(r, "status", "{}")["size"].as_u64().expect("size");
    for i in from..size {
        let key = format!("{prefix}-{i}");
        assert_eq!(call(r, "attest", &attest_body(&key, 100))["decision"], "ALLOW");
        assert_eq!(settle(r, "confirm", &key, "DONE", Some(&evidence(100)))["seq"], i);
    }
}
