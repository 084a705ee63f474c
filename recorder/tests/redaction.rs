//! PostgreSQL passwords never shown (issue 43): generated passwords, put into every form of connection string
//! tokio-postgres reads, appear in no error the recorder gives, neither raw nor percent-encoded nor as spelt.
#![allow(clippy::panic)]

mod common;

use common::{ORIGIN, key};
use curbi_recorder::{Recorder, RecorderOptions, is_postgres_url, redact_url};
use proptest::prelude::*;

/// Every byte but ASCII letters and digits as `%XX`.
fn encode_all(s: &str) -> String {
    s.bytes().map(|b| if b.is_ascii_alphanumeric() { char::from(b).to_string() } else { format!("%{b:02X}") }).collect()
}

/// Only what would end the URL part the text sits in: `%`, `@`, `&` and `#`.
fn encode_some(s: &str) -> String {
    s.chars().map(|c| if "%@&#".contains(c) { format!("%{:02X}", u32::from(c)) } else { c.to_string() }).collect()
}

/// A quoted libpq value: `\` and `'` escaped.
fn quoted(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// An unquoted libpq value: every character but letters and digits escaped with `\`.
fn escaped(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_string() } else { format!("\\{c}") }).collect()
}

/// A password: a marker no message holds, then letters, digits and the characters that end URL parts or libpq
/// values (`?`, `/`, `@`, `:`, `&`, `=`, `#`, `%`, quotes, backslash, space) and a non-ASCII one.
fn password() -> impl Strategy<Value = String> {
    let pool: Vec<char> = "aB3?/@:&=#% '\"\\+;,!~é".chars().collect();
    prop::collection::vec(prop::sample::select(pool), 4..24)
        .prop_map(|cs| format!("Zq7{}", cs.into_iter().collect::<String>()))
}

/// The password in every form, as (connection string, how the password is spelt in it).
fn forms(pw: &str) -> Vec<(String, String)> {
    let at = "127.0.0.1:1";
    let kv = "host=127.0.0.1 port=1 user=shop dbname=log";
    let mut v = vec![
        (format!("postgres://shop:{}@{at}/log", encode_some(pw)), encode_some(pw)),
        (format!("postgresql://shop:{}@{at}/log?sslmode=disable", encode_all(pw)), encode_all(pw)),
        (format!("postgres://shop@{at}/log?sslmode=disable&password={}", encode_some(pw)), encode_some(pw)),
        (format!("postgres://shop@{at}/log?pass%77ord={}&application_name=x", encode_all(pw)), encode_all(pw)),
        (format!("postgresql://{at}/log?%70assword={}", encode_some(pw)), encode_some(pw)),
        (format!("{kv} password={}", quoted(pw)), quoted(pw)),
        (format!("password = {} {kv}", quoted(pw)), quoted(pw)),
        (format!("{kv} password={}", escaped(pw)), escaped(pw)),
    ];
    // A raw `?` or `/` (no `@`, `%`): the user info runs to the first `@`.
    if !pw.contains(['@', '%']) {
        v.push((format!("postgres://shop:{pw}@{at}/log"), pw.to_string()));
    }
    v
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn a_password_never_shows_in_an_error(pw in password()) {
        for (conn, spelt) in forms(&pw) {
            prop_assert!(is_postgres_url(&conn), "{conn} is a PostgreSQL connection string");
            let e = match Recorder::open(RecorderOptions::new(&conn, ORIGIN, key(1, "k1"))) {
                Ok(_) => panic!("{conn}: opened"),
                Err(e) => e,
            };
            let shown = [format!("{e}"), e.message.clone(), e.path.clone(), redact_url(&conn)];
            for text in &shown {
                for secret in [&pw, &spelt, &encode_all(&pw)] {
                    prop_assert!(!text.contains(secret.as_str()), "{conn}: {secret:?} shows in {text:?}");
                }
            }
        }
    }
}
