//! The reply checker: a policy compiles once into a `CompiledPolicy`, which checks replies from many threads.
//! Rules live in `rules.rs`; text, money, dates, phrases and discounts each have their own module.

pub(crate) mod datetime;
pub(crate) mod discount;
pub(crate) mod money;
pub(crate) mod phrase;
pub mod receipts;
pub mod record;
mod role;
mod rules;
pub mod span;
pub(crate) mod text;
mod words;

use std::sync::Arc;

use crate::decimal::Dec;
use crate::policy::{MatchMode, Policy, Reading};
use phrase::{Matcher, Mode, Phrase};
pub(crate) use receipts::ReceiptRun;
pub use receipts::{Clock, ReceiptVerifier};
pub use record::{CompiledCase, CompiledFact, CompiledRecord, FactValue};

/// One finding: which rule fired, where (byte offsets into the reply), the text there, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Stable rule id: `price:mismatch`, `forbid:<id>`, …
    pub rule: String,
    /// Byte offsets `[start, end)` into the reply (see `span` for UTF-16 and code points).
    pub start: usize,
    pub end: usize,
    /// `reply[start..end]`.
    pub text: String,
    /// Names the approved value where there is one: "Starter is $49, not $99."
    pub why: String,
}

/// What a matcher entry stands for.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Target {
    Forbid { rule: usize },
    Item { item: usize },
    Action { action: usize },
}

/// A price item, ready to compare.
#[derive(Debug)]
pub(crate) struct Item {
    pub name: String,
    pub amounts: Vec<Dec>,
    /// Folded item name and aliases, for discount `items` lookups.
    pub names: Vec<String>,
    /// The approved amounts as a `why` writes them (`$49 or $490`), written once here rather than per finding.
    pub prices: String,
}

/// A forbid rule's finding texts, written once at compile time.
#[derive(Debug)]
pub(crate) struct CForbid {
    /// `forbid:<id>`.
    pub rule: String,
    pub why: Option<String>,
    pub negatable: bool,
}

/// An action verb's operation and the end of its `why` (`", but billing.cancel is not DONE in the record."`).
#[derive(Debug)]
pub(crate) struct CAction {
    pub op: String,
    pub why_tail: String,
}

/// A discount, with the items it applies to resolved (`None`: all items).
#[derive(Debug)]
pub(crate) struct CDiscount {
    pub percent: Dec,
    pub items: Option<Vec<usize>>,
}

/// A policy compiled for checking. Immutable, `Send + Sync`, cheap to share.
#[derive(Debug)]
pub struct CompiledPolicy {
    policy: Policy,
    pub(crate) matcher: Matcher,
    pub(crate) targets: Vec<Target>,
    pub(crate) items: Vec<Item>,
    pub(crate) discounts: Vec<CDiscount>,
    pub(crate) forbid: Vec<CForbid>,
    pub(crate) actions: Vec<CAction>,
    /// Trusted receipt keys, when the policy was compiled with them.
    receipts: Option<Arc<ReceiptVerifier>>,
}

/// Approved amounts as a `why` lists them: `$49`, `$49 or $490`, `$9, $49 or $490`.
fn price_list(amounts: &[Dec]) -> String {
    let list: Vec<String> = amounts.iter().map(|a| a.dollars()).collect();
    match list.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

impl CompiledPolicy {
    /// Compiles a validated policy.
    pub fn new(policy: Policy) -> CompiledPolicy {
        let endings =
            policy.forbid.iter().filter(|f| f.match_mode == MatchMode::Word).map(|f| f.phrases.len()).sum::<usize>();
        let exact = policy.prices.iter().map(|p| 1 + p.aliases.len()).sum::<usize>() + policy.actions.len();
        let mut matcher = Matcher::with_forms(12 * endings + 2 * exact);
        let mut targets = Vec::new();
        let mut add = |m: &mut Matcher, words: Vec<String>, mode: Mode, t: Target| {
            if m.add(Phrase { words, mode }).is_some() {
                targets.push(t);
            }
        };
        for (rule, f) in policy.forbid.iter().enumerate() {
            let mode = match f.match_mode {
                MatchMode::Word => Mode::Endings,
                MatchMode::Prefix => Mode::Prefix,
            };
            for p in &f.phrases {
                add(&mut matcher, text::phrase_words(p), mode, Target::Forbid { rule });
            }
        }
        let mut items = Vec::with_capacity(policy.prices.len());
        for (i, p) in policy.prices.iter().enumerate() {
            let mut names: Vec<String> = Vec::with_capacity(1 + p.aliases.len());
            for n in std::iter::once(&p.item).chain(&p.aliases) {
                let f = text::fold(n.trim());
                if !names.contains(&f) {
                    names.push(f);
                }
            }
            // Items with no approved amount cannot tie an amount to anything, so they are not matched.
            if !p.amounts.is_empty() {
                for n in std::iter::once(&p.item).chain(&p.aliases) {
                    add(&mut matcher, text::phrase_words(n), Mode::Exact, Target::Item { item: i });
                }
            }
            let prices = price_list(&p.amounts);
            items.push(Item { name: p.item.clone(), amounts: p.amounts.clone(), names, prices });
        }
        for (action, (verb, _)) in policy.actions.iter().enumerate() {
            add(&mut matcher, vec![verb.clone()], Mode::Exact, Target::Action { action });
        }
        let discounts = policy
            .discounts
            .iter()
            .map(|d| CDiscount {
                percent: d.percent,
                items: d.items.as_ref().map(|names| {
                    let folded: Vec<String> = names.iter().map(|n| text::fold(n.trim())).collect();
                    (0..items.len()).filter(|&i| items[i].names.iter().any(|n| folded.contains(n))).collect()
                }),
            })
            .collect();
        let forbid = policy
            .forbid
            .iter()
            .map(|f| CForbid { rule: format!("forbid:{}", f.id), why: f.why.clone(), negatable: f.negatable })
            .collect();
        let actions = policy
            .actions
            .iter()
            .map(|(_, op)| CAction { op: op.clone(), why_tail: format!("\", but {op} is not DONE in the record.") })
            .collect();
        CompiledPolicy { policy, matcher, targets, items, discounts, forbid, actions, receipts: None }
    }

    /// This policy checking claimed actions against signed receipts verified under `verifier`'s keys
    /// (docs/CHECKER.md §Receipts). One verifier may be shared by many policies; its cache is shared with it.
    pub fn with_receipts(mut self, verifier: Arc<ReceiptVerifier>) -> CompiledPolicy {
        self.receipts = Some(verifier);
        self
    }

    /// The receipt verifier this policy was compiled with.
    pub fn receipts(&self) -> Option<&ReceiptVerifier> {
        self.receipts.as_deref()
    }

    /// The policy this was compiled from.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// Checks one reply against this policy and a caller-supplied record. Findings are sorted by span start, then
    /// rule; the same input always gives the same findings.
    /// Receipts in the record are not looked at here: `wire::check_one` checks them when the policy has a verifier.
    /// `reading` is a checker version's row of the reading table (a checker version converts into its row).
    pub fn check(
        &self,
        reply: &str,
        record: Option<&CompiledRecord>,
        reading: impl Into<&'static Reading>,
    ) -> Vec<Finding> {
        rules::check(self, reply, record, reading.into(), None, usize::MAX).map(|(f, _)| f).unwrap_or_default()
    }

    /// [`check`](Self::check) within an output budget: findings are counted as they are made (rule, text and why,
    /// plus 40 bytes each, a lower bound of their size in any response), and the check stops keeping them once
    /// `budget` bytes are spent: `None` then. `Some((findings, bytes of the budget left))` otherwise.
    pub fn check_within(
        &self,
        reply: &str,
        record: Option<&CompiledRecord>,
        reading: impl Into<&'static Reading>,
        budget: usize,
    ) -> Option<(Vec<Finding>, usize)> {
        rules::check(self, reply, record, reading.into(), None, budget.min(usize::MAX - 1))
    }

    /// [`check_within`](Self::check_within) with claimed actions judged by a request's receipts; `budget`
    /// `usize::MAX` is no bound.
    pub(crate) fn check_with(
        &self,
        reply: &str,
        record: Option<&CompiledRecord>,
        reading: &Reading,
        run: Option<&mut ReceiptRun<'_>>,
        budget: usize,
    ) -> Option<(Vec<Finding>, usize)> {
        rules::check(self, reply, record, reading, run, budget)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiled_policy_is_shareable() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<CompiledPolicy>();
    }
}
