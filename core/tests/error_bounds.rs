//! Property tests: an error document stays under a constant size whatever the size of the input it quotes, for JSON,
//! YAML and policy errors (a 10 MB scalar is quoted as an excerpt with the marker `… (N bytes)`, never whole).
#![cfg(feature = "yaml")]
#![allow(clippy::unwrap_used)]

use curbi::error::MAX_ERROR_TEXT;
use curbi::{CompiledPolicy, Error};
use proptest::prelude::*;

/// The largest error document any input may make: a message and a path of at most [`MAX_ERROR_TEXT`] bytes plus
/// their markers, each byte written as at most six when escaped in JSON (`\u0001`), and the document's frame.
const BOUND: usize = 2 * 6 * (MAX_ERROR_TEXT + 32) + 128;

/// A long run of one character, from those that quoting treats differently: plain, multi-byte, escaped in JSON.
fn payload() -> impl Strategy<Value = String> {
    let ch = prop::sample::select(vec!['x', '€', '"', '\\', '\u{1F600}', '\t', 'é']);
    (ch, 0usize..150_000).prop_map(|(c, n)| std::iter::repeat_n(c, n).collect())
}

fn json(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

fn yaml(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

fn size(e: &Error) -> usize {
    e.to_json().to_string().len()
}

/// Every document here is refused; each refusal's error document stays under [`BOUND`].
fn assert_bounded(what: &str, result: Result<impl std::fmt::Debug, Error>) -> Result<(), TestCaseError> {
    let e = match result {
        Ok(v) => return Err(TestCaseError::fail(format!("{what}: accepted: {:.200}", format!("{v:?}")))),
        Err(e) => e,
    };
    prop_assert!(size(&e) <= BOUND, "{what}: {} bytes: {:.300}", size(&e), e.message);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn json_errors_are_bounded(p in payload()) {
        let q = json(&p);
        assert_bounded("repeated member", curbi::json::read_str(&format!("{{{q}:1,{q}:2}}")))?;
        assert_bounded("syntax", curbi::json::read_str(&format!("{{\"a\": {p}x}}")))?;
        assert_bounded("unknown option", curbi::api::CheckOptions::from_json(format!("{{{q}:1}}").as_bytes()).map(|_| ()))?;
        assert_bounded("unknown request member", curbi::api::check_json(format!("{{\"reply\":\"r\",\"policy\":{{}},{q}:1}}").as_bytes()).map(|_| ()))?;
    }

    #[test]
    fn policy_errors_are_bounded(p in payload(), digits in 0usize..150_000) {
        let q = json(&p);
        let compile = |doc: String| CompiledPolicy::from_json(doc.as_bytes()).map(|_| ());
        assert_bounded("unknown member", compile(format!("{{{q}:1}}")))?;
        assert_bounded("enum", compile(format!("{{\"unknownAmounts\":{q}}}")))?;
        assert_bounded("id pattern", compile(format!("{{\"forbid\":[{{\"id\":{q},\"phrases\":[\"x\"]}}]}}")))?;
        assert_bounded("verb pattern", compile(format!("{{\"actions\":{{{q}:\"billing.refund\"}}}}")))?;
        let large = format!("1{}", "0".repeat(digits));
        let precise = format!("0.{}1", "0".repeat(digits));
        for (name, n) in [("large amount", &large), ("precise amount", &precise)] {
            let doc = format!("{{\"prices\":[{{\"item\":\"a\",\"amount\":{n}}}]}}");
            if digits > 20 {
                assert_bounded(name, compile(doc.clone()))?;
            }
            // Lint reports every error: each is bounded.
            let report: serde_json::Value =
                serde_json::from_str(&curbi::api::validate_policy_json(doc.as_bytes()).unwrap()).unwrap();
            for e in report["errors"].as_array().unwrap() {
                prop_assert!(e.to_string().len() <= BOUND, "{name}: {} bytes", e.to_string().len());
            }
        }
    }

    #[test]
    fn yaml_errors_are_bounded(p in payload(), digits in 1usize..150_000) {
        let q = yaml(&p);
        assert_bounded("tag mismatch", curbi::yaml::read(&format!("x: !!int {q}\n")))?;
        assert_bounded("repeated key", curbi::yaml::read(&format!("{q}: 1\n{q}: 2\n")))?;
        assert_bounded("unclosed", curbi::yaml::read(&format!("a: [{q}\n")))?;
        let tag: String = p.chars().filter(char::is_ascii_alphanumeric).collect();
        assert_bounded("custom tag", curbi::yaml::read(&format!("x: !t{tag} 1\n")))?;
        assert_bounded("large integer", curbi::yaml::read(&format!("x: 0x1{}\n", "f".repeat(digits + 32))))?;
        // A YAML policy's schema error, through its JSON.
        let policy = curbi::yaml::to_json(&format!("unknownAmounts: {q}\n")).unwrap();
        assert_bounded("yaml policy", CompiledPolicy::from_json(policy.as_bytes()).map(|_| ()))?;
    }
}

#[test]
fn a_ten_megabyte_scalar_is_quoted_as_an_excerpt_with_its_size() {
    let big = "x".repeat(10_485_760);
    let e = curbi::yaml::read(&format!("x: !!int {big}\n")).unwrap_err();
    assert!(
        e.message.contains(&format!("\"{}… (10485760 bytes)\" is not a !!int", "x".repeat(64))),
        "{:.200}",
        e.message
    );
    assert!(size(&e) <= BOUND);
    let e = CompiledPolicy::from_json(format!("{{\"unknownAmounts\":\"{big}\"}}").as_bytes()).map(|_| ()).unwrap_err();
    assert!(
        e.message.starts_with(&format!("'{}… (10485760 bytes)' is not one of: ", "x".repeat(64))),
        "{:.200}",
        e.message
    );
}
