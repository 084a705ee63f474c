//! Peak memory of verifying a large Proof of Action bundle (issue 7), in two steps so that building the fixture does
//! not count: `build REQUEST N [--attestations]` writes a `verify_bundle` request (a bundle of N receipts from the
//! reference gate with its fixed clock and the published test key, each with its attestation when asked, and the key
//! set trusting that key) to a file; `verify REQUEST`, run in a fresh process, reads the file, verifies it through
//! `api::verify_bundle_json` (the JSON entry every surface uses) on every core, and prints the reason and sizes
//! without reading the result back. `bench/proof_memory.sh` runs both and reads the peak from `/usr/bin/time -v`.
#![allow(clippy::unwrap_used, missing_docs)]

use std::process::ExitCode;
use std::sync::Arc;

use serde_json::{Value, json};

use curbi::proof::envelope::Limits;
use curbi::proof::gate::{Confirmation, FixedClock, Gate, GateConfig, Grant, Mutation, Outcome};
use curbi::proof::keys::{KeySet, TrustedKey};
use curbi::proof::vectors;

fn request(n: usize, attestations: bool) -> Value {
    let clock = Arc::new(FixedClock::new(vectors::T0));
    let mut gate = Gate::new(vectors::test_key(), GateConfig::new(vectors::ORIGIN), clock.clone()).unwrap();
    let grant = gate
        .grant(Grant {
            id: Some("grant:ops".into()),
            agent: "agent:ops".into(),
            operations: vec!["dispatch.create".into()],
            resources: vec!["job:*".into()],
            limits: Limits::default(),
            not_before: None,
            expires_at: vectors::T0 + 30 * 86_400,
        })
        .unwrap();
    for i in 0..n {
        let m = Mutation {
            tenant: vectors::TENANT.into(),
            idempotency_key: format!("dispatch-hvac-{i}"),
            agent: "agent:ops".into(),
            operation: "dispatch.create".into(),
            resource: format!("job:hvac-{i}"),
            amount: None,
            currency: None,
        };
        gate.attest(grant, &m).unwrap();
        clock.advance(1);
        let evidence = format!(
            r#"{{"operation":"dispatch.create","provider":"dispatch-sandbox","resource":"job:hvac-{i}","status":"succeeded"}}"#
        );
        let c = gate.confirm(vectors::TENANT, &m.idempotency_key, Outcome::Done(evidence.as_bytes())).unwrap();
        assert!(matches!(c, Confirmation::Receipt(_)));
    }
    clock.advance(60);
    let head = gate.checkpoint().unwrap();
    let leaves: Vec<u64> = (0..n as u64).collect();
    let bundle = gate.bundle(&leaves, &head, &[], attestations).unwrap().to_value();
    let keys = KeySet::from_keys(vec![TrustedKey::new(vectors::test_key().verifying_key()).with_test(true)]).unwrap();
    json!({"bundle": bundle, "keys": keys.to_value(), "allowTest": true})
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["build", path, n, rest @ ..] if rest.is_empty() || rest == ["--attestations"] => {
            let n: usize = n.parse().unwrap();
            std::fs::write(path, serde_json::to_vec(&request(n, !rest.is_empty())).unwrap()).unwrap();
            ExitCode::SUCCESS
        }
        ["verify", path] => {
            let bytes = std::fs::read(path).unwrap();
            let out = curbi::api::verify_bundle_json(&bytes).unwrap();
            // The result is not parsed back: that would count the harness, not the verifier.
            let ok = out.starts_with(r#"{"ok":true,"reason":"verifies""#);
            println!("verifies={ok} request_bytes={} result_bytes={}", bytes.len(), out.len());
            if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }
        }
        _ => {
            eprintln!("usage: verify_peak build REQUEST N [--attestations] | verify REQUEST");
            ExitCode::from(2)
        }
    }
}
