//! `curbi check --keys KEYS [--allow-test] [--now RFC3339]`: every case of `vectors/check/99-receipts.json` through
//! the binary, with the case's receipt keys as a JWKS file and flags; exit 0 for a pass, 1 for findings, 2 for an
//! error document.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use std::process::Command;

use serde_json::{Value, json};

use common::BIN;

#[test]
fn every_receipt_vector_through_curbi_check() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../vectors/check/99-receipts.json");
    let doc: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    for (i, case) in doc["cases"].as_array().unwrap().iter().enumerate() {
        let request = common::temp_file("receipts-req", case["request"].to_string().as_bytes());
        let mut cmd = Command::new(BIN);
        cmd.arg("check");
        let mut keys_file = None;
        if let Some(r) = case.get("receipts") {
            let keys = common::temp_file("receipts-keys", r["keys"].to_string().as_bytes());
            cmd.arg("--keys").arg(&keys);
            if r["allowTest"] == true {
                cmd.arg("--allow-test");
            }
            if let Some(now) = r["now"].as_str() {
                cmd.args(["--now", now]);
            }
            keys_file = Some(keys);
        }
        let out = cmd.arg(&request).output().unwrap();
        let got: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("#{i}: {e}"));
        let expected = &case["expected"];
        let (got, code) = match got.get("error") {
            Some(e) => (json!({"error": {"code": e["code"], "path": e["path"]}}), 2),
            None => {
                let pass = got["pass"] == true;
                (got, if pass { 0 } else { 1 })
            }
        };
        assert_eq!(got, *expected, "#{i}: {}", case["description"]);
        assert_eq!(out.status.code(), Some(code), "#{i}");
        std::fs::remove_file(&request).ok();
        if let Some(k) = keys_file {
            std::fs::remove_file(k).ok();
        }
    }
}

#[test]
fn receipt_flags_are_checked() {
    let request = common::temp_file("receipts-flags", br#"{"policy":{},"reply":"Hi"}"#);
    let req = request.to_str().unwrap();
    // --allow-test alone configures nothing: a usage error, not a silent no-op.
    let out = Command::new(BIN).args(["check", "--allow-test", req]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--keys"), "{}", String::from_utf8_lossy(&out.stderr));
    // A private key in the key file is refused with its code; the key is never echoed.
    let private = r#"{"keys":[{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A"}]}"#;
    let keys = common::temp_file("receipts-private", private.as_bytes());
    let out = Command::new(BIN).args(["check", "--keys", keys.to_str().unwrap(), req]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("private_key_present") && !err.contains("nWGxne"), "{err}");
    // A bad clock names the flag.
    let jwks = common::temp_file("receipts-empty", br#"{"keys":[]}"#);
    let out = Command::new(BIN)
        .args(["check", "--keys", jwks.to_str().unwrap(), "--now", "yesterday", req])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(err.contains("--now") && err.contains("invalid_value"), "{err}");
    for f in [request, keys, jwks] {
        std::fs::remove_file(f).ok();
    }
}
