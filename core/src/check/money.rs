//! Finds money in a reply: `$49`, `$49.00`, `$1,299`, `$.99`, `49 dollars`, `USD 49`, `US$49`, `$10k`, ranges
//! (`$49–$99`, `$49-99`, `$49 to 99`) and other currencies (`€49`, `£5`, `¥500`, `EUR 49`, `₺49`, `49 TL`).
//! A number is money only with a currency marker, so phone, order and suite numbers, versions, card endings,
//! "5–7 business days" and "99.9% uptime" never are. Amounts are exact decimals.

use super::words::{
    AMOUNT_RANGE_WORDS, CENTS, CURRENCY_CODE_WORDS, CURRENCY_CODES, CURRENCY_CODES_MORE, CURRENCY_NOUN_WORDS,
    CURRENCY_NOUNS, CURRENCY_NOUNS_NOT_ALONE, CURRENCY_WORDS, CURRENCY_WORDS_ONLY, DOLLAR_PREFIXES, HUNDREDS,
    LARGE_SCALES, MAGNITUDES, NATIONS, NATIONS_TWO, NUMBER_JOINING_FILLER, NUMBER_OPENING_FILLER, NUMBER_WORDS,
    NUMBER_WORDS_ONLY, PERCENT, RANGE_FOLLOWERS, RUPEES, SIGNS_AFTER, STERLING, THOUSANDS, US_DOLLARS_CUT,
    USD_GLUED_AFTER, USD_SIGN_AFTER, USD_WORDS_AFTER, WordSet, lengths, word_set,
};
use crate::decimal::{Dec, MAX_UNITS, SCALE};
use crate::policy::Reading;

/// The currency a code of the word tables names: `USD` is the US dollar, read apart from the others.
fn of_code(code: &'static str) -> Currency {
    if code == "USD" { Currency::Usd } else { Currency::Other(code) }
}

/// The currency an amount is stated in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Currency {
    Usd,
    /// Another currency, by ISO 4217 code (or a symbol's usual code).
    Other(&'static str),
}

/// One amount found in a reply.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Money {
    /// Byte span of the amount with its currency marker (`$99`, `USD 49`, `49 dollars`, `$10k`).
    pub start: usize,
    pub end: usize,
    /// Byte offset of its first digit (to find its word token).
    pub digits: usize,
    /// `None` when the number is too large to read exactly.
    pub amount: Option<Dec>,
    pub currency: Currency,
}

/// Symbols standing before or after a number.
fn symbol_currency(c: char) -> Option<Currency> {
    Some(match c {
        '$' => Currency::Usd,
        '€' => Currency::Other("EUR"),
        '£' => Currency::Other("GBP"),
        '¥' => Currency::Other("JPY"),
        '₹' => Currency::Other("INR"),
        '₺' => Currency::Other("TRY"),
        '₩' => Currency::Other("KRW"),
        '₽' => Currency::Other("RUB"),
        '₪' => Currency::Other("ILS"),
        '₱' => Currency::Other("PHP"),
        '₫' => Currency::Other("VND"),
        '₴' => Currency::Other("UAH"),
        '₦' => Currency::Other("NGN"),
        '฿' => Currency::Other("THB"),
        _ => return None,
    })
}

/// Letters glued before `$` that make it another dollar (`C$`, `A$`), or plain US (`US$`).
fn dollar_prefix(letters: &str) -> Option<Currency> {
    const SET: WordSet = word_set!(pairs DOLLAR_PREFIXES);
    SET.value(DOLLAR_PREFIXES, letters).map(of_code)
}

/// `dollar_code_before`: the code of a currency written with `$`, glued to it or one space before it (`NZD$49`, `AUD
/// $49`, `USD $49`): its start and currency. Other codes before `$` ("EUR $49") say nothing about the `$`.
fn dollar_code_before(s: &str, dollar: usize) -> Option<(usize, Currency)> {
    let b = s.as_bytes();
    let end = if dollar > 0 && b[dollar - 1] == b' ' { dollar - 1 } else { dollar };
    let mut k = end;
    while k > 0 && b[k - 1].is_ascii_uppercase() {
        k -= 1;
    }
    if k == end || alnum_before(s, k) {
        return None;
    }
    let cur = code_currency(&s[k..end])?;
    let dollar_currency = matches!(cur, Currency::Usd)
        || matches!(cur, Currency::Other(code) if matches!(code, "CAD" | "AUD" | "NZD" | "SGD" | "HKD" | "MXN"));
    dollar_currency.then_some((k, cur))
}

/// Currency codes and words, matched as whole words before or after a number.
/// Upper-case codes must be written in capitals (so "try" or "all" in prose never count); the words
/// and the codes that are not English words are matched in any case.
fn code_currency(word: &str) -> Option<Currency> {
    const SET: WordSet = word_set!(CURRENCY_CODE_WORDS);
    SET.value(CURRENCY_CODES, word).map(of_code)
}

/// `more_currencies`: more currency codes, in capitals (codes that are common words in capitals, `PHP`, `MAD`, `PEN`,
/// are left out: "PHP 8.2" is a version).
fn more_code(word: &str) -> Option<Currency> {
    const SET: WordSet = word_set!(CURRENCY_CODES_MORE);
    SET.index(word).map(|k| Currency::Other(CURRENCY_CODES_MORE[k]))
}

/// Words after a number: `49 dollars`, `5 euros`, `99 cents`. Returns the currency and whether it is cents.
fn word_currency(word: &str) -> Option<(Currency, bool)> {
    const LONGEST: usize = lengths(CURRENCY_WORDS_ONLY).1;
    const CENT: WordSet = word_set!(CENTS, fold);
    const SET: WordSet = word_set!(CURRENCY_WORDS_ONLY, fold);
    if word.len() > LONGEST {
        return None;
    }
    if CENT.contains(word) {
        return Some((Currency::Usd, true));
    }
    match SET.value(CURRENCY_WORDS, word) {
        Some(code) => Some((of_code(code), false)),
        None => code_currency(word).map(|c| (c, false)),
    }
}

/// A word lower-cased on the stack (words longer than twelve letters name no currency): the readers below run
/// after every bare number, so they do not allocate.
struct Lower {
    buf: [u8; 12],
    len: usize,
}

impl Lower {
    fn of(w: &str) -> Lower {
        let mut buf = [0u8; 12];
        let len = if w.len() <= 12 { w.len() } else { 0 };
        buf[..len].copy_from_slice(&w.as_bytes()[..len]);
        buf.make_ascii_lowercase();
        Lower { buf, len }
    }

    fn get(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

/// A currency noun after a number or a nation (`francs`, `dollars`), with the currency it names alone. `None`
/// inside means the noun needs a nation or a second word (`pounds` alone is a weight, `won` a verb).
fn currency_noun(w: &str) -> Option<Option<Currency>> {
    const NOT_ALONE: WordSet = word_set!(CURRENCY_NOUNS_NOT_ALONE, fold);
    const SET: WordSet = word_set!(CURRENCY_NOUN_WORDS, fold);
    if NOT_ALONE.contains(w) {
        return Some(None);
    }
    SET.value(CURRENCY_NOUNS, w).map(|code| Some(of_code(code)))
}

/// A nation's adjective (capitalised, as written) and its currency: `Swiss` → CHF, `Canadian` → CAD.
fn nation_currency(w: &str) -> Option<Currency> {
    const SET: WordSet = word_set!(pairs NATIONS);
    SET.value(NATIONS, w).map(of_code)
}

/// `currency_after_amount`: a currency named in words after a number (`79 Swiss francs`, `79 Canadian dollars`, `79
/// pesos`), or after a `$` amount (`$79 Canadian`): (end, currency). Adjectives of a nation take its currency, whatever
/// noun follows; a noun alone names the currency it usually means. `pounds` alone is a weight and is not read.
fn spelled_currency(s: &str, i: usize, after_dollar: bool) -> Option<(usize, Currency)> {
    let w1 = ascii_word_at(s, i);
    if w1.is_empty() {
        return None;
    }
    let next = |at: usize| {
        let j = skip_space(s, at);
        (j, ascii_word_at(s, j))
    };
    let bounded = |end: usize| end == s.len() || !is_alnum_at(s, end);
    // Two-word nations first: "New Zealand", "Hong Kong", "South African".
    // The first word in lower case or with its capital.
    let first_is = |word: &str| {
        let (a, b) = (w1.as_bytes(), word.as_bytes());
        a.len() == b.len() && a[1..] == b[1..] && (a[0] == b[0] || a[0] == b[0].to_ascii_uppercase())
    };
    let two = NATIONS_TWO.iter().find_map(|&(first, second, code)| first_is(first).then_some((second, code)));
    let (adj_end, nation) = match two {
        Some((second, code)) => {
            let (j, w2) = next(i + w1.len());
            if !w2.eq_ignore_ascii_case(second) {
                return None;
            }
            (j + w2.len(), Some(of_code(code)))
        }
        None => (i + w1.len(), nation_currency(w1)),
    };
    match nation {
        Some(cur) => {
            let (j, w2) = next(adj_end);
            if !w2.is_empty() && bounded(j + w2.len()) && currency_noun(w2).is_some() {
                Some((j + w2.len(), cur))
            } else if after_dollar && cur != Currency::Usd {
                Some((adj_end, cur))
            } else {
                None
            }
        }
        None if after_dollar || !bounded(i + w1.len()) => None,
        None => match currency_noun(w1)? {
            // "pounds sterling" is money; "pounds" alone is a weight, "won" a verb.
            None => {
                let (j, w2) = next(i + w1.len());
                STERLING.iter().find_map(|&(noun, second, code)| {
                    (Lower::of(w1).get().starts_with(noun.as_bytes()) && w2.eq_ignore_ascii_case(second))
                        .then_some((j + w2.len(), of_code(code)))
                })
            }
            Some(Currency::Usd) => None, // "49 dollars" is read by `word_currency` in every version
            Some(cur) => Some((i + w1.len(), cur)),
        },
    }
}

/// `amount_words`: a word that may open a number in words without being one.
const OPENING_FILLER: WordSet = word_set!(NUMBER_OPENING_FILLER, fold);
/// `more_currencies`: the abbreviation of rupees, as written.
const RUPEE: WordSet = word_set!(pairs RUPEES);
/// The word for `%`, any case.
const PERCENT_SET: WordSet = word_set!(PERCENT, fold);

/// The value of one number word: `one` … `nineteen`, and the tens `twenty` … `ninety` (any case).
pub(crate) fn number_word(w: &str) -> Option<u32> {
    const SET: WordSet = word_set!(NUMBER_WORDS_ONLY, fold);
    SET.value(NUMBER_WORDS, w)
}

/// `amount_words`: a whole number in words at `i`: "forty-nine", "one hundred and forty-nine", "a hundred",
/// "five thousand". Returns its end and value. Words are joined by one space or a hyphen. With `scale_words`,
/// `million` and `billion` too ("two million", "a billion", "two million five hundred thousand"); with `scale_comma`,
/// a comma after a scale word goes on with the number.
fn number_words(s: &str, i: usize, reading: &Reading) -> Option<(usize, Dec)> {
    const JOINING_FILLER: WordSet = word_set!(NUMBER_JOINING_FILLER, fold);
    const HUNDRED: WordSet = word_set!(pairs HUNDREDS, fold);
    const THOUSAND: WordSet = word_set!(pairs THOUSANDS, fold);
    const LARGE: WordSet = word_set!(pairs LARGE_SCALES, fold);
    let scales = reading.scale_words;
    let b = s.as_bytes();
    let (mut total, mut current, mut end, mut any) = (0u64, 0u64, i, false);
    let mut j = i;
    loop {
        let w = ascii_word_at(s, j);
        if w.is_empty() || is_alnum_at(s, j + w.len()) && j + w.len() < s.len() {
            break;
        }
        let filler = (OPENING_FILLER.contains(w) && !any) || (JOINING_FILLER.contains(w) && any);
        let hundred = HUNDRED.value(HUNDREDS, w);
        let scale = THOUSAND.value(THOUSANDS, w).or_else(|| LARGE.value(LARGE_SCALES, w).filter(|_| scales));
        if let Some(v) = number_word(w) {
            current = current.saturating_add(u64::from(v));
        } else if let Some(h) = hundred.filter(|_| any || j > i) {
            current = current.max(1).saturating_mul(u64::from(h));
        } else if let Some(scale) = scale.filter(|_| any || j > i) {
            total = total.saturating_add(current.max(1).saturating_mul(u64::from(scale)));
            current = 0;
        } else if !filler {
            break;
        }
        if !filler {
            any = true;
            end = j + w.len();
        }
        j += w.len();
        // `scale_comma`: "one thousand, one hundred forty-nine": a comma after a scale word goes on with the number.
        let scale_word = THOUSAND.contains(w) || LARGE.contains(w);
        if reading.scale_comma
            && scale_word
            && s[j..].starts_with(", ")
            && number_word(ascii_word_at(s, j + 2)).is_some()
        {
            j += 2;
        } else if matches!(b.get(j), Some(b' ' | b'-')) {
            j += 1;
        } else {
            break;
        }
    }
    // Saturating: "a hundred hundred hundred …" is no number, and never an overflow (too large, so `None`).
    let value = total.saturating_add(current);
    let most = if scales { MAX_UNITS as u64 } else { 10_000_000 };
    (any && value <= most).then(|| (end, Dec(i128::from(value) * crate::decimal::SCALE)))
}

/// `currency_after_amount`: what a bare `$` amount's currency really is when a code or a nation follows it (`$79 NZD`,
/// `$79 (CAD)`, `$79 Canadian`, `$79 USD`): (end of the marker, closing parenthesis included; currency).
fn dollar_suffix(s: &str, end: usize) -> Option<(usize, Currency)> {
    let b = s.as_bytes();
    let mut j = skip_space(s, end);
    let paren = b.get(j) == Some(&b'(');
    if paren {
        j += 1;
    }
    let w = ascii_word_at(s, j);
    if w.is_empty() || is_alnum_at(s, j + w.len()) && j + w.len() < s.len() {
        return None;
    }
    let (e, cur) = match code_currency(w) {
        Some(c) => (j + w.len(), c),
        None => spelled_currency(s, j, true)?,
    };
    if paren {
        return (b.get(e) == Some(&b')')).then_some((e + 1, cur));
    }
    Some((e, cur))
}

/// A number as written: `1,299.00`, `.99`, `49`, with an optional magnitude (`10k`, `1.5M`, `2 million`).
struct Number {
    end: usize,
    value: Option<Dec>,
}

fn ascii_word_at(s: &str, i: usize) -> &str {
    let b = s.as_bytes();
    let mut j = i;
    while j < b.len() && b[j].is_ascii_alphabetic() {
        j += 1;
    }
    &s[i..j]
}

fn is_alnum_at(s: &str, i: usize) -> bool {
    match s.as_bytes().get(i) {
        Some(&b) if b < 0x80 => b.is_ascii_alphanumeric(),
        _ => s[i..].chars().next().is_some_and(char::is_alphanumeric),
    }
}

/// Whether the character before byte `i` is a letter or digit.
fn alnum_before(s: &str, i: usize) -> bool {
    match i.checked_sub(1).map(|p| s.as_bytes()[p]) {
        None => false,
        Some(b) if b < 0x80 => b.is_ascii_alphanumeric(),
        Some(_) => s[..i].chars().next_back().is_some_and(char::is_alphanumeric),
    }
}

fn read_number(s: &str, i: usize, reading: &Reading) -> Option<Number> {
    let b = s.as_bytes();
    let mut j = i;
    // Millionths, accumulated exactly; `None` once the number no longer fits or is too precise.
    let mut units: Option<i128> = Some(0);
    let push = |units: &mut Option<i128>, d: u8| {
        *units = units.and_then(|u| u.checked_mul(10)).and_then(|u| u.checked_add(i128::from(d - b'0')));
    };
    while j < b.len() && b[j].is_ascii_digit() {
        push(&mut units, b[j]);
        j += 1;
    }
    let int_len = j - i;
    // Thousands groups: exactly three digits after each comma, and the first group at most three digits.
    if (1..=3).contains(&int_len) {
        while super::text::thousands_separator(b, j) {
            for &d in &b[j + 1..j + 4] {
                push(&mut units, d);
            }
            j += 4;
        }
    }
    let mut frac_len = 0usize;
    // `decimal_comma`: money written the European way. A comma with one or two digits after it is a decimal comma
    // (`49,90 €`, `€1,5 million`); with one, periods before it group thousands (`1.299,00 €`). Without a decimal
    // comma a period stays the decimal point (`1.299 €` is 1.299), as without it. Commas between
    // pairs of digits before a group of three are Indian grouping (`₹1,29,999`), never a decimal comma.
    let mut decimal_comma = None;
    if reading.decimal_comma {
        let plain = j == i + int_len;
        if plain && (1..=2).contains(&int_len) {
            let mut m = j;
            while b.get(m) == Some(&b',') && digits_at(b, m + 1) == 2 && b.get(m + 3) == Some(&b',') {
                m += 3;
            }
            if m > j && b.get(m) == Some(&b',') && digits_at(b, m + 1) == 3 {
                for &d in b[j..m + 4].iter().filter(|d| d.is_ascii_digit()) {
                    push(&mut units, d);
                }
                j = m + 4;
            }
        }
        let comma_frac = |at: usize| {
            let n = digits_at(b, at + 1);
            let grouping = matches!(b.get(at + 1 + n), Some(b',' | b'.')) && digits_at(b, at + 2 + n) > 0;
            (b.get(at) == Some(&b',') && (1..=2).contains(&n) && !grouping).then_some(at)
        };
        let mut k = j;
        if plain && (1..=3).contains(&int_len) && k == i + int_len {
            while b.get(k) == Some(&b'.') && digits_at(b, k + 1) == 3 {
                k += 4;
            }
        }
        decimal_comma = comma_frac(k).or_else(|| comma_frac(j));
        // "49,- €" and "49,– €": whole units, the way prices are written in German.
        let rest = b.get(j..).unwrap_or_default();
        let dash = [&b",-"[..], ",\u{2013}".as_bytes()].into_iter().find(|d| rest.starts_with(d));
        if decimal_comma.is_none()
            && let Some(d) = dash
            && !rest.get(d.len()).is_some_and(u8::is_ascii_digit)
        {
            j += d.len();
        }
        if let Some(at) = decimal_comma {
            for &d in b[j..at].iter().filter(|d| d.is_ascii_digit()) {
                push(&mut units, d);
            }
            j = at;
        }
    }
    let separator = if decimal_comma.is_some() { b',' } else { b'.' };
    if j + 1 < b.len() && b[j] == separator && b[j + 1].is_ascii_digit() {
        j += 1;
        while j < b.len() && b[j].is_ascii_digit() {
            if frac_len < 6 {
                push(&mut units, b[j]);
            } else if b[j] != b'0' {
                units = None;
            }
            frac_len += 1;
            j += 1;
        }
    }
    if int_len == 0 && frac_len == 0 {
        return None;
    }
    let scale = 10i128.pow(6 - frac_len.min(6) as u32);
    let mut value = units.and_then(|u| u.checked_mul(scale)).filter(|&u| u <= MAX_UNITS * SCALE).map(Dec);
    if reading.magnitudes {
        // Magnitudes glued to the number (`$10k`, `$1.5M`, `$2bn`) or spelled out (`$2 million`).
        let glued = ascii_word_at(s, j);
        const MAGNITUDE: WordSet = word_set!(pairs MAGNITUDES);
        let mult: Option<(i128, usize)> = MAGNITUDE
            .value(MAGNITUDES, glued)
            .map(|m| (i128::from(m), glued.len()))
            .filter(|_| !is_alnum_at(s, j + glued.len()));
        let spelled = if mult.is_none() && b.get(j) == Some(&b' ') {
            let w = ascii_word_at(s, j + 1);
            THOUSANDS
                .iter()
                .chain(LARGE_SCALES)
                .find(|(name, _)| w.eq_ignore_ascii_case(name))
                .map(|&(name, m)| (i128::from(m), name.len() + 1))
        } else {
            None
        };
        if let Some((m, len)) = mult.or(spelled) {
            value = value.and_then(|v| v.checked_mul_int(m)).filter(|v| v.0 <= MAX_UNITS * SCALE);
            j += len;
        }
    }
    Some(Number { end: j, value })
}

/// How many digits follow one another from `at`, counting at most four (so `3` means exactly three).
fn digits_at(b: &[u8], at: usize) -> usize {
    b.get(at..).unwrap_or_default().iter().take(4).take_while(|d| d.is_ascii_digit()).count()
}

/// Whether a number starts at `i` (a digit, or `.` then a digit), not glued to a word or another number.
fn number_starts(s: &str, i: usize) -> bool {
    let b = s.as_bytes();
    b[i].is_ascii_digit() || (b[i] == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
}

fn skip_space(s: &str, i: usize) -> usize {
    let b = s.as_bytes();
    if b.get(i) == Some(&b' ') {
        i + 1
    } else if s[i..].starts_with('\u{a0}') {
        i + 2
    } else {
        i
    }
}

/// Every amount in `s`, in order of position.
pub(crate) fn find(s: &str, reading: &Reading) -> Vec<Money> {
    let mut out: Vec<Money> = Vec::with_capacity(8);
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        // Only `$`, a letter, a digit or `.` opens an amount among ASCII bytes: spaces and punctuation, most of the
        // bytes that are not in words, are stepped over at once.
        let c = if b[i] < 0x80 {
            if !(b[i] == b'$' || b[i] == b'.' || b[i].is_ascii_alphanumeric()) {
                i += 1;
                continue;
            }
            char::from(b[i])
        } else {
            match s[i..].chars().next() {
                Some(c) => c,
                None => break,
            }
        };
        let clen = c.len_utf8();
        // 1. A symbol or code before the number.
        let mut prefix: Option<(usize, usize, Currency)> = None; // (start, number start, currency)
        if let Some(cur) = symbol_currency(c) {
            let mut start = i;
            let mut cur = cur;
            if c == '$' {
                let mut k = i;
                while k > 0 && b[k - 1].is_ascii_uppercase() {
                    k -= 1;
                }
                let free_standing = k == 0 || !s[..k].chars().next_back().is_some_and(char::is_alphanumeric);
                if k < i
                    && free_standing
                    && let Some(pc) = dollar_prefix(&s[k..i])
                {
                    cur = pc;
                    start = k;
                } else if reading.dollar_code_before
                    && let Some((code_start, pc)) = dollar_code_before(s, i)
                {
                    cur = pc;
                    start = code_start;
                }
            }
            let n = skip_space(s, i + clen);
            if n < b.len() && number_starts(s, n) {
                prefix = Some((start, n, cur));
            }
        } else if c.is_ascii_alphabetic() && !alnum_before(s, i) {
            let w = ascii_word_at(s, i);
            // Every code is two or three letters: longer words need no lookup.
            if w.len() <= 3
                && let Some(cur) = code_currency(w).or_else(|| more_code(w).filter(|_| reading.more_currencies))
            {
                let n = skip_space(s, i + w.len());
                if n < b.len() && number_starts(s, n) {
                    prefix = Some((i, n, cur));
                }
            }
            // `more_currencies`: "Rs 4,999", "Rs. 4,999" (rupees).
            if reading.more_currencies
                && prefix.is_none()
                && let Some(code) = RUPEE.value(RUPEES, w)
            {
                let dot = usize::from(b.get(i + w.len()) == Some(&b'.'));
                let n = skip_space(s, i + w.len() + dot);
                if n > i + w.len() && n < b.len() && number_starts(s, n) {
                    prefix = Some((i, n, of_code(code)));
                }
            }
            // `amount_words`: an amount in words before a currency word ("forty-nine dollars").
            if prefix.is_none()
                && reading.amount_words
                && (number_word(w).is_some()
                    || OPENING_FILLER.contains(w) && {
                        // A scale word one space after: "a hundred", "a thousand" ("a million" with `scale_words`).
                        let after = s[i + w.len()..].strip_prefix(' ').unwrap_or_default();
                        let large = LARGE_SCALES.iter().filter(|_| reading.scale_words);
                        let mut before_scale = HUNDREDS.iter().chain(THOUSANDS).chain(large);
                        s[i + w.len()..].starts_with(' ') && before_scale.any(|(n, _)| after.starts_with(n))
                    })
                && let Some((end, value)) = number_words(s, i, reading)
            {
                let n = skip_space(s, end);
                let spelled = || spelled_currency(s, n, false).filter(|_| n > end).map(|(e, c)| (e, c, false));
                if let Some((cend, cur, cents)) = suffix_currency(s, end, reading).or_else(spelled) {
                    let amount = if cents { Dec(value.0 / 100) } else { value };
                    out.push(Money { start: i, end: cend, digits: i, amount: Some(amount), currency: cur });
                    i = cend;
                    continue;
                }
            }
            // Skip the rest of the word.
            if prefix.is_none() {
                i += w.len().max(1);
                continue;
            }
        }
        if let Some((start, n, cur)) = prefix {
            if let Some(num) = read_number(s, n, reading) {
                let mut money = Money { start, end: num.end, digits: n, amount: num.value, currency: cur };
                // `more_currencies`: a currency noun after a `$` amount names it too ("$149 pesos").
                let noun = || {
                    let n = skip_space(s, num.end);
                    spelled_currency(s, n, false).filter(|_| n > num.end && reading.more_currencies)
                };
                if c == '$'
                    && start == i
                    && reading.currency_after_amount
                    && let Some((end, cur)) = dollar_suffix(s, num.end).or_else(noun)
                {
                    money.end = end;
                    money.currency = cur;
                }
                out.push(money);
                i = if money.end > num.end { money.end } else { range_tail(s, num.end, money, reading, &mut out) };
                continue;
            }
            i += clen;
            continue;
        }
        // 2. A bare number followed by a symbol or a currency word.
        if number_starts(s, i) {
            let glued_before = i > 0 && {
                let p = s[..i].chars().next_back().unwrap_or(' ');
                p.is_alphanumeric() || p == '.' || p == ',' || p == '#'
            };
            let Some(num) = read_number(s, i, reading) else {
                i += 1;
                continue;
            };
            let spelled = || {
                let n = skip_space(s, num.end);
                spelled_currency(s, n, false)
                    .filter(|_| reading.currency_after_amount && n > num.end)
                    .map(|(e, c)| (e, c, false))
            };
            if !glued_before && let Some((end, cur, cents)) = suffix_currency(s, num.end, reading).or_else(spelled) {
                let amount = if cents { num.value.map(|v| Dec(v.0 / 100)) } else { num.value };
                out.push(Money { start: i, end, digits: i, amount, currency: cur });
            }
            i = num.end.max(i + 1);
            continue;
        }
        i += clen;
    }
    out
}

/// A currency symbol or word right after a number (`49€`, `49 €`, `49 dollars`, `49 USD`, `49TL`). With
/// `dollar_named_after`, a dollar sign or `dollars` after the number may name its dollar after it (`149 $ CA`,
/// `149 $ CAD`, `49 dollars (CAD)`), and `59 US$`, `a 59-dollar plan` and `59 dólares` are US dollars; with
/// `more_currencies`, more codes and signs after it (`149 CZK`, `149 zł`).
fn suffix_currency(s: &str, end: usize, reading: &Reading) -> Option<(usize, Currency, bool)> {
    let n = skip_space(s, end);
    let rest = &s[n..];
    if reading.dollar_named_after {
        if let Some(sign) = USD_SIGN_AFTER.iter().find(|sign| rest.starts_with(**sign)) {
            return Some((n + sign.len(), Currency::Usd, false));
        }
        for glued in USD_GLUED_AFTER {
            let hyphened = rest.strip_prefix('-').is_some_and(|r| r.starts_with(glued));
            if n == end && hyphened && !is_alnum_at(s, n + 1 + glued.len()) {
                return Some((n + 1 + glued.len(), Currency::Usd, false));
            }
        }
        for word in USD_WORDS_AFTER {
            if rest.starts_with(word) && !is_alnum_at(s, n + word.len()) {
                return Some((n + word.len(), Currency::Usd, false));
            }
        }
    }
    let Some((e, cur, cents)) = suffix_currency_plain(s, end) else {
        if !reading.more_currencies {
            return None;
        }
        let w = ascii_word_at(s, n);
        if let Some(cur) = more_code(w).filter(|_| !is_alnum_at(s, n + w.len())) {
            return Some((n + w.len(), cur, false));
        }
        let (sign, code) = SIGNS_AFTER.iter().find(|(sign, _)| rest.starts_with(sign))?;
        return (!is_alnum_at(s, n + sign.len())).then_some((n + sign.len(), of_code(code), false));
    };
    let dollar = cur == Currency::Usd && !cents && (rest.starts_with('$') || rest.starts_with(['d', 'D']));
    if reading.dollar_named_after && dollar {
        // "$ CA", "$ US" (the letters of a dollar prefix as a word of their own), or a code or nation after.
        let j = skip_space(s, e);
        let w = ascii_word_at(s, j);
        if w.len() >= 2
            && !is_alnum_at(s, j + w.len())
            && let Some(pc) = dollar_prefix(w)
        {
            return Some((j + w.len(), pc, false));
        }
        if let Some((de, dc)) = dollar_suffix(s, e) {
            return Some((de, dc, false));
        }
    }
    Some((e, cur, cents))
}

/// A currency symbol, a currency word or a code right after a number, as every version reads it.
fn suffix_currency_plain(s: &str, end: usize) -> Option<(usize, Currency, bool)> {
    let n = skip_space(s, end);
    let c = s[n..].chars().next()?;
    if let Some(cur) = symbol_currency(c) {
        return Some((n + c.len_utf8(), cur, false));
    }
    if c.is_ascii_alphabetic() {
        let w = ascii_word_at(s, n);
        if !is_alnum_at(s, n + w.len()) || n + w.len() == s.len() {
            if let Some((cur, cents)) = word_currency(w) {
                return Some((n + w.len(), cur, cents));
            }
            // "US dollars"
            for &(first, noun) in US_DOLLARS_CUT {
                if w == first {
                    let m = skip_space(s, n + w.len());
                    let w2 = ascii_word_at(s, m);
                    if w2.eq_ignore_ascii_case(noun) {
                        return Some((m + w2.len(), Currency::Usd, false));
                    }
                }
            }
        }
    }
    None
}

/// After an amount: a range's second end without its own marker (`$49–99`, `$49 - 99`, `$49 to 99`) is money in
/// the same currency. Returns where scanning continues.
fn range_tail(s: &str, end: usize, first: Money, reading: &Reading, out: &mut Vec<Money>) -> usize {
    let b = s.as_bytes();
    let mut j = skip_space(s, end);
    let rest = &s[j..];
    // `em_dash_no_range`: an em dash ends a clause and never joins a range ("$49 — 10 or more seats get Pro").
    let em_dash = rest.starts_with('\u{2014}') && !reading.em_dash_no_range;
    let conn = if rest.starts_with('\u{2013}') || em_dash {
        3
    } else if rest.starts_with('-') {
        1
    } else if let Some(word) =
        AMOUNT_RANGE_WORDS.iter().find(|w| rest.strip_prefix(**w).is_some_and(|r| r.starts_with(' ')))
    {
        word.len()
    } else {
        return end;
    };
    j = skip_space(s, j + conn);
    if j >= b.len() || !b[j].is_ascii_digit() {
        return end; // `$49–$99` is read by the main loop
    }
    let Some(num) = read_number(s, j, reading) else {
        return end;
    };
    // "$49 - 10% off", "$49 to 3 seats" are not ranges; with `glued_range_end` neither are "$149 - 24/7 support",
    // "$149 - 14-day trial", "$1,299 - 50+ users", "$49 to 1-2 users" or "$149 - 10, 20 or 50 seats".
    if reading.glued_range_end {
        let digit_at = |k: usize| b.get(k).is_some_and(u8::is_ascii_digit);
        let glued = match b.get(num.end) {
            Some(b'+' | b'-' | b':') => true,
            Some(b'/') => digit_at(num.end + 1),
            Some(b',') => b.get(num.end + 1) == Some(&b' ') && digit_at(num.end + 2),
            _ => false,
        };
        if glued {
            return end;
        }
    }
    let after = skip_space(s, num.end);
    if b.get(num.end) == Some(&b'%') || b.get(after) == Some(&b'%') || PERCENT_SET.contains(ascii_word_at(s, after)) {
        return end;
    }
    if s[after..].chars().next().is_some_and(char::is_alphabetic) {
        let w = ascii_word_at(s, after).to_ascii_lowercase();
        if !RANGE_FOLLOWERS.contains(&w.as_str()) {
            return end;
        }
    }
    out.push(Money { start: j, end: num.end, digits: j, amount: num.value, currency: first.currency });
    num.end
}

/// A money fact's value as written in the record: `50`, `49.99`, `$49.99`, `USD 50`, `$1,299`.
pub(crate) fn parse_fact_money(s: &str) -> Option<Dec> {
    let t = s.trim();
    if let Ok(d) = Dec::parse(t) {
        return Some(d);
    }
    // A fact's value reads the same under every checker version (the record is data, not prose).
    let found = find(t, Reading::RECORD_VALUES);
    match found.as_slice() {
        [m] if m.start == 0 && m.end == t.len() && m.currency == Currency::Usd => m.amount,
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(s: &str) -> Vec<(&str, String, &'static str)> {
        find(s, Reading::CURRENT)
            .iter()
            .map(|m| {
                let cur = match m.currency {
                    Currency::Usd => "USD",
                    Currency::Other(c) => c,
                };
                (&s[m.start..m.end], m.amount.map_or("?".into(), |a| a.plain()), cur)
            })
            .collect()
    }

    #[test]
    fn dollar_forms() {
        assert_eq!(spans("Starter is $99 a month."), [("$99", "99".into(), "USD")]);
        assert_eq!(
            spans("$49.00, $1,299 and $.99"),
            [("$49.00", "49".into(), "USD"), ("$1,299", "1299".into(), "USD"), ("$.99", "0.99".into(), "USD")]
        );
        assert_eq!(
            spans("49 dollars or USD 49 or US$49 or $49/mo"),
            [
                ("49 dollars", "49".into(), "USD"),
                ("USD 49", "49".into(), "USD"),
                ("US$49", "49".into(), "USD"),
                ("$49", "49".into(), "USD"),
            ]
        );
        assert_eq!(spans("$10k and $1.5M"), [("$10k", "10000".into(), "USD"), ("$1.5M", "1500000".into(), "USD")]);
        assert_eq!(spans("99 cents"), [("99 cents", "0.99".into(), "USD")]);
    }

    #[test]
    fn ranges() {
        assert_eq!(spans("$49–$99"), [("$49", "49".into(), "USD"), ("$99", "99".into(), "USD")]);
        assert_eq!(spans("$49-99 a month"), [("$49", "49".into(), "USD"), ("99", "99".into(), "USD")]);
        assert_eq!(spans("from $49 to 149."), [("$49", "49".into(), "USD"), ("149", "149".into(), "USD")]);
        assert_eq!(spans("$49 - 10% off"), [("$49", "49".into(), "USD")]);
    }

    #[test]
    fn other_currencies() {
        assert_eq!(
            spans("€49, 49 €, £5, ¥500, EUR 49, ₺49, 49 TL, C$20"),
            [
                ("€49", "49".into(), "EUR"),
                ("49 €", "49".into(), "EUR"),
                ("£5", "5".into(), "GBP"),
                ("¥500", "500".into(), "JPY"),
                ("EUR 49", "49".into(), "EUR"),
                ("₺49", "49".into(), "TRY"),
                ("49 TL", "49".into(), "TRY"),
                ("C$20", "20".into(), "CAD"),
            ]
        );
    }

    #[test]
    fn never_money() {
        for s in [
            "Call 1-800-555-0199 or (415) 555-0100.",
            "Suite 400, order #10492, card ending 4242, version 2.4.1",
            "Delivery takes 5–7 business days with 99.9% uptime.",
            "We try 3 times, all 20 of them.",
        ] {
            assert!(find(s, Reading::CURRENT).is_empty(), "{s}");
        }
    }

    #[test]
    fn without_magnitudes_k_is_no_amount_word() {
        let m = find("$10k", &Reading { magnitudes: false, ..*Reading::CURRENT });
        assert_eq!(m.len(), 1);
        assert_eq!((m[0].start, m[0].end), (0, 3));
    }

    #[test]
    fn fact_money() {
        assert_eq!(parse_fact_money("$49.99"), Dec::parse("49.99").ok());
        assert_eq!(parse_fact_money("50"), Dec::parse("50").ok());
        assert_eq!(parse_fact_money("USD 1,299"), Dec::parse("1299").ok());
        assert_eq!(parse_fact_money("€50"), None);
        assert_eq!(parse_fact_money("soon"), None);
    }

    proptest::proptest! {
        /// Any amount written the way customers write it reads back exactly: `$1,299.05` is 129905 cents.
        #[test]
        fn written_amounts_read_back(cents in 0u64..10_000_000_000, grouped: bool, sep in "[ .,!?]?") {
            let d = Dec(i128::from(cents) * 10_000);
            let text = if grouped { d.dollars() } else { format!("${}", d.plain()) };
            let reply = format!("Pro is {text}{sep} ok");
            let found = find(&reply, Reading::CURRENT);
            proptest::prop_assert_eq!(found.len(), 1, "{}", reply);
            proptest::prop_assert_eq!(found[0].amount, Some(d));
            proptest::prop_assert_eq!(&reply[found[0].start..found[0].end], text.as_str());
        }
    }
}
