//! Crash tests (feature `failpoints`): a child process drives the recorder on one SQLite file and reports every
//! answer it was given; the test kills it with SIGKILL, either stopped at a named point inside a transaction or
//! after a random delay, reopens the file and checks what docs/RECORDER.md promises:
//! - no attestation that was returned is lost (the stored one is byte-identical);
//! - no receipt that was returned is lost or changed, and no action has two receipts;
//! - no UNKNOWN outcome is in the log, and every held action is listed;
//! - every head ever returned is the head stored for its size and provably a prefix of the current log
//!   (consistency proofs checked by core's bundle verifier with every earlier head passed as `known`).
//!
//! `CURBI_CRASH_ITERATIONS` sets the number of kills (default 200; `make crash` runs thousands).
#![allow(clippy::panic)]

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use common::*;
use curbi_recorder::{Recorder, RecorderOptions};
use serde_json::{Value, json};

const POINTS: [&str; 9] = [
    "write.begin",
    "attest.stored",
    "settle.held",
    "settle.released",
    "settle.appended",
    "checkpoint.signed",
    "checkpoint.stored",
    "commit.before",
    "commit.after",
];

/// A small deterministic generator, so a failing iteration can be replayed from its number.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The child: attests, confirms (DONE, FAILED, UNKNOWN or nothing), reconciles held actions and checkpoints, and
/// prints each answer as one JSON line once the call returned. Runs only when the parent starts it.
#[test]
fn child() {
    let Ok(db) = std::env::var("CURBI_CRASH_DB") else { return };
    let start: u64 = std::env::var("CURBI_CRASH_START").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    let r = open(Path::new(&db), 1, "k1", T0 + start as i64);
    let say = |v: Value| println!("{v}");
    call(&r, "grant", &refund_grant().to_string());
    let mut rng = Rng(start.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    for i in start..start + 40 {
        let key = format!("k{i}");
        let amount = 1 + rng.below(4999) as i64;
        let a = call(&r, "attest", &attest_body(&key, amount));
        say(json!({"attested": key, "amount": amount, "attestation": a["attestation"]}));
        let settled = match rng.below(10) {
            0..=5 => Some(settle(&r, "confirm", &key, "DONE", Some(&evidence(amount)))),
            6 => Some(settle(&r, "confirm", &key, "FAILED", Some(&evidence(amount)))),
            7 | 8 => Some(settle(&r, "confirm", &key, "UNKNOWN", None)),
            _ => None,
        };
        if let Some(s) = settled {
            say(json!({"settled": key, "answer": s}));
        }
        if rng.below(4) == 0 {
            let held = call(&r, "held", "{}");
            if let Some(a) = held["actions"].as_array().and_then(|l| l.first()) {
                let k = a["idempotency_key"].as_str().unwrap_or_default().to_string();
                let s = if rng.below(2) == 0 {
                    // The provider's GET says it happened: the evidence carries the attested amount.
                    let amount = attested_amount(&a["attestation"]);
                    settle(&r, "reconcile", &k, "DONE", Some(&evidence(amount)))
                } else {
                    settle(&r, "reconcile", &k, "NOT_PERFORMED", None)
                };
                say(json!({"settled": k, "answer": s}));
            }
        }
        if rng.below(3) == 0 {
            say(json!({"head": call(&r, "checkpoint", "{}")}));
        }
    }
    say(json!({"done": true}));
}

/// One report line of the child (after whatever the test harness printed before it).
fn report(line: &str) -> Value {
    let at = line.find('{').unwrap_or(0);
    serde_json::from_str(&line[at..]).unwrap_or_else(|e| panic!("a report line: {e}: {line}"))
}

/// The amount inside a compact attestation's payload.
fn attested_amount(compact: &Value) -> i64 {
    let text = compact.as_str().unwrap_or_default();
    let env = curbi::proof::envelope::Envelope::parse(curbi::proof::envelope::Kind::Attestation, text).expect("parses");
    env.attestation().expect("payload").amount.unwrap_or(0)
}

/// Everything the children were told, across every kill.
#[derive(Default)]
struct Told {
    attested: BTreeMap<String, String>,
    /// The last answer of each settled or held action.
    settled: BTreeMap<String, Value>,
    heads: BTreeMap<u64, String>,
}

impl Told {
    fn take(&mut self, line: &Value) {
        if let Some(k) = line["attested"].as_str() {
            self.attested.insert(k.to_string(), line["attestation"].as_str().unwrap_or_default().to_string());
        } else if let Some(k) = line["settled"].as_str() {
            self.settled.insert(k.to_string(), line["answer"].clone());
        } else if let Some(size) = line["head"]["size"].as_u64() {
            let note = line["head"]["note"].as_str().unwrap_or_default().to_string();
            if let Some(earlier) = self.heads.insert(size, note.clone()) {
                assert_eq!(earlier, note, "two different heads were returned for size {size}");
            }
        }
    }
}

fn check(db: &Path, told: &Told, iteration: u64) {
    let at = format!("after kill {iteration}");
    // Later than any child (each starts 40 s after the last), and within max_clock_ahead (7 days) of them: the
    // checkpoint below is a write, and a write further ahead than that is refused (clock_ahead).
    let r = open(db, 1, "k1", T0 + 500_000);
    let c = rusqlite::Connection::open(db).expect("opens");
    for (key, attestation) in &told.attested {
        let stored: String = c
            .query_row("SELECT attestation FROM actions WHERE tenant = 'acme' AND idempotency_key = ?1", [key], |r| {
                r.get(0)
            })
            .unwrap_or_else(|e| panic!("{at}: the returned attestation of {key} is lost: {e}"));
        assert_eq!(&stored, attestation, "{at}: attestation of {key}");
    }
    for (key, answer) in &told.settled {
        let state: String = c
            .query_row("SELECT state FROM actions WHERE tenant = 'acme' AND idempotency_key = ?1", [key], |r| r.get(0))
            .expect("the action exists");
        match answer["status"].as_str() {
            Some(status @ ("DONE" | "FAILED")) => {
                let seq = answer["seq"].as_u64().expect("seq");
                let got = r.receipt(seq).unwrap_or_else(|e| panic!("{at}: receipt {seq} of {key} is lost: {e}"));
                assert_eq!((got.idempotency_key.as_str(), got.status.as_str()), (key.as_str(), status), "{at}");
                assert_eq!(Some(got.receipt.as_str()), answer["receipt"].as_str(), "{at}: receipt {seq} changed");
            }
            // Held then maybe reconciled in a later child: settled or still held, never receipted as UNKNOWN.
            Some("HELD") => assert!(["held", "done", "failed", "released"].contains(&state.as_str()), "{at}: {key}"),
            Some("RELEASED") => assert_eq!(state, "released", "{at}: {key}"),
            other => panic!("{at}: unexpected answer {other:?}"),
        }
    }
    let doubled: i64 = c
        .query_row("SELECT count(*) FROM (SELECT 1 FROM receipts GROUP BY action HAVING count(*) > 1)", [], |r| {
            r.get(0)
        })
        .expect("counts");
    assert_eq!(doubled, 0, "{at}: an action has two receipts");
    let unknown_logged: i64 = c
        .query_row(
            "SELECT count(*) FROM receipts r JOIN actions a ON a.id = r.action \
             WHERE a.state NOT IN ('done', 'failed') OR lower(a.state) != lower(r.status)",
            [],
            |r| r.get(0),
        )
        .expect("counts");
    assert_eq!(unknown_logged, 0, "{at}: a receipt for an action that is not settled by it");
    let held_in_db: BTreeSet<String> = {
        let mut st = c.prepare("SELECT idempotency_key FROM actions WHERE state = 'held'").expect("prepares");
        st.query_map([], |r| r.get(0)).expect("queries").map(|k| k.expect("row")).collect()
    };
    let listed: BTreeSet<String> = r
        .open_actions(curbi_recorder::recorder::MAX_HELD)
        .expect("lists")
        .actions
        .into_iter()
        .filter(|a| a.state == "held")
        .map(|a| a.idempotency_key)
        .collect();
    assert_eq!(listed, held_in_db, "{at}: every held action is listed");
    // Every head returned is the stored head of its size and a prefix of today's log.
    for (size, note) in &told.heads {
        let stored: String =
            c.query_row("SELECT note FROM heads WHERE size = ?1", [*size as i64], |r| r.get(0)).expect("head kept");
        assert_eq!(&stored, note, "{at}: head of size {size}");
    }
    let head = r.checkpoint().expect("signs");
    if head.size == 0 {
        return;
    }
    let keys = r.keys().expect("keys").to_value();
    // Every head, the empty log's too: a known head of size 0 needs no proof and never fails a bundle.
    let known: Vec<&String> = told.heads.values().collect();
    for chunk in known.chunks(curbi::proof::bundle::MAX_CONSISTENCY) {
        let request = json!({"receipts": [0], "head": head.note, "known": chunk});
        let bundle = call(&r, "bundle", &request.to_string());
        let known: Vec<String> = chunk.iter().map(|s| (*s).clone()).collect();
        let v = verify(&bundle, &keys, &known);
        assert_eq!(v["ok"], true, "{at}: {v}");
    }
}

#[test]
fn killed_at_every_step_the_log_keeps_every_promise() {
    let iterations: u64 = std::env::var("CURBI_CRASH_ITERATIONS").ok().and_then(|s| s.parse().ok()).unwrap_or(200);
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("crash.db");
    let exe = std::env::current_exe().expect("test binary");
    let mut told = Told::default();
    let mut rng = Rng(0x5EED);
    let mut stopped_at: BTreeMap<&str, u64> = BTreeMap::new();
    for i in 0..iterations {
        let mut cmd = Command::new(&exe);
        cmd.args(["--exact", "child", "--nocapture", "--test-threads=1"])
            .env("CURBI_CRASH_DB", &db)
            .env("CURBI_CRASH_START", (i * 40).to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        // Two kills in three stop at a named point inside a transaction; the rest after a random delay.
        let point = (i % 3 != 2).then(|| POINTS[rng.below(POINTS.len() as u64) as usize]);
        if let Some(p) = point {
            cmd.env("CURBI_FAILPOINT", format!("{p}@{}", 1 + rng.below(6)));
        }
        let mut child = cmd.spawn().expect("spawns the child");
        let stdout = child.stdout.take().expect("stdout");
        let (send, lines) = mpsc::channel::<String>();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let delay = Duration::from_millis(if point.is_some() { 5_000 } else { rng.below(60) });
        let deadline = std::time::Instant::now() + delay;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match lines.recv_timeout(left) {
                // The test harness may print "test child ... " before the first line on the same line.
                Ok(line) if line.contains("FAILPOINT ") => {
                    *stopped_at.entry(point.unwrap_or("?")).or_default() += 1;
                    break;
                }
                Ok(line) if line.contains('{') => {
                    let v = report(&line);
                    if v["done"] == true {
                        break;
                    }
                    told.take(&v);
                }
                Ok(_) => {}
                Err(_) => break,
            }
        }
        let _ = child.kill();
        let _ = child.wait();
        // What the child printed before it died was acknowledged to it: take the rest of its lines too.
        for line in lines.try_iter().chain(std::iter::from_fn(|| lines.recv_timeout(Duration::from_millis(200)).ok())) {
            if line.contains('{') {
                let v = report(&line);
                if v["done"] != true {
                    told.take(&v);
                }
            }
        }
        let _ = reader.join();
        check(&db, &told, i);
    }
    assert!(told.settled.len() > iterations as usize / 4, "too little work happened: {}", told.settled.len());
    if iterations >= 100 {
        for p in POINTS {
            assert!(stopped_at.get(p).copied().unwrap_or(0) > 0, "no kill stopped at {p}: {stopped_at:?}");
        }
    }
    eprintln!("{iterations} kills; stopped at {stopped_at:?}; {} actions settled", told.settled.len());
}

/// The points a seal and its successor pass: the seal's transaction (its final head signed, stored, the log marked
/// sealed, COMMIT) and the successor's first entry (its grant, attestation and receipt, each committed).
const SEAL_POINTS: [&str; 8] = [
    "seal.signed",
    "seal.stored",
    "seal.sealed",
    "commit.before",
    "commit.after",
    "write.begin",
    "attest.stored",
    "settle.appended",
];

const SUCCESSOR: &str = "curbi-checkpoint-v1.shop.example/refunds-2";

/// The sealing child: seals the log at `CURBI_CRASH_DB` and starts its successor at `CURBI_CRASH_NEXT`, printing
/// the final head and the successor's entry once each call returned. Runs only when the parent starts it.
#[test]
fn seal_child() {
    let (Ok(db), Ok(next)) = (std::env::var("CURBI_CRASH_DB"), std::env::var("CURBI_CRASH_NEXT")) else { return };
    let r = open(Path::new(&db), 1, "k1", T0 + 600);
    let head = r.seal().expect("seals");
    println!("{}", json!({"sealed": head.note}));
    let s = Recorder::open(RecorderOptions::new(&next, SUCCESSOR, key(1, "k1")).fixed_clock(T0 + 700)).expect("opens");
    let entry = s.record_predecessor(&head.note).expect("records");
    println!("{}", json!({"entry": entry.receipt}));
    println!("{}", json!({"done": true}));
}

/// Runs the sealing child, stopped at `point` (or after `delay`), kills it, and returns what it printed.
fn run_seal_child(db: &Path, next: &Path, point: Option<&str>, delay: Duration) -> (Vec<Value>, bool) {
    let mut cmd = Command::new(std::env::current_exe().expect("test binary"));
    cmd.args(["--exact", "seal_child", "--nocapture", "--test-threads=1"])
        .env("CURBI_CRASH_DB", db)
        .env("CURBI_CRASH_NEXT", next)
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    if let Some(p) = point {
        cmd.env("CURBI_FAILPOINT", format!("{p}@1"));
    }
    let mut child = cmd.spawn().expect("spawns the child");
    let stdout = child.stdout.take().expect("stdout");
    let (send, lines) = mpsc::channel::<String>();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if send.send(line).is_err() {
                break;
            }
        }
    });
    let deadline = std::time::Instant::now() + delay;
    let (mut told, mut stopped) = (Vec::new(), false);
    loop {
        match lines.recv_timeout(deadline.saturating_duration_since(std::time::Instant::now())) {
            Ok(line) if line.contains("FAILPOINT ") => {
                stopped = true;
                break;
            }
            Ok(line) if line.contains('{') => {
                let v = report(&line);
                if v["done"] == true {
                    break;
                }
                told.push(v);
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    for line in lines.try_iter().chain(std::iter::from_fn(|| lines.recv_timeout(Duration::from_millis(200)).ok())) {
        if line.contains('{') && !line.contains("\"done\"") {
            told.push(report(&line));
        }
    }
    let _ = reader.join();
    (told, stopped)
}

#[test]
fn a_seal_and_its_successor_killed_at_every_step_finish_once_when_run_again() {
    let mut rng = Rng(0x5EA1);
    let mut stops = 0;
    let runs: Vec<Option<&str>> = SEAL_POINTS.iter().map(|p| Some(*p)).chain([None, None, None, None]).collect();
    for (i, point) in runs.into_iter().enumerate() {
        let dir = tempfile::tempdir().expect("dir");
        let (db, next) = (dir.path().join("log.db"), dir.path().join("next.db"));
        {
            let r = fresh_log(dir.path(), "log.db");
            grow(&r, 3, "rf");
            call(&r, "checkpoint", "{}");
            grow(&r, 5, "rf");
        }
        let delay = Duration::from_millis(if point.is_some() { 5_000 } else { rng.below(80) });
        let (told, stopped) = run_seal_child(&db, &next, point, delay);
        stops += usize::from(stopped);
        let at = format!("run {i}, killed at {point:?}");
        let told_head = told.iter().find_map(|v| v["sealed"].as_str().map(str::to_string));
        let told_entry = told.iter().find_map(|v| v["entry"].as_str().map(str::to_string));
        // What the killed child was told holds: a returned final head is sealed, a returned entry is entry 0.
        let r = open(&db, 1, "k1", T0 + 800);
        match (&told_head, r.sealed().expect("reads")) {
            (Some(note), Some(h)) => assert_eq!(&h.note, note, "{at}"),
            (Some(_), None) => panic!("{at}: a returned seal is lost"),
            // Killed inside the seal: sealed whole or not at all, and an unsealed log still takes writes.
            (None, None) => assert_eq!(call(&r, "checkpoint", "{}")["size"], 5, "{at}"),
            (None, Some(h)) => assert_eq!(h.size, 5, "{at}"),
        }
        drop(r);
        // Run again to the end: the same final head, the successor's entry 0 naming it, once.
        let (again, _) = run_seal_child(&db, &next, None, Duration::from_secs(30));
        let head = again.iter().find_map(|v| v["sealed"].as_str().map(str::to_string)).expect("sealed");
        let entry = again.iter().find_map(|v| v["entry"].as_str().map(str::to_string)).expect("entry");
        if let Some(note) = &told_head {
            assert_eq!(&head, note, "{at}: a second final head");
        }
        if let Some(e) = &told_entry {
            assert_eq!(&entry, e, "{at}: a second first entry");
        }
        let r = open(&db, 1, "k1", T0 + 900);
        assert_eq!(code_of(r.call_json("attest", attest_body("after", 100).as_bytes())), "sealed", "{at}");
        let keys = call(&r, "keys", "{}");
        let bundle = call(&r, "bundle", r#"{"receipts":[0,4]}"#);
        assert_eq!(verify(&bundle, &keys, &[])["ok"], true, "{at}");
        let s =
            Recorder::open(RecorderOptions::new(&next, SUCCESSOR, key(1, "k1")).fixed_clock(T0 + 900)).expect("opens");
        assert_eq!(call(&s, "status", "{}")["size"], 1, "{at}: the successor holds its one first entry");
        let first = s.receipt(0).expect("entry 0");
        assert_eq!(first.receipt, entry, "{at}");
        let named: Value = serde_json::from_slice(&first.evidence).expect("JSON");
        assert_eq!(named["head"].as_str(), Some(head.as_str()), "{at}");
    }
    assert!(stops >= SEAL_POINTS.len(), "only {stops} kills stopped at a failpoint");
}
