//! Curbi's own vectors beyond the seed: history, keys and signatures, inclusion, the gate's outcomes, witnesses,
//! and malformed requests and bundles of every kind.

use curbi::proof::encoding::{self, encode_url};
use curbi::proof::envelope::{self, Envelope, Kind};
use curbi::proof::gate;
use curbi::proof::note::{self, Checkpoint, NoteSigner, SignatureKind};
use curbi::proof::verify::Reason;
use serde_json::{Value, json};

use super::{Case, Run, Step, V, allow_test, edit_payload, item, jwks_with, request, test_jwks, text, witness};
use crate::fixtures::{DOOR, ORIGIN, REFUND, T0};
use crate::keys::{OTHER_KEY_SEED, key_from_text, test_key};

pub(super) fn cases(honest: &Run) -> Vec<Case> {
    let all = [0u64, 1, 2, 3];
    let valid = honest.bundle(&all, 1, &[0], true);
    let jwks = test_jwks();
    let mut cases = Vec::new();
    let mut add = |name: &'static str, description: &str, reason: Reason, items: Option<Vec<Reason>>, input: Value| {
        cases.push(Case { name, seed: false, description: description.to_string(), reason, items, input });
    };

    // History.
    add(
        "known-head-proven",
        "The caller knows the size-2 head; the bundle's consistency proof from it to the size-4 head verifies.",
        Reason::Verifies,
        Some(vec![V; 4]),
        request(valid.clone(), jwks.clone(), &[allow_test(), ("known", json!([honest.heads[0]]))]),
    );
    add(
        "known-head-is-the-head",
        "The caller knows exactly the bundle's head: same size, same root, nothing to prove.",
        Reason::Verifies,
        None,
        request(valid.clone(), jwks.clone(), &[allow_test(), ("known", json!([honest.heads[1]]))]),
    );
    let bare = honest.bundle(&all, 1, &[], true);
    add(
        "known-head-without-proof",
        "The caller knows the size-2 head but the bundle carries no consistency proof from it.",
        Reason::HistoryUnproven,
        Some(vec![V; 4]),
        request(bare.clone(), jwks.clone(), &[allow_test(), ("known", json!([honest.heads[0]]))]),
    );
    let other_log =
        Run::new(test_key(), "curbi-checkpoint-v1.example.com/other-log", &[Step::Done(REFUND), Step::Checkpoint]);
    add(
        "known-head-of-another-log",
        "A known head of another log (another origin), signed by the same key, proves nothing about this one.",
        Reason::HistoryUnproven,
        None,
        request(valid.clone(), jwks.clone(), &[allow_test(), ("known", json!([other_log.heads[0]]))]),
    );
    let stranger = Run::new(key_from_text(OTHER_KEY_SEED), ORIGIN, &[Step::Done(REFUND), Step::Checkpoint]);
    add(
        "known-head-unknown-key",
        "A known head signed by a key the caller does not trust is checked like the bundle's head.",
        Reason::CheckpointUnknownKey,
        None,
        request(valid.clone(), jwks.clone(), &[allow_test(), ("known", json!([stranger.heads[0]]))]),
    );
    let fork = Run::forked();
    let mut self_fork = valid.clone();
    self_fork["consistency"] = json!([{"head": fork.heads[1], "proof": []}]);
    add(
        "bundle-contradicts-itself",
        "The bundle's own consistency list carries another size-4 head signed by the same key: a fork.",
        Reason::ForkDetected,
        None,
        request(self_fork, jwks.clone(), &[allow_test()]),
    );
    let mut larger = honest.bundle(&[0, 1], 0, &[], true);
    larger["consistency"] = json!([{"head": honest.heads[1], "proof": []}]);
    add(
        "older-head-larger-than-head",
        "A consistency entry whose 'older' head is larger than the bundle's head cannot be a prefix of it.",
        Reason::HistoryUnproven,
        Some(vec![V; 2]),
        request(larger, jwks.clone(), &[allow_test()]),
    );

    // Signatures and keys.
    let refund_receipt = Envelope::parse(Kind::Receipt, &honest.receipts[REFUND].receipt).expect("own receipt");
    let forged = Envelope::sign(
        Kind::Receipt,
        refund_receipt.payload().to_vec(),
        &key_from_text(OTHER_KEY_SEED),
        refund_receipt.kid(),
    )
    .expect("signs");
    let mut impostor = valid.clone();
    item(&mut impostor, 0).insert("receipt".into(), forged.to_compact().into());
    add(
        "receipt-signed-by-another-key",
        "The refund payload signed by an untrusted key under the trusted key's kid: the signature fails.",
        Reason::BadSignature,
        Some(vec![Reason::BadSignature, V, V, V]),
        request(impostor, jwks.clone(), &[allow_test()]),
    );
    let mut relabelled = valid.clone();
    let r = text(&item(&mut relabelled, 1)["receipt"]);
    let (body, _) = r.rsplit_once('.').expect("compact form");
    item(&mut relabelled, 1).insert("receipt".into(), format!("{body}.not-a-trusted-kid").into());
    add(
        "receipt-unknown-kid",
        "The booking receipt names a kid the caller's key set does not have: no trusted key signed it.",
        Reason::BadSignature,
        Some(vec![V, Reason::BadSignature, V, V]),
        request(relabelled, jwks.clone(), &[allow_test()]),
    );
    let mut att_tampered = valid.clone();
    let a = text(&item(&mut att_tampered, 0)["attestation"]);
    let a = edit_payload(Kind::Attestation, &a, |p| p.replace("\"maxAmount\":10000", "\"maxAmount\":1000000"));
    item(&mut att_tampered, 0).insert("attestation".into(), a.into());
    add(
        "attestation-tampered",
        "The refund attestation's limit raised without re-signing: the attestation's signature fails.",
        Reason::BadSignature,
        Some(vec![Reason::BadSignature, V, V, V]),
        request(att_tampered, jwks.clone(), &[allow_test()]),
    );
    add(
        "receipts-without-attestations",
        "Attestations are optional in a bundle: the four receipts alone verify.",
        Reason::Verifies,
        Some(vec![V; 4]),
        request(honest.bundle(&all, 1, &[0], false), jwks.clone(), &[allow_test()]),
    );
    let mut bundle_keys = valid.clone();
    bundle_keys["keys"] = jwks.clone();
    add(
        "trust-bundle-keys-opt-in",
        "The caller gives no keys but opts in to the bundle's own key set (trustBundleKeys) and allows test keys.",
        Reason::Verifies,
        Some(vec![V; 4]),
        request(bundle_keys.clone(), json!({"keys": []}), &[allow_test(), ("trustBundleKeys", true.into())]),
    );
    add(
        "trust-bundle-keys-test-refused",
        "Opting in to the bundle's keys does not lift the test-key policy: without allowTest nothing is trusted.",
        Reason::NoTrustedKeys,
        Some(vec![Reason::NoTrustedKeys; 4]),
        request(bundle_keys, json!({"keys": []}), &[("trustBundleKeys", true.into())]),
    );
    add(
        "key-retired-after-head",
        "The key is retired an hour after the head was signed: in archival mode history stays valid.",
        Reason::Verifies,
        Some(vec![V; 4]),
        request(valid.clone(), jwks_with(&test_key(), None, Some(T0 + 3600)), &[allow_test()]),
    );
    add(
        "key-not-yet-valid",
        "The key is valid only from 2026-11-03T14:05:30Z (curbi:nbf): the older size-2 head (14:05) and the first \
         two receipts (14:02, 14:04) were signed before.",
        Reason::CheckpointKeyNotValidAtIssue,
        Some(vec![Reason::CheckpointKeyNotValidAtIssue, Reason::CheckpointKeyNotValidAtIssue, V, V]),
        request(valid.clone(), jwks_with(&test_key(), Some(T0 + 330), None), &[allow_test()]),
    );
    add(
        "fresh-mode-current",
        "Fresh mode a day after issue: every receipt is within its 30 days and the key is valid now.",
        Reason::Verifies,
        Some(vec![V; 4]),
        request(
            valid.clone(),
            jwks.clone(),
            &[allow_test(), ("mode", "fresh".into()), ("now", "2026-11-04T14:00:00Z".into())],
        ),
    );
    add(
        "fresh-mode-key-not-valid-now",
        "Fresh mode: the key retired on 2026-11-10, the receipts are still within their 30 days on 2026-11-20, \
         but the key is not valid now.",
        Reason::Expired,
        Some(vec![Reason::Expired; 4]),
        request(
            valid.clone(),
            jwks_with(&test_key(), None, Some(T0 + 7 * 86_400)),
            &[allow_test(), ("mode", "fresh".into()), ("now", "2026-11-20T00:00:00Z".into())],
        ),
    );

    // Inclusion.
    let mut beyond = valid.clone();
    item(&mut beyond, 3).insert("index".into(), 4.into());
    add(
        "index-beyond-head",
        "The door unlock claims leaf 4 of a 4-leaf tree.",
        Reason::NotInLog,
        Some(vec![V, V, V, Reason::NotInLog]),
        request(beyond, jwks.clone(), &[allow_test()]),
    );
    let mut short = valid.clone();
    item(&mut short, 2)["proof"].as_array_mut().expect("proof").pop();
    add(
        "proof-one-element-short",
        "The dispatch receipt's inclusion proof lacks its last element: not the exact RFC 9162 length.",
        Reason::NotInLog,
        Some(vec![V, V, Reason::NotInLog, V]),
        request(short, jwks.clone(), &[allow_test()]),
    );

    // The gate's outcomes: FAILED, a retry, and an UNKNOWN reconciled later.
    let outcomes = {
        use Step::*;
        Run::new(test_key(), ORIGIN, &[Failed(REFUND), Done(REFUND), UnknownThenDone(DOOR), Checkpoint])
    };
    add(
        "failed-then-done-and-reconciled",
        "A FAILED refund, its retry DONE under the same idempotency key (one DONE: no conflict), and a door unlock \
         held as UNKNOWN (never logged) then reconciled as DONE: three receipts.",
        Reason::Verifies,
        Some(vec![V; 3]),
        request(outcomes.bundle(&[0, 1, 2], 0, &[], true), jwks.clone(), &[allow_test()]),
    );

    // Witnesses.
    let head = &honest.heads[1];
    let w0 = witness(0);
    let w1 = witness(1);
    let both = gate::witness_cosign(head, &w0, (T0 + 610) as u64).expect("cosigns");
    let both = gate::witness_cosign(&both, &w1, (T0 + 620) as u64).expect("cosigns");
    let only_w0 = gate::witness_cosign(head, &w0, (T0 + 610) as u64).expect("cosigns");
    let only_w1 = gate::witness_cosign(head, &w1, (T0 + 620) as u64).expect("cosigns");
    let pinned = json!([w0.verifier().to_vkey(), w1.verifier().to_vkey()]);
    let with_head = |h: &str| {
        let mut b = valid.clone();
        b["head"] = Value::String(h.to_string());
        b
    };
    add(
        "witness-2-of-2",
        "The head carries cosignatures of both pinned witnesses; the policy requires 2 of 2.",
        Reason::Verifies,
        Some(vec![V; 4]),
        request(with_head(&both), jwks.clone(), &[allow_test(), ("witnesses", json!({"keys": pinned, "required": 2}))]),
    );
    add(
        "witness-1-of-2-required-2",
        "Only one pinned witness cosigned; the policy requires 2: the head's uniqueness is not shown.",
        Reason::HistoryUnproven,
        None,
        request(
            with_head(&only_w0),
            jwks.clone(),
            &[allow_test(), ("witnesses", json!({"keys": pinned, "required": 2}))],
        ),
    );
    add(
        "witness-1-of-2-required-1",
        "One of two pinned witnesses cosigned and the policy requires 1.",
        Reason::Verifies,
        None,
        request(
            with_head(&only_w1),
            jwks.clone(),
            &[allow_test(), ("witnesses", json!({"keys": pinned, "required": 1}))],
        ),
    );
    let mut lines: Vec<String> = both.lines().map(str::to_string).collect();
    let last = lines.len() - 1;
    let (prefix, b64) = lines[last].rsplit_once(' ').expect("signature line");
    let mut raw = encoding::decode_std(b64).expect("own signature");
    let n = raw.len();
    raw[n - 1] ^= 0x01;
    lines[last] = format!("{prefix} {}", encoding::encode_std(&raw));
    let broken = lines.join("\n") + "\n";
    add(
        "witness-bad-cosignature",
        "A pinned witness's cosignature line does not verify: a failing known signature rejects the whole head.",
        Reason::BadSignature,
        None,
        request(
            with_head(&broken),
            jwks.clone(),
            &[allow_test(), ("witnesses", json!({"keys": pinned, "required": 1}))],
        ),
    );
    add(
        "witness-unpinned-ignored",
        "A cosignature by a witness the caller does not pin is ignored, as C2SP requires.",
        Reason::Verifies,
        None,
        request(with_head(&only_w1), jwks.clone(), &[allow_test()]),
    );

    // Malformed input of every kind.
    let log_key_vkey = NoteSigner::new(ORIGIN, SignatureKind::Ed25519, test_key()).expect("name").verifier().to_vkey();
    let m = Reason::Malformed;
    let malformed: Vec<(&'static str, &str, Value)> = vec![
        ("malformed-request-not-object", "The request is an array.", json!([])),
        ("malformed-bundle-missing", "No bundle.", json!({"keys": jwks.clone(), "allowTest": true})),
        (
            "malformed-bundle-not-object",
            "The bundle is a string.",
            request(json!("bundle"), jwks.clone(), &[allow_test()]),
        ),
        ("malformed-bundle-version", "object is curbi.proof/0.2.", {
            let mut b = valid.clone();
            b["object"] = "curbi.proof/0.2".into();
            request(b, jwks.clone(), &[allow_test()])
        }),
        ("malformed-bundle-unknown-member", "The bundle has a member the format does not define.", {
            let mut b = valid.clone();
            b["note"] = "hello".into();
            request(b, jwks.clone(), &[allow_test()])
        }),
        ("malformed-head-missing", "The bundle has no head.", {
            let mut b = valid.clone();
            b.as_object_mut().expect("bundle").remove("head");
            request(b, jwks.clone(), &[allow_test()])
        }),
        ("malformed-head-not-a-note", "The head is not a signed note.", {
            let mut b = valid.clone();
            b["head"] = "curbi-checkpoint-v1.example.com/test-log\n4\n".into();
            request(b, jwks.clone(), &[allow_test()])
        }),
        (
            "malformed-head-not-curbi",
            "The head is a well-formed C2SP checkpoint whose origin lacks curbi-checkpoint-v1.",
            {
                let cp = Checkpoint::new("example.com/test-log", 4, honest.gate.log().root()).expect("origin");
                let signer = NoteSigner::new("example.com/test-log", SignatureKind::Ed25519, test_key()).expect("name");
                let mut n = note::Note::new(&cp.body()).expect("body");
                n.add_signature(signer.sign(&cp.body()).expect("signs")).expect("room");
                let mut b = valid.clone();
                b["head"] = n.to_string().into();
                request(b, jwks.clone(), &[allow_test()])
            },
        ),
        ("malformed-receipts-empty", "A bundle carries at least one receipt.", {
            let mut b = valid.clone();
            b["receipts"] = json!([]);
            request(b, jwks.clone(), &[allow_test()])
        }),
        ("malformed-receipt-is-attestation", "An attestation (curbi-attest-v1.) in the receipt slot.", {
            let mut b = valid.clone();
            let a = b["receipts"][0]["attestation"].clone();
            b["receipts"][0]["receipt"] = a;
            request(b, jwks.clone(), &[allow_test()])
        }),
        ("malformed-receipt-padded-base64", "The booking receipt's payload carries a base64 padding character.", {
            let mut b = valid.clone();
            let r = text(&b["receipts"][1]["receipt"]);
            let (payload, rest) = r[envelope::RECEIPT_DOMAIN.len()..].split_once('.').expect("form");
            b["receipts"][1]["receipt"] = format!("{}{payload}=.{rest}", envelope::RECEIPT_DOMAIN).into();
            request(b, jwks.clone(), &[allow_test()])
        }),
        ("malformed-signature-short", "The receipt signature is 63 bytes.", {
            let mut b = valid.clone();
            let env = Envelope::parse(Kind::Receipt, &text(&b["receipts"][2]["receipt"])).expect("own");
            let short = format!(
                "{}{}.{}.{}",
                envelope::RECEIPT_DOMAIN,
                encode_url(env.payload()),
                encode_url(&env.signature()[..63]),
                env.kid()
            );
            b["receipts"][2]["receipt"] = short.into();
            request(b, jwks.clone(), &[allow_test()])
        }),
        ("malformed-index-negative", "A leaf index of -1.", {
            let mut b = valid.clone();
            b["receipts"][0]["index"] = json!(-1);
            request(b, jwks.clone(), &[allow_test()])
        }),
        ("malformed-index-float", "A leaf index written 1.0 (a float, not an integer).", {
            let mut b = valid.clone();
            b["receipts"][1]["index"] = json!(1.0);
            request(b, jwks.clone(), &[allow_test()])
        }),
        ("malformed-proof-hash-31-bytes", "An inclusion proof element of 31 bytes.", {
            let mut b = valid.clone();
            b["receipts"][0]["proof"][0] = encoding::encode_std(&[7; 31]).into();
            request(b, jwks.clone(), &[allow_test()])
        }),
        ("malformed-proof-too-long", "An inclusion proof of 65 elements is refused before any hashing.", {
            let mut b = valid.clone();
            b["receipts"][0]["proof"] = json!(vec![encoding::encode_std(&[7; 32]); 65]);
            request(b, jwks.clone(), &[allow_test()])
        }),
        ("malformed-consistency-member", "A consistency entry with an unknown member.", {
            let mut b = valid.clone();
            b["consistency"][0]["size"] = 2.into();
            request(b, jwks.clone(), &[allow_test()])
        }),
        ("malformed-bundle-keys", "The bundle's own key set is invalid (a private d): refused even without opt-in.", {
            let mut b = valid.clone();
            let mut k = jwks.clone();
            k["keys"][0]["d"] = encode_url(&[1; 32]).into();
            b["keys"] = k;
            request(b, jwks.clone(), &[allow_test()])
        }),
        ("malformed-keys-missing", "The caller's keys are required.", {
            let mut r = request(valid.clone(), Value::Null, &[allow_test()]);
            r.as_object_mut().expect("request").remove("keys");
            r
        }),
        ("malformed-keys-private", "The caller's key set carries a private key (d).", {
            let mut k = jwks.clone();
            k["keys"][0]["d"] = encode_url(&[1; 32]).into();
            request(valid.clone(), k, &[allow_test()])
        }),
        ("malformed-keys-weak", "The caller's key set holds a small-order point.", {
            let mut identity = [0u8; 32];
            identity[0] = 1;
            request(
                valid.clone(),
                json!({"keys": [{"kty": "OKP", "crv": "Ed25519", "x": encode_url(&identity)}]}),
                &[allow_test()],
            )
        }),
        ("malformed-known-too-many", "65 known heads, more than 64.", {
            request(valid.clone(), jwks.clone(), &[allow_test(), ("known", json!(vec![honest.heads[0].clone(); 65]))])
        }),
        ("malformed-known-not-a-head", "A known head that is not a signed checkpoint note.", {
            request(valid.clone(), jwks.clone(), &[allow_test(), ("known", json!(["4\n"]))])
        }),
        ("malformed-fresh-without-now", "Fresh mode needs now.", {
            request(valid.clone(), jwks.clone(), &[allow_test(), ("mode", "fresh".into())])
        }),
        ("malformed-mode-unknown", "mode is archival or fresh.", {
            request(valid.clone(), jwks.clone(), &[allow_test(), ("mode", "live".into())])
        }),
        ("malformed-now-not-rfc3339", "now is not an RFC 3339 date-time.", {
            request(
                valid.clone(),
                jwks.clone(),
                &[allow_test(), ("mode", "fresh".into()), ("now", "2027-01-15".into())],
            )
        }),
        ("malformed-unknown-option", "An option the verifier does not define.", {
            request(valid.clone(), jwks.clone(), &[allow_test(), ("allowExpired", true.into())])
        }),
        ("malformed-witness-key-type", "A pinned witness key of type Ed25519 (0x01), not cosignature/v1.", {
            request(valid.clone(), jwks.clone(), &[allow_test(), ("witnesses", json!({"keys": [log_key_vkey]}))])
        }),
        ("malformed-witness-required-too-many", "3 of 2 pinned witnesses required.", {
            request(valid.clone(), jwks.clone(), &[allow_test(), ("witnesses", json!({"keys": pinned, "required": 3}))])
        }),
    ];
    for (name, description, input) in malformed {
        add(name, description, m, Some(vec![]), input);
    }

    // A payload signed by the trusted key that is not a receipt: read only after its signature, then refused.
    let garbage = Envelope::sign(Kind::Receipt, br#"{"hello":"world"}"#.to_vec(), &test_key(), refund_receipt.kid())
        .expect("signs");
    let mut signed_garbage = valid.clone();
    item(&mut signed_garbage, 0).insert("receipt".into(), garbage.to_compact().into());
    item(&mut signed_garbage, 0).remove("attestation");
    add(
        "malformed-signed-payload",
        "A payload signed by the trusted key that is not a receipt: its signature verifies, its members do not read.",
        Reason::Malformed,
        Some(vec![Reason::Malformed, V, V, V]),
        request(signed_garbage, jwks.clone(), &[allow_test()]),
    );

    // Signed payloads in the wrong containers: a reader that accepted an array as a struct (serde reads a sequence
    // positionally) or `limits: []` as no limits would let a signer's shape change what verifiers see.
    let receipt = refund_receipt.receipt().expect("own receipt payload");
    let positional = json!([
        receipt.tenant,
        receipt.idempotency_key,
        receipt.agent,
        receipt.operation,
        receipt.resource,
        receipt.amount,
        receipt.currency,
        receipt.status.as_str(),
        receipt.attestation,
        receipt.evidence,
        receipt.iat,
        receipt.exp
    ]);
    let signed = Envelope::sign(Kind::Receipt, positional.to_string().into_bytes(), &test_key(), refund_receipt.kid())
        .expect("signs");
    let mut array_receipt = valid.clone();
    item(&mut array_receipt, 0).insert("receipt".into(), signed.to_compact().into());
    item(&mut array_receipt, 0).remove("attestation");
    add(
        "malformed-signed-receipt-array",
        "The refund receipt's members, in payload order, as a JSON array signed by the trusted key: a receipt payload \
         is an object, so the signature verifies and the payload is refused.",
        Reason::Malformed,
        Some(vec![Reason::Malformed, V, V, V]),
        request(array_receipt, jwks.clone(), &[allow_test()]),
    );
    let refund_att = Envelope::parse(Kind::Attestation, &honest.attestations[REFUND]).expect("own attestation");
    let att = refund_att.attestation().expect("own attestation payload");
    let positional = json!([
        att.tenant,
        att.idempotency_key,
        att.agent,
        att.operation,
        att.resource,
        att.amount,
        att.currency,
        serde_json::to_value(&att.limits).expect("limits"),
        att.grant,
        att.iat,
        att.exp
    ]);
    let att_array =
        Envelope::sign(Kind::Attestation, positional.to_string().into_bytes(), &test_key(), refund_att.kid())
            .expect("signs");
    let mut array_att = valid.clone();
    item(&mut array_att, 0).insert("attestation".into(), att_array.to_compact().into());
    add(
        "malformed-signed-attestation-array",
        "The refund attestation's members as a JSON array signed by the trusted key: refused after its signature.",
        Reason::Malformed,
        Some(vec![Reason::Malformed, V, V, V]),
        request(array_att, jwks.clone(), &[allow_test()]),
    );
    let payload = String::from_utf8(refund_att.payload().to_vec()).expect("utf-8 payload");
    let limits_at = payload.find("\"limits\":{").expect("the attestation has limits");
    let limits_end = limits_at + payload[limits_at..].find('}').expect("limits close") + 1;
    let no_limits = format!("{}\"limits\":[]{}", &payload[..limits_at], &payload[limits_end..]);
    let att_limits =
        Envelope::sign(Kind::Attestation, no_limits.into_bytes(), &test_key(), refund_att.kid()).expect("signs");
    let mut limits_array = valid.clone();
    item(&mut limits_array, 0).insert("attestation".into(), att_limits.to_compact().into());
    add(
        "malformed-signed-limits-array",
        "The refund attestation re-signed with \"limits\": [] in place of its limits object: an empty array is not \
         'no limits', and the payload is refused after its signature.",
        Reason::Malformed,
        Some(vec![Reason::Malformed, V, V, V]),
        request(limits_array, jwks.clone(), &[allow_test()]),
    );
    cases
}
