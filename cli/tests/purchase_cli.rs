//! Runs the built `curbi purchase` and `curbi action` the way a host's shell or CI job would: exit statuses, stdout
//! documents, files, stdin, the clock, unreadable input.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::{Value, json};

mod common;

use common::BIN;
const NOW: &str = "2026-11-20T12:00:00Z";

fn mandate() -> Value {
    json!({
        "currency": "USD",
        "amount_range": {"max": 20000},
        "confirmation_threshold": 15000,
        "budget": {"max": 50000},
        "recurrence": {"frequency": "ON_DEMAND"},
        "merchants": [{"id": "merch_acme", "name": "Acme Audio"}],
        "user_cart_confirmation_required": false,
        "expires_at": "2026-12-31T23:59:59Z"
    })
}

/// One line of 7999 + tax 640; checkout adds fulfillment 500: total 9139.
fn checkout(total_fulfillment: i64) -> Value {
    json!({
        "id": "cs_1",
        "status": "ready_for_payment",
        "currency": "usd",
        "merchant": {"id": "merch_acme", "name": "Acme Audio"},
        "line_items": [{"id": "li_1", "item": {"id": "sku_hp_black", "name": "Headphones, black"}, "quantity": 1,
                        "unit_amount": 7999,
                        "totals": [{"type": "subtotal", "amount": 7999}, {"type": "tax", "amount": 640},
                                   {"type": "total", "amount": 8639}]}],
        "totals": [{"type": "subtotal", "amount": 7999}, {"type": "fulfillment", "amount": total_fulfillment},
                   {"type": "tax", "amount": 640}, {"type": "total", "amount": 7999 + total_fulfillment + 640}]
    })
}

fn grant() -> Value {
    json!({"agent": "support-bot-7", "operations": ["refund.create"], "resources": ["order:*"],
           "limits": {"max_amount": 5000, "confirmation_threshold": 2500, "currency": "USD"},
           "expires_at": "2026-12-01T00:00:00Z"})
}

fn action(amount: i64) -> Value {
    json!({"agent": "support-bot-7", "operation": "refund.create", "resource": "order:A1001", "amount": amount,
           "currency": "USD"})
}

fn temp(bytes: &[u8]) -> PathBuf {
    common::temp_file("purchase", bytes)
}

fn json_file(v: &Value) -> PathBuf {
    temp(v.to_string().as_bytes())
}

fn run(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(BIN).args(args).output().expect("run curbi")
}

fn run_stdin(args: &[&std::ffi::OsStr], input: &[u8]) -> Output {
    common::run_stdin(args, input)
}

fn os(s: &str) -> &std::ffi::OsStr {
    std::ffi::OsStr::new(s)
}

/// The single stdout line as JSON.
fn doc(out: &Output) -> Value {
    let text = String::from_utf8(out.stdout.clone()).expect("UTF-8 stdout");
    assert!(text.ends_with('\n') && text.matches('\n').count() == 1, "one line: {text:?}");
    serde_json::from_str(&text).expect("stdout is JSON")
}

fn codes(d: &Value) -> Vec<String> {
    d["reasons"].as_array().unwrap().iter().map(|r| r["code"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn allow_exits_0_with_the_whole_document() {
    let (m, c) = (json_file(&mandate()), json_file(&checkout(500)));
    let out = run(&[os("purchase"), m.as_os_str(), c.as_os_str(), os("--now"), os(NOW)]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "{\"object\":\"purchase_check\",\"decision\":\"ALLOW\",\"reasons\":[],\"authorizationGranted\":false}\n"
    );
}

#[test]
fn step_up_exits_1_with_the_summary() {
    // Fulfillment 6361: 7999 + 6361 + 640 = 15000, at the confirmation threshold.
    let (m, c) = (json_file(&mandate()), json_file(&checkout(6361)));
    let out = run(&[os("purchase"), m.as_os_str(), c.as_os_str(), os("--now=2026-11-20T12:00:00Z")]);
    assert_eq!(out.status.code(), Some(1));
    let d = doc(&out);
    assert_eq!(d["decision"], "STEP_UP");
    assert_eq!(codes(&d), ["confirmation_threshold"]);
    assert_eq!(d["reasons"][0]["path"], "/checkout/totals/3/amount");
    assert_eq!(
        d["stepUp"],
        json!({"kind": "confirm_purchase", "summary": "Acme Audio (merch_acme): 1 × Headphones, black; total USD 150.00"})
    );
}

#[test]
fn deny_exits_1_and_the_ledger_counts() {
    let (m, c) = (json_file(&mandate()), json_file(&checkout(500)));
    // 40862 spent + 0 reserved + 9139 = 50001 > 50000.
    let ledger = json_file(&json!({"spent": 40862, "occurrences": 4}));
    let out =
        run(&[os("purchase"), m.as_os_str(), c.as_os_str(), os("--ledger"), ledger.as_os_str(), os("--now"), os(NOW)]);
    assert_eq!(out.status.code(), Some(1));
    let d = doc(&out);
    assert_eq!((d["decision"].as_str(), codes(&d)), (Some("DENY"), vec!["budget_exceeded".to_owned()]));
    // One minor unit less fits exactly.
    let ledger = json_file(&json!({"spent": 40861, "occurrences": 4}));
    let out =
        run(&[os("purchase"), m.as_os_str(), c.as_os_str(), os("--ledger"), ledger.as_os_str(), os("--now"), os(NOW)]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn options_may_come_first_and_checkout_may_be_stdin() {
    let m = json_file(&mandate());
    let out = run_stdin(
        &[os("purchase"), os("--now"), os(NOW), os("--pretty"), m.as_os_str(), os("-")],
        checkout(500).to_string().as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.lines().count() > 1, "--pretty indents: {text}");
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap()["decision"], "ALLOW");
}

#[test]
fn malformed_documents_are_decisions_not_errors() {
    // 100.0 is JSON, so the file is readable: the checker answers DENY with a reason (exit 1), not exit 2.
    let text = checkout(500).to_string().replace("\"unit_amount\":7999", "\"unit_amount\":7999.0");
    assert!(text.contains("7999.0"));
    let (m, c) = (json_file(&mandate()), temp(text.as_bytes()));
    let out = run(&[os("purchase"), m.as_os_str(), c.as_os_str(), os("--now"), os(NOW)]);
    assert_eq!(out.status.code(), Some(1));
    let d = doc(&out);
    assert_eq!(codes(&d), ["amount_invalid"]);
    assert_eq!(d["reasons"][0]["path"], "/checkout/line_items/0/unit_amount");
}

#[test]
fn a_file_that_is_not_json_is_the_error_document() {
    let (m, c) = (temp(b"{\"currency\": \"USD\","), json_file(&checkout(500)));
    let out = run(&[os("purchase"), m.as_os_str(), c.as_os_str(), os("--now"), os(NOW)]);
    assert_eq!(out.status.code(), Some(2));
    let d = doc(&out);
    let err = d["error"].as_object().expect("error object");
    assert_eq!(err.len(), 3, "{d}");
    assert_eq!((err["code"].as_str(), err["path"].as_str()), (Some("invalid_json"), Some("/mandate")));
    assert!(err["message"].as_str().is_some_and(|s| s.contains("MANDATE")));
    // The ledger too.
    let ledger = temp(b"not json");
    let m = json_file(&mandate());
    let out =
        run(&[os("purchase"), m.as_os_str(), c.as_os_str(), os("--ledger"), ledger.as_os_str(), os("--now"), os(NOW)]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(doc(&out)["error"]["path"], "/ledger");
}

#[test]
fn a_bad_now_is_the_error_document() {
    let (m, c) = (json_file(&mandate()), json_file(&checkout(500)));
    let out = run(&[os("purchase"), m.as_os_str(), c.as_os_str(), os("--now"), os("2026-11-20 12:00:00Z")]);
    assert_eq!(out.status.code(), Some(2));
    let d = doc(&out);
    assert_eq!((d["error"]["code"].as_str(), d["error"]["path"].as_str()), (Some("invalid_value"), Some("/now")));
}

#[test]
fn unreadable_files_and_bad_arguments_exit_2_with_stderr() {
    let m = json_file(&mandate());
    let missing = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("no-such-checkout.json");
    let out = run(&[os("purchase"), m.as_os_str(), missing.as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
    for args in [
        vec![os("purchase"), m.as_os_str()],
        vec![os("purchase"), m.as_os_str(), m.as_os_str(), m.as_os_str()],
        vec![os("purchase"), m.as_os_str(), m.as_os_str(), os("--frobnicate")],
        vec![os("purchase"), m.as_os_str(), m.as_os_str(), os("--now")],
        vec![os("purchase"), os("-"), os("-")],
        vec![os("action"), m.as_os_str(), m.as_os_str(), os("--ledger"), m.as_os_str()],
        vec![os("action"), m.as_os_str(), m.as_os_str(), os("--merchant"), m.as_os_str()],
        vec![
            os("purchase"),
            m.as_os_str(),
            m.as_os_str(),
            os("--merchant"),
            m.as_os_str(),
            os("--merchant"),
            m.as_os_str(),
        ],
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(!String::from_utf8_lossy(&out.stderr).is_empty(), "{args:?}");
    }
}

#[test]
fn help_exits_0() {
    let out = run(&[os("purchase"), os("--help")]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("curbi purchase"));
}

#[test]
fn without_now_the_clock_decides() {
    let c = json_file(&checkout(500));
    let mut far = mandate();
    far["expires_at"] = json!("9999-12-31T23:59:59Z");
    let out = run(&[os("purchase"), json_file(&far).as_os_str(), c.as_os_str()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let mut past = mandate();
    past["expires_at"] = json!("2001-01-01T00:00:00Z");
    let out = run(&[os("purchase"), json_file(&past).as_os_str(), c.as_os_str()]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(codes(&doc(&out)), ["mandate_expired"]);
}

#[test]
fn action_allow_step_up_deny() {
    let g = json_file(&grant());
    let cases = [
        (1500, 0, "ALLOW", vec![]),
        (2500, 1, "STEP_UP", vec!["confirmation_threshold"]),
        (5001, 1, "DENY", vec!["amount_over_cap", "confirmation_threshold"]),
    ];
    for (amount, status, decision, want) in cases {
        let a = json_file(&action(amount));
        let out = run(&[os("action"), g.as_os_str(), a.as_os_str(), os("--now"), os(NOW)]);
        assert_eq!(out.status.code(), Some(status), "{amount}");
        let d = doc(&out);
        assert_eq!(d["object"], "action_check");
        assert_eq!(d["decision"], decision);
        assert_eq!(codes(&d), want);
        assert_eq!(d["authorizationGranted"], false);
    }
    let a = json_file(&action(2500));
    let out = run(&[os("action"), g.as_os_str(), a.as_os_str(), os("--now"), os(NOW)]);
    assert_eq!(doc(&out)["stepUp"]["summary"], "support-bot-7 wants to refund.create on order:A1001 for USD 25.00");
}

#[test]
fn action_with_an_unreadable_grant_is_the_error_document() {
    let (g, a) = (temp(b"[1,"), json_file(&action(1500)));
    let out = run(&[os("action"), g.as_os_str(), a.as_os_str(), os("--now"), os(NOW)]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(doc(&out)["error"]["path"], "/grant");
}

#[test]
fn a_protocol_checkout_is_passed_unchanged_with_the_merchant_beside_it() {
    // The checkout as UCP writes it: no merchant member (the business is the endpoint), UCP's ready state.
    let ucp = json!({
        "ucp": {"version": "2026-04-08"}, "id": "chk_1", "status": "ready_for_complete", "currency": "USD",
        "line_items": [{"id": "li_1", "item": {"id": "sku_hp_black", "title": "Headphones, black", "price": 7999},
                        "quantity": 1, "totals": [{"type": "subtotal", "amount": 7999}, {"type": "total", "amount": 7999}]}],
        "totals": [{"type": "subtotal", "amount": 7999}, {"type": "total", "amount": 7999}],
        "links": [], "policies": []
    });
    let (m, c) = (json_file(&mandate()), json_file(&ucp));
    let merchant = json_file(&json!({"id": "merch_acme", "name": "Acme Audio"}));
    let args = [os("purchase"), m.as_os_str(), c.as_os_str(), os("--now"), os(NOW)];
    let with = [&args[..], &[os("--merchant"), merchant.as_os_str(), os("--protocol"), os("ucp")]].concat();
    let out = run(&with);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    // Without the merchant the decision says who is paid is missing.
    let out = run(&args);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(codes(&doc(&out)), ["malformed"]);
    // A protocol that contradicts the document is the request's own reason.
    let wrong = [&args[..], &[os("--merchant"), merchant.as_os_str(), os("--protocol"), os("acp")]].concat();
    assert_eq!(doc(&run(&wrong))["reasons"][0]["path"], "/protocol");
}

#[test]
fn checkout_digest_prints_what_the_mandate_pins() {
    let c = checkout(500);
    let file = json_file(&c);
    let out = run(&[os("checkout-digest"), file.as_os_str()]);
    assert_eq!(out.status.code(), Some(0));
    let digest = String::from_utf8(out.stdout).unwrap().trim().to_owned();
    assert_eq!(digest.len(), 43, "{digest}");
    // The digest pinned in the mandate: the same checkout ALLOWs, a changed one does not.
    let mut m = mandate();
    m["checkout_digest"] = json!(digest);
    let m = json_file(&m);
    assert_eq!(run(&[os("purchase"), m.as_os_str(), file.as_os_str(), os("--now"), os(NOW)]).status.code(), Some(0));
    let other = json_file(&checkout(400));
    let out = run(&[os("purchase"), m.as_os_str(), other.as_os_str(), os("--now"), os(NOW)]);
    assert!(codes(&doc(&out)).contains(&"mandate_scope_mismatch".to_owned()));
    assert_eq!(run(&[os("checkout-digest"), temp(b"{").as_os_str()]).status.code(), Some(2));
    assert_eq!(run(&[os("checkout-digest")]).status.code(), Some(2));
    // Read strictly, as the check reads it: a merchant id written twice is two carts, and neither is hashed.
    let out = run(&[os("checkout-digest"), temp(br#"{"merchant":{"id":"m_1","id":"m_2"}}"#).as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
    let error = &doc(&out)["error"];
    assert_eq!((&error["code"], &error["path"]), (&json!("duplicate_member"), &json!("/checkout/merchant/id")));
}
