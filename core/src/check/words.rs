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
}

#[cfg(test)]
mod tests {
    use super::*;

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
                let folded = if *name == "currency_codes_more" { w.to_uppercase() } else { w.to_lowercase() };
                assert_eq!(*w, folded, "{name}: {w}");
                assert!(!w.is_empty() && !w.contains(['#', '[', ']']), "{name}: {w}");
            }
        }
        assert_eq!(MODALS, ["will", "would", "can", "could", "should", "may", "might", "must", "shall", "to"]);
        assert_eq!(CURRENCY_CODES_MORE.len(), 25);
    }

    /// A word list no longer lives in the scanners' code: the lists that moved to `core/words/en.txt` are defined
    /// nowhere else in core/src/check/.
    #[test]
    fn the_scanners_define_no_word_list() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/check");
        let mut read = 0;
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|x| x != "rs") || path.ends_with("words.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            read += usize::from(!text.is_empty());
            for (n, line) in text.lines().enumerate() {
                assert!(!line.contains(": &[&str] = &["), "{}:{}: a word list in code: {line}", path.display(), n + 1);
            }
        }
        assert!(read > 5, "only {read} files of core/src/check/ read");
    }
}
