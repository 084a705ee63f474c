//! Runs every Proof of Action vector in `vectors/proof/` (listed in `cases.json`) through `api::verify_bundle_json`
//! and compares the result with the expectation each case was built to give; checks that the sixteen seed vectors
//! are there under seed 003's names with seed 003's expected results; and that the files are exactly what the
//! generator makes (the same check as `curbi vectors --check`).
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::Value;

fn dir() -> PathBuf {
    common::vectors().join("proof")
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(dir().join(name)).unwrap_or_else(|e| panic!("vectors/proof/{name}: {e}"))
}

/// Seed 003, "16 conformance vectors": name and expected result, in the seed's order.
const SEED: [(&str, &str); 16] = [
    ("valid-four-domains", "verifies"),
    ("test-key-refused", "no_trusted_keys"),
    ("tampered-amount", "bad_signature"),
    ("attestation-as-receipt", "bad_signature"),
    ("wrong-position", "not_in_log"),
    ("signed-but-not-logged", "not_in_log"),
    ("attestation-not-bound", "attestation_not_bound"),
    ("duplicate-item", "duplicate"),
    ("conflicting-receipts", "conflicting_receipt"),
    ("equivocation", "fork_detected"),
    ("history-rewritten", "history_unproven"),
    ("history-truncated", "history_unproven"),
    ("checkpoint-unknown-key", "checkpoint_unknown_key"),
    ("trust-anchor-is-the-caller", "no_trusted_keys"),
    ("fresh-mode-expired", "expired"),
    ("key-window", "checkpoint_key_not_valid_at_issue"),
];

const REASONS: [&str; 15] = [
    "verifies",
    "no_trusted_keys",
    "bad_signature",
    "not_in_log",
    "attestation_not_bound",
    "duplicate",
    "conflicting_receipt",
    "fork_detected",
    "history_unproven",
    "checkpoint_unknown_key",
    "expired",
    "checkpoint_key_not_valid_at_issue",
    "malformed",
    "gate_not_pinned",
    "decision_mismatch",
];

/// The verifier's reasons are exactly the seed's words plus `malformed`, then the two of browser gate proofs
/// (docs/PROOF.md §Browser gate proofs), in order, and serialize as those words.
#[test]
fn the_verifier_speaks_the_seed_reasons() {
    use curbi::proof::verify::Reason;
    let names: Vec<&str> = Reason::ALL.iter().map(|r| r.as_str()).collect();
    assert_eq!(names, REASONS);
    for r in Reason::ALL {
        assert_eq!(serde_json::to_value(r).unwrap(), Value::String(r.as_str().to_owned()));
    }
}

fn cases() -> Vec<Value> {
    let index: Value = serde_json::from_slice(&read("cases.json")).unwrap();
    index["cases"].as_array().unwrap().clone()
}

#[test]
fn the_sixteen_seed_vectors_are_listed_with_the_seed_results() {
    let listed: Vec<(String, String)> = cases()
        .iter()
        .filter(|c| c["seed"] == true)
        .map(|c| (c["name"].as_str().unwrap().to_owned(), c["expected"]["reason"].as_str().unwrap().to_owned()))
        .collect();
    let seed: Vec<(String, String)> = SEED.iter().map(|(n, r)| ((*n).to_owned(), (*r).to_owned())).collect();
    assert_eq!(listed, seed);
}

#[test]
fn proof_vectors() {
    let mut ran = 0;
    let mut by_reason = std::collections::BTreeMap::<String, usize>::new();
    let mut failures = Vec::new();
    for case in cases() {
        let name = case["name"].as_str().unwrap();
        let file = case["file"].as_str().unwrap();
        let doc: Value = serde_json::from_slice(&read(file)).unwrap();
        let keys: BTreeSet<&str> = doc.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, BTreeSet::from(["name", "seed", "description", "expected", "input"]), "{file}: members");
        assert_eq!(doc["name"], name, "{file}");
        assert!(doc["description"].as_str().is_some_and(|d| !d.is_empty()), "{file}: description");
        assert_eq!(doc["expected"], case["expected"], "{file}: cases.json and the file agree");
        let expected = &doc["expected"];
        let reason = expected["reason"].as_str().unwrap();
        assert!(REASONS.contains(&reason), "{file}: unknown reason {reason}");
        assert_eq!(expected["ok"], reason == "verifies", "{file}: ok follows the reason");

        let input = serde_json::to_vec(&doc["input"]).unwrap();
        let out = curbi::api::verify_bundle_json(&input).unwrap_or_else(|e| panic!("{file}: {e}"));
        let result: Value = serde_json::from_str(&out).unwrap();
        ran += 1;
        *by_reason.entry(reason.to_owned()).or_default() += 1;

        let mut problems = Vec::new();
        if result["reason"] != reason || result["ok"] != expected["ok"] {
            problems.push(format!("got {} ({}), expected {reason}", result["reason"], result["message"]));
        }
        if let Some(items) = expected.get("items") {
            let got: Vec<&Value> = result["items"].as_array().unwrap().iter().map(|i| &i["reason"]).collect();
            let want: Vec<&Value> = items.as_array().unwrap().iter().collect();
            if got != want {
                problems.push(format!("items {got:?}, expected {want:?}"));
            }
        }
        // Invariants of every result.
        for it in result["items"].as_array().unwrap() {
            if it["ok"] != (it["reason"] == "verifies") {
                problems.push(format!("item ok/reason disagree: {it}"));
            }
        }
        if result["scope"]["authorizationGranted"] != false || result["scope"]["providerActionProven"] != false {
            problems.push("scope must say no authority and no provider proof".into());
        }
        if reason == "malformed" && result["items"].as_array().unwrap().is_empty() && result["error"]["code"].is_null()
        {
            problems.push("a malformed request carries its error".into());
        }
        if reason == "fork_detected" {
            let heads = result["evidence"]["heads"].as_array().cloned().unwrap_or_default();
            let input = &doc["input"];
            let mut given: Vec<&Value> = input["known"].as_array().map(|k| k.iter().collect()).unwrap_or_default();
            for c in input["bundle"]["consistency"].as_array().into_iter().flatten() {
                given.push(&c["head"]);
            }
            // A gate proof's trust document carries the head seen before as `previous`.
            if let Some(previous) = input["keys"].get("previous") {
                given.push(previous);
            }
            if heads.len() != 2 || heads[0] != input["bundle"]["head"] || !given.contains(&&heads[1]) {
                problems.push(format!("a fork's evidence is the bundle's head and the other signed head: {heads:?}"));
            }
        }
        if reason == "verifies" && result["head"]["size"].as_u64().is_none() {
            problems.push("a verified bundle reports its head".into());
        }
        if !problems.is_empty() {
            failures.push(format!("{name}: {}", problems.join("; ")));
        }
    }
    println!("proof vectors: {ran} ran ({by_reason:?})");
    assert!(ran >= 16 + 20, "only {ran} proof vectors ran");
    assert!(failures.is_empty(), "{} of {ran} vectors failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn files_are_what_the_generator_makes() {
    let generated = curbi_testkit::generate();
    let mut differ = Vec::new();
    for (name, bytes) in &generated {
        if std::fs::read(dir().join(name)).ok().as_ref() != Some(bytes) {
            differ.push(name.clone());
        }
    }
    let on_disk: BTreeSet<String> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".json"))
        .collect();
    let made: BTreeSet<String> = generated.iter().map(|(n, _)| n.clone()).collect();
    assert!(differ.is_empty(), "regenerate with `curbi vectors`: {differ:?} differ");
    assert_eq!(on_disk, made, "vectors/proof holds exactly the generated files");
}

/// The CLI's form: the bundle and the options as two documents (`verify_parts_text`).
#[test]
fn the_two_document_form_agrees() {
    let doc: Value = serde_json::from_slice(&read("valid-four-domains.json")).unwrap();
    let mut options = doc["input"].clone();
    let bundle = options.as_object_mut().unwrap().remove("bundle").unwrap();
    let out =
        curbi::proof::verify::verify_parts_text(&bundle.to_string(), &options.to_string()).unwrap().to_json_string();
    let whole = curbi::api::verify_bundle_json(&serde_json::to_vec(&doc["input"]).unwrap()).unwrap();
    assert_eq!(out, whole);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["reason"], "verifies");
    // Not JSON is the only Err.
    assert!(curbi::api::verify_bundle_json(b"{").is_err());
    assert!(curbi::api::verify_bundle_json(&[0xff]).is_err());
    let dup = br#"{"keys":{"keys":[]},"keys":{"keys":[]},"bundle":{}}"#;
    let v: Value = serde_json::from_str(&curbi::api::verify_bundle_json(dup).unwrap()).unwrap();
    let got = (v["reason"].as_str(), v["error"]["code"].as_str(), v["error"]["path"].as_str());
    assert_eq!(got, (Some("malformed"), Some("duplicate_member"), Some("/keys")));
}

/// The verifier handle (`api::Verifier`): for every vector whose request has a bundle, a verifier built once from
/// the rest of the request gives the whole request's result byte for byte, or, when those options cannot be used,
/// refuses to be built with the code and pointer the whole request reports as `malformed`. One verifier is then
/// shared by threads.
#[test]
fn a_verifier_built_once_gives_the_whole_requests_result() {
    let mut built = 0;
    let mut refused = 0;
    for case in cases() {
        let name = case["name"].as_str().unwrap();
        let doc: Value = serde_json::from_slice(&read(case["file"].as_str().unwrap())).unwrap();
        let Some(bundle) = doc["input"].get("bundle") else { continue };
        let mut options = doc["input"].clone();
        options.as_object_mut().unwrap().remove("bundle");
        let whole = curbi::api::verify_bundle_json(&serde_json::to_vec(&doc["input"]).unwrap()).unwrap();
        match curbi::api::Verifier::from_json(&serde_json::to_vec(&options).unwrap()) {
            Ok(verifier) => {
                let out = verifier.verify_json(&serde_json::to_vec(bundle).unwrap()).unwrap();
                assert_eq!(out, whole, "{name}");
                built += 1;
            }
            Err(e) => {
                let v: Value = serde_json::from_str(&whole).unwrap();
                assert_eq!(v["reason"], "malformed", "{name}");
                assert_eq!(v["error"]["code"], e.code.as_str(), "{name}");
                assert_eq!(v["error"]["path"], e.path.as_str(), "{name}");
                refused += 1;
            }
        }
    }
    assert!(built >= 55 && refused >= 10, "{built} built, {refused} refused");

    let doc: Value = serde_json::from_slice(&read("valid-four-domains.json")).unwrap();
    let mut options = doc["input"].clone();
    let bundle = serde_json::to_vec(&options.as_object_mut().unwrap().remove("bundle").unwrap()).unwrap();
    let verifier = curbi::api::Verifier::from_json(&serde_json::to_vec(&options).unwrap()).unwrap();
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                assert!(verifier.verify_json(&bundle).unwrap().starts_with(r#"{"ok":true,"reason":"verifies""#))
            });
        }
    });
    // Only text that is not JSON is an Err; a bundle that cannot be read is a result under /bundle.
    assert!(verifier.verify_json(b"{").is_err());
    assert!(verifier.verify_json(&[0xff]).is_err());
    let v: Value =
        serde_json::from_str(&verifier.verify_json(br#"{"object":"curbi.proof/0.1","x":1}"#).unwrap()).unwrap();
    assert_eq!((v["reason"].as_str(), v["error"]["path"].as_str()), (Some("malformed"), Some("/bundle/x")));
    let v: Value = serde_json::from_str(&verifier.verify_json(br#"{"head":"a","head":"b"}"#).unwrap()).unwrap();
    assert_eq!(
        (v["error"]["code"].as_str(), v["error"]["path"].as_str()),
        (Some("duplicate_member"), Some("/bundle/head"))
    );
    // Options that cannot be used: not an object, repeated members, a bundle among them, no keys.
    let refuse = |text: &str| curbi::api::Verifier::from_json(text.as_bytes()).err().map(|e| (e.code.as_str(), e.path));
    assert_eq!(refuse("[]"), Some(("invalid_type", String::new())));
    assert_eq!(refuse(r#"{"keys":{"keys":[]},"keys":{"keys":[]}}"#), Some(("duplicate_member", "/keys".to_owned())));
    assert_eq!(refuse(r#"{"keys":{"keys":[]},"bundle":{}}"#), Some(("unknown_field", "/bundle".to_owned())));
    assert_eq!(refuse("{}"), Some(("missing_field", "/keys".to_owned())));
}
