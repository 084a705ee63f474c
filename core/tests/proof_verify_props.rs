//! Property tests of the bundle verifier: no request, bundle or key set, however malformed, makes it panic; every
//! result is internally consistent; a single-character edit of a receipt never verifies; and a large bundle checked
//! on every core gives exactly the result of one thread.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::PathBuf;
use std::sync::OnceLock;

use curbi::proof::bundle::ParsedBundle;
use curbi::proof::verify::{self, Reason, VerifyOptions};
use proptest::prelude::*;
use serde_json::{Value, json};

mod props;

use props::pointers;

/// The valid-four-domains request.
fn valid() -> &'static Value {
    static V: OnceLock<Value> = OnceLock::new();
    V.get_or_init(|| {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../vectors/proof/valid-four-domains.json");
        let doc: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        doc["input"].clone()
    })
}

/// Checks what every result must hold, and returns it.
fn run(request: &Value) -> Value {
    let out = curbi::api::verify_bundle_json(&serde_json::to_vec(request).unwrap()).unwrap();
    let r: Value = serde_json::from_str(&out).unwrap();
    let reason = r["reason"].as_str().unwrap();
    assert!(Reason::ALL.iter().any(|x| x.as_str() == reason), "{reason}");
    assert_eq!(r["ok"], reason == "verifies");
    for it in r["items"].as_array().unwrap() {
        assert_eq!(it["ok"], it["reason"] == "verifies", "{it}");
        if reason == "verifies" {
            assert_eq!(it["ok"], true);
        }
    }
    if reason == "malformed" && r["items"].as_array().unwrap().is_empty() {
        assert!(r["error"]["code"].is_string(), "{r}");
    }
    r
}

fn fragment() -> impl Strategy<Value = String> {
    let fixed = [
        "curbi-receipt-v1.",
        "curbi-attest-v1.",
        "curbi-checkpoint-v1.example.com/test-log\n",
        "\n\n\u{2014} ",
        ".",
        "=",
    ];
    let patterns = ["[A-Za-z0-9_-]{0,90}", "[0-9]{1,22}"];
    props::fragments(&fixed, &patterns, vec![props::any_char()])
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        5 => props::json_scalar(),
        1 => prop::collection::vec(fragment(), 0..6).prop_map(|p| Value::String(p.concat())),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,8}|keys|kty|crv|x|receipt|proof|index|head", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// One edit of a document at a pointer.
#[derive(Debug, Clone)]
enum Edit {
    Replace(Value),
    Remove,
    /// Changes one character of a string (by index, to a char).
    Char(prop::sample::Index, char),
    Truncate(prop::sample::Index),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        json_value().prop_map(Edit::Replace),
        Just(Edit::Remove),
        (any::<prop::sample::Index>(), any::<char>()).prop_map(|(i, c)| Edit::Char(i, c)),
        any::<prop::sample::Index>().prop_map(Edit::Truncate),
    ]
}

fn apply(doc: &mut Value, pointer: &str, e: &Edit) {
    if pointer.is_empty() {
        if let Edit::Replace(v) = e {
            *doc = v.clone();
        }
        return;
    }
    let (parent, last) = pointer.rsplit_once('/').unwrap();
    let last = last.replace("~1", "/").replace("~0", "~");
    match e {
        Edit::Remove => match doc.pointer_mut(parent) {
            Some(Value::Object(m)) => {
                m.remove(&last);
            }
            Some(Value::Array(a)) => {
                if let Ok(i) = last.parse::<usize>() {
                    if i < a.len() {
                        a.remove(i);
                    }
                }
            }
            _ => {}
        },
        Edit::Replace(v) => {
            if let Some(slot) = doc.pointer_mut(pointer) {
                *slot = v.clone();
            }
        }
        Edit::Char(i, c) => {
            if let Some(Value::String(s)) = doc.pointer_mut(pointer) {
                let mut chars: Vec<char> = s.chars().collect();
                if !chars.is_empty() {
                    let k = i.index(chars.len());
                    chars[k] = *c;
                    *s = chars.into_iter().collect();
                }
            }
        }
        Edit::Truncate(i) => {
            if let Some(Value::String(s)) = doc.pointer_mut(pointer) {
                let chars: Vec<char> = s.chars().collect();
                let k = i.index(chars.len() + 1);
                *s = chars[..k].iter().collect();
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Arbitrary bytes: `Err` for what is not JSON, otherwise a consistent result.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        if let Ok(out) = curbi::api::verify_bundle_json(&bytes) {
            let r: Value = serde_json::from_str(&out).unwrap();
            prop_assert!(r["reason"].is_string());
        }
        if let Ok(text) = std::str::from_utf8(&bytes) {
            let _ = curbi::proof::verify::verify_parts_text(text, text);
        }
        if let Ok(verifier) = curbi::api::Verifier::from_json(&bytes) {
            let _ = verifier.verify_json(&bytes);
        }
    }

    /// Arbitrary JSON in place of the whole request, the bundle or the keys.
    #[test]
    fn arbitrary_documents_never_panic(v in json_value()) {
        run(&v);
        let mut r = valid().clone();
        r["bundle"] = v.clone();
        run(&r);
        let mut r = valid().clone();
        r["keys"] = v;
        run(&r);
    }

    /// Up to three edits anywhere in a valid request (bundle, key set, options).
    #[test]
    fn edited_requests_never_panic(edits in prop::collection::vec((any::<prop::sample::Index>(), edit()), 1..4)) {
        let mut doc = valid().clone();
        for (at, e) in &edits {
            let mut all = Vec::new();
            pointers(&doc, String::new(), &mut all);
            let pointer = all[at.index(all.len())].clone();
            apply(&mut doc, &pointer, e);
        }
        run(&doc);
    }

    /// No single-character edit of a receipt, attestation or head leaves the bundle verifying.
    #[test]
    fn one_character_edits_never_verify(which in 0usize..9, at in any::<prop::sample::Index>(), c in any::<char>()) {
        let pointer = match which {
            0..=3 => format!("/bundle/receipts/{which}/receipt"),
            4..=7 => format!("/bundle/receipts/{}/attestation", which - 4),
            _ => "/bundle/head".to_string(),
        };
        let mut doc = valid().clone();
        let original = doc.pointer(&pointer).unwrap().clone();
        apply(&mut doc, &pointer, &Edit::Char(at, c));
        prop_assume!(doc.pointer(&pointer) != Some(&original));
        let r = run(&doc);
        prop_assert_ne!(r["reason"].as_str(), Some("verifies"), "{} still verifies", pointer);
    }
}

#[test]
fn the_valid_request_verifies() {
    assert_eq!(run(valid())["reason"], "verifies");
}

#[test]
fn every_core_gives_the_one_thread_result() {
    let (mut bundle, keys) = curbi_testkit::large_bundle(300, true).unwrap();
    // Break a few receipts in different chunks so that order matters.
    for i in [7usize, 150, 299] {
        bundle["receipts"][i]["index"] = json!((i + 1) % 300);
    }
    let parsed = ParsedBundle::from_value(&bundle, "/bundle").unwrap();
    let mut options = VerifyOptions::new(keys);
    options.allow_test = true;
    options.threads = 1;
    let one = verify::verify_bundle(&parsed, &options);
    for threads in [2, 3, 8, 0] {
        options.threads = threads;
        assert_eq!(verify::verify_bundle(&parsed, &options), one, "{threads} threads");
    }
    assert_eq!(one.reason, Reason::NotInLog);
    let bad: Vec<usize> = one.items.iter().filter(|i| !i.ok).map(|i| i.index).collect();
    assert_eq!(bad, [7, 150, 299]);
    assert_eq!(one.path, "/bundle/receipts/7");
}
