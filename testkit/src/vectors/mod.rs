//! The cases of `vectors/proof/` and how they are written: gate runs with a fixed clock (the honest one and its
//! variants), the request and edit helpers the cases share, and [`generate`], which makes every file byte for byte.
//!
//! Each case is built to trigger one reason; its expected result is written with the case (for the sixteen seed
//! vectors, from seed 003's table, in `seed`; Curbi's own in `own`), never obtained by running the verifier.

use std::sync::Arc;

use curbi::encoding::encode_url;
use curbi::proof::bundle::Bundle;
use curbi::proof::envelope::{Envelope, Kind};
use curbi::proof::gate::{Confirmation, FixedClock, Gate, GateConfig, GrantId, IssuedReceipt, Outcome};
use curbi::proof::keys::{KeySet, SigningKey, TrustedKey};
use curbi::proof::note::{NoteSigner, SignatureKind};
use curbi::proof::verify::Reason;
use serde_json::{Map, Value, json};

use crate::canonical::canonical_pretty;
use crate::fixtures::{BOOKING, DISPATCH, DOOR, FIXTURES, ORIGIN, REFUND, T0, TENANT};
use crate::keys::{TEST_KEY_SEED, WITNESS_NAMES, WITNESS_SEEDS, key_from_text, test_key};

mod check_receipts;
mod gate;
mod own;
mod seed;

pub use check_receipts::check_receipts;
pub use gate::GATE_ORIGIN;

/// What a step of a script does with its fixture.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Step {
    /// Attest, then confirm DONE.
    Done(usize),
    /// Attest, then confirm FAILED.
    Failed(usize),
    /// Attest, confirm UNKNOWN (held), then reconcile as DONE.
    UnknownThenDone(usize),
    /// Sign the head at the current size.
    Checkpoint,
}

/// A gate run: every attestation and receipt in order, and every head signed.
struct Run {
    gate: Gate,
    clock: Arc<FixedClock>,
    grants: Vec<GrantId>,
    attestations: Vec<String>,
    receipts: Vec<IssuedReceipt>,
    heads: Vec<String>,
}

impl Run {
    /// Runs `steps` on a fresh gate with `key` under `origin`: each action is attested 60 s after the previous
    /// event and confirmed 60 s later; each checkpoint is signed 60 s after the previous event.
    fn new(key: SigningKey, origin: &str, steps: &[Step]) -> Run {
        let clock = Arc::new(FixedClock::new(T0));
        let gate = Gate::new(key, GateConfig::new(origin), clock.clone()).expect("the vector gate configuration");
        let mut run =
            Run { gate, clock, grants: Vec::new(), attestations: Vec::new(), receipts: Vec::new(), heads: vec![] };
        for f in &FIXTURES {
            run.grants.push(run.gate.grant(f.grant()).expect("fixture grants are valid"));
        }
        for &step in steps {
            run.step(step);
        }
        run
    }

    fn honest() -> Run {
        use Step::*;
        Run::new(test_key(), ORIGIN, &[Done(REFUND), Done(BOOKING), Checkpoint, Done(DISPATCH), Done(DOOR), Checkpoint])
    }

    /// The fork: the same key signs another size-4 history whose door unlock happened a minute later.
    fn forked() -> Run {
        use Step::*;
        let mut f = Run::new(test_key(), ORIGIN, &[Done(REFUND), Done(BOOKING), Checkpoint, Done(DISPATCH)]);
        f.clock.advance(60);
        f.step(Done(DOOR));
        f.step(Checkpoint);
        f
    }

    fn step(&mut self, step: Step) {
        let (i, outcomes): (usize, &[&str]) = match step {
            Step::Checkpoint => {
                self.clock.advance(60);
                self.heads.push(self.gate.checkpoint().expect("signs"));
                return;
            }
            Step::Done(i) => (i, &["succeeded"]),
            Step::Failed(i) => (i, &["failed"]),
            Step::UnknownThenDone(i) => (i, &["unknown", "succeeded"]),
        };
        let f = &FIXTURES[i];
        self.clock.advance(60);
        let att = self.gate.attest(self.grants[i], &f.mutation()).expect("fixture mutations are allowed");
        self.attestations.push(att);
        for outcome in outcomes {
            self.clock.advance(60);
            let evidence = f.evidence(outcome);
            let o = match *outcome {
                "succeeded" => Outcome::Done(&evidence),
                "failed" => Outcome::Failed(&evidence),
                _ => Outcome::Unknown,
            };
            match self.gate.confirm(TENANT, f.idempotency_key, o).expect("fixture evidence matches") {
                Confirmation::Receipt(r) => self.receipts.push(r),
                Confirmation::Held => {}
            }
        }
    }

    fn bundle(&self, leaves: &[u64], head: usize, older: &[usize], attestations: bool) -> Value {
        let older: Vec<&str> = older.iter().map(|&i| self.heads[i].as_str()).collect();
        self.gate.bundle(leaves, &self.heads[head], &older, attestations).expect("own heads and leaves").to_value()
    }
}

/// The JWKS of `key` (kid: its RFC 7638 thumbprint), tagged `curbi:test`, with an optional window.
fn jwks_with(key: &SigningKey, not_before: Option<i64>, expires: Option<i64>) -> Value {
    let k =
        TrustedKey::new(key.verifying_key()).with_window(not_before, expires).expect("valid window").with_test(true);
    KeySet::from_keys(vec![k]).expect("one key").to_value()
}

fn test_jwks() -> Value {
    jwks_with(&test_key(), None, None)
}

fn witness(i: usize) -> NoteSigner {
    NoteSigner::new(WITNESS_NAMES[i], SignatureKind::CosignatureV1, key_from_text(WITNESS_SEEDS[i])).expect("name")
}

/// A case: what it proves, the request, and the result it is built to give.
struct Case {
    name: &'static str,
    seed: bool,
    description: String,
    reason: Reason,
    items: Option<Vec<Reason>>,
    input: Value,
}

fn request(bundle: Value, keys: Value, options: &[(&str, Value)]) -> Value {
    let mut m = Map::new();
    m.insert("bundle".into(), bundle);
    m.insert("keys".into(), keys);
    for (k, v) in options {
        m.insert((*k).to_string(), v.clone());
    }
    Value::Object(m)
}

fn allow_test() -> (&'static str, Value) {
    ("allowTest", Value::Bool(true))
}

/// `bundle.receipts[i]`, for edits.
fn item(bundle: &mut Value, i: usize) -> &mut Map<String, Value> {
    bundle["receipts"][i].as_object_mut().expect("a receipt entry")
}

fn text(v: &Value) -> String {
    v.as_str().expect("a string").to_string()
}

/// Replaces an envelope's payload, keeping its signature and kid.
fn edit_payload(kind: Kind, compact: &str, edit: impl Fn(&str) -> String) -> String {
    let env = Envelope::parse(kind, compact).expect("own envelope");
    let payload = String::from_utf8(env.payload().to_vec()).expect("utf-8 payload");
    let edited = edit(&payload);
    assert_ne!(edited, payload, "the edit changes the payload");
    format!("{}{}.{}.{}", kind.domain(), encode_url(edited.as_bytes()), encode_url(env.signature()), env.kid())
}

const V: Reason = Reason::Verifies;

/// Every file of `vectors/proof/`, as (file name, bytes): one file per case, `cases.json`, the published test key
/// set `keys.test.json` and the valid bundle `bundle.valid.json`.
pub fn generate() -> Vec<(String, Vec<u8>)> {
    let honest = Run::honest();
    let mut cases = seed::cases(&honest);
    cases.extend(own::cases(&honest));
    cases.extend(gate::cases());
    let mut files = Vec::new();
    let mut listed = Vec::new();
    for c in &cases {
        let file = format!("{}.json", c.name);
        let mut expected = Map::new();
        expected.insert("ok".into(), (c.reason == Reason::Verifies).into());
        expected.insert("reason".into(), c.reason.as_str().into());
        if let Some(items) = &c.items {
            expected.insert("items".into(), items.iter().map(|r| Value::from(r.as_str())).collect());
        }
        let doc = json!({
            "name": c.name,
            "seed": c.seed,
            "description": c.description,
            "expected": Value::Object(expected.clone()),
            "input": c.input,
        });
        files.push((file.clone(), canonical_pretty(&doc).into_bytes()));
        listed.push(json!({"name": c.name, "file": file, "seed": c.seed, "expected": Value::Object(expected)}));
    }
    let key = test_key().verifying_key();
    let index = json!({
        "description": "Curbi Proof of Action conformance vectors (curbi.proof/0.1). The sixteen seed vectors come \
                        first, under seed 003's names and with its expected results; the rest are Curbi's own. Each \
                        file holds one request for verify_bundle (bundle, keys, options) and the result it is built \
                        to give. Generated by `curbi vectors` from the reference gate with a fixed clock; \
                        docs/PROOF.md explains every case and format.",
        "format": "curbi.proof/0.1",
        "origin": ORIGIN,
        "clockStart": T0,
        "testKey": {
            "seed": format!("SHA-256(\"{TEST_KEY_SEED}\")"),
            "x": key.to_jwk_x(),
            "kid": key.thumbprint(),
        },
        "cases": listed,
    });
    files.push(("cases.json".into(), canonical_pretty(&index).into_bytes()));
    files.push(("keys.test.json".into(), canonical_pretty(&test_jwks()).into_bytes()));
    let valid: Bundle = honest.gate.bundle(&[0, 1, 2, 3], &honest.heads[1], &[&honest.heads[0]], true).expect("bundle");
    files.push(("bundle.valid.json".into(), canonical_pretty(&valid.to_value()).into_bytes()));
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_is_deterministic_and_complete() {
        let a = generate();
        let b = generate();
        assert_eq!(a, b);
        let names: Vec<&str> = a.iter().map(|(n, _)| n.as_str()).collect();
        for seed in ["valid-four-domains.json", "key-window.json", "cases.json", "keys.test.json"] {
            assert!(names.contains(&seed), "{seed}");
        }
        let cases = a.len() - 3;
        assert!(cases >= 16 + 20, "{cases} cases");
    }
}
