//! Property tests for the purchase check: valid checkouts are built from their parts (amounts computed here, in the
//! test, from the documented totals rules), then scaled, permuted, corrupted or replaced by arbitrary JSON.
#![allow(clippy::unwrap_used, clippy::panic)]

use curbi::purchase::{Decision, Verdict, verify_action_request, verify_checkout_request};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

mod props;

use props::pointers;

const NOW: &str = "2026-11-20T12:00:00Z";

#[derive(Debug, Clone)]
struct LineSpec {
    unit: i64,
    qty: i64,
    discount_pct: i64,
    tax: i64,
}

#[derive(Debug, Clone)]
struct Cart {
    lines: Vec<LineSpec>,
    fulfillment: i64,
    order_discount_pct: i64,
    ucp: bool,
    slack: i64,
    /// ISO 4217 code; amounts are minor units whatever its exponent.
    currency: &'static str,
}

/// Currencies of every exponent: 0 (JPY, KRW), 2 (USD, EUR), 3 (KWD, BHD), 4 (CLF).
const CURRENCIES: [&str; 7] = ["USD", "EUR", "JPY", "KRW", "KWD", "BHD", "CLF"];

fn line_spec() -> impl Strategy<Value = LineSpec> {
    (1..200_000i64, 1..6i64, 0..=100i64, 0..20_000i64).prop_map(|(unit, qty, discount_pct, tax)| LineSpec {
        unit,
        qty,
        discount_pct,
        tax,
    })
}

fn cart() -> impl Strategy<Value = Cart> {
    (
        prop::collection::vec(line_spec(), 1..6),
        0..5_000i64,
        0..=100i64,
        any::<bool>(),
        0..10_000i64,
        prop::sample::select(CURRENCIES.to_vec()),
    )
        .prop_map(|(lines, fulfillment, order_discount_pct, ucp, slack, currency)| Cart {
            lines,
            fulfillment,
            order_discount_pct,
            ucp,
            slack,
            currency,
        })
}

fn entry(kind: &str, amount: i64) -> Value {
    json!({"type": kind, "amount": amount})
}

/// Builds a request whose every sum holds, every item is acceptable and the total is `slack` under the cap.
/// Returns the request and the checkout total.
fn build(c: &Cart) -> (Value, i64) {
    let credit = |a: i64| if c.ucp { -a } else { a };
    let mut lines = Vec::new();
    let mut acceptable = Vec::new();
    let (mut base_sum, mut disc_sum, mut sub_sum, mut tax_sum) = (0, 0, 0, 0);
    for (i, l) in c.lines.iter().enumerate() {
        let base = l.unit * l.qty;
        let disc = base * l.discount_pct / 100;
        let sub = base - disc;
        let total = sub + l.tax;
        lines.push(json!({
            "id": format!("li_{i}"),
            "item": {"id": format!("sku_{i}"), "name": format!("Item {i}")},
            "quantity": l.qty,
            "unit_amount": l.unit,
            "totals": [entry("items_base_amount", base), entry("items_discount", credit(disc)), entry("subtotal", sub),
                       entry("tax", l.tax), entry("total", total)],
        }));
        acceptable.push(json!({"id": format!("req_{i}"), "quantity": l.qty,
                               "acceptable_items": [{"id": format!("sku_{i}"), "unit_amount": l.unit}]}));
        base_sum += base;
        disc_sum += disc;
        sub_sum += sub;
        tax_sum += l.tax;
    }
    let order_discount = sub_sum * c.order_discount_pct / 100;
    let total = sub_sum - order_discount + c.fulfillment + tax_sum;
    let mut checkout = json!({
        "id": "cs_prop",
        "status": "ready_for_payment",
        "currency": if c.ucp { c.currency.to_owned() } else { c.currency.to_lowercase() },
        "merchant": {"id": "merch_prop", "name": "Prop Store"},
        "line_items": lines,
        "totals": [entry("items_base_amount", base_sum), entry("items_discount", credit(disc_sum)),
                   entry("subtotal", sub_sum), entry("discount", credit(order_discount)),
                   entry("fulfillment", c.fulfillment), entry("tax", tax_sum), entry("total", total)],
        "expires_at": "2026-11-20T13:00:00Z",
    });
    if c.ucp {
        checkout["totals_convention"] = json!("ucp");
    }
    let mandate = json!({
        "currency": c.currency,
        "amount_range": {"max": total + c.slack},
        "merchants": [{"id": "merch_prop"}],
        "line_items": acceptable,
        "user_cart_confirmation_required": false,
        "expires_at": "2026-12-31T00:00:00Z",
    });
    (json!({"mandate": mandate, "checkout": checkout, "now": NOW}), total)
}

/// Multiplies every amount in the checkout (unit prices and total entries) by `k`.
fn scale_checkout(req: &mut Value, k: i64) {
    let mul = |v: &mut Value| {
        let a = v.as_i64().unwrap();
        *v = match a.checked_mul(k) {
            Some(x) => json!(x),
            // Beyond i64: write it as the decimal text it is; the checker must refuse it, never wrap.
            None => serde_json::from_str(&(i128::from(a) * i128::from(k)).to_string()).unwrap(),
        };
    };
    let checkout = &mut req["checkout"];
    for line in checkout["line_items"].as_array_mut().unwrap() {
        mul(&mut line["unit_amount"]);
        for t in line["totals"].as_array_mut().unwrap() {
            mul(&mut t["amount"]);
        }
    }
    for t in checkout["totals"].as_array_mut().unwrap() {
        mul(&mut t["amount"]);
    }
}

/// The documented totals arithmetic, worked independently of the checker: for each list, Σ base entries = unit ×
/// quantity (lines), base + item discounts = subtotal, subtotal + charges − credits = total; the checkout's subtotal
/// and base are the lines' sums; every line's tax, fee and discount is inside the checkout's entry of that type.
fn adds_up(checkout: &Value) -> bool {
    let ucp = checkout["totals_convention"] == "ucp";
    // (base, items discount, subtotal, per-type after the subtotal, total), signed as they contribute.
    let sums = |totals: &Value| {
        let (mut base, mut disc, mut sub, mut total) = (None::<i64>, 0i64, 0i64, 0i64);
        let mut after: Vec<(String, i64)> = Vec::new();
        for t in totals.as_array().unwrap() {
            let (kind, a) = (t["type"].as_str().unwrap(), t["amount"].as_i64().unwrap());
            let credit = |a: i64| if ucp { a } else { -a };
            match kind {
                "items_base_amount" => base = Some(base.unwrap_or(0) + a),
                "items_discount" => disc += credit(a),
                "subtotal" => sub = a,
                "total" => total = a,
                "discount" | "store_credit" => after.push((kind.to_owned(), credit(a))),
                _ => after.push((kind.to_owned(), a)),
            }
        }
        (base, disc, sub, after, total)
    };
    let list_ok =
        |base: Option<i64>, derived: Option<i64>, disc: i64, sub: i64, after: &[(String, i64)], total: i64| {
            let base_ok = match (base, derived) {
                (Some(b), Some(d)) => b == d,
                _ => true,
            };
            let sub_ok = base.or(derived).is_none_or(|b| b + disc == sub);
            base_ok && sub_ok && sub + after.iter().map(|a| a.1).sum::<i64>() == total
        };
    let (mut base_sum, mut sub_sum, mut line_after) = (0i64, 0i64, Vec::<(String, i64)>::new());
    for line in checkout["line_items"].as_array().unwrap() {
        let derived = line["unit_amount"].as_i64().unwrap() * line["quantity"].as_i64().unwrap();
        let (base, disc, sub, after, total) = sums(&line["totals"]);
        if !list_ok(base, Some(derived), disc, sub, &after, total) {
            return false;
        }
        base_sum += base.unwrap_or(derived);
        sub_sum += sub;
        line_after.extend(after);
    }
    let (base, disc, sub, after, total) = sums(&checkout["totals"]);
    let of = |list: &[(String, i64)], k: &str| list.iter().filter(|a| a.0 == k).map(|a| a.1).sum::<i64>();
    let covered = line_after.iter().all(|(k, _)| {
        let (lines, have) = (of(&line_after, k), of(&after, k));
        if lines < 0 { have <= lines } else { have >= lines }
    });
    list_ok(base, base.map(|_| base_sum), disc, sub, &after, total) && sub == sub_sum && covered
}

fn codes(d: &Decision) -> Vec<&'static str> {
    let mut v: Vec<&'static str> = d.reasons().iter().map(|r| r.code.as_str()).collect();
    v.sort_unstable();
    v
}

/// What holds for every decision, whatever the input.
fn assert_well_formed(d: &Decision) {
    let doc = d.to_json();
    assert_eq!(doc["authorizationGranted"], json!(false));
    assert_eq!(d.reasons().is_empty(), d.verdict() == Verdict::Allow, "{doc}");
    assert_eq!(d.step_up().is_some(), d.verdict() == Verdict::StepUp, "{doc}");
    let worst = d
        .reasons()
        .iter()
        .map(|r| match r.effect() {
            curbi::purchase::Effect::Deny => Verdict::Deny,
            curbi::purchase::Effect::StepUp => Verdict::StepUp,
        })
        .max()
        .unwrap_or(Verdict::Allow);
    assert_eq!(worst, d.verdict());
    // Same input, same bytes: the document re-parses to itself.
    let text = d.to_json_string();
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), doc);
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "mandate",
            "checkout",
            "ledger",
            "now",
            "currency",
            "amount_range",
            "max",
            "min",
            "budget",
            "merchants",
            "line_items",
            "acceptable_items",
            "quantity",
            "id",
            "item",
            "unit_amount",
            "totals",
            "type",
            "amount",
            "status",
            "merchant",
            "recurrence",
            "frequency",
            "recurring",
            "payment",
            "allowance",
            "expires_at",
            "grant",
            "action",
            "agent",
            "operations",
            "resources",
            "limits",
            "max_amount",
            "other_constraints",
        ])
        .prop_map(str::to_owned),
        "[a-z_]{0,8}",
    ]
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        5 => props::json_scalar(),
        1 => prop::sample::select(vec![
            "USD",
            "usd",
            "Usd",
            "XAU",
            "ready_for_payment",
            "completed",
            NOW,
            "2026-02-30T00:00:00Z",
            "MONTHLY",
            "ON_DEMAND",
            "subtotal",
            "total",
            "items_discount",
            "acp",
            "ucp",
            "one_time",
            "order:*",
            "",
        ])
        .prop_map(|s| Value::String(s.to_owned())),
        1 => "\\PC{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 96, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..8)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Signs `checkout` as UCP's AP2 extension does (EdDSA detached JWS over its RFC 8785 form without `ap2`) and
/// returns the merchant key set that verifies it.
fn sign_checkout(checkout: &mut Value) -> Value {
    use curbi::encoding::encode_url;
    let key = curbi::ed25519::SigningKey::from_seed(&[7u8; 32]);
    let header = encode_url(br#"{"alg":"EdDSA","kid":"m1"}"#);
    let payload = encode_url(curbi::jcs::canonicalize(checkout).expect("integers and strings only").as_bytes());
    let signature = encode_url(&key.sign(format!("{header}.{payload}").as_bytes()));
    checkout["ap2"] = json!({"merchant_authorization": format!("{header}..{signature}")});
    json!({"keys": [{"kty": "OKP", "crv": "Ed25519", "x": key.verifying_key().to_jwk_x(), "kid": "m1"}]})
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// A signed checkout verifies; any one value changed after signing (a price, a name, an id, a total), anywhere
    /// but in `ap2`, never verifies: the signature covers every member.
    #[test]
    fn a_signed_checkout_changed_anywhere_never_verifies(c in cart(), pick in any::<prop::sample::Index>()) {
        let (mut req, _) = build(&c);
        req["merchant_keys"] = sign_checkout(&mut req["checkout"]);
        let d = verify_checkout_request(&req);
        prop_assert_eq!(d.verdict(), Verdict::Allow, "{}", d.to_json());
        let mut all = Vec::new();
        pointers(&req["checkout"], "/checkout".to_owned(), &mut all);
        let leaves: Vec<String> = all.into_iter().filter(|p| {
            !p.starts_with("/checkout/ap2") && req.pointer(p).is_some_and(|v| v.is_string() || v.is_i64())
        }).collect();
        let p = pick.get(&leaves).clone();
        let v = req.pointer_mut(&p).unwrap();
        *v = match v.as_i64() { Some(n) => json!(n + 1), None => json!(format!("{}x", v.as_str().unwrap())) };
        let d = verify_checkout_request(&req);
        assert_well_formed(&d);
        let invalid = d.reasons().iter().any(|r| r.code.as_str() == "merchant_authorization_invalid");
        prop_assert!(invalid, "{} changed and the signature still verifies: {}", p, d.to_json());
    }

    /// A cart built to satisfy every rule is ALLOWed (the generator and the documented rules agree).
    #[test]
    fn built_carts_are_allowed(c in cart()) {
        let (req, _) = build(&c);
        let d = verify_checkout_request(&req);
        prop_assert_eq!(d.verdict(), Verdict::Allow, "{}", d.to_json());
    }

    /// One minor unit more or less in any one amount of a valid checkout (a unit price or any total entry, in any
    /// currency): the checker ALLOWs only if the arithmetic still adds up, worked out here by the documented rules;
    /// never a silent ALLOW of a total that does not add up.
    #[test]
    fn one_minor_unit_off_never_allows_a_total_that_does_not_add_up(
        c in cart(), pick in any::<prop::sample::Index>(), up in any::<bool>()
    ) {
        let (mut req, _) = build(&c);
        prop_assert!(adds_up(&req["checkout"]));
        let mut all = Vec::new();
        pointers(&req["checkout"], "/checkout".to_owned(), &mut all);
        let amounts: Vec<String> =
            all.into_iter().filter(|p| p.ends_with("/amount") || p.ends_with("/unit_amount")).collect();
        let p = pick.get(&amounts).clone();
        let v = req.pointer(&p).and_then(Value::as_i64).unwrap();
        *req.pointer_mut(&p).unwrap() = json!(if up { v + 1 } else { v - 1 });
        let d = verify_checkout_request(&req);
        assert_well_formed(&d);
        if d.verdict() == Verdict::Allow {
            prop_assert!(adds_up(&req["checkout"]), "ALLOW of totals that do not add up after {} at {}", v, p);
        }
    }

    /// Scaling every amount of a valid ALLOW checkout beyond the cap never yields ALLOW.
    #[test]
    fn scaling_beyond_the_cap_never_allows(c in cart(), extra in 0..1_000_000i64) {
        let (mut req, total) = build(&c);
        let cap = total + c.slack;
        // The smallest factor that puts the total above the cap, plus some.
        let k = cap / total.max(1) + 1 + extra;
        prop_assume!(total > 0);
        // Without approved unit prices only the amount rules can object: the cap must catch it on its own.
        for req_item in req["mandate"]["line_items"].as_array_mut().unwrap() {
            req_item["acceptable_items"][0].as_object_mut().unwrap().remove("unit_amount");
        }
        scale_checkout(&mut req, k);
        let d = verify_checkout_request(&req);
        assert_well_formed(&d);
        prop_assert_ne!(d.verdict(), Verdict::Allow, "{}", d.to_json());
    }

    /// Permuting line items never changes the decision (nor which rules fired).
    #[test]
    fn permuting_lines_never_changes_the_decision(
        c in cart(),
        order in Just((0..5usize).collect::<Vec<_>>()).prop_shuffle(),
        fault in 0..6usize,
        at in 0..5usize,
    ) {
        let (mut req, _) = build(&c);
        let n = c.lines.len();
        let j = at % n;
        // Sometimes break one line, so that DENY and STEP_UP decisions are permuted too.
        match fault {
            1 => req["checkout"]["line_items"][j]["item"]["id"] = json!("sku_unknown"),
            2 => { let t = &mut req["checkout"]["line_items"][j]["totals"][4]["amount"]; *t = json!(t.as_i64().unwrap() + 1); }
            3 => { let q = &mut req["mandate"]["line_items"][j]["acceptable_items"][0]["unit_amount"]; *q = json!(q.as_i64().unwrap() - 1); }
            4 => req["checkout"]["line_items"][j]["quantity"] = json!(-1),
            5 => req["mandate"]["line_items"][j]["quantity"] = json!(0),
            _ => {}
        }
        let before = verify_checkout_request(&req);
        let lines = req["checkout"]["line_items"].as_array().unwrap().clone();
        let permuted: Vec<Value> = order.iter().filter(|&&i| i < n).map(|&i| lines[i].clone()).collect();
        req["checkout"]["line_items"] = Value::Array(permuted);
        let after = verify_checkout_request(&req);
        prop_assert_eq!(before.verdict(), after.verdict());
        prop_assert_eq!(codes(&before), codes(&after));
    }

    /// Any integer in a valid request written as a float (`100.0`) or a string never ALLOWs.
    #[test]
    fn a_number_that_is_not_an_integer_never_allows(c in cart(), pick in any::<prop::sample::Index>(), as_string in any::<bool>()) {
        let (mut req, _) = build(&c);
        let mut all = Vec::new();
        pointers(&req, String::new(), &mut all);
        let ints: Vec<String> = all.into_iter().filter(|p| req.pointer(p).is_some_and(Value::is_i64)).collect();
        let p = pick.get(&ints).clone();
        let n = req.pointer(&p).and_then(Value::as_i64).unwrap();
        *req.pointer_mut(&p).unwrap() = if as_string { json!(n.to_string()) } else { json!(n as f64) };
        let d = verify_checkout_request(&req);
        assert_well_formed(&d);
        prop_assert_eq!(d.verdict(), Verdict::Deny, "{} at {}", d.to_json(), p);
    }

    /// Arbitrary JSON, as a whole request or spliced anywhere into a valid one, never panics and always yields a
    /// well-formed decision.
    #[test]
    fn arbitrary_json_never_panics(junk in arb_json(), c in cart(), pick in any::<prop::sample::Index>()) {
        assert_well_formed(&verify_checkout_request(&junk));
        assert_well_formed(&verify_action_request(&junk));
        let (mut req, _) = build(&c);
        let mut all = Vec::new();
        pointers(&req, String::new(), &mut all);
        let p = pick.get(&all).clone();
        if p.is_empty() { req = junk.clone(); } else { *req.pointer_mut(&p).unwrap() = junk; }
        assert_well_formed(&verify_checkout_request(&req));
    }

    /// Arbitrary bytes: a decision, or the invalid_json error; never a panic.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        if let Ok(d) = curbi::json::read(&bytes).map(|v| verify_checkout_request(&v)) {
            assert_well_formed(&d);
        }
    }
}

#[test]
fn the_generator_builds_what_the_docs_describe() {
    // One cart worked by hand: 2 × 1000 with 10% off (200) + tax 80 → line total 1880; checkout subtotal 1800,
    // no order discount, fulfillment 500, tax 80 → total 2380.
    let c = Cart {
        lines: vec![LineSpec { unit: 1000, qty: 2, discount_pct: 10, tax: 80 }],
        fulfillment: 500,
        order_discount_pct: 0,
        ucp: false,
        slack: 0,
        currency: "USD",
    };
    let (req, total) = build(&c);
    assert_eq!(total, 2380);
    assert_eq!(req["checkout"]["line_items"][0]["totals"][4]["amount"], json!(1880));
    assert_eq!(verify_checkout_request(&req).verdict(), Verdict::Allow);
}
