//! The recorder on a real PostgreSQL (features `postgres` and `failpoints`; tests/common/pg.rs starts a cluster of
//! its own for each test and stops it after):
//! - the recorder scenario vectors, every scenario on a database of its own;
//! - the database itself refuses a second receipt for an action, a second action under one idempotency key, a
//!   second root for a signed size, and any change to the log;
//! - a lost connection is a retryable `storage` error, then the store reconnects; the URL's password is never shown;
//! - four recorder processes under a bounded concurrent load: nothing lost, nothing doubled, every bundle verifies
//!   with every head any process was given as `known`, one head per size across processes;
//! - failover: the sequencer is stopped inside its write transaction (failpoint `write.begin`, holding the advisory
//!   lock), the others are seen blocked, it is SIGKILLed and another process appends within a bound; it is
//!   restarted, and all of the above still holds; a hung sequencer is cut off by `idle_in_transaction_session_timeout`.
#![allow(clippy::panic)]

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::pg::PgServer;
use common::*;
use curbi_recorder::{Recorder, RecorderOptions};
use serde_json::{Value, json};

fn open_url(url: &str) -> Recorder {
    Recorder::open(RecorderOptions::new(url, ORIGIN, key(1, "k1")).fixed_clock(T0)).expect("opens on PostgreSQL")
}

/// A new database `db` on the server with a recorder open on it and the refund grant registered: its URL and the
/// recorder.
fn granted(server: &PgServer, db: &str) -> (String, Recorder) {
    let url = server.create_db(db);
    let r = open_url(&url);
    call(&r, "grant", &refund_grant().to_string());
    (url, r)
}

#[test]
fn scenario_vectors_on_postgres() {
    let server = PgServer::start();
    let keys = tempfile::tempdir().expect("dir");
    let checked = common::scenarios::run_scenarios(&mut |n| server.create_db(&format!("s{n}")), keys.path(), None);
    assert!(checked >= 70, "only {checked} steps ran");
}

#[test]
fn the_database_keeps_the_log_rules_itself() {
    let server = PgServer::start();
    let (_, r) = granted(&server, "rules");
    for k in ["a", "b"] {
        call(&r, "attest", &attest_body(k, 100));
        settle(&r, "confirm", k, "DONE", Some(&evidence(100)));
    }
    call(&r, "checkpoint", "{}");
    let mut c = server.client("rules");
    let refused = |c: &mut postgres::Client, sql: &str| {
        let e = c.batch_execute(sql).expect_err(sql);
        e.as_db_error().map(|d| d.message().to_string()).unwrap_or_else(|| e.to_string())
    };
    // A second receipt for an action (at the next sequence number, so only the UNIQUE constraint stands in the way).
    let m = refused(
        &mut c,
        "INSERT INTO receipts (seq, action, status, receipt, evidence, created) \
         SELECT 2, action, status, receipt, evidence, created FROM receipts WHERE seq = 0",
    );
    assert!(m.contains("receipts_action_key"), "{m}");
    // A second action under one tenant and idempotency key.
    let m = refused(
        &mut c,
        "INSERT INTO actions (tenant, idempotency_key, request_hash, grant_id, state, answer, attestation, created, \
         updated) SELECT tenant, idempotency_key, request_hash, grant_id, 'attested', answer, attestation, created, \
         updated FROM actions WHERE idempotency_key = 'a'",
    );
    assert!(m.contains("actions_tenant_idempotency_key_key"), "{m}");
    // A second root for the signed size 2.
    let m = refused(&mut c, "INSERT INTO heads (size, root, note, signed_at) VALUES (2, sha256('x'), 'n', 0)");
    assert!(m.contains("heads_pkey"), "{m}");
    // A gap in the numbering.
    let m = refused(
        &mut c,
        "INSERT INTO receipts (seq, action, status, receipt, evidence, created) VALUES (5, 1, 'DONE', 'r', '', 0)",
    );
    assert!(m.contains("without gaps"), "{m}");
    for sql in [
        "UPDATE receipts SET receipt = 'x' WHERE seq = 0",
        "DELETE FROM receipts",
        "TRUNCATE receipts CASCADE",
        "UPDATE heads SET note = 'x'",
        "DELETE FROM heads",
        "TRUNCATE nodes",
        "UPDATE actions SET state = 'released' WHERE idempotency_key = 'a'",
    ] {
        let m = refused(&mut c, sql);
        assert!(m.contains("append-only") || m.contains("never"), "{sql}: {m}");
    }
    let n: i64 = c.query_one("SELECT count(*) FROM receipts", &[]).expect("counts").get(0);
    assert_eq!(n, 2);
}

#[test]
fn a_lost_connection_is_a_retryable_error_and_the_store_reconnects() {
    let server = PgServer::start();
    let (_, r) = granted(&server, "lost");
    call(&r, "attest", &attest_body("a", 100));
    // Every session of the recorder is ended by the server (as a restart or a failover of the database would).
    let mut admin = server.client("postgres");
    admin
        .batch_execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'curbi-recorder'",
        )
        .expect("terminates");
    let body = json!({"tenant": "acme", "idempotency_key": "a", "outcome": "DONE", "evidence": evidence(100)});
    let e = r.call_json("confirm", body.to_string().as_bytes()).expect_err("the connection is gone");
    assert_eq!(e.code.as_str(), "storage", "{e}");
    assert!(e.message.contains("retry"), "{e}");
    // The retry reconnects and records it.
    let s: Value =
        serde_json::from_str(&r.call_json("confirm", body.to_string().as_bytes()).expect("reconnects")).expect("JSON");
    assert_eq!(s["status"], "DONE");
    assert_eq!(s["seq"], 0);
    // The readers reconnect too.
    admin
        .batch_execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'curbi-recorder'",
        )
        .expect("terminates");
    let first = r.call_json("status", b"{}");
    let again: Value = serde_json::from_str(&r.call_json("status", b"{}").expect("reconnects")).expect("JSON");
    assert!(first.is_ok() || first.as_ref().is_err_and(|e| e.code.as_str() == "storage"), "{first:?}");
    assert_eq!(again["size"], 1);
}

#[test]
fn the_password_is_never_shown() {
    // Nothing listens on port 1 of loopback: the connection is refused.
    let url = "postgresql://shop:hunter2-secret@127.0.0.1:1/log?connect_timeout=2";
    let e = Recorder::open(RecorderOptions::new(url, ORIGIN, key(1, "k1")).fixed_clock(T0)).expect_err("refused");
    assert_eq!(e.code.as_str(), "storage", "{e}");
    assert!(!e.message.contains("hunter2"), "{e}");
    assert!(e.message.contains("shop:***@127.0.0.1:1"), "{e}");
    let config = json!({"path": url, "key_env": "CURBI_NO_SUCH_KEY_VARIABLE"});
    let e = curbi_recorder::api::open_json(config.to_string().as_bytes()).expect_err("no key");
    assert!(!e.message.contains("hunter2"), "{e}");
}

// ---- several processes -------------------------------------------------------------------------------------

/// Keys whose provider outcome is UNKNOWN and later found not performed get no receipt.
fn released(i: usize) -> bool {
    i % 8 == 7
}

/// A worker process: its own recorder on the shared database; `CURBI_PG_COUNT` actions named `<name>-<i>`, some
/// retried with the same idempotency key, some UNKNOWN then reconciled; prints each acknowledged answer as a JSON
/// line. Run again after a kill, it replays what was recorded and finishes the rest.
#[test]
fn worker() {
    let Ok(url) = std::env::var("CURBI_PG_URL") else { return };
    let name = std::env::var("CURBI_PG_NAME").expect("name");
    let count: usize = std::env::var("CURBI_PG_COUNT").expect("count").parse().expect("a number");
    let r = open_url(&url);
    let say = |v: Value| println!("\n{v}");
    for i in 0..count {
        let key = format!("{name}-{i}");
        let amount = 100 + i as i64;
        let body = attest_body(&key, amount);
        let a = match r.call_json("attest", body.as_bytes()) {
            Ok(a) => a,
            // Run again: an action released as not performed is not attested again; its release replays.
            Err(e) if released(i) && e.code.as_str() == "released" => {
                say(json!({"key": key, "answer": settle(&r, "reconcile", &key, "NOT_PERFORMED", None)}));
                continue;
            }
            Err(e) => panic!("attest {key}: {e}"),
        };
        if i % 5 == 0 {
            let again = r.call_json("attest", body.as_bytes()).expect("attest replays");
            assert_eq!(again, a, "a replayed attest answers byte for byte");
        }
        let settled = match i % 8 {
            5 => settle(&r, "confirm", &key, "FAILED", Some(&evidence(amount))),
            6 | 7 => {
                // UNKNOWN: held (or, run again, already reconciled), then reconciled from the provider's state.
                let held = json!({"tenant": "acme", "idempotency_key": key, "outcome": "UNKNOWN"});
                match r.call_json("confirm", held.to_string().as_bytes()) {
                    Ok(_) => {}
                    Err(e) if ["outcome_conflict", "released"].contains(&e.code.as_str()) => {}
                    Err(e) => panic!("confirm UNKNOWN {key}: {e}"),
                }
                if released(i) {
                    settle(&r, "reconcile", &key, "NOT_PERFORMED", None)
                } else {
                    settle(&r, "reconcile", &key, "DONE", Some(&evidence(amount)))
                }
            }
            _ => settle(&r, "confirm", &key, "DONE", Some(&evidence(amount))),
        };
        if i % 3 == 1 && !matches!(i % 8, 6 | 7) {
            let outcome = if i % 8 == 5 { "FAILED" } else { "DONE" };
            let again = settle(&r, "confirm", &key, outcome, Some(&evidence(amount)));
            assert_eq!(again, settled, "a replayed confirm answers the same receipt");
        }
        say(json!({"key": key, "answer": settled}));
        if i % 10 == 9 {
            say(json!({"head": call(&r, "checkpoint", "{}")["note"]}));
        }
    }
}

/// What the parent learns from its workers.
#[derive(Default)]
struct Seen {
    /// Every acknowledged settle answer, by key (a replay after a restart must be the same).
    answers: BTreeMap<String, Value>,
    heads: Vec<String>,
}

struct Worker {
    child: Child,
    reader: std::thread::JoinHandle<()>,
}

fn spawn_worker(
    url: &str,
    name: &str,
    count: usize,
    failpoint: Option<&str>,
    seen: &Arc<Mutex<Seen>>,
    progress: Option<Arc<AtomicUsize>>,
    stopped: Option<mpsc::Sender<()>>,
) -> Worker {
    let exe = std::env::current_exe().expect("test binary");
    let mut cmd = Command::new(exe);
    cmd.args(["--exact", "worker", "--nocapture", "--test-threads=1"])
        .env("CURBI_PG_URL", url)
        .env("CURBI_PG_NAME", name)
        .env("CURBI_PG_COUNT", count.to_string())
        .env_remove("CURBI_FAILPOINT")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    if let Some(f) = failpoint {
        cmd.env("CURBI_FAILPOINT", f);
    }
    let mut child = cmd.spawn().expect("spawns a worker");
    let out = child.stdout.take().expect("stdout");
    let seen = seen.clone();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            if line.starts_with("FAILPOINT") {
                if let Some(s) = &stopped {
                    let _ = s.send(());
                }
                continue;
            }
            let Some(at) = line.find('{') else { continue };
            let v: Value = serde_json::from_str(&line[at..]).expect("a JSON line");
            let mut s = seen.lock().expect("lock");
            if let Some(h) = v["head"].as_str() {
                s.heads.push(h.to_string());
            } else {
                let key = v["key"].as_str().expect("key").to_string();
                if let Some(before) = s.answers.get(&key) {
                    assert_eq!(*before, v["answer"], "{key}: a second, different answer");
                }
                s.answers.insert(key, v["answer"].clone());
            }
            drop(s);
            if let Some(p) = &progress {
                p.fetch_add(1, Ordering::SeqCst);
            }
        }
    });
    Worker { child, reader }
}

fn finish(w: Worker) {
    let mut w = w;
    let status = w.child.wait().expect("waits");
    w.reader.join().expect("reader");
    assert!(status.success(), "a worker failed");
}

fn kill(w: Worker) {
    let mut w = w;
    w.child.kill().expect("SIGKILL");
    let _ = w.child.wait();
    w.reader.join().expect("reader");
}

/// Everything the load promises, checked against the database and core's bundle verifier.
fn check_log(server: &PgServer, db: &str, url: &str, names: &[String], count: usize, seen: &Seen) {
    let r = open_url(url);
    let per_worker_receipts = (0..count).filter(|i| !released(*i)).count();
    let expected = names.len() * per_worker_receipts;
    // Every action has its one outcome: receipts for all but the released ones, each acknowledged answer stored.
    for name in names {
        for i in 0..count {
            let key = format!("{name}-{i}");
            let answer = seen.answers.get(&key).unwrap_or_else(|| panic!("{key} was never answered"));
            let stored = r.receipt_of("acme", &key);
            if released(i) {
                assert_eq!(answer["status"], "RELEASED", "{key}: {answer}");
                assert_eq!(stored.expect_err("no receipt").code.as_str(), "unknown_receipt");
            } else {
                let stored = stored.unwrap_or_else(|e| panic!("{key}: an acknowledged receipt is lost: {e}"));
                assert_eq!(answer["seq"], stored.seq, "{key}");
                assert_eq!(answer["receipt"], stored.receipt.as_str(), "{key}");
            }
        }
    }
    let mut c = server.client(db);
    let row = c
        .query_one("SELECT count(*), count(DISTINCT action), coalesce(max(seq), -1) + 1 FROM receipts", &[])
        .expect("counts");
    let (n, actions, next): (i64, i64, i64) = (row.get(0), row.get(1), row.get(2));
    assert_eq!(n as usize, expected, "one receipt for every performed action, nothing lost or doubled");
    assert_eq!(actions, n, "one receipt per action");
    assert_eq!(next, n, "sequence numbers 0..n-1");
    let head = r.checkpoint().expect("signs");
    assert_eq!(head.size as usize, expected);
    // One head per size, whichever process signed or was given it.
    let mut by_size: BTreeMap<u64, BTreeSet<&str>> = BTreeMap::new();
    for h in &seen.heads {
        let size = curbi::proof::note::parse_curbi_checkpoint(h).expect("a head").checkpoint().size();
        by_size.entry(size).or_default().insert(h);
    }
    // Each worker signed at least one (two may share a size, then they are the same head).
    assert!(seen.heads.len() >= names.len(), "heads from the workers: {}", seen.heads.len());
    for (size, notes) in &by_size {
        assert_eq!(notes.len(), 1, "two heads for size {size}");
    }
    let keys = r.keys().expect("keys").to_value();
    let all: Vec<u64> = (0..head.size).collect();
    let heads: Vec<String> = seen.heads.iter().cloned().collect::<BTreeSet<_>>().into_iter().collect();
    for chunk in heads.chunks(curbi::proof::bundle::MAX_CONSISTENCY) {
        for part in all.chunks(curbi::proof::bundle::MAX_RECEIPTS) {
            let bundle = call(&r, "bundle", &json!({"receipts": part, "known": chunk}).to_string());
            let v = verify(&bundle, &keys, chunk);
            assert_eq!(v["ok"], true, "{v}");
        }
    }
}

const WORKERS: usize = 4;
const COUNT: usize = 48;

fn prepare(server: &PgServer, db: &str) -> String {
    granted(server, db).0
}

#[test]
fn four_processes_lose_nothing_and_double_nothing() {
    let server = PgServer::start();
    let url = prepare(&server, "load");
    let seen = Arc::new(Mutex::new(Seen::default()));
    let names: Vec<String> = (0..WORKERS).map(|p| format!("p{p}")).collect();
    let workers: Vec<Worker> = names.iter().map(|n| spawn_worker(&url, n, COUNT, None, &seen, None, None)).collect();
    workers.into_iter().for_each(finish);
    let seen = seen.lock().expect("lock");
    check_log(&server, "load", &url, &names, COUNT, &seen);
}

/// The sequencer stopped inside its write transaction: the others wait for its lock; SIGKILL ends its session,
/// PostgreSQL aborts the transaction and releases the lock as the socket closes, and another process appends
/// within [`TAKEOVER_BOUND`]. Its idle timeout is raised to 60 s in its URL, so the takeover is the kill's doing.
#[test]
fn the_sequencer_killed_mid_load_is_replaced_and_restarted() {
    const TAKEOVER_BOUND: Duration = Duration::from_secs(10);
    let server = PgServer::start();
    let plain = prepare(&server, "failover");
    let url = format!("{plain}&options=-c%20idle_in_transaction_session_timeout%3D60s");
    let mut probe = postgres::Client::connect(&url, postgres::NoTls).expect("connects");
    let idle: String = probe.query_one("SHOW idle_in_transaction_session_timeout", &[]).expect("shows").get(0);
    assert_eq!(idle, "1min", "the URL's options reach the server");
    drop(probe);
    let seen = Arc::new(Mutex::new(Seen::default()));
    let progress = Arc::new(AtomicUsize::new(0));
    let names: Vec<String> = (0..WORKERS).map(|p| format!("f{p}")).collect();
    let (stopped_tx, stopped) = mpsc::channel();
    // f0 stops at its 30th write transaction, after taking the sequencer lock.
    let victim = spawn_worker(&url, &names[0], COUNT, Some("write.begin@30"), &seen, None, Some(stopped_tx));
    let others: Vec<Worker> =
        names[1..].iter().map(|n| spawn_worker(&url, n, COUNT, None, &seen, Some(progress.clone()), None)).collect();
    stopped.recv_timeout(Duration::from_secs(300)).expect("the victim reaches its failpoint");
    // While it holds the lock nobody appends (a write the others had committed may still be printing).
    std::thread::sleep(Duration::from_millis(500));
    let before = progress.load(Ordering::SeqCst);
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(progress.load(Ordering::SeqCst), before, "another process wrote while the sequencer held the lock");
    let killed = Instant::now();
    kill(victim);
    while progress.load(Ordering::SeqCst) == before {
        assert!(killed.elapsed() < TAKEOVER_BOUND, "no process took over within {TAKEOVER_BOUND:?}");
        std::thread::sleep(Duration::from_millis(10));
    }
    let took = killed.elapsed();
    eprintln!("failover: another process appended {took:?} after the sequencer was killed");
    // Restarted, the victim replays what it had recorded and finishes.
    let again = spawn_worker(&url, &names[0], COUNT, None, &seen, None, None);
    others.into_iter().for_each(finish);
    finish(again);
    let seen = seen.lock().expect("lock");
    check_log(&server, "failover", &url, &names, COUNT, &seen);
}

/// A sequencer hung inside its transaction (not dead: its socket stays open) is cut off by PostgreSQL after
/// `idle_in_transaction_session_timeout` (the store's default, [`curbi_recorder::postgres::IDLE_TIMEOUT`]); the
/// others, waiting up to the longer `lock_timeout`, go on.
#[test]
fn a_hung_sequencer_is_cut_off_by_its_idle_timeout() {
    let idle = curbi_recorder::postgres::IDLE_TIMEOUT;
    let server = PgServer::start();
    let url = prepare(&server, "hung");
    let seen = Arc::new(Mutex::new(Seen::default()));
    let progress = Arc::new(AtomicUsize::new(0));
    let count = 16;
    let names: Vec<String> = (0..3).map(|p| format!("h{p}")).collect();
    let (stopped_tx, stopped) = mpsc::channel();
    let victim = spawn_worker(&url, &names[0], count, Some("write.begin@10"), &seen, None, Some(stopped_tx));
    let others: Vec<Worker> =
        names[1..].iter().map(|n| spawn_worker(&url, n, count, None, &seen, Some(progress.clone()), None)).collect();
    stopped.recv_timeout(Duration::from_secs(300)).expect("the victim reaches its failpoint");
    let hung = Instant::now();
    std::thread::sleep(Duration::from_millis(300));
    let before = progress.load(Ordering::SeqCst);
    while progress.load(Ordering::SeqCst) == before {
        assert!(hung.elapsed() < idle + Duration::from_secs(10), "nobody went on past the idle timeout");
        std::thread::sleep(Duration::from_millis(10));
    }
    let took = hung.elapsed();
    eprintln!("hung sequencer: another process appended {took:?} after it stopped (idle timeout {idle:?})");
    assert!(took + Duration::from_millis(300) >= idle, "the others went on while the sequencer held the lock");
    kill(victim);
    let again = spawn_worker(&url, &names[0], count, None, &seen, None, None);
    others.into_iter().for_each(finish);
    finish(again);
    let seen = seen.lock().expect("lock");
    check_log(&server, "hung", &url, &names, count, &seen);
}

/// The sealing child: seals the log at `CURBI_PG_SEAL_URL` (stopped at a failpoint by the parent).
#[test]
fn seal_worker() {
    let Ok(url) = std::env::var("CURBI_PG_SEAL_URL") else { return };
    let r = Recorder::open(RecorderOptions::new(&url, ORIGIN, key(1, "k1")).fixed_clock(T0 + 60)).expect("opens");
    println!("\n{}", json!({"sealed": r.seal().expect("seals").note}));
}

/// The clock and sealing on PostgreSQL (issue 43): a read at a clock years ahead moves no time and a write there is
/// `clock_ahead`; a seal killed inside its transaction leaves the log unsealed and writable; a seal refuses every
/// write in every process (here a second recorder opened before it); bundles still verify; the successor, another
/// database, names the final head in its entry 0.
#[test]
fn the_clock_and_sealing_on_postgres() {
    let server = PgServer::start();
    let (url, r) = granted(&server, "sealing");
    grow(&r, 2, "rf");
    let first = call(&r, "checkpoint", "{}")["note"].as_str().expect("note").to_string();
    grow(&r, 3, "rf");
    let at =
        |now: i64| Recorder::open(RecorderOptions::new(&url, ORIGIN, key(1, "k1")).fixed_clock(now)).expect("opens");
    let far = at(T0 + 10 * 365 * 86_400);
    call(&far, "status", "{}");
    call(&far, "bundle", r#"{"receipts":[0]}"#);
    assert_eq!(code_of(far.call_json("checkpoint", b"{}")), "clock_ahead");
    drop(far);
    let other = at(T0 + 30);
    assert_eq!(call(&other, "attest", &attest_body("rf-on-time", 100))["decision"], "ALLOW", "not poisoned");

    for point in ["seal.stored", "seal.sealed", "commit.before"] {
        let mut child = Command::new(std::env::current_exe().expect("test binary"))
            .args(["--exact", "seal_worker", "--nocapture", "--test-threads=1"])
            .env("CURBI_PG_SEAL_URL", &url)
            .env("CURBI_FAILPOINT", point)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawns");
        let out = child.stdout.take().expect("stdout");
        let stopped = BufReader::new(out).lines().map_while(Result::ok).any(|l| l.contains("FAILPOINT "));
        assert!(stopped, "the seal stopped at {point}");
        child.kill().expect("SIGKILL");
        let _ = child.wait();
        assert_eq!(call(&r, "status", "{}")["sealed"], Value::Null, "killed at {point}: not sealed");
    }
    let done = json!({"tenant": "acme", "idempotency_key": "rf-on-time", "outcome": "DONE", "evidence": evidence(100)});
    assert_eq!(call(&other, "confirm", &done.to_string())["seq"], 3, "the log still takes writes");

    let head = r.seal().expect("seals");
    assert_eq!(head.size, 4);
    assert_eq!(r.seal().expect("again"), head);
    assert_eq!(code_of(other.call_json("attest", attest_body("rf-x", 100).as_bytes())), "sealed");
    assert_eq!(code_of(other.call_json("checkpoint", b"{}")), "sealed");
    assert_eq!(call(&other, "status", "{}")["sealed"], 4);
    let keys = call(&other, "keys", "{}");
    let bundle = call(&other, "bundle", &json!({"receipts": [0, 3], "known": [first]}).to_string());
    assert_eq!(verify(&bundle, &keys, std::slice::from_ref(&first))["ok"], true);

    let next = server.create_db("successor");
    let s = Recorder::open(
        RecorderOptions::new(&next, "curbi-checkpoint-v1.shop.example/refunds-2", key(1, "k1")).fixed_clock(T0 + 90),
    )
    .expect("opens");
    let entry = s.record_predecessor(&head.note).expect("records");
    assert_eq!(entry.seq, Some(0));
    assert_eq!(s.record_predecessor(&head.note).expect("replays"), entry);
    let named: Value = serde_json::from_slice(&s.receipt(0).expect("entry").evidence).expect("JSON");
    assert_eq!(named["head"].as_str(), Some(head.note.as_str()));
}
