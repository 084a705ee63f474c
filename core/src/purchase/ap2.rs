//! AP2 v0.2 open mandates as AP2 writes them (the disclosed claims of `mandate.payment.open.1` and
//! `mandate.checkout.open.1`), read into the mandate the rules check: constraints by type, the budget's major units
//! converted exactly, `exp` and `payment.execution_date` as the validity window.

use serde_json::{Map, Value};

use super::decision::{ReasonCode, Reasons};
use super::mandate::{
    AmountRange, Mandate, MerchantRef, Recurrence, read_frequency, read_merchants, read_requirements,
};
use super::read::{Reader, quote, show};
use crate::decimal::{Dec, DecError, SCALE};
use crate::money::{Currency, MAX_SAFE};
use crate::pointer::{element, member};
use crate::time::Timestamp;

const PAYMENT: &str = "mandate.payment.open.1";
const CHECKOUT: &str = "mandate.checkout.open.1";

/// SD-JWT and JWT claims every AP2 mandate may carry: verified by the host with the SD-JWT, not part of what is bound.
const PLUMBING: &[&str] = &["cnf", "_sd", "_sd_alg", "iss", "sub", "aud", "nonce", "sd_hash", "jti", "iat"];

/// An AP2 mandate: an object with a `vct`, or a list of them (one open payment and one open checkout mandate).
pub(crate) fn is_ap2(v: &Value) -> bool {
    match v {
        Value::Object(m) => m.contains_key("vct"),
        Value::Array(a) => a.iter().any(|x| x.get("vct").is_some()),
        _ => false,
    }
}

/// Reads one AP2 open mandate or a list of at most one of each kind into one mandate: both must hold.
pub(crate) fn read_mandate(r: &mut Reader, v: &Value, path: &str) -> Option<Mandate> {
    let mut out = Mandate {
        // The user approved the open mandate's constraints; AP2 v0.2 has no cart confirmation flag.
        user_cart_confirmation_required: false,
        expires_path: member(path, "exp"),
        not_before_path: member(path, "iat"),
        ..Mandate::default()
    };
    let parts: Vec<(String, &Value)> = match v {
        Value::Array(a) if (1..=2).contains(&a.len()) => {
            a.iter().enumerate().map(|(i, x)| (element(path, i), x)).collect()
        }
        Value::Array(a) => {
            let message = "an AP2 mandate list holds one open payment mandate and at most one open checkout mandate";
            r.push(ReasonCode::Malformed, path, "1 or 2 mandates", a.len().to_string(), message);
            return None;
        }
        other => vec![(path.to_owned(), other)],
    };
    let mut seen: Vec<String> = Vec::new();
    let mut read_any = false;
    for (p, x) in parts {
        let vct = x.get("vct").and_then(Value::as_str).unwrap_or_default().to_owned();
        if seen.contains(&vct) {
            let message = format!("two {} mandates: which one binds would be ambiguous", quote(&vct));
            r.push(ReasonCode::Malformed, member(&p, "vct"), "one of each kind", quote(&vct), message);
            continue;
        }
        seen.push(vct.clone());
        match vct.as_str() {
            PAYMENT => {
                read_any = true;
                read_payment_mandate(r, x, &p, &mut out);
            }
            CHECKOUT => {
                read_any = true;
                read_checkout_mandate(r, x, &p, &mut out);
            }
            _ => {
                let message =
                    format!("expected an open mandate ({PAYMENT} or {CHECKOUT}); a closed mandate binds one checkout");
                let vp = member(&p, "vct");
                let actual = x.get("vct").map_or_else(|| "missing".to_owned(), show);
                r.push(ReasonCode::Malformed, vp, format!("{PAYMENT:?} or {CHECKOUT:?}"), actual, message);
            }
        }
    }
    // Nothing read as an open mandate: its reasons deny, and no rule is evaluated against an empty one.
    if !read_any {
        return None;
    }
    if out.expires_at.is_none() && !r.reasons.iter().any(|x| x.path == out.expires_path) {
        let message = "an AP2 mandate used here must expire: give exp or payment.execution_date.not_after";
        r.push(ReasonCode::Malformed, out.expires_path.clone(), "present", "missing", message);
    }
    Some(out)
}

/// `exp` (Unix seconds) shortens the window.
fn read_exp(r: &mut Reader, m: &Map<String, Value>, path: &str, out: &mut Mandate) {
    let Some(x) = m.get("exp") else { return };
    let p = member(path, "exp");
    if let Some(t) = r.count(x, &p, 0).and_then(|s| Timestamp::from_unix(s, 0)) {
        expire_at(out, t, p);
    }
}

fn expire_at(out: &mut Mandate, t: Timestamp, path: String) {
    if out.expires_at.is_none_or(|e| t < e) {
        out.expires_at = Some(t);
        out.expires_path = path;
    }
}

/// Merchants both mandates allow: matched by id, as everywhere.
fn allow_merchants(out: &mut Mandate, list: Vec<MerchantRef>) {
    out.merchants = Some(match out.merchants.take() {
        Some(before) => before.into_iter().filter(|a| list.iter().any(|b| b.id == a.id)).collect(),
        None => list,
    });
    out.machine_checkable = true;
}

fn read_payment_mandate(r: &mut Reader, v: &Value, path: &str, out: &mut Mandate) {
    let known = ["vct", "constraints", "payee", "payment_amount", "payment_instrument", "exp"];
    // pisp, execution_date (the closed mandate's date of execution), risk_data and transaction_id are the closed
    // mandate's, for the credential provider and network.
    let ignored: Vec<&str> = [PLUMBING, &["pisp", "execution_date", "risk_data", "transaction_id"]].concat();
    let Some(m) = r.object(v, path, &known, &ignored) else { return };
    read_exp(r, m, path, out);
    let p = |k: &str| member(path, k);
    if let Some(x) = m.get("payee")
        && let Some(list) = read_merchants(r, &Value::Array(vec![x.clone()]), &p("payee"))
    {
        allow_merchants(out, list);
    }
    if let Some(x) = m.get("payment_instrument") {
        if let Some(id) = read_instrument(r, x, &p("payment_instrument")) {
            out.payment_instruments = Some(vec![id]);
        }
    }
    if let Some(x) = m.get("payment_amount") {
        // Pre-set by the user: exactly this amount.
        let ap = p("payment_amount");
        if let Some(am) = r.object(x, &ap, &["amount", "currency"], &[]) {
            let cur = r.required(am, &ap, "currency").and_then(|c| r.currency(c, &member(&ap, "currency")));
            let amount = r.required(am, &ap, "amount").and_then(|a| r.amount(a, &member(&ap, "amount"), false));
            set_currency(r, out, cur, &member(&ap, "currency"));
            if let Some(a) = amount {
                out.amount_range = Some(AmountRange { min: Some(a), max: a });
                out.machine_checkable = true;
            }
        }
    }
    let cp = p("constraints");
    let Some(list) = r.required(m, path, "constraints").and_then(|x| r.array(x, &cp, 0)) else { return };
    for (i, c) in list.iter().enumerate() {
        let ep = element(&cp, i);
        let Some(kind) = c.get("type").and_then(Value::as_str) else {
            r.push(
                ReasonCode::Malformed,
                member(&ep, "type"),
                "a constraint type",
                show(c),
                "a constraint needs a type",
            );
            continue;
        };
        match kind {
            "payment.amount_range" => amount_range(r, c, &ep, out),
            "payment.budget" => budget(r, c, &ep, out),
            "payment.agent_recurrence" => recurrence(r, c, &ep, out),
            "payment.allowed_payees" => {
                if let Some(cm) = r.object(c, &ep, &["type", "allowed"], &[])
                    && let Some(list) =
                        r.required(cm, &ep, "allowed").and_then(|x| read_merchants(r, x, &member(&ep, "allowed")))
                {
                    allow_merchants(out, list);
                }
            }
            "payment.allowed_payment_instruments" => {
                let Some(cm) = r.object(c, &ep, &["type", "allowed"], &[]) else { continue };
                let ap = member(&ep, "allowed");
                let Some(items) = r.required(cm, &ep, "allowed").and_then(|x| r.array(x, &ap, 0)) else { continue };
                let ids: Option<Vec<String>> =
                    items.iter().enumerate().map(|(j, x)| read_instrument(r, x, &element(&ap, j))).collect();
                if let Some(ids) = ids {
                    out.payment_instruments = Some(ids);
                }
            }
            "payment.execution_date" => execution_date(r, c, &ep, out),
            // Binds this mandate to its open checkout mandate in the SD-JWT chain, which the host verifies.
            "payment.reference" => {}
            other => out.other_constraints.push((ep.clone(), other.to_owned())),
        }
    }
}

fn read_checkout_mandate(r: &mut Reader, v: &Value, path: &str, out: &mut Mandate) {
    let Some(m) = r.object(v, path, &["vct", "constraints", "exp"], PLUMBING) else { return };
    read_exp(r, m, path, out);
    let cp = member(path, "constraints");
    let Some(list) = r.required(m, path, "constraints").and_then(|x| r.array(x, &cp, 0)) else { return };
    for (i, c) in list.iter().enumerate() {
        let ep = element(&cp, i);
        match c.get("type").and_then(Value::as_str) {
            Some("checkout.allowed_merchants") => {
                if let Some(cm) = r.object(c, &ep, &["type", "allowed"], &[])
                    && let Some(list) =
                        r.required(cm, &ep, "allowed").and_then(|x| read_merchants(r, x, &member(&ep, "allowed")))
                {
                    allow_merchants(out, list);
                }
            }
            Some("checkout.line_items") => {
                let Some(cm) = r.object(c, &ep, &["type", "items"], &[]) else { continue };
                out.machine_checkable = true;
                out.exact_quantities = true;
                if let Some(x) = r.required(cm, &ep, "items") {
                    out.line_items = read_requirements(r, x, &member(&ep, "items"));
                }
            }
            Some(other) => out.other_constraints.push((ep.clone(), other.to_owned())),
            None => r.push(
                ReasonCode::Malformed,
                member(&ep, "type"),
                "a constraint type",
                show(c),
                "a constraint needs a type",
            ),
        }
    }
}

/// AP2 `PaymentInstrument`: `{id, type, description?}`; matched by id.
fn read_instrument(r: &mut Reader, v: &Value, path: &str) -> Option<String> {
    let m = r.object(v, path, &["id", "type"], &["description"])?;
    r.required(m, path, "type").and_then(|x| r.id(x, &member(path, "type")));
    r.required(m, path, "id").and_then(|x| r.id(x, &member(path, "id")))
}

/// Every AP2 amount names its currency; they must all be the one the mandate is in.
fn set_currency(r: &mut Reader, out: &mut Mandate, cur: Option<Currency>, path: &str) {
    match (out.currency, cur) {
        (None, Some(c)) => out.currency = Some(c),
        (Some(a), Some(b)) if a != b => {
            let message = format!("the mandate's amounts are in {a} and in {b}: one mandate has one currency");
            r.push(ReasonCode::Malformed, path, a.code(), b.code(), message);
        }
        _ => {}
    }
}

fn amount_range(r: &mut Reader, c: &Value, path: &str, out: &mut Mandate) {
    let Some(m) = r.object(c, path, &["type", "currency", "max", "min"], &[]) else { return };
    let cur = r.required(m, path, "currency").and_then(|x| r.currency(x, &member(path, "currency")));
    set_currency(r, out, cur, &member(path, "currency"));
    out.machine_checkable = true;
    let max = r.required(m, path, "max").and_then(|x| r.amount(x, &member(path, "max"), false));
    let min = m.get("min").map(|x| r.amount(x, &member(path, "min"), false));
    match (min, max) {
        (Some(Some(lo)), Some(hi)) if lo > hi => {
            let message = "min is above max: no amount can satisfy the range";
            r.push(ReasonCode::Malformed, member(path, "min"), format!("at most {hi}"), lo.to_string(), message);
        }
        (Some(None), _) | (_, None) => {}
        (min, Some(max)) => out.amount_range = Some(AmountRange { min: min.flatten(), max }),
    }
}

/// AP2's budget `max` is a JSON number in **major** units. It is converted exactly: the number's decimal text as
/// written (the strict reader keeps it; no double takes part) times 10^exponent, refusing digits beyond the
/// currency's minor unit (`10.001` USD) and anything beyond ±(2^53−1) minor units.
fn budget(r: &mut Reader, c: &Value, path: &str, out: &mut Mandate) {
    let Some(m) = r.object(c, path, &["type", "max", "currency"], &[]) else { return };
    let cur = r.required(m, path, "currency").and_then(|x| r.currency(x, &member(path, "currency")));
    set_currency(r, out, cur, &member(path, "currency"));
    out.machine_checkable = true;
    let mp = member(path, "max");
    let (Some(x), Some(cur)) = (r.required(m, path, "max"), cur) else { return };
    match major_to_minor(x, cur) {
        Ok(minor) => out.budget = Some(minor),
        Err(why) => {
            let expected = format!("a number of {} with at most {} decimal(s)", cur.code(), cur.exponent());
            let message = format!("the budget {} cannot be read exactly as {}: {why}", show(x), cur.code());
            r.push(ReasonCode::AmountInvalid, mp, expected, show(x), message);
        }
    }
}

/// Major units (a JSON number) to minor units of `cur`, exactly.
pub(crate) fn major_to_minor(v: &Value, cur: Currency) -> Result<i64, &'static str> {
    let Value::Number(n) = v else { return Err("it is not a JSON number") };
    let dec = Dec::from_json_number(n).map_err(|e| match e {
        DecError::Negative => "it is negative",
        DecError::TooPrecise => "it has more decimals than the currency's minor unit",
        DecError::TooLarge => "it is beyond any amount",
        DecError::Syntax => "it is not a decimal number",
    })?;
    // Dec counts millionths; one minor unit is 10^(6 - exponent) of them (exponents run 0 to 4).
    let per_minor = SCALE / 10i128.pow(u32::from(cur.exponent()));
    if dec.0 % per_minor != 0 {
        return Err("it has more decimals than the currency's minor unit");
    }
    i64::try_from(dec.0 / per_minor).ok().filter(|m| *m <= MAX_SAFE).ok_or("it is beyond ±(2^53−1) minor units")
}

fn recurrence(r: &mut Reader, c: &Value, path: &str, out: &mut Mandate) {
    out.has_recurrence = true;
    let Some(m) = r.object(c, path, &["type", "frequency", "max_occurrences"], &[]) else { return };
    let frequency = r.required(m, path, "frequency").and_then(|f| read_frequency(r, f, &member(path, "frequency")));
    let max = m.get("max_occurrences").map(|x| r.count(x, &member(path, "max_occurrences"), 1));
    out.recurrence = match (frequency, max) {
        (Some(frequency), None) => Some(Recurrence { frequency, max_occurrences: None }),
        (Some(frequency), Some(Some(n))) => Some(Recurrence { frequency, max_occurrences: Some(n) }),
        _ => None,
    };
}

/// `payment.execution_date`: `not_before` and `not_after`, both inclusive (AP2: "later than or equal to",
/// "earlier than or equal to"); Curbi's expiry is exclusive, so it is `not_after` plus one nanosecond.
fn execution_date(r: &mut Reader, c: &Value, path: &str, out: &mut Mandate) {
    let Some(m) = r.object(c, path, &["type", "not_before", "not_after"], &[]) else { return };
    if let Some(t) = m.get("not_before").and_then(|x| r.timestamp(x, &member(path, "not_before"))) {
        out.not_before = Some(t);
        out.not_before_path = member(path, "not_before");
    }
    if let Some(t) = m.get("not_after").and_then(|x| r.timestamp(x, &member(path, "not_after"))) {
        expire_at(out, t.add_nanos(1), member(path, "not_after"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn minor(text: &str, code: &str) -> Result<i64, &'static str> {
        let v = crate::json::read_str(text).expect("a JSON number");
        major_to_minor(&v, Currency::parse(code).expect("known currency"))
    }

    #[test]
    fn major_units_convert_exactly_or_not_at_all() {
        assert_eq!(minor("1000.00", "USD"), Ok(100_000));
        assert_eq!(minor("1000", "USD"), Ok(100_000));
        assert_eq!(minor("0.1", "USD"), Ok(10));
        assert_eq!(minor("19.99", "USD"), Ok(1999));
        assert_eq!(minor("2.9", "KWD"), Ok(2900));
        assert_eq!(minor("1.2345", "CLF"), Ok(12_345));
        assert_eq!(minor("5000", "JPY"), Ok(5000));
        assert_eq!(minor("1e3", "USD"), Ok(100_000));
        assert!(minor("10.001", "USD").is_err());
        assert!(minor("5000.5", "JPY").is_err());
        assert!(minor("-1", "USD").is_err());
        assert!(minor("90071992547409.92", "USD").is_err());
        // Read from the text, not through a double: as a double this is 10 (and 19.99), so a reader that went
        // through one would take a budget the mandate never wrote.
        assert!(minor("10.000000000000000001", "USD").is_err());
        assert_eq!(minor("19.990000000000000000", "USD"), Ok(1999));
        assert_eq!(minor("90071992547409.91", "USD"), Ok(MAX_SAFE));
        assert!(major_to_minor(&json!("10.00"), Currency::parse("USD").expect("USD")).is_err());
    }
}
