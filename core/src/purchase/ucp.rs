//! UCP checkouts in their own shape (dev.ucp.shopping.checkout with the discount, payment terms and AP2 mandate
//! extensions): line items priced per whole `quantity_unit` with integer steps of 10^-scale, `payment.instruments`,
//! and the selected payment term's schedules, whose deferred payments are future charges.

use serde_json::{Map, Value};

use super::checkout::{Line, Payment, Protocol, read_totals};
use super::decision::{ReasonCode, Reasons};
use super::read::{Reader, quote, show};
use crate::pointer::{element, member};
use crate::time::Timestamp;

/// UCP checkout members Curbi evaluates (beside the Curbi additions `merchant` and `recurring`).
pub(crate) const MEMBERS: &[&str] =
    &["id", "status", "currency", "line_items", "totals", "expires_at", "payment", "discounts", "ap2"];

/// UCP checkout members accepted and not evaluated: protocol metadata, the buyer, context and signals, links,
/// policies (their terms are text for people), messages, actions, the handoff URL, the order once placed, and the
/// fulfillment and buyer-consent extensions.
pub(crate) const IGNORED: &[&str] = &[
    "ucp",
    "buyer",
    "context",
    "signals",
    "attribution",
    "actions",
    "messages",
    "links",
    "policies",
    "continue_url",
    "order",
    "fulfillment",
];

/// UCP's statuses: `ready_for_complete` is UCP's ready state.
pub(crate) const READY: &str = "ready_for_complete";

/// A payment the selected UCP payment term defers past completion (any schedule `type` but `immediate`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Deferred {
    pub(crate) path: String,
    pub(crate) amount: i64,
    pub(crate) due_at: Option<Timestamp>,
}

/// The selected payment term: its schedules' total (they must add up to the checkout total) and the deferred ones.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Term {
    pub(crate) path: String,
    pub(crate) sum: Option<i64>,
    pub(crate) deferred: Vec<Deferred>,
}

/// Reads a UCP line item: `{id, item: {id, title, price, quantity_unit?, unit_price?, image_url?}, quantity,
/// totals, parent_id?}`. `item.price` is per one whole `quantity_unit.unit`; `quantity` counts steps of
/// 10^-`scale` of it (scale 0 and `each` when `quantity_unit` is absent).
pub(crate) fn read_line(r: &mut Reader, v: &Value, path: &str) -> Option<Line> {
    let m = r.object(v, path, &["id", "item", "quantity", "totals"], &["parent_id"])?;
    let p = |k: &str| member(path, k);
    let id = r.required(m, path, "id").and_then(|x| r.id(x, &p("id")));
    let ip = p("item");
    let (mut item_id, mut title, mut price, mut scale) = (None, None, None, Some(0u32));
    if let Some(im) = r
        .required(m, path, "item")
        .and_then(|x| r.object(x, &ip, &["id", "title", "price", "quantity_unit"], &["unit_price", "image_url"]))
    {
        item_id = r.required(im, &ip, "id").and_then(|x| r.id(x, &member(&ip, "id")));
        title = im.get("title").and_then(|x| r.text(x, &member(&ip, "title")));
        price = r.required(im, &ip, "price").and_then(|x| r.amount(x, &member(&ip, "price"), false));
        if let Some(x) = im.get("quantity_unit") {
            scale = read_scale(r, x, &member(&ip, "quantity_unit"));
        }
    }
    let quantity = r.required(m, path, "quantity").and_then(|x| r.quantity(x, &p("quantity")));
    let totals = r.required(m, path, "totals").and_then(|x| read_totals(r, x, &p("totals"), Protocol::Ucp));
    let label = title.or_else(|| item_id.clone()).unwrap_or_else(|| "(unnamed item)".to_owned());
    Some(Line {
        path: path.to_owned(),
        id,
        item_id,
        label,
        // An unreadable scale leaves the quantity unusable: its reason already denies.
        quantity: quantity.filter(|_| scale.is_some()),
        scale: scale.unwrap_or(0),
        unit_amount: price,
        unit_path: member(&ip, "price"),
        unit_amounts_both: None,
        totals,
        refundable: None,
    })
}

/// `quantity_unit`: `{unit, display_text, scale?, increment?}`; only the scale (0 to 15) changes what a quantity is.
fn read_scale(r: &mut Reader, v: &Value, path: &str) -> Option<u32> {
    let m = r.object(v, path, &["unit", "display_text", "scale"], &["increment"])?;
    let unit = r.required(m, path, "unit").and_then(|x| r.id(x, &member(path, "unit")));
    let scale = match m.get("scale") {
        Some(x) => r.count(x, &member(path, "scale"), 0).filter(|s| {
            let ok = *s <= 15;
            if !ok {
                let message = "UCP scales run from 0 to 15: one whole unit must stay representable";
                r.push(ReasonCode::Malformed, member(path, "scale"), "0 to 15", s.to_string(), message);
            }
            ok
        })?,
        None => 0,
    };
    if unit.as_deref() == Some("C62") && scale != 0 {
        let message = "a C62 (each) quantity has scale 0: items are not sold in fractions";
        r.push(ReasonCode::Malformed, member(path, "scale"), "0", scale.to_string(), message);
        return None;
    }
    u32::try_from(scale).ok()
}

/// UCP `payment` (with the payment terms extension): the selected instrument's id (or the only one's) is the
/// instrument; handler-specific instrument members and the credential (which carries the AP2 payment mandate) are
/// the handler's, not read. The selected term's schedules are read.
pub(crate) fn read_payment(r: &mut Reader, v: &Value, path: &str) -> (Option<Payment>, Option<Term>) {
    let Some(m) = r.object(v, path, &["instruments", "terms", "selected_term_id"], &[]) else { return (None, None) };
    let mut payment = Payment::default();
    if let Some(list) = m.get("instruments").and_then(|x| r.array(x, &member(path, "instruments"), 0)) {
        let objects: Vec<&Map<String, Value>> = list.iter().filter_map(Value::as_object).collect();
        let selected: Vec<&&Map<String, Value>> =
            objects.iter().filter(|o| o.get("selected") == Some(&Value::Bool(true))).collect();
        let chosen = match (selected.as_slice(), objects.as_slice()) {
            ([one], _) => Some(**one),
            ([], [only]) => Some(*only),
            _ => None,
        };
        payment.instrument_id = chosen.and_then(|o| o.get("id")).and_then(Value::as_str).map(str::to_owned);
    }
    let term = read_terms(r, m, path);
    (Some(payment), term)
}

fn read_terms(r: &mut Reader, m: &Map<String, Value>, path: &str) -> Option<Term> {
    let tp = member(path, "terms");
    let sp = member(path, "selected_term_id");
    let Some(terms) = m.get("terms") else {
        // A selected term must exist: without a terms list it names none, and its schedules would go unchecked.
        if let Some(selected) = m.get("selected_term_id").and_then(|x| r.id(x, &sp)) {
            let message = format!("selected_term_id {} names a term, and the payment has no terms", quote(&selected));
            r.push(ReasonCode::Malformed, sp, "the id of one of the terms", quote(&selected), message);
        }
        return None;
    };
    let terms = r.array(terms, &tp, 1)?;
    let selected = r.required(m, path, "selected_term_id").and_then(|x| r.id(x, &sp))?;
    let Some((i, term)) =
        terms.iter().enumerate().find(|(_, t)| t.get("id").and_then(Value::as_str) == Some(&selected))
    else {
        let message = format!("selected_term_id {} names none of the terms", quote(&selected));
        r.push(ReasonCode::Malformed, sp, "the id of one of the terms", quote(&selected), message);
        return None;
    };
    let path = element(&tp, i);
    let schedules_path = member(&path, "schedules");
    let list = r.array(term.get("schedules").unwrap_or(&Value::Null), &schedules_path, 1)?;
    let mut out = Term { path: schedules_path.clone(), sum: Some(0), deferred: Vec::new() };
    for (j, s) in list.iter().enumerate() {
        let sp = element(&schedules_path, j);
        let Some(sm) = s.as_object() else {
            r.push(ReasonCode::Malformed, sp, "a payment schedule", show(s), "a payment schedule is an object");
            out.sum = None;
            continue;
        };
        let amount = r.required(sm, &sp, "amount").and_then(|a| r.amount(a, &member(&sp, "amount"), false));
        let kind = r.required(sm, &sp, "type").and_then(|t| r.id(t, &member(&sp, "type")));
        let due_at = sm.get("due_at").and_then(|t| r.timestamp(t, &member(&sp, "due_at")));
        out.sum = out.sum.zip(amount).and_then(|(a, b)| a.checked_add(b));
        // UCP: only `immediate` is due at completion; every other type, known or not, is due later.
        if let (Some(amount), Some(kind)) = (amount, kind)
            && kind != "immediate"
        {
            out.deferred.push(Deferred { path: sp, amount, due_at });
        }
    }
    Some(out)
}
