//! Runs every shared vector in `vectors/check/` through the Check API and compares whole documents.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use serde_json::Value;

use common::{group_files, load, vectors};

/// Checks a group file's shape (vectors/README.md): description, non-empty cases, each with description, request,
/// expected, and optionally `receipts` (the receipt keys the policy is compiled with).
fn check_shape(file: &str, doc: &Value) {
    assert!(doc["description"].is_string(), "{file}: group needs a description");
    let cases = doc["cases"].as_array().unwrap_or_else(|| panic!("{file}: cases must be an array"));
    assert!(!cases.is_empty(), "{file}: no cases");
    for (i, c) in cases.iter().enumerate() {
        let obj = c.as_object().unwrap_or_else(|| panic!("{file}#{i}: case must be an object"));
        for k in obj.keys() {
            assert!(
                ["description", "request", "expected", "receipts"].contains(&k.as_str()),
                "{file}#{i}: unknown member {k}"
            );
        }
        assert!(c["description"].as_str().is_some_and(|d| !d.is_empty()), "{file}#{i}: needs a description");
        assert!(c["request"].is_object(), "{file}#{i}: request must be an object");
        assert!(c["expected"].is_object(), "{file}#{i}: expected must be an object");
    }
}

/// UTF-16 span → the reply's text, to prove `reply[span] == text` independently of the checker.
fn utf16_slice(s: &str, span: &Value) -> String {
    let units: Vec<u16> = s.encode_utf16().collect();
    let a = span[0].as_u64().unwrap() as usize;
    let b = span[1].as_u64().unwrap() as usize;
    String::from_utf16(&units[a..b]).unwrap()
}

fn spans_round_trip(file: &str, i: usize, request: &Value, response: &Value) {
    let check = |reply: &str, findings: &Value| {
        for f in findings.as_array().unwrap() {
            assert_eq!(
                utf16_slice(reply, &f["span"]),
                f["text"].as_str().unwrap(),
                "{file}#{i}: span does not slice text"
            );
        }
    };
    if let Some(reply) = request["reply"].as_str() {
        check(reply, &response["findings"]);
    } else if let Some(cases) = request["cases"].as_array() {
        for (k, c) in cases.iter().enumerate() {
            check(c["reply"].as_str().unwrap(), &response["results"][k]["findings"]);
        }
    }
}

#[test]
fn check_vectors() {
    let files = group_files("check");
    let mut ran = 0;
    let mut failures = Vec::new();
    for path in &files {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let doc = load(path);
        check_shape(&file, &doc);
        for (i, case) in doc["cases"].as_array().unwrap().iter().enumerate() {
            ran += 1;
            let body = serde_json::to_vec(&case["request"]).unwrap();
            let keys = case.get("receipts").map(|r| {
                let bytes = serde_json::to_vec(r).unwrap();
                std::sync::Arc::new(curbi::api::ReceiptVerifier::from_json(&bytes).unwrap())
            });
            let got: Value = match curbi::api::check_json_with(&body, keys.as_ref()) {
                Ok(r) => serde_json::from_str(&r.to_json_string()).unwrap(),
                Err(e) => serde_json::json!({"error": {"code": e.code.as_str(), "path": e.path}}),
            };
            let expected = &case["expected"];
            if got != *expected {
                failures.push(format!(
                    "{file}#{i} {}\n  expected: {expected}\n  got:      {got}",
                    case["description"].as_str().unwrap_or("")
                ));
                continue;
            }
            if got.get("error").is_none() {
                spans_round_trip(&file, i, &case["request"], &got);
            }
        }
    }
    println!("check vectors: {ran} ran, {} failed, in {} files", failures.len(), files.len());
    assert!(ran > 0, "no vectors ran");
    assert!(failures.is_empty(), "{} of {ran} vectors failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn error_codes_match_the_shared_list() {
    let doc = load(&vectors().join("errors.json"));
    let listed: Vec<&str> = doc["codes"].as_array().unwrap().iter().map(|c| c["code"].as_str().unwrap()).collect();
    let ours: Vec<&str> = curbi::ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(listed, ours);
}
