//! DESIGN §8 workload: a 200-character reply against a realistic policy (10 items with aliases, 10 forbid rules,
//! 5 actions, 3 facts), and the policy compile. Run: `cargo bench -p curbi --bench check`.
#![allow(clippy::unwrap_used, missing_docs)]

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

use curbi::{CheckerVersion, CompiledPolicy, policy};

#[path = "common/check_workload.rs"]
mod workload;
use workload::{POLICY, RECORD, REPLY};

fn bench(c: &mut Criterion) {
    assert!(REPLY.chars().count() >= 195 && REPLY.chars().count() <= 205, "{}", REPLY.chars().count());
    let policy_value: serde_json::Value = serde_json::from_str(POLICY).unwrap();
    let (compiled, record) = workload::compiled();
    let p = compiled.policy().clone();

    c.bench_function("check_200_chars", |b| {
        b.iter(|| compiled.check(black_box(REPLY), Some(black_box(&record)), CheckerVersion::CURRENT))
    });
    // The previous checker on the same workload, so one run shows what the current one costs beside it.
    c.bench_function("check_200_chars_2026_11_01", |b| {
        b.iter(|| compiled.check(black_box(REPLY), Some(black_box(&record)), CheckerVersion::V2026_11_01))
    });
    c.bench_function("compile_policy", |b| b.iter(|| CompiledPolicy::new(black_box(p.clone()))));
    c.bench_function("parse_and_compile_policy_json", |b| {
        b.iter(|| CompiledPolicy::new(policy::parse_policy(black_box(&policy_value)).unwrap()))
    });
    let body = serde_json::to_vec(&serde_json::json!({
        "policy": policy_value, "reply": REPLY, "record": serde_json::from_str::<serde_json::Value>(RECORD).unwrap()
    }))
    .unwrap();
    c.bench_function("check_json_end_to_end", |b| {
        b.iter(|| curbi::api::check_json(black_box(&body)).unwrap().to_json_string())
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
