//! The sixteen seed vectors, under seed 003's names and with its expected results, in the seed's order.
//! Issuer misbehaviour (conflicting receipts, a fork) is produced by the real gate, never written by hand.

use curbi::proof::envelope::{self, Envelope, Kind, Receipt, Status};
use curbi::proof::note;
use curbi::proof::verify::Reason;
use serde_json::{Value, json};

use super::{Case, Run, Step, V, allow_test, edit_payload, item, jwks_with, request, test_jwks, text};
use crate::fixtures::{BOOKING, DISPATCH, DOOR, FIXTURES, ORIGIN, REFUND, T0};
use crate::keys::{OTHER_KEY_SEED, key_from_text, test_key};

pub(super) fn cases(honest: &Run) -> Vec<Case> {
    let all = [0u64, 1, 2, 3];
    let valid = honest.bundle(&all, 1, &[0], true);
    let jwks = test_jwks();
    let mut cases = Vec::new();

    cases.push(Case {
        name: "valid-four-domains",
        seed: true,
        description: "Refund, booking, dispatch and door unlock: attested, provider-confirmed, logged, with a \
                      consistency proof from the size-2 head. Test key, allowTest."
            .into(),
        reason: Reason::Verifies,
        items: Some(vec![V; 4]),
        input: request(valid.clone(), jwks.clone(), &[allow_test()]),
    });
    cases.push(Case {
        name: "test-key-refused",
        seed: true,
        description: "The same valid bundle under default production settings: the only key is tagged curbi:test \
                      and allowTest is not set, so no key is trusted."
            .into(),
        reason: Reason::NoTrustedKeys,
        items: Some(vec![Reason::NoTrustedKeys; 4]),
        input: request(valid.clone(), jwks.clone(), &[]),
    });

    let mut tampered = valid.clone();
    let r = text(&item(&mut tampered, 0)["receipt"]);
    let r = edit_payload(Kind::Receipt, &r, |p| p.replace("\"amount\":5000,", "\"amount\":50000,"));
    item(&mut tampered, 0).insert("receipt".into(), r.into());
    cases.push(Case {
        name: "tampered-amount",
        seed: true,
        description: "The $50 refund receipt (5000 USD minor units) re-labelled as $500 (50000) without re-signing: \
                      the signature over the exact payload bytes fails."
            .into(),
        reason: Reason::BadSignature,
        items: Some(vec![Reason::BadSignature, V, V, V]),
        input: request(tampered, jwks.clone(), &[allow_test()]),
    });

    let mut as_receipt = valid.clone();
    let att = text(&item(&mut as_receipt, 0)["attestation"]);
    let relabelled = format!("{}{}", envelope::RECEIPT_DOMAIN, &att[envelope::ATTEST_DOMAIN.len()..]);
    item(&mut as_receipt, 0).insert("receipt".into(), relabelled.into());
    cases.push(Case {
        name: "attestation-as-receipt",
        seed: true,
        description: "The refund attestation (a permission) presented as its completion receipt: its signature \
                      covers curbi-attest-v1. and the payload, so under curbi-receipt-v1. it fails."
            .into(),
        reason: Reason::BadSignature,
        items: Some(vec![Reason::BadSignature, V, V, V]),
        input: request(as_receipt, jwks.clone(), &[allow_test()]),
    });

    let mut swapped = valid.clone();
    let (i0, p0) = (item(&mut swapped, 0)["index"].clone(), item(&mut swapped, 0)["proof"].clone());
    let (i1, p1) = (item(&mut swapped, 1)["index"].clone(), item(&mut swapped, 1)["proof"].clone());
    item(&mut swapped, 0).insert("index".into(), i1);
    item(&mut swapped, 0).insert("proof".into(), p1);
    item(&mut swapped, 1).insert("index".into(), i0);
    item(&mut swapped, 1).insert("proof".into(), p0);
    cases.push(Case {
        name: "wrong-position",
        seed: true,
        description: "The positions (leaf index and inclusion proof) of the refund and booking receipts swapped: \
                      neither leaf hash, recomputed from its receipt, is at the position claimed."
            .into(),
        reason: Reason::NotInLog,
        items: Some(vec![Reason::NotInLog, Reason::NotInLog, V, V]),
        input: request(swapped, jwks.clone(), &[allow_test()]),
    });

    // A second door unlock, correctly signed by the gate's key, never appended to the log.
    let door = Envelope::parse(Kind::Receipt, &honest.receipts[DOOR].receipt).expect("own receipt");
    let mut unlogged: Receipt = door.receipt().expect("own payload");
    unlogged.idempotency_key = "unlock-hq-floor-3-door-2-again".into();
    unlogged.iat += 30;
    unlogged.exp += 30;
    let unlogged = Envelope::sign(Kind::Receipt, unlogged.to_payload(), &test_key(), door.kid()).expect("signs");
    let mut not_logged = valid.clone();
    item(&mut not_logged, 3).insert("receipt".into(), unlogged.to_compact().into());
    item(&mut not_logged, 3).remove("attestation");
    cases.push(Case {
        name: "signed-but-not-logged",
        seed: true,
        description: "A correctly signed door-unlock receipt that was never appended to the log, carrying the \
                      logged door unlock's index and inclusion proof: its own leaf hash is not there."
            .into(),
        reason: Reason::NotInLog,
        items: Some(vec![V, V, V, Reason::NotInLog]),
        input: request(not_logged, jwks.clone(), &[allow_test()]),
    });

    let mut unbound = valid.clone();
    let dispatch_att = honest.attestations[DISPATCH].clone();
    item(&mut unbound, 0).insert("attestation".into(), dispatch_att.into());
    cases.push(Case {
        name: "attestation-not-bound",
        seed: true,
        description: "The dispatch attestation (validly signed) attached to the refund receipt: the receipt binds \
                      the SHA-256 of another attestation's signed bytes."
            .into(),
        reason: Reason::AttestationNotBound,
        items: Some(vec![Reason::AttestationNotBound, V, V, V]),
        input: request(unbound, jwks.clone(), &[allow_test()]),
    });

    let duplicated = honest.bundle(&[0, 0, 1, 2, 3], 1, &[0], true);
    cases.push(Case {
        name: "duplicate-item",
        seed: true,
        description: "The same refund receipt listed twice: keyed on the SHA-256 of its signed bytes, the second \
                      copy is a duplicate and counts once."
            .into(),
        reason: Reason::Duplicate,
        items: Some(vec![V, Reason::Duplicate, V, V, V]),
        input: request(duplicated, jwks.clone(), &[allow_test()]),
    });

    // Issuer misbehaviour: a second DONE receipt for the refund's tenant and idempotency key, logged.
    let mut bad = Run::honest();
    bad.clock.advance(60);
    let refund = &FIXTURES[REFUND];
    let second = bad
        .gate
        .misbehave_receipt(&bad.attestations[REFUND], Status::Done, &refund.evidence("succeeded"))
        .expect("signs anyway");
    bad.step(Step::Checkpoint);
    let conflicting = bad.bundle(&[0, second.leaf], 2, &[1], true);
    cases.push(Case {
        name: "conflicting-receipts",
        seed: true,
        description: "Two different DONE receipts (both signed, both logged) for one tenant and idempotency key: \
                      issuer misbehaviour; both are rejected and never counted as two refunds."
            .into(),
        reason: Reason::ConflictingReceipt,
        items: Some(vec![Reason::ConflictingReceipt; 2]),
        input: request(conflicting, jwks.clone(), &[allow_test()]),
    });

    // A fork: the same key signs another size-4 history whose last door unlock happened a minute later.
    let fork = Run::forked();
    let forked = fork.bundle(&all, 1, &[0], true);
    cases.push(Case {
        name: "equivocation",
        seed: true,
        description: "The verifier already saw the honest size-4 head (known); the bundle's head, signed by the same \
                      key, has the same size and another root: a fork, returned with both signed heads as evidence."
            .into(),
        reason: Reason::ForkDetected,
        items: Some(vec![V; 4]),
        input: request(forked, jwks.clone(), &[allow_test(), ("known", json!([honest.heads[1]]))]),
    });

    let rewritten = {
        use Step::*;
        Run::new(test_key(), ORIGIN, &[Done(BOOKING), Done(REFUND), Checkpoint])
    };
    let mut history = honest.bundle(&all, 1, &[0], true);
    history["consistency"][0]["head"] = Value::String(rewritten.heads[0].clone());
    cases.push(Case {
        name: "history-rewritten",
        seed: true,
        description: "An older size-2 head, signed by the same key, over a history whose first two receipts were \
                      reordered: the consistency proof to the current head cannot prove it a prefix."
            .into(),
        reason: Reason::HistoryUnproven,
        items: Some(vec![V; 4]),
        input: request(history, jwks.clone(), &[allow_test()]),
    });

    let truncated = honest.bundle(&[0, 1], 0, &[], true);
    cases.push(Case {
        name: "history-truncated",
        seed: true,
        description: "The size-2 head delivered to a verifier that knows the size-4 head: rejected as rollback. The \
                      signatures alone (one key, one clock) do not prove the issuer truncated its log."
            .into(),
        reason: Reason::HistoryUnproven,
        items: Some(vec![V; 2]),
        input: request(truncated, jwks.clone(), &[allow_test(), ("known", json!([honest.heads[1]]))]),
    });

    let other = key_from_text(OTHER_KEY_SEED);
    let honest_head = note::parse_curbi_checkpoint(&honest.heads[1]).expect("own head");
    let resigned = note::sign_curbi_checkpoint(honest_head.checkpoint(), &other, (T0 + 600) as u64).expect("signs");
    let mut unknown_key = valid.clone();
    unknown_key["head"] = Value::String(resigned);
    unknown_key.as_object_mut().expect("bundle").remove("consistency");
    cases.push(Case {
        name: "checkpoint-unknown-key",
        seed: true,
        description: "The honest size-4 checkpoint signed by another key (SHA-256(\"curbi test key 1\")) that the \
                      verifier does not trust; the receipts' own signatures are fine, but nothing proves their place."
            .into(),
        reason: Reason::CheckpointUnknownKey,
        items: Some(vec![Reason::CheckpointUnknownKey; 4]),
        input: request(unknown_key, jwks.clone(), &[allow_test()]),
    });

    let mut carries_keys = valid.clone();
    carries_keys["keys"] = jwks.clone();
    cases.push(Case {
        name: "trust-anchor-is-the-caller",
        seed: true,
        description: "The bundle carries the issuer's key set, the caller gives none: keys inside a bundle are \
                      ignored unless the caller opts in (trustBundleKeys), so the bundle cannot verify."
            .into(),
        reason: Reason::NoTrustedKeys,
        items: Some(vec![Reason::NoTrustedKeys; 4]),
        input: request(carries_keys, json!({"keys": []}), &[allow_test()]),
    });

    cases.push(Case {
        name: "fresh-mode-expired",
        seed: true,
        description: "Archival verification keeps history valid forever; fresh mode (conversation use) at \
                      2027-01-15T00:00:00Z refuses receipts past their exp (issue time + 30 days)."
            .into(),
        reason: Reason::Expired,
        items: Some(vec![Reason::Expired; 4]),
        input: request(
            valid.clone(),
            jwks.clone(),
            &[allow_test(), ("mode", "fresh".into()), ("now", "2027-01-15T00:00:00Z".into())],
        ),
    });

    cases.push(Case {
        name: "key-window",
        seed: true,
        description: "The key set retires the key at 2026-11-03T14:05:30Z (curbi:exp): the dispatch and door \
                      receipts (14:07, 14:09) and the size-4 head (14:10) were signed after, so it cannot vouch for \
                      them; the first two receipts cannot be placed without the head."
            .into(),
        reason: Reason::CheckpointKeyNotValidAtIssue,
        items: Some(vec![Reason::CheckpointKeyNotValidAtIssue; 4]),
        input: request(valid, jwks_with(&test_key(), None, Some(T0 + 330)), &[allow_test()]),
    });
    cases
}
