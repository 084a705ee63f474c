//! `curbi recorder` and the log's clock (issue 43, B1), through separate processes: a read at a clock years ahead
//! moves no time, a write at such a clock is refused with `clock_ahead` (exit 2) before anything is signed, and
//! `--max-clock-ahead` is the setting that lets a log idle longer than the default sign again.
#![allow(clippy::panic)]

mod common;

use std::path::PathBuf;
use std::process::Output;

use common::{answer, json_file as file, recorder_curbi as curbi};
use serde_json::{Value, json};

/// 2026-11-03T12:00:00Z.
const T0: i64 = 1_793_714_400;
const DECADE: i64 = 10 * 365 * 86_400;

/// The `iat` claim of a compact receipt.
fn iat(receipt: &Value) -> i64 {
    let text = receipt.as_str().unwrap_or_else(|| panic!("no receipt: {receipt}"));
    let payload = text.split('.').nth(1).expect("compact");
    let claims: Value =
        serde_json::from_slice(&curbi::encoding::decode_url(payload).expect("base64url")).expect("JSON");
    claims["iat"].as_i64().expect("iat")
}

struct Log {
    dir: PathBuf,
    db: String,
    key: String,
}

impl Log {
    fn new(tag: &str) -> Log {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("clock-cli-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        let key = dir.join("key.jwk").to_string_lossy().into_owned();
        let db = dir.join("log.db").to_string_lossy().into_owned();
        assert_eq!(curbi(&["recorder", "keys", "generate", "--out", &key]).status.code(), Some(0));
        let log = Log { dir, db, key };
        let init = log.run("init", T0, &["--origin", "curbi-checkpoint-v1.shop.example/clock"]);
        assert_eq!(init.status.code(), Some(0), "{}", String::from_utf8_lossy(&init.stdout));
        let grant = json!({"id": "g1", "agent": "agent:support", "operations": ["billing.refund"],
                           "resources": ["charge:*"], "expires_at": "2027-06-01T00:00:00Z"});
        assert_eq!(log.run("grant", T0, &[&file(&log.dir, "grant.json", &grant)]).status.code(), Some(0));
        log
    }

    fn run(&self, sub: &str, now: i64, extra: &[&str]) -> Output {
        let now = now.to_string();
        let mut args = vec!["recorder", sub, "--db", &self.db, "--key", &self.key, "--now", &now];
        args.extend(extra);
        curbi(&args)
    }

    /// Attests and confirms refund `key` at `now`; the receipt's `iat`.
    fn refund(&self, key: &str, now: i64, extra: &[&str]) -> i64 {
        let action = json!({"tenant": "shop", "idempotency_key": key, "grant": "g1",
                            "action": {"agent": "agent:support", "operation": "billing.refund",
                                       "resource": "charge:ch_1", "amount": 50, "currency": "USD"}});
        let mut args = vec![file(&self.dir, &format!("{key}.json"), &action)];
        args.extend(extra.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let a = self.run("attest", now, &args);
        assert_eq!((a.status.code(), answer(&a)["decision"].as_str()), (Some(0), Some("ALLOW")), "{}", answer(&a));
        let evidence =
            r#"{"id":"re_1","operation":"billing.refund","resource":"charge:ch_1","amount":50,"currency":"usd"}"#;
        let done = json!({"tenant": "shop", "idempotency_key": key, "outcome": "DONE", "evidence": evidence});
        let mut args = vec![file(&self.dir, &format!("{key}-done.json"), &done)];
        args.extend(extra.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let c = self.run("confirm", now, &args);
        assert_eq!(c.status.code(), Some(0), "{}", answer(&c));
        iat(&answer(&c)["receipt"])
    }
}

#[test]
fn status_and_reads_at_a_clock_years_ahead_move_no_time() {
    let log = Log::new("reads");
    assert_eq!(log.refund("rf-0", T0, &[]), T0);
    assert_eq!(log.run("checkpoint", T0, &[]).status.code(), Some(0));
    for (sub, extra) in
        [("status", vec![]), ("keys", vec![]), ("receipt", vec!["0"]), ("held", vec![]), ("bundle", vec!["--seq", "0"])]
    {
        let o = log.run(sub, T0 + DECADE, &extra);
        assert_eq!(o.status.code(), Some(0), "{sub}: {}", String::from_utf8_lossy(&o.stdout));
    }
    // The next receipt is dated by the right clock, and the grant (good until 2027-06) still allows.
    assert_eq!(log.refund("rf-1", T0 + 60, &[]), T0 + 60);
}

#[test]
fn a_checkpoint_years_ahead_is_refused_and_does_not_poison_the_log() {
    let log = Log::new("checkpoint");
    assert_eq!(log.refund("rf-0", T0, &[]), T0);
    let far = log.run("checkpoint", T0 + DECADE, &[]);
    assert_eq!((far.status.code(), answer(&far)["error"]["code"].as_str()), (Some(2), Some("clock_ahead")));
    assert_eq!(answer(&log.run("status", T0, &[]))["head"], Value::Null, "no head was signed");
    assert_eq!(log.refund("rf-1", T0 + 60, &[]), T0 + 60);
    assert_eq!(answer(&log.run("checkpoint", T0 + 60, &[]))["size"], 2);
}

#[test]
fn max_clock_ahead_lets_a_log_idle_longer_than_the_default_sign() {
    let log = Log::new("idle");
    assert_eq!(log.refund("rf-0", T0, &[]), T0);
    let later = T0 + 30 * 86_400;
    let refused = log.run("checkpoint", later, &[]);
    assert_eq!(answer(&refused)["error"]["code"], "clock_ahead");
    assert_eq!(log.refund("rf-1", later, &["--max-clock-ahead", "3000000"]), later);
    let bad = log.run("status", T0, &["--max-clock-ahead", "0"]);
    assert_eq!((bad.status.code(), answer(&bad)["error"]["path"].as_str()), (Some(2), Some("/max_clock_ahead")));
}

#[test]
fn a_poisoned_log_is_sealed_and_a_successor_started_from_the_command_line() {
    let log = Log::new("seal");
    assert_eq!(log.refund("rf-0", T0, &[]), T0);
    // Poisoned as before max_clock_ahead existed: one checkpoint ten years ahead, allowed by a tolerance as large.
    let tolerance = (2 * DECADE).to_string();
    let far = log.run("checkpoint", T0 + DECADE, &["--max-clock-ahead", &tolerance]);
    assert_eq!(far.status.code(), Some(0), "{}", answer(&far));
    let action = json!({"tenant": "shop", "idempotency_key": "rf-1", "grant": "g1",
                        "action": {"agent": "agent:support", "operation": "billing.refund", "resource": "charge:ch_1",
                                   "amount": 50, "currency": "USD"}});
    let denied = log.run("attest", T0 + 60, &[&file(&log.dir, "rf-1.json", &action)]);
    assert_eq!((denied.status.code(), answer(&denied)["decision"].as_str()), (Some(1), Some("DENY")));
    assert!(answer(&denied)["check"].to_string().contains("grant_expired"), "the log is poisoned");

    let next = log.dir.join("next.db").to_string_lossy().into_owned();
    let origin2 = "curbi-checkpoint-v1.shop.example/clock-2";
    let args = ["--successor", next.as_str(), "--successor-origin", origin2];
    let sealed = log.run("seal", T0 + 120, &args);
    assert_eq!(sealed.status.code(), Some(0), "{}", String::from_utf8_lossy(&sealed.stdout));
    let sealed = answer(&sealed);
    let note = sealed["sealed"]["note"].as_str().expect("final head").to_string();
    assert_eq!(sealed["sealed"]["size"], 1);
    assert_eq!(sealed["successor"]["origin"], origin2);
    let entry = &sealed["successor"]["entry"];
    let named: Value = serde_json::from_str(entry["evidence"].as_str().expect("evidence")).expect("JSON");
    assert_eq!((entry["seq"].as_u64(), named["head"].as_str()), (Some(0), Some(note.as_str())));
    // Run again (as after a crash): the same final head, the same entry.
    assert_eq!(answer(&log.run("seal", T0 + 180, &args)), sealed);
    // The sealed log refuses writes; its status and bundles go on.
    let refused = log.run("attest", T0 + 60, &[&file(&log.dir, "rf-1.json", &action)]);
    assert_eq!((refused.status.code(), answer(&refused)["error"]["code"].as_str()), (Some(2), Some("sealed")));
    assert_eq!(answer(&log.run("status", T0 + 60, &[]))["sealed"], 1);
    assert_eq!(log.run("bundle", T0 + 60, &["--seq", "0"]).status.code(), Some(0));
    // The successor signs at the right clock.
    let successor = Log { dir: log.dir.clone(), db: next, key: log.key.clone() };
    let grant = json!({"id": "g1", "agent": "agent:support", "operations": ["billing.refund"],
                       "resources": ["charge:*"], "expires_at": "2027-06-01T00:00:00Z"});
    assert_eq!(successor.run("grant", T0 + 200, &[&file(&log.dir, "grant.json", &grant)]).status.code(), Some(0));
    assert_eq!(successor.refund("rf-1", T0 + 200, &[]), T0 + 200);
}
