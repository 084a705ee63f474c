//! Runs the shared lint vectors in `vectors/lint/` through `curbi::lint::validate_policy`, compares codes and paths
//! (messages are for people), and checks the warning codes against `vectors/warnings.json`.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use std::collections::BTreeSet;

use curbi::lint::{self, WarningCode};
use serde_json::{Value, json};

use common::{cases, group_files, load, vectors};

/// The report as the vectors state it: codes and paths only, in order.
fn comparable(r: &lint::LintReport) -> Value {
    let doc = r.to_json();
    let strip = |list: &Value| -> Value {
        Value::Array(list.as_array().unwrap().iter().map(|i| json!({"code": i["code"], "path": i["path"]})).collect())
    };
    json!({"valid": doc["valid"], "errors": strip(&doc["errors"]), "warnings": strip(&doc["warnings"])})
}

#[test]
fn lint_vectors() {
    let files = group_files("lint");
    let (mut ran, mut failures) = (0, Vec::new());
    let mut fired: BTreeSet<String> = BTreeSet::new();
    for path in &files {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let doc = load(path);
        let cases = cases(&file, &doc);
        for (i, case) in cases.iter().enumerate() {
            let keys: Vec<&String> = case.as_object().unwrap().keys().collect();
            assert_eq!(keys, ["description", "expected", "policy"], "{file}#{i}: members");
            assert!(case["description"].as_str().is_some_and(|d| !d.is_empty()), "{file}#{i}: description");
            ran += 1;
            let report = lint::validate_policy(&case["policy"]);
            // Every error and warning carries a sentence, and valid means exactly no errors.
            assert_eq!(report.valid, report.errors.is_empty(), "{file}#{i}");
            for w in &report.warnings {
                assert!(w.message.ends_with('.') && w.message.len() > 20, "{file}#{i}: message {:?}", w.message);
                fired.insert(w.code.as_str().to_owned());
            }
            let got = comparable(&report);
            if got != case["expected"] {
                failures.push(format!(
                    "{file}#{i} {}\n  expected: {}\n  got:      {got}\n  messages: {}",
                    case["description"].as_str().unwrap_or(""),
                    case["expected"],
                    report.to_json()["warnings"]
                ));
            }
        }
    }
    println!("lint vectors: {ran} ran, {} failed, in {} files", failures.len(), files.len());
    assert!(ran > 0, "no vectors ran");
    assert!(failures.is_empty(), "{} of {ran} lint vectors failed:\n{}", failures.len(), failures.join("\n"));
    // Each warning class fires on at least one vector.
    let all: BTreeSet<String> = WarningCode::ALL.iter().map(|c| c.as_str().to_owned()).collect();
    assert_eq!(fired, all, "warning codes without a vector that fires them");
}

#[test]
fn seed_policies_have_no_warnings() {
    let doc = load(&vectors().join("lint/00-seed.json"));
    let cases = doc["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 3);
    // The same three policies as the seed's check examples, taken from vectors/check/00-seed.json itself.
    let seed = load(&vectors().join("check/00-seed.json"));
    for (i, c) in seed["cases"].as_array().unwrap().iter().enumerate() {
        let policy = &c["request"]["policy"];
        assert_eq!(policy, &cases[i]["policy"], "lint/00-seed.json#{i} is not seed check example {i}'s policy");
        let r = lint::validate_policy(policy);
        assert!(r.valid && r.warnings.is_empty(), "seed example {i}: {}", r.to_json_string());
    }
}

#[test]
fn warning_codes_match_the_shared_list() {
    let doc = load(&vectors().join("warnings.json"));
    let listed: Vec<&str> = doc["codes"].as_array().unwrap().iter().map(|c| c["code"].as_str().unwrap()).collect();
    let ours: Vec<&str> = WarningCode::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(listed, ours);
}

/// Lint and the Check API read policies with the same schema: for every check vector, a request the Check API
/// accepts has a valid policy, and a request it refuses at `/policy…` has that error first in lint (paths relative
/// to the policy).
#[test]
fn lint_errors_agree_with_the_check_api_on_every_check_vector() {
    let mut compared = 0;
    for path in group_files("check") {
        let doc = load(&path);
        for (i, case) in doc["cases"].as_array().unwrap().iter().enumerate() {
            let Some(policy) = case["request"].get("policy") else {
                continue;
            };
            let report = lint::validate_policy(policy);
            let label = format!("{}#{i}", path.file_name().unwrap().to_string_lossy());
            match case["expected"]["error"]["path"].as_str() {
                Some(p) if p.starts_with("/policy") => {
                    let first = report.errors.first().unwrap_or_else(|| panic!("{label}: lint found no error"));
                    assert_eq!(first.path, p["/policy".len()..], "{label}");
                    assert_eq!(first.code.as_str(), case["expected"]["error"]["code"], "{label}");
                    assert!(report.warnings.is_empty(), "{label}: warnings on an invalid policy");
                }
                // Refused elsewhere (the reply, the record) or not at all: the policy itself is valid.
                _ => assert!(report.valid, "{label}: {}", report.to_json_string()),
            }
            compared += 1;
        }
    }
    println!("lint/check agreement: {compared} policies compared");
    assert!(compared > 100, "only {compared} policies compared");
}

/// Lint is deterministic and never panics on odd but valid policies; nothing is stored between calls.
#[test]
fn lint_is_deterministic() {
    let policy = json!({
        "prices": [{"item": "Pro", "amount": 49.999, "aliases": ["★", "pro"]}, {"item": "Pro", "amount": 1e15}],
        "forbid": [{"id": "a", "phrases": ["\u{0}", "İ", "garanti"], "match": "prefix"}, {"id": "a", "phrases": ["i"]}],
        "actions": {"zz": "op"},
        "discounts": [{"percent": 100, "items": ["pro", ""]}]
    });
    let a = lint::validate_policy(&policy).to_json_string();
    let b = lint::validate_policy(&policy).to_json_string();
    assert_eq!(a, b);
    assert!(a.contains("\"valid\":true"), "{a}");
}
