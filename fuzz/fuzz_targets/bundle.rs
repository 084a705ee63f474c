//! Arbitrary bytes as a `verify_bundle` request (`api::verify_bundle_json`, the JSON entry every surface uses), and
//! the same bytes as a bundle document with the published test key set as options
//! (`api::verify_bundle_with_options_json`). Neither may panic; `Err` only for bytes that are not UTF-8 JSON, and
//! every result is consistent (`ok` exactly when the reason is `verifies`).
#![no_main]

use libfuzzer_sys::fuzz_target;

/// The published test key (`curbi vectors`, docs/PROOF.md §Vectors), tagged `curbi:test`.
const OPTIONS: &[u8] = br#"{"keys":{"keys":[{"kty":"OKP","crv":"Ed25519","x":"WCuf68iroVF6qipCrqwDbQ468SF0Mi7_njGMMnjIJnU","curbi:test":true}]},"allowTest":true}"#;

fn consistent(out: curbi::Result<String>) {
    let Ok(text) = out else { return };
    let v: serde_json::Value = serde_json::from_str(&text).expect("the result is JSON");
    let reason = v["reason"].as_str().expect("a reason");
    assert_eq!(v["ok"].as_bool(), Some(reason == "verifies"), "{text}");
    for item in v["items"].as_array().expect("items") {
        assert_eq!(item["ok"].as_bool(), Some(item["reason"] == "verifies"), "{item}");
    }
}

fuzz_target!(|data: &[u8]| {
    consistent(curbi::api::verify_bundle_json(data));
    consistent(curbi::api::verify_bundle_with_options_json(data, OPTIONS));
});
