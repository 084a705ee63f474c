//! Arbitrary bytes as a policy document: compiled (`CompiledPolicy::from_json`, every binding's `Policy.compile`)
//! and linted (`api::validate_policy_json`, `validate_policy`). Neither may panic; a policy that compiles is valid
//! for the linter, and a compiled policy checks a reply made of its own words without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let compiled = curbi::CompiledPolicy::from_json(data);
    if let Ok(report) = curbi::api::validate_policy_json(data) {
        let v: serde_json::Value = serde_json::from_str(&report).expect("the lint report is JSON");
        if compiled.is_ok() {
            assert_eq!(v["valid"], true, "{report}");
        }
    }
    if let (Ok(p), Ok(text)) = (compiled, std::str::from_utf8(data)) {
        for version in curbi::CheckerVersion::ALL {
            let _ = p.check(text, None, version);
        }
    }
});
