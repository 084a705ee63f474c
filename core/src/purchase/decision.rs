//! The decision document: ALLOW, DENY or STEP_UP with every reason (stable code, effect, JSON pointer, expected,
//! actual, message), sorted deterministically, plus what the host shows the user on STEP_UP. It grants nothing.

use std::cmp::Ordering;

use serde::Serialize;

/// The answer. Ordered by severity: DENY beats STEP_UP beats ALLOW.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verdict {
    Allow,
    StepUp,
    Deny,
}

impl Verdict {
    /// The wire name: `ALLOW`, `STEP_UP`, `DENY`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Allow => "ALLOW",
            Verdict::StepUp => "STEP_UP",
            Verdict::Deny => "DENY",
        }
    }
}

/// What one reason does to the decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Effect {
    StepUp,
    Deny,
}

impl Effect {
    pub fn as_str(self) -> &'static str {
        match self {
            Effect::StepUp => "STEP_UP",
            Effect::Deny => "DENY",
        }
    }

    fn verdict(self) -> Verdict {
        match self {
            Effect::StepUp => Verdict::StepUp,
            Effect::Deny => Verdict::Deny,
        }
    }
}

macro_rules! reason_codes {
    ($( $(#[$doc:meta])* $variant:ident => $name:literal, $effect:ident; )*) => {
        /// Stable reason codes. Never renamed or reused; new ones are appended (and to `vectors/purchase/reasons.json`).
        /// Each code has one fixed effect.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ReasonCode {
            $( $(#[$doc])* $variant, )*
        }

        impl ReasonCode {
            /// Every code, in the order of `vectors/purchase/reasons.json`.
            pub const ALL: &'static [ReasonCode] = &[ $( ReasonCode::$variant, )* ];

            /// The wire name.
            pub fn as_str(self) -> &'static str {
                match self { $( ReasonCode::$variant => $name, )* }
            }

            /// DENY or STEP_UP.
            pub fn effect(self) -> Effect {
                match self { $( ReasonCode::$variant => Effect::$effect, )* }
            }
        }
    };
}

reason_codes! {
    /// A document or member has the wrong type, is missing, is not allowed, or contradicts itself.
    Malformed => "malformed", Deny;
    /// An amount that is not an integer within ±(2^53−1) (`100.0`, `1e3`, `"100"`), or negative where it cannot be.
    AmountInvalid => "amount_invalid", Deny;
    /// A quantity that is not an integer from 1 to 2^53−1.
    QuantityInvalid => "quantity_invalid", Deny;
    /// A time that is not an RFC 3339 date-time.
    TimestampInvalid => "timestamp_invalid", Deny;
    /// Arithmetic on amounts left ±(2^53−1) or overflowed i64 (unit amount × quantity, sums).
    AmountOverflow => "amount_overflow", Deny;
    /// A currency that is not an active ISO 4217 code with a minor unit, or is written in mixed case.
    CurrencyUnknown => "currency_unknown", Deny;
    /// Two currencies that must agree do not.
    CurrencyMismatch => "currency_mismatch", Deny;
    /// A total entry whose sign is wrong for its type under the declared convention.
    TotalWrongSign => "total_wrong_sign", Deny;
    /// A totals list without exactly one `subtotal` and exactly one `total`.
    TotalsStructure => "totals_structure", Deny;
    /// Totals that do not add up: base vs unit × quantity, subtotal, total, line subtotals vs checkout subtotal.
    TotalsMismatch => "totals_mismatch", Deny;
    /// The checkout's merchant id is not one of the mandate's merchants.
    MerchantNotAllowed => "merchant_not_allowed", Deny;
    /// A line item whose item id is in none of the mandate's acceptable items.
    ItemNotAllowed => "item_not_allowed", Deny;
    /// More units of a mandate line-item requirement than it allows.
    ItemQuantityExceeded => "item_quantity_exceeded", Deny;
    /// An amount above the per-transaction maximum.
    AmountOverCap => "amount_over_cap", Deny;
    /// A checkout total below the per-transaction minimum.
    AmountBelowMin => "amount_below_min", Deny;
    /// Spent + reserved + this total + committed future charges exceed the budget.
    BudgetExceeded => "budget_exceeded", Deny;
    /// A future (recurring or post-trial) charge above the per-transaction maximum.
    FutureChargeOverCap => "future_charge_over_cap", Deny;
    /// The mandate has been used as many times as it allows.
    RecurrenceCountExceeded => "recurrence_count_exceeded", Deny;
    /// Charges more frequent than the mandate's recurrence allows.
    RecurrenceFrequencyExceeded => "recurrence_frequency_exceeded", Deny;
    /// The payment instrument is missing or not one of the mandate's instruments.
    InstrumentNotAllowed => "instrument_not_allowed", Deny;
    /// The checkout total exceeds the delegated-payment allowance.
    AllowanceExceeded => "allowance_exceeded", Deny;
    /// The delegated-payment allowance has expired.
    AllowanceExpired => "allowance_expired", Deny;
    /// The allowance is bound to another checkout session.
    AllowanceCheckoutMismatch => "allowance_checkout_mismatch", Deny;
    /// The allowance is bound to another merchant.
    AllowanceMerchantMismatch => "allowance_merchant_mismatch", Deny;
    /// The mandate requires refundability and a line item is final sale.
    ItemFinalSale => "item_final_sale", Deny;
    /// The mandate has expired.
    MandateExpired => "mandate_expired", Deny;
    /// The mandate is not valid yet.
    MandateNotYetValid => "mandate_not_yet_valid", Deny;
    /// The mandate has been revoked.
    MandateRevoked => "mandate_revoked", Deny;
    /// The checkout session has expired.
    CheckoutExpired => "checkout_expired", Deny;
    /// The checkout session is already completed.
    CheckoutCompleted => "checkout_completed", Deny;
    /// The checkout session was canceled.
    CheckoutCanceled => "checkout_canceled", Deny;
    /// The checkout session is not ready for payment (incomplete, in progress, already completing).
    CheckoutNotReady => "checkout_not_ready", Deny;
    /// A checkout status this checker does not know.
    CheckoutStatusUnknown => "checkout_status_unknown", Deny;
    /// The action's agent is not the grant's agent.
    AgentMismatch => "agent_mismatch", Deny;
    /// The action's operation is not one of the grant's operations.
    OperationNotAllowed => "operation_not_allowed", Deny;
    /// The action's resource matches none of the grant's resources.
    ResourceNotAllowed => "resource_not_allowed", Deny;
    /// The grant limits amounts and the action states none.
    AmountMissing => "amount_missing", Deny;
    /// The grant has been used as many times as it allows.
    CountExceeded => "count_exceeded", Deny;
    /// The grant has expired.
    GrantExpired => "grant_expired", Deny;
    /// The grant is not valid yet.
    GrantNotYetValid => "grant_not_yet_valid", Deny;
    /// The grant has been revoked.
    GrantRevoked => "grant_revoked", Deny;
    /// An amount at or above the confirmation threshold.
    ConfirmationThreshold => "confirmation_threshold", StepUp;
    /// The mandate asks for the user to confirm the cart (AP2 `user_cart_confirmation_required`, default true).
    CartConfirmationRequired => "cart_confirmation_required", StepUp;
    /// The mandate states its intent only in natural language: no amount, budget, merchant or item constraint.
    IntentNotMachineCheckable => "intent_not_machine_checkable", StepUp;
    /// A line's price is higher than the price the user approved.
    PriceIncreased => "price_increased", StepUp;
    /// A recurring charge or a trial that converts to paid, and the mandate has no recurrence permission.
    RecurrenceNotPermitted => "recurrence_not_permitted", StepUp;
    /// The mandate requires refundability and a line item does not say whether it is refundable.
    RefundabilityUnknown => "refundability_unknown", StepUp;
    /// A total entry of a type this checker does not know (counted as a charge).
    TotalTypeUnknown => "total_type_unknown", StepUp;
    /// A mandate or grant constraint this checker does not implement.
    ConstraintUnsupported => "constraint_unsupported", StepUp;
    /// The checkout needs escalation to the buyer (`requires_escalation`, `pending_approval`).
    CheckoutRequiresEscalation => "checkout_requires_escalation", StepUp;
    /// The checkout needs buyer authentication (`authentication_required`, e.g. 3-D Secure).
    CheckoutRequiresAuthentication => "checkout_requires_authentication", StepUp;
    /// A recurring charge the checkout signs the user up for falls at or after the mandate's expiry.
    RecurrenceBeyondExpiry => "recurrence_beyond_expiry", Deny;
    /// The checkout shows discounts as applied that its totals do not subtract.
    DiscountNotApplied => "discount_not_applied", Deny;
    /// The checkout is not the one the user approved: the mandate's cart digest or an AP2 checkout mandate's
    /// `checkout_hash` / `checkout_jwt` binds another (AP2 / UCP error code).
    MandateScopeMismatch => "mandate_scope_mismatch", Deny;
    /// A merchant signature (`merchant_authorization`, `checkout_jwt`) does not verify with the pinned merchant keys
    /// (AP2 / UCP error code).
    MerchantAuthorizationInvalid => "merchant_authorization_invalid", Deny;
    /// Merchant keys are pinned and the checkout carries no `merchant_authorization` (AP2 / UCP error code).
    MerchantAuthorizationMissing => "merchant_authorization_missing", Deny;
    /// An ACP line discloses trial or recurring terms as text and the checkout states no `recurring` schedule.
    RecurrenceDisclosed => "recurrence_disclosed", StepUp;
    /// Fewer units of an AP2 `checkout.line_items` requirement than its quantity, which AP2 requires exactly.
    ItemMissing => "item_missing", Deny;
}

/// One reason: why the decision is not ALLOW. `path` is an RFC 6901 pointer into the request
/// (`/checkout/totals/3/amount`); `expected` and `actual` are short texts for people and logs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reason {
    pub code: ReasonCode,
    pub path: String,
    pub expected: String,
    pub actual: String,
    pub message: String,
}

/// Something that collects reasons (the document readers and the rule passes): `push` builds one in place.
pub(crate) trait Reasons {
    fn reasons(&mut self) -> &mut Vec<Reason>;

    fn push(
        &mut self,
        code: ReasonCode,
        path: impl Into<String>,
        expected: impl Into<String>,
        actual: impl Into<String>,
        message: impl Into<String>,
    ) {
        self.reasons().push(Reason::new(code, path, expected, actual, message));
    }
}

impl Reason {
    pub fn new(
        code: ReasonCode,
        path: impl Into<String>,
        expected: impl Into<String>,
        actual: impl Into<String>,
        message: impl Into<String>,
    ) -> Reason {
        Reason { code, path: path.into(), expected: expected.into(), actual: actual.into(), message: message.into() }
    }

    pub fn effect(&self) -> Effect {
        self.code.effect()
    }
}

/// What the host shows the user before asking again: the kind of confirmation and a one-line summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StepUp {
    pub kind: &'static str,
    pub summary: String,
}

/// A purchase or action decision. Building one sorts and de-duplicates its reasons; the verdict always follows them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    object: &'static str,
    verdict: Verdict,
    reasons: Vec<Reason>,
    step_up: Option<StepUp>,
}

/// The document every surface prints.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WireDecision<'a> {
    object: &'static str,
    decision: &'static str,
    reasons: Vec<WireReason<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    step_up: Option<&'a StepUp>,
    authorization_granted: bool,
}

#[derive(Serialize)]
struct WireReason<'a> {
    code: &'static str,
    effect: &'static str,
    path: &'a str,
    expected: &'a str,
    actual: &'a str,
    message: &'a str,
}

/// Orders JSON pointers segment by segment, numeric segments by value (`/2` before `/10`).
fn cmp_pointer(a: &str, b: &str) -> Ordering {
    let mut xs = a.split('/');
    let mut ys = b.split('/');
    loop {
        match (xs.next(), ys.next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) => {
                let ord = match (x.parse::<u64>(), y.parse::<u64>()) {
                    (Ok(i), Ok(j)) => i.cmp(&j),
                    _ => x.cmp(y),
                };
                if ord != Ordering::Equal {
                    return ord;
                }
            }
        }
    }
}

impl Decision {
    /// Builds the decision from every reason found: DENY reasons first, then STEP_UP, each by path then code; the
    /// first reason for a (code, path) pair is kept. `summary` is asked for only when the verdict is STEP_UP.
    pub fn from_reasons(
        object: &'static str,
        step_up_kind: &'static str,
        mut reasons: Vec<Reason>,
        summary: impl FnOnce() -> String,
    ) -> Decision {
        // A stable sort keeps the first-found reason of a pair in front for `dedup_by`.
        reasons.sort_by(|a, b| {
            b.effect()
                .cmp(&a.effect())
                .then_with(|| cmp_pointer(&a.path, &b.path))
                .then_with(|| a.code.as_str().cmp(b.code.as_str()))
        });
        reasons.dedup_by(|later, first| later.code == first.code && later.path == first.path);
        let verdict = reasons.iter().map(|r| r.effect().verdict()).max().unwrap_or(Verdict::Allow);
        let step_up = (verdict == Verdict::StepUp).then(|| StepUp { kind: step_up_kind, summary: summary() });
        Decision { object, verdict, reasons, step_up }
    }

    /// `purchase_check` or `action_check`.
    pub fn object(&self) -> &'static str {
        self.object
    }

    pub fn verdict(&self) -> Verdict {
        self.verdict
    }

    pub fn reasons(&self) -> &[Reason] {
        &self.reasons
    }

    pub fn step_up(&self) -> Option<&StepUp> {
        self.step_up.as_ref()
    }

    /// A decision grants no authority by itself: this is always false, and on the wire as `authorizationGranted`.
    pub fn authorization_granted(&self) -> bool {
        false
    }

    fn wire(&self) -> WireDecision<'_> {
        WireDecision {
            object: self.object,
            decision: self.verdict.as_str(),
            reasons: self
                .reasons
                .iter()
                .map(|r| WireReason {
                    code: r.code.as_str(),
                    effect: r.effect().as_str(),
                    path: &r.path,
                    expected: &r.expected,
                    actual: &r.actual,
                    message: &r.message,
                })
                .collect(),
            step_up: self.step_up.as_ref(),
            authorization_granted: false,
        }
    }

    /// The decision document as a JSON value.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self.wire()).unwrap_or(serde_json::Value::Null)
    }

    /// The decision document as compact JSON text (same input, same bytes).
    pub fn to_json_string(&self) -> String {
        serde_json::to_string(&self.wire()).unwrap_or_default()
    }

    /// The decision document as indented JSON text.
    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(&self.wire()).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(code: ReasonCode, path: &str) -> Reason {
        Reason::new(code, path, "e", "a", "m")
    }

    #[test]
    fn deny_beats_step_up_beats_allow() {
        let d = Decision::from_reasons("purchase_check", "confirm_purchase", vec![], || "s".into());
        assert_eq!(d.verdict(), Verdict::Allow);
        assert!(d.step_up().is_none());
        let reasons = vec![r(ReasonCode::ConfirmationThreshold, "/a")];
        let d = Decision::from_reasons("purchase_check", "confirm_purchase", reasons, || "sum".into());
        assert_eq!(d.verdict(), Verdict::StepUp);
        assert_eq!(d.step_up().map(|s| s.summary.as_str()), Some("sum"));
        let reasons = vec![r(ReasonCode::ConfirmationThreshold, "/a"), r(ReasonCode::MandateExpired, "/z")];
        let d = Decision::from_reasons("purchase_check", "confirm_purchase", reasons, || "never".into());
        assert_eq!(d.verdict(), Verdict::Deny);
        assert!(d.step_up().is_none());
    }

    #[test]
    fn reasons_are_sorted_and_deduplicated() {
        let reasons = vec![
            r(ReasonCode::PriceIncreased, "/checkout/line_items/10/unit_amount"),
            r(ReasonCode::TotalsMismatch, "/checkout/line_items/10/totals/1/amount"),
            r(ReasonCode::TotalsMismatch, "/checkout/line_items/2/totals/1/amount"),
            Reason::new(ReasonCode::TotalsMismatch, "/checkout/line_items/2/totals/1/amount", "x", "y", "second"),
            r(ReasonCode::AmountOverCap, "/checkout/line_items/2/totals/1/amount"),
        ];
        let d = Decision::from_reasons("purchase_check", "confirm_purchase", reasons, String::new);
        let got: Vec<(&str, &str, &str)> =
            d.reasons().iter().map(|r| (r.code.as_str(), r.path.as_str(), r.message.as_str())).collect();
        assert_eq!(
            got,
            [
                ("amount_over_cap", "/checkout/line_items/2/totals/1/amount", "m"),
                ("totals_mismatch", "/checkout/line_items/2/totals/1/amount", "m"),
                ("totals_mismatch", "/checkout/line_items/10/totals/1/amount", "m"),
                ("price_increased", "/checkout/line_items/10/unit_amount", "m"),
            ]
        );
    }

    #[test]
    fn wire_shape() {
        let d = Decision::from_reasons(
            "action_check",
            "confirm_action",
            vec![Reason::new(ReasonCode::ConfirmationThreshold, "/action/amount", "below 100", "150", "msg")],
            || "agent: op".into(),
        );
        assert_eq!(
            d.to_json_string(),
            r#"{"object":"action_check","decision":"STEP_UP","reasons":[{"code":"confirmation_threshold","effect":"STEP_UP","path":"/action/amount","expected":"below 100","actual":"150","message":"msg"}],"stepUp":{"kind":"confirm_action","summary":"agent: op"},"authorizationGranted":false}"#
        );
        let d = Decision::from_reasons("purchase_check", "confirm_purchase", vec![], String::new);
        assert_eq!(
            d.to_json_string(),
            r#"{"object":"purchase_check","decision":"ALLOW","reasons":[],"authorizationGranted":false}"#
        );
    }

    #[test]
    fn codes_are_unique_snake_case() {
        for (i, c) in ReasonCode::ALL.iter().enumerate() {
            let s = c.as_str();
            assert!(s.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'), "{s}");
            assert!(ReasonCode::ALL[..i].iter().all(|o| o.as_str() != s), "{s} twice");
        }
    }
}
