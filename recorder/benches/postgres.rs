//! The PostgreSQL store against the SQLite store, in one run (docs/PERFORMANCE.md §Recorder on PostgreSQL):
//! attest + confirm pairs per second (each pair two durable transactions, the confirm signing and appending one
//! receipt), with 1 and with 8 concurrent callers on one recorder, on a SQLite file and on a PostgreSQL cluster of
//! its own (tests/common/pg.rs: Debian's server, a temporary folder, a Unix socket, `fsync` and
//! `synchronous_commit` on). Prints each rate and the ratio PostgreSQL / SQLite.
//!
//! `cargo bench -p curbi-recorder --features postgres --bench postgres` (`make bench-postgres`). `CURBI_BENCH_PAIRS`
//! sets the pairs per run (default 400).
#![allow(clippy::panic, unreachable_pub, dead_code)]

mod common;
#[path = "../tests/common/pg.rs"]
mod pg;

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use common::{evidence, open, request};
use curbi_recorder::{Outcome, Recorder};

/// Attest + confirm pairs per second with `callers` threads sharing `pairs` actions.
fn pairs_per_second(r: &Arc<Recorder>, tag: &str, callers: usize, pairs: usize) -> f64 {
    let each = pairs / callers;
    let t = Instant::now();
    let threads: Vec<_> = (0..callers)
        .map(|c| {
            let r = r.clone();
            let tag = tag.to_string();
            std::thread::spawn(move || {
                for i in 0..each {
                    let key = format!("{tag}-{c}-{i}");
                    r.attest(&request(&key)).expect("attests");
                    r.confirm("acme", &key, Outcome::Done(evidence())).expect("confirms");
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("caller");
    }
    (each * callers) as f64 / t.elapsed().as_secs_f64()
}

fn main() {
    // `cargo bench` passes `--bench`; a plain `cargo test --benches` run passes nothing and only compiles this.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let pairs: usize = std::env::var("CURBI_BENCH_PAIRS").ok().and_then(|n| n.parse().ok()).unwrap_or(400);
    let dir = tempfile::tempdir().expect("dir");
    let sqlite = Arc::new(open(&dir.path().join("bench.db")));
    let server = pg::PgServer::start();
    let postgres = Arc::new(open(Path::new(&server.create_db("bench"))));
    println!("recorder on PostgreSQL vs SQLite: {pairs} attest+confirm pairs per run, fixed clock, full durability");
    for callers in [1, 8] {
        // Warm both (statements prepared, caches filled), then measure them alternately.
        pairs_per_second(&sqlite, &format!("warm{callers}"), callers, 8 * callers);
        pairs_per_second(&postgres, &format!("warm{callers}"), callers, 8 * callers);
        let s = pairs_per_second(&sqlite, &format!("c{callers}"), callers, pairs);
        let p = pairs_per_second(&postgres, &format!("c{callers}"), callers, pairs);
        println!(
            "{callers} caller{}: SQLite {s:.0} pairs/s, PostgreSQL {p:.0} pairs/s, ratio PostgreSQL/SQLite {:.2}",
            if callers == 1 { "" } else { "s" },
            p / s
        );
    }
}
