//! The recorder's throughput against its floor, in one run (docs/PERFORMANCE.md §Recorder):
//! 1. one receipt per transaction: `confirm` calls (each signs a receipt and appends it, durably) against raw SQLite
//!    inserts of rows of the same size with the same durability (WAL, synchronous=FULL, one row per transaction),
//!    and against the "rules floor" (only the writes the schema's rules make any confirm do), taking turns in blocks
//!    (`CURBI_BENCH_ONLY=one` runs this part alone);
//! 2. many concurrent callers (commits grouped): receipts per second, attest and confirm both counted as work;
//! 3. a log of `CURBI_BENCH_LOG` receipts (default 1,000,000; built once and kept in target/): reopen time and the
//!    time of a one-receipt bundle.
//!
//! `cargo bench -p curbi-recorder --bench recorder` (`make bench-recorder`).

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

mod common;

use common::{evidence, open, request};
use curbi_recorder::{Outcome, Recorder};

fn attest(r: &Recorder, key: &str) {
    let a = r.attest(&request(key)).expect("attests");
    assert!(a.attestation.is_some());
}

/// Blocks the one-caller comparison is cut into: the recorder and the floor take turns block by block, so a disk
/// whose fsync rate drifts during the run (a shared machine's does) slows both alike.
const BLOCKS: usize = 10;

/// What one caller measured, in seconds per transaction.
struct OneCaller {
    confirm: f64,
    raw: f64,
    rules: f64,
    row: usize,
}

/// One caller, `n` confirms (each one transaction that signs and appends one receipt) against `n` raw inserts of
/// rows of the receipt's size with the same durability (WAL, synchronous=FULL, one row per transaction), and against
/// `n` transactions that write only what the recorder's schema rules make any confirm write (the "rules floor": an
/// action row's state changed, so it leaves a partial index of open actions, and a receipt row inserted under a
/// UNIQUE action and an index by subject; no signature, no tree), in alternating blocks.
fn one_caller(dir: &Path, n: usize) -> OneCaller {
    assert!(n > BLOCKS, "CURBI_BENCH_N must be more than {BLOCKS} (one warm-up confirm, then {BLOCKS} blocks)");
    let r = open(&dir.join("single.db"));
    for i in 0..n {
        attest(&r, &format!("s{i}"));
    }
    r.confirm("acme", "s0", Outcome::Done(evidence())).expect("confirms");
    let row = r.receipt(0).expect("receipt").receipt.len();
    let c = rusqlite::Connection::open(dir.join("floor.db")).expect("opens");
    c.execute_batch(
        "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; \
         CREATE TABLE rows (seq INTEGER PRIMARY KEY, tenant TEXT, idempotency_key TEXT, status TEXT, body TEXT, \
         evidence BLOB, created INTEGER)",
    )
    .expect("schema");
    let body = "x".repeat(row);
    let ev = evidence();
    // The action rows' size as the recorder stored them (request, answer, attestation).
    let action_bytes: i64 = rusqlite::Connection::open(dir.join("single.db"))
        .and_then(|db| {
            db.query_row(
                "SELECT length(tenant) + length(idempotency_key) + 32 + length(grant_id) + length(answer) \
                 + length(attestation) FROM actions LIMIT 1",
                [],
                |r| r.get(0),
            )
        })
        .expect("reads an action");
    let rules = rules_floor(&dir.join("rules.db"), n, action_bytes as usize);
    let (mut ours, mut raw, mut rules_time) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    let per = (n - 1) / BLOCKS;
    for b in 0..BLOCKS {
        let keys = 1 + b * per..1 + (b + 1) * per;
        let t = Instant::now();
        for i in keys.clone() {
            r.confirm("acme", &format!("s{i}"), Outcome::Done(evidence())).expect("confirms");
        }
        ours += t.elapsed();
        let t = Instant::now();
        for i in keys.clone() {
            c.execute_batch("BEGIN IMMEDIATE").expect("begins");
            c.prepare_cached("INSERT INTO rows VALUES (?1, 'acme', ?2, 'DONE', ?3, ?4, 0)")
                .expect("prepares")
                .execute(rusqlite::params![i as i64, format!("s{i}"), body, ev])
                .expect("inserts");
            c.execute_batch("COMMIT").expect("commits");
        }
        raw += t.elapsed();
        let t = Instant::now();
        for i in keys {
            rules.execute_batch("BEGIN IMMEDIATE").expect("begins");
            rules
                .prepare_cached("UPDATE actions SET state = 'done' WHERE id = ?1")
                .expect("prepares")
                .execute([i as i64])
                .expect("updates");
            rules
                .prepare_cached("INSERT INTO receipts VALUES (?1, ?1, 'charge:ch_1', ?2, ?3)")
                .expect("prepares")
                .execute(rusqlite::params![i as i64, body, ev])
                .expect("inserts");
            rules.execute_batch("COMMIT").expect("commits");
        }
        rules_time += t.elapsed();
    }
    let count = (per * BLOCKS) as f64;
    OneCaller {
        confirm: ours.as_secs_f64() / count,
        raw: raw.as_secs_f64() / count,
        rules: rules_time.as_secs_f64() / count,
        row,
    }
}

/// The rules floor's database: `n` open actions with rows of `action_bytes` (the recorder's), the indexes the
/// rules need, and nothing else.
fn rules_floor(path: &Path, n: usize, action_bytes: usize) -> rusqlite::Connection {
    let c = rusqlite::Connection::open(path).expect("opens");
    c.execute_batch(
        "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; \
         CREATE TABLE actions (id INTEGER PRIMARY KEY, state TEXT NOT NULL, body TEXT NOT NULL); \
         CREATE INDEX actions_open ON actions (id) WHERE state = 'open'; \
         CREATE TABLE receipts (seq INTEGER PRIMARY KEY, action INTEGER NOT NULL UNIQUE, resource TEXT NOT NULL, \
             body TEXT NOT NULL, evidence BLOB NOT NULL); \
         CREATE INDEX receipts_resource ON receipts (resource, seq);",
    )
    .expect("schema");
    c.execute_batch("BEGIN").expect("begins");
    let body = "x".repeat(action_bytes);
    for i in 0..n {
        c.execute("INSERT INTO actions VALUES (?1, 'open', ?2)", rusqlite::params![i as i64, body]).expect("inserts");
    }
    c.execute_batch("COMMIT").expect("commits");
    c
}

/// Receipts per second with `callers` threads, each attesting and confirming its own actions.
fn concurrent(dir: &Path, callers: usize, per: usize) -> f64 {
    let r = Arc::new(open(&dir.join("concurrent.db")));
    let t = Instant::now();
    let threads: Vec<_> = (0..callers)
        .map(|c| {
            let r = r.clone();
            std::thread::spawn(move || {
                for i in 0..per {
                    let key = format!("c{c}-{i}");
                    attest(&r, &key);
                    r.confirm("acme", &key, Outcome::Done(evidence())).expect("confirms");
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("thread");
    }
    (callers * per) as f64 / t.elapsed().as_secs_f64()
}

/// A log of `n` receipts, built once (many callers, grouped commits) and kept between runs.
fn big_log(n: u64) -> std::path::PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../target/bench-recorder-{n}.db"));
    if path.exists() {
        let r = open(&path);
        if r.status().expect("status")["size"].as_u64() == Some(n) {
            return path;
        }
        drop(r);
        for ext in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{ext}", path.display()));
        }
    }
    let r = Arc::new(open(&path));
    let callers = 64u64;
    let t = Instant::now();
    let threads: Vec<_> = (0..callers)
        .map(|c| {
            let r = r.clone();
            std::thread::spawn(move || {
                let mut i = c;
                while i < n {
                    let key = format!("b{i}");
                    attest(&r, &key);
                    r.confirm("acme", &key, Outcome::Done(evidence())).expect("confirms");
                    i += callers;
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("thread");
    }
    eprintln!("built a log of {n} receipts in {:.0} s", t.elapsed().as_secs_f64());
    r.checkpoint().expect("head");
    path
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let n: usize = std::env::var("CURBI_BENCH_N").ok().and_then(|s| s.parse().ok()).unwrap_or(2000);
    let log: u64 = std::env::var("CURBI_BENCH_LOG").ok().and_then(|s| s.parse().ok()).unwrap_or(1_000_000);
    // CURBI_BENCH_DIR=/dev/shm measures the CPU alone (fsync is free on tmpfs).
    let base = std::env::var("CURBI_BENCH_DIR")
        .map_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"), Into::into);
    let dir = tempfile::tempdir_in(base).expect("dir");
    if std::env::var("CURBI_BENCH_ONLY").as_deref() == Ok("concurrent") {
        println!("32 concurrent callers: {:.0} receipts/s", concurrent(dir.path(), 32, n / 4));
        return;
    }
    let one = one_caller(dir.path(), n);
    println!(
        "one receipt per transaction: {:.0} receipts/s; raw SQLite inserts of {}-byte rows: {:.0}/s; the schema \
         rules' own writes: {:.0}/s ({BLOCKS} alternating blocks)",
        1.0 / one.confirm,
        one.row,
        1.0 / one.raw,
        1.0 / one.rules
    );
    println!("ratio to the floor: {:.2} (target >= 0.80)", one.raw / one.confirm);
    println!(
        "the rules floor's ratio to the floor: {:.2}; the recorder's to it: {:.2}",
        one.raw / one.rules,
        one.rules / one.confirm
    );
    if std::env::var("CURBI_BENCH_ONLY").as_deref() == Ok("one") {
        return;
    }
    for callers in [8, 32] {
        println!(
            "{callers} concurrent callers (attest + confirm each): {:.0} receipts/s (target >= 5000)",
            concurrent(dir.path(), callers, n / 4)
        );
    }
    let path = big_log(log);
    let reopen = median(
        (0..5)
            .map(|_| {
                let t = Instant::now();
                let r = open(&path);
                let e = t.elapsed();
                drop(r);
                e
            })
            .collect(),
    );
    println!("reopen a {log}-receipt log: {:.1} ms (target <= 1000 ms)", reopen.as_secs_f64() * 1e3);
    let r = open(&path);
    let request = curbi_recorder::BundleRequest {
        select: curbi_recorder::Select::Seqs(vec![log / 3]),
        head: None,
        known: Vec::new(),
        attestations: true,
    };
    let bundle = median(
        (0..51)
            .map(|_| {
                let t = Instant::now();
                let b = r.bundle(&request).expect("bundles");
                let e = t.elapsed();
                assert_eq!(b.receipts.len(), 1);
                e
            })
            .collect(),
    );
    println!(
        "one-receipt bundle from the {log}-receipt log: {:.3} ms median (target <= 5 ms)",
        bundle.as_secs_f64() * 1e3
    );
}
