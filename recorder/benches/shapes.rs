//! What the shape of a confirm's transaction costs against the floor, in one run on one disk (docs/PERFORMANCE.md
//! §Recorder, "What each part of a confirm's transaction costs"). No recorder code runs here: each line is
//! SQLite doing exactly one transaction shape, one per call, with the recorder's durability (WAL,
//! synchronous=FULL), in alternating blocks so that a drifting disk slows every line alike:
//! 1. the floor: one row of a receipt's size (the recorder bench's floor);
//! 2. that row in a receipts table under `UNIQUE (action)` (the least the schema's one-receipt rule writes);
//! 3. the same with the receipt signed (Ed25519) before the transaction, in the caller's thread;
//! 4. the same with the signature made on the other core while the commit waits for its fsync (the row holds the
//!    unsigned body: a signature that is not in the transaction);
//! 5. the writes today's schema makes a confirm do (the action row read and its state changed, leaving the
//!    partial index of open actions; the subject row and its index; the signed receipt under `UNIQUE (action)`),
//!    signing in the caller's thread;
//! 6. the receipt row alone, signed during the fsync, with every other row (signature, subject, the open set)
//!    written by a background thread into a second database file, in batches, without fsync;
//! 7. the receipt row and the action's state change, signed during the fsync, the signature and subject rows of the
//!    last 32 receipts written by every 32nd transaction in the same file;
//! 8. the receipt row alone, signed during the fsync, every other row (signature, subject, the action's state) of
//!    the last 32 receipts written by every 32nd transaction in the same file.
//!
//! `cargo bench -p curbi-recorder --bench shapes` (`make bench-recorder-shapes`); `CURBI_BENCH_DIR=/dev/shm` for
//! the CPU alone, `CURBI_BENCH_N` calls per line (default 4000).

use std::path::Path;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use curbi::proof::envelope::{Envelope, Kind};
use curbi_recorder::keyfile::key_text;
use curbi_recorder::{LoadedKey, parse_key};
use rusqlite::{Connection, params};

const BLOCKS: usize = 10;
/// A receipt's compact size in the recorder bench, and an action row's (request, answer, attestation).
const RECEIPT_BYTES: usize = 577;
const ACTION_BYTES: usize = 1400;
const RECEIPTS: &str = "CREATE TABLE receipts (seq INTEGER PRIMARY KEY, action INTEGER NOT NULL UNIQUE, \
    status TEXT NOT NULL, body TEXT NOT NULL, evidence BLOB NOT NULL, created INTEGER NOT NULL);";
const SUBJECTS: &str = "CREATE TABLE subjects (seq INTEGER PRIMARY KEY, resource TEXT NOT NULL, conversation TEXT); \
    CREATE INDEX subjects_resource ON subjects (resource, seq); \
    CREATE INDEX subjects_conversation ON subjects (conversation, seq) WHERE conversation IS NOT NULL;";
const PAYLOAD: &[u8] = br#"{"typ":"receipt","attestation":"sha256:0000000000000000000000000000000000000000000000000000000000000000","status":"DONE","evidence":"sha256:1111111111111111111111111111111111111111111111111111111111111111","resource":"charge:ch_1","iat":"2026-11-03T14:00:00Z","exp":"2026-12-03T14:00:00Z"}"#;
const EVIDENCE: &[u8] = br#"{"id":"re_1","operation":"billing.refund","resource":"charge:ch_1","amount":500,"currency":"usd","status":"succeeded"}"#;

fn db(path: &Path, schema: &str) -> Connection {
    let c = Connection::open(path).expect("opens");
    c.execute_batch(&format!("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; {schema}")).expect("schema");
    c
}

fn fill(c: &Connection, sql: &str, n: usize) {
    c.execute_batch("BEGIN").expect("begins");
    let body = "y".repeat(ACTION_BYTES);
    for i in 0..n {
        c.execute(sql, params![i as i64, body]).expect("fills");
    }
    c.execute_batch("COMMIT").expect("commits");
}

fn key() -> LoadedKey {
    parse_key(&key_text(&[7; 32], Some("bench"))).expect("key")
}

fn sign(key: &LoadedKey) -> String {
    Envelope::sign(Kind::Receipt, PAYLOAD.to_vec(), &key.key, &key.kid).expect("signs").to_compact()
}

fn insert_receipt(c: &Connection, i: usize, body: &str) {
    c.prepare_cached("INSERT INTO receipts VALUES (?1, ?1, 'DONE', ?2, ?3, 0)")
        .expect("prepares")
        .execute(params![i as i64, body, EVIDENCE])
        .expect("inserts");
}

fn read_action(c: &Connection, i: usize) {
    let _: String = c
        .prepare_cached("SELECT body FROM actions WHERE id = ?1")
        .expect("prepares")
        .query_row([i as i64], |r| r.get(0))
        .expect("reads");
}

fn insert_subject(c: &Connection, seq: i64) {
    c.prepare_cached("INSERT INTO subjects VALUES (?1, 'charge:ch_1', NULL)")
        .expect("prepares")
        .execute([seq])
        .expect("inserts");
}

const SETTLE: &str = "UPDATE actions SET state = 'done' WHERE id = ?1";

fn settle_action(c: &Connection, i: usize) {
    c.prepare_cached(SETTLE).expect("prepares").execute([i as i64]).expect("updates");
}

/// A thread that signs each payload it is sent and sends the envelope back: the other core.
struct Signer {
    to: Sender<()>,
    back: Receiver<String>,
}

impl Signer {
    fn start() -> Signer {
        let (to, jobs) = channel::<()>();
        let (done, back) = channel();
        std::thread::spawn(move || {
            let key = key();
            for () in jobs {
                if done.send(sign(&key)).is_err() {
                    break;
                }
            }
        });
        Signer { to, back }
    }
}

/// A thread that writes every row derived from a receipt (its signature, its subject, the action leaving the open
/// set) into a second database file, in batches of 32, without fsync: what a restart would rebuild from the log.
struct Deriver {
    to: Option<Sender<(i64, String)>>,
    thread: Option<JoinHandle<()>>,
}

impl Deriver {
    fn start(path: &Path, n: usize) -> Deriver {
        let c = db(
            path,
            &format!(
                "CREATE TABLE signatures (seq INTEGER PRIMARY KEY, signed TEXT NOT NULL); {SUBJECTS} \
                 CREATE TABLE open (id INTEGER PRIMARY KEY, body TEXT NOT NULL); PRAGMA synchronous = OFF;"
            ),
        );
        fill(&c, "INSERT INTO open VALUES (?1, ?2)", n);
        let (to, rows) = channel::<(i64, String)>();
        let thread = std::thread::spawn(move || {
            let mut pending = Vec::new();
            while let Ok(row) = rows.recv() {
                pending.push(row);
                pending.extend(rows.try_iter());
                if pending.len() < 32 {
                    continue;
                }
                c.execute_batch("BEGIN").expect("begins");
                derive(&c, &mut pending, Some("DELETE FROM open WHERE id = ?1"));
                c.execute_batch("COMMIT").expect("commits");
            }
        });
        Deriver { to: Some(to), thread: Some(thread) }
    }
}

impl Drop for Deriver {
    fn drop(&mut self) {
        drop(self.to.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Writes the rows derived from the receipts in `signed` (their signatures and subjects, and the action's change
/// `state`, when given, on each) inside the caller's open transaction: the catch-up a derived-rows recorder makes.
fn derive(c: &Connection, signed: &mut Vec<(i64, String)>, state: Option<&str>) {
    for (seq, sig) in signed.drain(..) {
        c.prepare_cached("INSERT INTO signatures VALUES (?1, ?2)")
            .expect("prepares")
            .execute(params![seq, sig])
            .expect("inserts");
        insert_subject(c, seq);
        if let Some(sql) = state {
            c.prepare_cached(sql).expect("prepares").execute([seq]).expect("changes the action");
        }
    }
}

const NAMES: [&str; 8] = [
    "floor: one row per transaction",
    "the receipt row under UNIQUE (action)",
    "  + signed in the caller's thread",
    "  + signed on the other core during the fsync",
    "today's schema's writes, signed in the caller's thread",
    "the receipt row alone, signed during the fsync, the rest derived beside it",
    "receipt row + action state, signed during the fsync, the rest every 32nd",
    "the receipt row alone, signed during the fsync, the rest every 32nd",
];

fn main() {
    let n: usize = std::env::var("CURBI_BENCH_N").ok().and_then(|s| s.parse().ok()).unwrap_or(4000);
    assert!(n >= BLOCKS, "CURBI_BENCH_N must be at least {BLOCKS}");
    let base = std::env::var("CURBI_BENCH_DIR")
        .map_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"), Into::into);
    let dir = tempfile::tempdir_in(base).expect("dir");
    let at = |name: &str| dir.path().join(name);
    let floor = db(
        &at("floor.db"),
        "CREATE TABLE rows (seq INTEGER PRIMARY KEY, tenant TEXT, idempotency_key TEXT, status TEXT, body TEXT, \
         evidence BLOB, created INTEGER);",
    );
    let unique = db(&at("unique.db"), RECEIPTS);
    let inline = db(&at("inline.db"), RECEIPTS);
    let during = db(&at("during.db"), RECEIPTS);
    let today = db(
        &at("today.db"),
        &format!(
            "CREATE TABLE actions (id INTEGER PRIMARY KEY, state TEXT NOT NULL, body TEXT NOT NULL); \
             CREATE INDEX actions_open ON actions (id) WHERE state = 'open'; {RECEIPTS} {SUBJECTS}"
        ),
    );
    fill(&today, "INSERT INTO actions VALUES (?1, 'open', ?2)", n);
    let alone = db(&at("alone.db"), RECEIPTS);
    let deriver = Deriver::start(&at("derived.db"), n);
    let same = |name: &str| {
        let c = db(
            &at(name),
            &format!(
                "CREATE TABLE actions (id INTEGER PRIMARY KEY, state TEXT NOT NULL, body TEXT NOT NULL); \
                 CREATE INDEX actions_open ON actions (id) WHERE state = 'open'; {RECEIPTS} {SUBJECTS} \
                 CREATE TABLE signatures (seq INTEGER PRIMARY KEY, signed TEXT NOT NULL);"
            ),
        );
        fill(&c, "INSERT INTO actions VALUES (?1, 'open', ?2)", n);
        c
    };
    let (state, batched) = (same("state.db"), same("batched.db"));
    let (mut state_due, mut batched_due) = (Vec::new(), Vec::new());
    let signer = Signer::start();
    let key = key();
    let body = "x".repeat(RECEIPT_BYTES);
    let mut time = [Duration::ZERO; NAMES.len()];
    let per = n / BLOCKS;
    for b in 0..BLOCKS {
        for (line, total) in time.iter_mut().enumerate() {
            let t = Instant::now();
            for i in b * per..(b + 1) * per {
                match line {
                    0 => {
                        floor.execute_batch("BEGIN IMMEDIATE").expect("begins");
                        floor
                            .prepare_cached("INSERT INTO rows VALUES (?1, 'acme', ?2, 'DONE', ?3, ?4, 0)")
                            .expect("prepares")
                            .execute(params![i as i64, format!("s{i}"), body, EVIDENCE])
                            .expect("inserts");
                        floor.execute_batch("COMMIT").expect("commits");
                    }
                    1 => {
                        unique.execute_batch("BEGIN IMMEDIATE").expect("begins");
                        insert_receipt(&unique, i, &body);
                        unique.execute_batch("COMMIT").expect("commits");
                    }
                    2 => {
                        let signed = sign(&key);
                        inline.execute_batch("BEGIN IMMEDIATE").expect("begins");
                        insert_receipt(&inline, i, &signed);
                        inline.execute_batch("COMMIT").expect("commits");
                    }
                    3 | 5 => {
                        let c = if line == 3 { &during } else { &alone };
                        signer.to.send(()).expect("sends");
                        c.execute_batch("BEGIN IMMEDIATE").expect("begins");
                        insert_receipt(c, i, &body);
                        c.execute_batch("COMMIT").expect("commits");
                        let signed = signer.back.recv().expect("signed");
                        if line == 5 {
                            deriver.to.as_ref().expect("open").send((i as i64, signed)).expect("sends");
                        }
                    }
                    6 | 7 => {
                        let (c, due) = if line == 6 { (&state, &mut state_due) } else { (&batched, &mut batched_due) };
                        signer.to.send(()).expect("sends");
                        c.execute_batch("BEGIN IMMEDIATE").expect("begins");
                        read_action(c, i);
                        if line == 6 {
                            settle_action(c, i);
                        }
                        insert_receipt(c, i, &body);
                        if due.len() >= 32 {
                            derive(c, due, (line == 7).then_some(SETTLE));
                        }
                        c.execute_batch("COMMIT").expect("commits");
                        due.push((i as i64, signer.back.recv().expect("signed")));
                    }
                    _ => {
                        let signed = sign(&key);
                        today.execute_batch("BEGIN IMMEDIATE").expect("begins");
                        read_action(&today, i);
                        settle_action(&today, i);
                        insert_subject(&today, i as i64);
                        insert_receipt(&today, i, &signed);
                        today.execute_batch("COMMIT").expect("commits");
                    }
                }
            }
            *total += t.elapsed();
        }
    }
    drop(deriver);
    let count = (per * BLOCKS) as f64;
    for (name, t) in NAMES.iter().zip(time) {
        println!(
            "{name:<76} {:7.1} µs  {:.2} of the floor",
            t.as_secs_f64() / count * 1e6,
            time[0].as_secs_f64() / t.as_secs_f64()
        );
    }
}
