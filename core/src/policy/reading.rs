//! How each checker version reads a reply: one row a version, each a set of named behaviours (issue 44). The
//! scanners in `check/` take a row and ask it for a behaviour; they never see the version. A new version is one row.

use super::CheckerVersion;

/// One named behaviour of the reading: its field, the version that introduced it, where that version's entry in
/// docs/CHECKER.md and docs/CHECKER_VERSIONS.md lists it, and its one-line doc.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Behaviour {
    pub(crate) name: &'static str,
    pub(crate) since: CheckerVersion,
    /// The item of that version's list ("class 5", "mend 12"; for `2026-11-01`, the difference from `2026-10-27`).
    pub(crate) item: &'static str,
    pub(crate) doc: &'static str,
    pub(crate) get: fn(&Reading) -> bool,
}

macro_rules! behaviours {
    ($( #[doc = $doc:literal] $field:ident: $since:ident, $item:literal; )*) => {
        /// What a checker version reads in a reply: each field a behaviour, `true` from the version that introduced
        /// it on. Rows: [`CheckerVersion::reading`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub struct Reading {
            $( #[doc = $doc] pub(crate) $field: bool, )*
        }

        /// The reading with no behaviour at all.
        const NOTHING: Reading = Reading { $( $field: false, )* };

        /// Every behaviour, in the order of the fields.
        pub(crate) const BEHAVIOURS: &[Behaviour] = &[
            $( Behaviour {
                name: stringify!($field),
                since: CheckerVersion::$since,
                item: $item,
                doc: $doc,
                get: |r| r.$field,
            }, )*
        ];
    };
}

behaviours! {
    /// A cue right after a forbidden phrase or an action verb negates it ("Refunds are not available").
    cue_after_phrase: V2026_11_01, "1";
    /// Magnitudes on amounts: `$10k`, `$1.5M`, `$2bn`, `$2 million`.
    magnitudes: V2026_11_01, "2";

    /// A negation cue's scope steps over a parenthetical aside ("We do not, as a rule, promise").
    aside_in_scope: V2026_12_01, "class 1";
    /// A cue after a phrase negates it only by negating the phrase itself ("is not guaranteed", not "promise no fees").
    cue_after_by_role: V2026_12_01, "class 2";
    /// A currency after a `$` amount (`$79 NZD`, `$79 (CAD)`) or in words after a number (`79 Swiss francs`).
    currency_after_amount: V2026_12_01, "class 3";
    /// Every value stated for a fact in its clause is judged; old and rejected ones (`from`, `instead of`) are not.
    every_fact_value: V2026_12_01, "class 4";
    /// An action verb's role: offers, adjectives, quoted words and negative objects claim nothing.
    action_verb_roles: V2026_12_01, "class 5";
    /// A negated or comparative amount ("not $199", "under $50") states no price and no amount off.
    negated_and_bound_amounts: V2026_12_01, "class 5";
    /// Quoted words, and a question about the past, state no forbidden phrase and no discount.
    quotes_and_past_questions: V2026_12_01, "class 5";
    /// "Starter and Pro are $49 and $149 respectively" pairs the amounts with the items in order.
    respectively: V2026_12_01, "class 5";
    /// Amounts in words before a currency word ("forty-nine dollars").
    amount_words: V2026_12_01, "class 6";
    /// Deal shapes ("buy one, get one free", "2 for 1") and `sale` after a percent or an amount.
    deal_shapes: V2026_12_01, "class 6";
    /// Stated totals: a count of an item times its price ("3 seats at $149 come to $447").
    stated_totals: V2026_12_01, "class 6";
    /// Formatter spaces and dashes (U+202F, U+00A0, U+2011, …) are read like their ASCII twins.
    formatter_spaces: V2026_12_01, "class 7";

    /// A thousands separator ("$1,299") ends no clause.
    thousands_separator_in_clause: V2026_12_03, "1";
    /// An em dash ends a clause and never joins a range ("$49 — 10 or more seats").
    em_dash_no_range: V2026_12_03, "2";
    /// Lower-case `may` is never the month, in either order ("2 may arrive late").
    lower_may_no_month: V2026_12_03, "3";
    /// A period after a month is the date's only after an abbreviation with a year to follow ("3 Nov. 2026").
    month_period_with_year: V2026_12_03, "4";
    /// An amount's own words (cents, a code after it, number words) are not words between it and an item.
    amount_words_not_between: V2026_12_03, "5";

    /// A decimal comma (`49,90 €`, `$49,50`, `1.299,00 €`, `49,- €`), which ends no clause.
    decimal_comma: V2026_12_04, "1";
    /// A dollar currency's code before `$` names it (`CAD $1,299`, `AUD $49`, `NZD$49`).
    dollar_code_before: V2026_12_04, "2";
    /// `million` and `billion` count in amounts in words ("two million dollars").
    scale_words: V2026_12_04, "3";
    /// A period right before a capitalised word ends the sentence ("Pro is $49.Team is $1,299.").
    glued_sentence_end: V2026_12_04, "4";
    /// After *fully, completely, totally, entirely* only a word that means full is an adjective; `up front` is none.
    degree_means_full: V2026_12_04, "5";
    /// "No." ends its sentence unless a number follows ("No. Your order was cancelled").
    no_answer_ends_sentence: V2026_12_04, "6";
    /// A `no` hyphenated into a modifier is no cue ("a no-quibble guarantee").
    hyphenated_no: V2026_12_04, "7";
    /// Reassurances ("no worries", "don't worry", "no problem") negate nothing.
    reassurances: V2026_12_04, "8";
    /// `once again` and `once more` are no condition.
    once_again: V2026_12_04, "9";
    /// `yet` opens no clause of its own ("I haven't yet refunded it").
    yet_in_clause: V2026_12_04, "10";
    /// Adverbs between a modal and the participle are stepped over ("will automatically be refunded").
    adverbs_after_modal: V2026_12_04, "11";
    /// *in case, assuming, provided* are conditions; *when, after, until, as soon as* with a present verb are to come.
    conditions_and_times_to_come: V2026_12_04, "12";
    /// Progressives ("is being processed") and rules ("Refunds are processed within 5–7 days") are no reports.
    progressives_and_rules: V2026_12_04, "13";
    /// "Let me get that cancelled" is an offer.
    let_me_offer: V2026_12_04, "14";
    /// A statement before a tag question is a statement ("I've cancelled it — anything else?").
    tag_question: V2026_12_04, "15";
    /// `not` / `no longer` reject a fact value with up to two words between, and so do `isn't`, `aren't`, ….
    rejected_value_words: V2026_12_04, "16";
    /// A range's second end glued to `+`, `-`, `:` or `/` and a digit is no amount ("$149 - 24/7 support").
    glued_range_end: V2026_12_04, "17";
    /// A dollar amount before `sale` or `discounted` is a price, not an amount off.
    dollar_sale_is_price: V2026_12_04, "18";
    /// A decimal comma in a percent ("12,5% off").
    percent_decimal_comma: V2026_12_04, "19";
    /// A dollar sign or `dollars` after the number may name its dollar after it (`149 $ CA`); `59 US$` is US dollars.
    dollar_named_after: V2026_12_04, "20";
    /// A comma after a scale word goes on with the number ("one thousand, two hundred …").
    scale_comma: V2026_12_04, "21";
    /// A cue after a modifier of a phrase negates it ("Full refunds for annual plans are not available").
    cue_after_modifier: V2026_12_04, "22";
    /// Hedges ("I don't think we'll be able to guarantee that", "I'm not sure it has shipped") claim nothing.
    hedges: V2026_12_04, "23";
    /// A twelve-hour time without am/pm takes a range's or a part of the day's, or may be either reading.
    twelve_hour_either: V2026_12_04, "24";
    /// The end of a span ("from 3:30 PM to 4:30 PM", "3:30–4:30 PM") is not the fact's value.
    span_end_no_value: V2026_12_04, "25";
    /// More currency codes and signs (`CZK`, `SAR`, `zł`, `Kč`, `руб`, `元`, `Rs.`, "$149 pesos").
    more_currencies: V2026_12_04, "26";
    /// A question about the past states no price ("Was Pro ever $99?").
    past_question_price: V2026_12_04, "27";
}

/// `2026-10-27`: the first reading kept.
const R_2026_10_27: Reading = NOTHING;

/// `2026-11-01`: negation after a phrase, magnitudes on amounts.
const R_2026_11_01: Reading = Reading { cue_after_phrase: true, magnitudes: true, ..R_2026_10_27 };

/// `2026-12-01`: issue 17's seven classes.
const R_2026_12_01: Reading = Reading {
    aside_in_scope: true,
    cue_after_by_role: true,
    currency_after_amount: true,
    every_fact_value: true,
    action_verb_roles: true,
    negated_and_bound_amounts: true,
    quotes_and_past_questions: true,
    respectively: true,
    amount_words: true,
    deal_shapes: true,
    stated_totals: true,
    formatter_spaces: true,
    ..R_2026_11_01
};

/// `2026-12-03`: five misreadings of `2026-12-01` mended.
const R_2026_12_03: Reading = Reading {
    thousands_separator_in_clause: true,
    em_dash_no_range: true,
    lower_may_no_month: true,
    month_period_with_year: true,
    amount_words_not_between: true,
    ..R_2026_12_01
};

/// `2026-12-04`: 27 misreadings of `2026-12-03` mended.
const R_2026_12_04: Reading = Reading {
    decimal_comma: true,
    dollar_code_before: true,
    scale_words: true,
    glued_sentence_end: true,
    degree_means_full: true,
    no_answer_ends_sentence: true,
    hyphenated_no: true,
    reassurances: true,
    once_again: true,
    yet_in_clause: true,
    adverbs_after_modal: true,
    conditions_and_times_to_come: true,
    progressives_and_rules: true,
    let_me_offer: true,
    tag_question: true,
    rejected_value_words: true,
    glued_range_end: true,
    dollar_sale_is_price: true,
    percent_decimal_comma: true,
    dollar_named_after: true,
    scale_comma: true,
    cue_after_modifier: true,
    hedges: true,
    twelve_hour_either: true,
    span_end_no_value: true,
    more_currencies: true,
    past_question_price: true,
    ..R_2026_12_03
};

impl Reading {
    /// How a policy's own words (forbidden phrases, item names) are split into words: the same under every version,
    /// so a compiled policy does not depend on the request's version. `2026-12-01`'s reading, which no later text
    /// behaviour changes for such words.
    pub(crate) const POLICY_WORDS: &'static Reading = &R_2026_12_01;

    /// How a money fact's value in the record is read: the record is data, not prose, so the same under every
    /// version. `2026-12-03`'s reading of money, as when the record's values were pinned.
    pub(crate) const RECORD_VALUES: &'static Reading = &R_2026_12_03;

    /// The current checker's reading (for the scanners' own tests).
    #[cfg(test)]
    pub(crate) const CURRENT: &'static Reading = &R_2026_12_04;
}

impl Reading {
    /// The names of the behaviours this row reads, in the table's order (docs/CHECKER_VERSIONS.md).
    pub fn behaviours(&self) -> impl Iterator<Item = &'static str> + '_ {
        BEHAVIOURS.iter().filter(|b| (b.get)(self)).map(|b| b.name)
    }
}

impl CheckerVersion {
    /// This version's row of the reading table.
    pub fn reading(self) -> &'static Reading {
        match self {
            CheckerVersion::V2026_10_27 => &R_2026_10_27,
            CheckerVersion::V2026_11_01 => &R_2026_11_01,
            CheckerVersion::V2026_12_01 => &R_2026_12_01,
            CheckerVersion::V2026_12_03 => &R_2026_12_03,
            CheckerVersion::V2026_12_04 => &R_2026_12_04,
        }
    }
}

impl From<CheckerVersion> for &'static Reading {
    fn from(version: CheckerVersion) -> &'static Reading {
        version.reading()
    }
}

/// The behaviour table of docs/CHECKER_VERSIONS.md, made from the rows: each behaviour, the version that introduced
/// it and its item in that version's list.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn behaviour_table() -> String {
    let mut out = String::from("| behaviour | since | item | what it reads |\n|---|---|---|---|\n");
    for v in CheckerVersion::ALL {
        for b in BEHAVIOURS.iter().filter(|b| b.since == v) {
            out += &format!("| `{}` | `{}` | {} | {} |\n", b.name, v.as_str(), b.item, b.doc.trim());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    fn on(r: &Reading) -> Vec<&'static str> {
        r.behaviours().collect()
    }

    /// Each row is the row before it plus exactly the behaviours its version introduced, and none is taken away: a
    /// pinned version keeps what it read.
    #[test]
    fn each_row_is_the_previous_row_plus_its_versions_behaviours() {
        assert!(on(CheckerVersion::ALL[0].reading()).is_empty(), "the first row reads no behaviour");
        for pair in CheckerVersion::ALL.windows(2) {
            let (before, after) = (pair[0].reading(), pair[1].reading());
            for b in BEHAVIOURS {
                let want = (b.get)(before) || b.since == pair[1];
                assert_eq!((b.get)(after), want, "{}: `{}`", pair[1].as_str(), b.name);
            }
        }
        for b in BEHAVIOURS {
            assert!(b.since > CheckerVersion::ALL[0], "`{}`: the first row has no behaviour", b.name);
        }
        assert_eq!(Reading::CURRENT, CheckerVersion::CURRENT.reading());
    }

    /// Every field is a named behaviour with a one-line doc: the list is made from the fields themselves.
    #[test]
    fn behaviours_are_named_once_with_one_line() {
        let mut names: Vec<&str> = BEHAVIOURS.iter().map(|b| b.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), BEHAVIOURS.len());
        for b in BEHAVIOURS {
            assert!(!b.doc.trim().is_empty() && !b.doc.contains('\n'), "`{}`: one line", b.name);
        }
    }

    const DOC: &str = "docs/CHECKER_VERSIONS.md";
    const OPEN: &str = "<!-- behaviours: generated from core/src/policy/reading.rs; CURBI_DOCS=write cargo test -p curbi --lib policy::reading -->\n";
    const CLOSE: &str = "<!-- end of behaviours -->\n";

    /// docs/CHECKER_VERSIONS.md's behaviour table is the one the rows make (`CURBI_DOCS=write` rewrites it).
    #[test]
    fn the_documented_table_is_the_rows() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(DOC);
        let text = std::fs::read_to_string(&path).expect(DOC);
        let (Some(a), Some(b)) = (text.find(OPEN), text.find(CLOSE)) else {
            panic!("{DOC}: no generated behaviour section ({})", OPEN.trim());
        };
        let got = &text[a + OPEN.len()..b];
        let want = behaviour_table();
        if got != want && std::env::var("CURBI_DOCS").as_deref() == Ok("write") {
            let new = format!("{}{want}{}", &text[..a + OPEN.len()], &text[b..]);
            std::fs::write(&path, new).expect(DOC);
            return;
        }
        assert_eq!(got, want, "{DOC}: the behaviour table differs from the rows (CURBI_DOCS=write rewrites it)");
    }

    /// The scanners read behaviours, never a version: no file of core/src/check/ names `CheckerVersion` or a
    /// version's date.
    #[test]
    fn the_scanners_name_no_version() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/check");
        let mut files: Vec<_> =
            std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_file()).collect();
        files.sort();
        assert!(files.len() > 5);
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            for (n, line) in text.lines().enumerate() {
                let mut names = vec!["CheckerVersion", "mends_20", "reads_roles"];
                names.extend(CheckerVersion::ALL.map(CheckerVersion::as_str));
                for name in names {
                    assert!(!line.contains(name), "{}:{}: names `{name}`: {line}", f.display(), n + 1);
                }
            }
        }
    }
}
