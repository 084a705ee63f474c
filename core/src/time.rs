//! Instants for expiry, not-before and recurrence checks: a strict RFC 3339 reader (`2026-11-20T12:00:00Z`, offsets,
//! fractions up to nanoseconds) and UTC calendar arithmetic. There is no clock here: `now` always comes from the caller.

use std::fmt;

/// A point in time: seconds and nanoseconds since 1970-01-01T00:00:00Z. Ordered by time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp {
    secs: i64,
    nanos: u32,
}

/// Why a text is not an RFC 3339 date-time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeError {
    /// Not of the form `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`.
    Syntax,
    /// Well formed, but a field is out of range (month 13, February 30, hour 24, offset +24:00).
    Range,
}

const SECS_PER_DAY: i64 = 86_400;

impl Timestamp {
    /// Seconds and nanoseconds since the Unix epoch; `None` when `nanos` is not below one second.
    pub fn from_unix(secs: i64, nanos: u32) -> Option<Timestamp> {
        (nanos < 1_000_000_000).then_some(Timestamp { secs, nanos })
    }

    pub fn unix_seconds(&self) -> i64 {
        self.secs
    }

    pub fn subsec_nanos(&self) -> u32 {
        self.nanos
    }

    /// Reads an RFC 3339 `date-time`: `T` or `t` between date and time, `Z`, `z` or a numeric offset (`-00:00` is
    /// read as UTC), a fraction of 1 to 9 digits. A leap second (`:60`) is read as the last nanosecond of `:59`.
    /// Years run from 0000 to 9999. Nothing else is accepted: no spaces, no missing seconds, no week dates.
    pub fn parse(s: &str) -> Result<Timestamp, TimeError> {
        let b = s.as_bytes();
        if b.len() < 20 {
            return Err(TimeError::Syntax);
        }
        let digits = |range: std::ops::Range<usize>| -> Result<u32, TimeError> {
            let part = b.get(range).ok_or(TimeError::Syntax)?;
            if part.is_empty() || !part.iter().all(u8::is_ascii_digit) {
                return Err(TimeError::Syntax);
            }
            Ok(part.iter().fold(0u32, |acc, d| acc * 10 + u32::from(d - b'0')))
        };
        let punct = |i: usize, options: &[u8]| -> Result<(), TimeError> {
            if b.get(i).is_some_and(|c| options.contains(c)) { Ok(()) } else { Err(TimeError::Syntax) }
        };
        let year = digits(0..4)?;
        punct(4, b"-")?;
        let month = digits(5..7)?;
        punct(7, b"-")?;
        let day = digits(8..10)?;
        punct(10, b"Tt")?;
        let hour = digits(11..13)?;
        punct(13, b":")?;
        let minute = digits(14..16)?;
        punct(16, b":")?;
        let second = digits(17..19)?;
        let mut i = 19;
        let mut nanos = 0u32;
        if b[i] == b'.' {
            let start = i + 1;
            let mut end = start;
            while end < b.len() && b[end].is_ascii_digit() {
                end += 1;
            }
            let n = end - start;
            if n == 0 || n > 9 {
                return Err(TimeError::Syntax);
            }
            nanos = digits(start..end)? * 10u32.pow(9 - n as u32);
            i = end;
        }
        let offset_secs: i64 = match b.get(i) {
            Some(b'Z' | b'z') if i + 1 == b.len() => 0,
            Some(&sign @ (b'+' | b'-')) if i + 6 == b.len() => {
                let oh = digits(i + 1..i + 3)?;
                punct(i + 3, b":")?;
                let om = digits(i + 4..i + 6)?;
                if oh > 23 || om > 59 {
                    return Err(TimeError::Range);
                }
                let off = i64::from(oh * 3600 + om * 60);
                if sign == b'+' { off } else { -off }
            }
            _ => return Err(TimeError::Syntax),
        };
        if !(1..=12).contains(&month) || day < 1 || day > days_in_month(i64::from(year), month) {
            return Err(TimeError::Range);
        }
        if hour > 23 || minute > 59 || second > 60 {
            return Err(TimeError::Range);
        }
        let (second, nanos) = if second == 60 { (59, 999_999_999) } else { (second, nanos) };
        let days = days_from_civil(i64::from(year), month, day);
        let local = days * SECS_PER_DAY + i64::from(hour * 3600 + minute * 60 + second);
        Ok(Timestamp { secs: local - offset_secs, nanos })
    }

    /// The same instant `days` whole days later (negative: earlier).
    pub fn add_days(self, days: i64) -> Timestamp {
        Timestamp { secs: self.secs.saturating_add(days.saturating_mul(SECS_PER_DAY)), nanos: self.nanos }
    }

    /// One nanosecond later at most `n` ns (for turning an inclusive bound into an exclusive one).
    pub fn add_nanos(self, n: u32) -> Timestamp {
        let total = u64::from(self.nanos) + u64::from(n);
        let (carry, nanos) = (total / 1_000_000_000, (total % 1_000_000_000) as u32);
        Timestamp { secs: self.secs.saturating_add(carry as i64), nanos }
    }

    /// The same UTC time of day `months` calendar months later; the day is clamped to the month's last day
    /// (January 31 + 1 month = February 28 or 29).
    pub fn add_months(self, months: u32) -> Timestamp {
        let days = self.secs.div_euclid(SECS_PER_DAY);
        let time_of_day = self.secs.rem_euclid(SECS_PER_DAY);
        let (y, m, d) = civil_from_days(days);
        let index = y * 12 + i64::from(m - 1) + i64::from(months);
        let (ny, nm) = (index.div_euclid(12), index.rem_euclid(12) as u32 + 1);
        let nd = d.min(days_in_month(ny, nm));
        Timestamp { secs: days_from_civil(ny, nm, nd) * SECS_PER_DAY + time_of_day, nanos: self.nanos }
    }

    /// RFC 3339 in UTC: `2026-11-20T12:00:00Z`, with a fraction only when there is one (trailing zeros dropped).
    pub fn to_rfc3339(&self) -> String {
        let days = self.secs.div_euclid(SECS_PER_DAY);
        let tod = self.secs.rem_euclid(SECS_PER_DAY);
        let (y, m, d) = civil_from_days(days);
        let mut s = format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}", tod / 3600, tod % 3600 / 60, tod % 60);
        if self.nanos != 0 {
            let frac = format!("{:09}", self.nanos);
            s.push('.');
            s.push_str(frac.trim_end_matches('0'));
        }
        s.push('Z');
        s
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_rfc3339())
    }
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(y) => 29,
        _ => 28,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = i64::from((m + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day count since 1970-01-01.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: &str) -> Timestamp {
        Timestamp::parse(s).expect("valid RFC 3339")
    }

    #[test]
    fn reads_utc_offsets_and_fractions() {
        assert_eq!(ts("1970-01-01T00:00:00Z").unix_seconds(), 0);
        assert_eq!(ts("2026-11-20T12:00:00Z").unix_seconds(), 1_795_176_000);
        assert_eq!(ts("2026-11-20T13:30:00+01:30"), ts("2026-11-20T12:00:00Z"));
        assert_eq!(ts("2026-11-20T07:00:00-05:00"), ts("2026-11-20T12:00:00Z"));
        assert_eq!(ts("2026-11-20t12:00:00z"), ts("2026-11-20T12:00:00Z"));
        assert_eq!(ts("2026-11-20T12:00:00-00:00"), ts("2026-11-20T12:00:00Z"));
        assert_eq!(ts("2026-11-20T12:00:00.5Z").subsec_nanos(), 500_000_000);
        assert_eq!(ts("2026-11-20T12:00:00.000000001Z").subsec_nanos(), 1);
        assert!(ts("2026-11-20T12:00:00.000000001Z") > ts("2026-11-20T12:00:00Z"));
        assert_eq!(ts("1969-12-31T23:59:59Z").unix_seconds(), -1);
        assert_eq!(ts("0000-01-01T00:00:00Z").unix_seconds(), -62_167_219_200);
        assert_eq!(ts("9999-12-31T23:59:59Z").unix_seconds(), 253_402_300_799);
    }

    #[test]
    fn leap_days_and_leap_seconds() {
        assert!(Timestamp::parse("2024-02-29T00:00:00Z").is_ok());
        assert_eq!(Timestamp::parse("2026-02-29T00:00:00Z"), Err(TimeError::Range));
        assert_eq!(Timestamp::parse("1900-02-29T00:00:00Z"), Err(TimeError::Range));
        assert!(Timestamp::parse("2000-02-29T00:00:00Z").is_ok());
        let leap = ts("2016-12-31T23:59:60Z");
        assert!(leap > ts("2016-12-31T23:59:59.999999998Z") && leap < ts("2017-01-01T00:00:00Z"));
    }

    #[test]
    fn refuses_everything_else() {
        for bad in [
            "",
            "2026-11-20",
            "2026-11-20T12:00Z",
            "2026-11-20T12:00:00",
            "2026-11-20 12:00:00Z",
            "2026-11-20T12:00:00.Z",
            "2026-11-20T12:00:00.1234567890Z",
            "2026-11-20T12:00:00+0100",
            "2026-11-20T12:00:00+01",
            "2026-11-20T12:00:00Z ",
            " 2026-11-20T12:00:00Z",
            "+2026-11-20T12:00:00Z",
            "2026-1-20T12:00:00Z",
            "2026-11-20T12:00:00ZZ",
            "２026-11-20T12:00:00Z",
        ] {
            assert_eq!(Timestamp::parse(bad), Err(TimeError::Syntax), "{bad:?}");
        }
        for bad in [
            "2026-13-01T00:00:00Z",
            "2026-00-01T00:00:00Z",
            "2026-04-31T00:00:00Z",
            "2026-11-20T24:00:00Z",
            "2026-11-20T12:60:00Z",
            "2026-11-20T12:00:61Z",
            "2026-11-20T12:00:00+24:00",
            "2026-11-20T12:00:00+01:60",
        ] {
            assert_eq!(Timestamp::parse(bad), Err(TimeError::Range), "{bad:?}");
        }
    }

    #[test]
    fn formats_in_utc() {
        assert_eq!(ts("2026-11-20T13:30:00+01:30").to_rfc3339(), "2026-11-20T12:00:00Z");
        assert_eq!(ts("2026-11-20T12:00:00.250Z").to_rfc3339(), "2026-11-20T12:00:00.25Z");
        assert_eq!(Timestamp::from_unix(-1, 0).map(|t| t.to_rfc3339()), Some("1969-12-31T23:59:59Z".into()));
        assert_eq!(Timestamp::from_unix(0, 1_000_000_000), None);
    }

    #[test]
    fn calendar_arithmetic() {
        assert_eq!(ts("2026-01-31T10:00:00Z").add_months(1), ts("2026-02-28T10:00:00Z"));
        assert_eq!(ts("2024-01-31T10:00:00Z").add_months(1), ts("2024-02-29T10:00:00Z"));
        assert_eq!(ts("2026-11-15T10:00:00Z").add_months(3), ts("2027-02-15T10:00:00Z"));
        assert_eq!(ts("2026-11-15T10:00:00Z").add_months(12), ts("2027-11-15T10:00:00Z"));
        assert_eq!(ts("2026-12-31T23:00:00Z").add_days(1), ts("2027-01-01T23:00:00Z"));
        assert_eq!(ts("1969-12-31T12:00:00Z").add_months(1), ts("1970-01-31T12:00:00Z"));
    }

    #[test]
    fn civil_round_trip() {
        for days in (-800_000..800_000).step_by(997) {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
            assert!(d >= 1 && d <= days_in_month(y, m));
        }
    }
}
