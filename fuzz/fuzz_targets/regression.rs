//! Arbitrary bytes as a regression export request (`api::export_regression_json`) and as a `curbi.regression`
//! document to replay (`api::replay_regression_json`). Never a panic; an export replays with every case holding.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = curbi::api::replay_regression_json(data);
    if let Ok(text) = curbi::api::export_regression_json(data) {
        let v: serde_json::Value = serde_json::from_str(&text).expect("the export is JSON");
        let regression = v["regression"].to_string();
        let replay = curbi::api::replay_regression_json(regression.as_bytes()).expect("an export replays");
        let r: serde_json::Value = serde_json::from_str(&replay).expect("the replay is JSON");
        assert_eq!(r["pass"], true, "{replay}");
    }
});
