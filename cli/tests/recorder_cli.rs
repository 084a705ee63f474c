//! `curbi recorder` end to end: a key generated, a log created, seed 003's qualification (a 50-cent refund, a lost
//! readback, a restart, GET-only recovery, one receipt) run through separate processes, and the bundle it hands out
//! verified by `curbi verify` with the JWKS it publishes.
#![allow(clippy::panic)]

mod common;

use std::path::PathBuf;
use std::process::Output;

use common::{answer, json_file as file, recorder_curbi as curbi};
use serde_json::{Value, json};

#[test]
fn the_seed_qualification_through_the_command_line() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("recorder-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let key = dir.join("key.jwk");
    let key = key.to_str().expect("utf-8");
    let db = dir.join("log.db");
    let db = db.to_str().expect("utf-8");
    let g = curbi(&["recorder", "keys", "generate", "--out", key, "--kid", "shop-2026"]);
    assert_eq!((g.status.code(), answer(&g)["kid"].as_str()), (Some(0), Some("shop-2026")));
    assert_eq!(curbi(&["recorder", "keys", "generate", "--out", key]).status.code(), Some(2), "never overwritten");
    let base = ["--db", db, "--key", key];
    let run = |sub: &str, extra: &[&str]| -> Output {
        let mut args = vec!["recorder", sub];
        args.extend(base);
        args.extend(extra);
        curbi(&args)
    };
    let init = run("init", &["--origin", "curbi-checkpoint-v1.shop.example/refunds"]);
    assert_eq!((init.status.code(), answer(&init)["size"].as_u64()), (Some(0), Some(0)));
    let grant = json!({"id": "g1", "agent": "agent:support", "operations": ["billing.refund"], "resources": ["charge:*"],
                       "limits": {"max_amount": 1000, "currency": "USD"}, "expires_at": "2099-01-01T00:00:00Z"});
    assert_eq!(run("grant", &[&file(&dir, "grant.json", &grant)]).status.code(), Some(0));
    let refund = json!({"tenant": "shop", "idempotency_key": "rf-50c", "grant": "g1",
                        "action": {"agent": "agent:support", "operation": "billing.refund", "resource": "charge:ch_9",
                                   "amount": 50, "currency": "USD"}});
    let a = run("attest", &[&file(&dir, "attest.json", &refund)]);
    assert_eq!((a.status.code(), answer(&a)["decision"].as_str()), (Some(0), Some("ALLOW")));
    let over = json!({"tenant": "shop", "idempotency_key": "rf-big", "grant": "g1",
                      "action": {"agent": "agent:support", "operation": "billing.refund", "resource": "charge:ch_9",
                                 "amount": 5000, "currency": "USD"}});
    let denied = run("attest", &[&file(&dir, "over.json", &over)]);
    assert_eq!((denied.status.code(), answer(&denied)["decision"].as_str()), (Some(1), Some("DENY")));
    let lost = json!({"tenant": "shop", "idempotency_key": "rf-50c", "outcome": "UNKNOWN"});
    assert_eq!(answer(&run("confirm", &[&file(&dir, "lost.json", &lost)]))["status"], "HELD");
    let held = answer(&run("held", &[]));
    assert_eq!(held["actions"][0]["idempotency_key"], "rf-50c");
    let evidence =
        r#"{"id":"re_9","operation":"billing.refund","resource":"charge:ch_9","amount":50,"currency":"usd"}"#;
    let found = json!({"tenant": "shop", "idempotency_key": "rf-50c", "outcome": "DONE", "evidence": evidence});
    let settled = answer(&run("reconcile", &[&file(&dir, "found.json", &found)]));
    assert_eq!((settled["status"].as_str(), settled["seq"].as_u64()), (Some("DONE"), Some(0)));
    let bad = run(
        "reconcile",
        &[&file(
            &dir,
            "again.json",
            &json!({"tenant": "shop", "idempotency_key": "rf-50c", "outcome": "NOT_PERFORMED"}),
        )],
    );
    assert_eq!((bad.status.code(), answer(&bad)["error"]["code"].as_str()), (Some(2), Some("outcome_conflict")));
    let head = answer(&run("checkpoint", &[]));
    assert_eq!(head["size"], 1);
    std::fs::write(dir.join("head.txt"), head["note"].as_str().expect("note")).expect("writes");
    let bundle = run("bundle", &["--seq", "0"]);
    assert_eq!(bundle.status.code(), Some(0), "{}", String::from_utf8_lossy(&bundle.stdout));
    std::fs::write(dir.join("bundle.json"), &bundle.stdout).expect("writes");
    let keys = dir.join("keys.json");
    assert_eq!(run("keys", &["--out", keys.to_str().expect("utf-8")]).status.code(), Some(0));
    let receipt = answer(&run("receipt", &["0"]));
    assert_eq!(receipt["evidence"], evidence, "the provider's answer, as received");
    let v = curbi(&[
        "verify",
        dir.join("bundle.json").to_str().expect("utf-8"),
        "--keys",
        keys.to_str().expect("utf-8"),
        "--known",
        dir.join("head.txt").to_str().expect("utf-8"),
    ]);
    assert_eq!(v.status.code(), Some(0), "{}", String::from_utf8_lossy(&v.stdout));
    assert_eq!(answer(&v)["ok"], true);
    // Published as tiles, the same receipt comes back as a bundle from the directory alone, which verifies.
    let public = dir.join("public");
    let public = public.to_str().expect("utf-8");
    let p = answer(&run("publish", &["--dir", public]));
    assert_eq!((p["size"].as_u64(), p["files"].as_u64()), (Some(1), Some(2)), "{p}");
    let from_tiles = curbi(&["tiles", "bundle", "--from", public, "--index", "0", "--keys", keys.to_str().expect("k")]);
    assert_eq!(from_tiles.status.code(), Some(0), "{}", String::from_utf8_lossy(&from_tiles.stdout));
    assert_eq!(answer(&from_tiles)["receipts"][0]["receipt"], answer(&bundle)["receipts"][0]["receipt"]);
    std::fs::write(dir.join("tiles-bundle.json"), &from_tiles.stdout).expect("writes");
    let v =
        curbi(&["verify", dir.join("tiles-bundle.json").to_str().expect("utf-8"), "--keys", keys.to_str().expect("k")]);
    assert_eq!(answer(&v)["ok"], true, "{}", String::from_utf8_lossy(&v.stdout));
    let past = curbi(&["tiles", "bundle", "--from", public, "--index", "1"]);
    assert_eq!((past.status.code(), answer(&past)["error"]["code"].as_str()), (Some(2), Some("unknown_receipt")));
    // The key never appears in what the command prints.
    let secret: Value = serde_json::from_str(&std::fs::read_to_string(key).expect("key")).expect("JSON");
    let d = secret["d"].as_str().expect("d");
    for o in [&a, &bundle, &init] {
        assert!(!String::from_utf8_lossy(&o.stdout).contains(d) && !String::from_utf8_lossy(&o.stderr).contains(d));
    }
    let unreadable = curbi(&["recorder", "status", "--db", db, "--key-env", "CURBI_NO_SUCH_VAR"]);
    assert_eq!(
        (unreadable.status.code(), answer(&unreadable)["error"]["code"].as_str()),
        (Some(2), Some("invalid_key_file"))
    );
}
