//! Arbitrary text as a JWKS (`proof::keys::KeySet::parse`, the `keys` of every verification) and as verifier
//! options (`api::Verifier::from_text`). Never a panic; a key set that parses has no private key material.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = curbi::proof::keys::KeySet::parse(text);
    let _ = curbi::api::Verifier::from_text(text);
});
