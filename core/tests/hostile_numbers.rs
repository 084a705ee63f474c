//! Issue 15: numbers are read from their decimal text, never through a float, in policies, mandates and grants. An
//! amount of `1e-400` was read as 0 (a "$0" reply then passed), `999999999999999.999999` was rounded, and `1e400`
//! was an `invalid_json` at the root: now each is kept exact or refused at its own path.
#![allow(clippy::unwrap_used, clippy::panic)]

use serde_json::Value;

/// A Check API request whose first price's amount is written as `amount` (raw JSON number text).
fn policy_request(amount: &str, reply: &str) -> String {
    format!(r#"{{"policy":{{"prices":[{{"item":"Pro","amount":{amount}}}]}},"reply":{}}}"#, Value::from(reply))
}

#[test]
fn policy_amounts_are_exact_or_refused_at_their_path() {
    // A sub-unit amount is not 0: refused at the amount, so no "$0" reply can pass against it.
    for tiny in ["1e-400", "0.0000001", "1E-7"] {
        let e = curbi::api::check_json(policy_request(tiny, "Pro is $0.").as_bytes()).unwrap_err();
        assert_eq!(e.path, "/policy/prices/0/amount", "{tiny}: {e}");
        assert_ne!(e.code, curbi::ErrorCode::InvalidJson, "{tiny}");
    }
    // Beyond 10^15: out of range at the amount (errors.json), not invalid JSON at the root.
    for huge in ["1e400", "1E+16", "1000000000000000.000001"] {
        let e = curbi::api::check_json(policy_request(huge, "Pro is $1.").as_bytes()).unwrap_err();
        assert_eq!((e.code, e.path.as_str()), (curbi::ErrorCode::OutOfRange, "/policy/prices/0/amount"), "{huge}");
    }
    // Exactly one millionth under 10^15, kept to the last digit: the same amount passes, one cent less does not.
    let exact = "999999999999999.999999";
    let res = curbi::api::check_json(policy_request(exact, "Pro is $999,999,999,999,999.99.").as_bytes()).unwrap();
    assert!(!res.pass(), "{}", res.to_json_string());
    // Written with an exponent, an amount is the same number: 4.9e1 is $49.
    let res = curbi::api::check_json(policy_request("4.9e1", "Pro is $49.").as_bytes()).unwrap();
    assert!(res.pass(), "{}", res.to_json_string());
}

/// The purchase vector "1e3 as a cap is refused even though it is a whole number" with its cap written as `max`.
fn mandate_request(max: &str) -> String {
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string("../vectors/purchase/10-money.json").unwrap()).unwrap();
    let case = doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["description"].as_str().is_some_and(|d| d.starts_with("1e3 as a cap")))
        .unwrap();
    let mut input = case["input"].clone();
    input["mandate"]["amount_range"]["max"] = Value::from("@MAX@");
    input.to_string().replace("\"@MAX@\"", max)
}

/// Asserts a DENY decision with an `amount_invalid` reason at `path`.
fn denied_at(decision: curbi::Result<String>, path: &str, max: &str) {
    let text = decision.unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["decision"], "DENY", "{max}: {text}");
    let reasons = v["reasons"].as_array().unwrap();
    assert!(reasons.iter().any(|r| r["code"] == "amount_invalid" && r["path"] == path), "{max}: {text}");
}

#[test]
fn mandate_and_grant_amounts_are_refused_at_their_path() {
    for max in ["1e-400", "1e400", "999999999999999.999999", "1e3"] {
        denied_at(curbi::api::verify_checkout_json(mandate_request(max).as_bytes()), "/mandate/amount_range/max", max);
    }
    for max in ["1e-400", "1e400", "999999999999999.999999"] {
        let request = format!(
            r#"{{"grant":{{"agent":"a1","operations":["refund.create"],"resources":["order:*"],
                "expires_at":"2027-01-01T00:00:00Z","limits":{{"max_amount":{max},"currency":"USD"}}}},
               "action":{{"agent":"a1","operation":"refund.create","resource":"order:1","amount":0,"currency":"USD"}},
               "now":"2026-11-01T00:00:00Z"}}"#
        );
        denied_at(curbi::api::verify_action_json(request.as_bytes()), "/grant/limits/max_amount", max);
    }
}

/// The check stops keeping findings at its output cap (issue 15's amplifier) and under it answers the same bytes.
#[test]
fn the_bounded_check_stops_at_its_cap_and_is_exact_under_it() {
    let why = "w".repeat(200);
    let forbid: Vec<Value> =
        (0..50).map(|i| serde_json::json!({"id": format!("r{i}"), "phrases": ["deal"], "why": why})).collect();
    let cases: Vec<Value> = (0..12).map(|_| serde_json::json!({"reply": "deal ".repeat(780)})).collect();
    let body = serde_json::json!({"policy": {"forbid": forbid}, "cases": cases}).to_string();
    let e = curbi::api::check_json_within(body.as_bytes(), None, 256 * 1024).unwrap_err();
    assert_eq!(e.code, curbi::ErrorCode::OutputTooLarge);
    let small = r#"{"policy":{"forbid":[{"id":"g","phrases":["guarantee"]}]},"cases":[{"reply":"we guarantee it"},{"reply":"fine"}]}"#;
    let full = curbi::api::check_json(small.as_bytes()).unwrap().to_json_string();
    assert_eq!(curbi::api::check_json_within(small.as_bytes(), None, full.len()).unwrap(), full);
    assert_eq!(
        curbi::api::check_json_within(small.as_bytes(), None, full.len() - 1).unwrap_err().code,
        curbi::ErrorCode::OutputTooLarge
    );
}
