//! Several threads and several processes attesting and confirming on one database at once: nothing lost, nothing
//! doubled, the same request raced from many threads gets one attestation and one receipt, every head any of them
//! was given is a prefix of the final log, and the bundle of everything verifies.
#![allow(clippy::panic)]

mod common;

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;

use common::*;
use serde_json::{Value, json};

const PER_WORKER: usize = 30;

fn work(r: &curbi_recorder::Recorder, prefix: &str) -> Vec<String> {
    let mut heads = Vec::new();
    for i in 0..PER_WORKER {
        let key = format!("{prefix}-{i}");
        let a = call(r, "attest", &attest_body(&key, 100));
        assert_eq!(a["decision"], "ALLOW", "{a}");
        let s = settle(r, "confirm", &key, "DONE", Some(&evidence(100)));
        assert_eq!(s["status"], "DONE", "{s}");
        if i % 10 == 9 {
            heads.push(call(r, "checkpoint", "{}")["note"].as_str().expect("note").to_string());
        }
    }
    heads
}

/// A worker process: its own recorder on the shared file; prints the heads it was given.
#[test]
fn worker() {
    let Ok(db) = std::env::var("CURBI_CONCURRENT_DB") else { return };
    let name = std::env::var("CURBI_CONCURRENT_NAME").expect("name");
    let r = open(Path::new(&db), 1, "k1", T0);
    for h in work(&r, &name) {
        println!("\n{}", json!({"head": h}));
    }
}

#[test]
fn threads_and_processes_on_one_database() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("log.db");
    let r = Arc::new(open(&db, 1, "k1", T0));
    call(&r, "grant", &refund_grant().to_string());
    let exe = std::env::current_exe().expect("test binary");
    let children: Vec<_> = (0..3)
        .map(|p| {
            Command::new(&exe)
                .args(["--exact", "worker", "--nocapture", "--test-threads=1"])
                .env("CURBI_CONCURRENT_DB", &db)
                .env("CURBI_CONCURRENT_NAME", format!("proc{p}"))
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit())
                .spawn()
                .expect("spawns")
        })
        .collect();
    let threads: Vec<_> = (0..6)
        .map(|t| {
            let r = r.clone();
            std::thread::spawn(move || work(&r, &format!("thread{t}")))
        })
        .collect();
    // The same request from eight threads at once: one attestation, one receipt.
    let racers: Vec<_> = (0..8)
        .map(|_| {
            let r = r.clone();
            std::thread::spawn(move || {
                let a = r.call_json("attest", attest_body("raced", 100).as_bytes()).expect("attests");
                let s = settle(&r, "confirm", "raced", "DONE", Some(&evidence(100)));
                (a, s)
            })
        })
        .collect();
    let mut heads: Vec<String> = threads.into_iter().flat_map(|t| t.join().expect("thread")).collect();
    let raced: BTreeSet<(String, String)> =
        racers.into_iter().map(|t| t.join().expect("racer")).map(|(a, s)| (a, s.to_string())).collect();
    assert_eq!(raced.len(), 1, "every racer got the same attestation and receipt: {raced:?}");
    for mut child in children {
        let out = child.stdout.take().expect("stdout");
        for line in BufReader::new(out).lines() {
            let line = line.expect("line");
            if let Some(at) = line.find('{') {
                let v: Value = serde_json::from_str(&line[at..]).expect("JSON");
                heads.push(v["head"].as_str().expect("head").to_string());
            }
        }
        assert!(child.wait().expect("waits").success(), "a worker process failed");
    }
    let expected = (3 + 6) * PER_WORKER + 1;
    let head = r.checkpoint().expect("signs");
    assert_eq!(head.size, expected as u64, "every confirmed action has its receipt, none twice");
    let c = rusqlite::Connection::open(&db).expect("opens");
    let distinct: i64 = c.query_row("SELECT count(DISTINCT action) FROM receipts", [], |r| r.get(0)).expect("counts");
    assert_eq!(distinct as usize, expected);
    assert_eq!(heads.len(), 9 * (PER_WORKER / 10));
    let keys = r.keys().expect("keys").to_value();
    let all: Vec<u64> = (0..head.size).collect();
    for chunk in heads.chunks(curbi::proof::bundle::MAX_CONSISTENCY) {
        let bundle = call(&r, "bundle", &json!({"receipts": all, "known": chunk}).to_string());
        let v = verify(&bundle, &keys, chunk);
        assert_eq!(v["ok"], true, "{v}");
    }
}
