//! Reads `policy_check` requests and policies from JSON, enforcing every limit of seed 000's input schema
//! (lengths in code points, counts, patterns, enums, `additionalProperties: false`) with a code and a JSON pointer.
//! All errors are collected in schema order (docs/CHECK_API.md); the Check API reports the first, lint all of them.

use serde_json::{Map, Value};

use super::*;
use crate::decimal::{Dec, DecError};
use crate::error::{Error, ErrorCode, Result, excerpt};
use crate::json;
use crate::pointer::{element, member, type_name};

const MAX_REPLY: usize = 4000;

/// Parses a request body with the strict reader (`crate::json`). Returns the first error in schema order.
pub fn parse_request(body: &[u8]) -> Result<CheckRequest> {
    parse_request_value(&json::read(body)?)
}

/// Reads an already-parsed request document.
pub fn parse_request_value(value: &Value) -> Result<CheckRequest> {
    first(|r| r.request(value))
}

/// Reads a policy document alone (the `policy` member's value), first error only; paths are relative to it.
pub fn parse_policy(value: &Value) -> Result<Policy> {
    first(|r| r.policy(value, ""))
}

/// Reads the `cases` of a request (an array of `{id?, reply, record?}`) found at `path` (`/cases` in a request).
pub fn parse_cases(value: &Value, path: &str) -> Result<Vec<Case>> {
    first(|r| r.cases(value, path))
}

/// Reads one case `{id?, reply, record?}` found at `path` (`""` for a case on its own, as `curbi check --jsonl`
/// reads each line), with the limits of a request's case.
pub fn parse_case(value: &Value, path: &str) -> Result<Case> {
    first(|r| r.case(value, path))
}

/// Reads a `record` found at `path` (`/record` in a request).
pub fn parse_record(value: &Value, path: &str) -> Result<Record> {
    first(|r| r.record(value, path))
}

/// Reads a checker version (the request's `version` member) found at `path`.
pub fn parse_version(value: &Value, path: &str) -> Result<CheckerVersion> {
    first(|r| r.version(value, path))
}

/// Reads a `verify` member (`"optional"` or `"required"`) found at `path`.
pub fn parse_verify(value: &Value, path: &str) -> Result<Verify> {
    first(|r| r.verify(value, path))
}

/// Every schema error of a policy document, in schema order (for lint).
pub fn validate_policy_value(value: &Value, base: &str) -> (Option<Policy>, Vec<Error>) {
    let mut r = Reader::default();
    let p = r.policy(value, base);
    (p, r.errors)
}

/// Runs one read and answers with its value or its first error.
fn first<T>(read: impl FnOnce(&mut Reader) -> Option<T>) -> Result<T> {
    let mut r = Reader::default();
    let out = read(&mut r);
    match (r.errors.into_iter().next(), out) {
        (Some(e), _) => Err(e),
        (None, Some(out)) => Ok(out),
        (None, None) => Err(Error::new(ErrorCode::Internal, "", "document rejected without a reason")),
    }
}

#[derive(Default)]
struct Reader {
    errors: Vec<Error>,
}

impl Reader {
    fn err(&mut self, code: ErrorCode, path: impl Into<String>, msg: impl Into<String>) {
        self.errors.push(Error::new(code, path, msg));
    }

    /// An object with only `allowed` members; reports each other member.
    fn object<'v>(&mut self, v: &'v Value, path: &str, allowed: &[&str]) -> Option<&'v Map<String, Value>> {
        let Value::Object(m) = v else {
            self.err(ErrorCode::InvalidType, path, format!("expected an object, got {}", type_name(v)));
            return None;
        };
        for k in m.keys() {
            if !allowed.contains(&k.as_str()) {
                self.err(ErrorCode::UnknownField, member(path, k), crate::suggest::unknown_member_message(k, allowed));
            }
        }
        Some(m)
    }

    fn string(&mut self, v: &Value, path: &str, min: usize, max: Option<usize>) -> Option<String> {
        let Value::String(s) = v else {
            self.err(ErrorCode::InvalidType, path, format!("expected a string, got {}", type_name(v)));
            return None;
        };
        let n = s.chars().count();
        if n < min {
            self.err(ErrorCode::TooShort, path, format!("must be at least {min} character(s), got {n}"));
            return None;
        }
        if let Some(max) = max
            && n > max
        {
            self.err(ErrorCode::TooLong, path, format!("must be at most {max} characters, got {n}"));
            return None;
        }
        Some(s.clone())
    }

    fn boolean(&mut self, v: &Value, path: &str) -> Option<bool> {
        match v {
            Value::Bool(b) => Some(*b),
            _ => {
                self.err(ErrorCode::InvalidType, path, format!("expected a boolean, got {}", type_name(v)));
                None
            }
        }
    }

    fn enumeration<T: Copy>(&mut self, v: &Value, path: &str, options: &[(&str, T)]) -> Option<T> {
        let s = self.string(v, path, 0, None)?;
        match options.iter().find(|(name, _)| *name == s) {
            Some((_, t)) => Some(*t),
            None => {
                let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
                self.err(
                    ErrorCode::InvalidEnum,
                    path,
                    format!("'{}' is not one of: {}", excerpt(&s), names.join(", ")),
                );
                None
            }
        }
    }

    fn array<'v>(&mut self, v: &'v Value, path: &str, min: usize, max: Option<usize>) -> Option<&'v [Value]> {
        let Value::Array(a) = v else {
            self.err(ErrorCode::InvalidType, path, format!("expected an array, got {}", type_name(v)));
            return None;
        };
        if a.len() < min {
            self.err(ErrorCode::TooFewItems, path, format!("needs at least {min} item(s), got {}", a.len()));
            return None;
        }
        if let Some(max) = max
            && a.len() > max
        {
            self.err(ErrorCode::TooManyItems, path, format!("allows at most {max} items, got {}", a.len()));
            return None;
        }
        Some(a)
    }

    /// A number read exactly; `exclusive_min` / `min` / `max` as in the schema.
    fn number(&mut self, v: &Value, path: &str, min: Dec, exclusive_min: bool, max: Option<Dec>) -> Option<Dec> {
        let Value::Number(number) = v else {
            self.err(ErrorCode::InvalidType, path, format!("expected a number, got {}", type_name(v)));
            return None;
        };
        // The number's text as messages quote it: a 10 MB number is an excerpt.
        let n = excerpt(number.as_str());
        let d = match Dec::from_json_number(number) {
            Ok(d) => d,
            Err(DecError::Negative) => {
                self.err(ErrorCode::OutOfRange, path, format!("must be at least {}, got {n}", min.plain()));
                return None;
            }
            Err(DecError::TooPrecise) => {
                self.err(ErrorCode::InvalidValue, path, format!("{n} has more than 6 decimal places"));
                return None;
            }
            Err(DecError::TooLarge) => {
                self.err(ErrorCode::OutOfRange, path, format!("{n} is larger than 10^15"));
                return None;
            }
            Err(DecError::Syntax) => {
                self.err(ErrorCode::InvalidValue, path, format!("{n} cannot be read as a decimal"));
                return None;
            }
        };
        if d < min || (exclusive_min && d == min) {
            let rel = if exclusive_min { "greater than" } else { "at least" };
            self.err(ErrorCode::OutOfRange, path, format!("must be {rel} {}, got {n}", min.plain()));
            return None;
        }
        if let Some(max) = max
            && d > max
        {
            self.err(ErrorCode::OutOfRange, path, format!("must be at most {}, got {n}", max.plain()));
            return None;
        }
        Some(d)
    }

    fn required<'v>(&mut self, m: &'v Map<String, Value>, path: &str, key: &str) -> Option<&'v Value> {
        let v = m.get(key);
        if v.is_none() {
            self.err(ErrorCode::MissingField, member(path, key), format!("'{key}' is required"));
        }
        v
    }

    fn request(&mut self, v: &Value) -> Option<CheckRequest> {
        let m = self.object(v, "", &["version", "policy", "reply", "record", "cases", "verify"])?;
        let version = match m.get("version") {
            Some(v) => self.version(v, "/version"),
            None => Some(CheckerVersion::CURRENT),
        };
        let policy = self.required(m, "", "policy").and_then(|p| self.policy(p, "/policy"));
        // Errors come in schema order: a missing reply is reported where `reply` would be, a reply/cases conflict
        // right after `cases`.
        let (has_reply, has_cases) = (m.contains_key("reply"), m.contains_key("cases"));
        let reply = m.get("reply").and_then(|r| self.string(r, "/reply", 0, Some(MAX_REPLY)));
        if !has_reply && !has_cases {
            self.err(ErrorCode::MissingField, "/reply", "send 'reply' (one reply) or 'cases' (up to 50)");
        }
        let record = m.get("record").map(|r| self.record(r, "/record"));
        let cases = m.get("cases").and_then(|c| self.cases(c, "/cases"));
        if has_reply && has_cases {
            self.err(ErrorCode::ConflictingFields, "/cases", "send 'reply' or 'cases', not both");
        }
        let verify = match m.get("verify") {
            Some(v) => self.verify(v, "/verify"),
            None => Some(Verify::Optional),
        };
        let replies = match (reply, cases) {
            (Some(r), None) if !has_cases => Some(Replies::One(r)),
            (None, Some(c)) if !has_reply => Some(Replies::Cases(c)),
            _ => None,
        };
        let record = match record {
            Some(Some(r)) => Some(r),
            Some(None) => return None,
            None => None,
        };
        Some(CheckRequest { version: version?, policy: policy?, replies: replies?, record, verify: verify? })
    }

    fn verify(&mut self, v: &Value, path: &str) -> Option<Verify> {
        self.enumeration(v, path, &[("optional", Verify::Optional), ("required", Verify::Required)])
    }

    /// One of the checker versions this build has (`CheckerVersion::ALL`).
    fn version(&mut self, v: &Value, path: &str) -> Option<CheckerVersion> {
        let s = self.string(v, path, 0, None)?;
        let found = CheckerVersion::parse(&s);
        if found.is_none() {
            let names: Vec<&str> = CheckerVersion::ALL.iter().map(|v| v.as_str()).collect();
            self.err(ErrorCode::InvalidEnum, path, format!("'{}' is not one of: {}", excerpt(&s), names.join(", ")));
        }
        found
    }

    fn policy(&mut self, v: &Value, path: &str) -> Option<Policy> {
        let m = self.object(
            v,
            path,
            &["name", "description", "prices", "forbid", "actions", "discounts", "unknownAmounts"],
        )?;
        let before = self.errors.len();
        let mut p = Policy::default();
        if let Some(v) = m.get("name") {
            p.name = self.string(v, &member(path, "name"), 0, None);
        }
        if let Some(v) = m.get("description") {
            p.description = self.string(v, &member(path, "description"), 0, None);
        }
        if let Some(v) = m.get("prices") {
            let pp = member(path, "prices");
            if let Some(items) = self.array(v, &pp, 0, Some(50)) {
                p.prices = items.iter().enumerate().filter_map(|(i, it)| self.price(it, &element(&pp, i))).collect();
            }
        }
        if let Some(v) = m.get("forbid") {
            let fp = member(path, "forbid");
            if let Some(items) = self.array(v, &fp, 0, Some(50)) {
                p.forbid = items.iter().enumerate().filter_map(|(i, it)| self.forbid(it, &element(&fp, i))).collect();
            }
        }
        if let Some(v) = m.get("actions") {
            p.actions = self.actions(v, &member(path, "actions")).unwrap_or_default();
        }
        if let Some(v) = m.get("discounts") {
            let dp = member(path, "discounts");
            if let Some(items) = self.array(v, &dp, 0, Some(20)) {
                p.discounts =
                    items.iter().enumerate().filter_map(|(i, it)| self.discount(it, &element(&dp, i))).collect();
            }
        }
        if let Some(v) = m.get("unknownAmounts") {
            p.unknown_amounts = self
                .enumeration(
                    v,
                    &member(path, "unknownAmounts"),
                    &[("flag", UnknownAmounts::Flag), ("allow", UnknownAmounts::Allow)],
                )
                .unwrap_or_default();
        }
        (self.errors.len() == before).then_some(p)
    }

    fn price(&mut self, v: &Value, path: &str) -> Option<PriceItem> {
        let m = self.object(v, path, &["item", "amount", "amounts", "aliases"])?;
        let item = self.required(m, path, "item").and_then(|i| self.string(i, &member(path, "item"), 1, Some(80)));
        let mut amounts = Vec::new();
        let mut ok = true;
        if let Some(a) = m.get("amount") {
            match self.number(a, &member(path, "amount"), Dec::ZERO, false, None) {
                Some(d) => amounts.push(d),
                None => ok = false,
            }
        }
        if let Some(a) = m.get("amounts") {
            let ap = member(path, "amounts");
            if m.contains_key("amount") {
                self.err(ErrorCode::ConflictingFields, &ap, "use 'amount' or 'amounts', not both");
                ok = false;
            } else if let Some(list) = self.array(a, &ap, 1, Some(8)) {
                for (i, x) in list.iter().enumerate() {
                    match self.number(x, &element(&ap, i), Dec::ZERO, false, None) {
                        Some(d) => amounts.push(d),
                        None => ok = false,
                    }
                }
            } else {
                ok = false;
            }
        }
        let mut aliases = Vec::new();
        if let Some(a) = m.get("aliases") {
            let ap = member(path, "aliases");
            match self.array(a, &ap, 0, Some(8)) {
                Some(list) => {
                    for (i, x) in list.iter().enumerate() {
                        match self.string(x, &element(&ap, i), 1, Some(80)) {
                            Some(s) => aliases.push(s),
                            None => ok = false,
                        }
                    }
                }
                None => ok = false,
            }
        }
        let item = item?;
        ok.then_some(PriceItem { item, amounts, aliases })
    }

    fn forbid(&mut self, v: &Value, path: &str) -> Option<ForbidRule> {
        let m = self.object(v, path, &["id", "phrases", "why", "negatable", "match"])?;
        let before = self.errors.len();
        let id = self.required(m, path, "id").and_then(|i| {
            let ip = member(path, "id");
            let s = self.string(i, &ip, 0, None)?;
            let ok = (1..=40).contains(&s.len())
                && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
            if !ok {
                self.err(ErrorCode::PatternMismatch, ip, format!("'{}' must match ^[a-z0-9-]{{1,40}}$", excerpt(&s)));
                return None;
            }
            Some(s)
        });
        let mut phrases = Vec::new();
        if let Some(p) = self.required(m, path, "phrases") {
            let pp = member(path, "phrases");
            if let Some(list) = self.array(p, &pp, 1, Some(20)) {
                for (i, x) in list.iter().enumerate() {
                    if let Some(s) = self.string(x, &element(&pp, i), 1, Some(80)) {
                        phrases.push(s);
                    }
                }
            }
        }
        let why = m.get("why").and_then(|w| self.string(w, &member(path, "why"), 0, Some(200)));
        let negatable = m.get("negatable").map(|n| self.boolean(n, &member(path, "negatable"))).unwrap_or(Some(true));
        let match_mode = match m.get("match") {
            Some(x) => {
                self.enumeration(x, &member(path, "match"), &[("word", MatchMode::Word), ("prefix", MatchMode::Prefix)])
            }
            None => Some(MatchMode::Word),
        };
        if self.errors.len() != before {
            return None;
        }
        Some(ForbidRule { id: id?, phrases, why, negatable: negatable?, match_mode: match_mode? })
    }

    fn actions(&mut self, v: &Value, path: &str) -> Option<Vec<(String, String)>> {
        let Value::Object(m) = v else {
            self.err(ErrorCode::InvalidType, path, format!("expected an object, got {}", type_name(v)));
            return None;
        };
        if m.len() > 40 {
            self.err(ErrorCode::TooManyItems, path, format!("allows at most 40 actions, got {}", m.len()));
            return None;
        }
        let before = self.errors.len();
        let mut out = Vec::with_capacity(m.len());
        for (k, op) in m {
            let kp = member(path, k);
            if !((2..=20).contains(&k.len()) && k.bytes().all(|b| b.is_ascii_lowercase())) {
                self.err(
                    ErrorCode::PatternMismatch,
                    &kp,
                    format!("action verb '{}' must match ^[a-z]{{2,20}}$", excerpt(k)),
                );
                continue;
            }
            if let Some(op) = self.string(op, &kp, 1, Some(60)) {
                out.push((k.clone(), op));
            }
        }
        (self.errors.len() == before).then_some(out)
    }

    fn discount(&mut self, v: &Value, path: &str) -> Option<Discount> {
        let m = self.object(v, path, &["percent", "items"])?;
        let before = self.errors.len();
        let percent = self
            .required(m, path, "percent")
            .and_then(|p| self.number(p, &member(path, "percent"), Dec::ZERO, true, Dec::from_units(100)));
        let mut items = None;
        if let Some(i) = m.get("items") {
            let ip = member(path, "items");
            if let Some(list) = self.array(i, &ip, 1, None) {
                let mut out = Vec::with_capacity(list.len());
                for (j, x) in list.iter().enumerate() {
                    if let Some(s) = self.string(x, &element(&ip, j), 0, None) {
                        out.push(s);
                    }
                }
                items = Some(out);
            }
        }
        if self.errors.len() != before {
            return None;
        }
        Some(Discount { percent: percent?, items })
    }

    fn record(&mut self, v: &Value, path: &str) -> Option<Record> {
        let m = self.object(v, path, &["subject", "effects", "facts", "receipts"])?;
        let before = self.errors.len();
        let mut r = Record::default();
        if let Some(s) = m.get("subject") {
            r.subject = self.string(s, &member(path, "subject"), 1, Some(200));
        }
        if let Some(e) = m.get("effects") {
            let ep = member(path, "effects");
            if let Some(list) = self.array(e, &ep, 0, Some(100)) {
                for (i, x) in list.iter().enumerate() {
                    let xp = element(&ep, i);
                    if let Some(em) = self.object(x, &xp, &["operation", "status"]) {
                        let operation =
                            em.get("operation").and_then(|o| self.string(o, &member(&xp, "operation"), 0, None));
                        let status = em.get("status").and_then(|s| self.string(s, &member(&xp, "status"), 0, None));
                        r.effects.push(Effect::new(operation, status));
                    }
                }
            }
        }
        if let Some(f) = m.get("facts") {
            let fp = member(path, "facts");
            if let Some(list) = self.array(f, &fp, 0, Some(20)) {
                for (i, x) in list.iter().enumerate() {
                    if let Some(fact) = self.fact(x, &element(&fp, i)) {
                        r.facts.push(fact);
                    }
                }
            }
        }
        if let Some(rc) = m.get("receipts") {
            let rp = member(path, "receipts");
            if let Some(list) = self.array(rc, &rp, 0, None) {
                for (i, x) in list.iter().enumerate() {
                    if let Some(s) = self.string(x, &element(&rp, i), 0, None) {
                        r.receipts.push(s);
                    }
                }
            }
        }
        (self.errors.len() == before).then_some(r)
    }

    fn fact(&mut self, v: &Value, path: &str) -> Option<Fact> {
        let m = self.object(v, path, &["near", "kind", "value"])?;
        let before = self.errors.len();
        let near = self.required(m, path, "near").and_then(|n| self.string(n, &member(path, "near"), 1, Some(80)));
        let kind = self.required(m, path, "kind").and_then(|k| {
            self.enumeration(
                k,
                &member(path, "kind"),
                &[("time", FactKind::Time), ("money", FactKind::Money), ("date", FactKind::Date)],
            )
        });
        let vp = member(path, "value");
        let value = self.required(m, path, "value").and_then(|v| match v {
            Value::String(_) => self.string(v, &vp, 1, Some(40)).map(FactInput::Text),
            Value::Number(n) => Some(FactInput::Number(n.clone())),
            _ => {
                self.err(ErrorCode::InvalidType, &vp, format!("expected a string or a number, got {}", type_name(v)));
                None
            }
        });
        if self.errors.len() != before {
            return None;
        }
        Some(Fact { near: near?, kind: kind?, value: value? })
    }

    fn cases(&mut self, v: &Value, path: &str) -> Option<Vec<Case>> {
        let list = self.array(v, path, 1, Some(50))?;
        let before = self.errors.len();
        let mut out = Vec::with_capacity(list.len());
        for (i, x) in list.iter().enumerate() {
            if let Some(case) = self.case(x, &element(path, i)) {
                out.push(case);
            }
        }
        (self.errors.len() == before).then_some(out)
    }

    /// One case `{id?, reply, record?}` at `cp`.
    fn case(&mut self, x: &Value, cp: &str) -> Option<Case> {
        let m = self.object(x, cp, &["id", "reply", "record"])?;
        let id = m.get("id").and_then(|s| self.string(s, &member(cp, "id"), 0, Some(60)));
        let reply =
            self.required(m, cp, "reply").and_then(|r| self.string(r, &member(cp, "reply"), 0, Some(MAX_REPLY)));
        let record = m.get("record").and_then(|r| self.record(r, &member(cp, "record")));
        reply.map(|reply| Case { id, reply, record })
    }
}
