//! Large bundles for the verifier's benchmarks and memory measurements (core/benches/verify.rs, core/examples): many
//! DONE receipts from one reference gate, all proven under one head.

use std::sync::Arc;

use curbi::proof::envelope::Limits;
use curbi::proof::gate::{Confirmation, FixedClock, Gate, GateConfig, Grant, Mutation, Outcome};
use curbi::proof::keys::{KeySet, TrustedKey};
use serde_json::Value;

use crate::fixtures::{ORIGIN, T0, TENANT};
use crate::keys::test_key;

/// A bundle of `n` DONE dispatch receipts from one reference gate (fixed clock from `T0`, the published test key),
/// every receipt proven under one head, with or without their attestations, and the key set that trusts the test
/// key. For benchmarks and memory measurements of the verifier (core/benches/verify.rs, core/examples).
pub fn large_bundle(n: usize, attestations: bool) -> Result<(Value, KeySet), String> {
    let clock = Arc::new(FixedClock::new(T0));
    let mut gate = Gate::new(test_key(), GateConfig::new(ORIGIN), clock.clone()).map_err(|e| e.to_string())?;
    let grant = gate
        .grant(Grant {
            id: Some("grant:ops".into()),
            agent: "agent:ops".into(),
            operations: vec!["dispatch.create".into()],
            resources: vec!["job:*".into()],
            limits: Limits::default(),
            not_before: None,
            expires_at: T0 + 30 * 86_400,
        })
        .map_err(|e| e.to_string())?;
    for i in 0..n {
        let m = Mutation {
            tenant: TENANT.into(),
            idempotency_key: format!("dispatch-hvac-{i}"),
            agent: "agent:ops".into(),
            operation: "dispatch.create".into(),
            resource: format!("job:hvac-{i}"),
            amount: None,
            currency: None,
        };
        gate.attest(grant, &m).map_err(|e| e.to_string())?;
        clock.advance(1);
        let evidence = format!(
            r#"{{"operation":"dispatch.create","provider":"dispatch-sandbox","resource":"job:hvac-{i}","status":"succeeded"}}"#
        );
        match gate.confirm(TENANT, &m.idempotency_key, Outcome::Done(evidence.as_bytes())).map_err(|e| e.to_string())? {
            Confirmation::Receipt(_) => {}
            Confirmation::Held => return Err(format!("receipt {i} was held")),
        }
    }
    clock.advance(60);
    let head = gate.checkpoint().map_err(|e| e.to_string())?;
    let leaves: Vec<u64> = (0..n as u64).collect();
    let bundle = gate.bundle(&leaves, &head, &[], attestations).map_err(|e| e.to_string())?.to_value();
    let keys = KeySet::from_keys(vec![TrustedKey::new(test_key().verifying_key()).with_test(true)])
        .map_err(|e| e.to_string())?;
    Ok((bundle, keys))
}
