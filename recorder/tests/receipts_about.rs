//! The recorder hands out the receipts of a subject or a conversation (`receipts`), to check an agent's reply
//! against: found by index, newest first within the limit and given in log order, kept across a restart, and
//! rebuilt for a schema 1 file when it is first opened by this build.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use serde_json::{Value, json};

fn attest_in(key: &str, amount: i64, conversation: Option<&str>) -> String {
    let mut body: Value = serde_json::from_str(&attest_body(key, amount)).expect("JSON");
    if let Some(c) = conversation {
        body["conversation"] = c.into();
    }
    body.to_string()
}

fn receipts(r: &curbi_recorder::Recorder, request: Value) -> Vec<String> {
    let answer = call(r, "receipts", &request.to_string());
    answer["receipts"].as_array().expect("receipts").iter().map(|v| v.as_str().expect("compact").to_owned()).collect()
}

#[test]
fn receipts_by_conversation_and_subject() {
    let (_dir, db, r) = granted_log();
    for (key, conv) in [("a", Some("chat-1")), ("b", Some("chat-2")), ("c", Some("chat-1")), ("d", None)] {
        call(&r, "attest", &attest_in(key, 1000, conv));
        settle(&r, "confirm", key, "DONE", Some(&evidence(1000)));
    }
    // Held actions have no receipt: nothing to hand out for them.
    call(&r, "attest", &attest_in("held", 1000, Some("chat-1")));
    settle(&r, "confirm", "held", "UNKNOWN", None);
    let seq_of = |key: &str| call(&r, "receipt", &json!({"tenant": "acme", "idempotency_key": key}).to_string());
    let (a, c) = (seq_of("a")["receipt"].clone(), seq_of("c")["receipt"].clone());
    assert_eq!(receipts(&r, json!({"conversation": "chat-1"})), vec![a.as_str().unwrap(), c.as_str().unwrap()]);
    assert_eq!(receipts(&r, json!({"conversation": "chat-1", "limit": 1})), vec![c.as_str().unwrap()], "the newest");
    assert_eq!(receipts(&r, json!({"conversation": "nobody"})), Vec::<String>::new());
    assert_eq!(receipts(&r, json!({"subject": "charge:ch_1"})).len(), 4, "every receipt about the charge");
    assert_eq!(code_of(r.call_json("receipts", b"{}")), "missing_field");
    let both = json!({"subject": "charge:ch_1", "conversation": "chat-1"}).to_string();
    assert_eq!(code_of(r.call_json("receipts", both.as_bytes())), "conflicting_fields");
    assert_eq!(code_of(r.call_json("receipts", br#"{"subject":"x","limit":51}"#)), "out_of_range");
    assert_eq!(code_of(r.call_json("attest", attest_in("e", 10, Some("")).as_bytes())), "invalid_value");
    drop(r);
    let r = open(&db, 1, "k1", T0 + 60);
    assert_eq!(receipts(&r, json!({"conversation": "chat-1"})).len(), 2, "kept across a restart");
}

#[test]
fn a_schema_1_file_gains_its_subjects_on_first_open() {
    let (_dir, db, r) = granted_log();
    call(&r, "attest", &attest_in("old", 1000, None));
    settle(&r, "confirm", "old", "DONE", Some(&evidence(1000)));
    drop(r);
    // Make the file what a schema 1 build left: no subjects table, no conversation column, version 1.
    let c = rusqlite::Connection::open(&db).expect("sqlite");
    c.execute_batch(
        "DROP TABLE receipt_subjects; ALTER TABLE actions DROP COLUMN conversation; \
         UPDATE meta SET value = '1' WHERE name = 'schema';",
    )
    .expect("downgrade");
    drop(c);
    let r = open(&db, 1, "k1", T0 + 60);
    assert_eq!(receipts(&r, json!({"subject": "charge:ch_1"})).len(), 1, "the old receipt is found by subject");
    call(&r, "attest", &attest_in("new", 1000, Some("chat-9")));
    settle(&r, "confirm", "new", "DONE", Some(&evidence(1000)));
    assert_eq!(receipts(&r, json!({"conversation": "chat-9"})).len(), 1);
    assert_eq!(call(&r, "status", "{}")["size"], 2);
}
