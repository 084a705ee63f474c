//! `curbi verify --known` with a head of size 0 (issue 43): generated logs and known sets always verify when the
//! caller holds the empty log's head, a size-0 head with another root is refused, and the recorder's own bundles agree.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::answer;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use curbi::proof::gate::Gate;
use curbi::proof::note::{self, Checkpoint};
use curbi_testkit::fixtures::{ORIGIN, T0};
use curbi_testkit::keys::test_key;
use curbi_testkit::large::dispatch_log;
use serde_json::{Value, json};

fn curbi(args: &[&str]) -> Output {
    Command::new(common::BIN).args(args).env_remove("CURBI_RECORDER_KEY").output().unwrap()
}

fn dir(tag: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("known-empty-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_str().unwrap().to_string()
}

/// A reference gate with `n` DONE receipts and a signed head at every size from 0 to `n` (index = size).
fn log(n: u64) -> (Gate, Vec<String>) {
    let (gate, heads) = dispatch_log(n, |_| true).unwrap();
    (gate, heads.into_iter().map(|(_, h)| h).collect())
}

/// Every log of 1 to 5 receipts, every head of it as the bundle's head, and every set of the earlier non-empty heads
/// next to the empty one as `known` (built by the gate, which gives no proof from size 0): `curbi verify` exits 0.
#[test]
fn generated_logs_and_known_sets_with_the_empty_head_verify() {
    let d = dir("gen");
    let mut runs = 0;
    for n in 1..=5u64 {
        let (gate, heads) = log(n);
        let keys = write(&d, "keys.json", gate.jwks(true).unwrap().to_value().to_string().as_bytes());
        let files: Vec<String> =
            heads.iter().enumerate().map(|(s, h)| write(&d, &format!("head-{n}-{s}.txt"), h.as_bytes())).collect();
        for size in 1..=n {
            // The heads of sizes 1..=size, one bit each; the empty head is always known.
            for pick in 0..(1u32 << size) {
                let chosen: Vec<usize> =
                    (1..=usize::try_from(size).unwrap()).filter(|s| pick & (1 << (s - 1)) != 0).collect();
                let mut known: Vec<&str> = vec![&heads[0]];
                known.extend(chosen.iter().map(|s| heads[*s].as_str()));
                let bundle = gate
                    .bundle(&[u64::from(pick) % size], &heads[usize::try_from(size).unwrap()], &known, false)
                    .unwrap();
                let b = write(&d, "bundle.json", bundle.to_json_string().as_bytes());
                let mut args = vec!["verify", &b, "--keys", &keys, "--allow-test", "--known", &files[0]];
                for s in &chosen {
                    args.extend(["--known", &files[*s]]);
                }
                let out = curbi(&args);
                assert_eq!(out.status.code(), Some(0), "n {n}, head {size}, known {chosen:?}: {}", answer(&out));
                runs += 1;
            }
        }
    }
    // Sum over n of 2 + 4 + ... + 2^n: 2, 6, 14, 30, 62.
    assert_eq!(runs, 114, "every case ran");
}

/// A head of size 0 signed by the trusted key whose root is not the empty tree's is `history_unproven` at its place.
#[test]
fn a_known_empty_head_with_another_root_is_refused() {
    let d = dir("forged");
    let (gate, heads) = log(2);
    let keys = write(&d, "keys.json", gate.jwks(true).unwrap().to_value().to_string().as_bytes());
    let bundle =
        write(&d, "bundle.json", gate.bundle(&[1], &heads[2], &[], false).unwrap().to_json_string().as_bytes());
    let forged = note::sign_curbi_checkpoint(
        &Checkpoint::new(ORIGIN, 0, [7; 32]).unwrap(),
        &test_key(),
        u64::try_from(T0).unwrap(),
    );
    let forged = write(&d, "forged.txt", forged.unwrap().as_bytes());
    let out = curbi(&["verify", &bundle, "--keys", &keys, "--allow-test", "--known", &forged]);
    let r = answer(&out);
    assert_eq!((out.status.code(), r["reason"].as_str()), (Some(1), Some("history_unproven")), "{r}");
    assert_eq!(r["path"], "/known/0", "{r}");
    assert!(r["message"].as_str().unwrap().contains("size 0"), "{r}");
}

/// The recorder's head at creation (size 0), given as `--known` to its bundle and to a bundle built from its
/// published tiles, never fails either.
#[test]
fn the_recorders_empty_head_as_known_through_the_command_line() {
    let d = dir("recorder");
    let key = d.join("key.jwk").to_str().unwrap().to_string();
    let db = d.join("log.db").to_str().unwrap().to_string();
    assert_eq!(curbi(&["recorder", "keys", "generate", "--out", &key]).status.code(), Some(0));
    let run = |sub: &str, extra: &[&str]| -> Value {
        let mut args = vec!["recorder", sub, "--db", &db, "--key", &key];
        args.extend(extra);
        let out = curbi(&args);
        assert!(out.status.code().is_some_and(|c| c < 2), "{sub}: {}", answer(&out));
        answer(&out)
    };
    run("init", &["--origin", "curbi-checkpoint-v1.shop.example/refunds"]);
    let empty = run("checkpoint", &[]);
    assert_eq!(empty["size"], 0);
    let empty = write(&d, "head-0.txt", empty["note"].as_str().unwrap().as_bytes());
    let grant = json!({"id": "g1", "agent": "agent:support", "operations": ["billing.refund"], "resources": ["charge:*"],
                       "limits": {"max_amount": 1000, "currency": "USD"}, "expires_at": "2099-01-01T00:00:00Z"});
    run("grant", &[&write(&d, "grant.json", grant.to_string().as_bytes())]);
    for i in 0..3 {
        let refund = json!({"tenant": "shop", "idempotency_key": format!("rf-{i}"), "grant": "g1",
                            "action": {"agent": "agent:support", "operation": "billing.refund",
                                       "resource": "charge:ch_9", "amount": 50, "currency": "USD"}});
        assert_eq!(run("attest", &[&write(&d, "attest.json", refund.to_string().as_bytes())])["decision"], "ALLOW");
        let evidence =
            r#"{"id":"re_9","operation":"billing.refund","resource":"charge:ch_9","amount":50,"currency":"usd"}"#;
        let done = json!({"tenant": "shop", "idempotency_key": format!("rf-{i}"), "outcome": "DONE",
                          "evidence": evidence});
        assert_eq!(run("confirm", &[&write(&d, "done.json", done.to_string().as_bytes())])["seq"], i);
    }
    let head = run("checkpoint", &[]);
    assert_eq!(head["size"], 3);
    let head = write(&d, "head-3.txt", head["note"].as_str().unwrap().as_bytes());
    let keys = d.join("keys.json").to_str().unwrap().to_string();
    run("keys", &["--out", &keys]);
    let bundle = run("bundle", &["--seq", "1", "--known", &empty, "--known", &head]);
    let proven: Vec<&Value> = bundle["consistency"].as_array().unwrap().iter().map(|c| &c["head"]).collect();
    assert_eq!(proven, [&Value::from(std::fs::read_to_string(&head).unwrap())], "no proof from size 0");
    let bundle = write(&d, "bundle.json", bundle.to_string().as_bytes());
    let public = d.join("public").to_str().unwrap().to_string();
    run("publish", &["--dir", &public]);
    let tiles = curbi(&["tiles", "bundle", "--from", &public, "--index", "2", "--known", &empty, "--keys", &keys]);
    assert_eq!(tiles.status.code(), Some(0), "{}", answer(&tiles));
    let tiles = write(&d, "tiles-bundle.json", &tiles.stdout);
    // A size-0 head of this origin with another root is refused by both builders, with the head's path.
    let forged = Checkpoint::new("curbi-checkpoint-v1.shop.example/refunds", 0, [7; 32]).unwrap();
    let forged = note::sign_curbi_checkpoint(&forged, &test_key(), u64::try_from(T0).unwrap()).unwrap();
    let forged = write(&d, "forged.txt", forged.as_bytes());
    let refused = [
        curbi(&["recorder", "bundle", "--db", &db, "--key", &key, "--seq", "1", "--known", &empty, "--known", &forged]),
        curbi(&["tiles", "bundle", "--from", &public, "--index", "2", "--known", &empty, "--known", &forged]),
    ];
    for out in &refused {
        let e = &answer(out)["error"];
        assert_eq!(
            (out.status.code(), e["code"].as_str(), e["path"].as_str()),
            (Some(2), Some("unknown_head"), Some("/known/1")),
            "{e}"
        );
    }
    for b in [&bundle, &tiles] {
        let out = curbi(&["verify", b, "--keys", &keys, "--known", &empty, "--known", &head]);
        assert_eq!(out.status.code(), Some(0), "{}", answer(&out));
        let out = curbi(&["verify", b, "--keys", &keys, "--known", &empty]);
        assert_eq!(out.status.code(), Some(0), "{}", answer(&out));
    }
}
