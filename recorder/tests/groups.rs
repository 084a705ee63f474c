//! Grouped commits when a call fails inside the group: calls queued behind a slow transaction run in one group;
//! a confirm whose store write fails after its receipt was appended (a storage error injected by a wrapping
//! store) must leave no receipt, no gap in the log and its action still attested, while every other call of the
//! group is committed and the log's bundle verifies.
#![allow(clippy::panic)]

mod common;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use common::*;
use curbi::proof::merkle::{Hash, NodeStore};
use curbi::{Error, ErrorCode};
use curbi_recorder::store::{ActionRow, GrantRow, HeadRow, KeyRow, ReceiptRow, Settle};
use curbi_recorder::{About, Recorder, RecorderOptions, Storage, Tx, sqlite::SqliteStore};
use serde_json::json;

/// The SQLite store, with its next write transaction held for a while (so that calls queue behind it) and a
/// storage error for settling any action whose key starts with `bad`.
#[derive(Debug)]
struct Faulty {
    inner: SqliteStore,
    hold: AtomicBool,
    writes: AtomicUsize,
}

impl Storage for Faulty {
    fn write(&self, f: &mut dyn FnMut(&mut dyn Tx) -> Result<(), Error>) -> Result<(), Error> {
        self.writes.fetch_add(1, Ordering::SeqCst);
        if self.hold.swap(false, Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(600));
        }
        self.inner.write(&mut |tx| f(&mut FaultyTx(tx)))
    }

    fn read(&self, f: &mut dyn FnMut(&mut dyn Tx) -> Result<(), Error>) -> Result<(), Error> {
        self.inner.read(f)
    }
}

struct FaultyTx<'t>(&'t mut dyn Tx);

impl NodeStore for FaultyTx<'_> {
    type Error = Error;
    fn node(&self, level: u32, index: u64) -> Result<Option<Hash>, Error> {
        self.0.node(level, index)
    }
}

impl Tx for FaultyTx<'_> {
    fn meta(&self, name: &str) -> Result<Option<String>, Error> {
        self.0.meta(name)
    }
    fn set_meta(&mut self, name: &str, value: &str) -> Result<(), Error> {
        self.0.set_meta(name, value)
    }
    fn keys(&self) -> Result<Vec<KeyRow>, Error> {
        self.0.keys()
    }
    fn insert_key(&mut self, key: &KeyRow) -> Result<(), Error> {
        self.0.insert_key(key)
    }
    fn close_key(&mut self, kid: &str, expires: i64) -> Result<(), Error> {
        self.0.close_key(kid, expires)
    }
    fn grant(&self, id: &str) -> Result<Option<GrantRow>, Error> {
        self.0.grant(id)
    }
    fn insert_grant(&mut self, grant: &GrantRow, at: i64) -> Result<(), Error> {
        self.0.insert_grant(grant, at)
    }
    fn add_uses(&mut self, id: &str, delta: i64) -> Result<(), Error> {
        self.0.add_uses(id, delta)
    }
    fn account(&mut self, id: &str, spent: i64, reserved: i64, last_use: Option<i64>) -> Result<(), Error> {
        self.0.account(id, spent, reserved, last_use)
    }
    fn action(&self, tenant: &str, key: &str) -> Result<Option<ActionRow>, Error> {
        self.0.action(tenant, key)
    }
    fn insert_action(&mut self, action: &ActionRow) -> Result<(), Error> {
        self.0.insert_action(action)
    }
    fn settle_action(&mut self, settle: &Settle<'_>) -> Result<(), Error> {
        if settle.idempotency_key.starts_with("bad") {
            return Err(Error::new(ErrorCode::Storage, "", "database: disk I/O error (injected)"));
        }
        self.0.settle_action(settle)
    }
    fn open_actions(&self, limit: usize) -> Result<Vec<ActionRow>, Error> {
        self.0.open_actions(limit)
    }
    fn size(&self) -> Result<u64, Error> {
        self.0.size()
    }
    fn append(&mut self, receipt: &ReceiptRow, resource: &str, nodes: &[(u32, u64, Hash)]) -> Result<(), Error> {
        self.0.append(receipt, resource, nodes)
    }
    fn receipts_about(&self, by: About<'_>, limit: usize) -> Result<Vec<String>, Error> {
        self.0.receipts_about(by, limit)
    }
    fn receipt(&self, seq: u64) -> Result<Option<ReceiptRow>, Error> {
        self.0.receipt(seq)
    }
    fn receipt_of(&self, tenant: &str, key: &str) -> Result<Option<ReceiptRow>, Error> {
        self.0.receipt_of(tenant, key)
    }
    fn head(&self, size: u64) -> Result<Option<HeadRow>, Error> {
        self.0.head(size)
    }
    fn latest_head(&self) -> Result<Option<HeadRow>, Error> {
        self.0.latest_head()
    }
    fn insert_head(&mut self, head: &HeadRow) -> Result<(), Error> {
        self.0.insert_head(head)
    }
    fn data_version(&mut self) -> Result<u64, Error> {
        self.0.data_version()
    }
    fn savepoint(&mut self) -> Result<(), Error> {
        self.0.savepoint()
    }
    fn release_savepoint(&mut self) -> Result<(), Error> {
        self.0.release_savepoint()
    }
    fn rollback_to_savepoint(&mut self) -> Result<(), Error> {
        self.0.rollback_to_savepoint()
    }
}

fn open_faulty(path: &Path) -> (Recorder, Arc<Faulty>) {
    let store = Arc::new(Faulty {
        inner: SqliteStore::open(path).expect("opens"),
        hold: AtomicBool::new(false),
        writes: AtomicUsize::new(0),
    });
    let options = RecorderOptions::new(path, ORIGIN, key(1, "k1")).fixed_clock(T0);
    let r = Recorder::open_on(store.clone(), options).expect("opens");
    (r, store)
}

#[test]
fn a_call_failing_after_it_wrote_leaves_the_rest_of_its_group_committed() {
    let dir = tempfile::tempdir().expect("dir");
    let (r, store) = open_faulty(&dir.path().join("log.db"));
    let r = Arc::new(r);
    call(&r, "grant", &refund_grant().to_string());
    // Two receipts before the group, so that the group appends after a non-empty edge.
    grow(&r, 2, "pre");
    let good: Vec<String> = (0..4).map(|i| format!("good-{i}")).collect();
    let bad: Vec<String> = (0..2).map(|i| format!("bad-{i}")).collect();
    for k in good.iter().chain(&bad) {
        assert_eq!(call(&r, "attest", &attest_body(k, 100))["decision"], "ALLOW");
    }
    // One slow transaction; everything below queues behind it and runs as one group.
    store.hold.store(true, Ordering::SeqCst);
    let slow = {
        let r = r.clone();
        std::thread::spawn(move || call(&r, "attest", &attest_body("slow", 100)))
    };
    std::thread::sleep(Duration::from_millis(150));
    let writes_before = store.writes.load(Ordering::SeqCst);
    let mut threads = Vec::new();
    // Interleaved: bad, good, bad, good, ... and two new attests.
    let mut calls: Vec<(String, &str)> = Vec::new();
    for i in 0..4 {
        if i < 2 {
            calls.push((bad[i].clone(), "confirm"));
        }
        calls.push((good[i].clone(), "confirm"));
    }
    calls.push(("new-0".into(), "attest"));
    calls.push(("new-1".into(), "attest"));
    for (k, what) in calls {
        let r = r.clone();
        threads.push(std::thread::spawn(move || {
            let out = if what == "attest" {
                r.call_json("attest", attest_body(&k, 100).as_bytes())
            } else {
                let body =
                    json!({"tenant": "acme", "idempotency_key": k, "outcome": "DONE", "evidence": evidence(100)});
                r.call_json("confirm", body.to_string().as_bytes())
            };
            (k, out)
        }));
    }
    assert_eq!(slow.join().expect("slow")["decision"], "ALLOW");
    let mut seqs = Vec::new();
    for t in threads {
        let (k, out) = t.join().expect("thread");
        if k.starts_with("bad") {
            let e = out.expect_err("a failed store write is an error");
            assert_eq!(e.code, ErrorCode::Storage, "{k}: {e}");
        } else if k.starts_with("new") {
            let v: serde_json::Value = serde_json::from_str(&out.expect("attests")).expect("JSON");
            assert_eq!(v["decision"], "ALLOW", "{k}");
        } else {
            let v: serde_json::Value = serde_json::from_str(&out.expect("confirms")).expect("JSON");
            assert_eq!(v["status"], "DONE", "{k}: {v}");
            seqs.push(v["seq"].as_u64().expect("seq"));
        }
    }
    // The eight calls ran in one group (twice: once as it was, once again with savepoints), not one by one.
    let writes = store.writes.load(Ordering::SeqCst) - writes_before;
    assert!(writes <= 3, "{writes} write transactions for one group of eight calls");
    seqs.sort_unstable();
    assert_eq!(seqs, vec![2, 3, 4, 5], "the good receipts follow the log without a gap");
    // The bad actions have no receipt and are still open; the new ones were stored.
    for k in &bad {
        let e = r.call_json("receipt", json!({"tenant": "acme", "idempotency_key": k}).to_string().as_bytes());
        assert_eq!(code_of(e), "unknown_receipt", "{k}");
    }
    let held = call(&r, "held", "{}");
    let listed: Vec<&str> = held["actions"]
        .as_array()
        .expect("actions")
        .iter()
        .map(|a| a["idempotency_key"].as_str().expect("key"))
        .collect();
    for k in bad.iter().map(String::as_str).chain(["new-0", "new-1", "slow"]) {
        assert!(listed.contains(&k), "{k} is open: {held}");
    }
    // What the writer keeps in memory still matches the file: the next receipt is 6, and everything verifies.
    assert_eq!(settle(&r, "confirm", "new-0", "DONE", Some(&evidence(100)))["seq"], 6);
    let head = call(&r, "checkpoint", "{}")["note"].as_str().expect("note").to_string();
    let bundle = call(&r, "bundle", &json!({"receipts": [0, 1, 2, 3, 4, 5, 6], "head": head}).to_string());
    let keys = call(&r, "keys", "{}");
    let v = verify(&bundle, &keys, &[]);
    assert_eq!(v["ok"], true, "{v}");
    // A reopened recorder (on the plain store) sees the same log.
    drop(r);
    let again = open(&dir.path().join("log.db"), 1, "k1", T0);
    assert_eq!(call(&again, "status", "{}")["size"], 7);
}
