//! The checkout: an ACP checkout session (2026-04-17: line items with totals, checkout totals, currency, status,
//! expiry) plus what the host knows about it (merchant, payment instrument and allowance, recurring terms).

use serde_json::{Map, Value};

use super::decision::{ReasonCode, Reasons};
use super::mandate::{Frequency, MerchantRef, read_frequency, read_merchant};
use super::read::{Reader, quote, show};
use super::ucp::{self, Term};
use crate::money::Currency;
use crate::pointer::{element, member};
use crate::time::Timestamp;

/// Sign convention of total entries. ACP writes every amount as zero or more and subtracts discounts and credits by
/// type; UCP writes discounts and credits as negative amounts and every entry is added with its sign.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Convention {
    #[default]
    Acp,
    Ucp,
}

/// The type of a total entry (ACP `Total.type`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TotalKind {
    ItemsBaseAmount,
    ItemsDiscount,
    Subtotal,
    Discount,
    Fulfillment,
    Tax,
    Fee,
    GiftWrap,
    Tip,
    StoreCredit,
    Total,
    AmountRefunded,
    Unknown(String),
}

impl TotalKind {
    const KNOWN: [TotalKind; 12] = [
        TotalKind::ItemsBaseAmount,
        TotalKind::ItemsDiscount,
        TotalKind::Subtotal,
        TotalKind::Discount,
        TotalKind::Fulfillment,
        TotalKind::Tax,
        TotalKind::Fee,
        TotalKind::GiftWrap,
        TotalKind::Tip,
        TotalKind::StoreCredit,
        TotalKind::Total,
        TotalKind::AmountRefunded,
    ];

    fn parse(s: &str) -> TotalKind {
        TotalKind::KNOWN.into_iter().find(|k| k.as_str() == s).unwrap_or_else(|| TotalKind::Unknown(s.to_owned()))
    }
}

impl TotalKind {
    /// The wire name.
    pub(crate) fn as_str(&self) -> &str {
        match self {
            TotalKind::ItemsBaseAmount => "items_base_amount",
            TotalKind::ItemsDiscount => "items_discount",
            TotalKind::Subtotal => "subtotal",
            TotalKind::Discount => "discount",
            TotalKind::Fulfillment => "fulfillment",
            TotalKind::Tax => "tax",
            TotalKind::Fee => "fee",
            TotalKind::GiftWrap => "gift_wrap",
            TotalKind::Tip => "tip",
            TotalKind::StoreCredit => "store_credit",
            TotalKind::Total => "total",
            TotalKind::AmountRefunded => "amount_refunded",
            TotalKind::Unknown(s) => s,
        }
    }
}

/// One entry of a totals list, with its index in the list. `kind` or `amount` is `None` when unreadable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TotalEntry {
    pub(crate) index: usize,
    pub(crate) kind: Option<TotalKind>,
    pub(crate) amount: Option<i64>,
}

/// A totals list and the pointer to it (`/checkout/totals`, `/checkout/line_items/0/totals`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Totals {
    pub(crate) path: String,
    pub(crate) entries: Vec<TotalEntry>,
}

/// One line item as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Line {
    pub(crate) path: String,
    pub(crate) id: Option<String>,
    pub(crate) item_id: Option<String>,
    /// What a person calls it: the line's name, else the item's name, else the item id.
    pub(crate) label: String,
    pub(crate) quantity: Option<i64>,
    /// A quantity counts steps of 10^-scale units (UCP `quantity_unit.scale`; 0 everywhere else).
    pub(crate) scale: u32,
    /// The line's `unit_amount`, else the item's `unit_amount` (UCP: `item.price`, per whole unit).
    pub(crate) unit_amount: Option<i64>,
    /// Pointer to the unit amount used.
    pub(crate) unit_path: String,
    /// Both unit amounts, when both were given: (line, item).
    pub(crate) unit_amounts_both: Option<(i64, i64)>,
    pub(crate) totals: Option<Totals>,
    /// Curbi addition: `Some(Some(true))` refundable, `Some(Some(false))` final sale, `None` not stated,
    /// `Some(None)` stated but unreadable (its `malformed` already denies; no rule reads it).
    pub(crate) refundable: Option<Option<bool>>,
}

/// ACP delegated-payment allowance (`delegate_payment` `Allowance`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Allowance {
    pub(crate) path: String,
    pub(crate) max_amount: Option<i64>,
    pub(crate) currency: Option<Currency>,
    pub(crate) checkout_session_id: Option<String>,
    pub(crate) merchant_id: Option<String>,
    pub(crate) expires_at: Option<Timestamp>,
}

/// Curbi addition: how the checkout will be paid.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Payment {
    pub(crate) instrument_id: Option<String>,
    pub(crate) allowance: Option<Allowance>,
}

/// Curbi addition: future charges this checkout signs the user up for (a subscription, or a trial that converts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Recurring {
    pub(crate) amount: i64,
    pub(crate) frequency: Frequency,
    /// Number of future charges; `None` means until canceled.
    pub(crate) occurrences: Option<i64>,
    /// This checkout is a trial that converts to the recurring charge.
    pub(crate) trial: bool,
    /// When the first future charge falls; absent: one period after `now`.
    pub(crate) first_charge_at: Option<Timestamp>,
}

/// A checkout as read; unreadable members are `None` and their reasons already recorded.
#[derive(Debug, Clone, Default)]
pub(crate) struct Checkout {
    pub(crate) id: Option<String>,
    pub(crate) status: Option<String>,
    pub(crate) currency: Option<Currency>,
    pub(crate) merchant: Option<MerchantRef>,
    pub(crate) lines: Vec<Line>,
    /// Every line item was read as an object (its fields may still be partly unreadable).
    pub(crate) lines_complete: bool,
    pub(crate) totals: Option<Totals>,
    pub(crate) expires_at: Option<Timestamp>,
    pub(crate) payment: Option<Payment>,
    pub(crate) recurring: Option<Recurring>,
    pub(crate) has_recurring: bool,
    pub(crate) convention: Convention,
    /// Σ of the discounts the checkout says it applied (ACP and UCP `discounts.applied[].amount`, UCP provisional
    /// ones left out) and the pointer to the list; `None` when absent or unreadable.
    pub(crate) discounts_shown: Option<(i64, String)>,
    /// UCP/AP2 `ap2.merchant_authorization`: the merchant's detached JWS over the checkout.
    pub(crate) merchant_authorization: Option<String>,
    pub(crate) protocol: Protocol,
    /// Where `merchant`, `payment` and `recurring` were read: in the checkout, or beside it in the request (a
    /// protocol document passed unchanged has no room for what only the host knows).
    pub(crate) merchant_path: String,
    pub(crate) payment_path: String,
    pub(crate) recurring_path: String,
    /// UCP: the selected payment term.
    pub(crate) term: Option<Term>,
    /// ACP: the first line disclosure that states trial or recurring terms, when `recurring` does not structure them.
    pub(crate) disclosed_recurrence: Option<String>,
}

/// The protocol a checkout is written in: ACP's checkout session (with Curbi's additions; the default), or UCP's
/// checkout, detected by its `ucp` member or named by the request's `protocol`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Protocol {
    #[default]
    Acp,
    Ucp,
}

impl Protocol {
    /// The status in which a checkout may be completed.
    pub(crate) fn ready_status(self) -> &'static str {
        match self {
            Protocol::Acp => "ready_for_payment",
            Protocol::Ucp => ucp::READY,
        }
    }
}

/// What the request holds beside the checkout: an explicit protocol, and the host's `merchant`, `payment` and
/// `recurring` for a checkout passed as the protocol wrote it.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Beside<'a> {
    pub(crate) protocol: Option<&'a Value>,
    pub(crate) merchant: Option<&'a Value>,
    pub(crate) payment: Option<&'a Value>,
    pub(crate) recurring: Option<&'a Value>,
}

/// Words that state a trial or a recurring charge in a disclosure's text (lowercased, matched as substrings, so
/// `weekly` also matches `biweekly` and `until cancel` matches `until canceled`). Every fixed `recurring` frequency
/// has its own words; docs/PURCHASE.md lists them all, and a test keeps the two lists equal.
const RECURRENCE_WORDS: &[&str] = &[
    "trial",
    "subscription",
    "subscribe",
    "renew",
    "recurring",
    "recurs",
    "until cancel",
    "until you cancel",
    "billed every",
    "charged every",
    // DAILY
    "daily",
    "per day",
    // WEEKLY and BIWEEKLY
    "per week",
    "weekly",
    "every week",
    "each week",
    "every two weeks",
    "every 2 weeks",
    "every other week",
    "fortnight",
    // MONTHLY
    "per month",
    "a month",
    "/month",
    "/mo",
    "monthly",
    "every month",
    "each month",
    // QUARTERLY
    "quarterly",
    "per quarter",
    "every quarter",
    "each quarter",
    "every three months",
    "every 3 months",
    // ANNUALLY
    "per year",
    "a year",
    "/year",
    "annually",
    "yearly",
    "every year",
    "each year",
];

const CHECKOUT_MEMBERS: &[&str] = &[
    "id",
    "status",
    "currency",
    "merchant",
    "line_items",
    "totals",
    "expires_at",
    "payment",
    "recurring",
    "totals_convention",
    "discounts",
    "ap2",
];

/// ACP checkout-session members that are accepted and not evaluated.
const CHECKOUT_IGNORED: &[&str] = &[
    "protocol",
    "capabilities",
    "buyer",
    "presentment_currency",
    "exchange_rate",
    "exchange_rate_timestamp",
    "locale",
    "timezone",
    "fulfillment_details",
    "fulfillment_options",
    "selected_fulfillment_options",
    "fulfillment_groups",
    "messages",
    "links",
    "authentication_metadata",
    "created_at",
    "updated_at",
    "continue_url",
    "metadata",
    "quote_id",
    "quote_expires_at",
    "marketing_consent_options",
    "order",
];

const LINE_MEMBERS: &[&str] = &["id", "item", "quantity", "name", "unit_amount", "totals", "refundable"];

/// ACP line-item members that are accepted and not evaluated.
const LINE_IGNORED: &[&str] = &[
    "description",
    "images",
    "disclosures",
    "custom_attributes",
    "marketplace_seller_details",
    "product_id",
    "sku",
    "variant_id",
    "category",
    "tags",
    "weight",
    "dimensions",
    "availability_status",
    "available_quantity",
    "max_quantity_per_order",
    "fulfillable_on",
    "variant_options",
    "discount_details",
    "tax_exempt",
    "tax_exemption_reason",
    "parent_id",
];

/// Reads a checkout at `path` (normally `/checkout`). Returns `None` only when it is not an object at all.
pub(crate) fn read_checkout(r: &mut Reader, v: &Value, path: &str, beside: Beside<'_>) -> Option<Checkout> {
    let protocol = detect_protocol(r, v, beside.protocol);
    let (members, ignored): (Vec<&str>, &[&str]) = match protocol {
        Protocol::Acp => (CHECKOUT_MEMBERS.to_vec(), CHECKOUT_IGNORED),
        Protocol::Ucp => ([ucp::MEMBERS, &["merchant", "recurring"]].concat(), ucp::IGNORED),
    };
    let m = r.object(v, path, &members, ignored)?;
    let p = |k: &str| member(path, k);
    let mut out = Checkout {
        id: r.required(m, path, "id").and_then(|x| r.id(x, &p("id"))),
        status: r.required(m, path, "status").and_then(|x| r.id(x, &p("status"))),
        currency: r.required(m, path, "currency").and_then(|x| r.currency(x, &p("currency"))),
        protocol,
        convention: if protocol == Protocol::Ucp { Convention::Ucp } else { Convention::Acp },
        ..Checkout::default()
    };
    let merchant = host_member(r, m, path, "merchant", beside.merchant);
    out.merchant_path = merchant.as_ref().map_or_else(|| p("merchant"), |(_, at)| at.clone());
    match merchant {
        Some((x, at)) => out.merchant = read_merchant(r, x, &at),
        None => r.push(
            ReasonCode::Malformed,
            p("merchant"),
            "present, in the checkout or beside it in the request",
            "missing",
            "\"merchant\" is required: who is paid (beside the checkout when the protocol document has no room for it)",
        ),
    }
    if let Some(x) = m.get("totals_convention") {
        let cp = p("totals_convention");
        match x.as_str() {
            Some("acp") => out.convention = Convention::Acp,
            Some("ucp") => out.convention = Convention::Ucp,
            _ => r.push(
                ReasonCode::Malformed,
                cp,
                "\"acp\" or \"ucp\"",
                show(x),
                "unknown totals convention: declare \"acp\" (the default) or \"ucp\"",
            ),
        }
    }
    if let Some(list) = r.required(m, path, "line_items").and_then(|x| r.array(x, &p("line_items"), 1)) {
        out.lines_complete = true;
        for (i, x) in list.iter().enumerate() {
            let lp = element(&p("line_items"), i);
            let line = match protocol {
                Protocol::Acp => read_line(r, x, &lp),
                Protocol::Ucp => ucp::read_line(r, x, &lp),
            };
            if protocol == Protocol::Acp && out.disclosed_recurrence.is_none() {
                out.disclosed_recurrence = disclosed_recurrence(x, &lp);
            }
            match line {
                Some(line) => out.lines.push(line),
                None => out.lines_complete = false,
            }
        }
        refuse_duplicate_line_ids(r, &out.lines);
    }
    if let Some(x) = m.get("ap2") {
        let ap = p("ap2");
        // The complete request's SD-JWT checkout_mandate is verified by the host, which hands Curbi its disclosed
        // content as the request's checkout_mandate.
        if let Some(am) = r.object(x, &ap, &["merchant_authorization"], &["checkout_mandate"]) {
            out.merchant_authorization =
                am.get("merchant_authorization").and_then(|x| r.id(x, &member(&ap, "merchant_authorization")));
        }
    }
    if let Some(x) = m.get("discounts") {
        out.discounts_shown = read_discounts(r, x, &p("discounts"));
    }
    out.totals = r.required(m, path, "totals").and_then(|x| read_totals(r, x, &p("totals"), protocol));
    out.expires_at = m.get("expires_at").and_then(|x| r.timestamp(x, &p("expires_at")));
    match protocol {
        Protocol::Acp => {
            let payment = host_member(r, m, path, "payment", beside.payment);
            out.payment_path = payment.as_ref().map_or_else(|| p("payment"), |(_, at)| at.clone());
            if let Some((x, at)) = payment {
                out.payment = read_payment(r, x, &at);
            }
        }
        Protocol::Ucp => {
            out.payment_path = p("payment");
            if let Some(x) = beside.payment {
                let message = "a UCP checkout states its own payment; the request cannot add one beside it";
                r.push(ReasonCode::Malformed, "/payment", "absent", show(x), message);
            }
            if let Some(x) = m.get("payment") {
                (out.payment, out.term) = ucp::read_payment(r, x, &p("payment"));
            }
        }
    }
    let recurring = host_member(r, m, path, "recurring", beside.recurring);
    out.recurring_path = recurring.as_ref().map_or_else(|| p("recurring"), |(_, at)| at.clone());
    if let Some((x, at)) = recurring {
        out.has_recurring = true;
        out.recurring = read_recurring(r, x, &at);
        out.disclosed_recurrence = None;
    }
    Some(out)
}

/// The protocol named by the request, else detected: a `ucp` member makes a UCP checkout.
fn detect_protocol(r: &mut Reader, v: &Value, named: Option<&Value>) -> Protocol {
    let detected = if v.get("ucp").is_some() { Protocol::Ucp } else { Protocol::Acp };
    let Some(named) = named else { return detected };
    let protocol = match named.as_str() {
        Some("acp") => Protocol::Acp,
        Some("ucp") => Protocol::Ucp,
        _ => {
            let message = "unknown protocol: name \"acp\" or \"ucp\", or leave it to the checkout's own members";
            r.push(ReasonCode::Malformed, "/protocol", "\"acp\" or \"ucp\"", show(named), message);
            return detected;
        }
    };
    if protocol == Protocol::Acp && detected == Protocol::Ucp {
        // Read by what the document is, so that the contradiction is the one reason.
        let message = "the request names ACP and the checkout has UCP's ucp member";
        r.push(ReasonCode::Malformed, "/protocol", "\"ucp\"", show(named), message);
        return detected;
    }
    protocol
}

/// A member only the host knows (`merchant`, `payment`, `recurring`): in the checkout (Curbi's shape) or beside it
/// in the request (a protocol document passed as it is, whose signature covers every member), never both.
fn host_member<'v>(
    r: &mut Reader,
    m: &'v Map<String, Value>,
    path: &str,
    key: &str,
    beside: Option<&'v Value>,
) -> Option<(&'v Value, String)> {
    match (m.get(key), beside) {
        (Some(x), None) => Some((x, member(path, key))),
        (None, Some(x)) => Some((x, member("", key))),
        (Some(x), Some(_)) => {
            let message = format!("{key} is given in the checkout and beside it: give it once");
            r.push(ReasonCode::Malformed, member("", key), "absent (it is in the checkout)", show(x), message);
            Some((x, member(path, key)))
        }
        (None, None) => None,
    }
}

/// ACP has no structured subscription terms: a trial or a renewal is disclosed to the buyer as text in a line's
/// `disclosures`. The first disclosure whose text states one, by its pointer.
fn disclosed_recurrence(line: &Value, path: &str) -> Option<String> {
    let list = line.get("disclosures")?.as_array()?;
    list.iter().enumerate().find_map(|(i, d)| {
        let text = d.get("content")?.as_str()?.to_lowercase();
        RECURRENCE_WORDS
            .iter()
            .any(|w| text.contains(w))
            .then(|| member(&element(&member(path, "disclosures"), i), "content"))
    })
}

/// Two lines with one id make every per-line reference (allocations, the merchant's order, a refund) ambiguous.
fn refuse_duplicate_line_ids(r: &mut Reader, lines: &[Line]) {
    let mut seen = std::collections::HashSet::new();
    for line in lines {
        if let Some(id) = &line.id
            && !seen.insert(id.as_str())
        {
            r.push(
                ReasonCode::Malformed,
                member(&line.path, "id"),
                "a line item id used once",
                quote(id),
                format!("line item id {} is used twice: a line must be named by its id alone", quote(id)),
            );
        }
    }
}

/// ACP `DiscountsResponse` and UCP `discounts_object`: only the applied amounts are evaluated (they must be in the
/// totals); codes, rejections and the descriptive members of each applied discount are for people.
fn read_discounts(r: &mut Reader, v: &Value, path: &str) -> Option<(i64, String)> {
    let m = r.object(v, path, &["applied"], &["codes", "rejected"])?;
    let ap = member(path, "applied");
    let list = r.array(m.get("applied")?, &ap, 0)?;
    let ignored = [
        "id",
        "code",
        "coupon",
        "title",
        "automatic",
        "start",
        "end",
        "method",
        "priority",
        "eligibility",
        "allocations",
    ];
    let mut sum = Some(0i64);
    for (i, x) in list.iter().enumerate() {
        let ep = element(&ap, i);
        let Some(dm) = r.object(x, &ep, &["amount", "provisional"], &ignored) else {
            sum = None;
            continue;
        };
        let amount = r.required(dm, &ep, "amount").and_then(|a| r.amount(a, &member(&ep, "amount"), false));
        let provisional = match dm.get("provisional") {
            Some(b) => r.boolean(b, &member(&ep, "provisional")),
            None => Some(false),
        };
        sum = match (sum, amount, provisional) {
            (Some(s), Some(_), Some(true)) => Some(s),
            (Some(s), Some(a), Some(false)) => s.checked_add(a),
            _ => None,
        };
    }
    sum.map(|s| (s, ap))
}

fn read_line(r: &mut Reader, v: &Value, path: &str) -> Option<Line> {
    let m = r.object(v, path, LINE_MEMBERS, LINE_IGNORED)?;
    let p = |k: &str| member(path, k);
    let id = r.required(m, path, "id").and_then(|x| r.id(x, &p("id")));
    let mut item_id = None;
    let mut item_name = None;
    let mut item_unit = None;
    if let Some(x) = r.required(m, path, "item") {
        let ip = p("item");
        if let Some(im) = r.object(x, &ip, &["id", "name", "unit_amount"], &[]) {
            item_id = r.required(im, &ip, "id").and_then(|x| r.id(x, &member(&ip, "id")));
            item_name = im.get("name").and_then(|x| r.text(x, &member(&ip, "name")));
            item_unit = im.get("unit_amount").and_then(|x| r.amount(x, &member(&ip, "unit_amount"), false));
        }
    }
    let name = m.get("name").and_then(|x| r.text(x, &p("name")));
    let quantity = r.required(m, path, "quantity").and_then(|x| r.quantity(x, &p("quantity")));
    let line_unit = m.get("unit_amount").and_then(|x| r.amount(x, &p("unit_amount"), false));
    let totals = r.required(m, path, "totals").and_then(|x| read_totals(r, x, &p("totals"), Protocol::Acp));
    let refundable = m.get("refundable").map(|x| r.boolean(x, &p("refundable")));
    let (unit_amount, unit_path) = match (line_unit, item_unit) {
        (Some(u), _) => (Some(u), p("unit_amount")),
        (None, Some(u)) => (Some(u), member(&p("item"), "unit_amount")),
        (None, None) => (None, p("unit_amount")),
    };
    let label = name.or(item_name).or_else(|| item_id.clone()).unwrap_or_else(|| "(unnamed item)".to_owned());
    Some(Line {
        path: path.to_owned(),
        id,
        item_id,
        label,
        quantity,
        scale: 0,
        unit_amount,
        unit_path,
        unit_amounts_both: line_unit.zip(item_unit),
        totals,
        refundable,
    })
}

/// Reads a totals list in its protocol's shape: an ACP `Total` has `type`, `amount` and the descriptive
/// `display_text`, `presentment_amount`, `description`, `breakdown`; a UCP total has `type`, `amount`, `lines` (an
/// itemised breakdown that must add up to its entry) and `display_text`. The other protocol's members are unknown.
pub(crate) fn read_totals(r: &mut Reader, v: &Value, path: &str, protocol: Protocol) -> Option<Totals> {
    let (known, ignored): (&[&str], &[&str]) = match protocol {
        Protocol::Acp => (&["type", "amount"], &["display_text", "presentment_amount", "description", "breakdown"]),
        Protocol::Ucp => (&["type", "amount", "lines"], &["display_text"]),
    };
    let list = r.array(v, path, 0)?;
    let mut entries = Vec::with_capacity(list.len());
    for (i, x) in list.iter().enumerate() {
        let ep = element(path, i);
        let Some(m) = r.object(x, &ep, known, ignored) else {
            entries.push(TotalEntry { index: i, kind: None, amount: None });
            continue;
        };
        let kind = r.required(m, &ep, "type").and_then(|t| r.id(t, &member(&ep, "type"))).map(|s| TotalKind::parse(&s));
        let amount = r.required(m, &ep, "amount").and_then(|a| r.amount(a, &member(&ep, "amount"), true));
        if protocol == Protocol::Ucp
            && let Some(lines) = m.get("lines")
        {
            read_sub_lines(r, lines, &member(&ep, "lines"), amount);
        }
        entries.push(TotalEntry { index: i, kind, amount });
    }
    Some(Totals { path: path.to_owned(), entries })
}

/// UCP total `lines`: `[{display_text?, amount}]`, whose amounts must add up to the entry's (`parent`, when it was
/// read). A line that is not such an object is `malformed`, and the sum is then not compared: what the unreadable
/// line holds is unknown.
fn read_sub_lines(r: &mut Reader, v: &Value, path: &str, parent: Option<i64>) {
    let Some(list) = r.array(v, path, 0) else { return };
    let mut sum = Some(0i64);
    for (i, x) in list.iter().enumerate() {
        let lp = element(path, i);
        let amount = r
            .object(x, &lp, &["amount"], &["display_text"])
            .and_then(|m| r.required(m, &lp, "amount").and_then(|a| r.amount(a, &member(&lp, "amount"), true)));
        sum = sum.zip(amount).and_then(|(s, a)| s.checked_add(a));
    }
    if let (Some(s), Some(parent)) = (sum, parent)
        && s != parent
    {
        let message = format!("the itemised lines add up to {s} minor units, the entry says {parent}");
        r.push(ReasonCode::TotalsMismatch, path, parent.to_string(), s.to_string(), message);
    }
}

fn read_payment(r: &mut Reader, v: &Value, path: &str) -> Option<Payment> {
    let m = r.object(v, path, &["instrument_id", "allowance"], &[])?;
    let mut out = Payment {
        instrument_id: m.get("instrument_id").and_then(|x| r.id(x, &member(path, "instrument_id"))),
        allowance: None,
    };
    if let Some(x) = m.get("allowance") {
        let ap = member(path, "allowance");
        let known = ["reason", "max_amount", "currency", "checkout_session_id", "merchant_id", "expires_at"];
        let Some(am) = r.object(x, &ap, &known, &[]) else {
            return Some(out);
        };
        if let Some(reason) = am.get("reason")
            && reason.as_str() != Some("one_time")
        {
            r.push(
                ReasonCode::Malformed,
                member(&ap, "reason"),
                "\"one_time\"",
                show(reason),
                "the only allowance reason ACP defines is \"one_time\"",
            );
        }
        let q = |k: &str| member(&ap, k);
        out.allowance = Some(Allowance {
            path: ap.clone(),
            max_amount: r.required(am, &ap, "max_amount").and_then(|x| r.amount(x, &q("max_amount"), false)),
            currency: r.required(am, &ap, "currency").and_then(|x| r.currency(x, &q("currency"))),
            checkout_session_id: r
                .required(am, &ap, "checkout_session_id")
                .and_then(|x| r.id(x, &q("checkout_session_id"))),
            merchant_id: r.required(am, &ap, "merchant_id").and_then(|x| r.id(x, &q("merchant_id"))),
            expires_at: r.required(am, &ap, "expires_at").and_then(|x| r.timestamp(x, &q("expires_at"))),
        });
    }
    Some(out)
}

fn read_recurring(r: &mut Reader, v: &Value, path: &str) -> Option<Recurring> {
    let m = r.object(v, path, &["amount", "frequency", "occurrences", "trial", "first_charge_at"], &[])?;
    let amount = r.required(m, path, "amount").and_then(|x| r.amount(x, &member(path, "amount"), false));
    let frequency = r.required(m, path, "frequency").and_then(|x| read_frequency(r, x, &member(path, "frequency")));
    let occurrences = m.get("occurrences").map(|x| r.count(x, &member(path, "occurrences"), 1));
    let trial = m.get("trial").map(|x| r.boolean(x, &member(path, "trial")));
    let first = m.get("first_charge_at").map(|x| r.timestamp(x, &member(path, "first_charge_at")));
    match (amount, frequency, occurrences, trial, first) {
        (_, _, Some(None), _, _) | (_, _, _, Some(None), _) | (_, _, _, _, Some(None)) => None,
        (Some(amount), Some(frequency), occurrences, trial, first) => Some(Recurring {
            amount,
            frequency,
            occurrences: occurrences.flatten(),
            trial: trial.flatten().unwrap_or(false),
            first_charge_at: first.flatten(),
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::RECURRENCE_WORDS;

    /// The words docs/PURCHASE.md lists for disclosures are the words the check matches, in the same order.
    #[test]
    fn recurrence_words_are_the_documented_list() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/PURCHASE.md");
        let doc = std::fs::read_to_string(path).unwrap_or_default();
        let start = doc.find("A disclosure states trial or recurring terms").unwrap_or(doc.len());
        let documented: Vec<&str> = doc[start..]
            .lines()
            .skip_while(|l| !l.starts_with("- "))
            .take_while(|l| !l.is_empty())
            .flat_map(|l| l.split('*').skip(1).step_by(2))
            .collect();
        assert_eq!(documented, RECURRENCE_WORDS, "docs/PURCHASE.md and RECURRENCE_WORDS differ");
    }
}
