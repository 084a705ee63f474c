//! The ledger: what the host has recorded against the mandate so far (spent, reserved, how many uses and when the last
//! one was). Absent means nothing recorded: the caller asserts the mandate is unused.

use serde_json::Value;

use super::read::Reader;
use crate::money::Currency;
use crate::pointer::member;
use crate::time::Timestamp;

/// The ledger as read; unreadable members are `None` (their reasons are recorded) and members not given are zero.
#[derive(Debug, Clone, Default)]
pub(crate) struct Ledger {
    /// `None` when the ledger itself or one of its amounts could not be read.
    pub(crate) spent: Option<i64>,
    pub(crate) reserved: Option<i64>,
    pub(crate) occurrences: Option<i64>,
    pub(crate) last_occurrence_at: Option<Timestamp>,
    /// The ledger's currency when it states one and it could be read.
    pub(crate) currency: Option<Currency>,
    /// The ledger states a currency (readable or not).
    pub(crate) has_currency: bool,
}

impl Ledger {
    /// No ledger given: nothing spent, nothing reserved, no use yet.
    pub(crate) fn empty() -> Ledger {
        Ledger { spent: Some(0), reserved: Some(0), occurrences: Some(0), ..Ledger::default() }
    }
}

/// Reads a ledger at `path` (normally `/ledger`). `null` is the same as no ledger.
pub(crate) fn read_ledger(r: &mut Reader, v: Option<&Value>, path: &str) -> Ledger {
    let v = match v {
        None | Some(Value::Null) => return Ledger::empty(),
        Some(v) => v,
    };
    let Some(m) = r.object(v, path, &["spent", "reserved", "occurrences", "last_occurrence_at", "currency"], &[])
    else {
        return Ledger::default();
    };
    let p = |k: &str| member(path, k);
    Ledger {
        spent: m.get("spent").map_or(Some(0), |x| r.amount(x, &p("spent"), false)),
        reserved: m.get("reserved").map_or(Some(0), |x| r.amount(x, &p("reserved"), false)),
        occurrences: m.get("occurrences").map_or(Some(0), |x| r.count(x, &p("occurrences"), 0)),
        last_occurrence_at: m.get("last_occurrence_at").and_then(|x| r.timestamp(x, &p("last_occurrence_at"))),
        currency: m.get("currency").and_then(|x| r.currency(x, &p("currency"))),
        has_currency: m.contains_key("currency"),
    }
}
