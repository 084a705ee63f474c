//! `vectors/check/99-receipts.json`: the reply check with signed receipts (docs/CHECKER.md §Receipts). The receipts
//! come from the reference gate with the published test key and the fixed clock, so the file is reproducible byte
//! for byte; every expected response is written here by hand from the rules in docs/CHECKER.md, never obtained by
//! running the checker. Each case adds `receipts`, the receipt keys a runner compiles the policy with (configuration,
//! never part of the request); a case without it runs with no receipt keys.

use curbi::proof::envelope::Kind;
use serde_json::{Value, json};

use super::{Run, Step, edit_payload, test_jwks};
use crate::canonical::canonical_pretty;
use crate::fixtures::{BOOKING, ORIGIN, REFUND};
use crate::keys::{OTHER_KEY_SEED, key_from_text, test_key};

/// The checker version every case pins (receipts read the same under every version).
const VERSION: &str = "2026-12-01";
/// One day after the fixed clock's start: every honest receipt is fresh.
const NOW: &str = "2026-11-04T14:00:00Z";
/// After the refund receipt's `exp` (issued 2026-11-03T14:02:00Z, fresh for 30 days).
const LATER: &str = "2026-12-10T00:00:00Z";
const REFUND_EXP: &str = "2026-12-03T14:02:00Z";

fn policy() -> Value {
    json!({"actions": {"refunded": "billing.refund", "booked": "calendar.book"}})
}

/// The receipt keys: the published test key (tagged `curbi:test`), with `allowTest` and the fixed `now`.
fn keys(now: &str) -> Value {
    json!({"keys": test_jwks(), "allowTest": true, "now": now})
}

/// A finding as the wire writes it: the span of the first `text` at or after byte `from` of `reply`, in UTF-16
/// code units.
fn finding(rule: &str, reply: &str, text: &str, from: usize, why: &str) -> Value {
    let start = from + reply[from..].find(text).expect("the finding's text is in the reply");
    let units = |s: &str| s.encode_utf16().count();
    let begin = units(&reply[..start]);
    json!({"rule": rule, "span": [begin, begin + units(text)], "text": text, "why": why})
}

const PROOF: &str = r#"{"scope":"operation_and_subject_only","factsAuthenticated":false,"replayProtection":"within_request_only","authorizationGranted":false}"#;

fn response(trust: &str, findings: Vec<Value>) -> Value {
    let proof: Value = serde_json::from_str(PROOF).expect("proof object");
    json!({
        "object": "check", "version": VERSION, "recordTrust": trust, "pass": findings.is_empty(),
        "findings": findings, "proof": proof,
    })
}

const CALLER: &str = "caller_supplied_unverified";
const SIGNED: &str = "receipts_verified";

fn request(reply: &str, record: Value, verify: &str) -> Value {
    json!({"version": VERSION, "policy": policy(), "reply": reply, "record": record, "verify": verify})
}

fn case(description: &str, request: Value, receipts: Option<Value>, expected: Value) -> Value {
    let mut c = json!({"description": description, "request": request, "expected": expected});
    if let Some(r) = receipts {
        c["receipts"] = r;
    }
    c
}

fn does_not_count(word: &str, reason: &str) -> String {
    format!("Claims \"{word}\", but the receipt offered for it does not count: {reason}.")
}

/// A case with one finding of `rule` at the first `text` of `reply`, said `why`, under `trust`.
fn one_finding(description: &str, request: Value, keys: Value, trust: &str, f: [&str; 4]) -> Value {
    let [rule, reply, text, why] = f;
    case(description, request, Some(keys), response(trust, vec![finding(rule, reply, text, 0, why)]))
}

/// A case whose one claim, "refunded" in `reply`, is offered a receipt that does not count for `reason`.
fn refused(description: &str, reply: &str, record: Value, verify: &str, keys: Value, reason: &str) -> Value {
    let trust = if verify == "required" { SIGNED } else { CALLER };
    let f = finding("receipt:mismatch", reply, "refunded", 0, &does_not_count("refunded", reason));
    case(description, request(reply, record, verify), Some(keys), response(trust, vec![f]))
}

/// A case whose one claim in `reply` states `stated`, which differs from the signed refund of USD 50.00.
fn wrong_amount(description: &str, reply: &str, record: Value, verify: &str, stated: &str) -> Value {
    let trust = if verify == "required" { SIGNED } else { CALLER };
    let why = format!("The signed receipt for billing.refund is USD 50.00, not {stated}.");
    one_finding(
        description,
        request(reply, record, verify),
        keys(NOW),
        trust,
        ["receipt:mismatch", reply, stated, &why],
    )
}

/// A case that passes: `reply` states Pro's price (`pro` dollars, the policy's) and a refund the receipt backs
/// (`record`, with it).
fn priced_and_backed(description: &str, reply: &str, pro: u32, record: Value) -> Value {
    let policy = json!({"prices": [{"item": "Pro", "amount": pro}], "actions": {"refunded": "billing.refund"}});
    let request = json!({"version": VERSION, "policy": policy, "reply": reply, "record": record, "verify": "required"});
    case(description, request, Some(keys(NOW)), response(SIGNED, vec![]))
}

/// The bytes of `vectors/check/99-receipts.json`.
pub fn check_receipts() -> (String, Vec<u8>) {
    let honest = Run::honest();
    let refund = honest.receipts[REFUND].receipt.clone();
    let booking = honest.receipts[BOOKING].receipt.clone();
    let attestation = honest.attestations[REFUND].clone();
    let failed = Run::new(test_key(), ORIGIN, &[Step::Failed(REFUND)]).receipts[0].receipt.clone();
    let other_key = key_from_text(OTHER_KEY_SEED);
    let other_kid = other_key.verifying_key().thumbprint();
    let foreign = Run::new(other_key, ORIGIN, &[Step::Done(REFUND)]).receipts[0].receipt.clone();
    let tampered = edit_payload(Kind::Receipt, &refund, |p| p.replacen("\"amount\":5000", "\"amount\":50000", 1));
    let kid = test_key().verifying_key().thumbprint();
    let subject = "charge:ch_1001";
    let with = |receipts: &[&str]| json!({"subject": subject, "receipts": receipts});

    let mut cases = Vec::new();
    let r = "Done — I've refunded you $50.";
    cases.push(case(
        "A DONE receipt for billing.refund on the record's subject, signing USD 50.00, backs \"refunded\" and the \
         $50 it states: the reply passes. With verify \"optional\" the record is still the caller's.",
        request(r, with(&[&refund]), "optional"),
        Some(keys(NOW)),
        response(CALLER, vec![]),
    ));
    cases.push(case(
        "The same with verify \"required\": only receipts count, and this one does; recordTrust says so.",
        request(r, with(&[&refund]), "required"),
        Some(keys(NOW)),
        response(SIGNED, vec![]),
    ));
    cases.push(wrong_amount(
        "Seed 000's question: a $500 claim when the signed receipt says $50 (5000 minor units of USD) is \
         receipt:mismatch at the amount, naming the signed value.",
        "Done — I've refunded you $500.",
        with(&[&refund]),
        "required",
        "$500",
    ));
    cases.push(wrong_amount(
        "The right number in another currency is still a mismatch: the receipt signs USD.",
        "I've refunded you €50.",
        with(&[&refund]),
        "optional",
        "€50",
    ));
    cases.push(wrong_amount(
        "The amount may follow the claim in the next clause of its sentence (an aside after a dash or a comma): \
         it is still the claim's, and still judged against the receipt.",
        "I refunded you — $500 in total.",
        with(&[&refund]),
        "required",
        "$500",
    ));
    cases.push(priced_and_backed(
        "An amount in a later clause that names a price item is that item's price, not the claim's amount.",
        "I've refunded you, and Pro is $49 a month.",
        49,
        with(&[&refund]),
    ));
    let r = "Your appointment is booked.";
    cases.push(one_finding(
        "Wrong operation: a refund receipt offered for a booking claim does not count, and says why.",
        request(r, with(&[&refund]), "required"),
        keys(NOW),
        SIGNED,
        ["receipt:mismatch", r, "booked", &does_not_count("booked", "it is for billing.refund, not calendar.book")],
    ));
    let r = "I've refunded you $50.";
    cases.push(refused(
        "Wrong subject: the receipt is for charge:ch_1001, the record is about charge:ch_2002.",
        r,
        json!({"subject": "charge:ch_2002", "receipts": [refund]}),
        "required",
        keys(NOW),
        "it is for charge:ch_1001, not the record's subject charge:ch_2002",
    ));
    cases.push(refused(
        "An attestation (permission to act) offered as a receipt (the provider's confirmation) never counts.",
        r,
        with(&[&attestation]),
        "required",
        keys(NOW),
        "it is an attestation (permission to act), not a receipt (the provider's confirmation)",
    ));
    cases.push(refused(
        "An expired receipt: a conversation is judged fresh, so a receipt past its exp does not count.",
        r,
        with(&[&refund]),
        "required",
        keys(LATER),
        &format!("it expired at {REFUND_EXP} (now {LATER})"),
    ));
    cases.push(refused(
        "A receipt signed by a key the verifier was not configured with: untrusted, whatever it says.",
        r,
        with(&[&foreign]),
        "required",
        keys(NOW),
        &format!("it is signed under kid \"{other_kid}\", which is no receipt key you trust"),
    ));
    cases.push(refused(
        "The published test key without allowTest: test keys never count by default.",
        r,
        with(&[&refund]),
        "required",
        json!({"keys": test_jwks(), "now": NOW}),
        &format!("it is signed with the test key \"{kid}\", and test keys count only with allowTest"),
    ));
    cases.push(refused(
        "A tampered receipt (its amount raised to 50000 under the old signature) does not verify.",
        r,
        with(&[&tampered]),
        "required",
        keys(NOW),
        &format!("its signature does not verify under key \"{kid}\""),
    ));
    cases.push(refused(
        "A FAILED receipt is the provider's word that the refund did not happen: it backs no claim.",
        r,
        with(&[&failed]),
        "optional",
        keys(NOW),
        "its status is FAILED, not DONE",
    ));
    let r = "I refunded the order and refunded the shipping fee.";
    let second = r.rfind("refunded").expect("two claims");
    cases.push(case(
        "One receipt offered for two claims: it backs the first; the second has none under verify \"required\".",
        request(r, with(&[&refund]), "required"),
        Some(keys(NOW)),
        response(
            SIGNED,
            vec![finding(
                "action:unverified",
                r,
                "refunded",
                second,
                "Claims \"refunded\", but no signed receipt for billing.refund backs it.",
            )],
        ),
    ));
    let r = "Done — I've refunded you.";
    cases.push(case(
        "verify \"required\" with caller effects only: a DONE effect does not count, so the claim is unverified.",
        request(r, json!({"effects": [{"operation": "billing.refund", "status": "DONE"}]}), "required"),
        Some(keys(NOW)),
        response(
            SIGNED,
            vec![finding(
                "action:unverified",
                r,
                "refunded",
                0,
                "Claims \"refunded\", but no signed receipt for billing.refund backs it.",
            )],
        ),
    ));
    let r = "I've refunded you $50 and your slot is booked.";
    cases.push(case(
        "verify \"optional\": the receipt backs the refund and a caller effect backs the booking.",
        request(
            r,
            json!({"receipts": [refund], "effects": [{"operation": "calendar.book", "status": "DONE"}]}),
            "optional",
        ),
        Some(keys(NOW)),
        response(CALLER, vec![]),
    ));
    cases.push(case(
        "Two receipts, two claims: each receipt backs the claim of its own operation.",
        request(r, json!({"receipts": [booking, refund]}), "required"),
        Some(keys(NOW)),
        response(SIGNED, vec![]),
    ));
    cases.push(priced_and_backed(
        "The amount a receipt backs is the claim's, not a price: with prices in the policy, $50 is not \
         price:unknown.",
        "Pro is $29 a month. I've refunded you $50.",
        29,
        with(&[&refund]),
    ));
    // Facts are the caller's: a money fact near the amount never keeps it from the receipt (issue found by probing).
    let with_fact = |value: Value| json!({"subject": subject, "receipts": [&refund], "facts": [{"near": "refund", "kind": "money", "value": value}]});
    cases.push(wrong_amount(
        "A money fact the caller supplies next to the amount (refund = 500) agrees with the reply's $500, but facts \
         are unverified: the claim still states $500, and the signed receipt says USD 50.00.",
        "All set: I have refunded you $500.",
        with_fact(json!(500)),
        "required",
        "$500",
    ));
    let mut pinned = wrong_amount(
        "The same under the pinned 2026-11-01 checker: a fact never switches off the receipt check in any version \
         (docs/CHECKER_VERSIONS.md, security fixes).",
        "All set: I have refunded you $500.",
        with_fact(json!(500)),
        "optional",
        "$500",
    );
    pinned["request"]["version"] = json!("2026-11-01");
    pinned["expected"]["version"] = json!("2026-11-01");
    cases.push(pinned);
    let r = "OK, I refunded you $500 just now.";
    let fact_why = "refund is $50.00, not $500.";
    cases.push(case(
        "A fact that disagrees with the reply and a receipt that does too: both findings, at the one amount \
         (fact:mismatch first, sorted by rule).",
        request(r, with_fact(json!("$50.00")), "required"),
        Some(keys(NOW)),
        response(
            SIGNED,
            vec![
                finding("fact:mismatch", r, "$500", 0, fact_why),
                finding(
                    "receipt:mismatch",
                    r,
                    "$500",
                    0,
                    "The signed receipt for billing.refund is USD 50.00, not $500.",
                ),
            ],
        ),
    ));
    let r = "I haven't refunded you yet.";
    cases.push(case(
        "No claim, nothing to back: a negated action needs no receipt, even under verify \"required\".",
        request(r, with(&[]), "required"),
        Some(keys(NOW)),
        response(SIGNED, vec![]),
    ));
    cases.push(batch_case(&refund));
    cases.push(case(
        "Without receipt keys, a request that offers receipts is refused, never checked as if they were not there.",
        request("I've refunded you $50.", with(&[&refund]), "optional"),
        None,
        json!({"error": {"code": "unsupported", "path": "/record/receipts"}}),
    ));
    cases.push(case(
        "Without receipt keys, verify \"required\" is refused.",
        request("I've refunded you.", json!({}), "required"),
        None,
        json!({"error": {"code": "unsupported", "path": "/verify"}}),
    ));
    let doc = json!({
        "description": "Receipts in checks (docs/CHECKER.md §Receipts): the agent's claim checked against Curbi-signed \
                        receipts verified under receipt keys from configuration. Generated by `curbi vectors` from the \
                        reference gate with the published test key; each case's `receipts` is the receipt keys the \
                        policy is compiled with.",
        "cases": cases,
    });
    ("99-receipts.json".into(), canonical_pretty(&doc).into_bytes())
}

/// A batch: the request's record offers one refund receipt to two cases that each claim the refund.
fn batch_case(refund: &str) -> Value {
    let a = "Your refund is done: I've refunded you $50.";
    let b = "I refunded you $50 yesterday.";
    let req = json!({
        "version": VERSION, "policy": policy(), "verify": "required",
        "record": {"subject": "charge:ch_1001", "receipts": [refund]},
        "cases": [{"id": "first", "reply": a}, {"id": "second", "reply": b}],
    });
    let proof: Value = serde_json::from_str(PROOF).expect("proof object");
    let unverified = finding(
        "action:unverified",
        b,
        "refunded",
        0,
        "Claims \"refunded\", but no signed receipt for billing.refund backs it.",
    );
    let expected = json!({
        "object": "check_batch", "version": VERSION, "recordTrust": SIGNED, "pass": false,
        "results": [
            {"index": 0, "id": "first", "pass": true, "findings": []},
            {"index": 1, "id": "second", "pass": false, "findings": [unverified]},
        ],
        "proof": proof,
    });
    case(
        "One receipt backs at most one claim in a request, across the cases of a batch: the first case uses it.",
        req,
        Some(keys(NOW)),
        expected,
    )
}
