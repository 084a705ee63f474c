//! Runs every shared vector in `vectors/purchase/` (format in its README) through the purchase and action checks,
//! and checks the invariants every decision document must hold.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use std::collections::BTreeSet;

use serde_json::Value;

use common::{group_files, load, vectors};

fn reasons_list() -> Vec<(String, String)> {
    let doc = load(&vectors().join("purchase/reasons.json"));
    doc["codes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["code"].as_str().unwrap().to_owned(), c["effect"].as_str().unwrap().to_owned()))
        .collect()
}

fn check_shape(file: &str, doc: &Value) {
    assert!(doc["description"].as_str().is_some_and(|d| !d.is_empty()), "{file}: group needs a description");
    assert!(matches!(doc["check"].as_str(), Some("purchase" | "action")), "{file}: check must be purchase or action");
    let cases = doc["cases"].as_array().unwrap_or_else(|| panic!("{file}: cases must be an array"));
    assert!(!cases.is_empty(), "{file}: no cases");
    for (i, c) in cases.iter().enumerate() {
        let obj = c.as_object().unwrap_or_else(|| panic!("{file}#{i}: case must be an object"));
        let keys: BTreeSet<&str> = obj.keys().map(String::as_str).collect();
        assert_eq!(keys, BTreeSet::from(["description", "input", "expected"]), "{file}#{i}: members");
        assert!(c["description"].as_str().is_some_and(|d| !d.is_empty()), "{file}#{i}: needs a description");
        let e = c["expected"].as_object().unwrap_or_else(|| panic!("{file}#{i}: expected must be an object"));
        for k in e.keys() {
            assert!(["decision", "reasons", "summary"].contains(&k.as_str()), "{file}#{i}: unknown expected.{k}");
        }
        assert!(matches!(e["decision"].as_str(), Some("ALLOW" | "DENY" | "STEP_UP")), "{file}#{i}: decision");
        for r in e["reasons"].as_array().unwrap_or_else(|| panic!("{file}#{i}: expected.reasons must be an array")) {
            let keys: BTreeSet<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
            assert_eq!(keys, BTreeSet::from(["code", "effect", "path"]), "{file}#{i}: expected reason members");
        }
    }
}

/// The invariants of every decision document; returns a description of the first one broken.
fn invariants(doc: &Value, object: &str, known: &[(String, String)]) -> Result<(), String> {
    if doc["object"] != object {
        return Err(format!("object is {}, not {object}", doc["object"]));
    }
    if doc["authorizationGranted"] != Value::Bool(false) {
        return Err("authorizationGranted must be false".into());
    }
    let decision = doc["decision"].as_str().ok_or("decision must be a string")?;
    let reasons = doc["reasons"].as_array().ok_or("reasons must be an array")?;
    let mut worst = "ALLOW";
    for r in reasons {
        for k in ["code", "effect", "path", "expected", "actual", "message"] {
            if !r[k].is_string() {
                return Err(format!("reason {r} lacks string {k}"));
            }
        }
        let (code, effect) = (r["code"].as_str().unwrap_or(""), r["effect"].as_str().unwrap_or(""));
        if !known.iter().any(|(c, e)| c == code && e == effect) {
            return Err(format!("reason {code}/{effect} is not in reasons.json"));
        }
        if effect == "DENY" {
            worst = "DENY";
        } else if worst == "ALLOW" {
            worst = "STEP_UP";
        }
    }
    if decision != worst {
        return Err(format!("decision {decision} does not follow its reasons ({worst})"));
    }
    match (decision, doc.get("stepUp")) {
        ("STEP_UP", Some(s)) => {
            let kind_ok = matches!(s["kind"].as_str(), Some("confirm_purchase" | "confirm_action"));
            if !kind_ok || s["summary"].as_str().is_none_or(str::is_empty) {
                return Err(format!("stepUp needs a kind and a summary: {s}"));
            }
        }
        ("STEP_UP", None) => return Err("STEP_UP without stepUp".into()),
        (_, Some(_)) => return Err("stepUp present on a decision that is not STEP_UP".into()),
        (_, None) => {}
    }
    Ok(())
}

fn triples(reasons: &Value) -> BTreeSet<(String, String, String)> {
    reasons
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let s = |k: &str| r[k].as_str().unwrap_or("").to_owned();
            (s("code"), s("effect"), s("path"))
        })
        .collect()
}

#[test]
fn purchase_vectors() {
    let known = reasons_list();
    let files: Vec<_> = group_files("purchase").into_iter().filter(|p| !p.ends_with("reasons.json")).collect();
    let (mut ran, mut purchase, mut action) = (0, 0, 0);
    let mut seen_codes = BTreeSet::new();
    let mut failures = Vec::new();
    for path in &files {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let doc = load(path);
        check_shape(&file, &doc);
        let is_action = doc["check"] == "action";
        for (i, case) in doc["cases"].as_array().unwrap().iter().enumerate() {
            ran += 1;
            let (decision, object) = if is_action {
                action += 1;
                (curbi::purchase::verify_action_request(&case["input"]), "action_check")
            } else {
                purchase += 1;
                (curbi::purchase::verify_checkout_request(&case["input"]), "purchase_check")
            };
            let got = decision.to_json();
            let label = format!("{file}#{i} {}", case["description"].as_str().unwrap_or(""));
            if let Err(e) = invariants(&got, object, &known) {
                failures.push(format!("{label}\n  invariant: {e}\n  got: {got}"));
                continue;
            }
            let expected = &case["expected"];
            let (want, have) = (triples(&expected["reasons"]), triples(&got["reasons"]));
            seen_codes.extend(have.iter().map(|t| t.0.clone()));
            let summary_ok = match expected.get("summary") {
                Some(s) => got["stepUp"]["summary"] == *s,
                None => true,
            };
            if got["decision"] != expected["decision"] || want != have || !summary_ok {
                failures.push(format!(
                    "{label}\n  expected: {} {:?}{}\n  got:      {} {:?} {}",
                    expected["decision"],
                    want,
                    expected.get("summary").map(|s| format!(" summary {s}")).unwrap_or_default(),
                    got["decision"],
                    have,
                    got.get("stepUp").map(|s| s.to_string()).unwrap_or_default()
                ));
            }
        }
    }
    println!(
        "purchase vectors: {ran} ran ({purchase} purchase, {action} action), {} failed, in {} files",
        failures.len(),
        files.len()
    );
    assert!(ran > 0, "no vectors ran");
    assert!(failures.is_empty(), "{} of {ran} vectors failed:\n{}", failures.len(), failures.join("\n"));
    // Every reason code is exercised by at least one vector.
    let missing: Vec<&str> = known.iter().map(|(c, _)| c.as_str()).filter(|c| !seen_codes.contains(*c)).collect();
    assert!(missing.is_empty(), "reason codes without a vector: {missing:?}");
}

#[test]
fn reason_codes_match_the_shared_list() {
    let listed = reasons_list();
    let ours: Vec<(String, String)> = curbi::purchase::ReasonCode::ALL
        .iter()
        .map(|c| (c.as_str().to_owned(), c.effect().as_str().to_owned()))
        .collect();
    assert_eq!(listed, ours);
}
