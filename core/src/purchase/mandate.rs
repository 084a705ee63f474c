//! The mandate: what the user authorised, AP2-style (amount range, budget, confirmation threshold, merchants by id,
//! acceptable items with quantities and approved prices, instruments, recurrence, refundability, validity window).

use std::collections::HashSet;

use serde_json::Value;

use super::decision::{ReasonCode, Reasons};
use super::read::{Reader, quote, show};
use crate::money::Currency;
use crate::pointer::{element, member};
use crate::time::Timestamp;

/// How often a recurring charge or a reuse of the mandate may happen (AP2 `payment.agent_recurrence.frequency`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Frequency {
    OnDemand,
    Daily,
    Weekly,
    Biweekly,
    Monthly,
    Quarterly,
    Annually,
}

impl Frequency {
    pub const ALL: [(&'static str, Frequency); 7] = [
        ("ON_DEMAND", Frequency::OnDemand),
        ("DAILY", Frequency::Daily),
        ("WEEKLY", Frequency::Weekly),
        ("BIWEEKLY", Frequency::Biweekly),
        ("MONTHLY", Frequency::Monthly),
        ("QUARTERLY", Frequency::Quarterly),
        ("ANNUALLY", Frequency::Annually),
    ];

    pub fn as_str(self) -> &'static str {
        Frequency::ALL.iter().find(|(_, f)| *f == self).map_or("ON_DEMAND", |(s, _)| s)
    }

    /// Position from most to least frequent; `None` for ON_DEMAND, which has no fixed period.
    pub fn rank(self) -> Option<u8> {
        match self {
            Frequency::OnDemand => None,
            Frequency::Daily => Some(0),
            Frequency::Weekly => Some(1),
            Frequency::Biweekly => Some(2),
            Frequency::Monthly => Some(3),
            Frequency::Quarterly => Some(4),
            Frequency::Annually => Some(5),
        }
    }

    /// Does a mandate allowing `self` allow charges every `other`? ON_DEMAND allows any frequency; a fixed
    /// frequency allows itself and anything less frequent, never ON_DEMAND.
    pub fn allows(self, other: Frequency) -> bool {
        match (self.rank(), other.rank()) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(mine), Some(theirs)) => theirs >= mine,
        }
    }

    /// Words for summaries: "every month".
    pub fn words(self) -> &'static str {
        match self {
            Frequency::OnDemand => "on demand",
            Frequency::Daily => "every day",
            Frequency::Weekly => "every week",
            Frequency::Biweekly => "every two weeks",
            Frequency::Monthly => "every month",
            Frequency::Quarterly => "every quarter",
            Frequency::Annually => "every year",
        }
    }

    /// The earliest next use after one at `last`; `None` for ON_DEMAND.
    pub fn next_after(self, last: Timestamp) -> Option<Timestamp> {
        self.periods_after(last, 1)
    }

    /// `k` periods after `start` (computed in one step, so a clamped day does not drift from charge to charge);
    /// `None` for ON_DEMAND, which has no period, and when it is beyond the year 9999, later than any RFC 3339 time.
    pub fn periods_after(self, start: Timestamp, k: i64) -> Option<Timestamp> {
        // Ten thousand years: in days and in months.
        const MAX_DAYS: i64 = 3_652_500;
        const MAX_MONTHS: i64 = 120_000;
        let (days, months) = match self {
            Frequency::OnDemand => return None,
            Frequency::Daily => (1, 0),
            Frequency::Weekly => (7, 0),
            Frequency::Biweekly => (14, 0),
            Frequency::Monthly => (0, 1),
            Frequency::Quarterly => (0, 3),
            Frequency::Annually => (0, 12),
        };
        if !(0..=MAX_DAYS).contains(&k) {
            return None;
        }
        if days > 0 {
            let d = k * days;
            return (d <= MAX_DAYS).then(|| start.add_days(d));
        }
        let m = k * months;
        (m <= MAX_MONTHS).then(|| start.add_months(u32::try_from(m).unwrap_or(u32::MAX)))
    }
}

/// Reads a frequency name; reports anything else.
pub(crate) fn read_frequency(r: &mut Reader, v: &Value, path: &str) -> Option<Frequency> {
    if let Value::String(s) = v
        && let Some((_, f)) = Frequency::ALL.iter().find(|(name, _)| name == s)
    {
        return Some(*f);
    }
    let names: Vec<&str> = Frequency::ALL.iter().map(|(n, _)| *n).collect();
    let expected = format!("one of {}", names.join(", "));
    let message = format!("unknown frequency {}: expected {expected}", show(v));
    r.push(ReasonCode::Malformed, path, expected, show(v), message);
    None
}

/// A merchant by id (and a display name that is never used for matching).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MerchantRef {
    pub(crate) id: String,
    pub(crate) name: Option<String>,
}

/// An item the user accepts, with the unit price they approved (if recorded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AcceptableItem {
    pub(crate) id: String,
    pub(crate) title: Option<String>,
    pub(crate) unit_amount: Option<i64>,
}

/// AP2 `checkout.line_items` requirement: up to `quantity` units in total of any of the acceptable items.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ItemRequirement {
    /// Pointer to the requirement.
    pub(crate) path: String,
    pub(crate) id: String,
    pub(crate) acceptable_items: Vec<AcceptableItem>,
    pub(crate) quantity: i64,
}

/// AP2 `payment.agent_recurrence`: the mandate may be used again, at most this often and this many times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Recurrence {
    pub(crate) frequency: Frequency,
    pub(crate) max_occurrences: Option<i64>,
}

/// AP2 `payment.amount_range`, in minor units of the mandate currency.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AmountRange {
    pub(crate) min: Option<i64>,
    pub(crate) max: i64,
}

/// A mandate as read. A member that could not be read is `None` (its reason is already recorded); rules that need it
/// are not evaluated. `has_*` flags say a member was present at all, readable or not.
#[derive(Debug, Clone, Default)]
pub(crate) struct Mandate {
    pub(crate) id: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) currency: Option<Currency>,
    pub(crate) amount_range: Option<AmountRange>,
    pub(crate) budget: Option<i64>,
    pub(crate) confirmation_threshold: Option<i64>,
    pub(crate) merchants: Option<Vec<MerchantRef>>,
    pub(crate) line_items: Option<Vec<ItemRequirement>>,
    pub(crate) payment_instruments: Option<Vec<String>>,
    pub(crate) recurrence: Option<Recurrence>,
    pub(crate) has_recurrence: bool,
    pub(crate) requires_refundability: bool,
    pub(crate) user_cart_confirmation_required: bool,
    pub(crate) not_before: Option<Timestamp>,
    pub(crate) expires_at: Option<Timestamp>,
    pub(crate) revoked: bool,
    /// `(path, type)` of each constraint this checker does not implement.
    pub(crate) other_constraints: Vec<(String, String)>,
    /// Whether any of amount_range, budget, merchants, line_items or checkout_digest was present.
    pub(crate) machine_checkable: bool,
    /// The approved cart: digest of the RFC 8785 checkout (see `binding::checkout_digest`).
    pub(crate) checkout_digest: Option<String>,
    /// Where the expiry and the start were read (`/mandate/expires_at`; AP2: `exp`, `execution_date`).
    pub(crate) expires_path: String,
    pub(crate) not_before_path: String,
    /// AP2 `checkout.line_items`: each requirement's quantity must be bought exactly, not at most.
    pub(crate) exact_quantities: bool,
}

const MANDATE_MEMBERS: &[&str] = &[
    "id",
    "natural_language_description",
    "currency",
    "amount_range",
    "budget",
    "confirmation_threshold",
    "merchants",
    "line_items",
    "payment_instruments",
    "recurrence",
    "requires_refundability",
    "user_cart_confirmation_required",
    "not_before",
    "expires_at",
    "revoked",
    "other_constraints",
    "checkout_digest",
];

/// Reads a mandate at `path` (normally `/mandate`). Returns `None` only when it is not an object at all.
pub(crate) fn read_mandate(r: &mut Reader, v: &Value, path: &str) -> Option<Mandate> {
    if super::ap2::is_ap2(v) {
        return super::ap2::read_mandate(r, v, path);
    }
    let m = r.object(v, path, MANDATE_MEMBERS, &[])?;
    let p = |k: &str| member(path, k);
    let mut out = Mandate {
        user_cart_confirmation_required: true,
        expires_path: p("expires_at"),
        not_before_path: p("not_before"),
        ..Mandate::default()
    };
    out.id = m.get("id").and_then(|x| r.id(x, &p("id")));
    out.description = m.get("natural_language_description").and_then(|x| r.text(x, &p("natural_language_description")));
    out.currency = r.required(m, path, "currency").and_then(|x| r.currency(x, &p("currency")));
    out.machine_checkable =
        ["amount_range", "budget", "merchants", "line_items", "checkout_digest"].iter().any(|k| m.contains_key(*k));
    out.checkout_digest = m.get("checkout_digest").and_then(|x| r.id(x, &p("checkout_digest")));

    if let Some(x) = m.get("amount_range") {
        let ap = p("amount_range");
        if let Some(am) = r.object(x, &ap, &["min", "max"], &[]) {
            let max = r.required(am, &ap, "max").and_then(|v| r.amount(v, &member(&ap, "max"), false));
            let min = am.get("min").map(|v| r.amount(v, &member(&ap, "min"), false));
            match (min, max) {
                (Some(Some(lo)), Some(hi)) if lo > hi => r.push(
                    ReasonCode::Malformed,
                    member(&ap, "min"),
                    format!("at most max ({hi})"),
                    lo.to_string(),
                    "amount_range.min is above amount_range.max: no amount can satisfy it",
                ),
                (Some(None), _) | (_, None) => {}
                (min, Some(max)) => out.amount_range = Some(AmountRange { min: min.flatten(), max }),
            }
        }
    }
    if let Some(x) = m.get("budget") {
        let bp = p("budget");
        if let Some(bm) = r.object(x, &bp, &["max"], &[]) {
            out.budget = r.required(bm, &bp, "max").and_then(|v| r.amount(v, &member(&bp, "max"), false));
        }
    }
    out.confirmation_threshold =
        m.get("confirmation_threshold").and_then(|x| r.amount(x, &p("confirmation_threshold"), false));
    if let Some(x) = m.get("merchants") {
        out.merchants = read_merchants(r, x, &p("merchants"));
    }
    if let Some(x) = m.get("line_items") {
        out.line_items = read_requirements(r, x, &p("line_items"));
    }
    if let Some(x) = m.get("payment_instruments") {
        out.payment_instruments = r.ids(x, &p("payment_instruments"), 0);
    }
    if let Some(x) = m.get("recurrence") {
        out.has_recurrence = true;
        let rp = p("recurrence");
        if let Some(rm) = r.object(x, &rp, &["frequency", "max_occurrences"], &[]) {
            let frequency =
                r.required(rm, &rp, "frequency").and_then(|f| read_frequency(r, f, &member(&rp, "frequency")));
            let max = rm.get("max_occurrences").map(|c| r.count(c, &member(&rp, "max_occurrences"), 1));
            out.recurrence = match (frequency, max) {
                (Some(frequency), None) => Some(Recurrence { frequency, max_occurrences: None }),
                (Some(frequency), Some(Some(n))) => Some(Recurrence { frequency, max_occurrences: Some(n) }),
                _ => None,
            };
        }
    }
    // An unreadable flag is not evaluated (its malformed reason already denies), like every unreadable input.
    if let Some(x) = m.get("requires_refundability") {
        out.requires_refundability = r.boolean(x, &p("requires_refundability")).unwrap_or(false);
    }
    if let Some(x) = m.get("user_cart_confirmation_required") {
        out.user_cart_confirmation_required = r.boolean(x, &p("user_cart_confirmation_required")).unwrap_or(false);
    }
    (out.not_before, out.expires_at, out.revoked, out.other_constraints) = r.validity(m, path);
    Some(out)
}

/// `[{"id": "...", "name": "..."}]`; `None` if any entry is unreadable.
pub(crate) fn read_merchants(r: &mut Reader, v: &Value, path: &str) -> Option<Vec<MerchantRef>> {
    let list = r.array(v, path, 0)?;
    let mut out = Vec::with_capacity(list.len());
    let mut ok = true;
    for (i, x) in list.iter().enumerate() {
        match read_merchant(r, x, &element(path, i)) {
            Some(mr) => out.push(mr),
            None => ok = false,
        }
    }
    ok.then_some(out)
}

/// `{"id": "...", "name": "..."}`.
pub(crate) fn read_merchant(r: &mut Reader, v: &Value, path: &str) -> Option<MerchantRef> {
    // AP2's Merchant also has a website, for people.
    let m = r.object(v, path, &["id", "name"], &["website"])?;
    let id = r.required(m, path, "id").and_then(|x| r.id(x, &member(path, "id")));
    let name = match m.get("name") {
        Some(x) => Some(r.text(x, &member(path, "name"))?),
        None => None,
    };
    Some(MerchantRef { id: id?, name })
}

pub(crate) fn read_requirements(r: &mut Reader, v: &Value, path: &str) -> Option<Vec<ItemRequirement>> {
    let list = r.array(v, path, 1)?;
    let mut out = Vec::with_capacity(list.len());
    let mut ok = true;
    let mut seen: HashSet<String> = HashSet::new();
    for (i, x) in list.iter().enumerate() {
        let rp = element(path, i);
        let Some(m) = r.object(x, &rp, &["id", "acceptable_items", "quantity"], &[]) else {
            ok = false;
            continue;
        };
        let id = r.required(m, &rp, "id").and_then(|x| r.id(x, &member(&rp, "id")));
        let quantity = r.required(m, &rp, "quantity").and_then(|x| r.quantity(x, &member(&rp, "quantity")));
        let mut items = Vec::new();
        let mut items_ok = false;
        if let Some(list) = r.required(m, &rp, "acceptable_items").and_then(|x| {
            let ap = member(&rp, "acceptable_items");
            r.array(x, &ap, 1).map(|a| (a, ap))
        }) {
            let (list, ap) = list;
            items_ok = true;
            for (j, it) in list.iter().enumerate() {
                let ip = element(&ap, j);
                let Some(im) = r.object(it, &ip, &["id", "title", "unit_amount"], &[]) else {
                    items_ok = false;
                    continue;
                };
                let item_id = r.required(im, &ip, "id").and_then(|x| r.id(x, &member(&ip, "id")));
                let title = im.get("title").map(|x| r.text(x, &member(&ip, "title")));
                let unit = im.get("unit_amount").map(|x| r.amount(x, &member(&ip, "unit_amount"), false));
                if matches!(title, Some(None)) || matches!(unit, Some(None)) {
                    items_ok = false;
                }
                let Some(item_id) = item_id else {
                    items_ok = false;
                    continue;
                };
                if !seen.insert(item_id.clone()) {
                    r.push(
                        ReasonCode::Malformed,
                        member(&ip, "id"),
                        "each item id in at most one acceptable_items entry",
                        quote(&item_id),
                        format!(
                            "item {} is listed twice: which quantity it counts against would be ambiguous",
                            quote(&item_id)
                        ),
                    );
                    items_ok = false;
                }
                items.push(AcceptableItem { id: item_id, title: title.flatten(), unit_amount: unit.flatten() });
            }
        }
        match (id, quantity, items_ok) {
            (Some(id), Some(quantity), true) => {
                out.push(ItemRequirement { path: rp, id, acceptable_items: items, quantity })
            }
            _ => ok = false,
        }
    }
    ok.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periods_are_counted_from_the_start_in_one_step() {
        let at = |s: &str| Timestamp::parse(s).ok();
        let start = Timestamp::parse("2026-01-31T10:00:00Z").expect("valid time");
        assert_eq!(Frequency::Monthly.periods_after(start, 1), at("2026-02-28T10:00:00Z"));
        // Not Feb 28 + 1 month = Mar 28: the day does not drift.
        assert_eq!(Frequency::Monthly.periods_after(start, 2), at("2026-03-31T10:00:00Z"));
        assert_eq!(Frequency::Biweekly.periods_after(start, 2), at("2026-02-28T10:00:00Z"));
        assert_eq!(Frequency::Annually.periods_after(start, 0), Some(start));
        assert_eq!(Frequency::OnDemand.periods_after(start, 1), None);
        assert_eq!(Frequency::Annually.periods_after(start, 10_001), None);
        assert_eq!(Frequency::Daily.periods_after(start, i64::MAX), None);
        assert_eq!(Frequency::Weekly.periods_after(start, -1), None);
    }
}
