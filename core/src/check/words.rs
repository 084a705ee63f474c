//! The checker's English words as tables, read from the data file `core/words/en.txt` at compile time (issue 44, words
//! as data). Owns that file's reader, a `const fn` so that a missing list fails the build, and the tables it makes.

/// The data file: one list a section, with the part of docs/CHECKER.md that defines it.
const EN: &str = include_str!("../../words/en.txt");

const fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\r' | b'\t')
}

/// Whether the line at `i` is the header `[name]`.
const fn header_at(s: &[u8], i: usize, name: &[u8]) -> bool {
    let end = i + name.len() + 2;
    if end > s.len() || s[i] != b'[' || s[end - 1] != b']' || (end < s.len() && s[end] != b'\n') {
        return false;
    }
    let mut k = 0;
    while k < name.len() {
        if s[i + 1 + k] != name[k] {
            return false;
        }
        k += 1;
    }
    true
}

/// The bytes of list `name`: from the line after its header to the next header or the end.
// Only ever evaluated at compile time (the tables below are `const`): its panic is a build error, never a run's.
#[allow(clippy::panic)]
const fn section(src: &str, name: &str) -> (usize, usize) {
    let (s, name) = (src.as_bytes(), name.as_bytes());
    let (mut i, mut start) = (0, usize::MAX);
    while i < s.len() {
        if start == usize::MAX {
            if header_at(s, i, name) {
                start = i + name.len() + 2;
            }
        } else if s[i] == b'[' {
            return (start, i);
        }
        while i < s.len() && s[i] != b'\n' {
            i += 1;
        }
        i += 1;
    }
    if start == usize::MAX {
        panic!("core/words/en.txt: a list the checker reads is missing");
    }
    (start, s.len())
}

/// The next word at or after `i` before `end`, as a byte range (empty at the end), stepping over comments.
const fn next_word(s: &[u8], mut i: usize, end: usize) -> (usize, usize) {
    loop {
        while i < end && is_space(s[i]) {
            i += 1;
        }
        if i < end && s[i] == b'#' {
            while i < end && s[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        break;
    }
    let start = i;
    while i < end && !is_space(s[i]) {
        i += 1;
    }
    (start, i)
}

/// How many words list `name` has.
const fn count(src: &str, name: &str) -> usize {
    let s = src.as_bytes();
    let (mut i, end) = section(src, name);
    let mut n = 0;
    loop {
        let (a, b) = next_word(s, i, end);
        if a == b {
            return n;
        }
        n += 1;
        i = b;
    }
}

/// The words of list `name`, in the file's order.
// Only ever evaluated at compile time, as `section`. The words are cut at ASCII spaces out of a `str`, so they are
// always UTF-8 and the `Err` arm is never taken.
#[allow(clippy::panic)]
const fn list<const N: usize>(src: &'static str, name: &str) -> [&'static str; N] {
    let s = src.as_bytes();
    let (mut i, end) = section(src, name);
    let mut out = [""; N];
    let mut k = 0;
    while k < N {
        let (a, b) = next_word(s, i, end);
        let (head, _) = s.split_at(b);
        let (_, word) = head.split_at(a);
        out[k] = match core::str::from_utf8(word) {
            Ok(w) => w,
            Err(_) => panic!("core/words/en.txt: a word is not UTF-8"),
        };
        i = b;
        k += 1;
    }
    out
}

/// The entries of list `name` cut at their `=`: (word, value), in the file's order.
const fn pairs<const N: usize>(src: &'static str, name: &str) -> [(&'static str, &'static str); N] {
    let words = list::<N>(src, name);
    let mut out = [("", ""); N];
    let mut k = 0;
    while k < N {
        out[k] = cut(words[k], b'=');
        k += 1;
    }
    out
}

/// A pair's value read as a decimal number (a month's, a number word's).
#[allow(clippy::panic)]
const fn number(v: &str) -> u32 {
    let b = v.as_bytes();
    let (mut n, mut i) = (0u32, 0);
    while i < b.len() {
        if !b[i].is_ascii_digit() {
            panic!("core/words/en.txt: a value that should be a number is not");
        }
        n = n * 10 + (b[i] - b'0') as u32;
        i += 1;
    }
    n
}

/// An entry cut at its separator (`=` between a word and its value, `_` between two words), at compile time (a cut
/// at run time would cost a search per use).
// Only ever evaluated at compile time, as `section`.
#[allow(clippy::panic)]
const fn cut(entry: &'static str, separator: u8) -> (&'static str, &'static str) {
    let b = entry.as_bytes();
    let mut e = 0;
    while e < b.len() && b[e] != separator {
        e += 1;
    }
    if e == 0 || e + 1 >= b.len() {
        panic!("core/words/en.txt: an entry is not `word=value` or `first_second` where its list needs it");
    }
    // The separator is ASCII, so both halves are whole UTF-8 and the `Err` arm is never taken.
    let (first, second) = b.split_at(e);
    let (_, second) = second.split_at(1);
    match (core::str::from_utf8(first), core::str::from_utf8(second)) {
        (Ok(f), Ok(s)) => (f, s),
        _ => panic!("core/words/en.txt: an entry is not UTF-8"),
    }
}

/// A list of two-word phrases, each cut into its words.
const fn two_words<const N: usize>(list: &[&'static str]) -> [(&'static str, &'static str); N] {
    let mut out = [("", ""); N];
    let mut k = 0;
    while k < N {
        out[k] = cut(list[k], b'_');
        k += 1;
    }
    out
}

/// A list of pairs whose words are two-word phrases: (first, second, value).
const fn two_word_pairs<const N: usize>(
    list: &[(&'static str, &'static str)],
) -> [(&'static str, &'static str, &'static str); N] {
    let mut out = [("", "", ""); N];
    let mut k = 0;
    while k < N {
        let (f, s) = cut(list[k].0, b'_');
        out[k] = (f, s, list[k].1);
        k += 1;
    }
    out
}

/// [`phrase_words`]: the last word of each phrase.
pub(crate) const LAST_WORD: usize = usize::MAX;

/// Word `n` (from 0; [`LAST_WORD`], the last) of each phrase of a list of phrases (words joined by `_`): a set of them
/// rejects at once a word that opens (or closes) none of the phrases. A phrase with fewer words is kept whole:
/// [`any_phrase_at`] never matches it, so it only weakens the test.
pub(crate) const fn phrase_words<const N: usize>(list: &[&'static str], n: usize) -> [&'static str; N] {
    let mut out = [""; N];
    let mut k = 0;
    while k < N {
        let b = list[k].as_bytes();
        out[k] = list[k];
        // Each word in turn, from `start` to the next `_` or the end.
        let (mut start, mut i, mut word) = (0, 0, 0);
        while i <= b.len() {
            if i == b.len() || b[i] == b'_' {
                if word == n || (n == LAST_WORD && i == b.len()) {
                    out[k] = cut_at(list[k], start, i);
                    break;
                }
                word += 1;
                start = i + 1;
            }
            i += 1;
        }
        k += 1;
    }
    out
}

/// The bytes `start..end` of `s`, cut at ASCII bytes (so always UTF-8).
// Only ever evaluated at compile time, as `section`.
#[allow(clippy::panic)]
const fn cut_at(s: &'static str, start: usize, end: usize) -> &'static str {
    let (head, _) = s.as_bytes().split_at(end);
    let (_, part) = head.split_at(start);
    match core::str::from_utf8(part) {
        Ok(p) => p,
        Err(_) => panic!("core/words/en.txt: a phrase is not UTF-8"),
    }
}

/// The pairs of a list whose values are numbers.
const fn numbered<const N: usize>(p: &[(&'static str, &'static str)]) -> [(&'static str, u32); N] {
    let mut out = [("", 0); N];
    let mut k = 0;
    while k < N {
        out[k] = (p[k].0, number(p[k].1));
        k += 1;
    }
    out
}

/// The shortest and the longest word of a table, in bytes.
pub(crate) const fn lengths(words: &[&str]) -> (usize, usize) {
    let (mut lo, mut hi, mut k) = (usize::MAX, 0, 0);
    while k < words.len() {
        let n = words[k].len();
        if n < lo {
            lo = n;
        }
        if n > hi {
            hi = n;
        }
        k += 1;
    }
    (lo, hi)
}

/// The words of a table of pairs.
pub(crate) const fn firsts<V: Copy, const N: usize>(p: &[(&'static str, V)]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut k = 0;
    while k < N {
        out[k] = p[k].0;
        k += 1;
    }
    out
}

/// A table's words hashed into open-addressed slots at compile time, so that a lookup costs a hash of the word and a
/// probe or two whatever the table's length, where a scan of the table costs a comparison per word (most words of
/// a reply are in no table: they are rejected on their length, their first byte, or the hash kept in their slot).
/// Made by [`word_set!`]; a `fold` set hashes and compares words folded to ASCII lower case.
pub(crate) struct WordSet {
    /// The table's words, in the file's order: a hit is an index into them (and into the table of pairs they
    /// come from).
    words: &'static [&'static str],
    /// A power of two of slots, at least twice the words: (index of a word + 1, or 0 for an empty slot; its hash).
    slots: &'static [(u16, u32)],
    /// Bit `n` set when a word is `n` bytes long (words of 64 bytes or more are in no table).
    lens: u64,
    /// The bytes the words open with, and end with (both cases, in a `fold` set).
    first: [bool; 256],
    last: [bool; 256],
    fold: bool,
}

/// FNV-1a over a word's bytes, folded to ASCII lower case in a `fold` set.
#[inline(always)]
const fn hash(b: &[u8], fold: bool) -> u32 {
    let (mut h, mut i) = (0x811c_9dc5_u32, 0);
    while i < b.len() {
        let c = if fold { b[i].to_ascii_lowercase() } else { b[i] };
        h = (h ^ c as u32).wrapping_mul(0x0100_0193);
        i += 1;
    }
    h
}

/// The number of slots of a set of `n` words: a power of two, at least `2n`.
pub(crate) const fn slot_count(n: usize) -> usize {
    (2 * n).next_power_of_two()
}

/// The slots of a set of `words`, each word in the first free slot from its hash on.
// Only ever evaluated at compile time, as `section`: a table too large for its index is a build error.
#[allow(clippy::panic)]
pub(crate) const fn slots<const S: usize>(words: &[&str], fold: bool) -> [(u16, u32); S] {
    if words.len() >= u16::MAX as usize || S < 2 * words.len() || !S.is_power_of_two() {
        panic!("core/words/en.txt: a table too large for its set");
    }
    let mut out = [(0u16, 0u32); S];
    let mut k = 0;
    while k < words.len() {
        let h = hash(words[k].as_bytes(), fold);
        let mut i = h as usize & (S - 1);
        while out[i].0 != 0 {
            i = (i + 1) & (S - 1);
        }
        out[i] = (k as u16 + 1, h);
        k += 1;
    }
    out
}

/// The lengths of `words`, as bits.
// Only ever evaluated at compile time, as `section`.
#[allow(clippy::panic)]
pub(crate) const fn length_bits(words: &[&str]) -> u64 {
    let (mut bits, mut k) = (0u64, 0);
    while k < words.len() {
        if words[k].is_empty() || words[k].len() >= 64 {
            panic!("core/words/en.txt: a word empty or of 64 bytes or more");
        }
        bits |= 1 << words[k].len();
        k += 1;
    }
    bits
}

/// The bytes `words` open with (or with `last`, end with); both cases of each in a `fold` set.
pub(crate) const fn opening_bytes(words: &[&str], fold: bool, last: bool) -> [bool; 256] {
    let mut set = [false; 256];
    let mut k = 0;
    while k < words.len() {
        let b = words[k].as_bytes();
        let c = if last { b[b.len() - 1] } else { b[0] };
        set[c as usize] = true;
        if fold {
            set[c.to_ascii_lowercase() as usize] = true;
            set[c.to_ascii_uppercase() as usize] = true;
        }
        k += 1;
    }
    set
}

/// A [`WordSet`] of a table of words, made at compile time: `word_set!(TABLE)` compares words as written,
/// `word_set!(TABLE, fold)` folded to ASCII lower case; `word_set!(pairs TABLE)` takes the words of a table of pairs
/// (then [`WordSet::value`] reads their values).
macro_rules! word_set {
    ($words:expr) => {
        $crate::check::words::word_set!($words, false)
    };
    ($words:expr, fold) => {
        $crate::check::words::word_set!($words, true)
    };
    (pairs $pairs:expr) => {
        $crate::check::words::word_set!(&$crate::check::words::firsts::<_, { $pairs.len() }>($pairs), false)
    };
    (pairs $pairs:expr, fold) => {
        $crate::check::words::word_set!(&$crate::check::words::firsts::<_, { $pairs.len() }>($pairs), true)
    };
    ($words:expr, $fold:literal) => {
        $crate::check::words::WordSet::new(
            $words,
            &$crate::check::words::slots::<{ $crate::check::words::slot_count($words.len()) }>($words, $fold),
            $fold,
        )
    };
}
pub(crate) use word_set;

impl WordSet {
    /// A set of `words` over `slots` made by [`slots`] with the same `fold`.
    pub(crate) const fn new(words: &'static [&'static str], slots: &'static [(u16, u32)], fold: bool) -> WordSet {
        let (first, last) = (opening_bytes(words, fold, false), opening_bytes(words, fold, true));
        WordSet { words, slots, lens: length_bits(words), first, last, fold }
    }

    /// The index of `w` in the table, if it is there. Always inlined: the set is a constant, so its length bits, its
    /// opening bytes and `fold` are known where it is asked, and most words are rejected in a few instructions.
    #[inline(always)]
    pub(crate) fn index(&self, w: &str) -> Option<usize> {
        let b = w.as_bytes();
        if b.len() >= 64
            || self.lens >> b.len() & 1 == 0
            || !self.first[b[0] as usize]
            || !self.last[b[b.len() - 1] as usize]
        {
            return None;
        }
        let h = hash(b, self.fold);
        let mask = self.slots.len() - 1;
        let mut i = h as usize & mask;
        loop {
            let (k, hk) = self.slots[i];
            if k == 0 {
                return None;
            }
            let k = usize::from(k - 1);
            if hk == h {
                let word = self.words[k].as_bytes();
                let same = if self.fold { word.eq_ignore_ascii_case(b) } else { word == b };
                if same {
                    return Some(k);
                }
            }
            i = (i + 1) & mask;
        }
    }

    /// Whether `w` is in the table.
    #[inline(always)]
    pub(crate) fn contains(&self, w: &str) -> bool {
        self.index(w).is_some()
    }

    /// The value of `w` in `pairs`, the table of pairs the set's words were taken from (in the same order).
    #[inline(always)]
    pub(crate) fn value<V: Copy>(&self, pairs: &[(&str, V)], w: &str) -> Option<V> {
        self.index(w).and_then(|k| pairs.get(k)).map(|&(_, v)| v)
    }
}

/// Whether the words from token `k` on are those of `phrase` (words joined by `_`), whatever stands between them.
pub(crate) fn phrase_at(text: &super::text::Text<'_>, k: usize, phrase: &str) -> bool {
    phrase.split('_').enumerate().all(|(n, w)| text.toks.get(k + n).is_some_and(|t| text.word(t) == w))
}

/// Whether a phrase of `list` opens at token `k`; `ends`, the sets of its phrases' first and second words (made from
/// `list` at compile time by [`phrase_words`]), reject most words at once: this runs on the words
/// before every match.
#[inline(always)]
pub(crate) fn any_phrase_at(text: &super::text::Text<'_>, k: usize, list: &[&str], ends: &(WordSet, WordSet)) -> bool {
    let w = text.word_at(k);
    first_two(text, k, w, ends)
        && list.iter().any(|p| p.strip_prefix(w).is_some_and(|rest| rest.starts_with('_')) && phrase_at(text, k, p))
}

/// Whether token `k`, whose word is `w`, and the token after it are in the sets of first and second words `ends`.
fn first_two(text: &super::text::Text<'_>, k: usize, w: &str, ends: &(WordSet, WordSet)) -> bool {
    ends.0.contains(w) && text.toks.get(k + 1).is_some_and(|t| ends.1.contains(text.word(t)))
}

/// The sets of the first and the second words of a list of phrases, for [`any_phrase_at`].
macro_rules! phrase_starts {
    ($list:expr) => {
        (
            $crate::check::words::word_set!(&$crate::check::words::phrase_words::<{ $list.len() }>($list, 0)),
            $crate::check::words::word_set!(&$crate::check::words::phrase_words::<{ $list.len() }>($list, 1)),
        )
    };
}
pub(crate) use phrase_starts;

/// Whether `word`, with `before` the word before it, ends a two-word phrase of `list` (`in_case`).
pub(crate) fn pair_ends(list: &[(&str, &str)], before: Option<&str>, word: &str) -> bool {
    before.is_some_and(|b| list.iter().any(|&(first, second)| second == word && first == b))
}

/// The larger of two lengths.
pub(crate) const fn max(a: usize, b: usize) -> usize {
    if a > b { a } else { b }
}

/// Whether `s` opens with `phrase` (a phrase of a table of phrases, `in_the_morning`), its words one space apart.
pub(crate) fn starts_with_phrase(s: &str, phrase: &str) -> bool {
    let mut rest = s;
    for (k, word) in phrase.split('_').enumerate() {
        if k > 0 {
            match rest.strip_prefix(' ') {
                Some(r) => rest = r,
                None => return false,
            }
        }
        match rest.strip_prefix(word) {
            Some(r) => rest = r,
            None => return false,
        }
    }
    true
}

macro_rules! tables {
    ($( $(#[doc = $doc:literal])* $table:ident = $name:literal; )*) => {
        $( $(#[doc = $doc])* pub(crate) const $table: &[&str] = &list::<{ count(EN, $name) }>(EN, $name); )*

        /// Every table with its list's name, for the tests.
        #[cfg(test)]
        pub(crate) const TABLES: &[(&str, &[&str])] = &[$( ($name, $table), )*];
    };
}

tables! {
    /// Words that negate what follows them (and any word ending in `n't`).
    CUES = "negation_cues";
    /// Contracted negative auxiliaries without the apostrophe (a word ending in `n't` is one too).
    NEGATIVE_AUXILIARIES = "negative_auxiliaries";
    /// `tag_question`: the first words of a sentence that make it a question (and a word ending in `n't`).
    QUESTION_OPENERS = "question_openers";
    /// `progressives_and_rules`: determiners that make a present passive about a plural a report, not a rule.
    DETERMINERS = "determiners";
    /// `cue_after_modifier`: the prepositions that open a modifier between a phrase and the cue after it.
    PREPOSITIONS = "modifier_prepositions";
    /// Auxiliaries between a phrase and a cue after it: "refunds are not available".
    AUX_AFTER = "auxiliaries_after";
    /// Auxiliaries walked back over before an action verb.
    AUX_BEFORE = "auxiliaries_before";
    /// A modal (or `to`) before the verb group: future or hypothetical.
    MODALS = "modals";
    /// Words that make what follows a condition.
    CONDITIONALS = "conditions";
    /// `conditions_and_times_to_come`: more words that make what follows a condition, not a report.
    CONDITIONALS_MORE = "conditions_more";
    /// `conditions_and_times_to_come`: words that place what follows at another time; a present tense after them
    /// ("when your order is shipped", "until it has shipped") is a future event, a past one still a report.
    TEMPORAL = "times_to_come";
    /// `adverbs_after_modal`: adverbs stepped over between a modal and the participle.
    ADVERBS = "adverbs_after_modal";
    /// `get` / `have` of an offer ("I can get your order cancelled").
    CAUSATIVE = "causatives";
    /// Degree words that may make a participle an adjective ("fully booked").
    DEGREE = "degree_words";
    /// Indirect objects stepped over between an action verb and its object: "charged *you* nothing".
    INDIRECT = "indirect_objects";
    /// Words after a negative quantifier that name what the action did reach: "nothing *but* the fee".
    EXCEPTIVE = "exceptives";
    /// `span_end_no_value`: words that change a value, so that "from … to …" after them names the old value.
    CHANGES = "value_changes";
    /// A word that makes the amount before it a discount claim.
    AMOUNT_OFF = "amount_off";
    /// "save $N", "save up to N%".
    SAVE = "save";
    /// A question about the past opens with one of these.
    PAST_QUESTION_OPENERS = "past_question_openers";
    /// `degree_means_full`: participles that mean full.
    CAPACITY_WORDS = "capacity_words";
    /// A word right before an amount that makes it a bound.
    BOUNDS = "bounds";
    /// Comparatives before `than` that make the amount after it a bound.
    COMPARATIVES = "comparatives";
    /// Words after a count deal that keep it a deal.
    DEAL_FOLLOWERS = "deal_followers";
    /// Words after a range's second end that keep it an amount.
    RANGE_FOLLOWERS = "range_followers";
    /// `more_currencies`: more currency codes, in capitals (ISO 4217).
    CURRENCY_CODES_MORE = "currency_codes_more";
    /// Words that open a new clause: they stop negation scope and item association.
    CLAUSE_WORDS = "clause_words";
    /// Abbreviations whose period does not end a sentence.
    ABBREVIATIONS = "abbreviations";
    /// `period_with_year`: months whose whole name is as short as an abbreviation.
    MONTHS_UNABBREVIATED = "months_unabbreviated";
    /// `lower_may_no_month`: month names that in lower case are words, never the month.
    LOWER_NOT_MONTH = "lower_case_not_a_month";
    /// Words that are the time 12 PM.
    NOON = "noon";
    /// Words that are the time 12 AM.
    MIDNIGHT = "midnight";
    /// The endings of an ordinal day ("3rd").
    ORDINAL_ENDINGS = "ordinal_endings";
    /// The word between a day and its month ("3rd of Nov").
    DAY_OF_MONTH = "day_of_month";
    /// Words between two clock times that make them a range.
    TIME_RANGE_WORDS = "time_range_words";
    /// Phrases after a bare clock time that make it PM.
    AFTERNOON = "afternoon";
    /// Phrases after a bare clock time that make it AM.
    MORNING = "morning";
    /// `yet_in_clause`: clause words that open no clause of their own.
    CLAUSE_WORDS_IN_CLAUSE = "clause_words_in_clause";
    /// `no_answer_ends_sentence`: answers whose period ends the sentence unless a number follows.
    ANSWERS = "answers";
    /// `amount_words`: a word that may open a number in words without being one ("a hundred").
    NUMBER_OPENING_FILLER = "number_opening_filler";
    /// `amount_words`: a word that may join the words of a number ("one hundred and five").
    NUMBER_JOINING_FILLER = "number_joining_filler";
    /// A word after a number that makes it cents of a US dollar.
    CENTS = "cents";
    /// `currency_after_amount`: currency nouns that name no currency alone.
    CURRENCY_NOUNS_NOT_ALONE = "currency_nouns_not_alone";
    /// "US dollars" after a number: `US` as written, the noun in any case.
    US_DOLLARS = "us_dollars";
    /// `dollar_named_after`: a US dollar sign written after a number (`US$`).
    USD_SIGN_AFTER = "usd_sign_after";
    /// `dollar_named_after`: the word glued by a hyphen to a number that makes it US dollars (`59-dollar`).
    USD_GLUED_AFTER = "usd_glued_after";
    /// `dollar_named_after`: words after a number that make it US dollars (`dólares`), in the order tried.
    USD_WORDS_AFTER = "usd_words_after";
    /// A word between an amount and a number that makes them a range.
    AMOUNT_RANGE_WORDS = "amount_range_words";
    /// The word for `%`.
    PERCENT = "percent";
    /// `deal_shapes`: a word that also makes the amount before it a discount claim.
    SALE = "sale";
    /// `dollar_sale_is_price`: the words after a dollar amount that make it an amount off.
    AMOUNT_OFF_NOT_SALE = "amount_off_not_sale";
    /// Words between a word of saving and the amount, as phrases.
    SAVE_BOUND = "save_bound";
    /// Words right before an amount that make it a discount claim, as phrases.
    DISCOUNT_OF = "discount_of";
    /// `deal_shapes`: the deal "buy one, get one free" in one word.
    DEAL_BOGO = "deal_bogo";
    /// `deal_shapes`: what opens "buy N get M free".
    DEAL_BUY = "deal_buy";
    /// `deal_shapes`: what joins the counts of "buy N get M free".
    DEAL_GET = "deal_get";
    /// `deal_shapes`: what makes "buy N get M" free.
    DEAL_FREE = "deal_free";
    /// `deal_shapes`: what makes "buy N get M" half off.
    DEAL_HALF = "deal_half";
    /// The words after *half* that make it a claim.
    DEAL_HALF_AFTER = "deal_half_after";
    /// `deal_shapes`: the word between the counts of "N for M".
    DEAL_FOR = "deal_for";
    /// The word after a fraction that makes it a claim.
    FRACTION_AFTER = "fraction_after";
    /// The list `will_contractions` (its comment in core/words/en.txt says what it is and where it is defined).
    WILL_CONTRACTIONS = "will_contractions";
    /// The list `would_contractions` (its comment in core/words/en.txt says what it is and where it is defined).
    WOULD_CONTRACTIONS = "would_contractions";
    /// The list `no_longer` (its comment in core/words/en.txt says what it is and where it is defined).
    NO_LONGER = "no_longer";
    /// The list `negative_ending` (its comment in core/words/en.txt says what it is and where it is defined).
    NEGATIVE_ENDING = "negative_ending";
    /// The list `possessive` (its comment in core/words/en.txt says what it is and where it is defined).
    POSSESSIVE = "possessive";
    /// The list `endings` (its comment in core/words/en.txt says what it is and where it is defined).
    ENDINGS = "endings";
    /// The list `doubling_endings` (its comment in core/words/en.txt says what it is and where it is defined).
    DOUBLING_ENDINGS = "doubling_endings";
    /// The list `undoubled_finals` (its comment in core/words/en.txt says what it is and where it is defined).
    UNDOUBLED_FINALS = "undoubled_finals";
    /// The list `e_stem` (its comment in core/words/en.txt says what it is and where it is defined).
    E_STEM = "e_stem";
    /// The list `e_stem_endings` (its comment in core/words/en.txt says what it is and where it is defined).
    E_STEM_ENDINGS = "e_stem_endings";
    /// The list `y_stem` (its comment in core/words/en.txt says what it is and where it is defined).
    Y_STEM = "y_stem";
    /// The list `y_stem_endings` (its comment in core/words/en.txt says what it is and where it is defined).
    Y_STEM_ENDINGS = "y_stem_endings";
    /// The list `hedges` (its comment in core/words/en.txt says what it is and where it is defined).
    HEDGES = "hedges";
    /// The list `reassurances` (its comment in core/words/en.txt says what it is and where it is defined).
    REASSURANCES = "reassurances";
    /// The list `pseudo_negations` (its comment in core/words/en.txt says what it is and where it is defined).
    PSEUDO_NEGATIONS = "pseudo_negations";
    /// The list `hyphenated_no` (its comment in core/words/en.txt says what it is and where it is defined).
    HYPHENATED_NO = "hyphenated_no";
    /// The list `hyphenated_no_negates` (its comment in core/words/en.txt says what it is and where it is defined).
    HYPHENATED_NO_NEGATES = "hyphenated_no_negates";
    /// The list `not` (its comment in core/words/en.txt says what it is and where it is defined).
    NOT = "not";
    /// The list `not_to` (its comment in core/words/en.txt says what it is and where it is defined).
    NOT_TO = "not_to";
    /// The list `not_never` (its comment in core/words/en.txt says what it is and where it is defined).
    NOT_NEVER = "not_never";
    /// The list `adverb_ending` (its comment in core/words/en.txt says what it is and where it is defined).
    ADVERB_ENDING = "adverb_ending";
    /// The list `adverbs_before_not` (its comment in core/words/en.txt says what it is and where it is defined).
    ADVERBS_BEFORE_NOT = "adverbs_before_not";
    /// The list `present_auxiliaries` (its comment in core/words/en.txt says what it is and where it is defined).
    PRESENT_AUXILIARIES = "present_auxiliaries";
    /// The list `auxiliaries_stepped` (its comment in core/words/en.txt says what it is and where it is defined).
    AUXILIARIES_STEPPED = "auxiliaries_stepped";
    /// The list `present_contractions` (its comment in core/words/en.txt says what it is and where it is defined).
    PRESENT_CONTRACTIONS = "present_contractions";
    /// The list `rule_auxiliaries` (its comment in core/words/en.txt says what it is and where it is defined).
    RULE_AUXILIARIES = "rule_auxiliaries";
    /// The list `plural_ending` (its comment in core/words/en.txt says what it is and where it is defined).
    PLURAL_ENDING = "plural_ending";
    /// The list `progressive_auxiliary` (its comment in core/words/en.txt says what it is and where it is defined).
    PROGRESSIVE_AUXILIARY = "progressive_auxiliary";
    /// The list `once_again` (its comment in core/words/en.txt says what it is and where it is defined).
    ONCE_AGAIN = "once_again";
    /// The list `conditions_two_words` (its comment in core/words/en.txt says what it is and where it is defined).
    CONDITIONS_TWO_WORDS = "conditions_two_words";
    /// The list `times_to_come_two_words` (its comment in core/words/en.txt says what it is and where it is defined).
    TIMES_TO_COME_TWO_WORDS = "times_to_come_two_words";
    /// The list `let_us` (its comment in core/words/en.txt says what it is and where it is defined).
    LET_US = "let_us";
    /// The list `let` (its comment in core/words/en.txt says what it is and where it is defined).
    LET = "let";
    /// The list `let_objects` (its comment in core/words/en.txt says what it is and where it is defined).
    LET_OBJECTS = "let_objects";
    /// The list `full_after` (its comment in core/words/en.txt says what it is and where it is defined).
    FULL_AFTER = "full_after";
    /// The list `full_out` (its comment in core/words/en.txt says what it is and where it is defined).
    FULL_OUT = "full_out";
    /// The list `up_front` (its comment in core/words/en.txt says what it is and where it is defined).
    UP_FRONT = "up_front";
    /// The list `than` (its comment in core/words/en.txt says what it is and where it is defined).
    THAN = "than";
    /// The list `bound_phrases` (its comment in core/words/en.txt says what it is and where it is defined).
    BOUND_PHRASES = "bound_phrases";
    /// The list `possessive_objects` (its comment in core/words/en.txt says what it is and where it is defined).
    POSSESSIVE_OBJECTS = "possessive_objects";
    /// The list `negative_quantifiers` (its comment in core/words/en.txt says what it is and where it is defined).
    NEGATIVE_QUANTIFIERS = "negative_quantifiers";
    /// The list `no_quantifier` (its comment in core/words/en.txt says what it is and where it is defined).
    NO_QUANTIFIER = "no_quantifier";
    /// The list `not_quantifier` (its comment in core/words/en.txt says what it is and where it is defined).
    NOT_QUANTIFIER = "not_quantifier";
    /// The list `not_quantifier_followers` (its comment in core/words/en.txt says what it is and where it is defined).
    NOT_QUANTIFIER_FOLLOWERS = "not_quantifier_followers";
    /// The list `exceptive_right_after` (its comment in core/words/en.txt says what it is and where it is defined).
    EXCEPTIVE_RIGHT_AFTER = "exceptive_right_after";
    /// The list `respectively` (its comment in core/words/en.txt says what it is and where it is defined).
    RESPECTIVELY = "respectively";
    /// The list `value_span_words` (its comment in core/words/en.txt says what it is and where it is defined).
    VALUE_SPAN_WORDS = "value_span_words";
    /// The list `value_from` (its comment in core/words/en.txt says what it is and where it is defined).
    VALUE_FROM = "value_from";
    /// The list `value_replaced` (its comment in core/words/en.txt says what it is and where it is defined).
    VALUE_REPLACED = "value_replaced";
    /// The list `value_not` (its comment in core/words/en.txt says what it is and where it is defined).
    VALUE_NOT = "value_not";
    /// The list `value_negative_auxiliaries` (its comment in core/words/en.txt says what it is and where it is defined).
    VALUE_NEGATIVE_AUXILIARIES = "value_negative_auxiliaries";
}

macro_rules! pair_tables {
    ($( $(#[doc = $doc:literal])* $table:ident = $name:literal; )*) => {
        $( $(#[doc = $doc])*
        pub(crate) const $table: &[(&str, &str)] = &pairs::<{ count(EN, $name) }>(EN, $name); )*

        /// Every table of pairs with its list's name, for the tests.
        #[cfg(test)]
        pub(crate) const PAIR_TABLES: &[(&str, &[(&str, &str)])] = &[$( ($name, $table), )*];
    };
}

pair_tables! {
    /// Month names and short forms, with their numbers.
    MONTH_NAMES = "months";
    /// `more_currencies`: the abbreviation of rupees before an amount, and its currency.
    RUPEES = "rupees_abbreviated";
    /// Currency words after a number, any case, and their currency.
    CURRENCY_WORDS = "currency_words";
    /// `currency_after_amount`: currency nouns after a number or a nation, with the currency each names alone.
    CURRENCY_NOUNS = "currency_nouns";
    /// `currency_after_amount`: a noun (opening with the first word) and the word after it that name a currency.
    POUNDS_STERLING = "pounds_sterling";
    /// `currency_after_amount`: nations' adjectives, as written, and their currencies.
    NATIONS = "nations";
    /// `currency_after_amount`: nations of two words, and their currencies.
    NATIONS_TWO_WORDS = "nations_two_words";
    /// Letters glued before `$` that make it another dollar, or plain US.
    DOLLAR_PREFIXES = "dollar_prefixes";
    /// Currency codes before or after a number, as written, with their currency.
    CURRENCY_CODES = "currency_codes";
    /// `more_currencies`: currency signs and abbreviations written after the number, in the order they are tried.
    SIGNS_AFTER = "currency_signs_after";
    NUMBER_WORD_VALUES = "number_words";
    HUNDRED_VALUES = "hundreds";
    THOUSAND_VALUES = "thousands";
    LARGE_SCALE_VALUES = "large_scales";
    MAGNITUDE_VALUES = "magnitudes_glued";
    FRACTION_VALUES = "fractions";
}

/// The number words with their values.
pub(crate) const NUMBER_WORDS: &[(&str, u32)] = &numbered::<{ count(EN, "number_words") }>(NUMBER_WORD_VALUES);
/// The number words alone.
pub(crate) const NUMBER_WORDS_ONLY: &[&str] = &firsts::<_, { count(EN, "number_words") }>(NUMBER_WORD_VALUES);
/// `amount_words`: the word that multiplies the number before it, and by what.
pub(crate) const HUNDREDS: &[(&str, u32)] = &numbered::<{ count(EN, "hundreds") }>(HUNDRED_VALUES);
/// Scale words read in every version that reads amounts in words.
pub(crate) const THOUSANDS: &[(&str, u32)] = &numbered::<{ count(EN, "thousands") }>(THOUSAND_VALUES);
/// `scale_words`: larger scale words.
pub(crate) const LARGE_SCALES: &[(&str, u32)] = &numbered::<{ count(EN, "large_scales") }>(LARGE_SCALE_VALUES);
/// `magnitudes`: magnitudes glued to a number, as written, with their values.
pub(crate) const MAGNITUDES: &[(&str, u32)] = &numbered::<{ count(EN, "magnitudes_glued") }>(MAGNITUDE_VALUES);
macro_rules! two_word_tables {
    ($( $(#[doc = $doc:literal])* $table:ident = $list:ident, $name:literal; )*) => {
        $( $(#[doc = $doc])*
        pub(crate) const $table: &[(&str, &str)] = &two_words::<{ count(EN, $name) }>($list); )*
    };
}

two_word_tables! {
    /// `nations_two_words`-style phrases of two words, cut: `us_dollars`.
    US_DOLLARS_CUT = US_DOLLARS, "us_dollars";
    /// `bound_phrases`, cut.
    BOUND_PHRASES_CUT = BOUND_PHRASES, "bound_phrases";
    /// `value_replaced`, cut.
    VALUE_REPLACED_CUT = VALUE_REPLACED, "value_replaced";
    /// `no_longer`, cut.
    NO_LONGER_CUT = NO_LONGER, "no_longer";
    /// `conditions_two_words`, cut.
    CONDITIONS_TWO_WORDS_CUT = CONDITIONS_TWO_WORDS, "conditions_two_words";
    /// `times_to_come_two_words`, cut.
    TIMES_TO_COME_TWO_WORDS_CUT = TIMES_TO_COME_TWO_WORDS, "times_to_come_two_words";
    /// `once_again`, cut.
    ONCE_AGAIN_CUT = ONCE_AGAIN, "once_again";
}

/// `nations_two_words`, cut: (first word, second word, currency).
pub(crate) const NATIONS_TWO: &[(&str, &str, &str)] =
    &two_word_pairs::<{ count(EN, "nations_two_words") }>(NATIONS_TWO_WORDS);
/// `pounds_sterling`, cut: (noun, second word, currency).
pub(crate) const STERLING: &[(&str, &str, &str)] = &two_word_pairs::<{ count(EN, "pounds_sterling") }>(POUNDS_STERLING);

/// Fractions that are a percent off, with the percent.
pub(crate) const FRACTIONS: &[(&str, u32)] = &numbered::<{ count(EN, "fractions") }>(FRACTION_VALUES);
/// The currency codes' words alone.
pub(crate) const CURRENCY_CODE_WORDS: &[&str] = &firsts::<_, { count(EN, "currency_codes") }>(CURRENCY_CODES);
/// The currency nouns alone.
pub(crate) const CURRENCY_NOUN_WORDS: &[&str] = &firsts::<_, { count(EN, "currency_nouns") }>(CURRENCY_NOUNS);
/// The currency words alone.
pub(crate) const CURRENCY_WORDS_ONLY: &[&str] = &firsts::<_, { count(EN, "currency_words") }>(CURRENCY_WORDS);

/// Month names and short forms alone.
pub(crate) const MONTH_NAMES_ONLY: &[&str] = &firsts::<_, { count(EN, "months") }>(MONTH_NAMES);

/// Month names and short forms with their numbers (1 to 12).
pub(crate) const MONTHS: &[(&str, u32)] = &numbered::<{ count(EN, "months") }>(MONTH_NAMES);

#[cfg(test)]
mod tests {
    use super::*;

    /// The lists compared as written, capitals and all.
    const AS_WRITTEN: &[&str] = &["us_dollars", "usd_sign_after", "usd_words_after"];

    /// Every list is there and not empty, its words are unique, and each is written as the checker compares it:
    /// folded to lower case (the currency codes, compared as written, in capitals).
    #[test]
    fn every_list_is_read_as_written() {
        for (name, words) in TABLES {
            assert!(!words.is_empty(), "{name}: empty");
            let mut sorted = words.to_vec();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), words.len(), "{name}: a word twice");
            for w in *words {
                if *name == "currency_codes_more" {
                    assert_eq!(*w, w.to_uppercase(), "{name}: {w}");
                } else if !AS_WRITTEN.contains(name) {
                    assert_eq!(*w, w.to_lowercase(), "{name}: {w}");
                }
                assert!(!w.is_empty() && !w.contains(['#', '[', ']']), "{name}: {w}");
            }
        }
        for (name, pairs) in PAIR_TABLES {
            assert!(!pairs.is_empty(), "{name}: empty");
            let mut words: Vec<&str> = pairs.iter().map(|(w, _)| *w).collect();
            words.sort_unstable();
            words.dedup();
            assert_eq!(words.len(), pairs.len(), "{name}: a word twice");
        }
        assert_eq!(MONTHS.iter().filter(|(_, m)| *m == 12).count(), 2, "december and dec");
        assert!(MONTHS.iter().all(|(_, m)| (1..=12).contains(m)));
        assert_eq!(MODALS, ["will", "would", "can", "could", "should", "may", "might", "must", "shall", "to"]);
        assert_eq!(CURRENCY_CODES_MORE.len(), 25);
    }

    /// A linear scan of a table: what a [`WordSet`] must agree with.
    fn scan(words: &[&str], w: &str, fold: bool) -> Option<usize> {
        words.iter().position(|x| if fold { x.eq_ignore_ascii_case(w) } else { *x == w })
    }

    /// Words that are in no table near the words of `words`: each word with a byte changed, cut, lengthened, in
    /// capitals, and empty or long.
    fn near_misses(words: &[&str]) -> Vec<String> {
        let mut out = vec![String::new(), "x".repeat(70), "\u{e9}t\u{e9}".to_owned()];
        for w in words {
            let mut b = w.as_bytes().to_vec();
            out.push(w.to_uppercase());
            out.push(format!("{w}s"));
            out.push(format!("{w}{w}"));
            let mut cut = w.chars();
            cut.next_back();
            out.push(cut.as_str().to_owned());
            for i in 0..b.len() {
                let c = b[i];
                b[i] = if c == b'z' { b'a' } else { c.wrapping_add(1) };
                if let Ok(s) = std::str::from_utf8(&b) {
                    out.push(s.to_owned());
                }
                b[i] = c;
            }
        }
        out
    }

    /// Every table's set finds every word of the table at its index, as written and (in a folded set) in capitals,
    /// and agrees with a linear scan on generated words that are not in it; the sets of phrases' first and last
    /// words agree with a scan of the words they were cut from.
    #[test]
    fn word_sets_agree_with_a_linear_scan() {
        macro_rules! check {
            ($set:expr, $words:expr, $fold:expr) => {{
                let (set, words): (WordSet, &[&str]) = ($set, $words);
                for w in words {
                    assert_eq!(set.index(w), scan(words, w, $fold), "{w}");
                    if $fold {
                        assert_eq!(set.index(&w.to_uppercase()), scan(words, w, true), "{w}");
                    }
                }
                for w in near_misses(words) {
                    assert_eq!(set.index(&w), scan(words, &w, $fold), "{w:?}");
                }
            }};
        }
        // Every list, as written and folded (the `const` sets are made by the same macro as below).
        for (name, words) in TABLES {
            let exact = WordSet::new(words, Box::leak(slots_for(words, false).into_boxed_slice()), false);
            let folded = WordSet::new(words, Box::leak(slots_for(words, true).into_boxed_slice()), true);
            for w in near_misses(words).iter().map(String::as_str).chain(words.iter().copied()) {
                assert_eq!(exact.index(w), scan(words, w, false), "{name}: {w:?}");
                assert_eq!(folded.index(w), scan(words, w, true), "{name}: {w:?}");
            }
        }
        for (name, pairs) in PAIR_TABLES {
            let words: &'static [&str] =
                Box::leak(pairs.iter().map(|(w, _)| *w).collect::<Vec<_>>().into_boxed_slice());
            let set = WordSet::new(words, Box::leak(slots_for(words, true).into_boxed_slice()), true);
            for w in near_misses(words).iter().map(String::as_str).chain(words.iter().copied()) {
                assert_eq!(set.index(w), scan(words, w, true), "{name}: {w:?}");
                assert_eq!(set.value(pairs, w), scan(words, w, true).map(|k| pairs[k].1), "{name}: {w:?}");
            }
        }
        // The `const` sets the scanners use, made at compile time.
        const MONTH: WordSet = word_set!(MONTH_NAMES_ONLY, fold);
        const CODE: WordSet = word_set!(CURRENCY_CODE_WORDS);
        const NUMBER: WordSet = word_set!(NUMBER_WORDS_ONLY, fold);
        const CLAUSE: WordSet = word_set!(CLAUSE_WORDS);
        const ABBREVIATION: WordSet = word_set!(ABBREVIATIONS);
        const PSEUDO: (WordSet, WordSet) = phrase_starts!(PSEUDO_NEGATIONS);
        const LAST: WordSet = word_set!(&phrase_words::<{ SAVE_BOUND.len() }>(SAVE_BOUND, LAST_WORD));
        check!(MONTH, MONTH_NAMES_ONLY, true);
        check!(CODE, CURRENCY_CODE_WORDS, false);
        check!(NUMBER, NUMBER_WORDS_ONLY, true);
        check!(CLAUSE, CLAUSE_WORDS, false);
        check!(ABBREVIATION, ABBREVIATIONS, false);
        let (first, second) = PSEUDO;
        for p in PSEUDO_NEGATIONS {
            let mut words = p.split('_');
            assert!(first.contains(words.next().unwrap_or_default()), "{p}");
            assert!(second.contains(words.next().unwrap_or_default()), "{p}");
        }
        let last = LAST;
        assert!(SAVE_BOUND.iter().all(|p| last.contains(p.rsplit('_').next().unwrap_or_default())));
        assert!(!last.contains("save") && !last.contains("up"));
    }

    /// The slots of a set made at run time (the sets of the scanners are made at compile time by the same `const fn`),
    /// so that every list can be tried in a loop.
    fn slots_for(words: &[&str], fold: bool) -> Vec<(u16, u32)> {
        match slot_count(words.len()) {
            2 => slots::<2>(words, fold).to_vec(),
            4 => slots::<4>(words, fold).to_vec(),
            8 => slots::<8>(words, fold).to_vec(),
            16 => slots::<16>(words, fold).to_vec(),
            32 => slots::<32>(words, fold).to_vec(),
            64 => slots::<64>(words, fold).to_vec(),
            128 => slots::<128>(words, fold).to_vec(),
            256 => slots::<256>(words, fold).to_vec(),
            512 => slots::<512>(words, fold).to_vec(),
            _ => slots::<1024>(words, fold).to_vec(),
        }
    }

    /// The string literals of Rust source `src` (outside comments and char literals), escapes `\u{…}` dropped.
    fn string_literals(src: &str) -> Vec<String> {
        let c: Vec<char> = src.chars().collect();
        let (mut out, mut i) = (Vec::new(), 0);
        while i < c.len() {
            match c[i] {
                '/' if c.get(i + 1) == Some(&'/') => {
                    while i < c.len() && c[i] != '\n' {
                        i += 1;
                    }
                }
                // A char literal: `'"'`, `'\''`, `'\u{2018}'`; anything else after `'` is a lifetime or a label.
                '\'' if c.get(i + 1) == Some(&'\\') => {
                    i += 2;
                    while i < c.len() && c[i] != '\'' {
                        i += 1;
                    }
                }
                '\'' if c.get(i + 2) == Some(&'\'') => i += 2,
                '"' => {
                    let mut lit = String::new();
                    i += 1;
                    while i < c.len() && c[i] != '"' {
                        if c[i] == '\\' {
                            i += 1;
                            if c.get(i) == Some(&'u') {
                                while i < c.len() && c[i] != '}' {
                                    i += 1;
                                }
                                i += 1;
                                continue;
                            }
                        }
                        if let Some(&ch) = c.get(i) {
                            lit.push(ch);
                        }
                        i += 1;
                    }
                    out.push(lit);
                }
                _ => {}
            }
            i += 1;
        }
        out
    }

    /// Whether a string literal of the scanners' code names an English word. Allowed: literals without a letter
    /// (punctuation, symbols), ISO 4217 codes (three capitals: not English), and the findings' own wording — a
    /// format string (`{`), a rule id (`price:mismatch`) or a `why` that quotes the reply (`"`): what the checker
    /// writes, not what it reads (docs/CHECKER.md §"Wording of why").
    fn names_a_word(lit: &str) -> bool {
        let code = lit.len() == 3 && lit.bytes().all(|b| b.is_ascii_uppercase());
        let output = lit.contains(['{', ':', '"']);
        lit.chars().any(char::is_alphabetic) && !code && !output
    }

    /// The test below can fail: it finds the words of a word list written in code, and lets punctuation, codes and
    /// the findings' wording pass.
    #[test]
    fn a_word_in_code_is_found() {
        let code = "fn f(w: &str) -> bool { matches!(w, \"but\" | \"and\") || w == \"-\" } // \"not\"\n\
                    let q = matches!(c, '\\'' | '\"' | '\\u{2018}'); let lt: &'static str = \"\\u{2013}\";\n\
                    format!(\"{} is {}, not {stated}.\"); \"price:mismatch\"; \"EUR\"; b\"dollar\"; \"US$\"";
        let words: Vec<String> = string_literals(code).into_iter().filter(|l| names_a_word(l)).collect();
        assert_eq!(words, ["but", "and", "dollar", "US$"]);
    }

    /// No English word in the scanners' code (issue 44, words as data): a word list defined in core/src/check/
    /// outside this file fails, and so does every string literal that names a word, outside the tests and this file.
    /// `receipts.rs` and `record.rs` read the caller's JSON (receipt keys, a record's facts), not the reply: their
    /// literals are wire names and error texts, and are not read for words.
    #[test]
    fn the_scanners_name_no_english_word() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/check");
        let mut read = 0;
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
            if !name.ends_with(".rs") || name == "words.rs" {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            read += usize::from(!text.is_empty());
            // No word list is defined in code, tests included.
            for (n, line) in text.lines().enumerate() {
                assert!(!line.contains(": &[&str] = &["), "{name}:{}: a word list in code: {line}", n + 1);
            }
            if ["receipts.rs", "record.rs"].contains(&name.as_str()) {
                continue;
            }
            let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or_default();
            let words: Vec<String> = string_literals(code).into_iter().filter(|l| names_a_word(l)).collect();
            assert!(words.is_empty(), "{name}: English words in code, to move to core/words/en.txt: {words:?}");
        }
        assert!(read > 5, "only {read} files of core/src/check/ read");
    }
}
