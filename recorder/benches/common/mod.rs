//! What the recorder's benchmarks share: one log opened the same way, one refund request, its evidence.
#![allow(dead_code, unreachable_pub)]

use std::path::Path;

use curbi_recorder::{AttestRequest, Recorder, RecorderOptions, parse_key};
use serde_json::json;

pub const ORIGIN: &str = "curbi-checkpoint-v1.bench.example/log";

pub fn open(path: &Path) -> Recorder {
    let key = parse_key(&curbi_recorder::keyfile::key_text(&[7; 32], Some("bench"))).expect("key");
    let r = Recorder::open(RecorderOptions::new(path, ORIGIN, key).fixed_clock(1_793_714_400)).expect("opens");
    let grant = json!({"id": "g", "agent": "agent:a", "operations": ["billing.refund"], "resources": ["charge:*"],
                       "limits": {"max_amount": 100000, "currency": "USD"}, "expires_at": "2027-01-01T00:00:00Z"});
    r.grant(&grant).expect("grant");
    r
}

pub fn request(key: &str) -> AttestRequest {
    AttestRequest {
        grant: "g".into(),
        mutation: curbi::proof::gate::Mutation {
            tenant: "acme".into(),
            idempotency_key: key.into(),
            agent: "agent:a".into(),
            operation: "billing.refund".into(),
            resource: "charge:ch_1".into(),
            amount: Some(500),
            currency: Some("USD".into()),
        },
        checkout: None,
        step_up_confirmed: false,
        conversation: None,
    }
}

pub fn evidence() -> Vec<u8> {
    br#"{"id":"re_1","operation":"billing.refund","resource":"charge:ch_1","amount":500,"currency":"usd","status":"succeeded"}"#
        .to_vec()
}
