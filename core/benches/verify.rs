//! Proof of Action verify cost (issue 7): bundles built by the reference gate (fixed clock, the published test key)
//! are verified with `proof::verify::verify_bundle`, and beside them the floor is measured in the same run: one
//! Ed25519 `verify_strict` of a real receipt's signed bytes, its leaf hash and ⌈log2 n⌉ node hashes, with the proof
//! module's own functions. Fixtures are built before measuring. Run: `cargo bench -p curbi --bench verify`.
//!
//! Groups:
//! - `proof_verify/receipts_1_thread/<n>`: a bundle of n receipts (no attestations attached), `threads = 1`;
//!   per-receipt cost = median / n.
//! - `proof_verify/floor/<n>`: the floor for one receipt of an n-leaf log; ratio = per-receipt ÷ floor.
//! - `proof_verify/attested_1_thread/1024`: the same with every receipt's attestation attached (two signatures).
//! - `proof_verify_cores/10000/{1_thread,all_cores}`: the speed-up on every available core.
//! - `proof_verify_json/10000`: request bytes → result JSON (`api::verify_bundle_json`, all cores).
#![allow(clippy::unwrap_used, missing_docs)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Value, json};

use curbi::proof::bundle::ParsedBundle;
use curbi::proof::envelope::{Envelope, Kind};
use curbi::proof::keys::{KeySet, VerifyingKey};
use curbi::proof::merkle::{self, Hash};
use curbi::proof::verify::{self, Reason, VerifyOptions};

const SIZES: [usize; 3] = [16, 1_024, 10_000];

/// A bundle of `n` DONE receipts from one reference gate (fixed clock, the published test key), all proven under one
/// head, and the key set that trusts the test key.
fn bundle(n: usize, attestations: bool) -> (Value, KeySet) {
    curbi_testkit::large_bundle(n, attestations).unwrap()
}

fn options(keys: &KeySet, threads: usize) -> VerifyOptions {
    let mut o = VerifyOptions::new(keys.clone());
    o.allow_test = true;
    o.threads = threads;
    o
}

/// What the floor needs for one receipt of an n-leaf log: the key, the receipt's signed bytes, its signature, the
/// log entry (the compact receipt) and ⌈log2 n⌉ sibling hashes.
struct Floor {
    key: VerifyingKey,
    message: Vec<u8>,
    signature: [u8; 64],
    entry: Vec<u8>,
    siblings: Vec<Hash>,
}

fn floor_inputs(bundle: &Value, n: usize) -> Floor {
    let text = bundle["receipts"][0]["receipt"].as_str().unwrap();
    let env = Envelope::parse(Kind::Receipt, text).unwrap();
    let depth = (n as u64).next_power_of_two().trailing_zeros() as usize; // ⌈log2 n⌉
    Floor {
        key: curbi_testkit::test_key().verifying_key(),
        message: env.signed_bytes(),
        signature: *env.signature(),
        entry: text.as_bytes().to_vec(),
        siblings: (0..depth).map(|i| merkle::leaf_hash(&[i as u8])).collect(),
    }
}

fn floor(f: &Floor) -> Hash {
    f.key.verify(&f.message, &f.signature).unwrap();
    let mut h = merkle::leaf_hash(&f.entry);
    for s in &f.siblings {
        h = merkle::node_hash(&h, s);
    }
    h
}

fn bench_verify(c: &mut Criterion) {
    // Fixtures first: nothing below measures how they are made.
    let fixtures: Vec<(usize, ParsedBundle, KeySet, Floor)> = SIZES
        .iter()
        .map(|&n| {
            let (value, keys) = bundle(n, false);
            let parsed = ParsedBundle::from_value(&value, "/bundle").unwrap();
            let floor = floor_inputs(&value, n);
            (n, parsed, keys, floor)
        })
        .collect();
    for (n, parsed, keys, _) in &fixtures {
        let r = verify::verify_bundle(parsed, &options(keys, 1));
        assert_eq!(r.reason, Reason::Verifies, "{n}: {}", r.message);
    }

    let mut g = c.benchmark_group("proof_verify");
    g.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4));
    for (n, parsed, keys, f) in &fixtures {
        let one = options(keys, 1);
        g.throughput(Throughput::Elements(*n as u64));
        g.bench_with_input(BenchmarkId::new("receipts_1_thread", n), parsed, |b, p| {
            b.iter(|| verify::verify_bundle(black_box(p), &one))
        });
        g.throughput(Throughput::Elements(1));
        g.bench_with_input(BenchmarkId::new("floor", n), f, |b, f| b.iter(|| floor(black_box(f))));
    }
    let (value, keys) = bundle(1_024, true);
    let attested = ParsedBundle::from_value(&value, "/bundle").unwrap();
    let one = options(&keys, 1);
    assert_eq!(verify::verify_bundle(&attested, &one).reason, Reason::Verifies);
    g.throughput(Throughput::Elements(1_024));
    g.bench_function(BenchmarkId::new("attested_1_thread", 1_024), |b| {
        b.iter(|| verify::verify_bundle(black_box(&attested), &one))
    });
    g.finish();

    let (n, parsed, keys, _) = fixtures.last().unwrap();
    let mut g = c.benchmark_group("proof_verify_cores");
    g.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(6));
    g.throughput(Throughput::Elements(*n as u64));
    for (name, threads) in [("1_thread", 1), ("all_cores", 0)] {
        let o = options(keys, threads);
        g.bench_function(BenchmarkId::new(name, n), |b| b.iter(|| verify::verify_bundle(black_box(parsed), &o)));
    }
    g.finish();

    let (value, _) = bundle(10_000, false);
    let request = serde_json::to_vec(&json!({"bundle": value, "keys": keys.to_value(), "allowTest": true})).unwrap();
    let out = curbi::api::verify_bundle_json(&request).unwrap();
    assert!(out.starts_with(r#"{"ok":true,"reason":"verifies""#), "{}", &out[..200.min(out.len())]);
    let mut g = c.benchmark_group("proof_verify_json");
    g.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(6));
    g.throughput(Throughput::Elements(10_000));
    g.bench_function(BenchmarkId::from_parameter(10_000), |b| {
        b.iter(|| curbi::api::verify_bundle_json(black_box(&request)).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench_verify);
criterion_main!(benches);
