//! Times and dates in replies and in record facts: `3:30 PM`, `15:30`, `3.30pm`, `3pm`, `noon`, `midnight`
//! (12 AM is midnight, 12 PM is noon); `Nov 3`, `November 3rd`, `3 November 2026`, `2026-11-03`, `11/03` (en-US).
//! Durations ("10 minutes early", "in 2 hours") are never times: a time needs a colon, am/pm, or noon/midnight.

use super::text::Text;
use super::words::{
    AFTERNOON, DAY_OF_MONTH, LOWER_NOT_MONTH, MIDNIGHT, MONTH_NAMES_ONLY, MONTHS, MONTHS_UNABBREVIATED, MORNING, NOON,
    ORDINAL_ENDINGS, TIME_RANGE_WORDS, WordSet, lengths, max, opening_bytes, starts_with_phrase, word_set,
};
use crate::policy::Reading;

/// A time or date found in a reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Found<V> {
    pub start: usize,
    pub end: usize,
    pub value: V,
}

/// (year if stated, month, day).
pub(crate) type Date = (Option<u16>, u8, u8);

fn month_of(word: &str) -> Option<u8> {
    const SET: WordSet = word_set!(MONTH_NAMES_ONLY, fold);
    SET.value(MONTHS, word).and_then(|m| u8::try_from(m).ok())
}

fn digits_at(s: &[u8], i: usize) -> usize {
    let mut j = i;
    while j < s.len() && s[j].is_ascii_digit() {
        j += 1;
    }
    j - i
}

fn num(s: &[u8], i: usize, n: usize) -> u32 {
    s[i..i + n].iter().fold(0, |a, d| a * 10 + u32::from(d - b'0'))
}

fn alpha_at(s: &[u8], i: usize) -> bool {
    s.get(i).is_some_and(|b| b.is_ascii_alphanumeric())
}

/// `am` / `pm` / `a.m.` / `p.m.` (any case) at `i` after an optional space: (is_pm, end).
fn meridiem(s: &[u8], i: usize) -> Option<(bool, usize)> {
    let i = if s.get(i) == Some(&b' ') { i + 1 } else { i };
    let c = s.get(i)?.to_ascii_lowercase();
    if c != b'a' && c != b'p' {
        return None;
    }
    let pm = c == b'p';
    let rest = &s[i + 1..];
    let lower = |k: usize| rest.get(k).map(u8::to_ascii_lowercase);
    if lower(0) == Some(b'm') && !alpha_at(rest, 1) {
        return Some((pm, i + 2));
    }
    if lower(0) == Some(b'.') && lower(1) == Some(b'm') {
        let end = if rest.get(2) == Some(&b'.') { i + 4 } else { i + 3 };
        return Some((pm, end));
    }
    None
}

fn to_24h(h: u32, pm: bool) -> Option<u32> {
    if !(1..=12).contains(&h) {
        return None;
    }
    Some(match (h, pm) {
        (12, false) => 0,
        (12, true) => 12,
        (h, true) => h + 12,
        (h, false) => h,
    })
}

/// A clock time starting at byte `i`, as minutes after midnight.
fn time_at(s: &str, i: usize) -> Option<Found<u16>> {
    let b = s.as_bytes();
    if b[i].is_ascii_alphabetic() {
        if i > 0 && alpha_at(b, i - 1) {
            return None;
        }
        let mut end = i;
        while end < b.len() && b[end].is_ascii_alphabetic() {
            end += 1;
        }
        let w = &s[i..end];
        const NOON_SET: WordSet = word_set!(NOON, fold);
        const MIDNIGHT_SET: WordSet = word_set!(MIDNIGHT, fold);
        let value = if NOON_SET.contains(w) {
            12 * 60
        } else if MIDNIGHT_SET.contains(w) {
            0
        } else {
            return None;
        };
        return Some(Found { start: i, end, value });
    }
    if !b[i].is_ascii_digit() || (i > 0 && (alpha_at(b, i - 1) || matches!(b[i - 1], b':' | b'.' | b'/' | b','))) {
        return None;
    }
    let hd = digits_at(b, i);
    if hd > 2 {
        return None;
    }
    let h = num(b, i, hd);
    let mut j = i + hd;
    let mut minute = None;
    let sep = b.get(j).copied();
    if (sep == Some(b':') || sep == Some(b'.')) && digits_at(b, j + 1) == 2 {
        minute = Some(num(b, j + 1, 2));
        j += 3;
        // Seconds after a colon time: 15:30:00.
        if sep == Some(b':') && b.get(j) == Some(&b':') && digits_at(b, j + 1) == 2 {
            j += 3;
        }
    }
    let mer = meridiem(b, j);
    let value = match (minute, mer, sep) {
        (Some(m), Some((pm, _)), _) if m < 60 => to_24h(h, pm).map(|h| h * 60 + m),
        (Some(m), None, Some(b':')) if m < 60 && h < 24 && !b.get(j).is_some_and(u8::is_ascii_digit) => {
            Some(h * 60 + m)
        }
        (None, Some((pm, _)), _) => to_24h(h, pm).map(|h| h * 60),
        _ => None,
    }?;
    let end = mer.map_or(j, |(_, end)| end);
    Some(Found { start: i, end, value: value as u16 })
}

/// Runs `at` at each candidate start, skipping starts inside an earlier find.
fn scan<V>(
    s: &str,
    starts: impl Iterator<Item = usize>,
    at: impl Fn(&str, usize) -> Option<Found<V>>,
) -> Vec<Found<V>> {
    let mut out: Vec<Found<V>> = Vec::with_capacity(4);
    for i in starts {
        if out.last().is_some_and(|f| i < f.end) {
            continue;
        }
        if let Some(f) = at(s, i) {
            out.push(f);
        }
    }
    out
}

/// Word starts where `pred` holds for the first byte: the only places `time_at` / `date_at` can find anything.
fn starts<'t>(text: &'t Text<'_>, pred: impl Fn(u8) -> bool + 't) -> impl Iterator<Item = usize> + 't {
    let b = text.src.as_bytes();
    text.toks.iter().map(|t| t.start).filter(move |&i| pred(b[i]))
}

/// Every clock time in a reply. Times and dates start where a word does, so only word starts are tried: a digit,
/// or the `n` / `m` of noon, midday, midnight.
pub(crate) fn times_in(text: &Text<'_>) -> Vec<Found<u16>> {
    // One table for the test: it runs on every word.
    const OPENS: [bool; 256] = opens_time();
    scan(text.src, starts(text, |c| OPENS[c as usize]), time_at)
}

/// The bytes a time opens with: a digit, or the first letter of noon or midnight, in either case.
const fn opens_time() -> [bool; 256] {
    let (noon, midnight) = (opening_bytes(NOON, true, false), opening_bytes(MIDNIGHT, true, false));
    let mut out = [false; 256];
    let mut c = 0;
    while c < 256 {
        out[c] = (c as u8).is_ascii_digit() || noon[c] || midnight[c];
        c += 1;
    }
    out
}

/// `twelve_hour_either`: every clock time in a reply, each with the other reading of a twelve-hour time written without
/// am/pm ("3:30" may be 15:30). Such a time takes the am/pm of a range's end after it ("3:30–4:00 PM", "11:30 to 1:00
/// PM" is 11:30 AM, the reading that starts before the end) or of a part of the day after it ("3:30 this afternoon",
/// "9:15 in the morning"); otherwise either reading is what the reply states.
pub(crate) fn times_in_04(text: &Text<'_>) -> Vec<(Found<u16>, Option<u16>)> {
    let s = text.src;
    let found = times_in(text);
    let mut out = Vec::with_capacity(found.len());
    for (n, f) in found.iter().enumerate() {
        let written = &s[f.start..f.end];
        let bare = written.bytes().all(|c| c.is_ascii_digit() || c == b':')
            && written.contains(':')
            && !written.starts_with('0')
            && (60..13 * 60).contains(&f.value);
        if !bare {
            out.push((*f, None));
            continue;
        }
        let (am, pm) = (f.value % (12 * 60), f.value % (12 * 60) + 12 * 60);
        let rest = &s[f.end..];
        let gap_to_next = found.get(n + 1).map(|g| s[f.end..g.start].trim());
        let range_end = found
            .get(n + 1)
            .filter(|_| gap_to_next.is_some_and(|g| matches!(g, "-" | "\u{2013}") || TIME_RANGE_WORDS.contains(&g)))
            .filter(|g| s[g.start..g.end].bytes().any(|c| c.is_ascii_alphabetic()) && g.value >= 60);
        // A bounded look ahead: no longer than the longest part of the day.
        const LONGEST: usize = max(lengths(AFTERNOON).1, lengths(MORNING).1);
        let lower: String = rest.trim_start().chars().take(LONGEST).collect::<String>().to_ascii_lowercase();
        let part = |w: &[&str]| w.iter().any(|p| starts_with_phrase(&lower, p));
        let value = if let Some(end) = range_end {
            let ends_pm = end.value >= 12 * 60;
            let same = if ends_pm { pm } else { am };
            Some(if same <= end.value {
                same
            } else if ends_pm {
                am
            } else {
                pm
            })
        } else if part(AFTERNOON) {
            Some(pm)
        } else if part(MORNING) {
            Some(am)
        } else {
            None
        };
        match value {
            Some(v) => out.push((Found { value: v, ..*f }, None)),
            None => out.push((Found { value: am, ..*f }, Some(pm))),
        }
    }
    out
}

/// Every clock time in `s`, trying every position (for short texts such as record values).
pub(crate) fn find_times(s: &str) -> Vec<Found<u16>> {
    scan(s, s.char_indices().map(|(i, _)| i), time_at)
}

fn ordinal_end(b: &[u8], j: usize) -> usize {
    let ending =
        ORDINAL_ENDINGS.iter().find(|e| b.get(j..j + e.len()).is_some_and(|w| w.eq_ignore_ascii_case(e.as_bytes())));
    match ending {
        Some(e) if !alpha_at(b, j + e.len()) => j + e.len(),
        _ => j,
    }
}

/// A year after a day: `, 2026` or ` 2026`.
fn year_after(b: &[u8], j: usize) -> Option<(u16, usize)> {
    let k = if b.get(j) == Some(&b',') { j + 1 } else { j };
    let k = if b.get(k) == Some(&b' ') {
        k + 1
    } else {
        return None;
    };
    if digits_at(b, k) == 4 && !alpha_at(b, k + 4) {
        return Some((num(b, k, 4) as u16, k + 4));
    }
    None
}

fn valid(m: u32, d: u32) -> bool {
    (1..=12).contains(&m) && (1..=31).contains(&d)
}

/// A date starting at byte `i`.
/// `lower_may`: lower-case `may` is never the month in either order ("2 may arrive"); `period_with_year`: a period
/// after the month is the date's only after an abbreviation with a year to follow (the behaviours of those names).
fn date_at(s: &str, i: usize, lower_may: bool, period_with_year: bool) -> Option<Found<Date>> {
    let b = s.as_bytes();
    let boundary = i == 0 || !(alpha_at(b, i - 1) || matches!(b[i - 1], b'/' | b'-' | b'.' | b':'));
    if !boundary {
        return None;
    }
    let start = i;
    if b[i].is_ascii_alphabetic() {
        let mut i = i;
        while i < b.len() && b[i].is_ascii_alphabetic() {
            i += 1;
        }
        // Month name, optional period, space, day, optional ordinal and year: "Nov. 3rd, 2026".
        // Lower-case "may" is the verb ("you may 3 times"), never the month.
        let m = month_of(&s[start..i]).filter(|_| !NOT_MONTH.contains(&s[start..i]))?;
        let mut j = i;
        if b.get(j) == Some(&b'.') {
            j += 1;
        }
        if b.get(j) != Some(&b' ') {
            return None;
        }
        j += 1;
        let dd = digits_at(b, j);
        if !(1..=2).contains(&dd) || b.get(j + dd).is_some_and(|c| c.is_ascii_digit() || *c == b':') {
            return None;
        }
        let d = num(b, j, dd);
        let mut end = ordinal_end(b, j + dd);
        if alpha_at(b, end) || !valid(u32::from(m), d) {
            return None;
        }
        let year = year_after(b, end).map(|(y, e)| {
            end = e;
            y
        });
        return Some(Found { start, end, value: (year, m, d as u8) });
    }
    if !b[i].is_ascii_digit() {
        return None;
    }
    let n = digits_at(b, i);
    // ISO: 2026-11-03.
    if n == 4
        && b.get(i + 4) == Some(&b'-')
        && digits_at(b, i + 5) == 2
        && b.get(i + 7) == Some(&b'-')
        && digits_at(b, i + 8) == 2
    {
        let (y, m, d) = (num(b, i, 4), num(b, i + 5, 2), num(b, i + 8, 2));
        if valid(m, d) && !b.get(i + 10).is_some_and(u8::is_ascii_digit) {
            return Some(Found { start, end: i + 10, value: (Some(y as u16), m as u8, d as u8) });
        }
    }
    // en-US: 11/03, 11/03/2026, 11/3/26.
    if (1..=2).contains(&n) && b.get(i + n) == Some(&b'/') {
        let dn = digits_at(b, i + n + 1);
        if (1..=2).contains(&dn) {
            let (m, d) = (num(b, i, n), num(b, i + n + 1, dn));
            let mut end = i + n + 1 + dn;
            let mut year = None;
            if b.get(end) == Some(&b'/') {
                let yn = digits_at(b, end + 1);
                if yn == 4 || yn == 2 {
                    let y = num(b, end + 1, yn);
                    year = Some(if yn == 2 { 2000 + y } else { y } as u16);
                    end += 1 + yn;
                }
            }
            if valid(m, d) && !b.get(end).is_some_and(|c| c.is_ascii_digit() || *c == b'/') {
                return Some(Found { start, end, value: (year, m as u8, d as u8) });
            }
        }
    }
    // Day then month: "3 November 2026", "3rd of Nov".
    if (1..=2).contains(&n) {
        let d = num(b, i, n);
        let mut j = ordinal_end(b, i + n);
        if b.get(j) == Some(&b' ') {
            j += 1;
            if let Some(of) = DAY_OF_MONTH.iter().find(|of| {
                b.get(j..j + of.len()).is_some_and(|w| w.eq_ignore_ascii_case(of.as_bytes()))
                    && b.get(j + of.len()) == Some(&b' ')
            }) {
                j += of.len() + 1;
            }
            let ws = j;
            while j < b.len() && b[j].is_ascii_alphabetic() {
                j += 1;
            }
            let word = &s[ws..j];
            if let Some(m) = month_of(word).filter(|_| !lower_may || !NOT_MONTH.contains(word))
                && valid(u32::from(m), d)
            {
                let mut end = j;
                // `period_with_year`: an abbreviation's period is the date's only when the date goes on ("3 Nov.
                // 2026"); otherwise it ends the sentence ("on 4 Nov.", "on 4 May.").
                let takes_period = if period_with_year {
                    is_abbreviation(word) && year_after(b, end + 1).is_some()
                } else {
                    word.len() == 3
                };
                if b.get(end) == Some(&b'.') && takes_period {
                    end += 1;
                }
                let year = year_after(b, end).map(|(y, e)| {
                    end = e;
                    y
                });
                return Some(Found { start, end, value: (year, m, d as u8) });
            }
        }
    }
    None
}

/// Whether a month word is an abbreviation that a period may end ("Nov.", "Sept."): shorter than the month's name.
fn is_abbreviation(word: &str) -> bool {
    const SET: WordSet = word_set!(MONTHS_UNABBREVIATED, fold);
    (3..=4).contains(&word.len()) && !SET.contains(word)
}

/// `lower_may_no_month`: month names that in lower case are words.
const NOT_MONTH: WordSet = word_set!(LOWER_NOT_MONTH);

/// The bytes a date opens with: a digit, or a month's first letter in either case.
const fn opens_date() -> [bool; 256] {
    let month = opening_bytes(MONTH_NAMES_ONLY, true, false);
    let mut out = [false; 256];
    let mut c = 0;
    while c < 256 {
        out[c] = (c as u8).is_ascii_digit() || ((c as u8).is_ascii_alphabetic() && month[c]);
        c += 1;
    }
    out
}

/// Every date in a reply, tried at word starts that can open one: a digit or a month's first letter.
pub(crate) fn dates_in(text: &Text<'_>, reading: &Reading) -> Vec<Found<Date>> {
    const OPENS: [bool; 256] = opens_date();
    let opens = |c: u8| OPENS[c as usize];
    let (lower_may, period) = (reading.lower_may_no_month, reading.month_period_with_year);
    scan(text.src, starts(text, opens), |s, i| date_at(s, i, lower_may, period))
}

/// Every date in `s`, trying every position (for record values, read the same in every version).
pub(crate) fn find_dates(s: &str) -> Vec<Found<Date>> {
    scan(s, s.char_indices().map(|(i, _)| i), |s, i| date_at(s, i, false, false))
}

/// A time fact's value: one clock time and nothing else, or a 24-hour `HH:MM[:SS]`.
pub(crate) fn parse_fact_time(s: &str) -> Option<u16> {
    let t = s.trim();
    match find_times(t).as_slice() {
        [f] if f.start == 0 && f.end == t.len() => Some(f.value),
        _ => None,
    }
}

/// A date fact's value: ISO `2026-11-03` (a trailing time part is ignored), or one date in words or en-US form.
pub(crate) fn parse_fact_date(s: &str) -> Option<Date> {
    let t = s.trim();
    let t = match t.find('T') {
        Some(10) => &t[..10],
        _ => t,
    };
    match find_dates(t).as_slice() {
        [f] if f.start == 0 && f.end == t.len() => Some(f.value),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn times(s: &str) -> Vec<(&str, u16)> {
        find_times(s).iter().map(|f| (&s[f.start..f.end], f.value)).collect()
    }

    fn dates(s: &str) -> Vec<(&str, Date)> {
        find_dates(s).iter().map(|f| (&s[f.start..f.end], f.value)).collect()
    }

    #[test]
    fn clock_times() {
        assert_eq!(times("at 3:30 PM or 15:30 or 3.30pm"), [("3:30 PM", 930), ("15:30", 930), ("3.30pm", 930)]);
        assert_eq!(
            times("3pm, 11 a.m., noon, midnight"),
            [("3pm", 900), ("11 a.m.", 660), ("noon", 720), ("midnight", 0)]
        );
        assert_eq!(times("12 AM and 12 PM and 12:30 am"), [("12 AM", 0), ("12 PM", 720), ("12:30 am", 30)]);
        assert_eq!(times("15:30:00"), [("15:30:00", 930)]);
    }

    #[test]
    fn durations_and_decimals_are_not_times() {
        assert!(times("arrive 10 minutes early, in 2 hours, $49.99, 99.9% uptime, 25:00, 3.5 stars").is_empty());
        assert!(times("13 pm").is_empty());
    }

    #[test]
    fn date_forms() {
        assert_eq!(dates("Tuesday, Nov 3 at noon"), [("Nov 3", (None, 11, 3))]);
        assert_eq!(dates("November 3rd, 2026"), [("November 3rd, 2026", (Some(2026), 11, 3))]);
        assert_eq!(
            dates("3 November 2026 or 2026-11-03"),
            [("3 November 2026", (Some(2026), 11, 3)), ("2026-11-03", (Some(2026), 11, 3))]
        );
        assert_eq!(dates("11/03 and 11/3/2026"), [("11/03", (None, 11, 3)), ("11/3/2026", (Some(2026), 11, 3))]);
        assert!(dates("24/7 support, 5/35, you may 3").is_empty());
    }

    #[test]
    fn fact_values() {
        assert_eq!(parse_fact_time("15:30"), Some(930));
        assert_eq!(parse_fact_time("3:30 PM"), Some(930));
        assert_eq!(parse_fact_time("noon"), Some(720));
        assert_eq!(parse_fact_time("half past three"), None);
        assert_eq!(parse_fact_date("2026-11-03"), Some((Some(2026), 11, 3)));
        assert_eq!(parse_fact_date("2026-11-03T15:00Z"), Some((Some(2026), 11, 3)));
        assert_eq!(parse_fact_date("Nov 3"), Some((None, 11, 3)));
        assert_eq!(parse_fact_date("tomorrow"), None);
    }
}
