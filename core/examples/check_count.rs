//! Instruction counts for the reply check on the DESIGN §8 workload (docs/PERFORMANCE.md), steadier than time on a
//! shared machine. Runs `CompiledPolicy::check` N times (default 10,000) under one checker version; run it under
//! callgrind with collection on only inside the measured loop, and divide by N:
//!
//! ```sh
//! cargo build --release -p curbi --example check_count
//! valgrind --tool=callgrind --collect-atstart=no --toggle-collect='check_count::measured' \
//!     target/release/examples/check_count 10000 2026-12-01
//! ```
#![allow(clippy::unwrap_used, missing_docs)]

use std::hint::black_box;

use curbi::{CheckerVersion, CompiledPolicy, CompiledRecord};

#[path = "../benches/common/check_workload.rs"]
mod workload;

#[inline(never)]
fn measured(p: &CompiledPolicy, record: &CompiledRecord, version: CheckerVersion, n: usize) -> usize {
    let mut findings = 0;
    for _ in 0..n {
        findings += p.check(black_box(workload::REPLY), Some(black_box(record)), version).len();
    }
    findings
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().map_or(10_000, |a| a.parse().unwrap());
    let version = args.next().map_or(CheckerVersion::CURRENT, |v| CheckerVersion::parse(&v).unwrap());
    let (p, record) = workload::compiled();
    let findings = measured(&p, &record, version, n);
    println!("{n} checks under {}, {findings} findings", version.as_str());
}
