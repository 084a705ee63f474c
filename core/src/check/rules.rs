//! The rules of DESIGN §3, run over one tokenized reply: facts first (they consume money amounts), then prices,
//! discounts, forbidden phrases and action claims. Each rule's decisions are written up in docs/CHECKER.md.

use super::discount::{self, ClaimKind};
use super::money::{self, Currency, Money};
use super::phrase::{self, Match, Mode};
use super::receipts::{self, Checked, Queue, ReceiptRun};
use super::record::{CompiledFact, CompiledRecord, FactValue};
use super::role;
use super::text::Text;
use super::words::{
    CHANGES, NO_LONGER_CUT, RESPECTIVELY, VALUE_FROM, VALUE_NEGATIVE_AUXILIARIES, VALUE_NOT, VALUE_REPLACED_CUT,
    VALUE_SPAN_WORDS, pair_ends,
};
use super::{CompiledPolicy, Finding, Target};
use crate::decimal::Dec;
use crate::policy::{Reading, UnknownAmounts, Verify};
use rustc_hash::FxHashMap;

/// An item named in the reply.
#[derive(Debug, Clone, Copy)]
struct Mention {
    first: usize,
    last: usize,
    item: usize,
}

struct Ctx<'a, 'p> {
    p: &'p CompiledPolicy,
    text: &'a Text<'a>,
    /// The reply as written, and (`formatter_spaces`, when such spaces or dashes were read as ASCII) the offset in it
    /// of each byte of `text.src`: findings' spans and texts are always the original's.
    orig: &'a str,
    map: Option<&'a [u32]>,
    reading: &'a Reading,
    mentions: Vec<Mention>,
    findings: Vec<Finding>,
    /// What is left of the caller's output budget, in bytes of findings ([`finding_size`]); once it is spent, no
    /// finding is kept and `over` is set (the caller answers `output_too_large`).
    left: usize,
    over: bool,
    /// Compactions (sort and dedup) run to recount a spent budget without repeats; bounded so work stays linear.
    compactions: u8,
    /// Where the last [`Ctx::split_at`] landed.
    hint: std::cell::Cell<usize>,
}

/// A lower bound of the bytes a finding takes in any response: its rule, text and why, plus the JSON around them.
pub(crate) fn finding_size(f: &Finding) -> usize {
    f.rule.len() + f.text.len() + f.why.len() + 40
}

impl<'a> Ctx<'a, '_> {
    fn push(&mut self, rule: &str, start: usize, end: usize, why: String) {
        if self.over {
            return;
        }
        let (start, end) = self.original(start, end);
        let text = self.orig[start..end].to_owned();
        let f = Finding { rule: rule.to_owned(), start, end, text, why };
        let size = finding_size(&f);
        self.findings.push(f);
        if size <= self.left {
            self.left -= size;
            return;
        }
        // Spent: repeats (one rule on one span) are dropped from the answer, so recount without them, a few times
        // at most; past that the output is over the budget.
        if self.left != usize::MAX && self.compactions < 4 {
            self.compactions += 1;
            let before: usize = self.findings.iter().map(finding_size).sum();
            sort_dedup(&mut self.findings);
            let after: usize = self.findings.iter().map(finding_size).sum();
            let budget = self.left.saturating_add(before - size);
            if after <= budget {
                self.left = budget - after;
                return;
            }
        }
        self.over = true;
        self.findings = Vec::new();
    }

    /// A span of `text.src` as offsets into the reply as written.
    fn original(&self, start: usize, end: usize) -> (usize, usize) {
        match self.map {
            Some(m) => (m[start] as usize, m[end] as usize),
            None => (start, end),
        }
    }

    /// The reply's text at a span of `text.src`, as written (for `why`).
    fn written(&self, start: usize, end: usize) -> &'a str {
        let (start, end) = self.original(start, end);
        let orig: &'a str = self.orig;
        &orig[start..end]
    }

    /// The item an amount or claim at token `tok` belongs to: named in the same sentence, in the same clause if
    /// any is, nearest first, and on a tie the one before it.
    ///
    /// Mentions are in reply order and never overlap, and sentences and clauses are numbered in reply order, so the
    /// nearest mention of any sentence or clause is next to where `tok` falls among them: at most three are looked
    /// at, found by binary search (linear time over a reply, however many amounts and names it has).
    fn associate(&self, tok: usize) -> Option<usize> {
        self.associate_span(tok, tok, tok)
    }

    /// [`Ctx::associate`] for an amount written in several words (`USD 1,299.00`, `one thousand dollars`), from
    /// token `first` to `last`, its number at `tok`: words before it are counted from its first word and words after
    /// it from its last, so its own words are never words between.
    fn associate_span(&self, first: usize, tok: usize, last: usize) -> Option<usize> {
        let toks = &self.text.toks;
        let t = toks[tok];
        let (first, last) = (first.min(tok), last.max(tok));
        let dist = |m: &Mention| {
            if m.last < tok { (first.saturating_sub(m.last), 0) } else { (m.first.saturating_sub(last), 1) }
        };
        let split = self.split_at(tok);
        let near = || self.mentions[split.saturating_sub(1)..(split + 2).min(self.mentions.len())].iter();
        let same_sentence = near().filter(|m| toks[m.first].sentence == t.sentence);
        let in_clause = same_sentence.clone().filter(|m| toks[m.first].clause == t.clause).min_by_key(|m| dist(m));
        in_clause.or_else(|| same_sentence.min_by_key(|m| dist(m))).map(|m| m.item)
    }

    /// How many mentions end before token `tok`: `mentions.partition_point(|m| m.last < tok)`, stepped to from the
    /// answer of the previous call (rules ask in reply order), so a long reply's lookups stay in cache; a far jump
    /// falls back to the binary search.
    fn split_at(&self, tok: usize) -> usize {
        let ms = &self.mentions;
        let mut k = self.hint.get().min(ms.len());
        for _ in 0..16 {
            if k < ms.len() && ms[k].last < tok {
                k += 1;
            } else if k > 0 && ms[k - 1].last >= tok {
                k -= 1;
            } else {
                self.hint.set(k);
                return k;
            }
        }
        let k = ms.partition_point(|m| m.last < tok);
        self.hint.set(k);
        k
    }

    /// Approved prices of item `i`, and the prices after any approved discount that applies to it
    /// (exactly, or rounded half-up to the cent).
    fn approved(&self, i: usize, amount: Dec) -> bool {
        let item = &self.p.items[i];
        item.amounts.iter().any(|&a| {
            a == amount
                || self.p.discounts.iter().filter(|d| d.items.as_ref().is_none_or(|l| l.contains(&i))).any(|d| {
                    a.after_discount(d.percent)
                        .is_some_and(|(exact, rounded)| exact == Some(amount) || rounded == amount)
                })
        })
    }

    fn approved_anywhere(&self, amount: Dec) -> bool {
        (0..self.p.items.len()).any(|i| self.approved(i, amount))
    }
}

/// The findings in answer order (span start, rule, end), each rule and span once.
fn sort_dedup(f: &mut Vec<Finding>) {
    f.sort_by(|a, b| a.start.cmp(&b.start).then_with(|| a.rule.cmp(&b.rule)).then(a.end.cmp(&b.end)));
    f.dedup_by(|b, a| a.rule == b.rule && a.start == b.start && a.end == b.end);
}

/// Runs every rule over one reply, keeping findings of at most `budget` bytes ([`finding_size`]): `None` once they
/// would take more (`usize::MAX`: no bound). `Some((findings, bytes left))` otherwise.
pub(super) fn check(
    p: &CompiledPolicy,
    reply: &str,
    record: Option<&CompiledRecord>,
    reading: &Reading,
    run: Option<&mut ReceiptRun<'_>>,
    budget: usize,
) -> Option<(Vec<Finding>, usize)> {
    let normalized = if reading.formatter_spaces { super::text::normalize(reply) } else { None };
    let orig = reply;
    let (reply, map) = match &normalized {
        Some((s, m)) => (s.as_str(), Some(m.as_slice())),
        None => (reply, None),
    };
    let text = Text::read(reply, reading);
    // Sized for a typical reply so the hot path does not regrow these (DESIGN §8).
    let mut matches: Vec<Match> = Vec::with_capacity(16);
    p.matcher.find_all(&text, &mut matches);
    let mut cx = Ctx {
        p,
        text: &text,
        orig,
        map,
        reading,
        mentions: Vec::with_capacity(8),
        findings: Vec::new(),
        left: budget,
        over: false,
        compactions: 0,
        hint: std::cell::Cell::new(0),
    };

    // Item mentions: the longest name wins where two overlap ("Pro Annual" over "Pro").
    let mut items: Vec<Mention> = matches
        .iter()
        .filter_map(|m| match p.targets[m.entry] {
            Target::Item { item } => Some(Mention { first: m.first, last: m.last, item }),
            _ => None,
        })
        .collect();
    // Matches come by first token: only the few that start at one token need ordering (linear, where sorting the
    // whole list was n log n of the reply).
    debug_assert!(items.is_sorted_by_key(|m| m.first));
    for run in items.chunk_by_mut(|a, b| a.first == b.first) {
        run.sort_by(|a, b| b.last.cmp(&a.last).then(a.item.cmp(&b.item)));
    }
    for m in items {
        if cx.mentions.last().is_none_or(|prev| m.first > prev.last) {
            cx.mentions.push(m);
        }
    }

    let money =
        if p.items.is_empty() && record.is_none_or(|r| r.facts.is_empty()) && p.discounts.is_empty() && run.is_none() {
            Vec::new()
        } else {
            money::find(reply, reading)
        };
    let mut consumed = vec![false; money.len()];
    // Amounts a fact took: never judged as prices, but still the amounts claims state. Facts are the caller's,
    // unverified, so they must not keep a claimed amount from its signed receipt (docs/CHECKER.md §Receipts).
    let mut by_facts = vec![false; money.len()];

    if let Some(r) = record {
        facts(&mut cx, &r.facts, &money, &mut by_facts);
    }

    let claims =
        if p.items.is_empty() && p.discounts.is_empty() { Vec::new() } else { discount::find(&text, &money, reading) };
    for c in &claims {
        if let ClaimKind::Dollars(mi) = c.kind {
            consumed[mi] = true;
        }
    }
    // Receipts judge claimed actions before prices, so that an amount a claim states is judged against its
    // receipt and not also as a price.
    let receipt_mode = run.is_some();
    if let Some(run) = run {
        receipt_claims(&mut cx, &matches, record, &money, &mut consumed, run);
    }
    if !p.items.is_empty() {
        for (c, f) in consumed.iter_mut().zip(&by_facts) {
            *c |= f;
        }
        prices(&mut cx, &money, &consumed);
    }
    discounts(&mut cx, &claims, &money);
    forbidden(&mut cx, &matches);
    if !receipt_mode {
        actions(&mut cx, &matches, record);
    }

    if cx.over {
        return None;
    }
    let mut f = cx.findings;
    sort_dedup(&mut f);
    // Repeats dropped here give their bytes back.
    let left =
        if budget == usize::MAX { budget } else { budget.saturating_sub(f.iter().map(finding_size).sum::<usize>()) };
    Some((f, left))
}

/// `price:mismatch`, `price:currency`, `price:unknown`.
fn prices(cx: &mut Ctx<'_, '_>, money: &[Money], consumed: &[bool]) {
    let text = cx.text;
    let respectively = if cx.reading.respectively { respectively(cx, money, consumed) } else { None };
    let quantities = if cx.reading.stated_totals { quantities(cx) } else { Vec::new() };
    let quantities = Totals::new(cx, &quantities);
    for (mi, m) in money.iter().enumerate() {
        if cx.over {
            return;
        }
        if consumed[mi] {
            continue;
        }
        let Some(tok) = text.tok_containing(m.digits) else {
            continue;
        };
        // `negated_and_bound_amounts`: a bound ("under $50") or a negated amount ("it's not $199") claims no price.
        if cx.reading.negated_and_bound_amounts
            && (role::comparative(text, m.start) || role::negated_amount(text, m.start, cx.reading))
        {
            continue;
        }
        // `past_question_price`: a question about the past asks what a price was, as it does for phrases, discounts
        // and actions ("Was Pro ever $99?", "Did we charge you $99 for Pro?").
        if cx.reading.past_question_price && role::past_question(text, text.toks[tok].sentence) {
            continue;
        }
        let stated = cx.written(m.start, m.end);
        let tied = match respectively.as_ref().and_then(|r| r[mi]) {
            Some(i) => Some(i),
            // `amount_words_not_between`: an amount's own words are not words between it and an item after it.
            None if cx.reading.amount_words_not_between => {
                // The amount's first word is the first that ends after its start (`$` is no word).
                let first =
                    text.tok_containing(m.start).map_or(0, |k| if text.toks[k].end > m.start { k } else { k + 1 });
                let last = text.tok_containing(m.end.saturating_sub(1)).unwrap_or(tok);
                cx.associate_span(first, tok, last)
            }
            None => cx.associate(tok),
        };
        match (tied, m.currency) {
            (Some(i), Currency::Other(code)) => {
                let item = &cx.p.items[i];
                let why = format!("{} is {} in USD, not {stated} ({code}).", item.name, item.prices);
                cx.push("price:currency", m.start, m.end, why);
            }
            (Some(i), Currency::Usd) => {
                if !m.amount.is_some_and(|a| cx.approved(i, a) || is_total(cx, &quantities, tok, Some(i), a)) {
                    let item = &cx.p.items[i];
                    let why = format!("{} is {}, not {stated}.", item.name, item.prices);
                    cx.push("price:mismatch", m.start, m.end, why);
                }
            }
            (None, cur) => {
                if cx.p.policy().unknown_amounts == UnknownAmounts::Allow {
                    continue;
                }
                match cur {
                    Currency::Usd if m.amount.is_some_and(|a| cx.approved_anywhere(a)) => {}
                    Currency::Usd if m.amount.is_some_and(|a| is_total(cx, &quantities, tok, None, a)) => {}
                    Currency::Usd => {
                        cx.push("price:unknown", m.start, m.end, format!("{stated} is not an approved price."));
                    }
                    Currency::Other(code) => {
                        let why = format!("{stated} ({code}) is not an approved price; approved prices are in USD.");
                        cx.push("price:unknown", m.start, m.end, why);
                    }
                }
            }
        }
    }
}

/// A count stated right before an item's name: (sentence, count, item) — "3 seats", "two Pro licences".
struct Quantity {
    sentence: u32,
    count: i128,
    item: usize,
}

/// `stated_totals`: every count stated right before an item's name, in reply order.
fn quantities(cx: &Ctx<'_, '_>) -> Vec<Quantity> {
    let text = cx.text;
    cx.mentions
        .iter()
        .filter_map(|m| {
            let k = m.first.checked_sub(1)?;
            let (t, w) = (text.toks[k], text.word_at(k));
            // "$3 seats" is an amount and "1.3 seats" a decimal, not counts.
            let money_sign = t.start > 0 && matches!(text.src.as_bytes()[t.start - 1], b'$' | b'.');
            let count = if w.len() <= 4 && w.bytes().all(|c| c.is_ascii_digit()) {
                w.parse::<i128>().ok()
            } else {
                money::number_word(w).map(i128::from)
            }?;
            (count >= 2 && !money_sign && t.sentence == text.toks[m.first].sentence).then_some(Quantity {
                sentence: t.sentence,
                count,
                item: m.item,
            })
        })
        .collect()
}

/// `stated_totals`: the stated totals a reply's counts allow, per sentence: a count of an item times one of its
/// approved amounts, by item and for any item. Built once per reply, so each amount is looked up in constant time.
#[derive(Default)]
struct Totals {
    by_item: rustc_hash::FxHashSet<(u32, usize, Dec)>,
    any: rustc_hash::FxHashSet<(u32, Dec)>,
}

impl Totals {
    fn new(cx: &Ctx<'_, '_>, quantities: &[Quantity]) -> Totals {
        let mut t = Totals::default();
        for q in quantities {
            for a in &cx.p.items[q.item].amounts {
                if let Some(total) = a.checked_mul_int(q.count) {
                    t.by_item.insert((q.sentence, q.item, total));
                    t.any.insert((q.sentence, total));
                }
            }
        }
        t
    }
}

/// `stated_totals`: whether `amount` at token `tok` is a stated total: a count of an item in the same sentence times
/// one of its approved amounts ("3 seats at $149 come to $447"). `item`: the item the amount is tied to, if any.
fn is_total(cx: &Ctx<'_, '_>, totals: &Totals, tok: usize, item: Option<usize>, amount: Dec) -> bool {
    let sentence = cx.text.toks[tok].sentence;
    match item {
        Some(i) => totals.by_item.contains(&(sentence, i, amount)),
        None => totals.any.contains(&(sentence, amount)),
    }
}

/// `respectively`: "Starter and Pro are $49 and $149 respectively": in a sentence with `respectively`, the amounts are
/// tied to the items named before them in order, when there are as many of each. Indexed by money; `None` when no
/// sentence says `respectively`.
fn respectively(cx: &Ctx<'_, '_>, money: &[Money], consumed: &[bool]) -> Option<Vec<Option<usize>>> {
    let text = cx.text;
    let sentence_of = |m: &Money| text.tok_containing(m.digits).map_or(0, |t| text.toks[t].sentence);
    let mut out: Option<Vec<Option<usize>>> = None;
    let mut done = u32::MAX;
    // Sentences are met in reply order, and amounts and mentions are in reply order: three cursors that only move
    // forward find each sentence's run of them (linear time over the reply).
    let (mut from, mut to, mut lo) = (0usize, 0usize, 0usize);
    for (k, t) in text.toks.iter().enumerate() {
        if t.sentence == done || !RESPECTIVELY.contains(&text.word_at(k)) {
            continue;
        }
        done = t.sentence;
        while from < money.len() && sentence_of(&money[from]) < t.sentence {
            from += 1;
        }
        to = to.max(from);
        while to < money.len() && sentence_of(&money[to]) <= t.sentence {
            to += 1;
        }
        while lo < cx.mentions.len() && text.toks[cx.mentions[lo].first].sentence < t.sentence {
            lo += 1;
        }
        let amounts: Vec<usize> = (from..to).filter(|&mi| !consumed[mi]).collect();
        let Some(&first_amount) = amounts.first() else {
            continue;
        };
        let first_tok = text.tok_containing(money[first_amount].digits).unwrap_or(0);
        let items: Vec<usize> = cx.mentions[lo..].iter().take_while(|m| m.last < first_tok).map(|m| m.item).collect();
        if items.len() == amounts.len() && items.len() > 1 {
            let out = out.get_or_insert_with(|| vec![None; money.len()]);
            for (mi, item) in amounts.into_iter().zip(items) {
                out[mi] = Some(item);
            }
        }
    }
    out
}

/// `discount:unapproved`.
fn discounts(cx: &mut Ctx<'_, '_>, claims: &[discount::Claim], money: &[Money]) {
    for c in claims {
        if cx.over {
            return;
        }
        if (cx.reading.negated_and_bound_amounts && role::negated_amount(cx.text, c.start, cx.reading))
            || (cx.reading.quotes_and_past_questions && role::past_question(cx.text, cx.text.toks[c.tok].sentence))
        {
            continue;
        }
        let item = cx.associate(c.tok);
        let applies = |d: &super::CDiscount| match (&d.items, item) {
            (None, _) => true,
            (Some(list), Some(i)) => list.contains(&i),
            (Some(_), None) => true,
        };
        let ok = match c.kind {
            ClaimKind::Percent(p) => cx.p.discounts.iter().any(|d| d.percent == p && applies(d)),
            ClaimKind::Dollars(mi) => {
                let m = &money[mi];
                let candidates = match item {
                    Some(i) => i..i + 1,
                    None => 0..cx.p.items.len(),
                };
                m.currency == Currency::Usd
                    && m.amount.is_some_and(|x| {
                        cx.p.discounts.iter().any(|d| {
                            candidates.clone().any(|i| {
                                d.items.as_ref().is_none_or(|l| l.contains(&i))
                                    && cx.p.items[i].amounts.iter().any(|a| {
                                        a.percent_of(d.percent)
                                            .is_some_and(|(exact, rounded)| exact == Some(x) || rounded == x)
                                    })
                            })
                        })
                    })
            }
        };
        if !ok {
            let claim = cx.written(c.start, c.end);
            let why = match item {
                Some(i) => format!("\"{claim}\" is not an approved discount for {}.", cx.p.items[i].name),
                None => format!("\"{claim}\" is not an approved discount."),
            };
            cx.push("discount:unapproved", c.start, c.end, why);
        }
    }
}

/// `forbid:<id>`: every occurrence judged on its own; where one rule's phrases overlap, the earliest, longest match.
fn forbidden(cx: &mut Ctx<'_, '_>, matches: &[Match]) {
    let mut last_end: Vec<Option<usize>> = vec![None; cx.p.forbid.len()];
    let mut found: Vec<(usize, &Match)> = matches
        .iter()
        .filter_map(|m| match cx.p.targets[m.entry] {
            Target::Forbid { rule } => Some((rule, m)),
            _ => None,
        })
        .collect();
    // By first token already (matches' order): longest first within each token's few, as for item mentions.
    debug_assert!(found.is_sorted_by_key(|f| f.1.first));
    for run in found.chunk_by_mut(|a, b| a.1.first == b.1.first) {
        run.sort_by_key(|f| std::cmp::Reverse(f.1.last));
    }
    // Whether the words at a span are negated, and whether they are not the agent's, depend on the span alone: one
    // phrase held by many rules is read once per place, not once per rule (matches of one span are adjacent here).
    let mut span = (usize::MAX, usize::MAX);
    let (mut negated, mut not_agents): (Option<bool>, Option<bool>) = (None, None);
    for (rule, m) in found {
        // Past the caller's budget the answer is `output_too_large` whatever follows: the budget stops the work.
        if cx.over {
            return;
        }
        if last_end[rule].is_some_and(|e| m.first <= e) {
            continue;
        }
        let r = &cx.p.forbid[rule];
        if span != (m.first, m.last) {
            span = (m.first, m.last);
            (negated, not_agents) = (None, None);
        }
        if r.negatable && *negated.get_or_insert_with(|| phrase::negated(cx.text, m.first, m.last, cx.reading)) {
            continue;
        }
        // `quotes_and_past_questions`: quoted words are not the agent's, and a question about the past says nothing.
        if *not_agents.get_or_insert_with(|| {
            cx.reading.quotes_and_past_questions
                && (role::quoted(cx.text, m.first, m.last)
                    || role::past_question(cx.text, cx.text.toks[m.first].sentence))
        }) {
            continue;
        }
        last_end[rule] = Some(m.last);
        let (start, end) = (cx.text.toks[m.first].start, cx.text.toks[m.last].end);
        let why = r.why.clone().unwrap_or_else(|| format!("\"{}\" is a forbidden phrase.", cx.written(start, end)));
        cx.push(&r.rule, start, end, why);
    }
}

/// `action:unrecorded`: an affirmative past-tense claim whose operation is not DONE in the record.
fn actions(cx: &mut Ctx<'_, '_>, matches: &[Match], record: Option<&CompiledRecord>) {
    for m in matches {
        if cx.over {
            return;
        }
        let Target::Action { action } = cx.p.targets[m.entry] else {
            continue;
        };
        let a = &cx.p.actions[action];
        let done = record.is_some_and(|r| r.effects.iter().any(|e| e.done && e.operation.as_deref() == Some(&a.op)));
        if done || !phrase::affirmative_claim(cx.text, m.first, cx.reading) {
            continue;
        }
        let t = cx.text.toks[m.first];
        let written = cx.written(t.start, t.end);
        let mut why = String::with_capacity(8 + written.len() + a.why_tail.len());
        why.push_str("Claims \"");
        why.push_str(written);
        why.push_str(&a.why_tail);
        cx.push("action:unrecorded", t.start, t.end, why);
    }
}

/// A claimed action under receipt checking: the verb's token, its action, the amount it states, and the offered
/// receipt backing it.
struct Claim {
    tok: usize,
    action: usize,
    amount: Option<usize>,
    backing: Option<usize>,
}

/// `action:unverified` and `receipt:mismatch` (docs/CHECKER.md §Receipts): each affirmative claim is backed by at
/// most one receipt that counts, and each receipt backs at most one claim in a request. With `verify: "optional"`
/// a caller effect still backs a claim no receipt backs; with `"required"` only receipts do.
fn receipt_claims(
    cx: &mut Ctx<'_, '_>,
    matches: &[Match],
    record: Option<&CompiledRecord>,
    money: &[Money],
    consumed: &mut [bool],
    run: &mut ReceiptRun<'_>,
) {
    let text = cx.text;
    let mut claims: Vec<Claim> = Vec::new();
    for m in matches {
        let Target::Action { action } = cx.p.targets[m.entry] else {
            continue;
        };
        if phrase::affirmative_claim(text, m.first, cx.reading) {
            claims.push(Claim { tok: m.first, action, amount: None, backing: None });
        }
    }
    claims.sort_by_key(|c| c.tok);
    for k in 0..claims.len() {
        let next = claims.get(k + 1).map(|c| c.tok);
        claims[k].amount = claimed_amount(cx, claims[k].tok, next, money, consumed);
    }
    if claims.is_empty() {
        return;
    }
    let offered = receipts::offered(run, record.map_or(&[][..], |r| r.receipts.as_slice()));
    let subject = record.and_then(|r| r.subject.as_deref());
    let now = run.now;
    let mut taken = vec![false; offered.len()];
    // Queues of the offered receipts, built once: those that count for each claimed operation (and by the amount
    // they sign), those signed for each operation, those that could not be trusted, and all of them.
    let mut counting: FxHashMap<&str, Queue> = FxHashMap::default();
    let mut counting_by_amount: FxHashMap<(&str, (String, i64)), Queue> = FxHashMap::default();
    let mut by_op: FxHashMap<&str, Queue> = FxHashMap::default();
    let (mut unverified, mut any) = (Queue::default(), Queue::default());
    for (i, o) in offered.iter().enumerate() {
        any.push(i);
        let Some(r) = o.signed() else {
            unverified.push(i);
            continue;
        };
        by_op.entry(r.operation.as_str()).or_default().push(i);
        if receipts::does_not_count(r, &r.operation, subject, now).is_none() {
            counting.entry(r.operation.as_str()).or_default().push(i);
            if let Some(key) = receipts::signed_key(r) {
                counting_by_amount.entry((r.operation.as_str(), key)).or_default().push(i);
            }
        }
    }
    // First every claim takes a receipt that counts for it, the one signing the amount it states if there is one.
    for c in &mut claims {
        let op = cx.p.actions[c.action].op.as_str();
        let key = c.amount.and_then(|mi| receipts::stated_key(&money[mi]));
        let by_amount = key.and_then(|k| counting_by_amount.get_mut(&(op, k)).and_then(|q| q.pop(&taken)));
        if let Some(i) = by_amount.or_else(|| counting.get_mut(op).and_then(|q| q.pop(&taken))) {
            taken[i] = true;
            c.backing = Some(i);
        }
    }
    for c in &claims {
        let a = &cx.p.actions[c.action];
        let t = text.toks[c.tok];
        let written = cx.written(t.start, t.end);
        if let Some(i) = c.backing {
            let (Some(mi), Some(r)) = (c.amount, offered[i].signed()) else {
                continue;
            };
            consumed[mi] = true;
            if receipts::same_amount(r, &money[mi]) == Some(false) {
                let m = money[mi];
                let signed = receipts::signed_amount(r).unwrap_or_default();
                let why = format!("The signed receipt for {} is {signed}, not {}.", a.op, cx.written(m.start, m.end));
                cx.push("receipt:mismatch", m.start, m.end, why);
            }
            continue;
        }
        let effect_done = run.verify == Verify::Optional
            && record.is_some_and(|r| r.effects.iter().any(|e| e.done && e.operation.as_deref() == Some(&a.op)));
        // A receipt that does not count, offered for this claim: one for its operation first, then one whose
        // signature could not be trusted, then (when nothing else backs the claim) one for another operation.
        let mut offered_for = by_op.get_mut(a.op.as_str()).and_then(|q| q.pop(&taken));
        offered_for = offered_for.or_else(|| unverified.pop(&taken));
        if !effect_done {
            offered_for = offered_for.or_else(|| any.pop(&taken));
        }
        if let Some(i) = offered_for {
            taken[i] = true;
            let reason = match &*offered[i].checked {
                Checked::Refused(m) => m.clone(),
                Checked::Signed(r) => receipts::does_not_count(r, &a.op, subject, now).unwrap_or_default(),
            };
            let why = format!("Claims \"{written}\", but the receipt offered for it does not count: {reason}.");
            cx.push("receipt:mismatch", t.start, t.end, why);
        } else if effect_done {
        } else if run.verify == Verify::Required {
            let why = format!("Claims \"{written}\", but no signed receipt for {} backs it.", a.op);
            cx.push("action:unverified", t.start, t.end, why);
        } else {
            let why = format!("Claims \"{written}{}", a.why_tail);
            cx.push("action:unrecorded", t.start, t.end, why);
        }
    }
    for (o, _) in offered.iter().zip(&taken).filter(|(_, t)| **t) {
        run.used.insert(o.text.into());
    }
}

/// The amount a claim at token `tok` states: the first one after the verb in its clause ("refunded you $50"), else
/// the last one before it ("$50 was refunded"), else the first one after it in its sentence before the next claim
/// (`next`) that is not in a clause naming a price item ("refunded you — $500 in total", "refunded you, all $500
/// of it", but not "refunded you, and Pro is $49"). Bounds ("up to $50") and negated amounts ("not $500") state
/// none. Amounts are in reply order and each claim looks no further than the next one (linear over a reply).
fn claimed_amount(
    cx: &Ctx<'_, '_>,
    tok: usize,
    next: Option<usize>,
    money: &[Money],
    consumed: &[bool],
) -> Option<usize> {
    let text = cx.text;
    let t = text.toks[tok];
    let states = |mi: usize| {
        let m = &money[mi];
        !consumed[mi] && !role::comparative(text, m.start) && !role::negated_amount(text, m.start, cx.reading)
    };
    let clause_of = |mi: usize| text.tok_containing(money[mi].digits).map(|k| (k, text.toks[k].clause));
    let after = money.partition_point(|m| m.digits < t.end);
    for mi in after..money.len() {
        match clause_of(mi) {
            Some((k, c)) if c == t.clause && k > tok && states(mi) => return Some(mi),
            Some((_, c)) if c != t.clause => break,
            _ => {}
        }
    }
    for mi in (0..after).rev() {
        match clause_of(mi) {
            Some((k, c)) if c == t.clause && k < tok && states(mi) => return Some(mi),
            Some((_, c)) if c != t.clause => break,
            _ => {}
        }
    }
    // A clause with an item mention states that item's price, not the claim's amount.
    let names_item = |clause: u32| {
        let i = cx.mentions.partition_point(|m| text.toks[m.last].clause < clause);
        cx.mentions.get(i).is_some_and(|m| text.toks[m.first].clause == clause)
    };
    for (mi, m) in money.iter().enumerate().skip(after) {
        let Some(k) = text.tok_containing(m.digits) else {
            continue;
        };
        if text.toks[k].sentence != t.sentence || next.is_some_and(|n| k > n) {
            break;
        }
        if k > tok && states(mi) && !names_item(text.toks[k].clause) {
            return Some(mi);
        }
    }
    None
}

/// A value found in the reply for a fact.
struct Stated {
    start: usize,
    end: usize,
    tok: usize,
    /// `None`: a value that can never equal the record (an amount in another currency, or too large to read).
    value: Option<FactValue>,
    /// `twelve_hour_either`: the other reading of a twelve-hour time written without am/pm ("3:30" may be 15:30).
    alt: Option<FactValue>,
    money: Option<usize>,
    /// `span_end_no_value`: the end of a span ("from 3:30 PM to 4:30 PM", "3:30–4:30 PM") in a clause that does not
    /// change the value: not the fact's value. Marked once per list, from the value before it (`mark_span_ends`).
    span_end: bool,
}

/// `span_end_no_value`: marks each value right after *-, –, to, until, till, through* and the value before it in its
/// clause, in a clause with no word that changes a value; one pass over the (position-ordered) list.
fn mark_span_ends(text: &Text<'_>, mut list: Vec<Stated>, on: bool) -> Vec<Stated> {
    if !on {
        return list;
    }
    for i in 1..list.len() {
        let (p, s) = (&list[i - 1], &list[i]);
        let between = text.src[p.end..s.start].trim();
        let connector = matches!(between, "-" | "\u{2013}") || VALUE_SPAN_WORDS.contains(&between);
        let span_end = p.end <= s.start
            && text.toks[p.tok].clause == text.toks[s.tok].clause
            && connector
            && !change_before(text, s.tok);
        list[i].span_end = span_end;
    }
    list
}

/// `fact:mismatch`: for each place the fact's words appear, the nearest value of its kind in the same sentence.
fn facts(cx: &mut Ctx<'_, '_>, facts: &[CompiledFact], money: &[Money], consumed: &mut [bool]) {
    if facts.is_empty() {
        return;
    }
    let text = cx.text;
    // Each kind's values are found once, the first time a fact of that kind needs them.
    let mut times: Option<Vec<Stated>> = None;
    let mut dates: Option<Vec<Stated>> = None;
    let mut amounts: Option<Vec<Stated>> = None;
    let tok_of = |pos: usize| text.tok_containing(pos).unwrap_or(0);
    for fact in facts {
        let list = match fact.value {
            FactValue::Time(_) => times.get_or_insert_with(|| {
                let stated = |f: &super::datetime::Found<u16>, alt: Option<u16>| Stated {
                    start: f.start,
                    end: f.end,
                    tok: tok_of(f.start),
                    value: Some(FactValue::Time(f.value)),
                    alt: alt.map(FactValue::Time),
                    money: None,
                    span_end: false,
                };
                if cx.reading.twelve_hour_either {
                    let list = super::datetime::times_in_04(text).iter().map(|(f, alt)| stated(f, *alt)).collect();
                    mark_span_ends(text, list, cx.reading.span_end_no_value)
                } else {
                    super::datetime::times_in(text).iter().map(|f| stated(f, None)).collect()
                }
            }),
            FactValue::Date(..) => dates.get_or_insert_with(|| {
                let list = super::datetime::dates_in(text, cx.reading)
                    .iter()
                    .map(|f| {
                        let (y, m, d) = f.value;
                        Stated {
                            start: f.start,
                            end: f.end,
                            tok: tok_of(f.start),
                            value: Some(FactValue::Date(y, m, d)),
                            alt: None,
                            money: None,
                            span_end: false,
                        }
                    })
                    .collect();
                mark_span_ends(text, list, cx.reading.span_end_no_value)
            }),
            FactValue::Money(_) => amounts.get_or_insert_with(|| {
                money
                    .iter()
                    .enumerate()
                    .map(|(i, m)| Stated {
                        start: m.start,
                        end: m.end,
                        tok: tok_of(m.digits),
                        // Money facts are in USD: €20 for a $20 refund is a mismatch, never a match.
                        value: m.amount.filter(|_| m.currency == Currency::Usd).map(FactValue::Money),
                        alt: None,
                        money: Some(i),
                        span_end: false,
                    })
                    .collect()
            }),
        };
        if list.is_empty() {
            continue;
        }
        // The values are in reply order.
        debug_assert!(list.is_sorted_by_key(|s| s.tok));
        // The values are in reply order, so a sentence's or a clause's are one run of `list`, found by binary search,
        // and so is the nearest one to a place: the work per place does not grow with the reply.
        let run = |lo: usize, hi: usize, key: &dyn Fn(&Stated) -> u32, k: u32| {
            let a = lo + list[lo..hi].partition_point(|s| key(s) < k);
            (a, a + list[a..hi].partition_point(|s| key(s) <= k))
        };
        let sentence_of = |s: &Stated| text.toks[s.tok].sentence;
        let clause_of = |s: &Stated| text.toks[s.tok].clause;
        // The last clause whose values were all judged: another place of the fact's words in it judges the same
        // values the same way, so it is not judged again.
        let mut judged_clause = None;
        for (first, last) in phrase::find_phrase(text, &fact.near_words, Mode::Endings) {
            if cx.over {
                return;
            }
            let (sa, sb) = run(0, list.len(), &sentence_of, text.toks[first].sentence);
            // `every_fact_value`: every value in the clause of the fact's words is stated for it ("moved from 10 AM to
            // 2 PM"); a clause without one falls back to the nearest in the sentence, as before.
            let clause = text.toks[first].clause;
            let (ca, cb) = run(sa, sb, &clause_of, clause);
            let all = cx.reading.every_fact_value && ca < cb;
            if all && judged_clause.replace(clause) == Some(clause) {
                continue;
            }
            let last_in_clause = if all { Some(list[cb - 1].tok) } else { None };
            let judged: &[Stated] = if all {
                &list[ca..cb]
            } else {
                let sentence = &list[sa..sb];
                let i = nearest_stated(sentence, first, last);
                i.map_or(&[], |i| std::slice::from_ref(&sentence[i]))
            };
            for s in judged {
                if let Some(mi) = s.money {
                    consumed[mi] = true;
                }
                if all && superseded(text, s.tok, last_in_clause.is_some_and(|l| s.tok < l), cx.reading) {
                    continue;
                }
                // `span_end_no_value`: the end of a span is not the fact's value unless the clause changes it.
                if s.span_end {
                    continue;
                }
                let same = match (s.value, fact.value) {
                    (Some(FactValue::Date(ys, ms, ds)), FactValue::Date(yf, mf, df)) => {
                        ms == mf && ds == df && (ys.is_none() || yf.is_none() || ys == yf)
                    }
                    (a, b) => a == Some(b) || s.alt == Some(b),
                };
                if !same {
                    let why = format!("{} is {}, not {}.", fact.near, fact.display, cx.written(s.start, s.end));
                    cx.push("fact:mismatch", s.start, s.end, why);
                }
            }
        }
    }
}

/// The value of `values` (one sentence's, in reply order) nearest the fact's words at tokens `first..=last`: the
/// first at the smallest distance, one after `last` winning a tie with one before (by binary search; the same
/// choice as a scan keyed on (distance, before)).
fn nearest_stated(values: &[Stated], first: usize, last: usize) -> Option<usize> {
    // The first value past `last`, and the first of the values at or before it that are nearest: the first one
    // inside the words if any, else the first of those at the latest token before them.
    let after = values.partition_point(|s| s.tok <= last);
    let inside = values.partition_point(|s| s.tok < first);
    let before = if inside < after {
        Some(inside)
    } else {
        after.checked_sub(1).map(|i| values.partition_point(|s| s.tok < values[i].tok))
    };
    let dist_before = |i: usize| first.saturating_sub(values[i].tok);
    match (before, (after < values.len()).then_some(after)) {
        (Some(b), Some(a)) => Some(if values[a].tok - last <= dist_before(b) { a } else { b }),
        (b, a) => a.or(b),
    }
}

/// `span_end_no_value`: whether a word that changes a value stands before token `tok` in its clause.
fn change_before(text: &Text<'_>, tok: usize) -> bool {
    let clause = text.toks[tok].clause;
    (tok.saturating_sub(10)..tok)
        .rev()
        .take_while(|&k| text.toks[k].clause == clause)
        .any(|k| CHANGES.contains(&text.word_at(k)))
}

/// `every_fact_value`: a value the reply states as the fact's old or rejected value, not as the fact: "from 10 AM" with
/// another value after it in the clause ("moved from 10 AM to 2 PM"), "instead of 10 AM", "rather than 10 AM", "not 10
/// AM", "no longer 10 AM". Up to two words may stand between (`from Tuesday 10 AM`); for `not` and `no longer` only
/// with `rejected_value_words` (before, right before the value only), which also reads `isn't`, `aren't`, `wasn't` and
/// `weren't` as `not` ("isn't at 3:30 PM, it's at 4:30 PM").
fn superseded(text: &Text<'_>, tok: usize, later: bool, reading: &Reading) -> bool {
    let near = |back: usize| back == 1 || reading.rejected_value_words;
    // `span_end_no_value`: "from" names an old value only in a clause that changes it; "is from 3:30 PM to 4:30 PM"
    // is a span.
    let changed = |k: usize| !reading.span_end_no_value || change_before(text, k);
    let clause = text.toks[tok].clause;
    let word = |k: usize| Some(text.word_at(k)).filter(|_| text.toks[k].clause == clause);
    (1..=3).any(|back| {
        let Some(k) = tok.checked_sub(back) else {
            return false;
        };
        let prev = k.checked_sub(1).and_then(word);
        let Some(w) = word(k) else {
            return false;
        };
        // Two words, the value's word and the one before it.
        let pair = |list: &[(&str, &str)]| pair_ends(list, prev, w);
        if VALUE_FROM.contains(&w) {
            later && changed(k)
        } else if VALUE_NOT.contains(&w) || pair(NO_LONGER_CUT) {
            near(back)
        } else if VALUE_NEGATIVE_AUXILIARIES.contains(&w) {
            reading.rejected_value_words
        } else {
            pair(VALUE_REPLACED_CUT)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(tok: usize) -> Stated {
        Stated { start: tok, end: tok, tok, value: None, alt: None, money: None, span_end: false }
    }

    proptest::proptest! {
        /// The binary search picks what a scan of every value keyed on (distance, before) picks, the first of equals:
        /// values in reply order, several on one token, some inside the fact's words.
        #[test]
        fn nearest_is_the_scans_choice(
            mut toks in proptest::collection::vec(0usize..40, 0..12),
            first in 0usize..40,
            len in 0usize..4,
        ) {
            toks.sort_unstable();
            let values: Vec<Stated> = toks.iter().map(|&t| at(t)).collect();
            let last = first + len;
            let dist = |s: &Stated| if s.tok > last { (s.tok - last, 0) } else { (first.saturating_sub(s.tok), 1) };
            let scan = values.iter().enumerate().min_by_key(|(_, s)| dist(s)).map(|(i, _)| i);
            proptest::prop_assert_eq!(nearest_stated(&values, first, last), scan);
        }
    }
}
