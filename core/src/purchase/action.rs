//! The action check: one action (agent, operation, resource, amount, time) against a grant (agent, operations,
//! resources, per-action amount limit and currency, use count, validity window, revocation).

use serde_json::Value;

use super::decision::{Decision, Reason, ReasonCode, Reasons};
use super::read::{Reader, outside_window, quote, unsupported_constraints};
use crate::money::Currency;
use crate::pointer::member;
use crate::time::Timestamp;

/// `object` of an action decision.
pub const ACTION_OBJECT: &str = "action_check";
/// `stepUp.kind` of an action decision.
pub const ACTION_STEP_UP: &str = "confirm_action";

/// A grant as read; unreadable members are `None` (their reasons are recorded).
#[derive(Debug, Clone, Default)]
pub(crate) struct Grant {
    pub(crate) agent: Option<String>,
    pub(crate) operations: Option<Vec<String>>,
    pub(crate) resources: Option<Vec<String>>,
    pub(crate) max_amount: Option<i64>,
    pub(crate) confirmation_threshold: Option<i64>,
    pub(crate) currency: Option<Currency>,
    /// The grant states a money limit (max_amount or confirmation_threshold), readable or not.
    pub(crate) limits_money: bool,
    pub(crate) max_count: Option<i64>,
    pub(crate) used: Option<i64>,
    pub(crate) not_before: Option<Timestamp>,
    pub(crate) expires_at: Option<Timestamp>,
    pub(crate) revoked: bool,
    pub(crate) other_constraints: Vec<(String, String)>,
}

/// An action as read.
#[derive(Debug, Clone, Default)]
pub(crate) struct Action {
    pub(crate) agent: Option<String>,
    pub(crate) operation: Option<String>,
    pub(crate) resource: Option<String>,
    pub(crate) amount: Option<i64>,
    pub(crate) has_amount: bool,
    pub(crate) currency: Option<Currency>,
    pub(crate) at: Option<Timestamp>,
}

const GRANT_MEMBERS: &[&str] = &[
    "id",
    "agent",
    "operations",
    "resources",
    "limits",
    "used",
    "not_before",
    "expires_at",
    "revoked",
    "other_constraints",
];

fn read_grant(r: &mut Reader, v: &Value, path: &str) -> Option<Grant> {
    let m = r.object(v, path, GRANT_MEMBERS, &[])?;
    let p = |k: &str| member(path, k);
    let mut g = Grant::default();
    if let Some(x) = m.get("id") {
        r.id(x, &p("id"));
    }
    g.agent = r.required(m, path, "agent").and_then(|x| r.id(x, &p("agent")));
    g.operations = r.required(m, path, "operations").and_then(|x| r.ids(x, &p("operations"), 1));
    g.resources = r.required(m, path, "resources").and_then(|x| r.ids(x, &p("resources"), 1));
    if let Some(x) = m.get("limits") {
        let lp = p("limits");
        if let Some(lm) = r.object(x, &lp, &["max_amount", "confirmation_threshold", "currency", "max_count"], &[]) {
            let q = |k: &str| member(&lp, k);
            g.max_amount = lm.get("max_amount").and_then(|x| r.amount(x, &q("max_amount"), false));
            g.confirmation_threshold =
                lm.get("confirmation_threshold").and_then(|x| r.amount(x, &q("confirmation_threshold"), false));
            g.limits_money = lm.contains_key("max_amount") || lm.contains_key("confirmation_threshold");
            g.currency = match lm.get("currency") {
                Some(x) => r.currency(x, &q("currency")),
                None if g.limits_money => {
                    r.required(lm, &lp, "currency");
                    None
                }
                None => None,
            };
            g.max_count = lm.get("max_count").and_then(|x| r.count(x, &q("max_count"), 1));
        }
    }
    g.used = m.get("used").map_or(Some(0), |x| r.count(x, &p("used"), 0));
    (g.not_before, g.expires_at, g.revoked, g.other_constraints) = r.validity(m, path);
    Some(g)
}

fn read_action(r: &mut Reader, v: &Value, path: &str) -> Option<Action> {
    let m = r.object(v, path, &["agent", "operation", "resource", "amount", "currency", "at"], &[])?;
    let p = |k: &str| member(path, k);
    let mut a = Action {
        agent: r.required(m, path, "agent").and_then(|x| r.id(x, &p("agent"))),
        operation: r.required(m, path, "operation").and_then(|x| r.id(x, &p("operation"))),
        resource: r.required(m, path, "resource").and_then(|x| r.id(x, &p("resource"))),
        ..Action::default()
    };
    if let Some(x) = m.get("amount") {
        a.has_amount = true;
        a.amount = r.amount(x, &p("amount"), false);
        a.currency = r.required(m, path, "currency").and_then(|x| r.currency(x, &p("currency")));
    } else if let Some(x) = m.get("currency") {
        a.currency = r.currency(x, &p("currency"));
    }
    a.at = m.get("at").and_then(|x| r.timestamp(x, &p("at")));
    Some(a)
}

/// Does a grant resource pattern match `resource`? Exact, or a pattern ending in `*` matches by prefix
/// (`order:*` matches `order:123`; `*` matches everything). No other wildcard exists.
pub fn resource_matches(pattern: &str, resource: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => resource.starts_with(prefix),
        None => pattern == resource,
    }
}

struct Ctx<'a> {
    g: Option<&'a Grant>,
    a: Option<&'a Action>,
    now: Option<Timestamp>,
    out: Vec<Reason>,
}

impl Reasons for Ctx<'_> {
    fn reasons(&mut self) -> &mut Vec<Reason> {
        &mut self.out
    }
}

impl Ctx<'_> {
    fn validity(&mut self) {
        let Some(g) = self.g else { return };
        if g.revoked {
            self.push(ReasonCode::GrantRevoked, "/grant/revoked", "false", "true", "the grant has been revoked");
        }
        // The grant must hold now and, when the action states its time, at that time too.
        let at = self.a.and_then(|a| a.at);
        for (when, path) in [(self.now, "/now"), (at, "/action/at")] {
            let Some(when) = when else { continue };
            let ((expires_path, not_before_path), said) = if path == "/now" {
                (("/grant/expires_at", "/grant/not_before"), "it is now")
            } else {
                ((path, path), "the action is at")
            };
            let expires = g.expires_at.map(|t| (t, ReasonCode::GrantExpired, expires_path));
            let not_before = g.not_before.map(|t| (t, ReasonCode::GrantNotYetValid, not_before_path));
            outside_window(self, "the grant", when, said, expires, not_before);
        }
        unsupported_constraints(self, &g.other_constraints);
    }

    fn scope(&mut self) {
        let (Some(g), Some(a)) = (self.g, self.a) else { return };
        if let (Some(ga), Some(aa)) = (&g.agent, &a.agent)
            && ga != aa
        {
            let message = format!("the grant is for agent {}, not {}", quote(ga), quote(aa));
            self.push(ReasonCode::AgentMismatch, "/action/agent", quote(ga), quote(aa), message);
        }
        if let (Some(ops), Some(op)) = (&g.operations, &a.operation)
            && !ops.contains(op)
        {
            let list: Vec<String> = ops.iter().map(|o| quote(o)).collect();
            let message = format!("operation {} is not granted", quote(op));
            self.push(
                ReasonCode::OperationNotAllowed,
                "/action/operation",
                format!("one of {}", list.join(", ")),
                quote(op),
                message,
            );
        }
        if let (Some(patterns), Some(res)) = (&g.resources, &a.resource)
            && !patterns.iter().any(|p| resource_matches(p, res))
        {
            let list: Vec<String> = patterns.iter().map(|o| quote(o)).collect();
            let message = format!("resource {} matches none of the granted resources", quote(res));
            self.push(
                ReasonCode::ResourceNotAllowed,
                "/action/resource",
                format!("matching one of {}", list.join(", ")),
                quote(res),
                message,
            );
        }
        if let (Some(max), Some(used)) = (g.max_count, g.used)
            && used >= max
        {
            let message = format!("the grant has been used {used} time(s) and allows {max}");
            self.push(ReasonCode::CountExceeded, "/grant/used", format!("fewer than {max}"), used.to_string(), message);
        }
    }

    fn amount(&mut self) {
        let (Some(g), Some(a)) = (self.g, self.a) else { return };
        if g.limits_money && !a.has_amount {
            self.push(
                ReasonCode::AmountMissing,
                "/action/amount",
                "an amount (the grant limits amounts)",
                "missing",
                "the grant limits amounts and the action does not state one",
            );
        }
        if let (Some(gc), Some(ac)) = (g.currency, a.currency)
            && gc != ac
        {
            let message = format!("the action is in {ac}, the grant's limits in {gc}");
            self.push(ReasonCode::CurrencyMismatch, "/action/currency", gc.code(), ac.code(), message);
        }
        let (Some(amount), Some(cur)) = (a.amount, a.currency) else { return };
        if g.currency != Some(cur) {
            return;
        }
        if let Some(max) = g.max_amount
            && amount > max
        {
            let message =
                format!("{} is above the grant's limit of {} per action", cur.format(amount), cur.format(max));
            self.push(
                ReasonCode::AmountOverCap,
                "/action/amount",
                format!("at most {}", cur.format(max)),
                cur.format(amount),
                message,
            );
        }
        if let Some(threshold) = g.confirmation_threshold
            && amount >= threshold
        {
            let message =
                format!("{} is at or above the confirmation threshold {}", cur.format(amount), cur.format(threshold));
            self.push(
                ReasonCode::ConfirmationThreshold,
                "/action/amount",
                format!("below {}", cur.format(threshold)),
                cur.format(amount),
                message,
            );
        }
    }
}

fn summary(a: Option<&Action>) -> String {
    let Some(a) = a else { return "an action that could not be read".to_owned() };
    let mut s = format!(
        "{} wants to {} on {}",
        a.agent.as_deref().unwrap_or("an unknown agent"),
        a.operation.as_deref().unwrap_or("(unknown operation)"),
        a.resource.as_deref().unwrap_or("(unknown resource)")
    );
    if let (Some(amount), Some(cur)) = (a.amount, a.currency) {
        s.push_str(&format!(" for {}", cur.format(amount)));
    }
    s
}

fn evaluate(grant: Option<&Value>, action: Option<&Value>, now: Option<Timestamp>, reader: Reader) -> Decision {
    let mut r = reader;
    let g = grant.and_then(|v| read_grant(&mut r, v, "/grant"));
    let a = action.and_then(|v| read_action(&mut r, v, "/action"));
    let mut cx = Ctx { g: g.as_ref(), a: a.as_ref(), now, out: r.reasons };
    cx.validity();
    cx.scope();
    cx.amount();
    let out = cx.out;
    Decision::from_reasons(ACTION_OBJECT, ACTION_STEP_UP, out, || summary(a.as_ref()))
}

/// Decides whether `action` is within `grant` at `now`. Never panics and never fails: anything unreadable is a DENY
/// reason.
pub fn verify_action(grant: &Value, action: &Value, now: Timestamp) -> Decision {
    evaluate(Some(grant), Some(action), Some(now), Reader::default())
}

/// Decides an action request document `{"grant", "action", "now"}` (the vector and CLI format).
pub fn verify_action_request(request: &Value) -> Decision {
    let mut r = Reader::default();
    let Some(top) = r.object(request, "", &["grant", "action", "now"], &[]) else {
        return Decision::from_reasons(ACTION_OBJECT, ACTION_STEP_UP, r.reasons, String::new);
    };
    let grant = r.required(top, "", "grant");
    let action = r.required(top, "", "action");
    let now = super::read::read_now(&mut r, top);
    evaluate(grant, action, now, r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_patterns() {
        assert!(resource_matches("order:123", "order:123"));
        assert!(!resource_matches("order:123", "order:1234"));
        assert!(resource_matches("order:*", "order:123"));
        assert!(resource_matches("order:*", "order:"));
        assert!(!resource_matches("order:*", "refund:1"));
        assert!(resource_matches("*", "anything"));
        assert!(!resource_matches("order:1*3", "order:123"));
    }
}
