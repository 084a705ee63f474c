//! Future charges, checked at sign-up (the only time the agent is checked; the merchant charges renewals later): the
//! budget over everything committed, recurrence permission and frequency, the schedule's count, last date and each
//! charge against the threshold, and the deferred payments a UCP payment term announces.

use super::checkout::Recurring;
use super::decision::{ReasonCode, Reasons};
use super::mandate::{Frequency, Mandate};
use super::rules::Ctx;
use super::totals::Located;
use crate::money::{self, Currency, format_amount};
use crate::pointer::member;

impl Ctx<'_> {
    pub(super) fn budget(&mut self, m: &Mandate, t: &Located, cur: Currency) {
        let (Some(c), Some(budget)) = (self.c, m.budget) else { return };
        let (Some(spent), Some(reserved)) = (self.l.spent, self.l.reserved) else { return };
        if self.l.has_currency && self.l.currency != Some(cur) {
            return;
        }
        if c.has_recurring && c.recurring.is_none() {
            return;
        }
        // Committed future charges: None means unbounded (until canceled, or beyond any representable amount).
        let future = match c.recurring {
            None => Some(0),
            Some(rc) if rc.amount == 0 => Some(0),
            Some(rc) => rc.occurrences.and_then(|n| money::mul(rc.amount, n).ok()),
        };
        let committed = future.and_then(|f| money::sum([spent, reserved, t.amount, f]).ok());
        let mut actual =
            format!("{} spent + {} reserved + {} now", cur.format(spent), cur.format(reserved), cur.format(t.amount));
        match (future, c.recurring) {
            (Some(f), Some(_)) if f > 0 => actual.push_str(&format!(" + {} in future charges", cur.format(f))),
            (None, Some(rc)) if rc.occurrences.is_none() => actual.push_str(" + future charges until canceled"),
            (None, _) => actual.push_str(" + future charges beyond any representable amount"),
            _ => {}
        }
        if committed.is_none_or(|x| x > budget) {
            let message = format!("{actual} exceeds the budget of {}", cur.format(budget));
            self.push(
                ReasonCode::BudgetExceeded,
                t.path.clone(),
                format!("at most {} in all", cur.format(budget)),
                actual,
                message,
            );
        }
    }

    pub(super) fn recurrence(&mut self) {
        let (Some(m), Some(c)) = (self.m, self.c) else { return };
        let at = c.recurring_path.as_str();
        if let Some(rc) = c.recurring {
            if !m.has_recurrence {
                let what =
                    if rc.trial { "a trial that converts to a paid recurring charge" } else { "a recurring charge" };
                let amount = format_amount(c.currency, rc.amount);
                let message = format!(
                    "the checkout signs the user up for {what} of {amount} {}, and the mandate gives no recurrence permission",
                    rc.frequency.words()
                );
                self.push(
                    ReasonCode::RecurrenceNotPermitted,
                    at,
                    "a mandate with recurrence",
                    format!("{amount} {}", rc.frequency.words()),
                    message,
                );
            }
            if let Some(rec) = m.recurrence
                && !rec.frequency.allows(rc.frequency)
            {
                let message = format!(
                    "charges {} are more frequent than the mandate allows ({})",
                    rc.frequency.words(),
                    rec.frequency.words()
                );
                self.push(
                    ReasonCode::RecurrenceFrequencyExceeded,
                    member(at, "frequency"),
                    rec.frequency.as_str(),
                    rc.frequency.as_str(),
                    message,
                );
            }
            if let (Some(range), Some(cur)) = (m.amount_range, self.money()) {
                let path = member(at, "amount");
                self.above_max(
                    ReasonCode::FutureChargeOverCap,
                    "each future charge of",
                    rc.amount,
                    path,
                    range.max,
                    cur,
                );
            }
        }
        // Uses of the mandate recorded in the ledger. Without recurrence a mandate is good for one use.
        let used_up = self.used_up(m);
        // Without recurrence the user is asked (recurrence_not_permitted) and sees the schedule in the summary.
        if let (Some(rc), true) = (c.recurring, m.recurrence.is_some()) {
            self.sign_up(m, rc, used_up, at);
        }
        if let Some(used) = self.l.occurrences {
            let max = if m.has_recurrence { m.recurrence.and_then(|r| r.max_occurrences) } else { Some(1) };
            if let Some(max) = max
                && used_up
            {
                let why = if m.has_recurrence { "its max_occurrences" } else { "one use (it has no recurrence)" };
                let message = format!("the mandate has been used {used} time(s) and allows {why}");
                self.push(
                    ReasonCode::RecurrenceCountExceeded,
                    "/ledger/occurrences",
                    format!("fewer than {max} earlier use(s)"),
                    used.to_string(),
                    message,
                );
            }
        }
        if let (Some(rec), Some(last), Some(now)) = (m.recurrence, self.l.last_occurrence_at, self.now)
            && let Some(next) = rec.frequency.next_after(last)
            && now < next
        {
            let message = format!(
                "the last use was at {last}; with {} recurrence the next may be at {next}",
                rec.frequency.as_str()
            );
            self.push(
                ReasonCode::RecurrenceFrequencyExceeded,
                "/ledger/last_occurrence_at",
                format!("now at or after {next}"),
                now.to_rfc3339(),
                message,
            );
        }
    }

    /// An amount at or above the confirmation threshold needs the user.
    pub(super) fn threshold(&mut self, what: &str, amount: i64, path: String, threshold: i64, cur: Currency) {
        if amount >= threshold {
            let (a, t) = (cur.format(amount), cur.format(threshold));
            let message = format!("{what} {a} is at or above the confirmation threshold {t}");
            self.push(ReasonCode::ConfirmationThreshold, path, format!("below {t}"), a, message);
        }
    }

    /// An amount above the mandate's maximum (`amount_range.max`) is refused with `code`.
    pub(super) fn above_max(
        &mut self,
        code: ReasonCode,
        what: &str,
        amount: i64,
        path: String,
        max: i64,
        cur: Currency,
    ) {
        if amount > max {
            let (a, m) = (cur.format(amount), cur.format(max));
            let message = format!("{what} {a} is above the mandate's maximum {m}");
            self.push(code, path, format!("at most {m}"), a, message);
        }
    }

    /// The ledger already shows as many uses as the mandate's recurrence allows.
    fn used_up(&self, m: &Mandate) -> bool {
        let max = if m.has_recurrence { m.recurrence.and_then(|r| r.max_occurrences) } else { Some(1) };
        matches!((self.l.occurrences, max), (Some(used), Some(max)) if used >= max)
    }

    /// Sign-up is the only time the agent is checked: renewals are charged by the merchant later. So every future
    /// charge is checked now: their number against `max_occurrences`, the last one against the mandate's expiry, each
    /// one against the confirmation threshold (the budget and the cap are checked with the total).
    fn sign_up(&mut self, m: &Mandate, rc: Recurring, used_up: bool, at: &str) {
        let charges = match rc.occurrences {
            Some(n) => format!("{n} future charge(s)"),
            None => "charges until canceled".to_owned(),
        };
        if let (Some(max), Some(used), false) =
            (m.recurrence.and_then(|r| r.max_occurrences), self.l.occurrences, used_up)
        {
            // This checkout is a charge unless its total is known to be zero (a free trial).
            let now = i64::from(self.totals.total.as_ref().is_none_or(|t| t.amount != 0));
            let committed = rc.occurrences.and_then(|n| money::sum([used, now, n]).ok());
            if committed.is_none_or(|n| n > max) {
                let actual = format!("{used} earlier + {now} now + {charges}");
                let message = format!("{actual}: the mandate allows {max} use(s) in all");
                self.push(
                    ReasonCode::RecurrenceCountExceeded,
                    member(at, "occurrences"),
                    format!("at most {max} charge(s) in all"),
                    actual,
                    message,
                );
            }
        }
        if let (Some(exp), Some(now)) = (m.expires_at, self.now) {
            let first = rc.first_charge_at.or_else(|| rc.frequency.next_after(now));
            // The last charge; None when there is none (until canceled) or it is beyond any date.
            let last = match (rc.frequency, rc.occurrences) {
                (_, None) => None,
                // ON_DEMAND charges have no schedule: only a stated first charge can be placed in time.
                (Frequency::OnDemand, Some(_)) => first.or(Some(now)),
                (f, Some(n)) => first.and_then(|t| f.periods_after(t, n - 1)),
            };
            if last.is_none_or(|t| t >= exp) {
                let actual = match last {
                    Some(t) => format!("{charges}, the last at {t}"),
                    None => charges.clone(),
                };
                let message = format!("{actual}: the mandate expires at {exp} and cannot authorise charges after it");
                self.push(
                    ReasonCode::RecurrenceBeyondExpiry,
                    at,
                    format!("every charge before {exp}"),
                    actual,
                    message,
                );
            }
        }
        if let (Some(threshold), Some(cur)) = (m.confirmation_threshold, self.money()) {
            self.threshold("each future charge of", rc.amount, member(at, "amount"), threshold, cur);
        }
    }

    /// Charges the checkout's own documents announce: an ACP disclosure of trial or renewal terms that no `recurring`
    /// structures, and a UCP payment term's deferred payments, which must add up to the total and fall before the
    /// mandate ends.
    pub(super) fn schedules(&mut self) {
        let Some(c) = self.c else { return };
        if let Some(path) = &c.disclosed_recurrence {
            let message = "a line discloses trial or recurring terms that this checkout does not state as recurring: \
                           the user must read them";
            self.push(ReasonCode::RecurrenceDisclosed, path.clone(), "recurring terms as `recurring`", "text", message);
        }
        let Some(term) = &c.term else { return };
        if let (Some(sum), Some(total)) = (term.sum, &self.totals.total)
            && sum != total.amount
        {
            let (s, t) = (format_amount(c.currency, sum), format_amount(c.currency, total.amount));
            let message = format!("the selected payment term's schedules add up to {s}, the checkout total is {t}");
            self.push(ReasonCode::TotalsMismatch, term.path.clone(), t, s, message);
        }
        let (Some(m), Some(now)) = (self.m, self.now) else { return };
        let Some(exp) = m.expires_at else { return };
        for d in &term.deferred {
            // Without due_at the timing is only in the schedule's text: it cannot be shown to fall in time.
            let late = d.due_at.is_none_or(|t| t >= exp || t < now);
            if late {
                let when = d.due_at.map_or_else(|| "a time stated only in text".to_owned(), |t| t.to_string());
                let amount = format_amount(c.currency, d.amount);
                let message = format!("a deferred payment of {amount} is due at {when}; the mandate ends at {exp}");
                self.push(
                    ReasonCode::RecurrenceBeyondExpiry,
                    member(&d.path, "due_at"),
                    format!("due before {exp}"),
                    when,
                    message,
                );
            }
        }
    }
}
