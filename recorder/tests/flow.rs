//! The recorder's flow on a real SQLite file: grant → attest → confirm → receipt → checkpoint → bundle, restarts,
//! idempotency, held actions, key rotation and the schema's own rules.

mod common;

use common::*;
use serde_json::{Value, json};

#[test]
fn a_refund_is_attested_confirmed_logged_and_verifies_offline_after_a_restart() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("log.db");
    let r = open(&db, 1, "k1", T0);
    assert_eq!(call(&r, "grant", &refund_grant().to_string()), json!({"id": "g-refunds", "used": 0}));
    let attested = r.call_json("attest", attest_body("rf-1", 4000).as_bytes()).expect("attests");
    let a: Value = serde_json::from_str(&attested).expect("JSON");
    assert_eq!(a["decision"], "ALLOW");
    let settled = settle(&r, "confirm", "rf-1", "DONE", Some(&evidence(4000)));
    assert_eq!((settled["status"].as_str(), settled["seq"].as_u64()), (Some("DONE"), Some(0)));
    let head1 = call(&r, "checkpoint", "{}");
    assert_eq!(head1["size"], 1);
    let bundle = call(&r, "bundle", r#"{"receipts":[0]}"#);
    let keys = call(&r, "keys", "{}");
    let result = verify(&bundle, &keys, &[]);
    assert_eq!(result["ok"], true, "{result}");
    drop(r);

    // Reopened: the same request replays the same bytes, the same outcome the same receipt, and the log goes on.
    let r = open(&db, 1, "k1", T0 + 60);
    assert_eq!(r.call_json("attest", attest_body("rf-1", 4000).as_bytes()).expect("replays"), attested);
    assert_eq!(settle(&r, "confirm", "rf-1", "DONE", Some(&evidence(4000))), settled);
    assert_eq!(code_of(r.call_json("attest", attest_body("rf-1", 4500).as_bytes())), "idempotency_conflict");
    let other = json!({"tenant": "acme", "idempotency_key": "rf-1", "outcome": "FAILED", "evidence": evidence(4000)});
    assert_eq!(code_of(r.call_json("confirm", other.to_string().as_bytes())), "outcome_conflict");
    call(&r, "attest", &attest_body("rf-2", 1000));
    assert_eq!(settle(&r, "confirm", "rf-2", "DONE", Some(&evidence(1000)))["seq"], 1);
    assert_eq!(call(&r, "checkpoint", "{}")["size"], 2);
    // The size-1 head is not signed again: the same note comes back for a size already signed.
    let held_head = head1["note"].as_str().expect("note").to_string();
    let request = json!({"actions": [{"tenant": "acme", "idempotency_key": "rf-1"}], "known": [held_head]});
    let by_action = call(&r, "bundle", &request.to_string());
    let result = verify(&by_action, &keys, &[held_head]);
    assert_eq!(result["ok"], true, "{result}");
    assert_eq!(call(&r, "grant", &refund_grant().to_string())["used"], 2, "the recorder counted both uses");
}

#[test]
fn what_the_action_check_refuses_or_steps_up_issues_nothing_until_confirmed() {
    let (_dir, _, r) = granted_log();
    let over = call(&r, "attest", &attest_body("big", 20_000));
    assert_eq!(over["decision"], "DENY");
    assert!(over.get("attestation").is_none());
    let step = call(&r, "attest", &attest_body("mid", 6000));
    assert_eq!(step["decision"], "STEP_UP");
    assert!(step.get("attestation").is_none(), "nothing issued until the step-up is confirmed");
    assert_eq!(call(&r, "grant", &refund_grant().to_string())["used"], 0);
    let mut confirmed: Value = serde_json::from_str(&attest_body("mid", 6000)).expect("JSON");
    confirmed["step_up_confirmed"] = true.into();
    let a = call(&r, "attest", &confirmed.to_string());
    assert_eq!(a["decision"], "STEP_UP");
    assert!(a["attestation"].is_string());
    let unknown = attest_body("x", 10).replace("g-refunds", "g-none");
    assert_eq!(code_of(r.call_json("attest", unknown.as_bytes())), "unknown_grant");
    let mut changed = refund_grant();
    changed["resources"] = json!(["charge:ch_9"]);
    assert_eq!(code_of(r.call_json("grant", changed.to_string().as_bytes())), "grant_conflict");
    let mut counted = refund_grant();
    counted["used"] = 0.into();
    assert_eq!(code_of(r.call_json("grant", counted.to_string().as_bytes())), "unknown_field");
}

#[test]
fn unknown_holds_nothing_is_logged_and_reconcile_settles_exactly_once() {
    let (_dir, db, r) = granted_log();
    for key in ["lost-1", "lost-2", "never"] {
        call(&r, "attest", &attest_body(key, 300));
    }
    assert_eq!(settle(&r, "confirm", "lost-1", "UNKNOWN", None)["status"], "HELD");
    assert_eq!(settle(&r, "confirm", "lost-2", "UNKNOWN", None)["status"], "HELD");
    assert_eq!(call(&r, "status", "{}")["size"], 0, "an UNKNOWN outcome never enters the log");
    drop(r);
    let r = open(&db, 1, "k1", T0 + 3600);
    let held = call(&r, "held", "{}");
    let listed: Vec<(&str, &str)> = held["actions"]
        .as_array()
        .expect("list")
        .iter()
        .map(|a| (a["idempotency_key"].as_str().unwrap_or(""), a["state"].as_str().unwrap_or("")))
        .collect();
    assert_eq!(listed, vec![("lost-1", "held"), ("lost-2", "held"), ("never", "attested")]);
    let e = json!({"tenant": "acme", "idempotency_key": "lost-1", "outcome": "DONE", "evidence": evidence(300)});
    assert_eq!(code_of(r.call_json("confirm", e.to_string().as_bytes())), "held", "only reconcile settles it");
    assert_eq!(settle(&r, "reconcile", "lost-1", "DONE", Some(&evidence(300)))["seq"], 0);
    assert_eq!(settle(&r, "reconcile", "lost-1", "DONE", Some(&evidence(300)))["seq"], 0, "a replay");
    assert_eq!(settle(&r, "reconcile", "lost-2", "NOT_PERFORMED", None)["status"], "RELEASED");
    assert_eq!(settle(&r, "reconcile", "never", "FAILED", Some(&evidence(300)))["status"], "FAILED");
    assert_eq!(code_of(r.call_json("attest", attest_body("lost-2", 300).as_bytes())), "released");
    assert_eq!(call(&r, "held", "{}")["actions"], json!([]));
    assert_eq!(call(&r, "grant", &refund_grant().to_string())["used"], 2, "the released use was returned");
    let mismatch = json!({"tenant": "acme", "idempotency_key": "x", "outcome": "DONE", "evidence": evidence(300)});
    assert_eq!(code_of(r.call_json("confirm", mismatch.to_string().as_bytes())), "not_attested");
}

#[test]
fn evidence_must_name_the_attested_mutation() {
    let (_dir, _, r) = granted_log();
    call(&r, "attest", &attest_body("e", 4000));
    for (bad, code) in [
        (evidence(40_000), "evidence_mismatch"),
        ("not json".to_string(), "invalid_evidence"),
        (evidence(4000).replace("ch_1", "ch_2"), "evidence_mismatch"),
        (evidence(4000).replace("usd", "eur"), "evidence_mismatch"),
    ] {
        let body = json!({"tenant": "acme", "idempotency_key": "e", "outcome": "DONE", "evidence": bad});
        let got = r.call_json("confirm", body.to_string().as_bytes()).expect_err("refused");
        assert_eq!((got.code.as_str(), got.path.as_str()), (code, "/evidence"), "{bad}");
    }
    assert_eq!(call(&r, "status", "{}")["size"], 0);
}

#[test]
fn a_rotated_key_keeps_old_receipts_verifiable_and_a_retired_key_never_signs_again() {
    let (_dir, db, r) = granted_log();
    call(&r, "attest", &attest_body("old", 100));
    settle(&r, "confirm", "old", "DONE", Some(&evidence(100)));
    let old_head = call(&r, "checkpoint", "{}")["note"].as_str().expect("note").to_string();
    drop(r);
    let other = curbi_recorder::RecorderOptions::new(&db, ORIGIN, key(2, "k2")).fixed_clock(T0 + 86_400);
    assert_eq!(curbi_recorder::Recorder::open(other.clone()).map_err(|e| e.code.as_str()).err(), Some("key_mismatch"));
    let mut rotate = other;
    rotate.rotate = true;
    let r = curbi_recorder::Recorder::open(rotate).expect("rotates");
    call(&r, "attest", &attest_body("new", 100));
    settle(&r, "confirm", "new", "DONE", Some(&evidence(100)));
    call(&r, "checkpoint", "{}");
    let keys = call(&r, "keys", "{}");
    let windows: Vec<(&str, Option<i64>, Option<i64>)> = keys["keys"]
        .as_array()
        .expect("keys")
        .iter()
        .map(|k| (k["kid"].as_str().unwrap_or(""), k["curbi:nbf"].as_i64(), k["curbi:exp"].as_i64()))
        .collect();
    assert_eq!(windows, vec![("k1", Some(T0), Some(T0 + 86_401)), ("k2", Some(T0 + 86_401), None)]);
    let bundle = call(&r, "bundle", &json!({"receipts": [0, 1], "known": [old_head]}).to_string());
    let result = verify(&bundle, &keys, &[old_head]);
    assert_eq!(result["ok"], true, "{result}");
    drop(r);
    let back = curbi_recorder::RecorderOptions::new(&db, ORIGIN, key(1, "k1")).fixed_clock(T0 + 90_000);
    assert_eq!(curbi_recorder::Recorder::open(back).map_err(|e| e.code.as_str()).err(), Some("key_mismatch"));
}

#[test]
fn the_schema_itself_refuses_a_second_receipt_gaps_and_rewrites() {
    let (_dir, db, r) = granted_log();
    call(&r, "attest", &attest_body("one", 100));
    settle(&r, "confirm", "one", "DONE", Some(&evidence(100)));
    call(&r, "checkpoint", "{}");
    drop(r);
    let c = rusqlite::Connection::open(&db).expect("opens");
    c.execute(
        "INSERT INTO actions (tenant, idempotency_key, request_hash, grant_id, state, answer, attestation, created, \
         updated) VALUES ('acme', 'two', zeroblob(32), 'g-refunds', 'attested', '{}', 'x', 0, 0)",
        [],
    )
    .expect("an action without a receipt may be added");
    // Nodes are append-only: one may be added (a level-9 node no proof reads), none changed or removed.
    c.execute("INSERT INTO nodes (level, idx, hash) VALUES (9, 0, zeroblob(32))", []).expect("a node may be added");
    for sql in [
        // A second receipt for the action that has one.
        "INSERT INTO receipts (seq, action, status, receipt, evidence, created) \
         SELECT 1, id, 'DONE', 'x', x'', 0 FROM actions WHERE idempotency_key = 'one'",
        // A gap in the numbering (for an action with no receipt yet).
        "INSERT INTO receipts (seq, action, status, receipt, evidence, created) \
         SELECT 5, id, 'DONE', 'x', x'', 0 FROM actions WHERE idempotency_key = 'two'",
        "UPDATE receipts SET receipt = 'x' WHERE seq = 0",
        "DELETE FROM receipts",
        "UPDATE nodes SET hash = x'01' || zeroblob(31)",
        "DELETE FROM nodes",
        "UPDATE heads SET note = 'x'",
        "UPDATE actions SET state = 'attested'",
    ] {
        assert!(c.execute(sql, []).is_err(), "the schema must refuse: {sql}");
    }
}

#[test]
fn requests_are_read_strictly_with_paths() {
    let dir = tempfile::tempdir().expect("dir");
    let r = open(&dir.path().join("log.db"), 1, "k1", T0);
    for (method, body, code, path) in [
        ("attest", r#"{"tenant":"a","tenant":"b"}"#, "duplicate_member", "/tenant"),
        (
            "attest",
            r#"{"tenant":"a","idempotency_key":"k","grant":"g","action":{"agent":"x","operation":"o","resource":"r","amount":1.5,"currency":"USD"}}"#,
            "invalid_type",
            "/action/amount",
        ),
        (
            "attest",
            r#"{"tenant":"a","idempotency_key":"k","grant":"g","action":{},"extra":1}"#,
            "unknown_field",
            "/extra",
        ),
        ("confirm", r#"{"tenant":"a","idempotency_key":"k","outcome":"DONE"}"#, "missing_field", "/evidence"),
        ("confirm", r#"{"tenant":"a","idempotency_key":"k","outcome":"NOT_PERFORMED"}"#, "invalid_enum", "/outcome"),
        ("reconcile", r#"{"tenant":"a","idempotency_key":"k","outcome":"UNKNOWN"}"#, "invalid_enum", "/outcome"),
        ("bundle", r#"{"receipts":[0],"actions":[]}"#, "conflicting_fields", "/actions"),
        ("bundle", r#"{"receipts":[0]}"#, "no_head", "/head"),
        ("receipt", r#"{"seq":0}"#, "unknown_receipt", "/seq"),
        ("held", r#"{"limit":0}"#, "out_of_range", "/limit"),
        ("nope", "{}", "not_found", ""),
        ("set_clock", r#"{"now":"soon"}"#, "invalid_type", "/now"),
    ] {
        let e = r.call_json(method, body.as_bytes()).expect_err(body);
        assert_eq!((e.code.as_str(), e.path.as_str()), (code, path), "{method} {body}: {e}");
    }
}

/// A build without the PostgreSQL store says so for a URL, without the URL's password.
#[cfg(not(feature = "postgres"))]
#[test]
fn a_postgres_url_without_the_feature_is_unsupported() {
    let url = "postgres://shop:hunter2@db.internal/log";
    let options = curbi_recorder::RecorderOptions::new(url, ORIGIN, key(1, "k1")).fixed_clock(T0);
    let e = curbi_recorder::Recorder::open(options).expect_err("no PostgreSQL store in this build");
    assert_eq!((e.code.as_str(), e.path.as_str()), ("unsupported", "/path"), "{e}");
    assert!(!e.message.contains("hunter2") && e.message.contains("shop:***@db.internal"), "{e}");
}
