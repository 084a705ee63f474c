//! Receipts in checks (issue 16): a 200-character reply with two claimed actions against a record of 10 signed
//! receipts (`verify: "required"`, a verifier with the published test key), beside the same check against 10 caller
//! effects. The target is at most 10 µs more per check; signature verdicts are cached per verifier, so the steady
//! state pays lookups and claim matching, not Ed25519. The cold line is one verifier per check: every signature
//! verified again, what a verifier built per request would pay. Run: `cargo bench -p curbi --bench receipts`.
#![allow(clippy::unwrap_used, missing_docs)]

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};

use curbi::CompiledPolicy;
use curbi::api::{self, CheckOptions, ReceiptVerifier, SpanUnit};

const POLICY: &str = r#"{"actions": {"dispatched": "dispatch.create", "refunded": "billing.refund",
  "booked": "calendar.book", "canceled": "billing.cancel", "shipped": "orders.ship"},
  "prices": [{"item": "Pro", "amount": 49}, {"item": "Team", "amount": 99}]}"#;

/// Two claims (a dispatch, twice stated), a price and a negated action: about 200 characters.
const REPLY: &str = "Hi Sam! I've dispatched a technician for job 4411 and they will arrive at 3 PM. Pro is $49 a month \
if you want faster visits. I haven't canceled anything, and I dispatched the parts order too. Thanks!";

fn setup() -> (CompiledPolicy, CompiledPolicy, CheckOptions, CheckOptions, Vec<u8>, String) {
    let (bundle, keys) = curbi_testkit::large_bundle(10, false).unwrap();
    let receipts: Vec<Value> = bundle["receipts"].as_array().unwrap().iter().map(|r| r["receipt"].clone()).collect();
    assert_eq!(receipts.len(), 10);
    let trust = json!({"keys": keys.to_value(), "allowTest": true, "now": "2026-11-04T00:00:00Z"}).to_string();
    let verifier = Arc::new(ReceiptVerifier::from_json(trust.as_bytes()).unwrap());
    let plain = CompiledPolicy::from_json(POLICY.as_bytes()).unwrap();
    let signed = CompiledPolicy::from_json(POLICY.as_bytes()).unwrap().with_receipts(verifier);
    let effects: Vec<Value> =
        (0..10).map(|_| json!({"operation": "dispatch.create", "status": "DONE"})).collect::<Vec<_>>();
    let by_effects = CheckOptions::from_json(json!({"record": {"effects": effects}}).to_string().as_bytes()).unwrap();
    let by_receipts = json!({"record": {"receipts": receipts}, "verify": "required"}).to_string();
    let by_receipts_opts = CheckOptions::from_json(by_receipts.as_bytes()).unwrap();
    (plain, signed, by_effects, by_receipts_opts, POLICY.as_bytes().to_vec(), trust)
}

fn bench(c: &mut Criterion) {
    let (plain, signed, by_effects, by_receipts, policy, trust) = setup();
    // The two records back the same claims: both checks pass, so they do the same work but for the receipts.
    assert!(api::check_one(&plain, REPLY, &by_effects, SpanUnit::Utf16).unwrap().pass);
    let r = api::check_one(&signed, REPLY, &by_receipts, SpanUnit::Utf16).unwrap();
    assert!(r.pass && r.record_trust == "receipts_verified", "{}", r.to_json_string());

    c.bench_function("check_200_chars_10_effects", |b| {
        b.iter(|| api::check_one(&plain, black_box(REPLY), black_box(&by_effects), SpanUnit::Utf16))
    });
    c.bench_function("check_200_chars_10_receipts", |b| {
        b.iter(|| api::check_one(&signed, black_box(REPLY), black_box(&by_receipts), SpanUnit::Utf16))
    });
    c.bench_function("check_200_chars_10_receipts_cold_verifier", |b| {
        b.iter(|| {
            let p = CompiledPolicy::from_json_with_receipts(&policy, trust.as_bytes()).unwrap();
            api::check_one(&p, black_box(REPLY), black_box(&by_receipts), SpanUnit::Utf16)
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
