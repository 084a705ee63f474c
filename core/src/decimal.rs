//! Exact decimal amounts (money, percents) as integer millionths: no floats ever take part in a comparison.
//! JSON numbers are read from their shortest round-trip text, so `49.99` is exactly 49_990_000 micro-units.

use std::fmt::Write as _;

/// Millionths per unit.
pub const SCALE: i128 = 1_000_000;
/// The largest amount we read: 10^15 units. Larger values are refused, never clamped.
pub const MAX_UNITS: i128 = 1_000_000_000_000_000;

/// A non-negative exact decimal with six fractional digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Dec(pub i128);

/// Why a decimal text could not be read exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecError {
    Syntax,
    Negative,
    TooPrecise,
    TooLarge,
}

impl Dec {
    pub const ZERO: Dec = Dec(0);

    pub fn from_units(units: i128) -> Option<Dec> {
        units.checked_mul(SCALE).map(Dec)
    }

    /// Reads a JSON number exactly, from its decimal text as written (the strict reader keeps it).
    pub fn from_json_number(n: &serde_json::Number) -> Result<Dec, DecError> {
        Dec::parse(&n.to_string())
    }

    /// Reads `[-]digits[.digits][e[+-]digits]`. At most six fractional digits after the exponent is applied.
    pub fn parse(s: &str) -> Result<Dec, DecError> {
        let s = s.trim();
        let (neg, s) = match s.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, s),
        };
        let (mantissa, exp) = match s.find(['e', 'E']) {
            Some(i) => {
                let e: i32 = s[i + 1..].parse().map_err(|_| DecError::Syntax)?;
                (&s[..i], e)
            }
            None => (s, 0),
        };
        let (int_part, frac_part) = match mantissa.find('.') {
            Some(i) => (&mantissa[..i], &mantissa[i + 1..]),
            None => (mantissa, ""),
        };
        if (int_part.is_empty() && frac_part.is_empty())
            || !int_part.bytes().all(|b| b.is_ascii_digit())
            || !frac_part.bytes().all(|b| b.is_ascii_digit())
        {
            return Err(DecError::Syntax);
        }
        // digits * 10^(exp - frac_len) must be a whole number of millionths.
        let digits = format!("{int_part}{frac_part}");
        let digits = digits.trim_start_matches('0');
        let shift = exp as i64 - frac_part.len() as i64 + 6;
        let mut value: i128 = 0;
        let significant = digits.trim_end_matches('0');
        let trailing_zeros = (digits.len() - significant.len()) as i64;
        if significant.is_empty() {
            return Ok(Dec::ZERO);
        }
        if neg {
            return Err(DecError::Negative);
        }
        let shift = shift + trailing_zeros;
        if shift < 0 {
            return Err(DecError::TooPrecise);
        }
        if significant.len() as i64 + shift > 22 {
            return Err(DecError::TooLarge);
        }
        for b in significant.bytes() {
            value = value * 10 + i128::from(b - b'0');
        }
        for _ in 0..shift {
            value *= 10;
        }
        if value > MAX_UNITS * SCALE {
            return Err(DecError::TooLarge);
        }
        Ok(Dec(value))
    }

    /// Whole cents? (Prices that cannot be stated in cents are worth a lint warning.)
    pub fn is_whole_cents(self) -> bool {
        self.0 % 10_000 == 0
    }

    pub fn checked_mul_int(self, k: i128) -> Option<Dec> {
        self.0.checked_mul(k).map(Dec)
    }

    /// Rounds half up to whole cents.
    pub fn round_cents(self) -> Dec {
        Dec((self.0 + 5_000) / 10_000 * 10_000)
    }

    /// The price after `percent` off, exactly, if it is a whole number of millionths.
    /// Also returns the value rounded half-up to cents, the way an agent would state it.
    pub fn after_discount(self, percent: Dec) -> Option<(Option<Dec>, Dec)> {
        let keep = (100 * SCALE).checked_sub(percent.0)?;
        let num = self.0.checked_mul(keep)?;
        let den = 100 * SCALE;
        let exact = (num % den == 0).then_some(Dec(num / den));
        let rounded = Dec((num + den * 5_000) / (den * 10_000) * 10_000);
        Some((exact, rounded))
    }

    /// `percent` of this amount, with the same exact / cent-rounded pair.
    pub fn percent_of(self, percent: Dec) -> Option<(Option<Dec>, Dec)> {
        let num = self.0.checked_mul(percent.0)?;
        let den = 100 * SCALE;
        let exact = (num % den == 0).then_some(Dec(num / den));
        let rounded = Dec((num + den * 5_000) / (den * 10_000) * 10_000);
        Some((exact, rounded))
    }

    /// Plain decimal text: `49`, `49.5`, `0.99`.
    pub fn plain(self) -> String {
        let mut s = String::new();
        let int = self.0 / SCALE;
        let frac = self.0 % SCALE;
        let _ = write!(s, "{int}");
        if frac != 0 {
            let f = format!("{frac:06}");
            s.push('.');
            s.push_str(f.trim_end_matches('0'));
        }
        s
    }

    /// Dollar text as customers read it: `$49`, `$49.50`, `$1,299`, `$0.99`, `$49.999`.
    pub fn dollars(self) -> String {
        let int = self.0 / SCALE;
        let frac = self.0 % SCALE;
        let digits = int.to_string();
        let mut s = String::with_capacity(digits.len() + 8);
        s.push('$');
        for (i, ch) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                s.push(',');
            }
            s.push(ch);
        }
        if frac != 0 {
            let f = format!("{frac:06}");
            let t = f.trim_end_matches('0');
            s.push('.');
            s.push_str(t);
            if t.len() == 1 {
                s.push('0');
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Dec {
        Dec::parse(s).expect("parses")
    }

    #[test]
    fn parses_exact_decimals() {
        assert_eq!(d("49"), Dec(49_000_000));
        assert_eq!(d("49.99"), Dec(49_990_000));
        assert_eq!(d("0.1"), Dec(100_000));
        assert_eq!(d(".99"), Dec(990_000));
        assert_eq!(d("1e3"), Dec(1_000_000_000));
        assert_eq!(d("1.5e-1"), Dec(150_000));
        assert_eq!(d("0"), Dec::ZERO);
        assert_eq!(d("-0"), Dec::ZERO);
        assert_eq!(Dec::parse("1e-7"), Err(DecError::TooPrecise));
        assert_eq!(Dec::parse("1e16"), Err(DecError::TooLarge));
        assert_eq!(Dec::parse("1e300"), Err(DecError::TooLarge));
        assert_eq!(Dec::parse("-1"), Err(DecError::Negative));
        assert_eq!(Dec::parse("4x"), Err(DecError::Syntax));
    }

    #[test]
    fn formats_dollars() {
        assert_eq!(d("49").dollars(), "$49");
        assert_eq!(d("49.5").dollars(), "$49.50");
        assert_eq!(d("1299").dollars(), "$1,299");
        assert_eq!(d("1299000.25").dollars(), "$1,299,000.25");
        assert_eq!(d("0.99").dollars(), "$0.99");
        assert_eq!(d("49.999").dollars(), "$49.999");
    }

    #[test]
    fn discounts_are_exact_then_cent_rounded() {
        // 15% off $49 = $41.65 exactly; 12.5% off $49 = $42.875 -> $42.88.
        assert_eq!(d("49").after_discount(d("15")), Some((Some(d("41.65")), d("41.65"))));
        assert_eq!(d("49").after_discount(d("12.5")), Some((Some(d("42.875")), d("42.88"))));
        // 1/3 off $10 = 6.666...: no exact millionths, rounds to $6.67.
        assert_eq!(d("10").after_discount(d("33.333333")).map(|p| p.1), Some(d("6.67")));
        assert_eq!(d("49").percent_of(d("20")), Some((Some(d("9.8")), d("9.8"))));
    }
}
