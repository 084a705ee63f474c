//! Arbitrary bytes as an action check request (`api::verify_action_json`: grant, action, now; the MCP
//! `verify_agent` tool and every binding). Never a panic; an answer is a decision that never grants authority.
#![no_main]

use libfuzzer_sys::fuzz_target;

mod common;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = curbi::api::verify_action_json(data) {
        common::assert_decision(&text);
    }
});
