//! Browser gate proofs (docs/PROOF.md §Browser gate proofs) beyond the shared vectors: the malformed vectors point
//! at the member the format names, repeated members and sizes are refused, every single-character edit of a valid
//! proof's result or head is rejected, and a gate made from a fresh key proves what the page proves.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use curbi::proof::browser_gate::{BrowserGate, MAX_GATE_REQUEST_BYTES};
use curbi::proof::keys::SigningKey;
use serde_json::{Value, json};

fn vector(name: &str) -> Value {
    common::load(&common::vectors().join("proof").join(format!("{name}.json")))
}

fn verify(request: &Value) -> Value {
    serde_json::from_str(&curbi::api::verify_bundle_json(request.to_string().as_bytes()).unwrap()).unwrap()
}

/// Each malformed gate vector and the (code, pointer) of its first unreadable member, worked from the format
/// (docs/PROOF.md: the wrapper's `object` first, then unknown members, then the members in table order; the
/// options before the trust document, the trust document before the wrapper).
const MALFORMED: [(&str, &str, &str); 13] = [
    ("gate-malformed-unknown-member", "unknown_field", "/bundle/note"),
    ("gate-malformed-result-type", "invalid_type", "/bundle/result"),
    ("gate-malformed-policy-used", "invalid_value", "/bundle/policy/used"),
    ("gate-malformed-registry-member", "unknown_field", "/bundle/registry/note"),
    ("gate-malformed-proposal-now", "invalid_value", "/bundle/proposal/now"),
    ("gate-malformed-trust-without-at", "missing_field", "/keys/at"),
    ("gate-malformed-trust-digest", "invalid_value", "/keys/policy"),
    ("gate-malformed-trust-version", "invalid_value", "/keys/minVersion"),
    ("gate-malformed-fresh-mode", "invalid_value", "/mode"),
    ("gate-malformed-witnesses", "unknown_field", "/witnesses"),
    ("gate-malformed-wrapper-under-jwks", "invalid_enum", "/bundle/object"),
    ("gate-malformed-bundle-under-trust", "invalid_enum", "/bundle/object"),
    ("gate-malformed-previous", "invalid_note", "/keys/previous"),
];

#[test]
fn malformed_gate_vectors_point_at_the_bad_member() {
    for (name, code, path) in MALFORMED {
        let out = verify(&vector(name)["input"]);
        assert_eq!(out["reason"], "malformed", "{name}: {out}");
        assert_eq!((out["error"]["code"].as_str(), out["error"]["path"].as_str()), (Some(code), Some(path)), "{name}");
        assert_eq!(out["path"], path, "{name}");
    }
}

#[test]
fn repeated_members_and_sizes_are_refused() {
    let valid = vector("gate-valid")["input"].clone();
    let text = valid.to_string();
    // The wrapper's `index` written twice: parsers disagree on which copy wins.
    let repeated = text.replacen("\"index\":1", "\"index\":1,\"index\":0", 1);
    assert_ne!(repeated, text);
    let out: Value = serde_json::from_str(&curbi::api::verify_bundle_json(repeated.as_bytes()).unwrap()).unwrap();
    assert_eq!((out["reason"].as_str(), out["error"]["code"].as_str()), (Some("malformed"), Some("duplicate_member")));
    assert_eq!(out["error"]["path"], "/bundle/index");

    // Past the request bound, nothing is read.
    let mut big = valid.clone();
    big["bundle"]["policy"]["id"] = "x".repeat(MAX_GATE_REQUEST_BYTES).into();
    let out = verify(&big);
    assert_eq!((out["error"]["code"].as_str(), out["error"]["path"].as_str()), (Some("too_long"), Some("")));

    // Within it, a policy longer than 16 KiB in RFC 8785 form is refused at the policy.
    let mut long = valid;
    long["bundle"]["policy"]["id"] = "x".repeat(17 * 1024).into();
    let out = verify(&long);
    assert_eq!(
        (out["error"]["code"].as_str(), out["error"]["path"].as_str()),
        (Some("too_long"), Some("/bundle/policy"))
    );
}

#[test]
fn no_single_character_edit_of_the_result_or_head_verifies() {
    let valid = vector("gate-valid")["input"].clone();
    assert_eq!(verify(&valid)["reason"], "verifies");
    for member in ["result", "head"] {
        let original = valid["bundle"][member].as_str().unwrap().to_owned();
        let mut edits = 0;
        for (i, c) in original.char_indices().step_by(7) {
            let replacement = if c == 'A' { 'B' } else { 'A' };
            let mut edited = original.clone();
            edited.replace_range(i..i + c.len_utf8(), &replacement.to_string());
            let mut request = valid.clone();
            request["bundle"][member] = edited.into();
            let out = verify(&request);
            assert_eq!(out["ok"], false, "{member} edited at {i}: {out}");
            edits += 1;
        }
        assert!(edits > 20, "{member}: {edits} edits");
    }
}

#[test]
fn a_fresh_gate_proves_and_a_tampered_proof_fails() {
    // As the page does, with a key from 32 bytes (here fixed; the page draws them with crypto.getRandomValues).
    let mut gate = BrowserGate::new(SigningKey::from_seed(&[7; 32]), "curbi-checkpoint-v1.page/gate", "0.1.0").unwrap();
    let policy = json!({"agent": "agent:a", "operations": ["door.open"], "resources": ["door:*"],
                        "expires_at": "2030-01-01T00:00:00Z"});
    let proposal = |resource: &str, now: &str| json!({"action": {"agent": "agent:a", "operation": "door.open", "resource": resource}, "now": now});
    let first = gate.prove(&policy, &json!({}), &proposal("door:1", "2029-01-01T00:00:00Z")).unwrap();
    // A resource outside door:* is denied (docs/PURCHASE.md: resource_not_allowed).
    let second = gate.prove(&policy, &json!({}), &proposal("room:2", "2029-01-01T00:01:00Z")).unwrap();
    assert_eq!(first.decision.verdict().as_str(), "ALLOW");
    assert_eq!(second.decision.verdict().as_str(), "DENY");
    for p in [&first, &second] {
        let request = json!({"bundle": p.proof, "keys": p.trust, "allowTest": true});
        let out = verify(&request);
        assert_eq!(out["reason"], "verifies", "{out}");
        assert_eq!(out["items"][0]["result"]["decision"], p.decision.verdict().as_str());
        // The same through the two-document form and a verifier handle.
        let options = json!({"keys": p.trust, "allowTest": true}).to_string();
        let parts = curbi::api::verify_bundle_parts_json(p.proof.to_string().as_bytes(), options.as_bytes()).unwrap();
        let handle = curbi::api::Verifier::from_json(options.as_bytes()).unwrap();
        assert_eq!(parts, handle.verify_json(p.proof.to_string().as_bytes()).unwrap());
        assert_eq!(serde_json::from_str::<Value>(&parts).unwrap(), out);
    }
    // The second proof carries the first head as previous, proven by its consistency proof.
    assert_eq!(second.trust["previous"], first.proof["head"]);
    // The DENY relabelled in the unsigned wrapper: the proposal no longer matches the result.
    let mut tampered = json!({"bundle": second.proof, "keys": second.trust, "allowTest": true});
    tampered["bundle"]["proposal"]["action"]["resource"] = "door:2".into();
    assert_eq!(verify(&tampered)["reason"], "decision_mismatch");
}
