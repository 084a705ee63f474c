//! Finds discount claims: "20% off", "20 percent off", "a 15% discount", "save 30%", "save up to 30%",
//! "discount of 10%", "half off", "half price", "a quarter off", and dollar discounts ("$10 off", "save $10").
//! `99.9% uptime` or "20% more storage" are not discount claims: a claim needs one of those words.

use super::money::{Money, number_word};
use super::text::Text;
use super::words::{
    AMOUNT_OFF, AMOUNT_OFF_NOT_SALE, DEAL_BOGO, DEAL_BUY, DEAL_FOLLOWERS, DEAL_FOR, DEAL_FREE, DEAL_GET, DEAL_HALF,
    DEAL_HALF_AFTER, DISCOUNT_OF, FRACTION_AFTER, FRACTIONS, LAST_WORD, PERCENT, SALE, SAVE, SAVE_BOUND, WordSet,
    phrase_words, word_set,
};
use crate::decimal::Dec;
use crate::policy::Reading;

/// A discount claim in a reply.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Claim {
    pub start: usize,
    pub end: usize,
    /// First word token of the claim (for item association).
    pub tok: usize,
    pub kind: ClaimKind,
}

#[derive(Debug, Clone, Copy)]
pub(crate) enum ClaimKind {
    Percent(Dec),
    /// Index into the reply's money list.
    Dollars(usize),
}

/// A word that makes the amount before it a discount claim; `deal_shapes` adds `sale` ("a 40% sale").
fn after_word(w: &str, sale: bool) -> bool {
    AMOUNT_OFF.contains(&w) || (sale && SALE.contains(&w))
}

/// The token right after token `k`, if only spaces, a hyphen or a percent sign separate them.
fn next_adjacent(text: &Text<'_>, k: usize) -> Option<usize> {
    let n = k + 1;
    (n < text.toks.len() && text.gap(k, n).chars().all(|c| matches!(c, ' ' | '-' | '%' | '\u{a0}'))).then_some(n)
}

fn prev_adjacent(text: &Text<'_>, k: usize) -> Option<usize> {
    let p = k.checked_sub(1)?;
    text.gap(p, k).chars().all(|c| c == ' ' || c == '\u{a0}' || c == '$').then_some(p)
}

/// The claim's opening word if the amount at token `first` is introduced by "save [up to]" or "discount of".
fn lead_in(text: &Text<'_>, first: usize) -> Option<usize> {
    let p = prev_adjacent(text, first)?;
    let w = text.word_at(p);
    if SAVE.contains(&w) {
        return Some(p);
    }
    // Most words before an amount close none of the phrases below: rejected at once.
    const SAVE_BOUND_LAST: WordSet = word_set!(&phrase_words::<{ SAVE_BOUND.len() }>(SAVE_BOUND, LAST_WORD));
    const DISCOUNT_OF_LAST: WordSet = word_set!(&phrase_words::<{ DISCOUNT_OF.len() }>(DISCOUNT_OF, LAST_WORD));
    if !SAVE_BOUND_LAST.contains(w) && !DISCOUNT_OF_LAST.contains(w) {
        return None;
    }
    // The phrase's words, walked back from the amount: its first token, if they are all there.
    let phrase_before = |phrase: &str| {
        let mut k = first;
        for word in phrase.rsplit('_') {
            k = prev_adjacent(text, k)?;
            if text.word_at(k) != word {
                return None;
            }
        }
        Some(k)
    };
    for bound in SAVE_BOUND {
        if let Some(k) = phrase_before(bound) {
            let s = prev_adjacent(text, k)?;
            return SAVE.contains(&text.word_at(s)).then_some(s);
        }
    }
    DISCOUNT_OF.iter().find_map(|phrase| phrase_before(phrase))
}

/// A small count as a digit or a word: `2`, `two` (for deal shapes).
fn count_at(text: &Text<'_>, k: usize) -> Option<u32> {
    let w = text.word(text.toks.get(k)?);
    let v = if w.bytes().all(|c| c.is_ascii_digit()) && w.len() <= 2 { w.parse().ok() } else { number_word(w) };
    v.filter(|&v| (1..=20).contains(&v))
}

/// A percent as an exact decimal: `part / whole` of 100, to six places (a share that needs more never equals an
/// approved percent written with six places or fewer).
fn share(part: u32, whole: u32) -> Dec {
    Dec(i128::from(part) * 100 * 1_000_000 / i128::from(whole.max(1)))
}

/// `deal_shapes`: deal shapes at token `i` — "buy one, get one free" (and "buy 2 get 1 free", "buy one get one half
/// off"), "BOGO", "2 for 1" / "3 for 2" / "two-for-one": the discount they are (free / (bought + free), the half
/// of it for "half off"; (N − M) / N for "N for M"). Returns the claim's last token and percent.
fn deal_at(text: &Text<'_>, i: usize) -> Option<(usize, Dec)> {
    let sentence = text.toks[i].sentence;
    let word = |k: usize| text.toks.get(k).filter(|t| t.sentence == sentence).map(|t| text.word(t));
    // Words of a deal may be joined by spaces, hyphens or one comma ("buy one, get one free").
    let joined =
        |k: usize| word(k).is_some() && text.gap(k - 1, k).chars().all(|c| matches!(c, ' ' | '-' | ',' | '\u{a0}'));
    let is = |k: usize, list: &[&str]| word(k).is_some_and(|w| list.contains(&w));
    let opening = text.word_at(i);
    if DEAL_BOGO.contains(&opening) {
        Some((i, share(1, 2)))
    } else if DEAL_BUY.contains(&opening) {
        let bought = count_at(text, i + 1).filter(|_| joined(i + 1))?;
        (is(i + 2, DEAL_GET) && joined(i + 2)).then_some(())?;
        let free = count_at(text, i + 3).filter(|_| joined(i + 3))?;
        let last = word(i + 4).filter(|_| joined(i + 4))?;
        if DEAL_FREE.contains(&last) {
            Some((i + 4, share(free, bought + free)))
        } else if DEAL_HALF.contains(&last) && is(i + 5, DEAL_HALF_AFTER) && joined(i + 5) {
            Some((i + 5, share(free, 2 * (bought + free))))
        } else {
            None
        }
    } else {
        let n = count_at(text, i)?;
        (is(i + 1, DEAL_FOR) && next_adjacent(text, i) == Some(i + 1)).then_some(())?;
        let m = count_at(text, i + 2).filter(|_| next_adjacent(text, i + 1) == Some(i + 2))?;
        // "2 for 1" is a deal; "$2 for 1", "2 for $1", "2 for 1.50", "2 for 1%" or "1 for 2" is not.
        let b = text.src.as_bytes();
        let end = text.toks[i + 2].end;
        let decimal = b.get(end) == Some(&b'.') && b.get(end + 1).is_some_and(u8::is_ascii_digit);
        let money_before = text.toks[i].start > 0 && b[text.toks[i].start - 1] == b'$';
        // "3 for 2 people" counts people: a word right after the deal must name the deal or open what follows.
        let next_ok = next_adjacent(text, i + 2)
            .filter(|_| word(i + 3).is_some())
            .is_none_or(|k| DEAL_FOLLOWERS.contains(&text.word_at(k)));
        (n > m && !decimal && !money_before && next_ok && b.get(end) != Some(&b'%')).then(|| (i + 2, share(n - m, n)))
    }
}

/// Every discount claim, in order of position.
pub(crate) fn find(text: &Text<'_>, money: &[Money], reading: &Reading) -> Vec<Claim> {
    let sale = reading.deal_shapes;
    let s = text.src;
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.toks.len() {
        let tok = text.toks[i];
        let w = text.word_at(i);
        // Deals open with "buy", "bogo" or a count; most words are none of them.
        let opens_deal = || {
            DEAL_BUY.contains(&w)
                || DEAL_BOGO.contains(&w)
                || text.toks.get(i + 1).is_some_and(|t| DEAL_FOR.contains(&text.word(t)))
        };
        if sale
            && opens_deal()
            && let Some((last, p)) = deal_at(text, i)
        {
            out.push(Claim { start: tok.start, end: text.toks[last].end, tok: i, kind: ClaimKind::Percent(p) });
            i = last + 1;
            continue;
        }
        // "half off", "half price", "a quarter off".
        let fraction = FRACTIONS.iter().find(|(f, _)| *f == w).map(|&(_, pct)| pct);
        if let Some(pct) = fraction
            && let Some(n) = next_adjacent(text, i)
            && (FRACTION_AFTER.contains(&text.word_at(n))
                || (DEAL_HALF.contains(&w) && DEAL_HALF_AFTER.contains(&text.word_at(n))))
        {
            out.push(Claim {
                start: tok.start,
                end: text.toks[n].end,
                tok: i,
                kind: ClaimKind::Percent(Dec(i128::from(pct) * 1_000_000)),
            });
            i = n + 1;
            continue;
        }
        // A number followed by % or "percent".
        // `percent_decimal_comma`: "12,5% off"; its second part is not a percent of its own.
        let decimal = reading.percent_decimal_comma;
        let after_comma = decimal && tok.start >= 2 && b[tok.start - 1] == b',' && b[tok.start - 2].is_ascii_digit();
        if w.bytes().all(|c| c.is_ascii_digit()) && (tok.start == 0 || b[tok.start - 1] != b'.') && !after_comma {
            let mut num_end = tok.end;
            let mut last = i;
            let mut comma = false;
            let fraction_next = i + 1 < text.toks.len()
                && text.toks[i + 1].start == num_end + 1
                && text.word_at(i + 1).bytes().all(|c| c.is_ascii_digit());
            if b.get(num_end) == Some(&b'.') && fraction_next {
                num_end = text.toks[i + 1].end;
                last = i + 1;
            } else if decimal && b.get(num_end) == Some(&b',') && fraction_next && text.word_at(i + 1).len() <= 2 {
                num_end = text.toks[i + 1].end;
                last = i + 1;
                comma = true;
            }
            let mut j = num_end;
            if b.get(j) == Some(&b' ') {
                j += 1;
            }
            let pct_end = if b.get(j) == Some(&b'%') {
                Some((j + 1, last))
            } else if last + 1 < text.toks.len()
                && text.toks[last + 1].start == j
                && PERCENT.contains(&text.word_at(last + 1))
            {
                Some((text.toks[last + 1].end, last + 1))
            } else {
                None
            };
            let written: std::borrow::Cow<'_, str> =
                if comma { s[tok.start..num_end].replace(',', ".").into() } else { s[tok.start..num_end].into() };
            if let Some((pend, ptok)) = pct_end
                && let Ok(p) = Dec::parse(&written)
            {
                let after = next_adjacent(text, ptok)
                    .filter(|&n| after_word(text.word_at(n), sale) && text.toks[n].start <= pend + 2);
                if let Some(n) = after {
                    out.push(Claim { start: tok.start, end: text.toks[n].end, tok: i, kind: ClaimKind::Percent(p) });
                    i = n + 1;
                    continue;
                }
                if let Some(l) = lead_in(text, i) {
                    out.push(Claim { start: text.toks[l].start, end: pend, tok: i, kind: ClaimKind::Percent(p) });
                    i = ptok + 1;
                    continue;
                }
            }
        }
        i += 1;
    }
    // Dollar discounts: "$10 off", "a $10 discount", "save $10".
    for (mi, m) in money.iter().enumerate() {
        let Some(first) = text.tok_containing(m.digits) else {
            continue;
        };
        let last = text.tok_containing(m.end.saturating_sub(1)).unwrap_or(first);
        // `dollar_sale_is_price`: "$119.20 discounted" and "a $119.20 sale price" state a price, not an amount off.
        let amount_off = |w: &str| {
            if reading.dollar_sale_is_price { AMOUNT_OFF_NOT_SALE.contains(&w) } else { after_word(w, sale) }
        };
        if let Some(n) =
            next_adjacent(text, last).filter(|&n| amount_off(text.word_at(n)) && text.toks[n].start <= m.end + 1)
        {
            out.push(Claim { start: m.start, end: text.toks[n].end, tok: first, kind: ClaimKind::Dollars(mi) });
        } else if let Some(l) = lead_in(text, first).filter(|_| m.start > 0) {
            out.push(Claim { start: text.toks[l].start, end: m.end, tok: first, kind: ClaimKind::Dollars(mi) });
        }
    }
    out.sort_by_key(|c| c.start);
    out
}
