//! The purchase rules: every rule is evaluated over the mandate, the checkout and the ledger at `now`, and every
//! reason returned. A rule whose inputs could not be read is skipped; the unreadable input already denies.

use std::collections::HashMap;

use serde_json::Value;

use super::binding::{Binding, check_binding, read_checkout_mandate, read_keys};
use super::checkout::{Beside, Checkout, Protocol, read_checkout};
use super::decision::{Decision, Reason, ReasonCode, Reasons};
use super::ledger::{Ledger, read_ledger};
use super::mandate::{AcceptableItem, Mandate, read_mandate};
use super::read::{Reader, outside_window, quote, unsupported_constraints};
use super::totals::{Located, TotalsOutcome, check_totals};
use crate::money::{self, Currency, format_amount};
use crate::pointer::member;
use crate::time::Timestamp;

/// `object` of a purchase decision.
pub const PURCHASE_OBJECT: &str = "purchase_check";
/// `stepUp.kind` of a purchase decision.
pub const PURCHASE_STEP_UP: &str = "confirm_purchase";

/// What every rule reads, and the reasons found so far.
pub(super) struct Ctx<'a> {
    pub(super) m: Option<&'a Mandate>,
    pub(super) c: Option<&'a Checkout>,
    pub(super) l: &'a Ledger,
    pub(super) now: Option<Timestamp>,
    pub(super) totals: &'a TotalsOutcome,
    pub(super) out: Vec<Reason>,
}

impl Reasons for Ctx<'_> {
    fn reasons(&mut self) -> &mut Vec<Reason> {
        &mut self.out
    }
}

impl Ctx<'_> {
    /// The currency amounts can be compared in: the mandate's, when the checkout's is the same.
    pub(super) fn money(&self) -> Option<Currency> {
        match (self.m?.currency, self.c?.currency) {
            (Some(a), Some(b)) if a == b => Some(a),
            _ => None,
        }
    }

    /// The checkout total, when it can be compared with the mandate's amounts.
    fn total(&self) -> Option<(&Located, Currency)> {
        Some((self.totals.total.as_ref()?, self.money()?))
    }

    fn mandate_state(&mut self) {
        let Some(m) = self.m else { return };
        if m.revoked {
            self.push(ReasonCode::MandateRevoked, "/mandate/revoked", "false", "true", "the mandate has been revoked");
        }
        if let Some(now) = self.now {
            let expires = m.expires_at.map(|t| (t, ReasonCode::MandateExpired, m.expires_path.as_str()));
            let not_before = m.not_before.map(|t| (t, ReasonCode::MandateNotYetValid, m.not_before_path.as_str()));
            outside_window(self, "the mandate", now, "it is now", expires, not_before);
        }
        if m.user_cart_confirmation_required {
            self.push(
                ReasonCode::CartConfirmationRequired,
                "/mandate/user_cart_confirmation_required",
                "false",
                "true",
                "the mandate asks the user to confirm the cart (AP2 default when not stated)",
            );
        }
        if !m.machine_checkable {
            let (path, actual) = match &m.description {
                Some(d) => ("/mandate/natural_language_description", quote(d)),
                None => ("/mandate", "no amount_range, budget, merchants or line_items".to_owned()),
            };
            self.push(
                ReasonCode::IntentNotMachineCheckable,
                path,
                "at least one of amount_range, budget, merchants, line_items",
                actual,
                "the intent is stated only in natural language: nothing about this checkout can be checked against it",
            );
        }
        unsupported_constraints(self, &m.other_constraints);
    }

    fn checkout_state(&mut self) {
        let Some(c) = self.c else { return };
        if let Some(status) = &c.status {
            let ready = c.protocol.ready_status();
            let hit = match (c.protocol, status.as_str()) {
                (_, s) if s == ready => None,
                // UCP's lifecycle: incomplete, requires_escalation, ready_for_complete, complete_in_progress,
                // completed, canceled. Another protocol's status is unknown here.
                (Protocol::Ucp, "completed") => {
                    Some((ReasonCode::CheckoutCompleted, "the checkout is already completed"))
                }
                (Protocol::Ucp, "canceled") => Some((ReasonCode::CheckoutCanceled, "the checkout was canceled")),
                (Protocol::Ucp, "incomplete" | "complete_in_progress") => {
                    Some((ReasonCode::CheckoutNotReady, "the checkout is not ready to complete"))
                }
                (Protocol::Ucp, "requires_escalation") => {
                    Some((ReasonCode::CheckoutRequiresEscalation, "the business needs the buyer to take over"))
                }
                (Protocol::Ucp, _) => Some((ReasonCode::CheckoutStatusUnknown, "unknown UCP checkout status")),
                (Protocol::Acp, s) => acp_status(s),
            };
            if let Some((code, why)) = hit {
                let message = format!("{why} (status {})", quote(status));
                self.push(code, "/checkout/status", quote(ready), quote(status), message);
            }
        }
        if let (Some(exp), Some(now)) = (c.expires_at, self.now)
            && now >= exp
        {
            let message = format!("the checkout session expired at {exp}; it is now {now}");
            self.push(
                ReasonCode::CheckoutExpired,
                "/checkout/expires_at",
                format!("before {exp}"),
                now.to_rfc3339(),
                message,
            );
        }
    }
}

/// ACP's statuses (2026-04-17): `ready_for_payment` passes; the others are refused or stepped up by what they mean.
fn acp_status(status: &str) -> Option<(ReasonCode, &'static str)> {
    match status {
        "ready_for_payment" => None,
        "completed" => Some((ReasonCode::CheckoutCompleted, "the checkout is already completed")),
        "canceled" => Some((ReasonCode::CheckoutCanceled, "the checkout was canceled")),
        "expired" => Some((ReasonCode::CheckoutExpired, "the checkout has expired")),
        "incomplete" | "not_ready_for_payment" | "in_progress" | "complete_in_progress" => {
            Some((ReasonCode::CheckoutNotReady, "the checkout is not ready for payment"))
        }
        "requires_escalation" | "pending_approval" => {
            Some((ReasonCode::CheckoutRequiresEscalation, "the merchant needs the buyer to take over"))
        }
        "authentication_required" => {
            Some((ReasonCode::CheckoutRequiresAuthentication, "the buyer must authenticate (e.g. 3-D Secure)"))
        }
        _ => Some((ReasonCode::CheckoutStatusUnknown, "unknown checkout status")),
    }
}

impl Ctx<'_> {
    fn currencies(&mut self) {
        let (Some(m), Some(c)) = (self.m, self.c) else { return };
        if let (Some(a), Some(b)) = (m.currency, c.currency)
            && a != b
        {
            let message =
                format!("the checkout is in {b}, the mandate in {a}: amounts are never compared across currencies");
            self.push(ReasonCode::CurrencyMismatch, "/checkout/currency", a.code(), b.code(), message);
        }
        if let (Some(a), Some(lc)) = (m.currency, self.l.currency)
            && a != lc
        {
            let message = format!("the ledger is kept in {lc}, the mandate in {a}");
            self.push(ReasonCode::CurrencyMismatch, "/ledger/currency", a.code(), lc.code(), message);
        }
    }

    fn merchant(&mut self) {
        let (Some(m), Some(c)) = (self.m, self.c) else { return };
        let (Some(allowed), Some(merchant)) = (&m.merchants, &c.merchant) else { return };
        if allowed.iter().any(|a| a.id == merchant.id) {
            return;
        }
        let ids: Vec<String> = allowed.iter().map(|a| quote(&a.id)).collect();
        let by_name = merchant.name.is_some() && allowed.iter().any(|a| a.name.is_some() && a.name == merchant.name);
        let message = if by_name {
            format!(
                "merchant {} has the display name of an allowed merchant but not its id; merchants are matched by id only",
                quote(&merchant.id)
            )
        } else {
            format!("merchant {} is not one of the mandate's merchants", quote(&merchant.id))
        };
        self.push(
            ReasonCode::MerchantNotAllowed,
            member(&c.merchant_path, "id"),
            one_of(&ids, "no merchant (the list is empty)"),
            quote(&merchant.id),
            message,
        );
    }

    fn items(&mut self) {
        let (Some(m), Some(c)) = (self.m, self.c) else { return };
        let Some(reqs) = &m.line_items else { return };
        let money = self.money();
        // Quantities in units of 10^-15 (UCP's finest scale), so that lines of different scales add up exactly.
        let mut counted: Vec<(i128, Option<String>)> = vec![(0, None); reqs.len()];
        // Item ids are unique across requirements (the mandate reader refuses duplicates).
        let by_id: HashMap<&str, (usize, &AcceptableItem)> = reqs
            .iter()
            .enumerate()
            .flat_map(|(ri, req)| req.acceptable_items.iter().map(move |a| (a.id.as_str(), (ri, a))))
            .collect();
        for (li, line) in c.lines.iter().enumerate() {
            let Some(item_id) = &line.item_id else { continue };
            let Some(&(ri, acceptable)) = by_id.get(item_id.as_str()) else {
                self.push(
                    ReasonCode::ItemNotAllowed,
                    member(&line.path, "item") + "/id",
                    "an item id listed in the mandate's acceptable_items",
                    quote(item_id),
                    format!("item {} is not one the user accepted", quote(item_id)),
                );
                continue;
            };
            if let Some(q) = line.quantity {
                let entry = &mut counted[ri];
                entry.0 = entry.0.saturating_add(fine_quantity(q, line.scale));
                entry.1.get_or_insert_with(|| member(&line.path, "quantity"));
            }
            let (Some(approved), Some(cur)) = (acceptable.unit_amount, money) else { continue };
            if let Some(unit) = line.unit_amount {
                if unit > approved {
                    let message = format!(
                        "{} costs {} per unit; the user approved {}",
                        line.label,
                        cur.format(unit),
                        cur.format(approved)
                    );
                    self.push(
                        ReasonCode::PriceIncreased,
                        line.unit_path.clone(),
                        format!("at most {}", cur.format(approved)),
                        cur.format(unit),
                        message,
                    );
                }
            } else if let Some(q) = line.quantity {
                let basis = self
                    .totals
                    .line_base
                    .get(li)
                    .cloned()
                    .flatten()
                    .or_else(|| self.totals.line_subtotal.get(li).cloned().flatten());
                if let (Some(b), Ok(limit)) = (basis, money::mul(approved, q))
                    && b.amount > limit
                {
                    let message = format!(
                        "{} × {} costs {}; the user approved {} per unit",
                        q,
                        line.label,
                        cur.format(b.amount),
                        cur.format(approved)
                    );
                    self.push(
                        ReasonCode::PriceIncreased,
                        b.path,
                        format!("at most {}", cur.format(limit)),
                        cur.format(b.amount),
                        message,
                    );
                }
            }
        }
        for (req, (n, path)) in reqs.iter().zip(counted) {
            let wanted = fine_quantity(req.quantity, 0);
            if m.exact_quantities && n < wanted {
                let n = show_fine(n);
                let message = format!(
                    "{n} unit(s) of requirement {}; the mandate requires exactly {} (AP2 checkout.line_items)",
                    quote(&req.id),
                    req.quantity
                );
                let path = member(&req.path, "quantity");
                self.push(ReasonCode::ItemMissing, path, format!("exactly {}", req.quantity), n, message);
            }
            if let Some(path) = path
                && n > wanted
            {
                let n = show_fine(n);
                let message =
                    format!("{n} unit(s) of requirement {}; the mandate allows {}", quote(&req.id), req.quantity);
                self.push(ReasonCode::ItemQuantityExceeded, path, format!("at most {}", req.quantity), n, message);
            }
        }
    }

    fn amounts(&mut self) {
        let Some(m) = self.m else { return };
        let Some((t, cur)) = self.total() else { return };
        let t = t.clone();
        if let Some(range) = m.amount_range {
            self.above_max(ReasonCode::AmountOverCap, "the total", t.amount, t.path.clone(), range.max, cur);
            if let Some(min) = range.min
                && t.amount < min
            {
                self.total_past(
                    ReasonCode::AmountBelowMin,
                    t.path.clone(),
                    t.amount,
                    cur,
                    min,
                    "the mandate's minimum",
                );
            }
        }
        if let Some(threshold) = m.confirmation_threshold {
            self.threshold("the total", t.amount, t.path.clone(), threshold, cur);
        }
        self.budget(m, &t, cur);
    }

    /// One reason that the total (`amount` at `path`, in `cur`) is past `bound`: below it when it is a minimum, above
    /// it when a maximum; `limit` names the bound in the message ("the mandate's minimum").
    fn total_past(&mut self, code: ReasonCode, path: String, amount: i64, cur: Currency, bound: i64, limit: &str) {
        let (relation, past) = if amount < bound { ("at least", "below") } else { ("at most", "above") };
        let (amount, bound) = (cur.format(amount), cur.format(bound));
        let message = format!("the total {amount} is {past} {limit} {bound}");
        self.push(code, path, format!("{relation} {bound}"), amount, message);
    }

    fn payment(&mut self) {
        let (Some(m), Some(c)) = (self.m, self.c) else { return };
        if let Some(allowed) = &m.payment_instruments {
            let id = c.payment.as_ref().and_then(|p| p.instrument_id.as_ref());
            let ok = id.is_some_and(|id| allowed.contains(id));
            if !ok {
                let ids: Vec<String> = allowed.iter().map(|a| quote(a)).collect();
                let actual = id.map_or_else(|| "missing".to_owned(), |i| quote(i));
                let message = format!("payment instrument {actual} is not one the mandate allows");
                self.push(
                    ReasonCode::InstrumentNotAllowed,
                    member(&c.payment_path, "instrument_id"),
                    one_of(&ids, "no instrument (the list is empty)"),
                    actual,
                    message,
                );
            }
        }
        let Some(a) = c.payment.as_ref().and_then(|p| p.allowance.as_ref()) else { return };
        if let (Some(ac), Some(cc)) = (a.currency, c.currency)
            && ac != cc
        {
            let message = format!("the allowance is in {ac}, the checkout in {cc}");
            self.push(ReasonCode::CurrencyMismatch, member(&a.path, "currency"), cc.code(), ac.code(), message);
        }
        if let (Some(max), Some(t), Some(ac)) = (a.max_amount, &self.totals.total, a.currency)
            && Some(ac) == c.currency
            && t.amount > max
        {
            let (path, amount) = (t.path.clone(), t.amount);
            self.total_past(ReasonCode::AllowanceExceeded, path, amount, ac, max, "the allowance's max_amount");
        }
        if let (Some(exp), Some(now)) = (a.expires_at, self.now)
            && now >= exp
        {
            let message = format!("the allowance expired at {exp}; it is now {now}");
            self.push(
                ReasonCode::AllowanceExpired,
                member(&a.path, "expires_at"),
                format!("before {exp}"),
                now.to_rfc3339(),
                message,
            );
        }
        if let (Some(sid), Some(cid)) = (&a.checkout_session_id, &c.id)
            && sid != cid
        {
            let message = format!("the allowance is bound to checkout {}, not {}", quote(sid), quote(cid));
            self.push(
                ReasonCode::AllowanceCheckoutMismatch,
                member(&a.path, "checkout_session_id"),
                quote(cid),
                quote(sid),
                message,
            );
        }
        if let (Some(mid), Some(merchant)) = (&a.merchant_id, &c.merchant)
            && mid != &merchant.id
        {
            let message = format!("the allowance is bound to merchant {}, not {}", quote(mid), quote(&merchant.id));
            self.push(
                ReasonCode::AllowanceMerchantMismatch,
                member(&a.path, "merchant_id"),
                quote(&merchant.id),
                quote(mid),
                message,
            );
        }
    }

    fn refundability(&mut self) {
        let (Some(m), Some(c)) = (self.m, self.c) else { return };
        if !m.requires_refundability {
            return;
        }
        for line in &c.lines {
            let path = member(&line.path, "refundable");
            match line.refundable {
                // Unreadable: its `malformed` already denies, and it is not "not stated".
                Some(Some(true) | None) => {}
                Some(Some(false)) => {
                    let message = format!("{} is final sale and the mandate requires refundable items", line.label);
                    self.push(ReasonCode::ItemFinalSale, path, "true", "false", message);
                }
                None => {
                    let message =
                        format!("{} does not say whether it can be refunded, and the mandate requires it", line.label);
                    self.push(ReasonCode::RefundabilityUnknown, path, "true", "not stated", message);
                }
            }
        }
    }
}

/// A quantity of steps of 10^-scale units, in steps of 10^-15.
/// The expected value of a rule that allows only the listed ids: one of them, or `none` when the list is empty.
fn one_of(ids: &[String], none: &str) -> String {
    if ids.is_empty() { none.to_owned() } else { format!("one of {}", ids.join(", ")) }
}

fn fine_quantity(q: i64, scale: u32) -> i128 {
    i128::from(q).saturating_mul(10i128.pow(15u32.saturating_sub(scale)))
}

/// A fine quantity as people read it: `3`, `1.25`.
fn show_fine(n: i128) -> String {
    show_quantity(n, 15)
}

/// `q` steps of 10^-scale as a decimal without trailing zeros: (1250, 3) is `1.25`.
fn show_quantity(q: impl Into<i128>, scale: u32) -> String {
    let (q, d) = (q.into(), 10i128.pow(scale));
    let frac = format!("{:0width$}", q % d, width = scale as usize);
    let frac = frac.trim_end_matches('0');
    if frac.is_empty() { (q / d).to_string() } else { format!("{}.{frac}", q / d) }
}

/// One line for the user: merchant, items, total and future charges.
fn summary(c: Option<&Checkout>, totals: &TotalsOutcome) -> String {
    let Some(c) = c else { return "a checkout that could not be read".to_owned() };
    let merchant = match &c.merchant {
        Some(m) => match &m.name {
            Some(n) if !n.is_empty() => format!("{n} ({})", m.id),
            _ => m.id.clone(),
        },
        None => "an unknown merchant".to_owned(),
    };
    let items: Vec<String> = c
        .lines
        .iter()
        .map(|l| match l.quantity {
            Some(q) => format!("{} × {}", show_quantity(q, l.scale), l.label),
            None => l.label.clone(),
        })
        .collect();
    let mut s = format!("{merchant}: {}", items.join(", "));
    if let Some(t) = &totals.total {
        s.push_str(&format!("; total {}", format_amount(c.currency, t.amount)));
    }
    if let Some(rc) = c.recurring {
        let amount = format_amount(c.currency, rc.amount);
        let trial = if rc.trial { " (trial)" } else { "" };
        let until = match rc.occurrences {
            Some(n) => format!(" for {n} charge(s)"),
            None => " until canceled".to_owned(),
        };
        s.push_str(&format!("{trial}, then {amount} {}{until}", rc.frequency.words()));
    }
    s
}

/// Evaluates every purchase rule over already-located documents. `reasons` holds what reading the request found.
pub(crate) fn evaluate(
    mandate: Option<&Value>,
    checkout: Option<&Value>,
    ledger: Option<&Value>,
    now: Option<Timestamp>,
    pins: Pins<'_>,
    reader: Reader,
) -> Decision {
    let mut r = reader;
    let m = mandate.and_then(|v| read_mandate(&mut r, v, "/mandate"));
    let c = checkout.and_then(|v| read_checkout(&mut r, v, "/checkout", pins.beside));
    let l = read_ledger(&mut r, ledger, "/ledger");
    let binding = Binding {
        digest: m.as_ref().and_then(|m| m.checkout_digest.clone()),
        checkout_mandate: pins.checkout_mandate.and_then(|v| read_checkout_mandate(&mut r, v, "/checkout_mandate")),
        keys: pins.merchant_keys.and_then(|v| read_keys(&mut r, v, "/merchant_keys")),
        checkout: if c.is_some() { checkout } else { None },
        merchant_authorization: c.as_ref().and_then(|c| c.merchant_authorization.clone()),
    };
    // Pinned keys that could not be read already deny; without them no signature is checked.
    check_binding(&mut r, &binding, now);
    let mut reasons = r.reasons;
    let totals = c.as_ref().map(|c| check_totals(c, &mut reasons)).unwrap_or_default();
    let mut cx = Ctx { m: m.as_ref(), c: c.as_ref(), l: &l, now, totals: &totals, out: reasons };
    cx.mandate_state();
    cx.checkout_state();
    cx.currencies();
    cx.merchant();
    cx.items();
    cx.amounts();
    cx.recurrence();
    cx.schedules();
    cx.payment();
    cx.refundability();
    let out = cx.out;
    Decision::from_reasons(PURCHASE_OBJECT, PURCHASE_STEP_UP, out, || summary(c.as_ref(), &totals))
}

/// What a checkout charges, as a recorder attests it: its id, its merchant's id, its total (minor units) and its
/// currency, read as the purchase check reads them (the protocol detected the same way).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Charge {
    pub id: Option<String>,
    pub merchant: Option<String>,
    pub total: i64,
    pub currency: String,
}

/// The [`Charge`] of `checkout`; `None` when its currency or total does not read (the purchase check DENYs it then).
pub fn checkout_charge(checkout: &Value) -> Option<Charge> {
    let mut r = Reader::default();
    let c = read_checkout(&mut r, checkout, "/checkout", Beside::default())?;
    let total = check_totals(&c, &mut Vec::new()).total?.amount;
    Some(Charge { id: c.id, merchant: c.merchant.map(|m| m.id), total, currency: c.currency?.code().to_string() })
}

/// Decides whether `checkout` is within what `mandate` authorised, given what `ledger` records (None: nothing yet),
/// at `now`. Never panics and never fails: anything unreadable is a DENY reason.
pub fn verify_checkout(mandate: &Value, checkout: &Value, ledger: Option<&Value>, now: Timestamp) -> Decision {
    evaluate(Some(mandate), Some(checkout), ledger, Some(now), Pins::default(), Reader::default())
}

/// What a request may pin besides the mandate: an AP2 closed checkout mandate, and the merchant's keys.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Pins<'a> {
    pub(crate) checkout_mandate: Option<&'a Value>,
    pub(crate) merchant_keys: Option<&'a Value>,
    pub(crate) beside: Beside<'a>,
}

/// Decides a purchase request document `{"mandate", "checkout", "ledger"?, "now"}` (the vector and CLI format).
pub fn verify_checkout_request(request: &Value) -> Decision {
    let mut r = Reader::default();
    let members = [
        "mandate",
        "checkout",
        "ledger",
        "now",
        "checkout_mandate",
        "merchant_keys",
        "protocol",
        "merchant",
        "payment",
        "recurring",
    ];
    let Some(top) = r.object(request, "", &members, &[]) else {
        return Decision::from_reasons(PURCHASE_OBJECT, PURCHASE_STEP_UP, r.reasons, String::new);
    };
    let mandate = r.required(top, "", "mandate");
    let checkout = r.required(top, "", "checkout");
    let now = super::read::read_now(&mut r, top);
    let beside = Beside {
        protocol: top.get("protocol"),
        merchant: top.get("merchant"),
        payment: top.get("payment"),
        recurring: top.get("recurring"),
    };
    let pins = Pins { checkout_mandate: top.get("checkout_mandate"), merchant_keys: top.get("merchant_keys"), beside };
    evaluate(mandate, checkout, top.get("ledger"), now, pins, r)
}
