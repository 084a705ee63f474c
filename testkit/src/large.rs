//! Logs of DONE dispatch receipts from one reference gate: large bundles for the verifier's benchmarks and memory
//! measurements (core/benches/verify.rs, core/examples), and small logs with a head signed at chosen sizes.

use std::sync::Arc;

use curbi::proof::envelope::Limits;
use curbi::proof::gate::{Confirmation, FixedClock, Gate, GateConfig, Grant, GrantId, Mutation, Outcome};
use curbi::proof::keys::{KeySet, TrustedKey};
use serde_json::Value;

use crate::fixtures::{ORIGIN, T0, TENANT};
use crate::keys::test_key;

/// A bundle of `n` DONE dispatch receipts from one reference gate (fixed clock from `T0`, the published test key),
/// every receipt proven under one head, with or without their attestations, and the key set that trusts the test
/// key. For benchmarks and memory measurements of the verifier (core/benches/verify.rs, core/examples).
pub fn large_bundle(n: usize, attestations: bool) -> Result<(Value, KeySet), String> {
    let (mut gate, clock, grant) = dispatch_gate()?;
    for i in 0..n {
        let evidence = format!(
            r#"{{"operation":"dispatch.create","provider":"dispatch-sandbox","resource":"job:hvac-{i}","status":"succeeded"}}"#
        );
        dispatch_done(&mut gate, &clock, grant, &format!("dispatch-hvac-{i}"), &format!("job:hvac-{i}"), &evidence)?;
    }
    clock.advance(60);
    let head = gate.checkpoint().map_err(|e| e.to_string())?;
    let leaves: Vec<u64> = (0..n as u64).collect();
    let bundle = gate.bundle(&leaves, &head, &[], attestations).map_err(|e| e.to_string())?.to_value();
    let keys = KeySet::from_keys(vec![TrustedKey::new(test_key().verifying_key()).with_test(true)])
        .map_err(|e| e.to_string())?;
    Ok((bundle, keys))
}

/// A reference gate on a fixed clock from `T0` with the published test key, and its grant of `dispatch.create` on
/// `job:*` to `agent:ops` for thirty days.
pub fn dispatch_gate() -> Result<(Gate, Arc<FixedClock>, GrantId), String> {
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
    Ok((gate, clock, grant))
}

/// Attests a dispatch of `resource` under `key`, one second later confirms it DONE with `evidence`: one receipt.
pub fn dispatch_done(
    gate: &mut Gate,
    clock: &FixedClock,
    grant: GrantId,
    key: &str,
    resource: &str,
    evidence: &str,
) -> Result<(), String> {
    let m = Mutation {
        tenant: TENANT.into(),
        idempotency_key: key.into(),
        agent: "agent:ops".into(),
        operation: "dispatch.create".into(),
        resource: resource.into(),
        amount: None,
        currency: None,
    };
    gate.attest(grant, &m).map_err(|e| e.to_string())?;
    clock.advance(1);
    match gate.confirm(TENANT, key, Outcome::Done(evidence.as_bytes())).map_err(|e| e.to_string())? {
        Confirmation::Receipt(_) => Ok(()),
        Confirmation::Held => Err(format!("the receipt for {key} was held")),
    }
}

/// A log of `n` DONE dispatch receipts (`job-<i>` on `job:<i>`) with a head signed at every size from 0 to `n` that
/// `sign_at` picks: the gate and the heads, as (size, note text), smallest first.
pub fn dispatch_log(n: u64, sign_at: impl Fn(u64) -> bool) -> Result<(Gate, Vec<(u64, String)>), String> {
    let (mut gate, clock, grant) = dispatch_gate()?;
    let mut heads = Vec::new();
    for i in 0..=n {
        if sign_at(i) {
            heads.push((i, gate.checkpoint().map_err(|e| e.to_string())?));
        }
        if i < n {
            let evidence = format!(r#"{{"operation":"dispatch.create","resource":"job:{i}","status":"succeeded"}}"#);
            dispatch_done(&mut gate, &clock, grant, &format!("job-{i}"), &format!("job:{i}"), &evidence)?;
        }
    }
    Ok((gate, heads))
}
