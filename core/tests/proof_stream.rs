//! The streaming bundle reader (`verify_request_text`, `verify_parts_text`, `ParsedBundle::from_text`) against the
//! tree reader (`verify_request`, `ParsedBundle::from_value`): for every proof vector, and for a few hundred damaged
//! versions of two of them (each member removed, given each wrong JSON type, joined by unknown members), written with
//! object members in document order and reversed, both readers give the same result, byte for byte. The first
//! error a document reports must not depend on which reader read it, nor on the order its members are written in.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use std::path::PathBuf;

use serde_json::{Map, Value, json};

use curbi::proof::bundle::ParsedBundle;
use curbi::proof::verify::{verify_parts_text, verify_request, verify_request_text};

fn dir() -> PathBuf {
    common::vectors().join("proof")
}

fn input(file: &str) -> Value {
    let doc: Value = serde_json::from_slice(&std::fs::read(dir().join(file)).unwrap()).unwrap();
    doc["input"].clone()
}

fn cases() -> Vec<(String, Value)> {
    let index: Value = serde_json::from_slice(&std::fs::read(dir().join("cases.json")).unwrap()).unwrap();
    index["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["name"].as_str().unwrap().to_owned(), input(c["file"].as_str().unwrap())))
        .collect()
}

/// JSON text with every object's members in byte order (`reverse = false`) or the reverse of it.
fn text(v: &Value, reverse: bool) -> String {
    match v {
        Value::Object(m) => {
            let mut members: Vec<String> =
                m.iter().map(|(k, v)| format!("{}:{}", Value::String(k.clone()), text(v, reverse))).collect();
            if reverse {
                members.reverse();
            }
            format!("{{{}}}", members.join(","))
        }
        Value::Array(a) => format!("[{}]", a.iter().map(|v| text(v, reverse)).collect::<Vec<_>>().join(",")),
        other => other.to_string(),
    }
}

/// Every reader over one request gives the tree reader's result.
fn assert_same(label: &str, request: &Value) {
    let want = verify_request(request).to_json_string();
    for reverse in [false, true] {
        let t = text(request, reverse);
        let got = verify_request_text(&t).unwrap().to_json_string();
        assert_eq!(got, want, "{label} (members reversed: {reverse}): verify_request_text");
        // The same request as two documents, when it can be split that way.
        if let Some(obj) = request.as_object()
            && let Some(bundle) = obj.get("bundle")
        {
            let mut options = obj.clone();
            options.remove("bundle");
            let got = verify_parts_text(&text(bundle, reverse), &text(&Value::Object(options), reverse))
                .unwrap()
                .to_json_string();
            assert_eq!(got, want, "{label} (members reversed: {reverse}): verify_parts_text");
            let tree = ParsedBundle::from_value(bundle, "/bundle").map(|b| b.items.len()).map_err(|e| (e.code, e.path));
            let streamed = ParsedBundle::from_text(&text(bundle, reverse), "/bundle")
                .map(|b| b.items.len())
                .map_err(|e| (e.code, e.path));
            assert_eq!(streamed, tree, "{label} (members reversed: {reverse}): ParsedBundle::from_text");
        }
    }
}

#[test]
fn every_vector_reads_the_same_streamed() {
    let cases = cases();
    assert!(cases.len() >= 71, "{} cases", cases.len());
    for (name, request) in &cases {
        assert_same(name, request);
    }
}

/// Values of every JSON type but the one a member has, and a few wrong values of the right type.
fn replacements() -> Vec<Value> {
    vec![json!(null), json!(true), json!(7), json!(-1), json!(1.5), json!("x"), json!([]), json!([1]), json!({})]
}

/// Damaged copies of the object at `pointer` in `doc`: each member removed, each replaced, unknown members added.
fn damaged(doc: &Value, pointer: &str) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let Some(Value::Object(obj)) = doc.pointer(pointer) else { panic!("{pointer} is not an object") };
    let edit = |f: &dyn Fn(&mut Map<String, Value>)| {
        let mut d = doc.clone();
        if let Some(Value::Object(m)) = d.pointer_mut(pointer) {
            f(m);
        }
        d
    };
    for name in obj.keys() {
        out.push((format!("{pointer}: without {name}"), edit(&|m| drop(m.remove(name)))));
        for r in replacements() {
            out.push((format!("{pointer}/{name} = {r}"), edit(&|m| drop(m.insert(name.clone(), r.clone())))));
        }
    }
    // Two members wrong at once: which one a reader reports first must not depend on the reader.
    let names: Vec<&String> = obj.keys().collect();
    for (i, a) in names.iter().enumerate() {
        for b in &names[i + 1..] {
            let both = edit(&|m| {
                m.insert((*a).clone(), json!(true));
                m.insert((*b).clone(), json!(null));
            });
            out.push((format!("{pointer}/{a} and /{b} wrong"), both));
        }
        out.push((
            format!("{pointer}: without {a}, and an unknown"),
            edit(&|m| {
                m.remove(*a);
                m.insert("zz".into(), json!(1));
            }),
        ));
    }
    for extra in ["", "a", "zz", "~/"] {
        out.push((format!("{pointer}: unknown {extra:?}"), edit(&|m| drop(m.insert(extra.into(), json!(1))))));
    }
    out.push((
        format!("{pointer}: two unknown"),
        edit(&|m| {
            m.insert("b".into(), json!(1));
            m.insert("aa".into(), json!(1));
        }),
    ));
    out
}

#[test]
fn damaged_requests_read_the_same_streamed() {
    let mut checked = 0;
    for file in ["valid-four-domains.json", "witness-2-of-2.json"] {
        let doc = input(file);
        let receipts = doc["bundle"]["receipts"].as_array().unwrap().len();
        let mut variants = damaged(&doc, "");
        variants.extend(damaged(&doc, "/bundle"));
        for i in [0, receipts - 1] {
            variants.extend(damaged(&doc, &format!("/bundle/receipts/{i}")));
        }
        if doc["bundle"].get("consistency").is_some() {
            variants.extend(damaged(&doc, "/bundle/consistency/0"));
        }
        // Lists: empty, a wrong entry first or last, and a receipt list over the limit is counted, not read.
        for (label, pointer, value) in [
            ("no receipts", "/bundle/receipts", json!([])),
            ("one receipt, a number", "/bundle/receipts", json!([1])),
            ("last receipt null", &format!("/bundle/receipts/{}", receipts - 1), json!(null)),
            ("no older heads", "/bundle/consistency", json!([])),
        ] {
            let mut d = doc.clone();
            if let Some(slot) = d.pointer_mut(pointer) {
                *slot = value;
                variants.push((format!("{file}: {label}"), d));
            }
        }
        // A receipt's proof, element by element: each wrong type and wrong hash, first and last, and over the
        // limit (the count is the error, before any bad element).
        for i in [0, receipts - 1] {
            let at = format!("/bundle/receipts/{i}/proof");
            let proof = doc.pointer(&at).and_then(Value::as_array).unwrap().clone();
            let hash = proof[0].clone();
            let short = Value::String(curbi::encoding::encode_std(&[7; 31]));
            let unpadded = Value::String(hash.as_str().unwrap().trim_end_matches('=').to_owned());
            let mut lists: Vec<(String, Vec<Value>)> = Vec::new();
            for r in replacements().into_iter().chain([short, unpadded]) {
                for j in [0, proof.len() - 1] {
                    let mut p = proof.clone();
                    p[j] = r.clone();
                    lists.push((format!("{at}/{j} = {r}"), p));
                }
            }
            lists.push((format!("{at}: 65 hashes"), vec![hash.clone(); 65]));
            lists.push((format!("{at}: 64 hashes"), vec![hash.clone(); 64]));
            lists.push((
                format!("{at}: 65, the first a number"),
                [json!(1)].into_iter().chain(vec![hash; 64]).collect(),
            ));
            lists.push((format!("{at}: empty"), Vec::new()));
            for (label, list) in lists {
                let mut d = doc.clone();
                *d.pointer_mut(&at).unwrap() = Value::Array(list);
                variants.push((format!("{file}: {label}"), d));
            }
        }
        for (label, v) in variants {
            assert_same(&format!("{file}: {label}"), &v);
            checked += 1;
        }
    }
    assert!(checked > 400, "{checked} variants");
}

#[test]
fn escaped_member_names_and_strings_read_the_same_streamed() {
    // The streaming reader borrows unescaped strings from the text; an escape in a member name or a value must
    // read as its character, as the tree reader reads it.
    let doc = input("valid-four-domains.json");
    let plain = text(&doc, false);
    let edits = [
        (r#""receipt":"curbi-receipt-v1."#, r#""receipt":"curbi-rec\u0065ipt-v1."#),
        (r#""proof":["#, r#""pro\u006ff":["#),
        (r#""index":"#, r#""\u0069ndex":"#),
        (r#""receipt":"curbi-receipt-v1."#, r#""receipt":"curbi-receipt-v1.\n"#),
        (r#""index":"#, r#""indeks":"#),
    ];
    for (from, to) in edits {
        for count in [1, 2] {
            let edited = plain.replacen(from, to, count);
            assert_ne!(edited, plain, "{from}");
            let tree = verify_request(&serde_json::from_str(&edited).unwrap()).to_json_string();
            assert_eq!(verify_request_text(&edited).unwrap().to_json_string(), tree, "{to} ({count})");
        }
    }
}

#[test]
fn a_receipt_list_over_the_limit_is_refused_by_count_before_its_entries() {
    // A readable head, then 100,001 entries that are not receipts: the count is the error, as in the tree reader,
    // and the entries past the first bad one are only counted.
    let head = input("valid-four-domains.json")["bundle"]["head"].clone();
    let entries = vec!["0"; curbi::proof::bundle::MAX_RECEIPTS + 1].join(",");
    let doc = format!(r#"{{"object":"curbi.proof/0.1","head":{head},"receipts":[{entries}]}}"#);
    let tree = ParsedBundle::from_value(&serde_json::from_str(&doc).unwrap(), "").err().map(|e| (e.code, e.path));
    let streamed = ParsedBundle::from_text(&doc, "").err().map(|e| (e.code, e.path));
    assert_eq!(streamed, tree);
    assert_eq!(streamed.map(|(c, p)| (c.as_str(), p)), Some(("too_many_items", "/receipts".to_owned())));
}

#[test]
fn repeated_members_and_syntax_errors_in_the_streamed_texts() {
    let doc = input("valid-four-domains.json");
    let mut options = doc.as_object().unwrap().clone();
    let bundle = options.remove("bundle").unwrap();
    let bundle_text = text(&bundle, false);
    let options_text = text(&Value::Object(options), false);

    // A member written twice inside a receipt: refused at the receipt's pointer, whichever way it is passed.
    let twice = bundle_text.replacen(r#""index":"#, r#""index":0,"index":"#, 1);
    assert_ne!(twice, bundle_text);
    let whole = format!(r#"{{"bundle":{twice},{}"#, &options_text[1..]);
    for v in [verify_request_text(&whole).unwrap(), verify_parts_text(&twice, &options_text).unwrap()] {
        let v = v.to_value();
        assert_eq!(v["reason"], "malformed");
        assert_eq!(v["error"]["code"], "duplicate_member");
        assert_eq!(v["error"]["path"], "/bundle/receipts/0/index");
    }
    let e = ParsedBundle::from_text(&twice, "/bundle").err().unwrap();
    assert_eq!((e.code.as_str(), e.path.as_str()), ("duplicate_member", "/bundle/receipts/0/index"));

    // A syntax error after the repeat still makes the text unreadable (Err), not a malformed result.
    let broken = format!("{}]", &whole[..whole.len() - 1]);
    assert!(verify_request_text(&broken).is_err());
    assert!(verify_parts_text(&format!("{twice} x"), &options_text).is_err());
    assert!(ParsedBundle::from_text(&format!("{bundle_text},"), "").is_err());
}
