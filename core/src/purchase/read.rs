//! Reads the purchase and action documents from JSON without ever failing: every problem becomes a DENY reason with
//! a JSON pointer, and the value is simply absent, so rules that need it are not evaluated (and nothing ALLOWs).

use serde_json::{Map, Value};

use super::decision::{Reason, ReasonCode, Reasons};
use crate::money::{self, AmountError, Currency, CurrencyError, MAX_SAFE};
use crate::pointer::{element, member, type_name};
use crate::time::{TimeError, Timestamp};

/// The members of a JWK that hold private key material (RFC 7518 §6.2.2, §6.3.2, §6.4.1): an unknown member so named
/// is reported without its value.
const PRIVATE_JWK_MEMBERS: [&str; 8] = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"];

/// A value as compact JSON for a reason's `actual`, cut to 80 characters.
pub(crate) fn show(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() <= 80 {
        return s;
    }
    let mut out: String = s.chars().take(79).collect();
    out.push('…');
    out
}

/// A quoted string for messages, cut to 80 characters.
pub(crate) fn quote(s: &str) -> String {
    show(&Value::String(s.to_owned()))
}

/// What `Reader::validity` reads: `not_before`, `expires_at`, `revoked` and `other_constraints` (`(path, type)` each).
pub(crate) type Validity = (Option<Timestamp>, Option<Timestamp>, bool, Vec<(String, String)>);

/// The reasons for a time `when` outside a grant's or a mandate's window (`what`: "the grant"): at or after
/// `expires` (its time, its reason and the path it blames), or before `not_before`. `said` is how the message puts
/// `when` ("it is now", "the action is at").
pub(crate) fn outside_window(
    out: &mut impl Reasons,
    what: &str,
    when: Timestamp,
    said: &str,
    expires: Option<(Timestamp, ReasonCode, &str)>,
    not_before: Option<(Timestamp, ReasonCode, &str)>,
) {
    if let Some((exp, code, path)) = expires
        && when >= exp
    {
        let message = format!("{what} expired at {exp}; {said} {when}");
        out.push(code, path, format!("before {exp}"), when.to_rfc3339(), message);
    }
    if let Some((nb, code, path)) = not_before
        && when < nb
    {
        let message = format!("{what} is valid from {nb}; {said} {when}");
        out.push(code, path, format!("at or after {nb}"), when.to_rfc3339(), message);
    }
}

/// One `constraint_unsupported` for each constraint (its path and name) the checker does not implement: the user
/// decides those, so the decision can never be ALLOW on them.
pub(crate) fn unsupported_constraints(out: &mut impl Reasons, constraints: &[(String, String)]) {
    for (path, t) in constraints {
        let message = format!("constraint {} is not implemented by this checker; the user must decide", quote(t));
        out.push(
            ReasonCode::ConstraintUnsupported,
            path.clone(),
            "a constraint this checker implements",
            quote(t),
            message,
        );
    }
}

/// Collects the reasons found while reading.
#[derive(Debug, Default)]
pub(crate) struct Reader {
    pub(crate) reasons: Vec<Reason>,
}

impl Reasons for Reader {
    fn reasons(&mut self) -> &mut Vec<Reason> {
        &mut self.reasons
    }
}

impl Reader {
    fn malformed(&mut self, path: &str, expected: &str, v: &Value) {
        let message = format!("expected {expected}, got {}", type_name(v));
        self.push(ReasonCode::Malformed, path, expected, show(v), message);
    }

    /// An object whose members are all in `known` (evaluated) or `ignored` (documented, not evaluated).
    pub(crate) fn object<'v>(
        &mut self,
        v: &'v Value,
        path: &str,
        known: &[&str],
        ignored: &[&str],
    ) -> Option<&'v Map<String, Value>> {
        let Value::Object(m) = v else {
            self.malformed(path, "an object", v);
            return None;
        };
        for (k, val) in m {
            if !known.contains(&k.as_str()) && !ignored.contains(&k.as_str()) {
                self.push(
                    ReasonCode::Malformed,
                    member(path, k),
                    format!("one of the members: {}", known.join(", ")),
                    // A private JWK's secret, pasted where a public key belongs, is never repeated in a reason.
                    if PRIVATE_JWK_MEMBERS.contains(&k.as_str()) {
                        "(not shown: a private key member)".to_owned()
                    } else {
                        show(val)
                    },
                    format!("unknown member {}: an unknown field never passes unnoticed", quote(k)),
                );
            }
        }
        Some(m)
    }

    /// A required member; reports it missing.
    pub(crate) fn required<'v>(&mut self, m: &'v Map<String, Value>, path: &str, key: &str) -> Option<&'v Value> {
        let v = m.get(key);
        if v.is_none() {
            self.push(ReasonCode::Malformed, member(path, key), "present", "missing", format!("{key:?} is required"));
        }
        v
    }

    /// A non-empty string (identifiers).
    pub(crate) fn id(&mut self, v: &Value, path: &str) -> Option<String> {
        match v {
            Value::String(s) if !s.is_empty() => Some(s.clone()),
            _ => {
                self.malformed(path, "a non-empty string", v);
                None
            }
        }
    }

    /// Any string (names, descriptions).
    pub(crate) fn text(&mut self, v: &Value, path: &str) -> Option<String> {
        match v {
            Value::String(s) => Some(s.clone()),
            _ => {
                self.malformed(path, "a string", v);
                None
            }
        }
    }

    pub(crate) fn boolean(&mut self, v: &Value, path: &str) -> Option<bool> {
        match v {
            Value::Bool(b) => Some(*b),
            _ => {
                self.malformed(path, "true or false", v);
                None
            }
        }
    }

    /// An integer amount of minor units (see [`money::amount_from_json`]).
    pub(crate) fn amount(&mut self, v: &Value, path: &str, allow_negative: bool) -> Option<i64> {
        match money::amount_from_json(v, allow_negative) {
            Ok(a) => Some(a),
            Err(e) => {
                let why = match e {
                    AmountError::NotANumber => format!("an amount must be a JSON integer, got {}", type_name(v)),
                    AmountError::NotAnInteger => format!(
                        "{} is not an integer: amounts are minor units written without a fraction or exponent",
                        show(v)
                    ),
                    AmountError::OutOfRange => format!("{} is beyond ±(2^53−1)", show(v)),
                    AmountError::Negative => format!("{} is negative; this amount cannot be", show(v)),
                };
                self.push(ReasonCode::AmountInvalid, path, e.expected(allow_negative), show(v), why);
                None
            }
        }
    }

    /// A quantity: an integer from 1 to 2^53−1.
    pub(crate) fn quantity(&mut self, v: &Value, path: &str) -> Option<i64> {
        match v.as_i64() {
            Some(q) if (1..=MAX_SAFE).contains(&q) => Some(q),
            _ => {
                let message = format!("quantity must be a whole number of units, at least 1; got {}", show(v));
                self.push(ReasonCode::QuantityInvalid, path, "an integer from 1 to 2^53−1", show(v), message);
                None
            }
        }
    }

    /// A count (occurrences, uses): an integer from `min` to 2^53−1.
    pub(crate) fn count(&mut self, v: &Value, path: &str, min: i64) -> Option<i64> {
        match v.as_i64() {
            Some(c) if (min..=MAX_SAFE).contains(&c) => Some(c),
            _ => {
                let expected = format!("an integer from {min} to 2^53−1");
                let message = format!("expected {expected}, got {}", show(v));
                self.push(ReasonCode::Malformed, path, expected, show(v), message);
                None
            }
        }
    }

    /// An RFC 3339 date-time string.
    pub(crate) fn timestamp(&mut self, v: &Value, path: &str) -> Option<Timestamp> {
        let expected = "an RFC 3339 date-time such as \"2026-11-20T12:00:00Z\"";
        let Value::String(s) = v else {
            let message = format!("expected {expected}, got {}", type_name(v));
            self.push(ReasonCode::TimestampInvalid, path, expected, show(v), message);
            return None;
        };
        self.parsed(s, Timestamp::parse(s), ReasonCode::TimestampInvalid, path, expected, |e| match e {
            TimeError::Syntax => "is not of the form YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)",
            TimeError::Range => "has a field out of range (month, day, hour, minute, second or offset)",
        })
    }

    /// An ISO 4217 currency code, all uppercase or all lowercase.
    pub(crate) fn currency(&mut self, v: &Value, path: &str) -> Option<Currency> {
        let Value::String(s) = v else {
            self.malformed(path, "a three-letter ISO 4217 currency code", v);
            return None;
        };
        let expected = "an active ISO 4217 code with a minor unit, all uppercase or all lowercase";
        self.parsed(s, Currency::parse(s), ReasonCode::CurrencyUnknown, path, expected, |e| match e {
            CurrencyError::Syntax => "is not three letters all in one case (\"USD\" or \"usd\")",
            CurrencyError::Unknown => "is not an active ISO 4217 currency code",
            CurrencyError::NoMinorUnit => "is an ISO 4217 code without a minor unit; it cannot be paid in",
        })
    }

    /// What `parse` read from the string `s`, or one reason `code` at `path` that quotes `s` and says `why` it was
    /// refused.
    fn parsed<T, E>(
        &mut self,
        s: &str,
        parse: Result<T, E>,
        code: ReasonCode,
        path: &str,
        expected: &str,
        why: impl FnOnce(E) -> &'static str,
    ) -> Option<T> {
        parse.map_err(|e| self.push(code, path, expected, quote(s), format!("{} {}", quote(s), why(e)))).ok()
    }

    /// An array of at least `min` elements.
    pub(crate) fn array<'v>(&mut self, v: &'v Value, path: &str, min: usize) -> Option<&'v [Value]> {
        let Value::Array(a) = v else {
            self.malformed(path, "an array", v);
            return None;
        };
        if a.len() < min {
            let expected = format!("at least {min} element(s)");
            let message = format!("expected {expected}, got an empty array");
            self.push(ReasonCode::Malformed, path, expected, show(v), message);
            return None;
        }
        Some(a)
    }

    /// An array of non-empty strings; `None` if the array or any element is malformed.
    pub(crate) fn ids(&mut self, v: &Value, path: &str, min: usize) -> Option<Vec<String>> {
        let list = self.array(v, path, min)?;
        let mut out = Vec::with_capacity(list.len());
        let mut ok = true;
        for (i, x) in list.iter().enumerate() {
            match self.id(x, &element(path, i)) {
                Some(s) => out.push(s),
                None => ok = false,
            }
        }
        ok.then_some(out)
    }

    /// The members a grant and a mandate share for when and whether they hold, in this order: `not_before`,
    /// `expires_at` (required), `revoked` (false when absent or unreadable) and `other_constraints`.
    pub(crate) fn validity(&mut self, m: &Map<String, Value>, path: &str) -> Validity {
        let p = |k: &str| member(path, k);
        let not_before = m.get("not_before").and_then(|x| self.timestamp(x, &p("not_before")));
        let expires_at = self.required(m, path, "expires_at").and_then(|x| self.timestamp(x, &p("expires_at")));
        let revoked = m.get("revoked").is_some_and(|x| self.boolean(x, &p("revoked")).unwrap_or(false));
        let other =
            m.get("other_constraints").map_or_else(Vec::new, |x| self.other_constraints(x, &p("other_constraints")));
        (not_before, expires_at, revoked, other)
    }

    /// `other_constraints`: objects with a non-empty string `type`; everything else in them is opaque.
    pub(crate) fn other_constraints(&mut self, v: &Value, path: &str) -> Vec<(String, String)> {
        let Some(list) = self.array(v, path, 0) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (i, x) in list.iter().enumerate() {
            let p = element(path, i);
            let Value::Object(m) = x else {
                self.malformed(&p, "an object with a \"type\"", x);
                continue;
            };
            if let Some(t) = self.required(m, &p, "type").and_then(|t| self.id(t, &member(&p, "type"))) {
                out.push((p, t));
            }
        }
        out
    }
}

/// An RFC 3339 `now` from a request document, or the reason it is unusable.
pub(crate) fn read_now(r: &mut Reader, m: &Map<String, Value>) -> Option<Timestamp> {
    r.required(m, "", "now").and_then(|v| r.timestamp(v, "/now"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pointers_escape_members() {
        assert_eq!(member("/a", "b/c~d"), "/a/b~1c~0d");
        assert_eq!(element("/a", 3), "/a/3");
    }

    #[test]
    fn problems_become_reasons_not_panics() {
        let mut r = Reader::default();
        assert_eq!(r.amount(&json!(100.0), "/x", false), None);
        assert_eq!(r.quantity(&json!(-1), "/q"), None);
        assert_eq!(r.quantity(&json!(2.0), "/q2"), None);
        assert_eq!(r.timestamp(&json!("tomorrow"), "/t"), None);
        assert_eq!(r.currency(&json!("Usd"), "/c"), None);
        let m = json!({"a": 1, "zzz": 2});
        assert!(r.object(&m, "/o", &["a"], &[]).is_some());
        let codes: Vec<(&str, &str)> = r.reasons.iter().map(|x| (x.code.as_str(), x.path.as_str())).collect();
        assert_eq!(
            codes,
            [
                ("amount_invalid", "/x"),
                ("quantity_invalid", "/q"),
                ("quantity_invalid", "/q2"),
                ("timestamp_invalid", "/t"),
                ("currency_unknown", "/c"),
                ("malformed", "/o/zzz"),
            ]
        );
    }

    #[test]
    fn show_cuts_long_values() {
        let long = "x".repeat(200);
        let s = show(&json!(long));
        assert_eq!(s.chars().count(), 80);
        assert!(s.ends_with('…'));
    }
}
