//! Every limit and rule of seed 000's `policy_check` input schema, one bad document each, with the exact error
//! `code` and JSON pointer `path` the validator must report (docs/CHECK_API.md, vectors/errors.json).
//! Expectations are written from the schema and the doc, never copied from the validator's output.
#![allow(clippy::unwrap_used, clippy::panic)]

use curbi::ErrorCode;
use curbi::policy::{CheckRequest, parse_request};
use serde_json::{Value, json};

fn parse(doc: &Value) -> curbi::Result<CheckRequest> {
    parse_request(&serde_json::to_vec(doc).expect("serialize test document"))
}

#[track_caller]
fn assert_err_bytes(body: &[u8], code: &str, path: &str) {
    assert!(ErrorCode::ALL.iter().any(|c| c.as_str() == code), "test uses an unknown code {code}");
    // The Check API's whole reading: the schema, then the record's compile step (fact values read by kind).
    match curbi::api::check_json(body) {
        Ok(_) => panic!("accepted, expected {code} at {path:?}: {}", String::from_utf8_lossy(body)),
        Err(e) => assert_eq!(
            (e.code.as_str(), e.path.as_str()),
            (code, path),
            "message: {}\ndocument: {}",
            e.message,
            String::from_utf8_lossy(&body[..body.len().min(400)])
        ),
    }
}

#[track_caller]
fn assert_err(doc: Value, code: &str, path: &str) {
    assert_err_bytes(&serde_json::to_vec(&doc).expect("serialize"), code, path);
}

#[track_caller]
fn assert_ok(doc: Value) -> CheckRequest {
    if let Err(e) = curbi::api::check_json(&serde_json::to_vec(&doc).expect("serialize")) {
        panic!(
            "the Check API rejected it with {e}; document: {}",
            doc.to_string().chars().take(400).collect::<String>()
        )
    }
    match parse(&doc) {
        Ok(r) => r,
        Err(e) => panic!("rejected with {e}; document: {}", doc.to_string().chars().take(400).collect::<String>()),
    }
}

/// A request around a policy.
fn policy(p: Value) -> Value {
    json!({ "policy": p, "reply": "Hi" })
}

/// A request around one price item.
fn price(item: Value) -> Value {
    policy(json!({ "prices": [item] }))
}

/// A request around one forbid rule.
fn forbid(rule: Value) -> Value {
    policy(json!({ "forbid": [rule] }))
}

/// A request around one discount.
fn discount(d: Value) -> Value {
    policy(json!({ "prices": [{"item": "Pro", "amount": 49}], "discounts": [d] }))
}

/// A request around a record.
fn record(r: Value) -> Value {
    json!({ "policy": {}, "reply": "Hi", "record": r })
}

/// A request around one fact.
fn fact(f: Value) -> Value {
    record(json!({ "facts": [f] }))
}

fn text(n: usize) -> String {
    "a".repeat(n)
}

fn many(n: usize, f: impl Fn(usize) -> Value) -> Value {
    Value::Array((0..n).map(f).collect())
}

/// A list of texts (aliases, phrases) at `path` in the document `doc` makes around it: up to `max` of them, each
/// of 1 to 80 characters, in an array.
fn assert_text_list(doc: impl Fn(Value) -> Value, path: &str, max: usize) {
    assert_ok(doc(many(max, |i| json!(format!("t{i}")))));
    assert_err(doc(many(max + 1, |i| json!(format!("t{i}")))), "too_many_items", path);
    assert_err(doc(json!(["ok", ""])), "too_short", &format!("{path}/1"));
    assert_ok(doc(json!([text(80)])));
    assert_err(doc(json!([text(81)])), "too_long", &format!("{path}/0"));
    assert_err(doc(json!([5])), "invalid_type", &format!("{path}/0"));
    assert_err(doc(json!("guarantee")), "invalid_type", path);
}

// ---- top level ----------------------------------------------------------------------------------------------

#[test]
fn request_must_be_an_object() {
    assert_err(json!([]), "invalid_type", "");
    assert_err(json!("policy"), "invalid_type", "");
    assert_err(json!(null), "invalid_type", "");
    assert_err(json!(42), "invalid_type", "");
}

#[test]
fn top_level_additional_properties_are_unknown_fields() {
    assert_err(json!({"policy": {}, "reply": "Hi", "extra": 1}), "unknown_field", "/extra");
    assert_err(json!({"policy": {}, "reply": "Hi", "Reply": "x"}), "unknown_field", "/Reply");
    // RFC 6901: "~" is written "~0" and "/" is written "~1"; the empty key is "/".
    assert_err(json!({"policy": {}, "reply": "Hi", "a/b~c": 1}), "unknown_field", "/a~1b~0c");
    assert_err(json!({"policy": {}, "reply": "Hi", "": 1}), "unknown_field", "/");
    // Unknown members are reported before errors in known members.
    assert_err(json!({"policy": 5, "reply": 5, "zzz": true}), "unknown_field", "/zzz");
}

#[test]
fn policy_is_required() {
    assert_err(json!({"reply": "Hi"}), "missing_field", "/policy");
    assert_err(json!({}), "missing_field", "/policy");
}

#[test]
fn version_enum() {
    assert_ok(json!({"version": "2026-10-27", "policy": {}, "reply": "Hi"}));
    assert_ok(json!({"version": "2026-11-01", "policy": {}, "reply": "Hi"}));
    assert_err(json!({"version": "2026-11-02", "policy": {}, "reply": "Hi"}), "invalid_enum", "/version");
    assert_err(json!({"version": "", "policy": {}, "reply": "Hi"}), "invalid_enum", "/version");
    assert_err(json!({"version": 20261101, "policy": {}, "reply": "Hi"}), "invalid_type", "/version");
    assert_err(json!({"version": null, "policy": {}, "reply": "Hi"}), "invalid_type", "/version");
}

#[test]
fn reply_max_length_4000_code_points() {
    assert_ok(json!({"policy": {}, "reply": text(4000)}));
    assert_err(json!({"policy": {}, "reply": text(4001)}), "too_long", "/reply");
    // Code points, not bytes or UTF-16 units: 4000 emoji are 16000 bytes and 8000 UTF-16 units.
    assert_ok(json!({"policy": {}, "reply": "😀".repeat(4000)}));
    assert_err(json!({"policy": {}, "reply": "😀".repeat(4001)}), "too_long", "/reply");
    assert_ok(json!({"policy": {}, "reply": "é".repeat(4000)}));
    assert_ok(json!({"policy": {}, "reply": ""}));
}

#[test]
fn reply_must_be_a_string() {
    assert_err(json!({"policy": {}, "reply": 5}), "invalid_type", "/reply");
    assert_err(json!({"policy": {}, "reply": null}), "invalid_type", "/reply");
    assert_err(json!({"policy": {}, "reply": ["Hi"]}), "invalid_type", "/reply");
}

#[test]
fn reply_and_cases_are_exclusive_and_one_is_needed() {
    assert_err(json!({"policy": {}, "reply": "Hi", "cases": [{"reply": "Hi"}]}), "conflicting_fields", "/cases");
    assert_err(json!({"policy": {}}), "missing_field", "/reply");
    assert_err(json!({"policy": {}, "record": {}}), "missing_field", "/reply");
}

// ---- policy -------------------------------------------------------------------------------------------------

#[test]
fn policy_must_be_an_object() {
    assert_err(json!({"policy": "strict", "reply": "Hi"}), "invalid_type", "/policy");
    assert_err(json!({"policy": null, "reply": "Hi"}), "invalid_type", "/policy");
    assert_err(json!({"policy": [], "reply": "Hi"}), "invalid_type", "/policy");
    assert_ok(policy(json!({})));
}

#[test]
fn policy_additional_properties() {
    assert_err(policy(json!({"rules": []})), "unknown_field", "/policy/rules");
    assert_err(policy(json!({"x/y": 1})), "unknown_field", "/policy/x~1y");
    // Unknown first, even when a known member is also bad.
    assert_err(policy(json!({"prices": 5, "zzz": 1})), "unknown_field", "/policy/zzz");
}

#[test]
fn policy_name_and_description_are_strings() {
    assert_ok(policy(json!({"name": "Support", "description": text(10_000)})));
    assert_err(policy(json!({"name": 5})), "invalid_type", "/policy/name");
    assert_err(policy(json!({"description": {"text": "x"}})), "invalid_type", "/policy/description");
}

#[test]
fn unknown_amounts_enum() {
    assert_ok(policy(json!({"unknownAmounts": "flag"})));
    assert_ok(policy(json!({"unknownAmounts": "allow"})));
    assert_err(policy(json!({"unknownAmounts": "ignore"})), "invalid_enum", "/policy/unknownAmounts");
    assert_err(policy(json!({"unknownAmounts": "Flag"})), "invalid_enum", "/policy/unknownAmounts");
    assert_err(policy(json!({"unknownAmounts": true})), "invalid_type", "/policy/unknownAmounts");
}

// ---- prices -------------------------------------------------------------------------------------------------

#[test]
fn prices_max_items_50() {
    let item = |i| json!({"item": format!("Item {i}"), "amount": 1});
    assert_ok(policy(json!({"prices": many(50, item)})));
    assert_err(policy(json!({"prices": many(51, item)})), "too_many_items", "/policy/prices");
    assert_ok(policy(json!({"prices": []})));
    assert_err(policy(json!({"prices": {"item": "Pro"}})), "invalid_type", "/policy/prices");
}

#[test]
fn price_item_shape() {
    assert_err(policy(json!({"prices": ["Pro"]})), "invalid_type", "/policy/prices/0");
    assert_err(
        price(json!({"item": "Pro", "amount": 49, "currency": "USD"})),
        "unknown_field",
        "/policy/prices/0/currency",
    );
    // The error is located in the right element.
    assert_err(
        policy(json!({"prices": [{"item": "Pro", "amount": 49}, {"amount": 9}]})),
        "missing_field",
        "/policy/prices/1/item",
    );
}

#[test]
fn price_item_name() {
    assert_err(price(json!({"amount": 49})), "missing_field", "/policy/prices/0/item");
    assert_err(price(json!({"item": "", "amount": 49})), "too_short", "/policy/prices/0/item");
    assert_ok(price(json!({"item": text(80), "amount": 49})));
    assert_err(price(json!({"item": text(81), "amount": 49})), "too_long", "/policy/prices/0/item");
    assert_ok(price(json!({"item": "é".repeat(80), "amount": 49})));
    assert_err(price(json!({"item": 5, "amount": 49})), "invalid_type", "/policy/prices/0/item");
    // amount is optional: an item with only a name (and aliases) is schema-valid.
    assert_ok(price(json!({"item": "Pro"})));
}

#[test]
fn price_amount_minimum_0_and_type() {
    assert_ok(price(json!({"item": "Free", "amount": 0})));
    assert_ok(price(json!({"item": "Pro", "amount": 49.99})));
    assert_err(price(json!({"item": "Pro", "amount": -1})), "out_of_range", "/policy/prices/0/amount");
    assert_err(price(json!({"item": "Pro", "amount": -0.01})), "out_of_range", "/policy/prices/0/amount");
    assert_err(price(json!({"item": "Pro", "amount": "49"})), "invalid_type", "/policy/prices/0/amount");
    assert_err(price(json!({"item": "Pro", "amount": null})), "invalid_type", "/policy/prices/0/amount");
}

#[test]
fn price_amount_exactness_limits() {
    // docs/CHECK_API.md: more than six decimal places → invalid_value; above 10^15 → out_of_range.
    assert_ok(price(json!({"item": "Pro", "amount": 0.000001})));
    assert_err(price(json!({"item": "Pro", "amount": 49.1234567})), "invalid_value", "/policy/prices/0/amount");
    assert_ok(price(json!({"item": "Pro", "amount": 1_000_000_000_000_000_u64})));
    assert_err(
        price(json!({"item": "Pro", "amount": 1_000_000_000_000_001_u64})),
        "out_of_range",
        "/policy/prices/0/amount",
    );
    assert_err(price(json!({"item": "Pro", "amount": 1e16})), "out_of_range", "/policy/prices/0/amount");
}

#[test]
fn price_amounts_items() {
    let amounts = |a: Value| price(json!({"item": "Pro", "amounts": a}));
    assert_ok(amounts(json!([49])));
    assert_ok(amounts(json!([1, 2, 3, 4, 5, 6, 7, 8])));
    assert_err(amounts(json!([])), "too_few_items", "/policy/prices/0/amounts");
    assert_err(amounts(json!([1, 2, 3, 4, 5, 6, 7, 8, 9])), "too_many_items", "/policy/prices/0/amounts");
    assert_err(amounts(json!(["49"])), "invalid_type", "/policy/prices/0/amounts/0");
    assert_err(amounts(json!([49, -1])), "out_of_range", "/policy/prices/0/amounts/1");
    assert_err(amounts(json!(49)), "invalid_type", "/policy/prices/0/amounts");
}

#[test]
fn price_amount_and_amounts_conflict() {
    assert_err(
        price(json!({"item": "Pro", "amount": 49, "amounts": [49, 490]})),
        "conflicting_fields",
        "/policy/prices/0/amounts",
    );
}

#[test]
fn price_aliases() {
    let aliases = |a: Value| price(json!({"item": "Pro", "amount": 49, "aliases": a}));
    assert_ok(aliases(json!([])));
    assert_text_list(aliases, "/policy/prices/0/aliases", 8);
}

// ---- forbid -------------------------------------------------------------------------------------------------

#[test]
fn forbid_max_items_50() {
    let rule = |i| json!({"id": format!("rule-{i}"), "phrases": [format!("phrase {i}")]});
    assert_ok(policy(json!({"forbid": many(50, rule)})));
    assert_err(policy(json!({"forbid": many(51, rule)})), "too_many_items", "/policy/forbid");
    assert_err(policy(json!({"forbid": {"id": "x"}})), "invalid_type", "/policy/forbid");
    assert_err(policy(json!({"forbid": ["guarantee"]})), "invalid_type", "/policy/forbid/0");
}

#[test]
fn forbid_rule_additional_properties() {
    assert_err(
        forbid(json!({"id": "guarantee", "phrases": ["guarantee"], "regex": true})),
        "unknown_field",
        "/policy/forbid/0/regex",
    );
}

#[test]
fn forbid_id_required_and_pattern() {
    let id = |v: Value| forbid(json!({"id": v, "phrases": ["guarantee"]}));
    assert_ok(id(json!("guarantee")));
    assert_ok(id(json!("no-refunds-2")));
    assert_ok(id(json!(text(40))));
    assert_ok(id(json!("0")));
    assert_err(forbid(json!({"phrases": ["guarantee"]})), "missing_field", "/policy/forbid/0/id");
    assert_err(id(json!("Guarantee")), "pattern_mismatch", "/policy/forbid/0/id");
    assert_err(id(json!("")), "pattern_mismatch", "/policy/forbid/0/id");
    assert_err(id(json!(text(41))), "pattern_mismatch", "/policy/forbid/0/id");
    assert_err(id(json!("no_refunds")), "pattern_mismatch", "/policy/forbid/0/id");
    assert_err(id(json!("no refunds")), "pattern_mismatch", "/policy/forbid/0/id");
    assert_err(id(json!("garantí")), "pattern_mismatch", "/policy/forbid/0/id");
    assert_err(id(json!("guarantee\n")), "pattern_mismatch", "/policy/forbid/0/id");
    assert_err(id(json!(7)), "invalid_type", "/policy/forbid/0/id");
}

#[test]
fn forbid_phrases() {
    let phrases = |p: Value| forbid(json!({"id": "g", "phrases": p}));
    assert_err(forbid(json!({"id": "g"})), "missing_field", "/policy/forbid/0/phrases");
    assert_err(phrases(json!([])), "too_few_items", "/policy/forbid/0/phrases");
    assert_text_list(phrases, "/policy/forbid/0/phrases", 20);
}

#[test]
fn forbid_why_negatable_match() {
    let with = |k: &str, v: Value| {
        let mut rule = json!({"id": "g", "phrases": ["guarantee"]});
        rule[k] = v;
        forbid(rule)
    };
    assert_ok(with("why", json!(text(200))));
    assert_err(with("why", json!(text(201))), "too_long", "/policy/forbid/0/why");
    assert_err(with("why", json!(5)), "invalid_type", "/policy/forbid/0/why");
    assert_ok(with("negatable", json!(false)));
    assert_err(with("negatable", json!("false")), "invalid_type", "/policy/forbid/0/negatable");
    assert_err(with("negatable", json!(0)), "invalid_type", "/policy/forbid/0/negatable");
    assert_ok(with("match", json!("word")));
    assert_ok(with("match", json!("prefix")));
    assert_err(with("match", json!("regex")), "invalid_enum", "/policy/forbid/0/match");
    assert_err(with("match", json!("Word")), "invalid_enum", "/policy/forbid/0/match");
    assert_err(with("match", json!(1)), "invalid_type", "/policy/forbid/0/match");
}

// ---- actions ------------------------------------------------------------------------------------------------

/// `n` distinct verbs matching ^[a-z]{2,20}$.
fn verbs(n: usize) -> Value {
    let letters = |i: usize| {
        let a = (b'a' + (i / 26) as u8) as char;
        let b = (b'a' + (i % 26) as u8) as char;
        format!("done{a}{b}")
    };
    Value::Object((0..n).map(|i| (letters(i), json!("ops.x"))).collect())
}

#[test]
fn actions_max_properties_40() {
    assert_ok(policy(json!({"actions": verbs(40)})));
    assert_err(policy(json!({"actions": verbs(41)})), "too_many_items", "/policy/actions");
    assert_err(policy(json!({"actions": [["refunded", "billing.refund"]]})), "invalid_type", "/policy/actions");
    assert_err(policy(json!({"actions": "refunded"})), "invalid_type", "/policy/actions");
}

#[test]
fn action_verb_pattern() {
    let key = |k: &str| policy(json!({"actions": {k: "billing.refund"}}));
    assert_ok(key("refunded"));
    assert_ok(key("ok"));
    assert_ok(key(&text(20)));
    assert_err(key("Refunded"), "pattern_mismatch", "/policy/actions/Refunded");
    assert_err(key("a"), "pattern_mismatch", "/policy/actions/a");
    assert_err(key(&text(21)), "pattern_mismatch", &format!("/policy/actions/{}", text(21)));
    assert_err(key("re-funded"), "pattern_mismatch", "/policy/actions/re-funded");
    assert_err(key("refunded2"), "pattern_mismatch", "/policy/actions/refunded2");
    assert_err(key("reembolsó"), "pattern_mismatch", "/policy/actions/reembolsó");
    assert_err(key(""), "pattern_mismatch", "/policy/actions/");
    // RFC 6901 escaping of the key in the path.
    assert_err(key("re/funded"), "pattern_mismatch", "/policy/actions/re~1funded");
    assert_err(key("re~funded"), "pattern_mismatch", "/policy/actions/re~0funded");
    assert_err(key("~/"), "pattern_mismatch", "/policy/actions/~0~1");
}

#[test]
fn action_operation_value() {
    let op = |v: Value| policy(json!({"actions": {"refunded": v}}));
    assert_ok(op(json!(text(60))));
    assert_err(op(json!("")), "too_short", "/policy/actions/refunded");
    assert_err(op(json!(text(61))), "too_long", "/policy/actions/refunded");
    assert_err(op(json!(5)), "invalid_type", "/policy/actions/refunded");
    assert_err(op(json!(null)), "invalid_type", "/policy/actions/refunded");
    assert_err(op(json!({"op": "billing.refund"})), "invalid_type", "/policy/actions/refunded");
}

// ---- discounts ----------------------------------------------------------------------------------------------

#[test]
fn discounts_max_items_20() {
    let d = |i| json!({"percent": i + 1});
    assert_ok(policy(json!({"discounts": many(20, d)})));
    assert_err(policy(json!({"discounts": many(21, d)})), "too_many_items", "/policy/discounts");
    assert_err(policy(json!({"discounts": {"percent": 20}})), "invalid_type", "/policy/discounts");
    assert_err(policy(json!({"discounts": [20]})), "invalid_type", "/policy/discounts/0");
    assert_err(discount(json!({"percent": 20, "code": "SAVE20"})), "unknown_field", "/policy/discounts/0/code");
}

#[test]
fn discount_percent() {
    let pct = |p: Value| discount(json!({"percent": p}));
    assert_err(discount(json!({"items": ["Pro"]})), "missing_field", "/policy/discounts/0/percent");
    assert_ok(pct(json!(100)));
    assert_ok(pct(json!(0.5)));
    assert_ok(pct(json!(0.000001)));
    // exclusiveMinimum 0: zero itself is out.
    assert_err(pct(json!(0)), "out_of_range", "/policy/discounts/0/percent");
    assert_err(pct(json!(0.0)), "out_of_range", "/policy/discounts/0/percent");
    assert_err(pct(json!(-5)), "out_of_range", "/policy/discounts/0/percent");
    assert_err(pct(json!(100.5)), "out_of_range", "/policy/discounts/0/percent");
    assert_err(pct(json!(101)), "out_of_range", "/policy/discounts/0/percent");
    assert_err(pct(json!("20")), "invalid_type", "/policy/discounts/0/percent");
}

#[test]
fn discount_items() {
    let items = |i: Value| discount(json!({"percent": 20, "items": i}));
    assert_ok(items(json!(["Pro"])));
    assert_err(items(json!([])), "too_few_items", "/policy/discounts/0/items");
    assert_err(items(json!(["Pro", 5])), "invalid_type", "/policy/discounts/0/items/1");
    assert_err(items(json!("Pro")), "invalid_type", "/policy/discounts/0/items");
}

// ---- record -------------------------------------------------------------------------------------------------

#[test]
fn record_shape() {
    assert_ok(record(json!({})));
    assert_err(record(json!([])), "invalid_type", "/record");
    assert_err(record(json!(null)), "invalid_type", "/record");
    assert_err(record(json!({"verified": true})), "unknown_field", "/record/verified");
}

#[test]
fn record_subject() {
    assert_ok(record(json!({"subject": "order-1"})));
    assert_ok(record(json!({"subject": text(200)})));
    assert_err(record(json!({"subject": ""})), "too_short", "/record/subject");
    assert_err(record(json!({"subject": text(201)})), "too_long", "/record/subject");
    assert_err(record(json!({"subject": 1234})), "invalid_type", "/record/subject");
}

#[test]
fn record_effects() {
    let effect = |_| json!({"operation": "billing.refund", "status": "DONE"});
    assert_ok(record(json!({"effects": many(100, effect)})));
    assert_err(record(json!({"effects": many(101, effect)})), "too_many_items", "/record/effects");
    assert_err(record(json!({"effects": {"operation": "x"}})), "invalid_type", "/record/effects");
    assert_err(record(json!({"effects": ["billing.refund"]})), "invalid_type", "/record/effects/0");
    // No member is required.
    assert_ok(record(json!({"effects": [{}]})));
    assert_err(
        record(json!({"effects": [{"operation": "billing.refund", "status": "DONE", "at": "2026-11-03"}]})),
        "unknown_field",
        "/record/effects/0/at",
    );
    assert_err(
        record(json!({"effects": [{}, {"operation": 5, "status": "DONE"}]})),
        "invalid_type",
        "/record/effects/1/operation",
    );
    assert_err(
        record(json!({"effects": [{"operation": "x", "status": true}]})),
        "invalid_type",
        "/record/effects/0/status",
    );
}

#[test]
fn record_facts_count_and_shape() {
    let f = |_| json!({"near": "appointment", "kind": "time", "value": "15:30"});
    assert_ok(record(json!({"facts": many(20, f)})));
    assert_err(record(json!({"facts": many(21, f)})), "too_many_items", "/record/facts");
    assert_err(record(json!({"facts": {"near": "x"}})), "invalid_type", "/record/facts");
    assert_err(record(json!({"facts": ["15:30"]})), "invalid_type", "/record/facts/0");
    assert_err(
        fact(json!({"near": "appointment", "kind": "time", "value": "15:30", "source": "crm"})),
        "unknown_field",
        "/record/facts/0/source",
    );
}

#[test]
fn fact_required_members() {
    assert_err(fact(json!({"kind": "time", "value": "15:30"})), "missing_field", "/record/facts/0/near");
    assert_err(fact(json!({"near": "appointment", "value": "15:30"})), "missing_field", "/record/facts/0/kind");
    assert_err(fact(json!({"near": "appointment", "kind": "time"})), "missing_field", "/record/facts/0/value");
}

#[test]
fn fact_near_and_kind() {
    let f = |near: Value, kind: Value| fact(json!({"near": near, "kind": kind, "value": "15:30"}));
    assert_ok(f(json!(text(80)), json!("time")));
    assert_err(f(json!(""), json!("time")), "too_short", "/record/facts/0/near");
    assert_err(f(json!(text(81)), json!("time")), "too_long", "/record/facts/0/near");
    assert_err(f(json!(["appointment"]), json!("time")), "invalid_type", "/record/facts/0/near");
    assert_err(f(json!("appointment"), json!("duration")), "invalid_enum", "/record/facts/0/kind");
    assert_err(f(json!("appointment"), json!("Time")), "invalid_enum", "/record/facts/0/kind");
    assert_err(f(json!("appointment"), json!(1)), "invalid_type", "/record/facts/0/kind");
}

#[test]
fn fact_value_string_or_number() {
    let v = |kind: &str, value: Value| fact(json!({"near": "appointment", "kind": kind, "value": value}));
    assert_ok(v("time", json!("3:30 PM")));
    assert_ok(v("date", json!("2026-11-03")));
    assert_ok(v("money", json!("$49.99")));
    assert_ok(v("money", json!(50)));
    assert_err(v("time", json!("")), "too_short", "/record/facts/0/value");
    assert_err(v("time", json!(text(41))), "too_long", "/record/facts/0/value");
    assert_err(v("time", json!(true)), "invalid_type", "/record/facts/0/value");
    assert_err(v("time", json!(null)), "invalid_type", "/record/facts/0/value");
    assert_err(v("money", json!([49])), "invalid_type", "/record/facts/0/value");
    assert_err(v("money", json!({"amount": 49})), "invalid_type", "/record/facts/0/value");
}

#[test]
fn fact_value_must_be_readable_as_its_kind() {
    let v = |kind: &str, value: Value| fact(json!({"near": "appointment", "kind": kind, "value": value}));
    assert_err(v("time", json!("half past")), "invalid_value", "/record/facts/0/value");
    assert_err(v("time", json!("25:00")), "invalid_value", "/record/facts/0/value");
    assert_err(v("date", json!("someday")), "invalid_value", "/record/facts/0/value");
    assert_err(v("money", json!("lots")), "invalid_value", "/record/facts/0/value");
    assert_err(v("money", json!(-5)), "invalid_value", "/record/facts/0/value");
    // A number is only readable as money.
    assert_err(v("date", json!(20261103)), "invalid_value", "/record/facts/0/value");
    assert_err(
        record(json!({"facts": [
            {"near": "appointment", "kind": "time", "value": "15:30"},
            {"near": "delivery", "kind": "date", "value": "whenever"}
        ]})),
        "invalid_value",
        "/record/facts/1/value",
    );
}

#[test]
fn record_receipts() {
    assert_ok(record(json!({"receipts": []})));
    assert_err(record(json!({"receipts": "abc"})), "invalid_type", "/record/receipts");
    assert_err(record(json!({"receipts": [5]})), "invalid_type", "/record/receipts/0");
}

// ---- cases --------------------------------------------------------------------------------------------------

fn cases(c: Value) -> Value {
    json!({"policy": {}, "cases": c})
}

#[test]
fn cases_count() {
    let c = |i| json!({"id": format!("c{i}"), "reply": "Hi"});
    assert_ok(cases(many(1, c)));
    assert_ok(cases(many(50, c)));
    assert_err(cases(json!([])), "too_few_items", "/cases");
    assert_err(cases(many(51, c)), "too_many_items", "/cases");
    assert_err(cases(json!({"reply": "Hi"})), "invalid_type", "/cases");
    assert_err(cases(json!(null)), "invalid_type", "/cases");
}

#[test]
fn case_shape() {
    assert_err(cases(json!(["Hi"])), "invalid_type", "/cases/0");
    assert_err(cases(json!([{"reply": "Hi"}, {"reply": "Hi", "why": "x"}])), "unknown_field", "/cases/1/why");
    assert_err(cases(json!([{"id": "a"}])), "missing_field", "/cases/0/reply");
    assert_err(cases(json!([{"reply": 5}])), "invalid_type", "/cases/0/reply");
    assert_ok(cases(json!([{"reply": text(4000)}])));
    assert_ok(cases(json!([{"reply": "😀".repeat(4000)}])));
    assert_err(cases(json!([{"reply": text(4001)}])), "too_long", "/cases/0/reply");
}

#[test]
fn case_id() {
    assert_ok(cases(json!([{"id": text(60), "reply": "Hi"}])));
    assert_ok(cases(json!([{"id": "", "reply": "Hi"}])));
    assert_err(cases(json!([{"id": text(61), "reply": "Hi"}])), "too_long", "/cases/0/id");
    assert_err(cases(json!([{"id": 7, "reply": "Hi"}])), "invalid_type", "/cases/0/id");
}

#[test]
fn case_record_errors_carry_the_nested_path() {
    let ok = json!({"reply": "Hi"});
    assert_err(
        cases(
            json!([ok, ok, ok, {"reply": "Hi", "record": {"facts": [{"near": "at", "kind": "clock", "value": "3pm"}]}}]),
        ),
        "invalid_enum",
        "/cases/3/record/facts/0/kind",
    );
    assert_err(cases(json!([ok, {"reply": "Hi", "record": {"extra": 1}}])), "unknown_field", "/cases/1/record/extra");
    assert_err(cases(json!([{"reply": "Hi", "record": []}])), "invalid_type", "/cases/0/record");
    assert_err(cases(json!([{"reply": "Hi", "record": {"subject": ""}}])), "too_short", "/cases/0/record/subject");
    assert_err(
        cases(json!([{"reply": "Hi", "record": {"effects": [{"status": 1}]}}])),
        "invalid_type",
        "/cases/0/record/effects/0/status",
    );
    assert_err(
        cases(
            json!([ok, {"reply": "Hi", "record": {"facts": [{"near": "at", "kind": "time", "value": "half past"}]}}]),
        ),
        "invalid_value",
        "/cases/1/record/facts/0/value",
    );
}

// ---- verify and what this build does not support yet ----------------------------------------------------------

#[test]
fn verify_enum() {
    assert_ok(json!({"policy": {}, "reply": "Hi", "verify": "optional"}));
    assert_err(json!({"policy": {}, "reply": "Hi", "verify": "always"}), "invalid_enum", "/verify");
    assert_err(json!({"policy": {}, "reply": "Hi", "verify": "Required"}), "invalid_enum", "/verify");
    assert_err(json!({"policy": {}, "reply": "Hi", "verify": true}), "invalid_type", "/verify");
}

#[test]
fn verify_required_is_unsupported() {
    assert_err(json!({"policy": {}, "reply": "Hi", "verify": "required"}), "unsupported", "/verify");
    assert_err(json!({"policy": {}, "cases": [{"reply": "Hi"}], "verify": "required"}), "unsupported", "/verify");
}

#[test]
fn receipts_are_unsupported() {
    assert_err(record(json!({"receipts": ["curbi-receipt.abc"]})), "unsupported", "/record/receipts");
    assert_err(
        cases(json!([{"reply": "Hi"}, {"reply": "Hi", "record": {"receipts": ["r"]}}])),
        "unsupported",
        "/cases/1/record/receipts",
    );
    assert_err(
        cases(json!([{"reply": "Hi", "record": {"receipts": ["r"]}}])),
        "unsupported",
        "/cases/0/record/receipts",
    );
}

#[test]
fn schema_errors_come_before_unsupported() {
    // `unsupported` is for schema-valid requests only.
    assert_err(
        json!({"policy": {}, "reply": "Hi", "verify": "required", "record": {"subject": ""}}),
        "too_short",
        "/record/subject",
    );
    assert_err(
        json!({"policy": {}, "reply": "Hi", "record": {"receipts": ["r"], "extra": 1}}),
        "unknown_field",
        "/record/extra",
    );
}

// ---- bytes that are not JSON ----------------------------------------------------------------------------------

#[test]
fn not_json_is_invalid_json_at_the_root() {
    let not_json: [&[u8]; 7] = [
        b"",
        b"   ",
        b"{",
        b"{\"policy\":{},\"reply\":\"Hi\"} trailing",
        b"{'policy':{}}",
        b"{\"policy\":{},\"reply\":\"Hi\",}",
        br#"{"policy":{},"reply":"\ud800"}"#,
    ];
    for bytes in not_json {
        assert_err_bytes(bytes, "invalid_json", "");
    }
}

/// Numbers are read from their decimal text (the strict reader keeps it), so a value no f64 holds is judged at its
/// own path: not refused as unreadable JSON at the root, and never rounded or flushed to zero.
#[test]
fn numbers_are_judged_from_their_decimal_text() {
    let amount = |n: &str| format!(r#"{{"policy":{{"prices":[{{"item":"x","amount":{n}}}]}},"reply":"Hi"}}"#);
    assert_err_bytes(amount("1e400").as_bytes(), "out_of_range", "/policy/prices/0/amount");
    // 1e-400 is not zero: it has more decimal places than an amount may have.
    assert_err_bytes(amount("1e-400").as_bytes(), "invalid_value", "/policy/prices/0/amount");
    let exact = curbi::policy::parse_request(amount("999999999999999.999999").as_bytes()).map(|r| r.policy.prices);
    assert_eq!(exact.ok().map(|p| p[0].amounts[0]), Some(curbi::decimal::Dec(999_999_999_999_999_999_999)));
}

/// A member written twice is refused wherever it is, at its own pointer: parsers disagree on which copy wins.
#[test]
fn repeated_members_are_refused_at_their_pointer() {
    assert_err_bytes(br#"{"policy":{},"reply":"a","reply":"b"}"#, "duplicate_member", "/reply");
    assert_err_bytes(
        br#"{"policy":{"prices":[{"item":"Pro","amount":49,"amount":29}]},"reply":"Pro is $29."}"#,
        "duplicate_member",
        "/policy/prices/0/amount",
    );
}

#[test]
fn invalid_utf8_is_invalid_json() {
    assert_err_bytes(b"\xff\xfe{}", "invalid_json", "");
    assert_err_bytes(b"{\"policy\":{},\"reply\":\"caf\xe9\"}", "invalid_json", "");
    assert_err_bytes(b"{\"policy\":{},\"reply\":\"\xed\xa0\x80\"}", "invalid_json", "");
}

#[test]
fn nesting_200_deep_is_invalid_json() {
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    assert_err_bytes(deep.as_bytes(), "invalid_json", "");
    let inside =
        format!(r#"{{"policy":{{}},"reply":"Hi","record":{{"subject":{}{}}}}}"#, "[".repeat(200), "]".repeat(200));
    assert_err_bytes(inside.as_bytes(), "invalid_json", "");
    assert_err_bytes("{\"a\":".repeat(200).as_bytes(), "invalid_json", "");
    // Shallow nesting is JSON, so it reaches the schema.
    let shallow = format!(r#"{{"policy":{{}},"reply":{}{}}}"#, "[".repeat(20), "]".repeat(20));
    assert_err_bytes(shallow.as_bytes(), "invalid_type", "/reply");
}

// ---- which error comes first (docs/CHECK_API.md: schema order) --------------------------------------------------

#[test]
fn errors_follow_schema_order_within_objects() {
    // version before policy before reply.
    assert_err(json!({"version": "x", "policy": 5, "reply": 5}), "invalid_enum", "/version");
    assert_err(json!({"policy": 5, "reply": 5}), "invalid_type", "/policy");
    // Within a price item: item before aliases, although "aliases" sorts first.
    assert_err(price(json!({"aliases": [""], "item": ""})), "too_short", "/policy/prices/0/item");
    // Within a policy: prices before forbid before discounts.
    assert_err(
        policy(
            json!({"discounts": [{"percent": 0}], "forbid": [{"id": "X", "phrases": ["x"]}], "prices": [{"item": ""}]}),
        ),
        "too_short",
        "/policy/prices/0/item",
    );
    // Within a fact: near before kind before value.
    assert_err(fact(json!({"value": "", "kind": "x", "near": ""})), "too_short", "/record/facts/0/near");
    // Earlier array elements first.
    assert_err(
        policy(json!({"prices": [{"item": "a", "amount": -1}, {"item": ""}]})),
        "out_of_range",
        "/policy/prices/0/amount",
    );
}

#[test]

fn missing_reply_is_reported_in_reply_position() {
    // reply comes before verify in the schema, so "neither reply nor cases" outranks a bad verify.
    assert_err(json!({"policy": {}, "verify": "bogus"}), "missing_field", "/reply");
}

#[test]

fn reply_and_cases_conflict_is_reported_in_cases_position() {
    // The conflict is located at /cases, which comes before /verify.
    assert_err(
        json!({"policy": {}, "reply": "Hi", "cases": [{"reply": "Hi"}], "verify": "bogus"}),
        "conflicting_fields",
        "/cases",
    );
}

#[test]

fn unsupported_receipts_in_record_come_before_unsupported_verify() {
    // record comes before verify in the schema.
    assert_err(
        json!({"policy": {}, "reply": "Hi", "record": {"receipts": ["r"]}, "verify": "required"}),
        "unsupported",
        "/record/receipts",
    );
}
