//! `vectors/yaml/conversions.json` through `api::yaml_to_json`: the exact JSON text, or the error's code and path.
#![cfg(feature = "yaml")]
#![allow(clippy::unwrap_used, clippy::panic)]

use serde_json::Value;

#[test]
fn yaml_vectors() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../vectors/yaml/conversions.json");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let cases = doc["cases"].as_array().unwrap();
    assert!(cases.len() >= 10);
    for case in cases {
        let what = case["description"].as_str().unwrap();
        let got = curbi::api::yaml_to_json(case["yaml"].as_str().unwrap().as_bytes());
        match (&case["json"], &case["error"], got) {
            (Value::String(want), Value::Null, Ok(text)) => assert_eq!(&text, want, "{what}"),
            (Value::Null, want, Err(e)) => {
                assert_eq!(
                    (e.code.as_str(), e.path.as_str()),
                    (want["code"].as_str().unwrap(), want["path"].as_str().unwrap()),
                    "{what}"
                )
            }
            (_, _, got) => panic!("{what}: got {got:?}"),
        }
    }
}
