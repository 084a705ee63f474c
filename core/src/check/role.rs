//! What role a matched word plays, beyond its surface form (issue 17, class 5). Owns: quoted
//! words, offers with an object before the participle, adjectives that look like verbs, questions that ask about the
//! past, comparative and negated amounts, and "respectively".

use super::phrase;
use super::text::Text;
use super::words::{
    BOUND_PHRASES_CUT, BOUNDS, CAPACITY_WORDS, CAUSATIVE, COMPARATIVES, DEGREE, EXCEPTIVE, EXCEPTIVE_RIGHT_AFTER,
    FULL_AFTER, FULL_OUT, INDIRECT, LET, LET_OBJECTS, LET_US, NEGATIVE_QUANTIFIERS, NO_QUANTIFIER, NOT_QUANTIFIER,
    NOT_QUANTIFIER_FOLLOWERS, PAST_QUESTION_OPENERS, POSSESSIVE_OBJECTS, THAN, UP_FRONT, WILL_CONTRACTIONS,
    WOULD_CONTRACTIONS, pair_ends,
};
use crate::policy::Reading;

/// Opening or closing quote marks around a quoted word or phrase.
fn is_quote(c: char) -> bool {
    matches!(c, '\'' | '"' | '\u{2018}' | '\u{2019}' | '\u{201c}' | '\u{201d}' | '\u{ab}' | '\u{bb}')
}

/// Whether tokens `first..=last` stand directly between quote marks: the customer's or someone else's words
/// ("you asked whether we 'promise' delivery"), not the agent's.
pub(crate) fn quoted(text: &Text<'_>, first: usize, last: usize) -> bool {
    let (a, b) = (text.toks[first].start, text.toks[last].end);
    let before = text.src[..a].chars().next_back();
    let after = text.src[b..].chars().next();
    before.is_some_and(is_quote) && after.is_some_and(is_quote)
}

/// "I can get your order cancelled today", "we can have it shipped tomorrow", "I'll get that refunded": `get` or `have`
/// after a modal, `to` or `'ll`, then up to three words of object, then the participle at `i` — an offer, not a claim
/// that it happened. "I got your order cancelled" is still a claim. With `let_me_offer` also after `let me`, `let us`
/// and `let's` ("Let me get that cancelled for you").
pub(crate) fn causative_offer(text: &Text<'_>, i: usize, reading: &Reading) -> bool {
    let clause = text.toks[i].clause;
    (2..=4).any(|back| {
        let Some(k) = i.checked_sub(back) else {
            return false;
        };
        let in_clause = |j: usize| text.toks[j].clause == clause;
        if !in_clause(k) || !CAUSATIVE.contains(&text.word_at(k)) || k == 0 || !in_clause(k - 1) {
            return false;
        }
        let m = text.word_at(k - 1);
        let let_me = reading.let_me_offer
            && (LET_US.contains(&m)
                || LET_OBJECTS.contains(&m) && k >= 2 && in_clause(k - 2) && LET.contains(&text.word_at(k - 2)));
        phrase::is_modal(m) || WILL_CONTRACTIONS.iter().chain(WOULD_CONTRACTIONS).any(|c| m.ends_with(c)) || let_me
    })
}

/// "The slot is booked up", "we're fully shipped out", "booked solid": the participle as an adjective (full,
/// sold out), not a claim of the action. `fully` / `completely` / `totally` / `entirely` before it, or `up` /
/// `solid` right after it. With `degree_means_full` a degree word makes an adjective only of a word that means full
/// (`booked`, `reserved`, `subscribed`) or before `out`: "we've fully refunded your order" is a claim.
pub(crate) fn adjective_use(text: &Text<'_>, i: usize, reading: &Reading) -> bool {
    let clause = text.toks[i].clause;
    let word = |k: usize| text.toks.get(k).filter(|t| t.clause == clause).map(|t| text.word(t));
    let before = i.checked_sub(1).and_then(word);
    let is = |k: usize, list: &[&str]| word(k).is_some_and(|w| list.contains(&w));
    let capacity = !reading.degree_means_full || CAPACITY_WORDS.contains(&text.word_at(i)) || is(i + 1, FULL_OUT);
    let up_front = reading.degree_means_full && is(i + 2, UP_FRONT); // "charged up front" is a claim
    before.is_some_and(|w| DEGREE.contains(&w)) && capacity || is(i + 1, FULL_AFTER) && !up_front
}

/// Whether sentence `s` is a question about the past ("Did we promise you a refund?", "Were you offered 20% off?",
/// "Has your order shipped?"): it asks whether something was said or done, so it neither claims nor offers
/// anything. Other questions ("Would you like 20% off?") offer what they name.
pub(crate) fn past_question(text: &Text<'_>, s: u32) -> bool {
    if !text.is_question(s) {
        return false;
    }
    let Some(&first) = text.sentence_starts.get(s as usize) else {
        return false;
    };
    let w = text.word_at(first as usize);
    PAST_QUESTION_OPENERS.contains(&w)
}

/// The first token at or after byte `pos`.
fn tok_from(text: &Text<'_>, pos: usize) -> usize {
    text.toks_starting_before(pos, false)
}

/// Whether the amount starting at byte `start` is stated as a bound, not an exact price: "under $50",
/// "less than $60", "at most $99", "up to $200", "over $1,000".
pub(crate) fn comparative(text: &Text<'_>, start: usize) -> bool {
    let t = tok_from(text, start);
    let Some(p) = t.checked_sub(1) else {
        return false;
    };
    if text.toks[p].sentence != text.toks.get(t).map_or(u32::MAX, |x| x.sentence) {
        return false;
    }
    let prev2 = p.checked_sub(1).map(|k| text.word_at(k));
    let w = text.word_at(p);
    BOUNDS.contains(&w)
        || THAN.contains(&w) && prev2.is_some_and(|w| COMPARATIVES.contains(&w))
        || pair_ends(BOUND_PHRASES_CUT, prev2, w)
}

/// Whether the amount or claim starting at byte `start` is negated by a cue up to three words before it in its
/// clause: "it's not $199", "there's no 40% sale on", "we don't charge $20". "Not only $49" is no negation.
pub(crate) fn negated_amount(text: &Text<'_>, start: usize, reading: &Reading) -> bool {
    let t = tok_from(text, start);
    t < text.toks.len() && phrase::scope_before(text, t, 3, reading, |k| phrase::negating_cue(text, k, reading))
}

/// Whether the action verb at token `i` has a negative quantifier for its object, so it states that the action did
/// not happen, or happened to nothing: "you were charged nothing", "we charged you nothing", "I refunded none of it",
/// "I cancelled no other orders", "we charged you not a single cent". One indirect object may stand between
/// (`you`, `me`, `us`, `him`, `her`, `them`, or `your` and one word: "charged your card nothing"). Not when an
/// exceptive names what the action did reach ("nothing but the fee", "nothing more than $5", "none, except the
/// late fee"), and never for an amount: "billed you $0" is an amount like any other, left to the record.
pub(crate) fn negative_object(text: &Text<'_>, i: usize, reading: &Reading) -> bool {
    let clause = text.toks[i].clause;
    let word = |k: usize| text.toks.get(k).filter(|t| t.clause == clause).map(|t| text.word(t));
    let mut q = i + 1;
    match word(q) {
        Some(w) if INDIRECT.contains(&w) => q += 1,
        Some(w) if POSSESSIVE_OBJECTS.contains(&w) && word(q + 1).is_some() => q += 2,
        _ => {}
    }
    let quantifier = match word(q) {
        Some(w) if NEGATIVE_QUANTIFIERS.contains(&w) => true,
        Some(w) if NO_QUANTIFIER.contains(&w) => word(q + 1).is_some(),
        Some(w) if NOT_QUANTIFIER.contains(&w) => word(q + 1).is_some_and(|n| NOT_QUANTIFIER_FOLLOWERS.contains(&n)),
        _ => false,
    };
    // A pseudo-negation ("nothing but", "no doubt", "not only") is no quantifier.
    if !quantifier || !phrase::negating_cue(text, q, reading) {
        return false;
    }
    // `but` right after, with only spaces between, names what was reached ("none but the fee").
    if text.toks.get(q + 1).is_some_and(|t| EXCEPTIVE_RIGHT_AFTER.contains(&text.word(t)))
        && text.gap(q, q + 1).trim().is_empty()
    {
        return false;
    }
    // An exceptive later in the clause, or opening the next one ("nothing, except the setup fee").
    for k in q + 1..(q + 6).min(text.toks.len()) {
        let t = text.toks[k];
        if t.sentence != text.toks[q].sentence {
            break;
        }
        if EXCEPTIVE.contains(&text.word(&t)) {
            return false;
        }
        if t.clause != clause {
            break;
        }
    }
    true
}
