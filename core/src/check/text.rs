//! Splits a reply into word tokens with case-folded forms, sentences and clauses.
//! Owns: what a word is, what ends a sentence or clause, how case is folded (Unicode, Turkish İ/ı → i).

use super::words::{ABBREVIATIONS, ANSWERS, CLAUSE_WORDS, CLAUSE_WORDS_IN_CLAUSE, RUPEES, WordSet, word_set};
use crate::policy::Reading;

/// A word: a run of letters and digits, with apostrophes kept inside (`I've`, `haven't`, `Pro's`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tok {
    /// Byte range in the reply.
    pub start: usize,
    pub end: usize,
    /// Byte range in `Text::folded` (the token's own range when the reply is ASCII).
    fold_start: u32,
    fold_end: u32,
    pub sentence: u32,
    pub clause: u32,
}

/// A reply, tokenized once and shared by every rule.
#[derive(Debug)]
pub(crate) struct Text<'a> {
    pub src: &'a str,
    folded: String,
    pub toks: Vec<Tok>,
    /// For each sentence, whether it ends with a question mark.
    pub questions: Vec<bool>,
    /// For each clause id, what opened it: `.` (a sentence start), `,` `;` `(` `)`, `-` (a dash), `w` (a clause
    /// word). Negation reads it to step over a parenthetical aside ("we do not, as a rule, promise").
    pub clause_opens: Vec<u8>,
    /// For each sentence, its first token.
    pub sentence_starts: Vec<u32>,
    /// For each block of [`BLOCK`] bytes, how many tokens start before it: a position's token is found from its
    /// block in a few steps that stay in cache, where a binary search over a long reply misses it at every step
    /// (linear time per reply, docs/PERFORMANCE.md).
    blocks: Vec<u32>,
}

/// Bytes per entry of `Text::blocks`.
const BLOCK: usize = 64;

/// Words that open a new clause: they stop negation scope and item association.
fn is_clause_word(w: &str) -> bool {
    const SET: WordSet = word_set!(CLAUSE_WORDS);
    SET.contains(w)
}

/// Abbreviations whose period does not end a sentence.
fn is_abbreviation(w: &str) -> bool {
    const SET: WordSet = word_set!(ABBREVIATIONS);
    SET.contains(w)
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric()
}

fn is_apostrophe(c: char) -> bool {
    c == '\'' || c == '\u{2019}'
}

/// Appends the case fold of `c`: Unicode lowercase, with Turkish dotted and dotless i read as `i`, and the typographic
/// apostrophe read as `'`, so "GARANTİLİ" folds to "garantili" and "haven’t" to "haven't".
pub(crate) fn fold_char_into(c: char, out: &mut String) {
    if c.is_ascii() {
        out.push(c.to_ascii_lowercase());
        return;
    }
    match c {
        '\u{130}' | '\u{131}' => out.push('i'),
        '\u{2019}' => out.push('\''),
        '\u{307}' => {} // combining dot above (from a decomposed İ)
        _ => out.extend(c.to_lowercase()),
    }
}

/// Whether the comma at `at` groups digits: a digit right before it and exactly three digits after it ("1,299").
pub(crate) fn thousands_separator(b: &[u8], at: usize) -> bool {
    b.get(at) == Some(&b',')
        && at > 0
        && b[at - 1].is_ascii_digit()
        && b.len() >= at + 4
        && b[at + 1..at + 4].iter().all(u8::is_ascii_digit)
        && !b.get(at + 4).is_some_and(u8::is_ascii_digit)
}

/// `decimal_comma`: whether the comma at `at` is a decimal comma: a digit right before it, and one or two digits after
/// it with no third ("49,90 €", "€1,5 million").
fn decimal_comma(b: &[u8], at: usize) -> bool {
    let digits = b.get(at + 1..).unwrap_or_default().iter().take(3).take_while(|d| d.is_ascii_digit()).count();
    at > 0 && b[at - 1].is_ascii_digit() && (1..=2).contains(&digits)
}

/// `no_answer_ends_sentence`: whether a number (or `#`) follows at `at`, after one space at most.
fn number_after(b: &[u8], at: usize) -> bool {
    let at = if b.get(at) == Some(&b' ') { at + 1 } else { at };
    b.get(at).is_some_and(|c| c.is_ascii_digit() || *c == b'#')
}

/// `glued_sentence_end`: whether a sentence starts at `at` right after a period with no space: a capital letter and a
/// small one ("$49.Team is"), so "U.S.A." and "v1.2" are not sentence ends.
fn glued_sentence_start(b: &[u8], at: usize) -> bool {
    b.get(at).is_some_and(u8::is_ascii_uppercase) && b.get(at + 1).is_some_and(u8::is_ascii_lowercase)
}

/// Folds a whole string (used for phrases, item names and record words).
pub(crate) fn fold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        fold_char_into(c, &mut out);
    }
    out
}

/// The ASCII twin of a space, line break or dash that formatters emit (ICU and `toLocale…` put U+202F before
/// "PM" and U+00A0 before a currency code), or `None` for a character that reads as itself. En and em dashes
/// keep their own meaning (ranges, clause ends); the other dashes read as `-`, the horizontal bars as `—`.
fn ascii_twin(c: char) -> Option<char> {
    Some(match c {
        '\u{a0}' | '\u{1680}' | '\u{2000}'..='\u{200a}' | '\u{202f}' | '\u{205f}' | '\u{3000}' => ' ',
        '\u{85}' | '\u{2028}' | '\u{2029}' => '\n',
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2043}' | '\u{2212}' | '\u{fe63}' | '\u{ff0d}' => '-',
        '\u{2015}' | '\u{fe58}' => '\u{2014}',
        _ => return None,
    })
}

/// A reply with every formatter space and dash read as its ASCII twin (`ascii_twin`), and for each byte of it
/// (and its end) the byte offset in the reply it came from, so spans and quoted text come from the original.
/// `None` when nothing needs replacing (every ASCII reply): the checker then reads the reply itself.
pub(crate) fn normalize(src: &str) -> Option<(String, Vec<u32>)> {
    if src.is_ascii() || !src.chars().any(|c| ascii_twin(c).is_some()) {
        return None;
    }
    let mut out = String::with_capacity(src.len());
    let mut map = Vec::with_capacity(src.len() + 1);
    for (i, c) in src.char_indices() {
        let r = ascii_twin(c).unwrap_or(c);
        out.push(r);
        map.extend(std::iter::repeat_n(i as u32, r.len_utf8()));
    }
    map.push(src.len() as u32);
    Some((out, map))
}

/// Folded words of a phrase, tokenized exactly like a reply.
pub(crate) fn phrase_words(s: &str) -> Vec<String> {
    let t = Text::new(s);
    t.toks.iter().map(|k| t.word(k).to_owned()).collect()
}

impl<'a> Text<'a> {
    pub(crate) fn new(src: &'a str) -> Text<'a> {
        Text::read(src, Reading::POLICY_WORDS)
    }

    /// A reply as `reading` reads it: with `thousands_separator_in_clause`, a thousands separator ("$1,299") is no
    /// clause end, so the amount stays in one clause with the words around it; with `decimal_comma`, neither is a
    /// decimal comma ("49,90 €"); with `glued_sentence_end`, a period right before a capitalised word ends the
    /// sentence ("$49.Team").
    pub(crate) fn read(src: &'a str, reading: &Reading) -> Text<'a> {
        const IN_CLAUSE: WordSet = word_set!(CLAUSE_WORDS_IN_CLAUSE);
        const ANSWER: WordSet = word_set!(ANSWERS);
        const RUPEE: WordSet = word_set!(pairs RUPEES, fold);
        // An ASCII reply is folded whole, in one pass: each word's folded form is then at its own offsets.
        let ascii = src.is_ascii();
        let mut t = Text {
            src,
            folded: if ascii { src.to_ascii_lowercase() } else { String::with_capacity(src.len()) },
            toks: Vec::with_capacity(src.len() / 4 + 2),
            questions: Vec::with_capacity(src.len() / 40 + 1),
            clause_opens: Vec::with_capacity(src.len() / 16 + 1),
            sentence_starts: Vec::with_capacity(src.len() / 40 + 1),
            blocks: Vec::new(),
        };
        t.clause_opens.push(b'.');
        let bytes = src.as_bytes();
        let mut sentence = 0u32;
        let mut clause = 0u32;
        let mut pending_sentence_end = false;
        // What ends the clause before the next word (`0`: nothing).
        let mut pending_clause_end = 0u8;
        let mut question = false;
        let mut i = 0;
        while i < bytes.len() {
            // ASCII is decoded by hand: most replies are mostly ASCII and this loop is the checker's hottest.
            let c = if bytes[i] < 0x80 { bytes[i] as char } else { src[i..].chars().next().unwrap_or(' ') };
            let clen = c.len_utf8();
            if is_word_char(c) {
                // A word, with inner apostrophes.
                let start = i;
                let mut end = i + clen;
                while end < bytes.len() {
                    if bytes[end].is_ascii_alphanumeric() {
                        end += 1;
                        continue;
                    }
                    let d =
                        if bytes[end] < 0x80 { bytes[end] as char } else { src[end..].chars().next().unwrap_or(' ') };
                    let dlen = d.len_utf8();
                    let inner_apostrophe =
                        is_apostrophe(d) && src[end + dlen..].chars().next().is_some_and(is_word_char);
                    if is_word_char(d) || inner_apostrophe {
                        end += dlen;
                    } else {
                        break;
                    }
                }
                i = end;
                if pending_sentence_end {
                    t.questions.push(question);
                    question = false;
                    sentence += 1;
                    clause += 1;
                    t.clause_opens.push(b'.');
                    t.sentence_starts.push(t.toks.len() as u32);
                } else if pending_clause_end != 0 {
                    clause += 1;
                    t.clause_opens.push(pending_clause_end);
                }
                pending_sentence_end = false;
                pending_clause_end = 0;
                let (fold_start, fold_end) = if ascii {
                    (start as u32, end as u32)
                } else {
                    let fold_start = t.folded.len() as u32;
                    let raw = &src[start..end];
                    if raw.is_ascii() {
                        t.folded.push_str(raw);
                        t.folded[fold_start as usize..].make_ascii_lowercase();
                    } else {
                        for ch in raw.chars() {
                            fold_char_into(ch, &mut t.folded);
                        }
                    }
                    (fold_start, t.folded.len() as u32)
                };
                let word = &t.folded[fold_start as usize..fold_end as usize];
                // `yet_in_clause`: `yet` opens no clause of its own ("I haven't yet refunded it"); after a comma the
                // comma has opened one already ("…, yet we shipped it").
                if is_clause_word(word) && !t.toks.is_empty() && !(reading.yet_in_clause && IN_CLAUSE.contains(word)) {
                    clause += 1;
                    t.clause_opens.push(b'w');
                }
                if t.toks.is_empty() {
                    t.sentence_starts.push(0);
                }
                t.toks.push(Tok { start, end, fold_start, fold_end, sentence, clause });
                continue;
            }
            let at = i;
            i += clen;
            match c {
                '.' | '!' | '?' | '\u{2026}' => {
                    let next = bytes.get(at + c.len_utf8()).copied();
                    let ends = match next {
                        None => true,
                        Some(b) => b.is_ascii_whitespace() || b == b'"' || b == b')' || b == b'\'' || b >= 0x80,
                    } || reading.glued_sentence_end
                        && glued_sentence_start(bytes, at + c.len_utf8())
                        && t.toks.last().is_some_and(|last| last.end == at);
                    let abbreviation = c == '.'
                        && t.toks.last().is_some_and(|last| {
                            last.end == at && {
                                let w = t.word(last);
                                // `no_answer_ends_sentence`: "No." abbreviates only before a number ("No. 5");
                                // "No. Your order…" is an answer and its sentence ends.
                                let answer = reading.no_answer_ends_sentence
                                    && ANSWER.contains(w)
                                    && !number_after(bytes, at + 1);
                                (is_abbreviation(w) && !answer)
                                    || (reading.more_currencies && RUPEE.contains(w))
                                    || (w.chars().count() == 1 && w.chars().all(char::is_alphabetic))
                            }
                        });
                    // "3.30pm" and "$49.99" keep going: a period with a digit right after is not an end.
                    let digit_after = next.is_some_and(|b| b.is_ascii_digit());
                    if ends && !abbreviation && !digit_after && !t.toks.is_empty() {
                        pending_sentence_end = true;
                        if c == '?' {
                            question = true;
                        }
                    } else if c == '?' || c == '!' {
                        pending_sentence_end = !t.toks.is_empty();
                        question |= c == '?';
                    }
                }
                '\n' | '\r' if !t.toks.is_empty() => pending_sentence_end = true,
                // The first mark after a word names the boundary: ", (" is a comma.
                ',' if reading.thousands_separator_in_clause && thousands_separator(bytes, at) => {}
                ',' if reading.decimal_comma && decimal_comma(bytes, at) => {}
                ',' | ';' | '(' | ')' if pending_clause_end == 0 => pending_clause_end = c as u8,
                '\u{2014}' if pending_clause_end == 0 => pending_clause_end = b'-',
                ',' | ';' | '(' | ')' | '\u{2014}' => {}
                '\u{2013}' | '-' => {
                    // A spaced dash separates clauses; "$49–$99" and "money-back" do not.
                    let before_space = at > 0 && bytes[at - 1] == b' ';
                    let after_space = bytes.get(at + c.len_utf8()) == Some(&b' ');
                    if before_space && after_space && pending_clause_end == 0 {
                        pending_clause_end = b'-';
                    }
                }
                _ => {}
            }
        }
        t.questions.push(question);
        t.blocks = Vec::with_capacity(src.len() / BLOCK + 1);
        let mut k = 0usize;
        for b in 0..=src.len() / BLOCK {
            while k < t.toks.len() && t.toks[k].start < b * BLOCK {
                k += 1;
            }
            t.blocks.push(k as u32);
        }
        t
    }

    /// How many tokens start before `pos` (`inclusive`: at or before it): `toks.partition_point(|t| t.start < pos)`,
    /// or `<=`, from `pos`'s block.
    pub(crate) fn toks_starting_before(&self, pos: usize, inclusive: bool) -> usize {
        let mut k = self.blocks.get(pos / BLOCK).map_or(self.toks.len(), |&k| k as usize);
        while k < self.toks.len() && (self.toks[k].start < pos || (inclusive && self.toks[k].start == pos)) {
            k += 1;
        }
        k
    }

    /// The folded form of a token.
    pub(crate) fn word(&self, t: &Tok) -> &str {
        &self.folded[t.fold_start as usize..t.fold_end as usize]
    }

    pub(crate) fn word_at(&self, i: usize) -> &str {
        self.word(&self.toks[i])
    }

    /// Index of the token that contains byte `pos`, or the nearest one before it.
    pub(crate) fn tok_containing(&self, pos: usize) -> Option<usize> {
        self.toks_starting_before(pos, true).checked_sub(1)
    }

    /// Whether sentence `s` is a question.
    pub(crate) fn is_question(&self, s: u32) -> bool {
        self.questions.get(s as usize).copied().unwrap_or(false)
    }

    /// The reply text between tokens `a` and `b`.
    pub(crate) fn gap(&self, a: usize, b: usize) -> &str {
        &self.src[self.toks[a].end..self.toks[b].start]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        let t = Text::new(s);
        t.toks.iter().map(|k| t.word(k).to_owned()).collect()
    }

    #[test]
    fn words_keep_inner_apostrophes_and_fold() {
        assert_eq!(words("I've refunded YOU, Pro's $49.99!"), ["i've", "refunded", "you", "pro's", "49", "99"]);
        assert_eq!(words("haven’t GARANTİLİ"), ["haven't", "garantili"]);
        assert_eq!(words("'quoted' money-back"), ["quoted", "money", "back"]);
    }

    #[test]
    fn sentences_and_clauses() {
        let t = Text::new("Dr. Lee is in. See you at 3.30pm, ok? Yes");
        let s: Vec<u32> = t.toks.iter().map(|k| k.sentence).collect();
        assert_eq!(s, [0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 2]);
        assert!(t.is_question(1));
        assert!(!t.is_question(0));
        let c: Vec<u32> = t.toks.iter().map(|k| k.clause).collect();
        assert_eq!(c[9], c[8] + 1); // "ok" after the comma
        let t = Text::new("Pro is $49 but Team is $99");
        assert!(t.toks[2].clause < t.toks[3].clause);
    }
}
