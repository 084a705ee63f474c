//! The recorder's clock (issue 43, B1): a read never moves the log's time, and a write whose clock is further ahead
//! of the last time the log used than `max_clock_ahead` is refused with `clock_ahead` before anything is signed.
#![allow(clippy::panic)]

mod common;

use common::*;
use curbi_recorder::{DEFAULT_MAX_CLOCK_AHEAD, Recorder, RecorderOptions};
use serde_json::{Value, json};

/// Ten years, give or take leap days: a clock this far ahead is the bug report's.
const DECADE: i64 = 10 * 365 * 86_400;

/// The `iat` (issued at) of a compact receipt: its payload's claim.
fn iat(receipt: &str) -> i64 {
    let payload = receipt.split('.').nth(1).unwrap_or_else(|| panic!("not compact: {receipt}"));
    let bytes = curbi::encoding::decode_url(payload).expect("base64url");
    let claims: Value = serde_json::from_slice(&bytes).expect("JSON claims");
    claims["iat"].as_i64().unwrap_or_else(|| panic!("no iat in {claims}"))
}

/// Attests and confirms refund `key` on `r`, returns the receipt's `iat`; the grant must still be good.
fn refund_at(r: &Recorder, key: &str) -> i64 {
    let a = call(r, "attest", &attest_body(key, 100));
    assert_eq!(a["decision"], "ALLOW", "{a}");
    let s = settle(r, "confirm", key, "DONE", Some(&evidence(100)));
    iat(s["receipt"].as_str().unwrap_or_else(|| panic!("no receipt: {s}")))
}

/// Every read-only call of the JSON API, on a log holding receipt 0 and a head.
fn every_read(r: &Recorder) {
    call(r, "status", "{}");
    call(r, "keys", "{}");
    call(r, "receipt", r#"{"seq":0}"#);
    call(r, "held", r#"{"limit":10}"#);
    call(r, "receipts", r#"{"subject":"charge:ch_1"}"#);
    call(r, "bundle", r#"{"receipts":[0]}"#);
}

fn log_with_a_receipt() -> (tempfile::TempDir, std::path::PathBuf) {
    let (dir, db, r) = granted_log();
    assert_eq!(refund_at(&r, "rf-0"), T0);
    call(&r, "checkpoint", "{}");
    (dir, db)
}

#[test]
fn opening_and_reading_with_a_clock_years_ahead_moves_no_time() {
    let (_dir, db) = log_with_a_receipt();
    {
        let r = open(&db, 1, "k1", T0 + DECADE);
        every_read(&r);
    }
    // The log's next write is dated by the right clock, and the grant (good until 2027) still allows.
    let r = open(&db, 1, "k1", T0 + 60);
    assert_eq!(refund_at(&r, "rf-1"), T0 + 60);
}

#[test]
fn a_checkpoint_with_a_clock_years_ahead_is_refused_and_signs_nothing() {
    let (_dir, db) = log_with_a_receipt();
    let head = {
        let r = open(&db, 1, "k1", T0 + 30);
        call(&r, "status", "{}")["head"].clone()
    };
    {
        let r = open(&db, 1, "k1", T0 + DECADE);
        // Grow the log by nothing new: the checkpoint alone would be the write that moves the time.
        assert_eq!(code_of(r.call_json("checkpoint", b"{}")), "clock_ahead");
        assert_eq!(code_of(r.call_json("attest", attest_body("rf-far", 100).as_bytes())), "clock_ahead");
        assert_eq!(code_of(r.call_json("grant", refund_grant().to_string().as_bytes())), "clock_ahead");
        assert_eq!(call(&r, "status", "{}")["head"], head, "no head was signed");
        assert_eq!(call(&r, "held", r#"{"limit":10}"#)["actions"], json!([]), "nothing was attested");
    }
    let r = open(&db, 1, "k1", T0 + 60);
    assert_eq!(refund_at(&r, "rf-1"), T0 + 60);
}

#[test]
fn a_clock_within_the_tolerance_signs_and_its_time_is_kept() {
    let (_dir, db) = log_with_a_receipt();
    let r = open(&db, 1, "k1", T0 + DEFAULT_MAX_CLOCK_AHEAD);
    assert_eq!(refund_at(&r, "rf-1"), T0 + DEFAULT_MAX_CLOCK_AHEAD, "exactly the tolerance ahead signs");
    drop(r);
    // A clock stepped back signs at the last time used, never before it.
    let r = open(&db, 1, "k1", T0 + 60);
    assert_eq!(refund_at(&r, "rf-2"), T0 + DEFAULT_MAX_CLOCK_AHEAD);
    // The tolerance counts from the last time used: one more second beyond it is refused.
    r.set_clock(T0 + 2 * DEFAULT_MAX_CLOCK_AHEAD + 1).expect("fixed clock");
    assert_eq!(code_of(r.call_json("attest", attest_body("rf-3", 100).as_bytes())), "clock_ahead");
    r.set_clock(T0 + 2 * DEFAULT_MAX_CLOCK_AHEAD).expect("fixed clock");
    assert_eq!(refund_at(&r, "rf-3"), T0 + 2 * DEFAULT_MAX_CLOCK_AHEAD);
}

#[test]
fn the_tolerance_is_a_setting_and_a_log_idle_longer_opens_with_a_larger_one() {
    let (_dir, db) = log_with_a_receipt();
    let at = T0 + 40 * 86_400;
    // The JSON options document (what the C ABI, Go, Python, Node and the CLI pass) reaches the setting.
    let key_file = db.with_file_name("key.jwk");
    std::fs::write(&key_file, curbi_recorder::keyfile::key_text(&[1; 32], Some("k1"))).expect("writes");
    std::fs::set_permissions(&key_file, std::os::unix::fs::PermissionsExt::from_mode(0o600)).expect("chmod");
    let config = |max: Value| {
        let mut c =
            json!({"path": db.to_str().expect("utf-8"), "now": at, "key_file": key_file.to_str().expect("utf-8")});
        if !max.is_null() {
            c["max_clock_ahead"] = max;
        }
        c.to_string()
    };
    for bad in [json!(0), json!(-1), json!("7d"), json!(1.5)] {
        let e = curbi_recorder::api::open_json(config(bad.clone()).as_bytes()).expect_err("refused");
        assert_eq!(e.path, "/max_clock_ahead", "{bad}: {e}");
    }
    // Idle 40 days: the default (7 days) refuses, a larger setting signs at the clock.
    let r = curbi_recorder::api::open_json(config(Value::Null).as_bytes()).expect("opens");
    assert_eq!(code_of(r.call_json("attest", attest_body("rf-idle", 100).as_bytes())), "clock_ahead");
    drop(r);
    let r = curbi_recorder::api::open_json(config(json!(60 * 86_400)).as_bytes()).expect("opens");
    assert_eq!(refund_at(&r, "rf-idle"), at);
    drop(r);
    // And the Rust options.
    let mut options = RecorderOptions::new(&db, ORIGIN, key(1, "k1")).fixed_clock(at + 50 * 86_400);
    assert_eq!(code_of(Recorder::open(options.clone()).expect("opens").call_json("checkpoint", b"{}")), "clock_ahead");
    options.max_clock_ahead = 60 * 86_400;
    assert_eq!(call(&Recorder::open(options).expect("opens"), "checkpoint", "{}")["size"], 2);
}

#[test]
fn a_new_key_is_dated_under_the_same_rule() {
    let (_dir, db) = log_with_a_receipt();
    let far = RecorderOptions::new(&db, ORIGIN, key(2, "k2")).fixed_clock(T0 + DECADE);
    let mut far = far;
    far.rotate = true;
    assert_eq!(Recorder::open(far).map(|_| ()).expect_err("refused").code.as_str(), "clock_ahead");
    let r = open(&db, 1, "k1", T0 + 60);
    assert_eq!(refund_at(&r, "rf-1"), T0 + 60, "the old key is still the active one");
}

/// A generator over the class: any sequence of opens and reads, at any clock (years ahead, behind, or on time),
/// leaves the next write dated by the right clock.
#[test]
fn no_sequence_of_reads_at_any_clock_moves_the_time() {
    let (_dir, db) = log_with_a_receipt();
    // A small linear congruential generator: the sequences are the same on every run.
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        state >> 33
    };
    let reads = ["status", "keys", "receipt", "held", "receipts", "bundle"];
    for round in 0..12 {
        let offset = match next() % 4 {
            0 => -(next() as i64 % DECADE),
            1 => next() as i64 % DEFAULT_MAX_CLOCK_AHEAD,
            _ => DEFAULT_MAX_CLOCK_AHEAD + 1 + next() as i64 % (100 * DECADE),
        };
        let r = open(&db, 1, "k1", T0 + offset);
        for _ in 0..1 + next() % 4 {
            let body = match reads[(next() % 6) as usize] {
                "receipt" => ("receipt", r#"{"seq":0}"#),
                "held" => ("held", r#"{"limit":5}"#),
                "receipts" => ("receipts", r#"{"subject":"charge:ch_1"}"#),
                "bundle" => ("bundle", r#"{"receipts":[0]}"#),
                other => (other, "{}"),
            };
            call(&r, body.0, body.1);
        }
        drop(r);
        let _ = round;
    }
    let r = open(&db, 1, "k1", T0 + 60);
    assert_eq!(refund_at(&r, "rf-after"), T0 + 60);
}
