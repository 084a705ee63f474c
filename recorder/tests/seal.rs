//! Sealing a log and starting its successor (issue 43, B1; docs/RECORDER.md §Sealing a log): the way out of a log
//! whose time a wrong clock moved years ahead. A sealed log refuses every write with `sealed`, in every process,
//! while its bundles still verify; the successor's first entry names the sealed log's final head.
#![allow(clippy::panic)]

mod common;

use common::*;
use curbi_recorder::{Recorder, RecorderOptions};
use serde_json::{Value, json};

const DECADE: i64 = 10 * 365 * 86_400;
const SUCCESSOR: &str = "curbi-checkpoint-v1.shop.example/refunds-2";

/// A log with receipt 0 and its head, then poisoned the way the issue found it: one checkpoint at a clock ten years
/// ahead (allowed here by a tolerance as large, as before `max_clock_ahead` existed) after one more receipt.
fn poisoned_log() -> (tempfile::TempDir, std::path::PathBuf, String) {
    let (dir, db, r) = granted_log();
    grow(&r, 1, "rf");
    let first = call(&r, "checkpoint", "{}")["note"].as_str().expect("note").to_string();
    grow(&r, 2, "rf");
    drop(r);
    let mut far = RecorderOptions::new(&db, ORIGIN, key(1, "k1")).fixed_clock(T0 + DECADE);
    far.max_clock_ahead = 2 * DECADE;
    let r = Recorder::open(far).expect("opens");
    assert_eq!(call(&r, "checkpoint", "{}")["size"], 2);
    drop(r);
    (dir, db, first)
}

fn denied_for(answer: &Value) -> bool {
    answer["decision"] == "DENY" && answer["check"].to_string().contains("grant_expired")
}

#[test]
fn a_poisoned_log_is_sealed_and_its_successor_takes_the_writes() {
    let (dir, db, first) = poisoned_log();
    let r = open(&db, 1, "k1", T0 + 60);
    let other = open(&db, 1, "k1", T0 + 60);
    // The symptom: every attest is dated ten years on, past the grant's expiry.
    assert!(denied_for(&call(&r, "attest", &attest_body("rf-late", 100))), "the log is poisoned");
    assert_eq!(call(&r, "status", "{}")["sealed"], Value::Null);

    let head = call(&r, "seal", "{}");
    assert_eq!(head["size"], 2);
    let note = head["note"].as_str().expect("note").to_string();
    assert_eq!(call(&r, "status", "{}")["sealed"], 2);
    assert_eq!(call(&r, "status", "{}")["head"], head, "the final head is the latest");
    assert_eq!(call(&r, "seal", "{}"), head, "sealing again answers the same final head");
    // Every write is refused, here and in another process's recorder opened before the seal.
    for who in [&r, &other] {
        assert_eq!(code_of(who.call_json("attest", attest_body("rf-9", 100).as_bytes())), "sealed");
        assert_eq!(code_of(who.call_json("grant", refund_grant().to_string().as_bytes())), "sealed");
        assert_eq!(code_of(who.call_json("checkpoint", b"{}")), "sealed");
        let done =
            json!({"tenant": "acme", "idempotency_key": "rf-late", "outcome": "DONE", "evidence": evidence(100)});
        assert_eq!(code_of(who.call_json("confirm", done.to_string().as_bytes())), "sealed");
    }
    let mut rotate = RecorderOptions::new(&db, ORIGIN, key(2, "k2")).fixed_clock(T0 + 60);
    rotate.rotate = true;
    assert_eq!(Recorder::open(rotate).map(|_| ()).expect_err("refused").code.as_str(), "sealed");
    // Reads go on, and the sealed log's bundles verify, up to the final head, from a head a customer held.
    let keys = call(&r, "keys", "{}");
    let bundle = call(&r, "bundle", &json!({"receipts": [0, 1], "known": [first]}).to_string());
    let result = verify(&bundle, &keys, std::slice::from_ref(&first));
    assert_eq!(result["ok"], true, "{result}");
    drop((r, other));

    // The successor: a new log whose entry 0 names the final head, dated by the right clock.
    let next = dir.path().join("next.db");
    let s = Recorder::open(RecorderOptions::new(&next, SUCCESSOR, key(1, "k1")).fixed_clock(T0 + 120)).expect("opens");
    let settled = s.record_predecessor(&note).expect("records");
    assert_eq!((settled.status.as_str(), settled.seq), ("DONE", Some(0)));
    let entry = s.receipt(0).expect("entry 0");
    let named: Value = serde_json::from_slice(&entry.evidence).expect("JSON evidence");
    assert_eq!((named["origin"].as_str(), named["head"].as_str()), (Some(ORIGIN), Some(note.as_str())));
    assert_eq!(s.record_predecessor(&note).expect("replays"), settled, "recording it again answers the same");
    call(&s, "grant", &refund_grant().to_string());
    let a = call(&s, "attest", &attest_body("rf-late", 100));
    assert_eq!(a["decision"], "ALLOW", "{a}");
    assert_eq!(settle(&s, "confirm", "rf-late", "DONE", Some(&evidence(100)))["seq"], 1);
    // The successor's bundle of entry 0 verifies under its own keys.
    call(&s, "checkpoint", "{}");
    let bundle = call(&s, "bundle", r#"{"receipts":[0]}"#);
    let result = verify(&bundle, &call(&s, "keys", "{}"), &[]);
    assert_eq!(result["ok"], true, "{result}");
    // Only a new log becomes a successor, of another origin.
    assert_eq!(s.record_predecessor(&first).expect_err("refused").code.as_str(), "conflicting_fields");
    let same = Recorder::open(RecorderOptions::new(dir.path().join("fork.db"), ORIGIN, key(1, "k1")).fixed_clock(T0))
        .expect("opens");
    let e = same.record_predecessor(&note).expect_err("refused");
    assert_eq!((e.code.as_str(), e.path.as_str()), ("invalid_value", "/predecessor"));
    assert_eq!(s.record_predecessor("not a note").expect_err("refused").code.as_str(), "invalid_note");
}

#[test]
fn the_open_document_names_the_predecessor() {
    let (dir, db, _) = poisoned_log();
    let note = open(&db, 1, "k1", T0 + 60).seal().expect("seals").note;
    let key_file = dir.path().join("key.jwk");
    std::fs::write(&key_file, curbi_recorder::keyfile::key_text(&[1; 32], Some("k1"))).expect("writes");
    std::fs::set_permissions(&key_file, std::os::unix::fs::PermissionsExt::from_mode(0o600)).expect("chmod");
    let config = json!({"path": dir.path().join("next.db").to_str().expect("utf-8"), "origin": SUCCESSOR,
                        "key_file": key_file.to_str().expect("utf-8"), "now": T0 + 120, "predecessor": note});
    let s = curbi_recorder::api::open_json(config.to_string().as_bytes()).expect("opens");
    assert_eq!(call(&s, "receipt", r#"{"seq":0}"#)["tenant"], "curbi");
    assert_eq!(call(&s, "status", "{}")["size"], 1);
    drop(s);
    // Reopened with the same document: nothing new.
    let s = curbi_recorder::api::open_json(config.to_string().as_bytes()).expect("reopens");
    assert_eq!(call(&s, "status", "{}")["size"], 1);
}

#[test]
fn a_log_sealed_while_empty_or_at_a_signed_size_keeps_its_heads() {
    let (_dir, _db, r) = granted_log();
    let head = call(&r, "seal", "{}");
    assert_eq!(head["size"], 0);
    assert_eq!(code_of(r.call_json("attest", attest_body("x", 1).as_bytes())), "sealed");
    let (_dir, _db, r) = granted_log();
    grow(&r, 3, "rf");
    let signed = call(&r, "checkpoint", "{}");
    assert_eq!(call(&r, "seal", "{}"), signed, "the size's head already signed is the final one");
}
