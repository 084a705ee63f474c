//! A real recorder for the `recorder` and `tiles` targets: a SQLite file under the temporary folder (fuzz/run.sh
//! points TMPDIR at a folder of its own and removes it), opened with the first key of vectors/recorder/scenarios.json
//! on a fixed clock, and a log of signed, confirmed refunds.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use curbi_recorder::Recorder;
use serde_json::{Value, json};

const SCENARIOS: &str = include_str!("../../../vectors/recorder/scenarios.json");

/// A fresh folder for this process under the temporary folder.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("curbi-fuzz-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

/// A recorder on `dir/log.db` with key `k1`, its clock at the scenarios' `now`, and the scenarios' refund grant.
pub fn open(dir: &Path) -> Recorder {
    let doc: Value = serde_json::from_str(SCENARIOS).expect("the scenarios are JSON");
    let key_file = dir.join("k1.jwk");
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create_new(true);
    // The recorder refuses a key file that others can read.
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    let jwk = doc["keys"]["k1"]["jwk"].as_str().expect("a JWK");
    std::io::Write::write_all(&mut o.open(&key_file).expect("creates the key file"), jwk.as_bytes()).expect("writes");
    let config = json!({
        "path": dir.join("log.db"),
        "origin": doc["origin"],
        "key_file": key_file,
        "now": doc["scenarios"][0]["open"]["now"],
    });
    let recorder = curbi_recorder::api::open_json(config.to_string().as_bytes()).expect("the recorder opens");
    let grant = json!({"id": "g-refunds", "agent": "agent:support", "operations": ["billing.refund"],
        "resources": ["charge:*"], "limits": {"max_amount": 10000, "confirmation_threshold": 5000, "currency": "USD"},
        "expires_at": "2027-01-01T00:00:00Z"});
    call(&recorder, "grant", &grant);
    recorder
}

/// One call that must succeed.
pub fn call(recorder: &Recorder, method: &str, request: &Value) -> Value {
    let text = recorder.call_json(method, request.to_string().as_bytes()).unwrap_or_else(|e| panic!("{method}: {e}"));
    serde_json::from_str(&text).expect("the answer is JSON")
}

/// `n` more refunds of 1.00 each, attested and confirmed DONE: `n` more receipts in the log.
pub fn refunds(recorder: &Recorder, from: usize, n: usize) {
    for i in from..from + n {
        let key = format!("rf-{i}");
        let resource = format!("charge:ch_{i}");
        let action = json!({"agent": "agent:support", "operation": "billing.refund", "resource": resource,
            "amount": 100, "currency": "USD"});
        let attested = call(
            recorder,
            "attest",
            &json!({"tenant": "acme", "idempotency_key": key, "grant": "g-refunds", "action": action}),
        );
        assert_eq!(attested["decision"], "ALLOW", "{attested}");
        let evidence = json!({"id": format!("re_{i}"), "object": "refund", "operation": "billing.refund",
            "resource": resource, "amount": 100, "currency": "usd", "status": "succeeded"});
        call(
            recorder,
            "confirm",
            &json!({"tenant": "acme", "idempotency_key": key, "outcome": "DONE", "evidence": evidence.to_string()}),
        );
    }
}
