//! The demo transparency log behind `fetch_signed_receipt`: built once, at first use, by the reference gate
//! (`curbi::proof::gate`) with seed 003's four operation fixtures (a refund, a booking, a dispatch, a door unlock),
//! each attested and confirmed DONE with synthetic provider evidence, under the published TEST key
//! (`curbi_testkit::test_key`) and a fixed clock. Nothing is contacted and nothing is stored; the log is the
//! same on every start.

use std::sync::{Arc, LazyLock};

use curbi::proof::gate::{Confirmation, FixedClock, Gate, GateConfig, Outcome};
use curbi_testkit::{FIXTURES, T0, TENANT, test_key};
use serde_json::{Value, json};

/// The demo log's origin.
pub const ORIGIN: &str = "curbi-checkpoint-v1.demo.curbi.local/mcp-demo-log";

/// The built log: the gate, its signed head over all four receipts, and the JWKS that verifies it.
#[derive(Debug)]
pub struct DemoLog {
    gate: Gate,
    head: String,
    keys: Value,
}

static LOG: LazyLock<Result<DemoLog, String>> = LazyLock::new(build);

fn build() -> Result<DemoLog, String> {
    let clock = Arc::new(FixedClock::new(T0));
    let mut gate = Gate::new(test_key(), GateConfig::new(ORIGIN), clock.clone()).map_err(|e| e.to_string())?;
    for f in &FIXTURES {
        let grant = gate.grant(f.grant()).map_err(|e| e.to_string())?;
        clock.advance(60);
        gate.attest(grant, &f.mutation()).map_err(|e| e.to_string())?;
        clock.advance(60);
        let evidence = f.evidence("succeeded");
        match gate.confirm(TENANT, f.idempotency_key, Outcome::Done(&evidence)).map_err(|e| e.to_string())? {
            Confirmation::Receipt(_) => {}
            Confirmation::Held => return Err("the gate held a DONE confirmation".into()),
        }
    }
    clock.advance(60);
    let head = gate.checkpoint().map_err(|e| e.to_string())?;
    let keys = gate.jwks(true).map_err(|e| e.to_string())?.to_value();
    Ok(DemoLog { gate, head, keys })
}

/// How many entries the demo log has.
pub fn size() -> usize {
    LOG.as_ref().map_or(0, |l| l.gate.entries().len())
}

/// Entry `sequence` (its leaf index): the compact receipt, the attestation it completes, and a `curbi.proof/0.1`
/// bundle proving it under the signed head, with the TEST JWKS that verifies it (`verify_bundle` with `allowTest`).
/// `Err` with the reason when there is no such entry.
pub fn fetch(sequence: u64) -> Result<Value, String> {
    let log = LOG.as_ref().map_err(|e| format!("the demo log could not be built: {e}"))?;
    let entry = usize::try_from(sequence).ok().and_then(|i| log.gate.entries().get(i)).ok_or_else(|| {
        format!("a signed log entry is not available at sequence {sequence} (the log has {})", size())
    })?;
    let bundle = log.gate.bundle(&[sequence], &log.head, &[], false).map_err(|e| e.to_string())?;
    Ok(json!({
        "sequence": sequence,
        "origin": ORIGIN,
        "receipt": entry.receipt,
        "attestation": entry.attestation,
        "head": log.head,
        "bundle": bundle.to_value(),
        "keys": log.keys,
        "note": "A demo log signed with Curbi's published TEST key: verify with verify_bundle and allowTest true. It \
                 shows what that key signed and logged, not that any provider action happened.",
    }))
}

/// Entry `sequence` of a merchant's recorder (`CURBI_MCP_RECORDER_DB`): the same answer as the demo log's, from
/// the real log. The head is the latest signed one; when the entry is past it, a new head is signed first.
pub fn fetch_recorded(r: &curbi_recorder::Recorder, sequence: u64) -> Result<Value, curbi::Error> {
    let stored = r.receipt(sequence)?;
    let head = match r.latest_head()? {
        Some(h) if h.size > sequence => h,
        _ => r.checkpoint()?,
    };
    let request = curbi_recorder::BundleRequest {
        select: curbi_recorder::Select::Seqs(vec![sequence]),
        head: Some(head.note.clone()),
        known: Vec::new(),
        attestations: false,
    };
    let bundle = r.bundle(&request)?;
    Ok(json!({
        "sequence": sequence,
        "origin": r.origin(),
        "receipt": stored.receipt,
        "attestation": stored.attestation,
        "head": head.note,
        "bundle": bundle.to_value(),
        "keys": r.keys()?.to_value(),
        "note": "An entry of this merchant's recorder log: verify with verify_bundle under these keys (pinned \
                 out of band). It shows what the merchant's key signed and logged, not that the provider action \
                 happened.",
    }))
}
