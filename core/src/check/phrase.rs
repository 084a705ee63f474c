//! Matches phrases (forbidden phrases, item names, action verbs, fact words) against a reply's word tokens,
//! and decides whether a match is negated. Owns: word / prefix / exact matching, English endings, negation cues.

use rustc_hash::FxHashMap;
use std::collections::hash_map::Entry;

use super::role;
use super::text::Text;
use super::words::{
    ADVERB_ENDING, ADVERBS, ADVERBS_BEFORE_NOT, AUX_AFTER, AUX_BEFORE, AUXILIARIES_STEPPED, CONDITIONALS,
    CONDITIONALS_MORE, CONDITIONS_TWO_WORDS_CUT, CUES, DETERMINERS, DOUBLING_ENDINGS, E_STEM, E_STEM_ENDINGS, ENDINGS,
    HEDGES, HYPHENATED_NO, HYPHENATED_NO_NEGATES, MODALS, NEGATIVE_AUXILIARIES, NEGATIVE_ENDING, NO_LONGER_CUT, NOT,
    NOT_NEVER, NOT_TO, ONCE_AGAIN_CUT, PLURAL_ENDING, POSSESSIVE, PREPOSITIONS, PRESENT_AUXILIARIES,
    PRESENT_CONTRACTIONS, PROGRESSIVE_AUXILIARY, PSEUDO_NEGATIONS, QUESTION_OPENERS, REASSURANCES, RULE_AUXILIARIES,
    TEMPORAL, TIMES_TO_COME_TWO_WORDS_CUT, UNDOUBLED_FINALS, WILL_CONTRACTIONS, WOULD_CONTRACTIONS, WordSet, Y_STEM,
    Y_STEM_ENDINGS, any_phrase_at, pair_ends, phrase_starts, word_set,
};
use crate::policy::Reading;

/// How a phrase word matches a reply word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// The same word (a possessive `'s` allowed): item names, action verbs.
    Exact,
    /// The same word plus English endings: guarantee → guarantees, guaranteed, guaranteeing.
    Endings,
    /// Any word starting with it: garanti → garantili.
    Prefix,
}

/// Whether reply word `t` matches phrase word `w` (both folded).
pub(crate) fn word_matches(t: &str, w: &str, mode: Mode) -> bool {
    if t == w {
        return true;
    }
    // Every form starts with the phrase word's first letter (for words of two letters or more): reject cheaply.
    if w.len() >= 2 && t.as_bytes().first() != w.as_bytes().first() {
        return false;
    }
    if let Some(rest) = t.strip_prefix(w) {
        match mode {
            Mode::Prefix => return true,
            Mode::Exact => return POSSESSIVE.contains(&rest),
            Mode::Endings => {
                if ENDINGS.contains(&rest) {
                    return true;
                }
                // Doubled final consonant: ship → shipped, shipping.
                let last = w.as_bytes().last().copied().unwrap_or(b'a');
                if doubles(last) {
                    let rb = rest.as_bytes();
                    if rb.first() == Some(&last) && DOUBLING_ENDINGS.contains(&&rest[1..]) {
                        return true;
                    }
                }
                return false;
            }
        }
    }
    if mode == Mode::Endings {
        // refuse → refusing; apply → applies, applied.
        if let Some(stem) = e_stem(w)
            && t.strip_prefix(stem).is_some_and(|rest| E_STEM_ENDINGS.contains(&rest))
        {
            return true;
        }
        if let Some(stem) = y_stem(w)
            && t.strip_prefix(stem).is_some_and(|rest| Y_STEM_ENDINGS.contains(&rest))
        {
            return true;
        }
    }
    false
}

/// Whether a word's final letter is doubled before an ending (ship → shipped).
fn doubles(last: u8) -> bool {
    last.is_ascii_alphabetic() && !UNDOUBLED_FINALS.iter().any(|f| f.as_bytes() == [last])
}

/// The stem of a word whose final letter an ending drops (refuse → refus-ing), unless that letter is doubled (free).
fn e_stem(w: &str) -> Option<&str> {
    E_STEM.iter().find_map(|e| w.strip_suffix(e).filter(|stem| !stem.ends_with(e)))
}

/// The stem of a word whose final letter an ending replaces (apply → appl-ies).
fn y_stem(w: &str) -> Option<&str> {
    Y_STEM.iter().find_map(|y| w.strip_suffix(y))
}

/// Every reply word that [`word_matches`] accepts for phrase word `w` under `mode` (`Prefix` has no finite list and
/// is not asked): `w` and `w's` for `Exact`; for `Endings` also the endings, the doubled final consonant (ship →
/// shipped) and the `e` / `y` stems (refuse → refusing, apply → applies). Written out once per phrase when the
/// policy is compiled, so that a reply word is looked up once instead of once per stem it might have.
fn forms(w: &str, mode: Mode, f: &mut impl FnMut(String)) {
    // Each form is built at its exact length, so boxing it as a key does not reallocate.
    let join = |parts: &[&str]| {
        let mut s = String::with_capacity(parts.iter().map(|p| p.len()).sum());
        parts.iter().for_each(|p| s.push_str(p));
        s
    };
    f(w.to_owned());
    for possessive in POSSESSIVE {
        f(join(&[w, possessive]));
    }
    if mode != Mode::Endings {
        return;
    }
    for suf in ENDINGS.iter().filter(|e| !POSSESSIVE.contains(e)) {
        f(join(&[w, suf]));
    }
    let last = w.as_bytes().last().copied().unwrap_or(b'a');
    if doubles(last) {
        let last = &w[w.len() - 1..];
        for suf in DOUBLING_ENDINGS {
            f(join(&[w, last, suf]));
        }
    }
    if let Some(stem) = e_stem(w) {
        for suf in E_STEM_ENDINGS {
            f(join(&[stem, suf]));
        }
    }
    if let Some(stem) = y_stem(w) {
        for suf in Y_STEM_ENDINGS {
            f(join(&[stem, suf]));
        }
    }
}

/// The phrases a form opens, in entry order, each once; most forms open one, which needs no list.
#[derive(Debug)]
enum Ids {
    One(u32),
    Many(Vec<u32>),
}

impl Ids {
    fn as_slice(&self) -> &[u32] {
        match self {
            Ids::One(id) => std::slice::from_ref(id),
            Ids::Many(ids) => ids,
        }
    }
}

/// A phrase to find: its folded words and how they match.
#[derive(Debug, Clone)]
pub(crate) struct Phrase {
    pub words: Vec<String>,
    pub mode: Mode,
}

/// One place a phrase matched: tokens `first..=last`, and which entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Match {
    pub first: usize,
    pub last: usize,
    pub entry: usize,
}

/// Many phrases, indexed by every form of their first word so a reply is scanned once, with one lookup per word.
#[derive(Debug, Default)]
pub(crate) struct Matcher {
    phrases: Vec<Phrase>,
    /// Each form of a first word ([`forms`]) → the phrases it opens, in entry order, each once.
    by_form: FxHashMap<Box<str>, Ids>,
    /// A bit per [`form_key`] of every form: most reply words open no phrase, and this test is cheaper than the
    /// hash lookup it saves.
    keys: FormKeys,
    prefix: Vec<usize>,
}

/// Bits of [`form_key`]s.
#[derive(Debug)]
struct FormKeys([u64; 64]);

impl Default for FormKeys {
    fn default() -> FormKeys {
        FormKeys([0; 64])
    }
}

/// A word's length, first and last byte folded into 12 bits. Words are never empty.
fn form_key(w: &str) -> usize {
    let b = w.as_bytes();
    (usize::from(b[0]) ^ (usize::from(b[b.len() - 1]) << 4) ^ (b.len() << 8)) & 4095
}

impl FormKeys {
    fn insert(&mut self, w: &str) {
        let k = form_key(w);
        self.0[k / 64] |= 1 << (k % 64);
    }

    fn may_contain(&self, w: &str) -> bool {
        let k = form_key(w);
        self.0[k / 64] & (1 << (k % 64)) != 0
    }
}

impl Matcher {
    /// A matcher with room for `forms` forms ([`forms`]: at most 12 per phrase in `Endings` mode, 2 in `Exact`), so
    /// that compiling a policy does not regrow the table.
    pub(crate) fn with_forms(forms: usize) -> Matcher {
        Matcher { by_form: FxHashMap::with_capacity_and_hasher(forms, Default::default()), ..Matcher::default() }
    }

    /// Adds a phrase; returns its entry number, or `None` when it has no words (it can never match).
    pub(crate) fn add(&mut self, phrase: Phrase) -> Option<usize> {
        let first = phrase.words.first()?;
        let id = self.phrases.len();
        match phrase.mode {
            Mode::Prefix => self.prefix.push(id),
            mode => forms(first, mode, &mut |form| {
                self.keys.insert(&form);
                let id = id as u32;
                match self.by_form.entry(form.into_boxed_str()) {
                    Entry::Vacant(e) => {
                        e.insert(Ids::One(id));
                    }
                    Entry::Occupied(mut e) => match e.get_mut() {
                        Ids::One(x) if *x == id => {}
                        Ids::One(x) => {
                            let x = *x;
                            e.insert(Ids::Many(vec![x, id]));
                        }
                        Ids::Many(ids) if ids.last() == Some(&id) => {}
                        Ids::Many(ids) => ids.push(id),
                    },
                }
            }),
        }
        self.phrases.push(phrase);
        Some(id)
    }

    /// The match of phrase `id` at token `i`, whose first word is known to match from word `from` on.
    fn matches_at(&self, text: &Text<'_>, i: usize, id: usize, from: usize) -> Option<Match> {
        let p = &self.phrases[id];
        match_words(text, i, &p.words, p.mode, from).map(|last| Match { first: i, last, entry: id })
    }

    /// Every match, ordered by first token then entry.
    pub(crate) fn find_all(&self, text: &Text<'_>, out: &mut Vec<Match>) {
        for i in 0..text.toks.len() {
            let before = out.len();
            let t = text.word_at(i);
            if self.keys.may_contain(t)
                && let Some(ids) = self.by_form.get(t)
            {
                for &id in ids.as_slice() {
                    if let Some(m) = self.matches_at(text, i, id as usize, 1) {
                        out.push(m);
                    }
                }
            }
            // `word_matches` in `Prefix` mode is `starts_with`.
            for &id in &self.prefix {
                if t.starts_with(self.phrases[id].words[0].as_str())
                    && let Some(m) = self.matches_at(text, i, id, 1)
                {
                    out.push(m);
                }
            }
            if out.len() - before > 1 {
                // Only this token's matches: they start here, so none can equal an earlier one, and deduplicating
                // the whole list at every such token made the scan quadratic ("Pro plan" opening both "Pro" and
                // "Pro plan" at every mention).
                out[before..].sort_unstable_by_key(|m| m.entry);
                let mut kept = before + 1;
                for r in before + 1..out.len() {
                    if out[r] != out[kept - 1] {
                        out[kept] = out[r];
                        kept += 1;
                    }
                }
                out.truncate(kept);
            }
        }
    }
}

/// Whether `words` match the reply's tokens from `i` on, within one sentence; returns the last token. The first
/// `from` words are known to match already.
fn match_words(text: &Text<'_>, i: usize, words: &[String], mode: Mode, from: usize) -> Option<usize> {
    let sentence = text.toks[i].sentence;
    for (j, w) in words.iter().enumerate().skip(from) {
        let tok = text.toks.get(i + j)?;
        if tok.sentence != sentence || !word_matches(text.word(tok), w, mode) {
            return None;
        }
    }
    words.len().checked_sub(1).map(|n| i + n)
}

/// Every occurrence of one phrase, as (first, last) tokens; for the few phrases that are not worth an index.
pub(crate) fn find_phrase<'t>(
    text: &'t Text<'_>,
    words: &'t [String],
    mode: Mode,
) -> impl Iterator<Item = (usize, usize)> + 't {
    // Cheap first-letter test before the word comparison (see `word_matches`).
    let lead = words.first().filter(|w| w.len() >= 2).and_then(|w| w.as_bytes().first().copied());
    (0..text.toks.len())
        .filter(move |&i| lead.is_none_or(|b| text.word_at(i).as_bytes().first() == Some(&b)))
        .filter_map(move |i| match_words(text, i, words, mode, 0).map(|last| (i, last)))
}

/// `hedges`: hedges that leave what follows them in their clause unclaimed, however far ("I don't think we'll be
/// able to guarantee that", "I'm not sure your order has been shipped", "there's no record that it was cancelled").
fn hedge(text: &Text<'_>, k: usize) -> bool {
    const FIRST: (WordSet, WordSet) = phrase_starts!(HEDGES);
    any_phrase_at(text, k, HEDGES, &FIRST)
}

/// A word ending in a contracted negative (`n't`).
fn negative_ending(w: &str) -> bool {
    NEGATIVE_ENDING.iter().any(|e| w.ends_with(e))
}

fn is_cue(w: &str) -> bool {
    const SET: WordSet = word_set!(CUES);
    SET.contains(w) || negative_ending(w)
}

/// "not only", "no doubt", "without a doubt", "nothing but": cue words that do not negate. With `reassurances` also
/// those ("no worries", "no problem", "don't worry", "never mind", "not a problem", "no need to worry") and a
/// `no` hyphenated into a modifier, with `hyphenated_no` ("a no-quibble guarantee", "your no-show fee"; "no-one" still
/// negates).
fn pseudo_negation(text: &Text<'_>, k: usize, reading: &Reading) -> bool {
    const REASSURING: (WordSet, WordSet) = phrase_starts!(REASSURANCES);
    const PSEUDO: (WordSet, WordSet) = phrase_starts!(PSEUDO_NEGATIONS);
    let reassurance = reading.reassurances && any_phrase_at(text, k, REASSURANCES, &REASSURING);
    let hyphenated = reading.hyphenated_no
        && HYPHENATED_NO.contains(&text.word_at(k))
        && k + 1 < text.toks.len()
        && text.gap(k, k + 1) == "-"
        && !HYPHENATED_NO_NEGATES.contains(&text.word_at(k + 1));
    if reassurance || hyphenated {
        return true;
    }
    any_phrase_at(text, k, PSEUDO_NEGATIONS, &PSEUDO)
}

pub(crate) fn negating_cue(text: &Text<'_>, k: usize, reading: &Reading) -> bool {
    is_cue(text.word_at(k)) && !pseudo_negation(text, k, reading)
}

/// The longest parenthetical aside stepped over, in words ("as a rule", "I'm afraid", "as a matter of fact").
const ASIDE_WORDS: usize = 6;

/// Where the clause of token `k` starts, if that clause is a parenthetical aside that token `k + 1`'s clause
/// closes: opened and closed by commas, by `(` and `)`, or by dashes, within one sentence, with a clause before it.
fn aside_start(text: &Text<'_>, k: usize) -> Option<usize> {
    let (tok, next) = (text.toks[k], text.toks.get(k + 1)?);
    let closes = text.clause_opens[next.clause as usize];
    if next.clause != tok.clause + 1 || next.sentence != tok.sentence {
        return None;
    }
    let mut s = k;
    while s > 0 && text.toks[s - 1].clause == tok.clause {
        s -= 1;
        if k - s >= ASIDE_WORDS {
            return None;
        }
    }
    let opens = text.clause_opens[tok.clause as usize];
    let matched = matches!((opens, closes), (b',', b',') | (b'(', b')') | (b'-', b'-'));
    let before = s.checked_sub(1).map(|b| text.toks[b])?;
    (matched && before.clause + 1 == tok.clause && before.sentence == tok.sentence).then_some(s)
}

/// Calls `f` on up to `n` tokens before `first` in its clause, nearest first, until it returns true; from
/// `aside_in_scope` a parenthetical aside between them is stepped over without counting ("we do not, as a rule,
/// promise"), while a clause that a comma simply ends still stops it ("no, we guarantee it").
pub(crate) fn scope_before(
    text: &Text<'_>,
    first: usize,
    n: usize,
    reading: &Reading,
    mut f: impl FnMut(usize) -> bool,
) -> bool {
    let mut clause = text.toks[first].clause;
    let (mut k, mut left) = (first, n);
    // Whether the clause being read is itself aside-shaped: then it may be the second of two asides in a row
    // ("not, in general, at this time, promise"), and the clause before it is read too.
    let mut in_aside = false;
    while k > 0 && left > 0 {
        k -= 1;
        if text.toks[k].clause != clause {
            if !reading.aside_in_scope {
                return false;
            }
            match aside_start(text, k) {
                Some(s) => k = s - 1,
                None if in_aside => {}
                None => return false,
            }
            // A lone cue before an aside is an answer, not a clause it scopes from ("No, sorry, we guarantee it").
            if (k == 0 || text.toks[k - 1].clause != text.toks[k].clause) && is_cue(text.word_at(k)) {
                return false;
            }
            in_aside = aside_start(text, k).is_some();
            clause = text.toks[k].clause;
        }
        if f(k) {
            return true;
        }
        left -= 1;
    }
    false
}

/// Contracted negative auxiliaries: after a phrase they negate it ("refunds aren't available").
fn negative_auxiliary(w: &str) -> bool {
    negative_ending(w) || NEGATIVE_AUXILIARIES.contains(&w)
}

/// `cue_after_by_role`: a cue just after a phrase negates it only when it negates the phrase itself: an auxiliary with
/// `not` / `never` / `no longer` ("is not guaranteed", "refunds are never available"), a contracted negative
/// auxiliary ("refunds aren't available"), or `not` alone ("refunds not available", "refunds: not available").
/// A cue that negates what follows ("we promise no extra charges", "guaranteed: no setup fees", "we promise
/// never to share it", "we guarantee not to overcharge") leaves the phrase affirmative.
fn negated_after(text: &Text<'_>, last: usize, reading: &Reading) -> bool {
    let clause = text.toks[last].clause;
    let word = |k: usize| text.toks.get(k).filter(|t| t.clause == clause).map(|t| text.word(t));
    let spaced = |k: usize| text.gap(k - 1, k).chars().all(char::is_whitespace);
    let mut k = last + 1;
    if reading.cue_after_modifier {
        // `cue_after_modifier`: a modifier of the phrase may stand between it and the cue: a preposition and up to
        // three words ("full refunds for annual plans are not available", "next-day delivery in your area isn't
        // offered").
        if word(k).is_some_and(|w| PREPOSITIONS.contains(&w)) {
            let aux_or_negative = |j: usize| word(j).is_some_and(|w| AUX_AFTER.contains(&w) || negative_auxiliary(w));
            if let Some(j) = (k + 2..=k + 4).find(|&j| aux_or_negative(j)) {
                k = j;
            }
        }
    }
    let Some(w) = word(k) else {
        return false;
    };
    if negative_auxiliary(w) && spaced(k) {
        return true;
    }
    let not_to = |k: usize| word(k).is_some_and(|w| NOT_TO.contains(&w));
    if NOT.contains(&w) && text.gap(last, k).chars().all(|c| c.is_whitespace() || c == ':') {
        return !pseudo_negation(text, k, reading) && !not_to(k + 1);
    }
    // `cue_after_modifier`: an adverb between the auxiliary and `not` ("is unfortunately not available").
    let adverb = reading.cue_after_modifier
        && AUX_AFTER.contains(&w)
        && word(k + 1).is_some_and(|a| ly_adverb(a) || ADVERBS_BEFORE_NOT.contains(&a))
        && word(k + 2).is_some_and(|n| NOT_NEVER.contains(&n));
    if adverb {
        return !pseudo_negation(text, k + 2, reading) && !not_to(k + 3);
    }
    if AUX_AFTER.contains(&w) && spaced(k) && word(k + 1).is_some() && spaced(k + 1) {
        // `no longer`: the phrase's words in the clause.
        let no_longer = || NO_LONGER_CUT.iter().any(|&(a, b)| word(k + 1) == Some(a) && word(k + 2) == Some(b));
        return if word(k + 1).is_some_and(|n| NOT_NEVER.contains(&n)) {
            !pseudo_negation(text, k + 1, reading)
        } else {
            no_longer()
        };
    }
    false
}

/// Whether the match at tokens `first..=last` is negated: a cue up to five tokens before it in the same clause, or
/// (`cue_after_phrase`) right after it ("refunds not available", "refunds are not available"). Cues inside the match
/// do not count ("no questions asked"). `cue_after_by_role` reads a cue after it by its role and `aside_in_scope`
/// steps over an aside before it (`negated_after`, `scope_before`).
pub(crate) fn negated(text: &Text<'_>, first: usize, last: usize, reading: &Reading) -> bool {
    if reading.cue_after_by_role {
        return scope_before(text, first, 5, reading, |k| negating_cue(text, k, reading))
            || negated_after(text, last, reading)
            || reading.hedges && scope_before(text, first, 12, reading, |k| hedge(text, k));
    }
    let clause = text.toks[first].clause;
    for k in (first.saturating_sub(5)..first).rev() {
        if text.toks[k].clause != clause {
            break;
        }
        if negating_cue(text, k, reading) {
            return true;
        }
    }
    if reading.cue_after_phrase {
        let same = |k: usize| text.toks.get(k).is_some_and(|t| t.clause == text.toks[last].clause);
        let k = last + 1;
        if same(k) && negating_cue(text, k, reading) {
            return true;
        }
        if same(k) && same(k + 1) && AUX_AFTER.contains(&text.word_at(k)) && negating_cue(text, k + 1, reading) {
            return true;
        }
    }
    false
}

/// `tag_question`: the first words of a sentence that make it a question (so a tag after a statement does not).
fn question_opener(w: &str) -> bool {
    negative_ending(w) || QUESTION_OPENERS.contains(&w)
}

/// An adverb by its ending: a word longer than four letters in `-ly` ("unfortunately").
fn ly_adverb(w: &str) -> bool {
    w.len() > 4 && ADVERB_ENDING.iter().any(|e| w.ends_with(e))
}

pub(crate) fn is_modal(w: &str) -> bool {
    MODALS.contains(&w)
}

/// `tag_question`: whether the action verb at token `i` stands in a statement followed by a tag question in the same
/// sentence ("I've cancelled your order — is there anything else I can help with?", "It's been refunded, OK?"): a
/// clause after the verb's (after a comma, a dash, a semicolon or a word such as `and`), and a first word that opens
/// no question.
fn tag_question(text: &Text<'_>, i: usize) -> bool {
    let tok = text.toks[i];
    let Some(&first) = text.sentence_starts.get(tok.sentence as usize) else {
        return false;
    };
    if question_opener(text.word_at(first as usize)) {
        return false;
    }
    let next = text.toks[i + 1..].iter().take_while(|t| t.sentence == tok.sentence).find(|t| t.clause != tok.clause);
    next.is_some_and(|t| matches!(text.clause_opens[t.clause as usize], b',' | b'-' | b';' | b'w'))
}

/// `conditions_and_times_to_come`: whether the verb group before the action verb at token `i` is in the present ("is
/// shipped", "has shipped", "has been shipped", "it's processed", "gets refunded"), read back over at most three
/// auxiliaries.
fn present_group(text: &Text<'_>, i: usize) -> bool {
    let clause = text.toks[i].clause;
    for k in (i.saturating_sub(4)..i).rev() {
        if text.toks[k].clause != clause {
            return false;
        }
        let w = text.word_at(k);
        if PRESENT_AUXILIARIES.contains(&w) {
            return true;
        }
        if !AUXILIARIES_STEPPED.contains(&w) {
            return PRESENT_CONTRACTIONS.iter().any(|c| w.ends_with(c));
        }
    }
    false
}

/// `progressives_and_rules`: a present passive with a bare plural for its subject states a rule, not an event: "Refunds
/// are processed within 5–7 business days", "All orders are shipped within 24 hours" (no determiner such as `your` or
/// `the` from the clause's start to the verb).
fn generic_statement(text: &Text<'_>, i: usize) -> bool {
    let clause = text.toks[i].clause;
    let Some(aux) = i.checked_sub(1).filter(|&k| text.toks[k].clause == clause) else {
        return false;
    };
    if !RULE_AUXILIARIES.contains(&text.word_at(aux)) {
        return false;
    }
    let Some(noun) = aux.checked_sub(1).filter(|&k| text.toks[k].clause == clause) else {
        return false;
    };
    let plural = text.word_at(noun).len() > 3 && PLURAL_ENDING.iter().any(|s| text.word_at(noun).ends_with(s));
    let mut start = noun;
    while start > 0 && text.toks[start - 1].clause == clause {
        start -= 1;
    }
    let determiner = (start..noun).any(|k| DETERMINERS.contains(&text.word_at(k)));
    plural && noun - start <= 2 && !determiner
}

/// Whether an action verb at token `i` is an affirmative claim that it happened: not negated ("I haven't refunded
/// you yet"), not in a question, not conditional ("if you were refunded"), not future or hypothetical ("you will be
/// refunded", "to be refunded").
pub(crate) fn affirmative_claim(text: &Text<'_>, i: usize, reading: &Reading) -> bool {
    if negated(text, i, i, reading) {
        return false;
    }
    let tok = text.toks[i];
    if text.is_question(tok.sentence) && !(reading.tag_question && tag_question(text, i)) {
        return false;
    }
    let next_word = |k: usize| text.toks.get(k + 1).map_or("", |t| text.word(t));
    let conditional = |k: usize| {
        let w = text.word_at(k);
        let once_again = reading.once_again && ONCE_AGAIN_CUT.iter().any(|&(a, b)| w == a && next_word(k) == b);
        let before = k.checked_sub(1).map(|b| text.word_at(b));
        let to_come = reading.conditions_and_times_to_come
            && (CONDITIONALS_MORE.contains(&w)
                || pair_ends(CONDITIONS_TWO_WORDS_CUT, before, w)
                || ((TEMPORAL.contains(&w) || (k > 1 && pair_ends(TIMES_TO_COME_TWO_WORDS_CUT, before, w)))
                    && present_group(text, i)));
        (CONDITIONALS.contains(&w) && !once_again) || to_come
    };
    if scope_before(text, i, 5, reading, conditional) {
        return false;
    }
    if reading.action_verb_roles
        && (role::quoted(text, i, i)
            || role::causative_offer(text, i, reading)
            || role::adjective_use(text, i, reading)
            || role::negative_object(text, i, reading))
    {
        return false;
    }
    if reading.progressives_and_rules
        && (i > 0 && PROGRESSIVE_AUXILIARY.contains(&text.word_at(i - 1)) || generic_statement(text, i))
    {
        return false;
    }
    let mut k = i;
    let (mut skipped, mut adverbs) = (0, 0);
    while k > 0 && skipped < 3 && text.toks[k - 1].clause == tok.clause {
        let w = text.word_at(k - 1);
        if AUX_BEFORE.contains(&w) {
            skipped += 1;
        } else if reading.adverbs_after_modal && adverbs < 2 && (ADVERBS.contains(&w) || ly_adverb(w)) {
            adverbs += 1;
        } else {
            break;
        }
        k -= 1;
    }
    if k > 0 && text.toks[k - 1].clause == tok.clause {
        let w = text.word_at(k - 1);
        let ends = |list: &[&str]| list.iter().any(|c| w.ends_with(c));
        if MODALS.contains(&w) || ends(WILL_CONTRACTIONS) || (skipped > 0 && ends(WOULD_CONTRACTIONS)) {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multi_byte_words_match_whole() {
        // U+1138E is F0 91 8E 8E in UTF-8: its last two bytes are equal, which once split it (a property test from
        // Node). Forms are written from phrase words, so a reply word is never cut.
        let mut seen = Vec::new();
        forms("\u{1138E}", Mode::Endings, &mut |s| seen.push(s));
        assert!(seen.iter().all(|f| f.starts_with('\u{1138E}')));
        let text = Text::new("\u{1138E}ed guaranteed \u{1138E}\u{1138E}ing");
        let mut m = Matcher::default();
        m.add(Phrase { words: super::super::text::phrase_words("guarantee"), mode: Mode::Endings });
        let mut out = Vec::new();
        m.find_all(&text, &mut out);
        assert_eq!(out, [Match { first: 1, last: 1, entry: 0 }]);
    }

    #[test]
    fn forms_are_exactly_the_words_that_match() {
        // Each phrase word's forms match it, and of the words made from it and its stems with every ending shape,
        // those that match are among its forms: one lookup finds what trying every stem of a reply word found.
        let words = [
            "guarantee",
            "ship",
            "refuse",
            "apply",
            "free",
            "e",
            "y",
            "ee",
            "bus",
            "a",
            "pro",
            "go",
            "fix",
            "play",
            "agree",
            "die",
            "\u{1138E}",
            "gar\u{e7}on",
            "ski",
            "quiz",
        ];
        let tails = [
            "", "s", "es", "d", "ed", "ing", "'s", "s'", "ies", "ied", "ped", "sed", "ping", "xed", "ying", "eing",
            "ning", "dom", "or", "e", "y", "zed", "zing", "'", "ss",
        ];
        for w in words {
            let chars: Vec<(usize, char)> = w.char_indices().collect();
            let bases: Vec<&str> = (0..=chars.len().min(2))
                .map(|cut| if cut == 0 { w } else { &w[..chars[chars.len() - cut].0] })
                .collect();
            for mode in [Mode::Exact, Mode::Endings] {
                let mut fs = Vec::new();
                forms(w, mode, &mut |f| fs.push(f));
                for f in &fs {
                    assert!(word_matches(f, w, mode), "{f} {w} {mode:?}");
                }
                for base in &bases {
                    for tail in tails {
                        let t = format!("{base}{tail}");
                        assert_eq!(word_matches(&t, w, mode), fs.contains(&t), "{t} {w} {mode:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn english_endings() {
        for t in ["guarantee", "guarantees", "guaranteed", "guaranteeing", "guarantee's"] {
            assert!(word_matches(t, "guarantee", Mode::Endings), "{t}");
        }
        assert!(word_matches("shipped", "ship", Mode::Endings));
        assert!(word_matches("refusing", "refuse", Mode::Endings));
        assert!(word_matches("applies", "apply", Mode::Endings));
        assert!(!word_matches("guarantor", "guarantee", Mode::Endings));
        assert!(!word_matches("freedom", "free", Mode::Endings));
        assert!(word_matches("freedom", "free", Mode::Prefix));
        assert!(!word_matches("pros", "pro", Mode::Exact));
        assert!(word_matches("pro's", "pro", Mode::Exact));
    }

    fn neg(s: &str, phrase: &str) -> Vec<bool> {
        let text = Text::new(s);
        let mut m = Matcher::default();
        m.add(Phrase { words: super::super::text::phrase_words(phrase), mode: Mode::Endings });
        let mut out = Vec::new();
        m.find_all(&text, &mut out);
        out.iter().map(|x| negated(&text, x.first, x.last, Reading::CURRENT)).collect()
    }

    #[test]
    fn negation_scope() {
        assert_eq!(neg("We do not guarantee delivery.", "guarantee"), [true]);
        assert_eq!(neg("Delivery is not guaranteed.", "guarantee"), [true]);
        assert_eq!(neg("We don't guarantee that, but we guarantee quality.", "guarantee"), [true, false]);
        assert_eq!(neg("Not only do we guarantee it.", "guarantee"), [false]);
        assert_eq!(neg("No problem, your refund is guaranteed.", "guarantee"), [false]);
        assert_eq!(neg("Refunds are not available.", "refund"), [true]);
        assert_eq!(neg("No questions asked.", "no questions asked"), [false]);
        assert_eq!(neg("We never, ever said that we would guarantee it.", "guarantee"), [false]);
    }

    fn claim(s: &str, verb: &str) -> Vec<bool> {
        let text = Text::new(s);
        (0..text.toks.len())
            .filter(|&i| text.word_at(i) == verb)
            .map(|i| affirmative_claim(&text, i, Reading::CURRENT))
            .collect()
    }

    #[test]
    fn action_claims() {
        assert_eq!(claim("I've refunded you.", "refunded"), [true]);
        assert_eq!(claim("I haven't refunded you yet.", "refunded"), [false]);
        assert_eq!(claim("Have you been refunded?", "refunded"), [false]);
        assert_eq!(claim("You will be refunded in 5 days.", "refunded"), [false]);
        assert_eq!(claim("You'll be refunded.", "refunded"), [false]);
        assert_eq!(claim("If you were refunded, tell me.", "refunded"), [false]);
        assert_eq!(claim("Your order was canceled and you have been refunded.", "refunded"), [true]);
    }

    #[test]
    fn negative_objects() {
        assert_eq!(claim("You were charged nothing for the trial.", "charged"), [false]);
        assert_eq!(claim("We charged you nothing.", "charged"), [false]);
        assert_eq!(claim("I refunded none of it.", "refunded"), [false]);
        assert_eq!(claim("I cancelled no other orders.", "cancelled"), [false]);
        assert_eq!(claim("We charged you not a single cent.", "charged"), [false]);
        assert_eq!(claim("We charged your card nothing.", "charged"), [false]);
        assert_eq!(claim("I refunded you $50.", "refunded"), [true]);
        assert_eq!(claim("We've billed you $0 for the trial.", "billed"), [true]);
        assert_eq!(claim("I cancelled the order and nothing else.", "cancelled"), [true]);
        assert_eq!(claim("We charged a small fee, nothing more.", "charged"), [true]);
        assert_eq!(claim("We charged nothing but the setup fee.", "charged"), [true]);
        assert_eq!(claim("We charged you nothing more than the setup fee.", "charged"), [true]);
        assert_eq!(claim("We refunded none of it, except the shipping.", "refunded"), [true]);
        assert_eq!(claim("We charged you, no doubt about it.", "charged"), [true]);
        // Without roles, as the first two rows read: `you` is no cue, so none is right after the verb; both claim.
        let no_roles =
            Reading { cue_after_by_role: false, aside_in_scope: false, action_verb_roles: false, ..*Reading::CURRENT };
        let text = Text::new("We charged you nothing.");
        assert!(affirmative_claim(&text, 1, &no_roles));
        assert!(affirmative_claim(&text, 1, &Reading { cue_after_phrase: false, ..no_roles }));
    }
}
