//! Arbitrary bytes as the request of a recorder call (`Recorder::call_json`, recorder/src/api.rs: what the C ABI,
//! Python, Node, Go, the CLI and the server call), against a real recorder on a SQLite file that already holds a
//! grant and a few receipts. The first byte picks the method (every one of `api::METHODS` but `publish`, whose
//! `dir` would write where the input says); the rest is the request. Never a panic; a refusal is an error with a
//! code that is not `internal` and a JSON pointer; an answer is JSON and linear in the request beyond
//! an allowance for what the log holds. (`open_json` is left out: its `path` would create a database anywhere.)
#![no_main]

use std::sync::LazyLock;

use curbi_recorder::Recorder;
use curbi_recorder::api::METHODS;
use libfuzzer_sys::fuzz_target;

mod common;
mod recorder_log;

static RECORDER: LazyLock<Recorder> = LazyLock::new(|| {
    let dir = recorder_log::scratch("recorder");
    let recorder = recorder_log::open(&dir);
    recorder_log::refunds(&recorder, 0, 3);
    recorder_log::call(&recorder, "checkpoint", &serde_json::json!({}));
    recorder
});

/// Room for the answers that read the log (a bundle, a page of receipts) beyond 64 bytes per request byte.
const ALLOWANCE: usize = 256 * 1024;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, request)) = data.split_first() else { return };
    let callable: Vec<&str> = METHODS.iter().copied().filter(|m| *m != "publish").collect();
    let method = callable[usize::from(pick) % callable.len()];
    match RECORDER.call_json(method, request) {
        Ok(text) => {
            let _: serde_json::Value = serde_json::from_str(&text).expect("the answer is JSON");
            assert!(
                text.len() <= 64 * request.len() + ALLOWANCE,
                "{method}: {} bytes answer {}",
                text.len(),
                request.len()
            );
        }
        Err(e) => common::assert_error(&e, request.len()),
    }
});
