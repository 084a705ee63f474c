//! RFC 8785 JSON Canonicalization Scheme: the one byte string a JSON value signs or hashes as (UCP and AP2 sign the
//! JCS-canonical checkout; Curbi's cart digest is SHA-256 over it). Members sorted by UTF-16 code units, ECMAScript
//! number and string serialization, no whitespace.

use std::fmt::Write as _;

use serde_json::{Number, Value};

use crate::error::{Error, ErrorCode};
use crate::pointer::{element, member};

/// The RFC 8785 canonical form of `v`. Numbers are read from their decimal text (the strict reader keeps it) to the
/// nearest IEEE 754 double, as RFC 8785 §3.2.2.3 reads them; a number beyond the doubles (`1e400`) has no canonical
/// form and is `out_of_range` at its pointer.
pub fn canonicalize(v: &Value) -> Result<String, Error> {
    let mut out = String::new();
    write_value(&mut out, v, "")?;
    Ok(out)
}

fn write_value(out: &mut String, v: &Value, path: &str) -> Result<(), Error> {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(out, n, path)?,
        Value::String(s) => write_string(out, s),
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, x, &element(path, i))?;
            }
            out.push(']');
        }
        Value::Object(m) => {
            // RFC 8785 §3.2.3: by the UTF-16 code units of the names, not by their UTF-8 bytes (which differ above
            // U+FFFF against U+E000..U+FFFF).
            let mut members: Vec<(&String, &Value)> = m.iter().collect();
            members.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
            out.push('{');
            for (i, (k, x)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, k);
                out.push(':');
                write_value(out, x, &member(path, k))?;
            }
            out.push('}');
        }
    }
    Ok(())
}

/// RFC 8785 §3.2.2.2: strings as ECMAScript `JSON.stringify` writes them.
fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// RFC 8785 §3.2.2.3: numbers as IEEE 754 doubles in ECMAScript `Number.prototype.toString` form. Integers beyond
/// 2^53 become the nearest double first, as every JSON reader that follows I-JSON sees them.
fn write_number(out: &mut String, n: &Number, path: &str) -> Result<(), Error> {
    const EXACT: u64 = 1 << 53;
    if let Some(u) = n.as_u64()
        && u <= EXACT
    {
        let _ = write!(out, "{u}");
    } else if let Some(i) = n.as_i64()
        && i.unsigned_abs() <= EXACT
    {
        let _ = write!(out, "{i}");
    } else if let Some(f) = n.as_f64() {
        // The text's nearest double: Rust's parser rounds correctly (serde_json's `as_f64` under
        // `arbitrary_precision`), and it is finite here.
        write_double(out, f);
    } else {
        let message = format!("{n} is beyond the IEEE 754 doubles, so it has no RFC 8785 canonical form");
        return Err(Error::new(ErrorCode::OutOfRange, path, message));
    }
    Ok(())
}

fn write_double(out: &mut String, f: f64) {
    if f == 0.0 {
        // Both zeros are "0".
        out.push('0');
        return;
    }
    if f < 0.0 {
        out.push('-');
    }
    // Rust's `{:e}` is the shortest decimal that round-trips, as ECMAScript requires: "d.ddde±x".
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let exp: i32 = exp.parse().unwrap_or(0);
    let k = digits.len() as i32;
    // ECMAScript's n: the value is 0.digits × 10^n.
    let n = exp + 1;
    if k <= n && n <= 21 {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', (n - k) as usize));
    } else if 0 < n && n <= 21 {
        let (int, frac) = digits.split_at(n as usize);
        out.push_str(int);
        out.push('.');
        out.push_str(frac);
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-n) as usize));
        out.push_str(&digits);
    } else {
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let e = n - 1;
        let _ = write!(out, "e{}{}", if e < 0 { '-' } else { '+' }, e.unsigned_abs());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jcs(text: &str) -> String {
        canonicalize(&crate::json::read_str(text).expect("valid JSON")).expect("canonical")
    }

    #[test]
    fn rfc_8785_section_3_2_2_example() {
        let input = r#"{
          "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
          "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
          "literals": [null, true, false]
        }"#;
        let want = "{\"literals\":[null,true,false],\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27],\
                    \"string\":\"€$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}";
        assert_eq!(jcs(input), want);
    }

    #[test]
    fn rfc_8785_section_3_2_3_sorting_example() {
        let input = r#"{"\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh",
                       "1": "One", "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control",
                       "\u00f6": "Latin Small Letter O With Diaeresis"}"#;
        let want = "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u{80}\":\"Control\",\
                    \"ö\":\"Latin Small Letter O With Diaeresis\",\"€\":\"Euro Sign\",\
                    \"😀\":\"Emoji: Grinning Face\",\"\u{fb33}\":\"Hebrew Letter Dalet With Dagesh\"}";
        assert_eq!(jcs(input), want);
    }

    #[test]
    fn rfc_8785_appendix_b_numbers() {
        let cases: &[(u64, &str)] = &[
            (0x0000000000000000, "0"),
            (0x8000000000000000, "0"),
            (0x0000000000000001, "5e-324"),
            (0x8000000000000001, "-5e-324"),
            (0x7fefffffffffffff, "1.7976931348623157e+308"),
            (0xffefffffffffffff, "-1.7976931348623157e+308"),
            (0x4340000000000000, "9007199254740992"),
            (0xc340000000000000, "-9007199254740992"),
            (0x4430000000000000, "295147905179352830000"),
            (0x44b52d02c7e14af5, "9.999999999999997e+22"),
            (0x44b52d02c7e14af6, "1e+23"),
            (0x3eb0c6f7a0b5ed8d, "0.000001"),
            (0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"),
            (0x444b1ae4d6e2ef4f, "999999999999999900000"),
            (0x444b1ae4d6e2ef50, "1e+21"),
            (0x3e7ad7f29abcaf48, "1e-7"),
        ];
        for (bits, want) in cases {
            let mut out = String::new();
            write_double(&mut out, f64::from_bits(*bits));
            assert_eq!(&out, want, "{bits:#018x}");
        }
    }

    #[test]
    fn integers_beyond_2_53_are_read_as_doubles() {
        assert_eq!(jcs("9007199254740993"), "9007199254740992");
        assert_eq!(jcs("-9007199254740993"), "-9007199254740992");
        assert_eq!(jcs("18446744073709551615"), "18446744073709552000");
        assert_eq!(jcs("100"), "100");
        assert_eq!(jcs("100.0"), "100");
        assert_eq!(jcs("-0.0"), "0");
        // Numbers are read from their text to the nearest double. 2^53 + 1 written as a decimal: halfway between two doubles, so ties-to-even gives 2^53.
        assert_eq!(jcs("9007199254740993.0"), "9007199254740992");
        // Just above the halfway point, the larger neighbour 2^53 + 2.
        assert_eq!(jcs("9007199254740993.000000000000000001"), "9007199254740994");
        // Below the smallest subnormal's half: zero, as ECMAScript's JSON.parse reads it.
        assert_eq!(jcs("1e-400"), "0");
        assert_eq!(jcs("0.1000000000000000055511151231257827"), "0.1");
    }

    #[test]
    fn numbers_beyond_the_doubles_have_no_canonical_form() {
        for text in [r#"{"a":[1,{"b":1e400}]}"#, r#"{"a":[1,{"b":-1E+309}]}"#] {
            let e = canonicalize(&crate::json::read_str(text).expect("valid JSON")).err();
            assert_eq!(e.map(|e| (e.code, e.path)), Some((ErrorCode::OutOfRange, "/a/1/b".to_owned())), "{text}");
        }
        // The largest double is finite, and one past it by less than half an ulp still rounds to it.
        assert_eq!(jcs("1.7976931348623157e308"), "1.7976931348623157e+308");
        assert_eq!(jcs("1.7976931348623158e308"), "1.7976931348623157e+308");
    }

    #[test]
    fn nesting_and_whitespace() {
        assert_eq!(jcs(r#" { "b" : [ 1 , { "d":1, "c":2 } ], "a" : "x" } "#), r#"{"a":"x","b":[1,{"c":2,"d":1}]}"#);
        assert_eq!(jcs(r#""\u2028\u007f""#), "\"\u{2028}\u{7f}\"");
    }
}
