//! The DESIGN §8 check workload, shared by `benches/check.rs` (time) and `examples/check_count.rs` (instructions):
//! 10 items with aliases, 10 forbid rules, 5 actions, 3 facts, and a 200-character reply.
#![allow(dead_code)]

use curbi::{CompiledPolicy, CompiledRecord};

pub(crate) const POLICY: &str = r#"{
  "prices": [
    {"item": "Starter", "amounts": [19, 190], "aliases": ["Starter plan", "Basic"]},
    {"item": "Pro", "amounts": [49, 490], "aliases": ["Pro plan", "Professional"]},
    {"item": "Team", "amount": 99, "aliases": ["Team plan", "Teams"]},
    {"item": "Enterprise", "amount": 999, "aliases": ["Enterprise plan"]},
    {"item": "Pro Annual", "amount": 490, "aliases": ["annual Pro"]},
    {"item": "Storage add-on", "amount": 5, "aliases": ["extra storage"]},
    {"item": "Priority support", "amount": 29, "aliases": ["premium support"]},
    {"item": "Onboarding", "amount": 199, "aliases": ["onboarding package"]},
    {"item": "API pack", "amount": 39, "aliases": ["API add-on"]},
    {"item": "Seat", "amount": 12, "aliases": ["extra seat", "seats"]}
  ],
  "forbid": [
    {"id": "guarantee", "phrases": ["guarantee", "guaranteed results"]},
    {"id": "legal", "phrases": ["legal advice", "lawsuit"]},
    {"id": "medical", "phrases": ["diagnosis", "cure"]},
    {"id": "lifetime", "phrases": ["lifetime deal", "forever free"]},
    {"id": "competitor", "phrases": ["Acme", "Globex"]},
    {"id": "refund-promise", "phrases": ["full refund", "money back"]},
    {"id": "secret", "phrases": ["internal only", "confidential"]},
    {"id": "rude", "phrases": ["stupid", "idiot"]},
    {"id": "garanti", "phrases": ["garanti"], "match": "prefix"},
    {"id": "free", "phrases": ["free forever"], "negatable": false}
  ],
  "actions": {"refunded": "billing.refund", "canceled": "billing.cancel", "upgraded": "billing.upgrade",
              "booked": "calendar.book", "shipped": "orders.ship"},
  "discounts": [{"percent": 20, "items": ["Pro"]}]
}"#;

pub(crate) const RECORD: &str = r#"{
  "effects": [{"operation": "billing.upgrade", "status": "DONE"}],
  "facts": [
    {"near": "appointment", "kind": "time", "value": "15:30"},
    {"near": "delivery", "kind": "date", "value": "2026-11-03"},
    {"near": "refund", "kind": "money", "value": 49}
  ]
}"#;

/// 200 characters of the kind of reply an agent writes: prices, a claim, a fact, a negated phrase.
pub(crate) const REPLY: &str = "Hi Sam! I've upgraded you to Pro, which is $49 a month. Your appointment is at 3:30 PM on Nov 3. \
We don't guarantee results, but Team is $99 if you need more seats. Your $49 refund is on its way!";

/// The workload's compiled policy and parsed record.
pub(crate) fn compiled() -> (CompiledPolicy, CompiledRecord) {
    (CompiledPolicy::from_json(POLICY.as_bytes()).unwrap(), CompiledRecord::from_json(RECORD.as_bytes()).unwrap())
}
