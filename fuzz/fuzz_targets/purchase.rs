//! Arbitrary bytes as a purchase check request (`api::verify_checkout_json`: mandate, checkout, ledger, now; the
//! MCP `verify_checkout` tool and every binding) and as a checkout (`api::checkout_digest_json`). Never a panic;
//! an answer is a decision document that never grants authority.
#![no_main]

use libfuzzer_sys::fuzz_target;

mod common;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = curbi::api::verify_checkout_json(data) {
        common::assert_decision(&text);
    }
    let _ = curbi::api::checkout_digest_json(data);
});
