//! Browser gate proof vectors (`gate-*`, docs/PROOF.md §Browser gate proofs): a `curbi.browser.gate-proof.v1`
//! wrapper as `bundle` and a `curbi.browser.gate-trust.v1` document as `keys`, made by the prover
//! (`curbi::proof::browser_gate::BrowserGate`) with the published test key and a fixed clock.
//!
//! The story: a page's gate holds the refund grant `grant:refunds` (agent `agent:support`, `billing.refund` on
//! `charge:*`, at most USD 100.00 per refund, a confirmation from USD 80.00, five uses, until 2026-11-04T14:00Z),
//! its registry says the grant was used once. At 14:01 the agent proposes a USD 500.00 refund: over the cap (DENY
//! `amount_over_cap`) and over the threshold (`confirmation_threshold`). At 14:02 it proposes USD 50.00: ALLOW, no
//! reason. Each result is logged; the log's heads have sizes 1 and 2. Every expected verdict below is worked from
//! the documented check order by hand, never from running the verifier.

use curbi::encoding::{encode_url, hex, sha256};
use curbi::proof::browser_gate::{BrowserGate, GateResult, Proved};
use curbi::proof::envelope::{Envelope, Kind};
use curbi::proof::keys::{KeySet, SigningKey, TrustedKey};
use curbi::proof::verify::Reason;
use serde_json::{Value, json};

use super::{Case, V, allow_test, jwks_with, request, test_jwks};
use crate::fixtures::T0;
use crate::keys::{OTHER_KEY_SEED, key_from_text, test_key};

/// The page gate's log.
pub const GATE_ORIGIN: &str = "curbi-checkpoint-v1.example.com/browser-gate";

/// The time `minutes` after 14:00 on 2026-11-03, RFC 3339.
fn at(minutes: i64) -> String {
    curbi::time::Timestamp::from_unix(T0 + minutes * 60, 0).map(|t| t.to_rfc3339()).unwrap_or_default()
}

fn policy() -> Value {
    json!({
        "id": "grant:refunds",
        "agent": "agent:support",
        "operations": ["billing.refund"],
        "resources": ["charge:*"],
        "limits": {"max_amount": 10000, "confirmation_threshold": 8000, "currency": "USD", "max_count": 5},
        "expires_at": "2026-11-04T14:00:00Z"
    })
}

fn registry() -> Value {
    json!({"used": 1})
}

fn proposal(amount: i64, minutes: i64) -> Value {
    json!({
        "action": {"agent": "agent:support", "operation": "billing.refund", "resource": "charge:ch_1001",
                   "amount": amount, "currency": "USD"},
        "now": at(minutes)
    })
}

fn gate(key: SigningKey, version: &str) -> BrowserGate {
    BrowserGate::new(key, GATE_ORIGIN, version).expect("the vector gate")
}

/// The honest run: the DENY at 14:01, then the ALLOW at 14:02.
fn honest() -> (Proved, Proved) {
    let mut g = gate(test_key(), "0.1.0");
    let deny = g.prove(&policy(), &registry(), &proposal(50_000, 1)).expect("proves");
    let allow = g.prove(&policy(), &registry(), &proposal(5_000, 2)).expect("proves");
    (deny, allow)
}

fn gate_request(p: &Proved) -> Value {
    request(p.proof.clone(), p.trust.clone(), &[allow_test()])
}

/// A copy of `v` with `edit` applied.
fn edited(v: &Value, edit: impl FnOnce(&mut Value)) -> Value {
    let mut v = v.clone();
    edit(&mut v);
    v
}

fn other_digest(what: &str) -> Value {
    hex(&sha256(format!("another {what}").as_bytes())).into()
}

/// The identity of the test key with a window.
fn identity_with(not_before: Option<i64>, expires: Option<i64>) -> Value {
    jwks_with(&test_key(), not_before, expires)
}

pub(super) fn cases() -> Vec<Case> {
    let (deny, allow) = honest();
    assert_eq!(deny.decision.verdict().as_str(), "DENY", "the USD 500.00 refund is over the cap");
    assert_eq!(allow.decision.verdict().as_str(), "ALLOW", "the USD 50.00 refund is within the grant");
    let valid = gate_request(&allow);
    let mut cases = Vec::new();
    let mut add = |name: &'static str, description: &str, reason: Reason, input: Value| {
        let items = match reason {
            Reason::Malformed => None,
            r => Some(vec![r]),
        };
        cases.push(Case { name, seed: false, description: description.to_string(), reason, items, input });
    };

    add(
        "gate-valid",
        "The ALLOW at 14:02 (a USD 50.00 refund within the grant), logged at index 1 under the size-2 head, with a \
         consistency proof from the size-1 head the trust document pins as previous; at = the result's issue time.",
        V,
        valid.clone(),
    );
    add(
        "gate-valid-deny",
        "The DENY at 14:01 (USD 500.00, over the USD 100.00 cap): a proven DENY verifies too, since the proof is of \
         the decision, not of a permission.",
        V,
        gate_request(&deny),
    );
    let mut liar = gate(test_key(), "0.1.0");
    let lie = liar
        .misbehave_prove([&policy(), &registry(), &proposal(50_000, 1)], |r: &mut GateResult| {
            r.decision = "ALLOW".into();
            r.reasons.clear();
        })
        .expect("proves");
    add(
        "gate-tampered-decision",
        "A gate signs and logs ALLOW with no reason for the USD 500.00 refund; re-running the action check on the \
         proposal gives DENY (amount over the cap).",
        Reason::DecisionMismatch,
        gate_request(&lie),
    );
    add(
        "gate-result-signature-bad",
        "The ALLOW result's payload says DENY after signing, the signature kept: it does not verify.",
        Reason::BadSignature,
        edited(&valid, |r| {
            let text = r["bundle"]["result"].as_str().expect("result").to_owned();
            let env = Envelope::parse(Kind::GateResult, &text).expect("own result");
            let payload = String::from_utf8(env.payload().to_vec()).expect("utf-8");
            let changed = payload.replace("\"decision\":\"ALLOW\"", "\"decision\":\"DENY\"");
            assert_ne!(changed, payload);
            let forged = format!(
                "{}{}.{}.{}",
                Kind::GateResult.domain(),
                encode_url(changed.as_bytes()),
                encode_url(env.signature()),
                env.kid()
            );
            r["bundle"]["result"] = forged.into();
        }),
    );
    add(
        "gate-policy-not-pinned",
        "The caller pins another policy digest than the one the result was decided against.",
        Reason::GateNotPinned,
        edited(&valid, |r| r["keys"]["policy"] = other_digest("policy")),
    );
    add(
        "gate-registry-not-pinned",
        "The caller pins another registry digest than the one the result was decided against.",
        Reason::GateNotPinned,
        edited(&valid, |r| r["keys"]["registry"] = other_digest("registry")),
    );
    add(
        "gate-below-min-version",
        "The result was made by curbi-web/0.1.0; the caller accepts 0.2.0 or later.",
        Reason::GateNotPinned,
        edited(&valid, |r| r["keys"]["minVersion"] = "0.2.0".into()),
    );
    let mut newer = gate(test_key(), "0.10.0");
    let newer = newer.prove(&policy(), &registry(), &proposal(5_000, 2)).expect("proves");
    add(
        "gate-min-version-by-number",
        "A result of curbi-web/0.10.0 against minVersion 0.9.0: versions compare by number (10 > 9), not as text.",
        V,
        edited(&gate_request(&newer), |r| r["keys"]["minVersion"] = "0.9.0".into()),
    );
    add(
        "gate-policy-swapped",
        "The wrapper carries a permissive policy (a USD 10,000.00 cap) in place of the one the result names; the \
         result and the pins are unchanged.",
        Reason::DecisionMismatch,
        edited(&valid, |r| r["bundle"]["policy"]["limits"]["max_amount"] = 1_000_000.into()),
    );
    add(
        "gate-proposal-swapped",
        "The wrapper's proposal is for USD 90.00, not the USD 50.00 the result names.",
        Reason::DecisionMismatch,
        edited(&valid, |r| r["bundle"]["proposal"]["action"]["amount"] = 9_000.into()),
    );
    add(
        "gate-not-in-log",
        "The ALLOW result claims leaf 0; its inclusion proof is for leaf 1 of the size-2 head.",
        Reason::NotInLog,
        edited(&valid, |r| r["bundle"]["index"] = 0.into()),
    );
    add(
        "gate-other-log",
        "The caller pins another log origin than the head's.",
        Reason::NotInLog,
        edited(&valid, |r| r["keys"]["log"] = "curbi-checkpoint-v1.example.com/other-gate".into()),
    );
    add(
        "gate-wrong-at-key-expired",
        "The identity key is valid until 14:02:30; the head and the result were signed at 14:02, but at is 14:03.",
        Reason::CheckpointKeyNotValidAtIssue,
        edited(&valid, |r| {
            r["keys"]["identity"] = identity_with(None, Some(T0 + 150));
            r["keys"]["at"] = at(3).into();
        }),
    );
    add(
        "gate-at-before-result",
        "at is 14:01, before the result's issue time 14:02.",
        Reason::Expired,
        edited(&valid, |r| r["keys"]["at"] = at(1).into()),
    );
    add(
        "gate-at-result-expired",
        "at is 15:02, exactly the result's exp (issued 14:02, valid for one hour, exclusive).",
        Reason::Expired,
        edited(&valid, |r| r["keys"]["at"] = at(62).into()),
    );
    add(
        "gate-previous-unproven",
        "The caller saw the size-1 head before; the wrapper carries no consistency proof from it.",
        Reason::HistoryUnproven,
        edited(&valid, |r| {
            r["bundle"].as_object_mut().expect("wrapper").remove("consistency");
        }),
    );
    let mut fork = gate(test_key(), "0.1.0");
    fork.prove(&policy(), &registry(), &proposal(40_000, 1)).expect("proves");
    let forked = fork.prove(&policy(), &registry(), &proposal(5_000, 2)).expect("proves");
    add(
        "gate-previous-forked",
        "The caller saw a size-2 head of the same log and key over another history (its first result a USD 400.00 \
         refund); the wrapper's size-2 head has another root: two signed heads of one size disagree.",
        Reason::ForkDetected,
        edited(&valid, |r| r["keys"]["previous"] = forked.proof["head"].clone()),
    );
    let production = KeySet::from_keys(vec![TrustedKey::new(test_key().verifying_key())]).expect("one key");
    add(
        "gate-production-key-refused",
        "The identity holds the gate's key without curbi:test: browser gate proofs are TEST only, so no key is left.",
        Reason::NoTrustedKeys,
        edited(&valid, |r| r["keys"]["identity"] = production.to_value()),
    );
    add(
        "gate-allow-test-missing",
        "The request does not set allowTest: the gate's test key is not trusted.",
        Reason::NoTrustedKeys,
        edited(&valid, |r| {
            r.as_object_mut().expect("request").remove("allowTest");
        }),
    );
    add(
        "gate-unknown-identity",
        "The identity pins another test key: the head is signed by no key the caller trusts.",
        Reason::CheckpointUnknownKey,
        edited(&valid, |r| r["keys"]["identity"] = jwks_with(&key_from_text(OTHER_KEY_SEED), None, None)),
    );
    let garbage = Envelope::sign(Kind::GateResult, br#"{"hello":"world"}"#.to_vec(), &test_key(), "k").expect("signs");
    add(
        "gate-signed-unreadable-result",
        "A result signed by the trusted key (kid \"k\" as the identity names it) whose payload is not a gate result.",
        Reason::Malformed,
        edited(&valid, |r| {
            r["bundle"]["result"] = garbage.to_compact().into();
            let k = TrustedKey::new(test_key().verifying_key()).with_kid("k").expect("kid").with_test(true);
            r["keys"]["identity"] = KeySet::from_keys(vec![k]).expect("one key").to_value();
        }),
    );

    // Malformed requests: the first unreadable member, with its pointer (core/tests/proof_vectors.rs lists each).
    let malformed: [(&'static str, &str, Value); 13] = [
        (
            "gate-malformed-unknown-member",
            "The wrapper has a member \"note\".",
            edited(&valid, |r| r["bundle"]["note"] = "hi".into()),
        ),
        (
            "gate-malformed-result-type",
            "The wrapper's result is a number.",
            edited(&valid, |r| r["bundle"]["result"] = 5.into()),
        ),
        (
            "gate-malformed-policy-used",
            "The policy carries \"used\", which is the registry's.",
            edited(&valid, |r| r["bundle"]["policy"]["used"] = 0.into()),
        ),
        (
            "gate-malformed-registry-member",
            "The registry has a member \"note\".",
            edited(&valid, |r| r["bundle"]["registry"]["note"] = "x".into()),
        ),
        (
            "gate-malformed-proposal-now",
            "The proposal's now is not an RFC 3339 date-time.",
            edited(&valid, |r| r["bundle"]["proposal"]["now"] = "yesterday".into()),
        ),
        (
            "gate-malformed-trust-without-at",
            "The trust document has no at.",
            edited(&valid, |r| {
                r["keys"].as_object_mut().expect("trust").remove("at");
            }),
        ),
        (
            "gate-malformed-trust-digest",
            "The trust document's policy is not a SHA-256 hex digest.",
            edited(&valid, |r| r["keys"]["policy"] = "ABC".into()),
        ),
        (
            "gate-malformed-trust-version",
            "The trust document's minVersion is not MAJOR.MINOR.PATCH.",
            edited(&valid, |r| r["keys"]["minVersion"] = "1.0".into()),
        ),
        (
            "gate-malformed-fresh-mode",
            "Fresh mode: a gate proof is verified at the trust document's at only.",
            edited(&valid, |r| {
                r["mode"] = "fresh".into();
                r["now"] = at(3).into();
            }),
        ),
        (
            "gate-malformed-witnesses",
            "A witness policy is not an option of a gate proof.",
            edited(&valid, |r| r["witnesses"] = json!({"keys": []})),
        ),
        (
            "gate-malformed-wrapper-under-jwks",
            "A gate-proof wrapper with a JWKS as keys.",
            edited(&valid, |r| r["keys"] = test_jwks()),
        ),
        (
            "gate-malformed-bundle-under-trust",
            "A curbi.proof/0.1 bundle with a gate-trust document as keys.",
            edited(&valid, |r| r["bundle"] = json!({"object": "curbi.proof/0.1", "head": "", "receipts": []})),
        ),
        (
            "gate-malformed-previous",
            "The trust document's previous is not a signed head.",
            edited(&valid, |r| r["keys"]["previous"] = "not a head".into()),
        ),
    ];
    for (name, description, input) in malformed {
        add(name, description, Reason::Malformed, input);
    }
    cases
}
