//! Policy lint (`validate_policy`, DESIGN §4): the schema errors of a policy, all of them and in schema order, then
//! warnings with stable codes for things that are valid but probably wrong. The "never fires" warnings are found by
//! probing each rule with synthesized replies through the shipped checker ([`CompiledPolicy::check`]), not by
//! re-deriving the checker's rules. Nothing is stored. A valid policy is not a complete one, and lint grants no
//! authority. Every warning is documented in docs/LINT.md; the codes are listed in `vectors/warnings.json`.

use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::check::CompiledPolicy;
use crate::check::text;
use crate::decimal::{Dec, MAX_UNITS, SCALE};
use crate::error::{Error, ErrorCode};
use crate::pointer::member;
use crate::policy::{self, CheckerVersion, Policy};

/// Stable warning codes. Never renamed or reused; new ones are appended (and added to `vectors/warnings.json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WarningCode {
    /// The policy sets none of `prices`, `forbid` or `actions`.
    NoRules,
    /// A price item with neither `amount` nor `amounts`: it ties no amount, so its prices are never checked.
    ItemWithoutAmount,
    /// An approved price with a fraction of a cent (`49.999`).
    PriceNotInCents,
    /// A name (item or alias) that also names an earlier price item.
    DuplicateItemName,
    /// A name that contains another item's name as whole words ("Pro Annual" and "Pro").
    OverlappingItemNames,
    /// Two forbid rules with the same `id`.
    DuplicateForbidId,
    /// A forbidden phrase listed twice, in one rule or across rules.
    DuplicatePhrase,
    /// A discount's `items` entry that names no price item or alias.
    DiscountUnknownItem,
    /// A phrase, item name or action verb on which a probe through the shipped checker found nothing.
    RuleNeverFires,
}

impl WarningCode {
    /// Every code, in the order of `vectors/warnings.json`.
    pub const ALL: [WarningCode; 9] = [
        WarningCode::NoRules,
        WarningCode::ItemWithoutAmount,
        WarningCode::PriceNotInCents,
        WarningCode::DuplicateItemName,
        WarningCode::OverlappingItemNames,
        WarningCode::DuplicateForbidId,
        WarningCode::DuplicatePhrase,
        WarningCode::DiscountUnknownItem,
        WarningCode::RuleNeverFires,
    ];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            WarningCode::NoRules => "no_rules",
            WarningCode::ItemWithoutAmount => "item_without_amount",
            WarningCode::PriceNotInCents => "price_not_in_cents",
            WarningCode::DuplicateItemName => "duplicate_item_name",
            WarningCode::OverlappingItemNames => "overlapping_item_names",
            WarningCode::DuplicateForbidId => "duplicate_forbid_id",
            WarningCode::DuplicatePhrase => "duplicate_phrase",
            WarningCode::DiscountUnknownItem => "discount_unknown_item",
            WarningCode::RuleNeverFires => "rule_never_fires",
        }
    }
}

crate::error::display_wire_name!(WarningCode);

impl Serialize for WarningCode {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// One warning: stable code, a sentence for people, and the JSON pointer of what it is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    pub code: WarningCode,
    pub message: String,
    pub path: String,
}

/// `{valid, errors, warnings}`. `valid` is true exactly when `errors` is empty; warnings never make a policy invalid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LintReport {
    pub valid: bool,
    /// Every schema error, in schema order (the Check API reports only the first).
    pub errors: Vec<Error>,
    /// Warnings, in the policy's order (docs/LINT.md). Empty when there are errors: a policy with errors cannot be
    /// compiled, so it cannot be probed.
    pub warnings: Vec<Warning>,
}

#[derive(Serialize)]
struct WireError<'a> {
    code: &'static str,
    message: &'a str,
    path: &'a str,
}

#[derive(Serialize)]
struct WireReport<'a> {
    valid: bool,
    errors: Vec<WireError<'a>>,
    warnings: &'a [Warning],
}

impl Serialize for LintReport {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        WireReport {
            valid: self.valid,
            errors: self
                .errors
                .iter()
                .map(|e| WireError { code: e.code.as_str(), message: &e.message, path: &e.path })
                .collect(),
            warnings: &self.warnings,
        }
        .serialize(s)
    }
}

impl LintReport {
    /// Compact JSON: `{"valid":…,"errors":[{code,message,path}],"warnings":[{code,message,path}]}`. The same policy
    /// always gives the same bytes.
    pub fn to_json_string(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|e| {
            format!("{{\"error\":{{\"code\":\"internal\",\"message\":{:?},\"path\":\"\"}}}}", e.to_string())
        })
    }

    /// The report as a JSON value.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// Lints a policy document (the value of a request's `policy`). Paths are JSON pointers into that document.
pub fn validate_policy(policy: &Value) -> LintReport {
    validate_policy_at(policy, "")
}

/// Lints a policy found at JSON pointer `base` of a larger document; every path starts with `base`.
pub fn validate_policy_at(policy: &Value, base: &str) -> LintReport {
    let (parsed, errors) = policy::validate_policy_value(policy, base);
    let warnings = match parsed {
        Some(p) if errors.is_empty() => warnings(&p, policy, base),
        _ => Vec::new(),
    };
    LintReport { valid: errors.is_empty(), errors, warnings }
}

/// Lints the `validate_policy` tool's arguments, `{"policy": {...}}` (seed 000's input schema: `policy` required, no
/// other member). Paths start with `/policy`.
pub fn validate_policy_arguments(args: &Value) -> LintReport {
    let Value::Object(m) = args else {
        let e = Error::new(ErrorCode::InvalidType, "", "expected an object with a 'policy' member");
        return LintReport { valid: false, errors: vec![e], warnings: Vec::new() };
    };
    let mut errors: Vec<Error> = m
        .keys()
        .filter(|k| k.as_str() != "policy")
        .map(|k| {
            let message = format!("unknown member '{}' (allowed: policy)", crate::error::excerpt(k));
            Error::new(ErrorCode::UnknownField, member("", k), message)
        })
        .collect();
    let Some(policy) = m.get("policy") else {
        errors.push(Error::new(ErrorCode::MissingField, "/policy", "'policy' is required"));
        return LintReport { valid: false, errors, warnings: Vec::new() };
    };
    let mut report = validate_policy_at(policy, "/policy");
    if !errors.is_empty() {
        errors.append(&mut report.errors);
        return LintReport { valid: false, errors, warnings: Vec::new() };
    }
    report
}

/// A name that can tie an amount to a price item: its `item` or one of its `aliases`.
#[derive(Debug)]
struct Name<'p> {
    item: usize,
    path: String,
    text: &'p str,
    words: Vec<String>,
}

struct Lint<'p> {
    policy: &'p Policy,
    raw: &'p Value,
    base: String,
    compiled: CompiledPolicy,
    out: Vec<Warning>,
}

impl Lint<'_> {
    fn warn(&mut self, code: WarningCode, path: String, message: String) {
        self.out.push(Warning { code, message, path });
    }

    fn path(&self, rest: &str) -> String {
        format!("{}{rest}", self.base)
    }
}

fn quoted(s: &str) -> String {
    format!("{:?}", crate::error::excerpt(s))
}

/// `$5.00`, `$1,299.50`: dollars and cents, as a reply would state a rounded price.
fn with_cents(d: Dec) -> String {
    let s = d.dollars();
    if s.contains('.') { s } else { format!("{s}.00") }
}

fn warnings(p: &Policy, raw: &Value, base: &str) -> Vec<Warning> {
    let mut l =
        Lint { policy: p, raw, base: base.to_owned(), compiled: CompiledPolicy::new(p.clone()), out: Vec::new() };
    if p.prices.is_empty() && p.forbid.is_empty() && p.actions.is_empty() {
        let message = if p.discounts.is_empty() {
            "The policy sets none of prices, forbid or actions, so no rule can fire: every reply passes."
        } else {
            "The policy sets none of prices, forbid or actions: only a discount claim can fail a reply."
        };
        let path = l.path("");
        l.warn(WarningCode::NoRules, path, message.to_owned());
    }
    prices(&mut l);
    forbid(&mut l);
    actions(&mut l);
    discounts(&mut l);
    l.out
}

/// Whether `needle` occurs in `hay` as consecutive words.
fn contains_words(hay: &[String], needle: &[String]) -> bool {
    !needle.is_empty() && needle.len() <= hay.len() && hay.windows(needle.len()).any(|w| w == needle)
}

fn prices(l: &mut Lint<'_>) {
    let p = l.policy;
    let raw_prices = l.raw.get("prices").and_then(Value::as_array);
    // Names of the items that tie amounts (items without amounts are not matched by the checker at all).
    let mut names: Vec<Name<'_>> = Vec::new();
    for (i, item) in p.prices.iter().enumerate() {
        if item.amounts.is_empty() {
            continue;
        }
        names.push(Name {
            item: i,
            path: l.path(&format!("/prices/{i}/item")),
            text: &item.item,
            words: text::phrase_words(&item.item),
        });
        for (k, a) in item.aliases.iter().enumerate() {
            names.push(Name {
                item: i,
                path: l.path(&format!("/prices/{i}/aliases/{k}")),
                text: a,
                words: text::phrase_words(a),
            });
        }
    }
    let probe = PriceProbe::new(p);
    for (i, item) in p.prices.iter().enumerate() {
        let raw_item = raw_prices.and_then(|a| a.get(i));
        if item.amounts.is_empty() {
            let path = l.path(&format!("/prices/{i}"));
            let message = format!(
                "{} has neither amount nor amounts: it ties no amount to anything, so no price of it is ever checked.",
                quoted(&item.item)
            );
            l.warn(WarningCode::ItemWithoutAmount, path, message);
            continue;
        }
        let single = raw_item.is_some_and(|v| v.get("amount").is_some());
        for (k, a) in item.amounts.iter().enumerate() {
            if a.is_whole_cents() {
                continue;
            }
            let path = if single {
                l.path(&format!("/prices/{i}/amount"))
            } else {
                l.path(&format!("/prices/{i}/amounts/{k}"))
            };
            let message = format!(
                "{} approves {}, which is not a whole number of cents: a reply that states it in dollars and cents \
                 (such as {}) is a price:mismatch.",
                quoted(&item.item),
                a.dollars(),
                with_cents(a.round_cents())
            );
            l.warn(WarningCode::PriceNotInCents, path, message);
        }
        // This item's policy for the second probe, compiled once and only if a name needs it.
        let mut alone: Option<CompiledPolicy> = None;
        for (n_idx, n) in names.iter().enumerate().filter(|(_, n)| n.item == i) {
            // Shared with an earlier item: the checker ties the name to the first item that has it.
            if let Some(prev) =
                names[..n_idx].iter().find(|m| m.item != n.item && !n.words.is_empty() && m.words == n.words)
            {
                let message = format!(
                    "{} also names {} ({}): the checker ties it to the first item with that name, {}, so it never \
                     names {}.",
                    quoted(n.text),
                    quoted(&p.prices[prev.item].item),
                    prev.path,
                    quoted(&p.prices[prev.item].item),
                    quoted(&item.item)
                );
                l.warn(WarningCode::DuplicateItemName, n.path.clone(), message);
            }
            // Contains a shorter name of another item.
            let mut seen: Vec<(usize, &[String])> = Vec::new();
            for m in &names {
                if m.item == n.item
                    || m.words.len() >= n.words.len()
                    || !contains_words(&n.words, &m.words)
                    || seen.contains(&(m.item, m.words.as_slice()))
                {
                    continue;
                }
                seen.push((m.item, m.words.as_slice()));
                let (other, longer, shorter) = (quoted(&p.prices[m.item].item), quoted(n.text), quoted(m.text));
                let message = format!(
                    "{longer} contains {shorter}, a name of the item {other} ({}). The checker takes the longest \
                     name: {longer} in a reply ties its amount to {}, {shorter} alone to {other}, so a reply that \
                     shortens {longer} to {shorter} is judged against the prices of {other}.",
                    m.path,
                    quoted(&item.item),
                );
                l.warn(WarningCode::OverlappingItemNames, n.path.clone(), message);
            }
            if let Some(message) = probe.name_never_fires(l, n, &mut alone) {
                l.warn(WarningCode::RuleNeverFires, n.path.clone(), message);
            }
        }
    }
}

/// Probes item names: "NAME is $S." where `S` is above every approved amount (and every discounted one), so it is
/// approved by no item. Through the policy as written it must be a `price:mismatch` at `$S` (the name ties the
/// amount to some item); through the same policy with this item's amounts replaced by `[S]` it must pass at `$S`
/// (the name ties it to this item, not another).
struct PriceProbe {
    /// `S`, or `None` when approved amounts are too close to the largest readable amount to probe above them.
    sentinel: Option<Dec>,
}

impl PriceProbe {
    fn new(p: &Policy) -> PriceProbe {
        let max = p.prices.iter().flat_map(|i| i.amounts.iter()).max().copied().unwrap_or(Dec::ZERO);
        // Whole dollars, two above the largest amount: a discount can round an amount up by at most a cent.
        let units = max.0 / SCALE + 2;
        PriceProbe { sentinel: if units < MAX_UNITS { Dec::from_units(units) } else { None } }
    }

    fn name_never_fires(&self, l: &Lint<'_>, n: &Name<'_>, alone: &mut Option<CompiledPolicy>) -> Option<String> {
        let s = self.sentinel?;
        let item = &l.policy.prices[n.item].item;
        // The name as words, so its own punctuation (which the checker never compares) cannot end the sentence.
        let said = n.words.join(" ");
        let reply = format!("{said} is ${}.", s.plain());
        let at = (said.len() + 4, reply.len() - 1);
        let mismatch_at = |findings: &[crate::check::Finding]| {
            findings.iter().any(|f| f.rule == "price:mismatch" && (f.start, f.end) == at)
        };
        let any_at = |findings: &[crate::check::Finding]| {
            findings.iter().any(|f| f.rule.starts_with("price:") && (f.start, f.end) == at)
        };
        let found = l.compiled.check(&reply, None, CheckerVersion::CURRENT);
        if !mismatch_at(&found) {
            let why = if n.words.is_empty() {
                "it has no letters or digits, so no reply can contain it".to_owned()
            } else {
                format!("the probe {} tied no amount to any item", quoted(&reply))
            };
            return Some(format!("{} never ties an amount to {}: {why}.", quoted(n.text), quoted(item)));
        }
        let alone = alone.get_or_insert_with(|| {
            let mut p = l.policy.clone();
            p.prices[n.item].amounts = vec![s];
            CompiledPolicy::new(p)
        });
        let found = alone.check(&reply, None, CheckerVersion::CURRENT);
        if any_at(&found) {
            return Some(format!(
                "{} never ties an amount to {}: the probe {} ties it to another price item, which wins where both \
                 names match.",
                quoted(n.text),
                quoted(item),
                quoted(&reply)
            ));
        }
        None
    }
}

fn forbid(l: &mut Lint<'_>) {
    let p = l.policy;
    let all: Vec<Vec<Vec<String>>> =
        p.forbid.iter().map(|f| f.phrases.iter().map(|x| text::phrase_words(x)).collect()).collect();
    for (r, rule) in p.forbid.iter().enumerate() {
        if let Some(first) = p.forbid[..r].iter().position(|f| f.id == rule.id) {
            let path = l.path(&format!("/forbid/{r}/id"));
            let message = format!(
                "forbid id {} is also the id of {}: both rules report forbid:{}, so their findings cannot be told \
                 apart.",
                quoted(&rule.id),
                l.path(&format!("/forbid/{first}")),
                rule.id
            );
            l.warn(WarningCode::DuplicateForbidId, path, message);
        }
        for (k, phrase) in rule.phrases.iter().enumerate() {
            let words = &all[r][k];
            let path = l.path(&format!("/forbid/{r}/phrases/{k}"));
            if !words.is_empty() {
                let earlier = all[..=r].iter().enumerate().find_map(|(r2, f)| {
                    let end = if r2 == r { k } else { f.len() };
                    f[..end].iter().position(|x| x == words).map(|k2| (r2, k2))
                });
                if let Some((r2, k2)) = earlier {
                    let other = l.path(&format!("/forbid/{r2}/phrases/{k2}"));
                    let message = if r2 == r {
                        format!(
                            "{} repeats {} ({other}) of the same rule: phrases are compared as words, without case \
                             or punctuation, so the copy adds nothing.",
                            quoted(phrase),
                            quoted(&p.forbid[r2].phrases[k2])
                        )
                    } else {
                        format!(
                            "{} is also a phrase of forbid:{} ({other}): phrases are compared as words, without case \
                             or punctuation, so one use of it is reported under both rules.",
                            quoted(phrase),
                            p.forbid[r2].id
                        )
                    };
                    l.warn(WarningCode::DuplicatePhrase, path.clone(), message);
                }
            }
            if let Some(message) = phrase_never_fires(l, r, phrase, words) {
                l.warn(WarningCode::RuleNeverFires, path, message);
            }
        }
    }
}

/// Probes a forbidden phrase: its words alone, and "We WORDS.", must each give a `forbid:<id>` finding exactly over
/// the words; it never fires when neither does.
fn phrase_never_fires(l: &Lint<'_>, r: usize, phrase: &str, words: &[String]) -> Option<String> {
    let rule = &l.policy.forbid[r];
    let id = format!("forbid:{}", rule.id);
    let said = words.join(" ");
    for (reply, start) in [(said.clone(), 0), (format!("We {said}."), 3)] {
        let at = (start, start + said.len());
        let found = l.compiled.check(&reply, None, CheckerVersion::CURRENT);
        if !said.is_empty() && found.iter().any(|f| f.rule == id && (f.start, f.end) == at) {
            return None;
        }
    }
    let why = if words.is_empty() {
        "it has no letters or digits, so there is nothing to match".to_owned()
    } else {
        format!("probed with {} and {}, the checker found nothing", quoted(&said), quoted(&format!("We {said}.")))
    };
    Some(format!("{} never fires {id}: {why}.", quoted(phrase)))
}

/// Probes each action verb: "I have VERB it." with no record must be an `action:unrecorded` finding at the verb.
fn actions(l: &mut Lint<'_>) {
    for (verb, op) in &l.policy.actions {
        let reply = format!("I have {verb} it.");
        let at = (7, 7 + verb.len());
        let found = l.compiled.check(&reply, None, CheckerVersion::CURRENT);
        if !found.iter().any(|f| f.rule == "action:unrecorded" && (f.start, f.end) == at) {
            let path = l.path(&format!("/actions/{verb}"));
            let message = format!(
                "{} never fires action:unrecorded: the probe {} with no {op} in the record gave no finding at the \
                 verb.",
                quoted(verb),
                quoted(&reply)
            );
            l.out.push(Warning { code: WarningCode::RuleNeverFires, message, path });
        }
    }
}

fn discounts(l: &mut Lint<'_>) {
    let p = l.policy;
    // Item lookups exactly as the checker compiles them: case-folded, trimmed, whole name or alias.
    let known: Vec<String> = p
        .prices
        .iter()
        .flat_map(|i| std::iter::once(&i.item).chain(&i.aliases))
        .map(|n| text::fold(n.trim()))
        .collect();
    for (d, disc) in p.discounts.iter().enumerate() {
        let Some(items) = &disc.items else {
            continue;
        };
        for (j, name) in items.iter().enumerate() {
            if known.contains(&text::fold(name.trim())) {
                continue;
            }
            let path = l.path(&format!("/discounts/{d}/items/{j}"));
            let message = format!(
                "{} names no price item or alias, so this discount is approved for no item through it.",
                quoted(name)
            );
            l.warn(WarningCode::DiscountUnknownItem, path, message);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codes(r: &LintReport) -> Vec<(&'static str, &str)> {
        r.warnings.iter().map(|w| (w.code.as_str(), w.path.as_str())).collect()
    }

    #[test]
    fn report_json_shape_and_member_order() {
        let r = validate_policy(&json!({"prices": [{"item": "Pro", "amount": 49, "amounts": [49]}]}));
        let s = r.to_json_string();
        assert!(s.starts_with(r#"{"valid":false,"errors":[{"code":"conflicting_fields","message":"#), "{s}");
        assert!(s.ends_with(r#""path":"/prices/0/amounts"}],"warnings":[]}"#), "{s}");
    }

    #[test]
    fn arguments_form_prefixes_paths_and_refuses_other_members() {
        let r = validate_policy_arguments(&json!({"policy": {"forbid": [{"id": "x", "phrases": ["!!!"]}]}}));
        assert!(r.valid);
        assert_eq!(codes(&r), [("rule_never_fires", "/policy/forbid/0/phrases/0")]);
        let r = validate_policy_arguments(&json!({"policy": {}, "extra": 1}));
        assert!(!r.valid);
        assert_eq!(r.errors[0].path, "/extra");
        let r = validate_policy_arguments(&json!({}));
        assert_eq!(r.errors[0].code, ErrorCode::MissingField);
    }

    #[test]
    fn warning_codes_are_unique_snake_case() {
        let mut seen = std::collections::HashSet::new();
        for c in WarningCode::ALL {
            assert!(c.as_str().bytes().all(|b| b.is_ascii_lowercase() || b == b'_'), "{c}");
            assert!(seen.insert(c.as_str()), "duplicate {c}");
        }
    }

    #[test]
    fn shared_alias_is_probed_to_the_first_item() {
        let r = validate_policy(&json!({"prices": [
            {"item": "Pro", "amount": 49},
            {"item": "Pro Annual", "amount": 490, "aliases": ["pro"]}
        ]}));
        assert_eq!(
            codes(&r),
            [
                ("overlapping_item_names", "/prices/1/item"),
                ("duplicate_item_name", "/prices/1/aliases/0"),
                ("rule_never_fires", "/prices/1/aliases/0"),
            ]
        );
    }
}
