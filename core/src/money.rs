//! Money as integer minor units: the ISO 4217 exponent table, currency codes in either case (ACP lowercase, AP2 and
//! UCP uppercase), JSON amounts that must be integers within ±(2^53−1), and checked arithmetic that never wraps.

use std::fmt;

use serde_json::Value;

/// The largest magnitude an amount may have: 2^53−1, the largest integer every JSON reader (JavaScript included)
/// holds exactly. Inputs beyond it are refused and results beyond it are overflow.
pub const MAX_SAFE: i64 = (1 << 53) - 1;

/// A currency from the ISO 4217 table with its minor-unit exponent (USD 2, JPY 0, KWD 3, CLF 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Currency {
    code: [u8; 3],
    exponent: u8,
}

/// Why a currency code was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CurrencyError {
    /// Not three ASCII letters of one case (`"Usd"`, `"US"`, `"usd "`).
    Syntax,
    /// Three letters, but not an active ISO 4217 code.
    Unknown,
    /// An ISO 4217 code without a minor unit (gold `XAU`, `XDR`, the test code `XTS`, "no currency" `XXX`).
    NoMinorUnit,
}

/// Active ISO 4217 codes with exponent 0.
const EXP0: &[&str] = &[
    "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV", "XAF", "XOF",
    "XPF",
];
/// Active ISO 4217 codes with exponent 3.
const EXP3: &[&str] = &["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"];
/// Active ISO 4217 codes with exponent 4 (units of account).
const EXP4: &[&str] = &["CLF", "UYW"];
/// Active ISO 4217 codes with exponent 2.
const EXP2: &[&str] = &[
    "AED", "AFN", "ALL", "AMD", "AOA", "ARS", "AUD", "AWG", "AZN", "BAM", "BBD", "BDT", "BGN", "BMD", "BND", "BOB",
    "BOV", "BRL", "BSD", "BTN", "BWP", "BYN", "BZD", "CAD", "CDF", "CHE", "CHF", "CHW", "CNY", "COP", "COU", "CRC",
    "CUP", "CVE", "CZK", "DKK", "DOP", "DZD", "EGP", "ERN", "ETB", "EUR", "FJD", "FKP", "GBP", "GEL", "GHS", "GIP",
    "GMD", "GTQ", "GYD", "HKD", "HNL", "HTG", "HUF", "IDR", "ILS", "INR", "IRR", "JMD", "KES", "KGS", "KHR", "KPW",
    "KYD", "KZT", "LAK", "LBP", "LKR", "LRD", "LSL", "MAD", "MDL", "MGA", "MKD", "MMK", "MNT", "MOP", "MRU", "MUR",
    "MVR", "MWK", "MXN", "MXV", "MYR", "MZN", "NAD", "NGN", "NIO", "NOK", "NPR", "NZD", "PAB", "PEN", "PGK", "PHP",
    "PKR", "PLN", "QAR", "RON", "RSD", "RUB", "SAR", "SBD", "SCR", "SDG", "SEK", "SGD", "SHP", "SLE", "SOS", "SRD",
    "SSP", "STN", "SVC", "SYP", "SZL", "THB", "TJS", "TMT", "TOP", "TRY", "TTD", "TWD", "TZS", "UAH", "USD", "USN",
    "UYU", "UZS", "VED", "VES", "WST", "XCD", "XCG", "YER", "ZAR", "ZMW", "ZWG",
];
/// ISO 4217 codes whose minor unit is "N.A.": precious metals, SDR, bond-market units, the test and no-currency codes.
const NO_MINOR_UNIT: &[&str] =
    &["XAG", "XAU", "XBA", "XBB", "XBC", "XBD", "XDR", "XPD", "XPT", "XSU", "XTS", "XUA", "XXX"];

impl Currency {
    /// Reads a code written all uppercase (`USD`, AP2 and UCP) or all lowercase (`usd`, ACP). Mixed case is refused:
    /// neither protocol writes it, so it is more likely a mangled value than a currency.
    pub fn parse(s: &str) -> Result<Currency, CurrencyError> {
        let b = s.as_bytes();
        let upper = b.len() == 3 && b.iter().all(u8::is_ascii_uppercase);
        let lower = b.len() == 3 && b.iter().all(u8::is_ascii_lowercase);
        if !upper && !lower {
            return Err(CurrencyError::Syntax);
        }
        let code = [b[0].to_ascii_uppercase(), b[1].to_ascii_uppercase(), b[2].to_ascii_uppercase()];
        let text = std::str::from_utf8(&code).map_err(|_| CurrencyError::Syntax)?;
        let exponent = if EXP2.contains(&text) {
            2
        } else if EXP0.contains(&text) {
            0
        } else if EXP3.contains(&text) {
            3
        } else if EXP4.contains(&text) {
            4
        } else if NO_MINOR_UNIT.contains(&text) {
            return Err(CurrencyError::NoMinorUnit);
        } else {
            return Err(CurrencyError::Unknown);
        };
        Ok(Currency { code, exponent })
    }

    /// The uppercase ISO 4217 code.
    pub fn code(&self) -> &str {
        // Built from ASCII letters only in `parse`.
        std::str::from_utf8(&self.code).unwrap_or("???")
    }

    /// Digits after the decimal point: 2 for USD, 0 for JPY, 3 for KWD.
    pub fn exponent(&self) -> u8 {
        self.exponent
    }

    /// An amount of minor units as people read it: `USD 79.99`, `JPY 5000`, `KWD 1.500`, `USD -0.05`.
    pub fn format(&self, minor: i64) -> String {
        let sign = if minor < 0 { "-" } else { "" };
        let abs = i128::from(minor).unsigned_abs();
        if self.exponent == 0 {
            return format!("{} {sign}{abs}", self.code());
        }
        let scale = 10u128.pow(u32::from(self.exponent));
        let width = usize::from(self.exponent);
        format!("{} {sign}{}.{:0width$}", self.code(), abs / scale, abs % scale)
    }
}

impl fmt::Display for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// Formats an amount in `currency` when it is known, else as bare minor units.
pub fn format_amount(currency: Option<Currency>, minor: i64) -> String {
    match currency {
        Some(c) => c.format(minor),
        None => format!("{minor} minor units"),
    }
}

/// Why a JSON value is not an amount.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AmountError {
    /// Not a JSON number (a string `"100"`, null, an object).
    NotANumber,
    /// A number written with a fraction or an exponent (`100.0`, `1e3`, `99.5`) or too large for any integer type.
    NotAnInteger,
    /// An integer beyond ±(2^53−1).
    OutOfRange,
    /// A negative integer where only zero or more makes sense.
    Negative,
}

impl AmountError {
    /// What the value should have been, for the reason's `expected`.
    pub fn expected(self, allow_negative: bool) -> &'static str {
        match (self, allow_negative) {
            (_, true) => "an integer number of minor units within ±(2^53−1), written without a fraction or exponent",
            (_, false) => {
                "a non-negative integer number of minor units up to 2^53−1, written without a fraction or exponent"
            }
        }
    }
}

/// Reads a JSON amount of minor units. Only numbers that serde_json read as integers qualify: `100.0` and `1e3` are
/// floats on the wire and are refused, so no float ever takes part in a money path.
pub fn amount_from_json(v: &Value, allow_negative: bool) -> Result<i64, AmountError> {
    let Value::Number(n) = v else {
        return Err(AmountError::NotANumber);
    };
    let value = if let Some(i) = n.as_i64() {
        i
    } else if n.is_u64() {
        // A u64 above i64::MAX: an integer, but far beyond the bound.
        return Err(AmountError::OutOfRange);
    } else {
        return Err(AmountError::NotAnInteger);
    };
    if !(-MAX_SAFE..=MAX_SAFE).contains(&value) {
        return Err(AmountError::OutOfRange);
    }
    if value < 0 && !allow_negative {
        return Err(AmountError::Negative);
    }
    Ok(value)
}

/// Arithmetic left the range ±(2^53−1) (or i64 itself).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overflow;

fn bounded(v: Option<i64>) -> Result<i64, Overflow> {
    match v {
        Some(x) if (-MAX_SAFE..=MAX_SAFE).contains(&x) => Ok(x),
        _ => Err(Overflow),
    }
}

/// `a + b`, or [`Overflow`] when the result leaves ±(2^53−1).
pub fn add(a: i64, b: i64) -> Result<i64, Overflow> {
    bounded(a.checked_add(b))
}

/// `a - b`, or [`Overflow`] when the result leaves ±(2^53−1).
pub fn sub(a: i64, b: i64) -> Result<i64, Overflow> {
    bounded(a.checked_sub(b))
}

/// `a × b`, or [`Overflow`] when i64 overflows or the result leaves ±(2^53−1).
pub fn mul(a: i64, b: i64) -> Result<i64, Overflow> {
    bounded(a.checked_mul(b))
}

/// The sum of `items`, or [`Overflow`] as soon as a partial sum leaves ±(2^53−1).
pub fn sum<I: IntoIterator<Item = i64>>(items: I) -> Result<i64, Overflow> {
    items.into_iter().try_fold(0i64, add)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cur(s: &str) -> Currency {
        Currency::parse(s).expect("known currency")
    }

    #[test]
    fn exponents_follow_iso_4217() {
        assert_eq!(cur("USD").exponent(), 2);
        assert_eq!(cur("JPY").exponent(), 0);
        assert_eq!(cur("KWD").exponent(), 3);
        assert_eq!(cur("CLF").exponent(), 4);
        assert_eq!(cur("EUR").exponent(), 2);
    }

    #[test]
    fn case_is_normalised_but_never_mixed() {
        assert_eq!(cur("usd"), cur("USD"));
        assert_eq!(cur("usd").code(), "USD");
        assert_eq!(Currency::parse("Usd"), Err(CurrencyError::Syntax));
        assert_eq!(Currency::parse("US"), Err(CurrencyError::Syntax));
        assert_eq!(Currency::parse("USDX"), Err(CurrencyError::Syntax));
        assert_eq!(Currency::parse("ÜSD"), Err(CurrencyError::Syntax));
        assert_eq!(Currency::parse("ABC"), Err(CurrencyError::Unknown));
        assert_eq!(Currency::parse("XAU"), Err(CurrencyError::NoMinorUnit));
        assert_eq!(Currency::parse("xxx"), Err(CurrencyError::NoMinorUnit));
    }

    #[test]
    fn every_table_code_is_three_uppercase_letters_and_listed_once() {
        let all: Vec<&str> = [EXP0, EXP2, EXP3, EXP4, NO_MINOR_UNIT].concat();
        for c in &all {
            assert!(c.len() == 3 && c.bytes().all(|b| b.is_ascii_uppercase()), "{c}");
            assert_eq!(all.iter().filter(|x| *x == c).count(), 1, "{c} listed twice");
        }
    }

    #[test]
    fn formats_with_the_exponent() {
        assert_eq!(cur("USD").format(7999), "USD 79.99");
        assert_eq!(cur("USD").format(5), "USD 0.05");
        assert_eq!(cur("USD").format(-5), "USD -0.05");
        assert_eq!(cur("JPY").format(5000), "JPY 5000");
        assert_eq!(cur("KWD").format(1500), "KWD 1.500");
        assert_eq!(cur("CLF").format(12345), "CLF 1.2345");
        assert_eq!(cur("USD").format(-MAX_SAFE), "USD -90071992547409.91");
    }

    #[test]
    fn amounts_are_integers_within_the_safe_range() {
        assert_eq!(amount_from_json(&json!(100), false), Ok(100));
        assert_eq!(amount_from_json(&json!(0), false), Ok(0));
        assert_eq!(amount_from_json(&json!(-5), true), Ok(-5));
        assert_eq!(amount_from_json(&json!(-5), false), Err(AmountError::Negative));
        assert_eq!(amount_from_json(&json!(MAX_SAFE), false), Ok(MAX_SAFE));
        assert_eq!(amount_from_json(&json!(MAX_SAFE + 1), false), Err(AmountError::OutOfRange));
        assert_eq!(amount_from_json(&json!(-MAX_SAFE - 1), true), Err(AmountError::OutOfRange));
        assert_eq!(amount_from_json(&json!(u64::MAX), false), Err(AmountError::OutOfRange));
        assert_eq!(amount_from_json(&json!("100"), false), Err(AmountError::NotANumber));
        assert_eq!(amount_from_json(&Value::Null, false), Err(AmountError::NotANumber));
        for text in ["100.0", "1e3", "1E3", "99.5", "-0.0", "18446744073709551616"] {
            let v = crate::json::read_str(text).expect("valid JSON number");
            assert_eq!(amount_from_json(&v, true), Err(AmountError::NotAnInteger), "{text}");
        }
    }

    #[test]
    fn arithmetic_is_checked_and_bounded() {
        assert_eq!(add(1, 2), Ok(3));
        assert_eq!(add(MAX_SAFE, 1), Err(Overflow));
        assert_eq!(sub(-MAX_SAFE, 1), Err(Overflow));
        assert_eq!(mul(MAX_SAFE, 4096), Err(Overflow)); // overflows i64 itself
        assert_eq!(mul(1 << 30, 1 << 23), Err(Overflow)); // fits i64, exceeds 2^53−1
        assert_eq!(mul(7999, 3), Ok(23997));
        assert_eq!(sum([1, 2, 3]), Ok(6));
        assert_eq!(sum([MAX_SAFE, 1, -1]), Err(Overflow));
        assert_eq!(sum(Vec::new()), Ok(0));
    }
}
