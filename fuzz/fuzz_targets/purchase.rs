//! Arbitrary bytes as a purchase check request (`api::verify_checkout_json`: mandate, checkout, ledger, now; the
//! MCP `verify_checkout` tool and every binding) and as a checkout (`api::checkout_digest_json`). Never a panic;
//! an answer is a decision document that never grants authority.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = curbi::api::verify_checkout_json(data) {
        let v: serde_json::Value = serde_json::from_str(&text).expect("the decision is JSON");
        assert!(matches!(v["decision"].as_str(), Some("ALLOW" | "DENY" | "STEP_UP")), "{text}");
        assert_eq!(v["authorizationGranted"], false, "{text}");
    }
    let _ = curbi::api::checkout_digest_json(data);
});
