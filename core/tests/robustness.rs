//! Property tests: no reply or request, however odd, makes the checker panic, and every finding's span slices its
//! text on character boundaries, in bytes and in UTF-16 alike.
#![allow(clippy::unwrap_used)]

use curbi::check::span;
use curbi::{CheckerVersion, CompiledPolicy, policy};
use proptest::prelude::*;

mod props;

fn compiled() -> CompiledPolicy {
    let p = serde_json::json!({
        "prices": [{"item": "Pro", "amounts": [49, 490], "aliases": ["Pro plan", "İleri"]},
                   {"item": "Starter", "amount": 19}, {"item": "Pro Annual", "amount": 490}],
        "forbid": [{"id": "guarantee", "phrases": ["guarantee", "money back"]},
                   {"id": "garanti", "phrases": ["garanti"], "match": "prefix"},
                   {"id": "strict", "phrases": ["free"], "negatable": false}],
        "actions": {"refunded": "billing.refund", "canceled": "billing.cancel"},
        "discounts": [{"percent": 20, "items": ["Pro"]}, {"percent": 12.5}]
    });
    CompiledPolicy::new(policy::parse_policy(&p).unwrap())
}

fn record() -> curbi::CompiledRecord {
    let record = serde_json::json!({
        "effects": [{"operation": "billing.cancel", "status": "DONE"}],
        "facts": [{"near": "appointment", "kind": "time", "value": "15:30"},
                  {"near": "delivery", "kind": "date", "value": "2026-11-03"},
                  {"near": "refund", "kind": "money", "value": "$49.99"}]});
    curbi::CompiledRecord::from_json(record.to_string().as_bytes()).unwrap()
}

/// Fragments that exercise every reader, glued in random order with random separators.
fn fragment() -> impl Strategy<Value = String> {
    let fixed = [
        "$49",
        "$1,299.00",
        "€49",
        "US$",
        "$",
        "49 dollars",
        "$10k",
        "–",
        "Pro",
        "Pro Annual",
        "İleri",
        "GARANTİLİ",
        "not",
        "haven’t",
        "refunded",
        "Canceled!",
        "guaranteed",
        "20% off",
        "half off",
        "3:30 PM",
        "12 AM",
        "Nov 3",
        "11/03",
        "2026-11-03",
        "appointment",
        "😀",
        "中文",
        "é",
        "\u{307}",
        "?",
        ".",
        ",",
        "\n",
        "'",
        "%",
        "9",
        // Checker 2026-12-01's readers: formatter spaces and dashes, currencies after `$` or in words, asides.
        "\u{a0}",
        "\u{202f}PM",
        "\u{2028}",
        "\u{2011}",
        "NZD",
        "(CAD)",
        "Swiss francs",
        "New Zealand",
        "as a rule,",
        "from",
        "instead of",
        "buy",
        "get one free",
        "2 for",
        "respectively",
        "under",
        "forty-nine",
        "seats",
        "'",
    ];
    let patterns = ["\\PC{0,6}"];
    props::fragments(&fixed, &patterns, vec![])
}

fn reply() -> impl Strategy<Value = String> {
    prop::collection::vec((fragment(), prop_oneof![Just(""), Just(" "), Just(", "), Just(". ")]), 0..24)
        .prop_map(|parts| parts.into_iter().map(|(a, b)| a + b).collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn findings_slice_their_text(reply in reply(), v in 0..CheckerVersion::ALL.len()) {
        let version = CheckerVersion::ALL[v];
        let p = compiled();
        let rec = record();
        let findings = p.check(&reply, Some(&rec), version);
        let again = p.check(&reply, Some(&rec), version);
        prop_assert_eq!(&findings, &again, "deterministic");
        let offsets: Vec<usize> = findings.iter().flat_map(|f| [f.start, f.end]).collect();
        let u16 = span::utf16_offsets(&reply, &offsets);
        let units: Vec<u16> = reply.encode_utf16().collect();
        for (i, f) in findings.iter().enumerate() {
            prop_assert!(f.start < f.end && reply.is_char_boundary(f.start) && reply.is_char_boundary(f.end));
            prop_assert_eq!(&reply[f.start..f.end], f.text.as_str());
            prop_assert_eq!(String::from_utf16(&units[u16[2 * i]..u16[2 * i + 1]]).unwrap(), f.text.clone());
        }
        for w in findings.windows(2) {
            prop_assert!((w[0].start, &w[0].rule) <= (w[1].start, &w[1].rule), "sorted by start then rule");
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(body in prop::collection::vec(any::<u8>(), 0..512)) {
        let _ = curbi::api::check_json(&body);
    }

    #[test]
    fn arbitrary_replies_in_requests_never_panic(reply in "\\PC{0,300}", v in 0..CheckerVersion::ALL.len()) {
        let version = CheckerVersion::ALL[v].as_str();
        let body = serde_json::json!({"version": version, "policy": {"prices": [{"item": "Pro", "amount": 49}], "forbid": [{"id": "x", "phrases": ["x"]}]}, "reply": reply});
        let r = curbi::api::check_json(&serde_json::to_vec(&body).unwrap()).unwrap();
        prop_assert!(serde_json::from_str::<serde_json::Value>(&r.to_json_string()).is_ok());
    }
}
