//! Arbitrary bytes as a Check API request body (`api::check_json`, what `POST /v1/check`, `curbi check` and every
//! binding call) and through the bounded form the server uses (`api::check_json_within`). Neither may panic; under
//! a cap the bounded answer is the unbounded one byte for byte, or `output_too_large`; an error always has a code.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let full = curbi::api::check_json(data).map(|r| r.to_json_string());
    for cap in [64usize, 4096, usize::MAX] {
        match (&full, curbi::api::check_json_within(data, None, cap)) {
            (Ok(text), Ok(bounded)) => assert_eq!(text, &bounded),
            (Ok(text), Err(e)) => {
                assert_eq!(e.code, curbi::ErrorCode::OutputTooLarge, "{e}");
                assert!(text.len() > cap, "refused {} bytes under a cap of {cap}", text.len());
            }
            (Err(a), Err(b)) => assert_eq!(a, &b),
            (Err(e), Ok(_)) => panic!("the bounded check answered where the check refused: {e}"),
        }
    }
});
