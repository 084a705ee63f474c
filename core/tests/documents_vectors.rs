//! `vectors/documents/`: every document kind through the one strict reader, given as raw text (a repeated member
//! cannot survive a JSON parser, so each input is text). The outcome must contain the expectation: an error's
//! `code` and `path`, or the members the expectation names (vectors/README.md).
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use curbi::api::{self, CheckOptions};
use curbi::{CompiledPolicy, CompiledRecord};
use serde_json::{Value, json};

/// Runs one entry point on `text`: its answer as a document, or `{"error": {...}}`.
fn outcome(entry: &str, text: &str) -> Value {
    let b = text.as_bytes();
    let doc = |r: curbi::Result<String>| r.map(|t| serde_json::from_str::<Value>(&t).unwrap());
    let done = |r: curbi::Result<()>| r.map(|()| json!({"ok": true}));
    let result = match entry {
        "check" => api::check_json(b).map(|r| serde_json::to_value(r).unwrap()),
        "compile_policy" => done(CompiledPolicy::from_json(b).map(drop)),
        "record" => done(CompiledRecord::from_json(b).map(drop)),
        "options" => done(CheckOptions::from_json(b).map(drop)),
        "validate_policy" => doc(api::validate_policy_json(b)),
        "export_regression" => doc(api::export_regression_json(b)),
        "replay_regression" => doc(api::replay_regression_json(b)),
        "verify_checkout" => doc(api::verify_checkout_json(b)),
        "verify_action" => doc(api::verify_action_json(b)),
        "checkout_digest" => api::checkout_digest(b).map(|d| json!({"digest": d})),
        "verify_bundle" => doc(api::verify_bundle_json(b)),
        "verifier_options" => done(api::Verifier::from_json(b).map(drop)),
        other => panic!("unknown entry {other}"),
    };
    result.unwrap_or_else(|e| e.to_json())
}

/// `got` contains `want`: every member `want` names, recursively; arrays element by element and of equal length.
fn contains(got: &Value, want: &Value) -> bool {
    match (got, want) {
        (Value::Object(g), Value::Object(w)) => w.iter().all(|(k, v)| g.get(k).is_some_and(|x| contains(x, v))),
        (Value::Array(g), Value::Array(w)) => g.len() == w.len() && g.iter().zip(w).all(|(x, v)| contains(x, v)),
        _ => got == want,
    }
}

#[test]
fn documents_vectors() {
    common::each_case("documents", |file, case| {
        let (entry, text, want) = (case["entry"].as_str().unwrap(), case["text"].as_str().unwrap(), &case["expected"]);
        let got = outcome(entry, text);
        assert!(contains(&got, want), "{file}: {}\n  got  {got}\n  want {want}", case["description"]);
    });
}
