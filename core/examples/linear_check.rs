//! Check time per byte of reply, from 1 KB to 10 MB, for the adversarial reply shapes of issue 15 (an item and an
//! amount repeated, many amounts, many items, many phrase starts, counts, `respectively`, discounts, negations,
//! actions, one huge word): for each shape, the slowest size's nanoseconds per byte over the fastest's must stay
//! under 2 (linear time), or the run fails. The check is the library's own, on the current checker and the
//! previous one. Run: `cargo run --release -p curbi --example linear_check [max_bytes]` (docs/PERFORMANCE.md).
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use curbi::{CheckerVersion, CompiledPolicy, CompiledRecord};

const POLICY: &str = r#"{
  "prices": [
    {"item": "Pro", "amounts": [29, 290], "aliases": ["Pro plan"]},
    {"item": "Max", "amount": 99},
    {"item": "Starter", "amount": 9}
  ],
  "discounts": [{"percent": 10, "items": ["Pro"]}],
  "forbid": [
    {"id": "refund", "phrases": ["guaranteed full refund forever", "lifetime guarantee"], "why": "No guarantees."},
    {"id": "deal", "phrases": ["deal"], "match": "prefix"}
  ],
  "actions": {"refunded": "billing.refund", "cancelled": "billing.cancel"}
}"#;

const RECORD: &str = r#"{"effects": [{"operation": "billing.cancel", "status": "DONE"}]}"#;

/// The shapes: a name and the unit repeated to the size.
const SHAPES: &[(&str, &str)] = &[
    ("item and amount (the issue's)", "Pro $29 "),
    ("many amounts", "$31.50 "),
    ("many items", "Pro Max Starter "),
    ("phrase starts", "guaranteed full refund "),
    ("prefix matches", "deals "),
    ("counts and totals", "3 Pro at $87 "),
    ("respectively", "Pro and Max are $29 and $99 respectively. "),
    ("discounts", "20% off Pro "),
    ("negated amounts", "it's not $199, "),
    ("actions", "I refunded you and cancelled it. "),
    ("one sentence per amount", "Pro is $30. "),
    ("one huge word", "x"),
];

fn reply_of(unit: &str, bytes: usize) -> String {
    let mut s = unit.repeat(bytes / unit.len() + 1);
    s.truncate(bytes);
    while !s.is_char_boundary(s.len()) {
        s.pop();
    }
    s
}

/// Nanoseconds per byte of the check of `reply`, the best of enough runs to fill 150 ms (at least 2).
fn ns_per_byte(policy: &CompiledPolicy, record: &CompiledRecord, reply: &str, version: CheckerVersion) -> f64 {
    let mut best = Duration::MAX;
    let started = Instant::now();
    let mut runs = 0;
    while runs < 2 || started.elapsed() < Duration::from_millis(150) {
        let t = Instant::now();
        black_box(policy.check(black_box(reply), Some(record), version));
        best = best.min(t.elapsed());
        runs += 1;
    }
    best.as_nanos() as f64 / reply.len() as f64
}

fn main() {
    let max: usize = std::env::args().nth(1).map_or(10_000_000, |a| a.parse().unwrap());
    let policy = CompiledPolicy::from_json(POLICY.as_bytes()).unwrap();
    let record = CompiledRecord::from_json(RECORD.as_bytes()).unwrap();
    let mut sizes = vec![1_000usize];
    while *sizes.last().unwrap() * 10 <= max {
        sizes.push(sizes.last().unwrap() * 10);
    }
    let mut worst: f64 = 0.0;
    println!("ns per byte of reply; sizes {sizes:?} bytes; ratio = slowest / fastest (must be < 2)");
    for version in [CheckerVersion::CURRENT, CheckerVersion::V2026_11_01] {
        let only = std::env::var("LINEAR_ONLY").unwrap_or_default();
        for (name, unit) in SHAPES.iter().filter(|(n, _)| n.contains(only.as_str())) {
            let per: Vec<f64> =
                sizes.iter().map(|&n| ns_per_byte(&policy, &record, &reply_of(unit, n), version)).collect();
            let (lo, hi) = per.iter().fold((f64::MAX, 0f64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
            let ratio = hi / lo;
            worst = worst.max(ratio);
            let cells: Vec<String> = per.iter().map(|x| format!("{x:7.1}")).collect();
            println!("{:10} {name:32} {}  ratio {ratio:4.2}", version.as_str(), cells.join(" "));
        }
    }
    println!("worst ratio {worst:.2}");
    if worst >= 2.0 {
        eprintln!("linear_check: the cost per byte grows by {worst:.2}x from the fastest size to the slowest");
        std::process::exit(1);
    }
}
