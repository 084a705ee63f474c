//! Arbitrary bytes as a YAML document (`yaml::to_json` and `yaml::read`, what `curbi` reads `.yaml`/`.yml` policies
//! and requests with). Never a panic; a refusal is an error with a code and a JSON pointer; the JSON written is
//! linear in the YAML read (no alias or merge can multiply it) and is read by the strict reader with the same
//! answer `read` gives.
#![no_main]

use libfuzzer_sys::fuzz_target;

mod common;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match curbi::yaml::to_json(text) {
        Ok(json) => {
            common::assert_bounded("JSON from YAML", json.len(), text.len(), 16);
            match (curbi::yaml::read(text), curbi::json::read_str(&json)) {
                (Ok(a), Ok(b)) => assert_eq!(a, b),
                (Err(a), Err(b)) => {
                    assert_eq!(a, b);
                    common::assert_error(&a, text.len());
                }
                (a, b) => panic!("read gave {a:?}, the strict reader of its JSON {b:?}"),
            }
        }
        Err(e) => {
            common::assert_error(&e, text.len());
            assert!(curbi::yaml::read(text).is_err(), "read accepted what to_json refused");
        }
    }
});
