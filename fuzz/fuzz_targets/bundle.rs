//! Arbitrary bytes as a `verify_bundle` request (`api::verify_bundle_json`, the JSON entry every surface uses); the
//! same bytes as a bundle document for a verifier handle built from the published test key set
//! (`api::Verifier::verify_json`, what `curbi_verifier_verify` and the bindings' verifiers call); and as the bundle
//! of `curbi verify` with those options (`verify_parts_text`). None may panic; `Err` only for bytes that are not
//! UTF-8 JSON, and every result is consistent (`ok` exactly when the reason is `verifies`). And the streaming reader
//! agrees with the tree reader: for JSON without repeated member names, `verify_request_text` gives
//! `verify_request`'s result.
#![no_main]

use libfuzzer_sys::fuzz_target;

/// The published test key (`curbi vectors`, docs/PROOF.md §Vectors), tagged `curbi:test`.
const OPTIONS: &str = r#"{"keys":{"keys":[{"kty":"OKP","crv":"Ed25519","x":"WCuf68iroVF6qipCrqwDbQ468SF0Mi7_njGMMnjIJnU","curbi:test":true}]},"allowTest":true}"#;

fn consistent(out: curbi::Result<String>) {
    let Ok(text) = out else { return };
    let v: serde_json::Value = serde_json::from_str(&text).expect("the result is JSON");
    let reason = v["reason"].as_str().expect("a reason");
    assert_eq!(v["ok"].as_bool(), Some(reason == "verifies"), "{text}");
    for item in v["items"].as_array().expect("items") {
        assert_eq!(item["ok"].as_bool(), Some(item["reason"] == "verifies"), "{item}");
    }
}

fn same_as_tree(data: &[u8]) {
    use curbi::proof::verify::{verify_request, verify_request_text};
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(tree) = serde_json::from_str::<serde_json::Value>(text) else { return };
    let streamed = verify_request_text(text).expect("JSON is readable").to_value();
    // A repeated member is refused by the text reader only (`duplicate_member`, core/src/json.rs; it was
    // `invalid_json` before the codes were split); the tree reader never sees the repeat.
    if streamed["error"]["code"] == "duplicate_member" {
        return;
    }
    assert_eq!(streamed, verify_request(&tree).to_value(), "{text}");
}

fuzz_target!(|data: &[u8]| {
    consistent(curbi::api::verify_bundle_json(data));
    let verifier = curbi::api::Verifier::from_json(OPTIONS.as_bytes()).expect("the test key set is usable");
    consistent(verifier.verify_json(data));
    if let Ok(text) = std::str::from_utf8(data) {
        consistent(curbi::proof::verify::verify_parts_text(text, OPTIONS).map(|v| v.to_json_string()));
    }
    same_as_tree(data);
});
